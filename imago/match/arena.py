"""Matches between two networks in one process, many games at once.

Gating a self-play candidate needs a hundred games or more between two
networks at equal visits. Over GTP each move is one search of one game;
here every game has one :class:`~imago.search.PUCTSearch` per player and
each network has one :class:`~imago.search.SearchPool`, so a network call
answers the leaves of all the games where that network is to move. Colours
alternate game by game (game 0: the first network takes Black); the first
``sample_moves`` moves are drawn in proportion to the visits so the games
differ, then the most visited move is played; a side whose searched value
stays below ``resign_value`` for two of its moves resigns; games end by two
passes or ``max_moves`` and are judged by imago's one count.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterator, Optional, Sequence

import numpy as np

from imago.game import BLACK, WHITE, GameState
from imago.search import PUCTSearch, SearchJob, SearchPool


@dataclass
class ArenaSettings:
    """How arena games are played (see the module docstring)."""

    size: int = 9
    komi: float = 7.5
    visits: int = 100
    parallel: int = 32
    search_batch: int = 8
    sample_moves: int = 4
    resign_value: float = -0.95
    max_moves: Optional[int] = None  # default: 2 * size * size


@dataclass
class ArenaGame:
    """One finished game: who played which colour and who won."""

    number: int
    black: str
    white: str
    winner: int   # BLACK, WHITE, or 0 for a draw
    result: str
    moves: int
    state: GameState

    @property
    def winner_name(self) -> Optional[str]:
        return {BLACK: self.black, WHITE: self.white}.get(self.winner)


@dataclass
class _Game:
    number: int
    state: GameState
    searches: dict      # colour -> PUCTSearch
    players: dict       # colour -> player index
    low: dict
    job: Optional[SearchJob] = None


def play_arena(evaluators: Sequence, names: Sequence[str], numbers: Sequence[int],
               settings: ArenaSettings, seed: Optional[int] = None,
               on_game: Optional[Callable[[ArenaGame], None]] = None) -> Iterator[ArenaGame]:
    """Play the games ``numbers`` between two networks (``evaluators[0]``,
    named ``names[0]``, takes Black in even-numbered games, so a match cut
    short goes on with the numbers it misses); yields each game as it ends."""
    rng = np.random.default_rng(seed)
    max_moves = settings.max_moves or 2 * settings.size ** 2
    pools = [SearchPool(e, max_leaves=settings.parallel * settings.search_batch)
             for e in evaluators]
    playing: dict[int, _Game] = {}
    waiting = list(numbers)
    while playing or waiting:
        while len(playing) < settings.parallel and waiting:
            game = _new_game(waiting.pop(0), evaluators, settings, rng)
            _search(game, pools, settings)
            playing[id(game.job)] = game
        finished = [job for pool in pools for job in pool.step()]
        for job in finished:
            game = playing.pop(id(job))
            ended = _move(game, settings, rng, max_moves)
            if ended is None:
                _search(game, pools, settings)
                playing[id(game.job)] = game
                continue
            done = _finish(game, names, ended)
            if on_game is not None:
                on_game(done)
            yield done


def _new_game(number: int, evaluators: Sequence, settings: ArenaSettings,
              rng: np.random.Generator) -> _Game:
    players = {BLACK: number % 2, WHITE: 1 - number % 2}
    searches = {color: PUCTSearch(evaluators[player], batch_size=settings.search_batch,
                                  seed=int(rng.integers(2 ** 31)))
                for color, player in players.items()}
    return _Game(number, GameState(settings.size, settings.komi), searches, players,
                 {BLACK: 0, WHITE: 0})


def _search(game: _Game, pools: list[SearchPool], settings: ArenaSettings) -> None:
    color = game.state.to_move
    game.job = SearchJob(game.searches[color], game.state, color, settings.visits)
    pools[game.players[color]].add(game.job)


def _move(game: _Game, settings: ArenaSettings, rng: np.random.Generator,
          max_moves: int) -> Optional[str]:
    state, root = game.state, game.job.root
    color = state.to_move
    value = root_value(root)
    game.low[color] = game.low[color] + 1 if value < settings.resign_value else 0
    if game.low[color] >= 2:
        return "resigned"
    search = game.searches[color]
    action = choose_action(root, search, state.current.number < settings.sample_moves, rng)
    return play_action(state, search, action, max_moves)


def root_value(root) -> float:
    """A finished search's value for its player to move, from -1 to 1
    (the most visited move's, or the root's own before any visit)."""
    return 2 * PUCTSearch.winrate(root) - 1 if root.total_visits() > 0 else root.value


def choose_action(root, search: PUCTSearch, sample: bool, rng: np.random.Generator) -> int:
    """The move of ``search``'s finished search of ``root``: drawn in
    proportion to the visits when ``sample`` (and there are visits), else
    the one the engine plays (:meth:`PUCTSearch.chosen_action`)."""
    visits = np.maximum(root.visits, 0) if root.edges else np.zeros(0)
    total = float(visits.sum())
    if sample and total > 0:
        return int(root.moves[rng.choice(len(visits), p=visits / total)])
    return search.chosen_action(root)


def play_action(state: GameState, search: PUCTSearch, action: int,
                max_moves: int) -> Optional[str]:
    """Play ``action`` for the side to move (a pass should the search have
    left an illegal move open); how the game ended (``"passes"``,
    ``"length"``) or None."""
    color = state.to_move
    point = search.point_of(action)
    if point is not None and state.board.illegal_reason(point, color) is not None:
        point = None
    state.play(color, point)
    if state.consecutive_passes() >= 2:
        return "passes"
    if state.current.number >= max_moves:
        return "length"
    return None


def outcome(state: GameState, resigned: bool, judged=None) -> tuple[int, str]:
    """The winner (BLACK, WHITE, 0 for a draw) and the SGF result of an
    ended game: the side to move resigned, or the count (``judged``, or
    imago's one count of the position)."""
    if resigned:
        winner = WHITE if state.to_move == BLACK else BLACK
        return winner, f"{'B' if winner == BLACK else 'W'}+R"
    if judged is None:
        judged = state.count()
    return {BLACK: BLACK, WHITE: WHITE, None: 0}[judged.winner], judged.result


def _finish(game: _Game, names: Sequence[str], ended: str) -> ArenaGame:
    state = game.state
    winner, result = outcome(state, ended == "resigned")
    black, white = names[game.players[BLACK]], names[game.players[WHITE]]
    root = state.root.properties
    root["PB"], root["PW"], root["RE"] = [black], [white], [result]
    return ArenaGame(game.number, black, white, winner, result, state.current.number, state)


__all__ = ["ArenaSettings", "ArenaGame", "play_arena", "root_value", "choose_action",
           "play_action", "outcome"]
