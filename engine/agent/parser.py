"""Parse one model turn (the format the turn grammar enforces)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.errors import ModelOutputError

_TURN = re.compile(
    r"\AThought: ?(?P<thought>[^\n]*)\n"
    r"(?:Action: (?P<action>[^\n]*)\nAction Input: (?P<input>[^\n]*)\n?"
    r"|Final Answer: (?P<final>.*))\Z",
    re.DOTALL,
)
FINAL_MARKER = "\nFinal Answer: "


@dataclass
class Turn:
    thought: str
    action: str | None = None
    action_input: str | None = None
    final: str | None = None


def parse_turn(text: str, tool_names: list[str] | None = None, *, truncated: bool = False) -> Turn:
    """Split a turn into its parts.

    A grammar-constrained turn always parses; a failure here on such a turn is a
    bug. Unconstrained text (a scripted model, or a cut-off turn) raises
    :class:`ModelOutputError`, which the loop feeds back to the model.
    ``truncated`` accepts a final answer that was cut off by the token limit.
    """
    match = _TURN.match(text)
    if match is None and truncated and FINAL_MARKER in text and text.startswith("Thought:"):
        head, _, final = text.partition(FINAL_MARKER)
        return Turn(thought=head[len("Thought:"):].strip(), final=final.strip())
    if match is None:
        if truncated:
            raise ModelOutputError("Your last output was cut off before it was complete.",
                                   hint="Keep the Thought to one short sentence and the Action Input short.")
        raise ModelOutputError(
            "Your last output did not follow the format.",
            hint="Write 'Thought: ...' then either 'Action: <tool>' and 'Action Input: ...', or 'Final Answer: ...'.",
        )
    if match["final"] is not None:
        return Turn(thought=match["thought"].strip(), final=match["final"].strip())
    action = match["action"].strip()
    if tool_names is not None and action not in tool_names:
        raise ModelOutputError(f"There is no tool named {action!r}.", hint=f"Use one of: {', '.join(tool_names)}.")
    return Turn(thought=match["thought"].strip(), action=action, action_input=match["input"].strip())
