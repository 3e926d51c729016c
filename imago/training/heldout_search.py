"""Ownership after a search, on held-out games: ``train.py heldout --visits``.

:mod:`.heldout` measures a network's heads alone. Analysis (``kata-analyze``,
the JSON analysis engine) reports the *search's* ownership instead: the mean
of the network's ownership over the positions of the search tree
(:meth:`imago.search.puct.PUCTSearch.tree_ownership`), as KataGo does. This
module measures both on the same positions of the held-out games (the same
split as :mod:`.heldout`, the random opening moves skipped): the sign of each
estimate against the game's final ownership, on the points someone owns,
overall and by game phase.
"""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Optional

import numpy as np

from imago.game import BLACK, WHITE
from imago.nn.features import board_array
from imago.search import PUCTSearch
from imago.sgf import find_sgf_files

from .data import (HELDOUT_SHARE, final_ownership, is_validation_game, named_games,
                   ownership_known, readable_files)
from .selfplay_run import progress_bar

PHASES = (0.2, 0.4, 0.6)
"""Game phases by the share of the points holding a stone: below 20%,
20-40%, 40-60%, from 60% (``train.py heldout`` and its search variant)."""


def held_out_positions(folder: str, validation: float, log: Callable[[str], None]
                       ) -> dict[int, list[tuple]]:
    """Per board size, every ``(game, move)`` of the held-out games whose
    final ownership is known (:func:`~.data.ownership_known`) worth
    measuring: ``move`` is a main-line move after the random opening, the
    position measured is the one it was played in; ``game`` is
    ``(state, final ownership from Black's side)``. Files that cannot be
    read are named through ``log`` and skipped."""
    files, problems = find_sgf_files([folder])
    files = readable_files(files, problems)
    by_size: dict[int, list[tuple]] = {}
    for path, name, state, skip in named_games(files, problems):
        if not is_validation_game(name, validation):
            continue
        own_black, how = final_ownership(state, path)
        if not ownership_known(state, how):
            continue  # resigned, or dead stones the count cannot account for
        moves = [n for n in state.root.main_line() if n.is_move][skip:]
        game = (state, own_black)
        by_size.setdefault(state.size, []).extend((game, move) for move in moves)
    for problem in problems:
        log(f"skipped: {problem}")
    return by_size


def measure_searched(evaluator, positions: list[tuple], visits: int, seed: int = 1,
                     progress: bool = True) -> Optional[dict]:
    """Ownership sign accuracy of the network (the search root's answer,
    averaged over the symmetries) and of the tree after ``visits`` visits,
    on ``positions`` (from :func:`held_out_positions`), by game phase; None
    when the network has no ownership head."""
    search = PUCTSearch(evaluator, batch_size=16, seed=seed, keep_ownership=True)
    hits = {"network": np.zeros(len(PHASES) + 1), "search": np.zeros(len(PHASES) + 1)}
    owned_n = np.zeros(len(PHASES) + 1)
    bar = progress_bar(len(positions), 0, progress, "searched ownership", "position")
    for (state, own_black), move in positions:
        search.forget()
        state.goto(move.parent)
        search.run(state, move.color, visits=visits, early_stop=False)
        root = search.root
        if root.ownership is None:
            bar.close()
            return None  # no ownership head: nothing to measure
        board = state.board
        size = board.size
        cells = board_array(board)
        stones = np.count_nonzero(cells == BLACK) + np.count_nonzero(cells == WHITE)
        phase = int(np.digitize(stones, np.array(PHASES) * size * size))
        sign = 1 if move.color == BLACK else -1
        truth = own_black * sign
        owned = truth != 0
        owned_n[phase] += owned.sum()
        for name, estimate in (("network", root.ownership), ("search", search.tree_ownership())):
            if estimate is not None:
                hits[name][phase] += ((np.sign(np.asarray(estimate, np.float32)) == truth)
                                      & owned).sum()
        bar.update(1)
    bar.close()
    total = max(owned_n.sum(), 1)
    return {"positions": len(positions), "visits": visits,
            **{f"{name}_accuracy": round(float(h.sum() / total), 4) for name, h in hits.items()},
            **{f"{name}_by_phase": [round(float(x / max(c, 1)), 4) for x, c in zip(h, owned_n)]
               for name, h in hits.items()},
            "owned_points_by_phase": [int(c) for c in owned_n]}


def nothing_measured(folder: str, models: int) -> str:
    """The line naming a folder where no network of ``models`` found a
    held-out position of a size it plays."""
    return (f"{folder}: nothing measured (no held-out positions of a size the network"
            f"{'s play' if models > 1 else ' plays'})")


def searched_ownership_figures(models: list[str], folders: list[str], visits: int,
                               positions: int, validation: float = HELDOUT_SHARE, seed: int = 1,
                               log: Callable[[str], None] = print,
                               progress: bool = True) -> list[dict]:
    """One row per folder, board size and model: :func:`measure_searched`
    on ``positions`` positions drawn at random (fixed by ``seed``) from the
    held-out games of each size the model plays."""
    from imago.nn.evaluator import NetworkEvaluator

    rows = []
    for folder in folders:
        played = False  # whether the folder holds positions of a size a model plays
        by_size = held_out_positions(folder, validation, log)
        for size, candidates in sorted(by_size.items()):
            rng = np.random.default_rng(seed)
            chosen = rng.choice(len(candidates), size=min(positions, len(candidates)),
                                replace=False)
            sample = [candidates[i] for i in sorted(chosen)]
            for model in models:
                evaluator = NetworkEvaluator(model, batch_size=16, seed=seed)
                try:
                    evaluator.check_size(size)
                except ValueError:
                    continue  # the model does not play this size
                played = True
                figures = measure_searched(evaluator, sample, visits, seed, progress)
                if figures is None:
                    log(f"{Path(model).name}: no ownership head, nothing to measure")
                    continue
                rows.append({"folder": folder, "size": size, "model": model, **figures})
                log(format_searched_row(rows[-1]))
        if not played:
            log(nothing_measured(folder, len(models)))
    return rows


def format_searched_row(row: dict) -> str:
    def phases(name: str) -> str:
        return " ".join(f"{v:.1%}" if n else "-"
                        for v, n in zip(row[f"{name}_by_phase"], row["owned_points_by_phase"]))
    return (f"{Path(row['folder']).name} {row['size']}x{row['size']} {Path(row['model']).name}: "
            f"ownership after {row['visits']} visits on {row['positions']} positions: "
            f"network {row['network_accuracy']:.1%} ({phases('network')}), "
            f"search {row['search_accuracy']:.1%} ({phases('search')}) "
            f"[phases <20% 20-40% 40-60% 60%+ of the board covered]")


__all__ = ["held_out_positions", "measure_searched", "searched_ownership_figures",
           "format_searched_row"]
