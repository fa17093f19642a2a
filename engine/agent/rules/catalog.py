"""Every rule reader, found in this package: a module of ``engine.agent.rules`` with a
:class:`~engine.agent.rules.base.Reader` subclass is one; nothing else lists them.

The order readers are tried in is theirs (``Reader.order``) unless the settings name one
(``rule_readers``): a comma-separated list of reader names, where a name left out is not used.
Adding a reader touches only its module, its words and its corpus (``corpus/<name>.toml``).
"""

from __future__ import annotations

import engine.agent.rules as _package
from engine.agent.rules.base import Reader
from engine.discovery import find_kinds
from engine.errors import SetupError

#: Modules of the package that hold no reader.
_NOT_READERS = {"base", "catalog", "words"}


KINDS: dict[str, type[Reader]] = find_kinds(_package, Reader, _NOT_READERS)


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
