"""The set of tools one agent run may use, and the GBNF generated from it."""

from __future__ import annotations

import re
from typing import Iterable, Iterator, TypeVar

from engine.errors import SetupError
from engine.tools.answer_grammar import grounded_answer_rules
from engine.tools.base import Tool, ToolContext

_NAME = re.compile(r"^[a-z][a-z0-9_]{0,39}$")
_T = TypeVar("_T", bound=Tool)

#: Written by the agent at the end of every prompt; the model continues after it. No trailing
#: space: BPE vocabularies join a space to the next word (" I"), so a prompt ending in a bare
#: space forces an unusual token split that derails small models.
TURN_PREFIX = "Thought:"

# Bounds of the free-text parts of a turn, so the model can never run away.
THOUGHT_MAX_CHARS = 240
ANSWER_LINE_MAX_CHARS = 300
ANSWER_MAX_LINES = 12
# Free text: any character but control characters (so no newline inside a line).
TEXT_CHAR = "[^\\x00-\\x1f\\x7f]"


def rule_name(tool_name: str) -> str:
    """GBNF rule names allow letters, digits and dashes only."""
    return "in-" + tool_name.replace("_", "-")


class ToolRegistry:
    """An ordered set of tools with unique names."""

    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.add(tool)

    def add(self, tool: Tool) -> None:
        if not _NAME.match(tool.name or ""):
            raise SetupError(f"Tool name {tool.name!r} is invalid: use lowercase letters, digits and underscores.")
        if tool.name in self._tools:
            raise SetupError(f"Two tools are named {tool.name!r}.")
        self._tools[tool.name] = tool

    @property
    def names(self) -> list[str]:
        return list(self._tools)

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def __getitem__(self, name: str) -> Tool:
        """The tool named ``name``; a name the grammar offered is always there (a SetupError if not)."""
        tool = self._tools.get(name)
        if tool is None:
            raise SetupError(f"No tool is named {name!r} in this installation.")
        return tool

    def of(self, kind: type[_T]) -> _T | None:
        """The tool of class ``kind`` (the employee data, the policy search), or None where it is off."""
        return next((t for t in self._tools.values() if isinstance(t, kind)), None)

    def need(self, kind: type[_T]) -> _T:
        """The tool of class ``kind``, which the caller's route requires (a SetupError if it is off)."""
        tool = self.of(kind)
        if tool is None:
            raise SetupError(f"This installation has no {kind.label} tool.")
        return tool

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools.values())

    def __len__(self) -> int:
        return len(self._tools)

    def cards(self, context: ToolContext) -> str:
        return "\n".join(tool.card(context).render() for tool in self)

    def examples(self, context: ToolContext) -> str:
        """The tools' worked examples, one exchange each."""
        shown = [(tool.name, tool.card(context).worked) for tool in self]
        return "\n\n".join(w.render(name) for name, w in shown if w is not None)

    def user_notes(self, context: ToolContext) -> str:
        return "\n".join(line for tool in self for line in tool.user_notes(context))

    def answer_rules(self, numbers: set[str] | None, first_exclude: str = "", citations: int = 9) -> list[str]:
        """GBNF rules of a final answer (``answer ::= …``), grounded in ``numbers`` when given."""
        return grounded_answer_rules(numbers, line_chars=ANSWER_LINE_MAX_CHARS, max_lines=ANSWER_MAX_LINES,
                                     text_char=TEXT_CHAR, first_exclude=first_exclude, citations=citations)

    def turn_grammar(self, *, allow_tools: bool = True, numbers: set[str] | None = None,
                     citations: int = 9) -> str:
        """GBNF of one model turn.

        ``Thought: …`` then either ``Action: <tool>`` / ``Action Input: <input>``
        or ``Final Answer: …``. Tool names are an enumeration and each tool's
        input follows that tool's own grammar. With ``allow_tools=False`` only a
        final answer is possible (used at the step limit and by the loop's guards).
        ``numbers``: the only numbers the final answer may contain (the forms of
        :func:`engine.agent.grounding.number_forms`); None leaves numbers free.

        The agent writes ``Thought:`` into the prompt itself (:data:`TURN_PREFIX`),
        so the grammar starts with the thought: no tokens are spent on a fixed label.
        """
        rules = [
            'root ::= thought "\\n" ' + ("(action | final)" if allow_tools and self._tools else "final"),
            # A thought starts with a word: small models otherwise number their thoughts ("1. …").
            f"thought ::= \" \" [^\\x00-\\x20\\x7f0-9] {TEXT_CHAR}{{0,{THOUGHT_MAX_CHARS - 1}}}",
            'final ::= "Final Answer: " answer',
            *self.answer_rules(numbers, citations=citations),
        ]
        if allow_tools and self._tools:
            calls = []
            for tool in self:
                root = rule_name(tool.name)
                calls.append(f'"{tool.name}\\nAction Input: " {root}')
                rules.append(tool.grammar_rules(root))
            rules.insert(1, 'action ::= "Action: " (' + " | ".join(calls) + ') "\\n"')
        return "\n".join(rules) + "\n"
