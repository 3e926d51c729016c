"""The match tool: two GTP engines play each other (``python -m imago.match``).

A front end beside terminal play: :mod:`.client` speaks GTP to an engine
process, :mod:`.tool` runs the games, referees and reports, :mod:`.cli`
reads and checks the command line and the engines before the first game.
"""

from .cli import main
from .tool import (EngineStats, GameRecord, Match, MatchSettings, Referee, play_game, report,
                   wilson_interval)

__all__ = ["EngineStats", "GameRecord", "Match", "MatchSettings", "Referee", "main",
           "play_game", "report", "wilson_interval"]
