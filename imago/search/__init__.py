"""Tree search over positions: PUCT Monte Carlo tree search on board-free
nodes (:mod:`.tree`, :mod:`.puct`; its root: :mod:`.rooting`; what it asks
the evaluator: :mod:`.leaf`; what a search reports: :mod:`.reports`),
random-playout evaluation (:mod:`.playouts`), many searches sharing one
evaluator's batches (:mod:`.pool`), and the exact readers: the small boards'
solver (:mod:`.exact`) and the root's reading of closed-off areas
(:mod:`.local`), which stop short alike (:mod:`.limits`)."""

from .leaf import (Evaluator, Leaf, MoveRestriction, action_of, action_points, forbidden_actions,
                   forbidden_at, legal_move_left)
from .playouts import PlayoutEvaluator
from .pool import SearchJob, SearchPool, run_searches
from .puct import PUCTSearch
from .reports import RootSummary, SearchResult
from .tree import SearchNode

__all__ = ["Evaluator", "Leaf", "MoveRestriction", "PUCTSearch", "PlayoutEvaluator", "SearchJob", "SearchNode", "SearchPool",
           "RootSummary", "SearchResult", "action_of", "action_points", "forbidden_actions",
           "forbidden_at", "legal_move_left", "run_searches"]
