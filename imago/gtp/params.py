"""Search parameters a controller may read and set: GoGui's ``imago-params``
(in :mod:`.gogui`) and KataGo's ``kata-list-params``, ``kata-get-param`` and
``kata-set-param`` (registered here) share one table of names and ranges.
"""

from __future__ import annotations

from typing import Any

from imago.engine.algorithm import checked
from imago.engine.engine import GameEngine

from .table import GtpError, command, number, word

PARAMS: dict[str, dict] = {
    "visits": {"kind": int, "low": 1},
    "c_puct": {"above": 0},
    "fpu_reduction": {},
    "batch_size": {"kind": int, "low": 1},
    "resign_threshold": {"low": 0, "high": 1},
    "lcb_z": {"low": 0},
    "wide_root_noise": {"low": 0, "high": 5},
    "forced_playouts": {"low": 0},
}
"""imago's search parameters a controller may set, with the range each takes
(as :func:`~imago.engine.algorithm.checked` reads it)."""

KATAGO_NAMES = {
    "maxVisits": "visits",
    "cpuctExploration": "c_puct",
    "fpuReductionMax": "fpu_reduction",
    "nnMaxBatchSize": "batch_size",
    "wideRootNoise": "wide_root_noise",
}
"""KataGo's names for those of imago's parameters that mean the same."""


def param_holders(engine: GameEngine, name: str) -> list:
    """Where parameter ``name`` lives: the algorithm (``visits``,
    ``resign_threshold``, mcts's ``batch_size``, which it hands its search
    at every move) and the analysis search (``c_puct``, ``fpu_reduction``,
    ``batch_size``, ``lcb_z``, ``wide_root_noise``, ``forced_playouts``),
    whichever have it; [] when neither does or it is not one of
    :data:`PARAMS`."""
    if name not in PARAMS:
        return []
    return [holder for holder in (engine.algorithm, engine.analysis_search(ready=False))
            if hasattr(holder, name)]


def engine_params(engine: GameEngine) -> dict[str, Any]:
    """Every parameter of :data:`PARAMS` this engine has, with its value."""
    values = {}
    for name in PARAMS:
        holders = param_holders(engine, name)
        if holders:
            values[name] = getattr(holders[0], name)
    return values


def get_param(engine: GameEngine, name: str) -> Any:
    """The value of imago's parameter ``name``; ``unknown parameter`` when
    this engine has no such parameter."""
    holders = param_holders(engine, name)
    if not holders:
        raise GtpError("unknown parameter")
    return getattr(holders[0], name)


def set_param(engine: GameEngine, name: str, text: str) -> None:
    """Set imago's parameter ``name`` from a GTP number, checked against its
    range (the reason is the error's text), wherever it lives."""
    holders = param_holders(engine, name)
    if not holders:
        raise GtpError("unknown parameter")
    value = number(engine, text)
    try:
        value = checked(name, int(value) if value.is_integer() else value, **PARAMS[name])
    except ValueError as error:
        raise GtpError(str(error)) from None
    for holder in holders:
        setattr(holder, name, value)


def _katago_name(engine: GameEngine, name: str) -> str:
    """imago's name for KataGo's parameter ``name`` this engine has."""
    ours = KATAGO_NAMES.get(name)
    if ours is None or not param_holders(engine, ours):
        raise GtpError(f"unknown parameter; imago has {', '.join(katago_params(engine))}")
    return ours


def katago_params(engine: GameEngine) -> list[str]:
    """KataGo's names of the parameters this engine has."""
    return [name for name, ours in KATAGO_NAMES.items() if param_holders(engine, ours)]


@command("kata-list-params")
def _kata_list_params(engine: GameEngine) -> str:
    return " ".join(katago_params(engine))


@command("kata-get-param", word)
def _kata_get_param(engine: GameEngine, name: str) -> str:
    return str(get_param(engine, _katago_name(engine, name)))


@command("kata-set-param", word, word)
def _kata_set_param(engine: GameEngine, name: str, value: str) -> str:
    set_param(engine, _katago_name(engine, name), value)
    return ""
