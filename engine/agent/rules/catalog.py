"""Every rule reader, found in this package: a module of ``engine.agent.rules`` with a
:class:`~engine.agent.rules.base.Reader` subclass is one; nothing else lists them.

The order readers are tried in is theirs (``Reader.order``) unless the settings name one
(``rule_readers``): a comma-separated list of reader names, where a name left out is not used.
Adding a reader touches only its module, its words and its corpus (``corpus/<name>.toml``).
"""

from __future__ import annotations

import importlib
import pkgutil

import engine.agent.rules as _package
from engine.agent.rules.base import Reader
from engine.errors import SetupError

#: Modules of the package that hold no reader.
_NOT_READERS = {"base", "catalog", "words"}


def _discover() -> dict[str, type[Reader]]:
    kinds: dict[str, type[Reader]] = {}
    for module in pkgutil.iter_modules(_package.__path__):
        if module.name in _NOT_READERS or module.name.startswith("_"):
            continue
        loaded = importlib.import_module(f"{_package.__name__}.{module.name}")
        for value in vars(loaded).values():
            if (isinstance(value, type) and issubclass(value, Reader) and value is not Reader and value.name
                    and value.__module__ == loaded.__name__):
                kinds[value.name] = value
    return dict(sorted(kinds.items(), key=lambda kv: (kv[1].order, kv[0])))


KINDS: dict[str, type[Reader]] = _discover()


def readers(order: str = "") -> list[Reader]:
    """The readers in the order given ("cap,rate,…"; empty: the catalog's own)."""
    if not order.strip():
        return [kind() for kind in KINDS.values()]
    names = [n.strip() for n in order.split(",") if n.strip()]
    unknown = [n for n in names if n not in KINDS]
    if unknown:
        raise SetupError(f"rule_readers names {', '.join(unknown)}, which no rule reader is; "
                         f"the readers are {', '.join(KINDS)}.")
    return [KINDS[n]() for n in names]
