"""The match tool: two GTP engines play each other (``python -m imago.match``).

A front end beside terminal play: :mod:`.client` speaks GTP to an engine
process, :mod:`.tool` runs the games, referees and reports.
"""

from .tool import EngineStats, GameRecord, Referee, main, play_game, report, wilson_interval

__all__ = ["EngineStats", "GameRecord", "Referee", "main", "play_game", "report",
           "wilson_interval"]
