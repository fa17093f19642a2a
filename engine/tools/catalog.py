"""Every kind of tool the app has, found in this package: how the window labels a source and
describes a call, and the tool set an installation is given.

A tool is one module of ``engine.tools``: a :class:`~engine.tools.base.Tool` subclass with its name,
label, card, grammar, ``run()`` and ``build()`` (what it needs from what was loaded). This catalog
imports every module of the package and takes each such class; nothing else lists the tools. A
trace saved with a chat names its tools by name, and the window reads them back through
:func:`label` and :func:`describe_call` without building the tools (which need the data and the index).
"""

from __future__ import annotations

import engine.tools as _package
from engine.discovery import find_kinds
from engine.tools.base import Tool, ToolParts
from engine.tools.registry import ToolRegistry

#: Modules of the package that hold no tool.
_NOT_TOOLS = {"base", "catalog", "registry", "answer_grammar"}


def _discover() -> dict[str, type[Tool]]:
    return find_kinds(_package, Tool, _NOT_TOOLS)


KINDS: dict[str, type[Tool]] = _discover()


def assemble(parts: ToolParts) -> ToolRegistry:
    """The tools of an installation, in the catalog's order: each kind builds itself from what was loaded
    and is left out where it cannot (no index, no data, a setting off)."""
    return ToolRegistry([tool for kind in KINDS.values() if (tool := kind.build(parts)) is not None])


def label(name: str) -> str:
    """How the window names a tool as the source of a figure ("the policies")."""
    kind = KINDS.get(name)
    return kind.label if kind is not None else name


def describe_call(name: str, tool_input: str) -> str:
    """A call of tool ``name`` as the person reads it in the answer card."""
    kind = KINDS.get(name)
    return kind.describe_call(tool_input) if kind is not None else f"Using {name}"
