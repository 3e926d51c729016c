"""``imago models``: the shipped networks, which one plays each board size
by default, and what each is, so that a user can choose one by name
(``--model NAME``, see :func:`imago.nn.modelfile.find_model`).

Only the networks' metadata sidecars are read: no Keras, no TensorFlow.
"""

from __future__ import annotations

import argparse
import json
import sys
import textwrap
from typing import Any, Optional

from imago.nn.evaluator import DEFAULT_MODEL, SIZE_MODELS
from imago.nn.modelfile import MODELS_DIR, read_metadata, shipped_names


def default_for(name: str) -> str:
    """The board sizes ``name`` plays by default, in words ("" for none)."""
    sizes = [f"{size}x{size}" for size, path in sorted(SIZE_MODELS.items())
             if path.stem == name and path.exists()]
    if name == DEFAULT_MODEL.stem:
        others = any(path.exists() for path in SIZE_MODELS.values())
        sizes.append("every other size" if others else "every size")
    return ", ".join(sizes)


def describe(meta: dict[str, Any]) -> str:
    """A network's make in a few words: architecture, depth and width,
    heads, the board sizes it was made for."""
    params = meta.get("params") or {}
    shape = f" {params['blocks']}x{params['filters']}" if "blocks" in params else ""
    sizes = "any size" if meta.get("any_size") else \
        ", ".join(f"{s}x{s}" for s in meta.get("board_sizes") or [9]) + " only"
    heads = "+".join(meta.get("heads") or ["policy"])
    return f"{meta.get('architecture', '?')}{shape}, {heads}, {sizes}"


def catalog() -> list[dict[str, Any]]:
    """One row per shipped network: name, default_for, make, megabytes,
    date and note (its metadata's ``note``, first sentence), or problem
    where its metadata cannot be read."""
    rows = []
    for name in shipped_names():
        path = MODELS_DIR / f"{name}.keras"
        row: dict[str, Any] = {"name": name, "default_for": default_for(name),
                               "megabytes": round(path.stat().st_size / 1e6, 1)}
        try:
            meta = read_metadata(path)
        except (OSError, ValueError) as err:
            row["problem"] = str(err)
        else:
            note = str(meta.get("note") or "").split(". ")[0].strip()
            row.update(make=describe(meta), date=str(meta.get("date", ""))[:10], note=note)
        rows.append(row)
    return rows


def main(argv: Optional[list[str]] = None, prog: str = "imago models") -> int:
    """List the shipped networks; the exit code."""
    parser = argparse.ArgumentParser(
        prog=prog, description="The shipped networks and the board sizes each plays by "
                               "default; name one with --model NAME (imagocli, imago play, "
                               "imago review, the training commands) or -model NAME (imago "
                               "analysis).")
    parser.add_argument("--json", action="store_true", help="one JSON object a network")
    args = parser.parse_args(argv)
    rows = catalog()
    if args.json:
        for row in rows:
            print(json.dumps(row))
        return 0
    if not rows:
        print(f"{prog}: no networks in {MODELS_DIR}", file=sys.stderr)
        return 1
    print(f"shipped networks in {MODELS_DIR}:")
    width = max(len(row["name"]) for row in rows)
    for row in rows:
        default = f"  [default: {row['default_for']}]" if row["default_for"] else ""
        what = row.get("problem") or f"{row['make']}, {row['megabytes']} MB, {row['date']}"
        print(f"  {row['name']:<{width}}  {what}{default}")
        if row.get("note"):
            note = textwrap.shorten(row["note"], 96 - width, placeholder=" ...")
            print(f"  {'':<{width}}  {note}")
    return 0


__all__ = ["catalog", "default_for", "describe", "main"]
