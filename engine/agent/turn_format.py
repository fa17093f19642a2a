"""How a model turn is written: the ReAct text format, or the chat model's own tool calls.

Both give the agent loop the same :class:`~engine.agent.parser.Turn` (a tool call or a final
answer), and both are bound by a grammar generated from the tool registry:

* :class:`ReActFormat`: ``Thought: …`` then ``Action:``/``Action Input:`` or
  ``Final Answer: …``, all in one assistant message (works with any chat model).
* :class:`ToolCallFormat`: the Hermes-style calls that Qwen2.5 (and others) are trained on,
  ``<tool_call>{"name": …, "arguments": {"input": …}}</tool_call>``, with tool results sent
  back as ``tool`` messages through the model's own chat template; a plain reply is the
  answer. Chosen only for a model whose template renders tools.

A format renders the prompt so that it only ever grows at its end (the KV cache is reused
across steps and turns) and never lets data (an observation, a question) write the model's
own control tokens.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.errors import ModelOutputError
from engine.agent.parser import FINAL_MARKER, Turn, parse_turn
from engine.tools.registry import TURN_PREFIX, ToolRegistry

if TYPE_CHECKING:
    from engine.model.backend import ModelBackend
    from engine.tools.base import ToolContext

OBSERVATION_MAX_CHARS = 3000
TRIMMED = "[observation removed to fit the context; call the tool again if you need it]"
_CONTROL = re.compile(r"<\|[^|>\s]{0,40}\|?>?|</?tool_(?:call|response)>|</?tools>|</?data\b[^>]{0,60}>?")


def neutralise(text: str) -> str:
    """Text from outside (a question, a policy passage, a data value) cannot spell a chat
    template's control tokens (``<|im_end|>``) or tool tags: the prompt is tokenized with
    special tokens enabled, so such a string would otherwise end the turn it sits in."""
    return _CONTROL.sub(lambda m: m.group(0).replace("<", "‹").replace(">", "›"), text)


def format_observation(text: str, source: str = "") -> str:
    """One observation block; later lines are indented so no line of data can look like a turn marker.

    With ``source`` (the tool that read it), the text is data from the company's files and is
    delimited as such: ``<data from="policy_search">`` … ``</data>``, every line indented; the
    text itself cannot spell the delimiters (they are defused like control tokens)."""
    text = neutralise(text.strip()) or "(empty result)"
    if len(text) > OBSERVATION_MAX_CHARS:
        text = text[:OBSERVATION_MAX_CHARS] + " … [cut]"
    lines = text.splitlines()
    if source:
        return f'<data from="{source}">\n' + "\n".join("  " + line for line in lines) + "\n</data>"
    return "\n".join([lines[0]] + ["  " + line for line in lines[1:]])


@dataclass
class Segment:
    """One step of the current turn: what the model wrote and the observation that followed."""

    generated: str
    observation: str | None = None
    trimmed: bool = False
    tool: str = ""  # the tool whose observation this is ("" for the loop's own notes)

    def shown_observation(self) -> str | None:
        return TRIMMED if self.trimmed and self.observation is not None else self.observation


class TurnFormat(Protocol):
    name: str

    def instructions(self, tools: ToolRegistry, context) -> str:
        """The part of the system prompt that shows the tools and explains the format."""

    def prompt(self, backend, messages: list[dict], segments: list[Segment], tools: ToolRegistry) -> str:
        """The whole prompt for the next model call."""

    def grammar(self, tools: ToolRegistry, *, allow_tools: bool, numbers: set[str] | None,
                citations: int = 9) -> str:
        """GBNF of one turn (``numbers``/``citations``: what the answer may contain, see the registry)."""

    def parse(self, text: str, tools: ToolRegistry, *, truncated: bool) -> Turn:
        """The turn the model wrote (raises :class:`ModelOutputError` if it is not one)."""

    def answer_start(self, text: str) -> int | None:
        """Where the final answer begins in a turn being written; None while unknown or a tool call."""

    def thought(self, text: str) -> str | None:
        """The turn's thought once its line is complete, if the format has thoughts."""

    def turn_text(self, generated: str) -> str:
        """The whole turn from what the model generated (with what the prompt wrote for it)."""

    def final_text(self, answer: str) -> str:
        """A final answer the loop writes itself, as a turn of this format."""

    def history(self, question: str, segments: list[Segment]) -> list[dict]:
        """The messages that keep this turn in the conversation (rendered exactly as the model saw it)."""


REACT_INSTRUCTIONS = """Work in steps. A step is exactly:
Thought: one short sentence about what to do next
Action: a tool name
Action Input: the tool's input, on one line
You then receive:
Observation: the tool's result
When you know the answer, or when no tool is needed (a greeting, thanks), write:
Thought: one short sentence
Final Answer: the answer"""


