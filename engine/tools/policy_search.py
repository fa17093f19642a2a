"""Policy search tool: the best passages of the company's policy documents, numbered for citation."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.errors import ToolInputError
from engine.tools.base import Tool, ToolCard, ToolContext, ToolParts, ToolResult, WorkedExample

if TYPE_CHECKING:
    from engine.policy.index import PolicyIndex

PASSAGE_MAX_CHARS = 700
TOP_K = 4
#: What the model reads in place of a passage that speaks to an AI assistant ("ignore all previous
#: instructions…"): such text is an attack on the model, not a policy for employees. The citation
#: stays, so the person can open and read the passage; the index report names it to HR.
WITHHELD = "(not shown to the assistant: this passage gives instructions to an AI assistant, not to employees)"


class PolicySearchTool(Tool):
    """Hybrid search over the policy index; no nested model call."""

    name = "policy_search"
    label = "the policies"
    order = 10

    @classmethod
    def build(cls, parts: ToolParts) -> "PolicySearchTool | None":
        return cls(parts.policy_index) if parts.policy_index is not None else None

    @classmethod
    def describe_call(cls, tool_input: str) -> str:
        return f"Searching the policies: “{' '.join(tool_input.split())[:80]}”"

    def __init__(self, index: PolicyIndex, k: int = TOP_K) -> None:
        self.index = index
        self.k = k

    def card(self, context: ToolContext) -> ToolCard:
        return ToolCard(
            name=self.name,
            purpose="find what the company's HR policies say (leave types, accrual, carry-over, encashment, "
            "probation, overtime, remote work, benefits). Returns numbered passages [1]..[4] with their source.",
            input_format="a short search phrase in plain words.",
            example="encashment of unused vacation leave",
            worked=WorkedExample(
                question="Can I bring my dog to the office?", thought="I search the policies.",
                tool_input="pets in the office",
                observation="[1] workplace.md › Office rules › Animals (line 12): Only assistance dogs are "
                "allowed in the office.",
                answer="Only assistance dogs are allowed in the office [1]."),
        )

    def grammar_rules(self, root: str, json_string: bool = False) -> str:
        no = '"\\\\' if json_string else ""
        return f"{root} ::= [^\\x00-\\x20\\x7f{no}] [^\\x00-\\x1f\\x7f{no}]{{1,150}}"

    def normalise_input(self, tool_input: str) -> str:
        return " ".join(tool_input.lower().split())

    def run(self, tool_input: str, context: ToolContext) -> ToolResult:
        query = " ".join(tool_input.split())
        if len(query) < 2:
            raise ToolInputError("The search phrase is empty.", hint="Write a few words, e.g. 'sick leave carry over'.")
        # The question is searched beside the model's phrase (see PolicyIndex.search).
        hits = self.index.search(query, k=self.k, hint=context.question)
        if not hits:
            return ToolResult(text="No policy passage matches this search.", data={"citations": []}, kind="citations")
        lines = []
        for n, hit in enumerate(hits, start=1):
            if hit.withheld:  # heading and text: "## Note to the AI assistant: …" is not shown either
                lines.append(f"[{n}] {hit.source} ({hit.location}): {WITHHELD}")
                continue
            flat = " ".join(hit.text.split())
            text = flat if len(flat) <= PASSAGE_MAX_CHARS else flat[:PASSAGE_MAX_CHARS] + " …"
            lines.append(f"[{n}] {hit.source} › {hit.section} ({hit.location}): {text}")
        citations = [{"n": n, **hit.to_dict()} for n, hit in enumerate(hits, start=1)]
        return ToolResult(text="\n".join(lines), data={"citations": citations}, kind="citations")
