"""How the exact readers stop short: the small boards' solver
(:mod:`.exact`) and the root's local reading (:mod:`.local`) both give up
past a budget or a deadline and tell their caller so with these, which
then searches as usual (the solver) or reads the area another time (the
local reading)."""


class GaveUp(Exception):
    """The reader has no answer to give: it ran past its budget of positions
    (or, the solver, found its table inconsistent)."""


class OutOfTime(GaveUp):
    """The reader's deadline passed before it had an answer; what it learnt
    is kept for another try."""


__all__ = ["GaveUp", "OutOfTime"]
