"""Tree search over positions: PUCT Monte Carlo tree search on board-free
nodes (:mod:`.tree`, :mod:`.puct`; what a search reports: :mod:`.reports`),
random-playout evaluation (:mod:`.playouts`) and many searches sharing one
evaluator's batches (:mod:`.pool`)."""

from .playouts import PlayoutEvaluator
from .pool import SearchJob, SearchPool, run_searches
from .puct import Evaluator, Leaf, PUCTSearch, action_of, action_points
from .reports import RootSummary, SearchResult
from .tree import SearchNode

__all__ = ["Evaluator", "Leaf", "PUCTSearch", "PlayoutEvaluator", "SearchJob", "SearchNode", "SearchPool",
           "RootSummary", "SearchResult", "action_of", "action_points", "run_searches"]
