"""Finding the kinds a package holds (its tools, its rule readers): one module each, nothing lists them."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType
from typing import Any


def find_kinds(package: ModuleType, base: type, skip: set[str]) -> dict[str, Any]:
    """Every named subclass of ``base`` defined in a module of ``package`` (modules in ``skip`` and
    private ones left out), by name, in the order of their ``order`` then name."""
    kinds: dict[str, Any] = {}
    for module in pkgutil.iter_modules(package.__path__):
        if module.name in skip or module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"{package.__name__}.{module.name}")
        for value in vars(loaded).values():
            if (isinstance(value, type) and issubclass(value, base) and value is not base
                    and getattr(value, "name", None) and value.__module__ == loaded.__name__):
                kinds[getattr(value, "name")] = value
    return dict(sorted(kinds.items(), key=lambda kv: (getattr(kv[1], "order", 100), kv[0])))
