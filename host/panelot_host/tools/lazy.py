"""Lazy package exports (PEP 562), shared by ``tools``, ``tools.mcp`` and ``gatekeeper``."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, where: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports the submodule ``where[name]`` on first use.

    The package's ``__init__`` then loads nothing heavy: a name costs its submodule's
    imports only when it is asked for.

    Raises (from the returned function):
        AttributeError: ``name`` is not one of ``where``.
    """

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module), name)

    return __getattr__
