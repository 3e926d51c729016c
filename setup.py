"""What pyproject.toml cannot say about imago's packaging: the trained
networks in ``models/`` travel inside the installed package as
``imago/models/``, so that imago installed from a wheel, with ``pip install
.`` or from a Git address plays with its networks as a checkout does
(:data:`imago.nn.evaluator.MODELS_DIR` finds either place). Everything else
is in pyproject.toml."""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["imago", "imago.*"]) + ["imago.models"],
      package_dir={"imago.models": "models"},
      package_data={"imago.models": ["*.keras", "*.json", "README.md"]})
