"""``uct``: Monte Carlo tree search with UCB1 and random playouts.

Each simulation copies the root board once, walks down the tree choosing the
child with the best UCB1 score, adds one child, finishes the game with random
moves that never fill the mover's own eyes, scores it by area with komi, and
backs the win up the path. The most visited move is played. Needs no network.
"""

from __future__ import annotations

import math
import random
import time
from typing import Optional

from imago.game import GameBoard, GameState, area_score

from .algorithm import RESIGN, DecisionAlgorithm, checked

PASS = None


class UCTNode:
    """Statistics of one move in the search tree, from the view of the player
    who made the move (``wins`` counts that player's wins)."""

    __slots__ = ("move", "color", "parent", "children", "untried", "visits", "wins")

    def __init__(self, move: Optional[int], color: int, parent: Optional["UCTNode"],
                 untried: list):
        self.move = move
        self.color = color
        self.parent = parent
        self.children: list[UCTNode] = []
        self.untried = untried
        self.visits = 0
        self.wins = 0.0

    def best_child(self, exploration: float) -> "UCTNode":
        log_n = math.log(self.visits)
        best, best_score = None, -1.0
        for child in self.children:
            score = child.wins / child.visits + exploration * math.sqrt(log_n / child.visits)
            if score > best_score:
                best, best_score = child, score
        return best


def candidate_moves(board: GameBoard, color: int) -> list:
    """Legal moves that do not fill own eyes, plus pass (searched last)."""
    moves = [p for p in board.empties
             if not board.is_eye(p, color) and board.illegal_reason(p, color) is None]
    moves.append(PASS)
    return moves


class UCTAlgorithm(DecisionAlgorithm):
    """Classic UCT. Options: ``visits`` (simulations per move when no time
    is given), ``exploration`` (the UCB1 constant), ``resign_threshold``
    (resign when the best move wins less often than this; 0 never),
    ``seed``."""

    name = "uct"

    def __init__(self, visits: int = 1000, exploration: float = 1.0,
                 resign_threshold: float = 0.05, seed: Optional[int] = None):
        self.visits = checked("visits", visits, int, low=1)
        self.exploration = checked("exploration", exploration, low=0)
        self.resign_threshold = checked("resign_threshold", resign_threshold, low=0, high=1)
        self.rng = random.Random(seed)
        self.last_root: Optional[UCTNode] = None

    def guide(self, size: int) -> str:
        return "random playouts"

    def choose_move(self, state: GameState, color: int,
                    seconds: Optional[float] = None) -> Optional[int]:
        root_board = state.board
        passes = state.consecutive_passes()
        root = UCTNode(None, 3 - color, None, candidate_moves(root_board, color))
        self.rng.shuffle(root.untried)
        deadline = None if seconds is None else time.perf_counter() + seconds
        limit = 3 * root_board.size * root_board.size
        komi = state.scoring_komi  # territory: the stones put on the board so far
        simulations = 0
        while True:
            if deadline is None:
                if simulations >= self.visits:
                    break
            elif simulations >= 16 and (simulations & 15) == 0 and time.perf_counter() >= deadline:
                break
            self._simulate(root, root_board, color, passes, komi, limit)
            simulations += 1
        self.last_root = root
        if not root.children:
            return PASS
        best = max(root.children, key=lambda c: c.visits)
        if self.resign_threshold > 0 and root.visits >= 100 \
                and best.wins / best.visits < self.resign_threshold:
            return RESIGN
        return best.move

    def _simulate(self, root: UCTNode, root_board: GameBoard, color: int, passes: int,
                  komi: float, limit: int) -> None:
        rng = self.rng
        board = root_board.copy()
        node = root
        to_move = color
        # selection
        while not node.untried and node.children:
            node = node.best_child(self.exploration)
            passes = passes + 1 if node.move is PASS else 0
            board.play(node.move, node.color)
            to_move = 3 - node.color
            if passes >= 2:
                break
        # expansion
        if node.untried and passes < 2:
            move = node.untried.pop()
            if move is not PASS and board.illegal_reason(move, to_move) is not None:
                move = PASS  # superko reached through this path: the move is gone here
            board.play(move, to_move)
            passes = passes + 1 if move is PASS else 0
            child_moves = candidate_moves(board, 3 - to_move) if passes < 2 else []
            rng.shuffle(child_moves)
            # keep pass last so it is tried after the board moves
            if PASS in child_moves:
                child_moves.remove(PASS)
                child_moves.insert(0, PASS)
            child = UCTNode(move, to_move, node, child_moves)
            node.children.append(child)
            node = child
            to_move = 3 - to_move
        board.playout(to_move, rng, passes, limit)
        score = area_score(board, komi)
        black_won = score > 0
        # backpropagation: a node's wins are its mover's wins
        while node is not None:
            node.visits += 1
            if (node.color == 1) == black_won:
                node.wins += 1.0
            node = node.parent

    def summary(self) -> Optional[dict]:
        rows = self.analysis()
        if not rows:
            return None
        move, visits, winrate = rows[0]
        return {"winrate": winrate, "visits": self.last_root.visits, "pv": [move]}

    def analysis(self) -> list[tuple[Optional[int], int, float]]:
        """The last search's root moves as (move, visits, win rate), most
        visited first."""
        if self.last_root is None:
            return []
        rows = [(c.move, c.visits, c.wins / c.visits) for c in self.last_root.children]
        return sorted(rows, key=lambda r: -r[1])