class ReActFormat:
    """Thought / Action / Action Input / Observation … Final Answer, in one assistant message."""

    name = "react"

    def instructions(self, tools: ToolRegistry, context: ToolContext) -> str:
        cards = tools.cards(context) if len(tools) else "(none)"
        return f"Tools:\n{cards}\n\n{REACT_INSTRUCTIONS}"

    @staticmethod
    def render(segment: Segment) -> str:
        text = segment.generated if segment.generated.endswith("\n") else segment.generated + "\n"
        observation = segment.shown_observation()
        return text if observation is None else text + "Observation: " + observation + "\n"

    def prompt(self, backend: ModelBackend, messages: list[dict[str, str]], segments: list[Segment],
               tools: ToolRegistry) -> str:
        return backend.chat_prompt(messages) + "".join(self.render(s) for s in segments) + TURN_PREFIX

    def grammar(self, tools: ToolRegistry, *, allow_tools: bool, numbers: set[str] | None,
                citations: int = 9) -> str:
        return tools.turn_grammar(allow_tools=allow_tools, numbers=numbers, citations=citations)

    def parse(self, text: str, tools: ToolRegistry, *, truncated: bool) -> Turn:
        return parse_turn(text, tools.names, truncated=truncated)

    def answer_start(self, text: str) -> int | None:
        at = text.find(FINAL_MARKER)
        return None if at < 0 else at + len(FINAL_MARKER)

    def thought(self, text: str) -> str | None:
        return text.split("\n", 1)[0].strip() if "\n" in text else None

    def turn_text(self, generated: str) -> str:
        return TURN_PREFIX + generated

    def final_text(self, answer: str) -> str:
        return f"{TURN_PREFIX} I stop here.{FINAL_MARKER}{answer}"

    def history(self, question, segments) -> list[dict]:
        # The whole scratchpad stays as one assistant message, exactly as the model saw it.
        content = "".join(self.render(s) for s in segments[:-1]) + segments[-1].generated
        return [{"role": "user", "content": question}, {"role": "assistant", "content": content}]


CALL_OPEN = "<tool_call>\n"
CALL_CLOSE = "\n</tool_call>"
ARGUMENT = "input"


class ToolCallFormat:
    """The model's own tool-call format (Hermes style, as in Qwen2.5's chat template)."""

    name = "tool-call"

    def instructions(self, tools: ToolRegistry, context: ToolContext) -> str:
        # The tools themselves are written by the chat template, as the JSON it was trained on.
        return ("Call a tool when you need a policy, employee data or a calculation; after its result, answer "
                "the user in plain sentences. When no tool is needed (a greeting, thanks), answer directly.")

    @staticmethod
    def schemas(tools: ToolRegistry, context) -> list[dict]:
        out = []
        for tool in tools:
            card = tool.card(context)
            description = card.purpose + " Input: " + card.input_format + " Example input: " + \
                card.example.replace('"', "'") + "".join("\n" + line for line in card.extra)
            out.append({"type": "function", "function": {
                "name": tool.name, "description": description,
                "parameters": {"type": "object", "properties": {ARGUMENT: {"type": "string"}},
                               "required": [ARGUMENT]}}})
        return out

    _tools: list[dict] | None = None  # JSON schemas of the tools, written by the chat template

    def bind(self, schemas: list[dict]) -> "ToolCallFormat":
        self._tools = schemas
        return self

    def prompt(self, backend: ModelBackend, messages: list[dict[str, str]], segments: list[Segment],
               tools: ToolRegistry) -> str:
        return backend.chat_prompt(messages + self._step_messages(segments), tools=self._tools)

    @staticmethod
    def _step_messages(segments: list[Segment]) -> list[dict]:
        out: list[dict] = []
        for s in segments:
            out.append({"role": "assistant", "content": s.generated})
            observation = s.shown_observation()
            if observation is not None:
                out.append({"role": "tool", "content": observation})
        return out

    def grammar(self, tools: ToolRegistry, *, allow_tools: bool, numbers: set[str] | None,
                citations: int = 9) -> str:
        # A reply that is not a call cannot start with "<", so a call and an answer never share a prefix.
        rules = tools.answer_rules(numbers, first_exclude="<", citations=citations)
        if allow_tools and len(tools):
            calls = []
            for tool in tools:
                root = "in-" + tool.name.replace("_", "-")
                calls.append(f'"{tool.name}\\", \\"arguments\\": {{\\"{ARGUMENT}\\": \\"" {root}')
                rules.append(tool.grammar_rules(root, json_string=True))
            rules.insert(0, 'root ::= call | answer')
            rules.insert(1, 'call ::= "<tool_call>\\n{\\"name\\": \\"" (' + " | ".join(calls) + ') "\\"}}\\n</tool_call>"')
        else:
            rules.insert(0, "root ::= answer")
        return "\n".join(rules) + "\n"

    def parse(self, text: str, tools: ToolRegistry, *, truncated: bool) -> Turn:
        stripped = text.strip()
        if not stripped.startswith("<tool_call>"):
            if not stripped:
                raise ModelOutputError("Your last output was empty.", hint="Answer the user, or call a tool.")
            return Turn(thought="", final=stripped)
        body = stripped[len("<tool_call>"):].removesuffix("</tool_call>").strip()
        try:
            call = json.loads(body)
            name, tool_input = call["name"], call["arguments"][ARGUMENT]
        except (ValueError, KeyError, TypeError) as exc:
            raise ModelOutputError("Your last tool call was not valid JSON.",
                                   hint='Write <tool_call>{"name": ..., "arguments": {"input": ...}}</tool_call>.') from exc
        if name not in tools.names:
            raise ModelOutputError(f"There is no tool named {name!r}.", hint=f"Use one of: {', '.join(tools.names)}.")
        return Turn(thought="", action=name, action_input=str(tool_input))

    def answer_start(self, text: str) -> int | None:
        return 0 if text and not text.startswith("<") else None

    def thought(self, text: str) -> str | None:
        return None

    def turn_text(self, generated: str) -> str:
        return generated

    def final_text(self, answer: str) -> str:
        return answer

    def history(self, question, segments) -> list[dict]:
        return [{"role": "user", "content": question}, *self._step_messages(segments)]


def choose_format(setting: str, backend, tools: ToolRegistry, context) -> TurnFormat:
    """The turn format for ``backend``: ``setting`` is "react", "tool-call" or "auto" (the
    model's own tool calls where its chat template has them, else ReAct)."""
    template = getattr(backend, "template", None)
    native = bool(template is not None and template.renders_tools)
    if setting == "tool-call" or (setting == "auto" and native):
        return ToolCallFormat().bind(ToolCallFormat.schemas(tools, context))
    return ReActFormat()
