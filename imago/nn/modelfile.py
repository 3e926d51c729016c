"""A saved model known by its metadata, its weights loaded on first need.

A model is ``NAME.keras`` plus the sidecar ``NAME.json`` (architecture,
board sizes, plane set, ...). :class:`ModelFile` reads only the sidecar when
it is made, so an engine can check a model and the board sizes it plays at
once, answer its controller, and load Keras and TensorFlow (seconds) in the
background or when the first position is evaluated. This module imports
neither, nor the networks: the loader is given
(:func:`imago.nn.evaluator.model_file` gives Keras's).
"""

from __future__ import annotations

import json
import os
import threading
import zipfile
from pathlib import Path
from typing import Any, Callable, Optional


PACKAGE_DIR = Path(__file__).resolve().parent.parent
MODELS_DIR = (PACKAGE_DIR / "models" if (PACKAGE_DIR / "models").is_dir()
              else PACKAGE_DIR.parent / "models")
"""The shipped networks: ``imago/models/`` in an installed package (setup.py
puts the checkout's ``models/`` there), else ``models/`` beside the package
(a checkout, or an editable install of one)."""


def find_model(path: str | os.PathLike) -> Path:
    """The model file ``path`` names: the file itself where there is one;
    else, for a bare name (``multi``, ``soup9.keras``) or a path into a
    folder called ``models`` (the README's ``models/multi.keras``), the
    shipped network of that name (:data:`MODELS_DIR`) where there is one,
    so that those names work from any folder once imago is installed.
    Otherwise ``path`` unchanged, for the caller's own error."""
    path = Path(path)
    if path.exists() or path.parent not in (Path("."), Path("models")):
        return path
    name = path.name if path.suffix == ".keras" else f"{path.name}.keras"
    shipped = MODELS_DIR / name
    return shipped if shipped.is_file() else path


def shipped_names() -> list[str]:
    """The names of the shipped networks (``soup9`` for ``soup9.keras``)."""
    return sorted(p.stem for p in MODELS_DIR.glob("*.keras") if not p.name.startswith("."))


class ModelSizeError(ValueError):
    """A model was loaded or used for a board size it was not made for."""


def metadata_path(path: str | os.PathLike) -> Path:
    """The metadata sidecar of a ``.keras`` model file."""
    return Path(path).with_suffix(".json")


def read_metadata(path: str | os.PathLike) -> dict[str, Any]:
    """The sidecar of the model at ``path``. Raises FileNotFoundError for a
    missing model or sidecar and ValueError for a sidecar that does not
    describe a model, or a model file that is not a Keras archive."""
    path = Path(path)
    side = metadata_path(path)
    if not path.is_file():
        names = shipped_names()
        shipped = f" (or name a shipped network: {', '.join(names)})" if names else ""
        raise FileNotFoundError(f"no model at {path}{shipped}")
    if path.suffix != ".keras" or not zipfile.is_zipfile(path):
        raise ValueError(f"{path} is not a Keras model file (NAME.keras, a zip archive)")
    if not side.is_file():
        raise FileNotFoundError(f"model {path} has no metadata file {side.name}")
    try:
        meta = json.loads(side.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{side}: not a model's metadata ({err})") from None
    if not isinstance(meta, dict) or not isinstance(meta.get("architecture"), str) \
            or not isinstance(meta.get("plane_set"), str):
        raise ValueError(f"{side}: not a model's metadata (no architecture or plane set)")
    return meta


def size_problem(meta: dict[str, Any], size: int) -> Optional[str]:
    """Why a model with metadata ``meta`` cannot play ``size``x``size``
    boards, or None when it can."""
    sizes = meta.get("board_sizes") or [9]
    if meta.get("any_size") or size in sizes:
        return None
    return (f"this {meta.get('architecture')} network was made for "
            f"{', '.join(f'{s}x{s}' for s in sizes)} boards, not {size}x{size}")


def check_model_size(path: str | os.PathLike, size: int) -> None:
    """ValueError naming ``path`` when the model there is not made for
    ``size``x``size`` boards (:func:`size_problem`); :func:`read_metadata`'s
    errors for a model that cannot be read."""
    problem = size_problem(read_metadata(find_model(path)), size)
    if problem is not None:
        raise ValueError(f"{path}: {problem}")


class ModelFile:
    """A model file whose network ``loader(path)`` loads once, on first use
    of :attr:`network` or by :meth:`load` (from any thread: a second caller
    waits for the first load instead of starting another)."""

    def __init__(self, path: str | os.PathLike, loader: Callable[[Path], Any]):
        self.path = find_model(path)
        self.metadata = read_metadata(self.path)
        self._loader = loader
        self._network: Any = None
        self._lock = threading.Lock()

    def __str__(self) -> str:
        return str(self.path)

    @property
    def plane_set(self) -> str:
        return str(self.metadata["plane_set"])

    @property
    def loaded(self) -> bool:
        """Whether the network is in memory already."""
        return self._network is not None

    def check_size(self, size: int) -> None:
        """Raise :class:`ModelSizeError` when the model cannot play ``size``."""
        problem = size_problem(self.metadata, size)
        if problem is not None:
            raise ModelSizeError(f"{self.path.name}: {problem}")

    def load(self) -> Any:
        """The :class:`~imago.nn.networks.NeuralNetwork` (imports Keras)."""
        if self._network is None:
            with self._lock:
                if self._network is None:
                    self._network = self._loader(self.path)
        return self._network

    network = property(load)


def network_of(model: Any) -> Any:
    """The network of ``model``: a :class:`ModelFile`'s, loaded on first
    use, or ``model`` itself when it is a network already (tests and
    training hand networks in directly)."""
    return model.load() if isinstance(model, ModelFile) else model
