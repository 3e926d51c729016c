"""KataGo-compatible JSON analysis engine (``imago analysis``).

- :mod:`.query`: one protocol line read into a :class:`~.query.Query` (the
  positions built, every field checked) or an action, or the errors and
  warnings KataGo would write (:mod:`imago.game.rulesets`: KataGo's rule names);
- :mod:`.response`: search results written as KataGo's responses;
- :mod:`.engine`: :class:`AnalysisEngine`, the searches of every open query
  sharing one network;
- :mod:`.cli`: ``imago analysis`` with KataGo's command line.
"""

from .engine import AnalysisEngine, AnalysisError

__all__ = ["AnalysisEngine", "AnalysisError"]
