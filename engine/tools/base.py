"""What every tool of the agent is: a name, a short card, an input grammar and ``run()``."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import Any, ClassVar


@dataclass
class ToolContext:
    """Who is asking: set by the app from the OS account (:mod:`engine.identity`), never by the model or the question."""

    user: str = ""  # the employee whose view of the data applies ("" = not in the data)
    role: str = "employee"  # "employee", "manager" or "hr"
    today: str = ""  # ISO date
    account: str = ""  # the OS account that is asking (recorded in the audit log)
    name: str = ""  # how to call the user in prompts and traces (``user`` may be a row key)
    view_as: str = ""  # set when an HR user views the assistant as this employee
    # The question being answered, set by the agent loop for each turn. Only a search hint (the
    # policy search fuses it with the model's query); it never grants or checks anything.
    question: str = ""


@dataclass
class ToolParts:
    """What the tools of an installation are built from: what was loaded (each None where it could not
    be). :meth:`Tool.build` takes what its tool needs from here."""

    policy_index: Any = None  # engine.policy.index.PolicyIndex
    data_tool: Any = None  # the employee-data tool, built from the data source and the access policy
    leave_tool: Any = None  # the leave-request tool, where the setting is on and the data has a balance


@dataclass
class ToolResult:
    """A tool's answer: text for the model, structured data for the app."""

    text: str
    data: Any = None  # JSON-safe: rows of a table, citations, a number
    kind: str = "text"  # "text", "table", "scalar", "citations"


@dataclass
class WorkedExample:
    """One whole exchange with a tool, shown to the model: small models copy a shape better than
    they follow a rule (ask, call once, answer from the observation)."""

    question: str
    thought: str
    tool_input: str
    observation: str
    answer: str

    def render(self, tool: str) -> str:
        observation = "\n  ".join(self.observation.splitlines())  # indented as the loop indents observations
        return "\n".join([f"Question: {self.question}", f"Thought: {self.thought}", f"Action: {tool}",
                          f"Action Input: {self.tool_input}", f"Observation: {observation}",
                          "Thought: I have what I need.", f"Final Answer: {self.answer}"])


@dataclass
class ToolCard:
    """The short description shown to the model (EasyTool-style tool card)."""

    name: str
    purpose: str
    input_format: str
    example: str
    extra: list[str] = field(default_factory=list)
    worked: WorkedExample | None = None

    def render(self) -> str:
        lines = [f"- {self.name}: {self.purpose}", f"  Input: {self.input_format}", f"  Example: {self.example}"]
        lines += [f"  {line}" for line in self.extra]
        return "\n".join(lines)


class Tool(ABC):
    """Base class of the agent's tools."""

    #: Name the model writes after ``Action:`` (lowercase, letters and underscores).
    name: str = ""
    #: Whether the input grammar takes ``refs`` (a plan's ``#k``, the number step k returned).
    accepts_refs: bool = False
    #: How the window names the tool as a source ("From the policies").
    label: str = "a tool"
    #: Whether every number in the input must already be sourced (the calculator works only on
    #: figures the conversation has: the model cannot bring its own).
    sourced_inputs: bool = False
    #: Where the tool stands in the prompt's list of tools (lower first); ties by name.
    order: ClassVar[int] = 50

    @classmethod
    def build(cls, parts: ToolParts) -> "Tool | None":
        """This installation's instance of the tool, from what was loaded; None where it cannot work here
        (its data is missing, or a setting leaves it out). :mod:`engine.tools.catalog` finds every Tool
        subclass in a module of this package and calls this: adding a tool is its module and its tests."""
        return None

    @classmethod
    def describe_call(cls, tool_input: str) -> str:
        """A call as the person reads it while the answer is worked out ("Searching the policies: …")."""
        return f"Using {cls.label}"

    @abstractmethod
    def card(self, context: ToolContext) -> ToolCard:
        """The tool card for the system prompt."""

    def user_notes(self, context: ToolContext) -> list[str]:
        """Lines about this tool that depend on who is asking (kept at the end of the prompt, so the
        tool cards before them are the same for every user and their KV cache is shared)."""
        return []

    @abstractmethod
    def grammar_rules(self, root: str, json_string: bool = False) -> str:
        """GBNF rules for the tool's input; the entry rule is ``root``.

        Helper rules must be named ``{root}-something`` so tools never collide.
        The input is one line: it must not match a newline. ``json_string``: the input
        sits inside a JSON string (a native tool call), so it must not contain ``"``
        or a backslash.
        """

    @abstractmethod
    def run(self, tool_input: str, context: ToolContext) -> ToolResult:
        """Run the tool. Raise :class:`~engine.errors.ModelOutputError` (or a child) for bad input."""

    def normalise_input(self, tool_input: str) -> str:
        """Key under which identical calls are recognised (repeated calls are not run again)."""
        return " ".join(tool_input.split())
