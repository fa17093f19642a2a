"""Plan mode: the whole plan in one grammar-bound model call, then the tools, then one answer.

For a question with several parts ("How many vacation days do I have left, and what would 10
days pay?") the model writes every tool call at once (HuggingGPT's task list, ReWOO's plan,
TaskBench's plan graph)::

    Plan: [
      {"id": 1, "tool": "employee_data", "input": "...", "depends_on": []},
      {"id": 2, "tool": "calculator", "input": "#1 / 260 * 10", "depends_on": [1]}
    ]

``#1`` in an input stands for the number step 1 returns. The grammar comes from the tool
registry, so a plan can only name real tools with valid inputs, number its steps 1, 2, … and
refer to earlier steps only. Independent steps run at once; one more model call writes the
answer. A step that fails hands the question back to the ReAct loop with what is known.
"""

from __future__ import annotations

import json
import math
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Callable, Iterator

from engine.errors import ModelOutputError
from engine.tools.base import ToolContext, ToolResult
from engine.tools.calculator import format_number
from engine.tools.registry import TEXT_CHAR, THOUGHT_MAX_CHARS, ToolRegistry, rule_name

PLAN_MARKER = "Plan: "
#: Most steps of one plan: three tools, each once or twice, covers every multi-part question we
#: have seen; a longer plan is the model listing variations, which ReAct handles better.
MAX_PLAN_STEPS = 4
REFERENCE = re.compile(r"#(\d)\b")

# Several parts in one question: a second question after a "?", or "…, and how/what/can …".
_SEVERAL_PARTS = re.compile(
    r"\?\s*\S|\s(?:and|also|plus)\s+(?:also\s+)?(?:how|what|when|where|who|which|whom|whose|can|could|do|does|did|is|"
    r"are|am|will|would|should|may|must|if|tell|give|show)\b", re.I)


def several_parts(question: str) -> bool:
    """Whether ``question`` asks more than one thing (the combined mode plans these)."""
    return bool(_SEVERAL_PARTS.search(question.strip()))


@dataclass
class PlanStep:
    """One tool call of a plan."""

    id: int
    tool: str
    input: str
    depends_on: list[int] = field(default_factory=list)

    @property
    def references(self) -> list[int]:
        return sorted({int(m.group(1)) for m in REFERENCE.finditer(self.input)})

    @property
    def needs(self) -> list[int]:
        """Every earlier step this one waits for: the listed ones and the referenced ones."""
        return sorted(set(self.depends_on) | set(self.references))

    def to_dict(self) -> dict:
        return {"id": self.id, "tool": self.tool, "input": self.input, "depends_on": self.needs}


def plan_grammar(tools: ToolRegistry, *, numbers: set[str] | None = None, citations: int = 9,
                 max_steps: int = MAX_PLAN_STEPS) -> str:
    """GBNF of a planning turn: ``Thought: …`` then a plan, or a final answer (no tool needed)."""
    rules = [
        'root ::= thought "\\n" (plan | final)',
        f"thought ::= \" \" [^\\x00-\\x20\\x7f0-9] {TEXT_CHAR}{{0,{THOUGHT_MAX_CHARS - 1}}}",
        'final ::= "Final Answer: " answer',
        *tools.answer_rules(numbers, citations=citations),
    ]
    steps = [f"step{k}" for k in range(1, max_steps + 1)]
    tail = ""
    for name in reversed(steps[1:]):
        tail = f'(",\\n  " {name} {tail})?'
    rules.append(f'plan ::= "Plan: [\\n  " step1 {tail} "\\n]"')
    shared: set[str] = set()
    for k in range(1, max_steps + 1):
        calls = []
        for tool in tools:
            refs = k - 1 if getattr(tool, "accepts_refs", False) else 0
            root = f"{rule_name(tool.name)}-r{refs}" if refs else f"p-{rule_name(tool.name)}"
            if root not in shared:
                shared.add(root)
                extra = {"refs": refs} if refs else {}
                rules.append(tool.grammar_rules(root, json_string=True, **extra))
            calls.append(f'"{tool.name}\\", \\"input\\": \\"" {root}')
        deps = "" if k == 1 else f'(dep{k} (", " dep{k}){{0,{k - 2}}})?'
        if k > 1:
            rules.append(f"dep{k} ::= [1-{k - 1}]")
        rules.append(f'step{k} ::= "{{\\"id\\": {k}, \\"tool\\": \\"" (' + " | ".join(calls) +
                     f') "\\", \\"depends_on\\": [" {deps} "]}}"')
    return "\n".join(rules) + "\n"


def plan_text(text: str) -> str | None:
    """The plan's JSON of a turn, or None if the turn is not a plan."""
    at = text.find("\n" + PLAN_MARKER)
    return None if at < 0 else text[at + 1 + len(PLAN_MARKER):].strip()


def parse_plan(body: str, tools: ToolRegistry) -> list[PlanStep]:
    """The steps of a plan (raises :class:`ModelOutputError` for anything the grammar would not
    allow: a backend without grammar support, or a plan cut off by the token limit)."""
    try:
        raw = json.loads(body)
        steps = [PlanStep(int(s["id"]), str(s["tool"]), str(s["input"]), [int(d) for d in s.get("depends_on", [])])
                 for s in raw]
    except (ValueError, KeyError, TypeError) as exc:
        raise ModelOutputError("Your plan is not a valid JSON list of steps.") from exc
    if not 1 <= len(steps) <= MAX_PLAN_STEPS:
        raise ModelOutputError(f"A plan has 1 to {MAX_PLAN_STEPS} steps.")
    for n, step in enumerate(steps, start=1):
        if step.id != n:
            raise ModelOutputError("Number the plan's steps 1, 2, 3 in order.")
        if step.tool not in tools.names:
            raise ModelOutputError(f"There is no tool named {step.tool!r}.", hint=f"Use one of: {', '.join(tools.names)}.")
        if any(not 1 <= d < n for d in step.needs):
            raise ModelOutputError(f"Step {n} may only depend on earlier steps.")
    return steps


def levels(steps: list[PlanStep]) -> list[list[PlanStep]]:
    """The steps in rounds: each round's steps need only earlier rounds, so they run at once."""
    depth: dict[int, int] = {}
    for step in steps:
        depth[step.id] = 1 + max((depth[d] for d in step.needs), default=-1)
    out: list[list[PlanStep]] = [[] for _ in range(max(depth.values(), default=-1) + 1)]
    for step in steps:
        out[depth[step.id]].append(step)
    return out


def result_number(result: ToolResult) -> float | None:
    """The one number a tool returned (a scalar, a one-cell table, or a calculation), else None."""
    data = result.data if isinstance(result.data, dict) else {}
    values: list = []
    if result.kind == "scalar":
        values = [data.get("value")]
    elif result.kind == "table" and data.get("row_count") == 1:
        values = [v for v in data["rows"][0] if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if len(values) != 1:
        return None
    value = values[0]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        return None
    return float(value)


def resolve(step: PlanStep, numbers: dict[int, float | None]) -> str:
    """The step's input with each ``#k`` replaced by step k's number."""
    def sub(m: re.Match) -> str:
        value = numbers.get(int(m.group(1)))
        if value is None:
            raise ModelOutputError(f"Step {step.id} uses #{m.group(1)}, but step {m.group(1)} did not return "
                                   "one number.", hint="Look the number up on its own first.")
        return format_number(value)
    return REFERENCE.sub(sub, step.input)


@dataclass
class StepOutcome:
    step: PlanStep
    run_input: str  # with references resolved
    result: ToolResult | None = None
    error: BaseException | None = None
    seconds: float = 0.0
    skipped: bool = False  # an earlier step it needs failed


def execute(steps: list[PlanStep], run_step: Callable[[PlanStep, str], tuple[ToolResult, float]]
            ) -> Iterator[tuple[str, StepOutcome]]:
    """Run the plan round by round; the steps of a round run at once. ``run_step(step, input)``
    runs one tool and returns its result and seconds (raising on failure); a step whose
    dependency failed is skipped. Yields ``("start", outcome)`` as a round's steps begin and
    ``("done", outcome)`` as they end, in plan order within a round."""
    outcomes: dict[int, StepOutcome] = {}
    numbers: dict[int, float | None] = {}
    for round_ in levels(steps):
        ready: list[StepOutcome] = []
        finished: list[StepOutcome] = []
        for step in round_:
            if any(outcomes[d].result is None for d in step.needs):
                finished.append(StepOutcome(step, step.input, skipped=True))
                continue
            try:
                ready.append(StepOutcome(step, resolve(step, numbers)))
            except ModelOutputError as exc:
                finished.append(StepOutcome(step, step.input, error=exc))
        for outcome in ready:
            yield "start", outcome

        def work(outcome: StepOutcome) -> StepOutcome:
            try:
                outcome.result, outcome.seconds = run_step(outcome.step, outcome.run_input)
            except Exception as exc:  # handed back to the caller, which decides what it means
                outcome.error = exc
            return outcome

        if len(ready) > 1:
            with ThreadPoolExecutor(max_workers=len(ready), thread_name_prefix="plan-step") as pool:
                finished += list(pool.map(work, ready))
        else:
            finished += [work(o) for o in ready]
        for outcome in sorted(finished, key=lambda o: o.step.id):
            outcomes[outcome.step.id] = outcome
            numbers[outcome.step.id] = result_number(outcome.result) if outcome.result is not None else None
            yield "done", outcome


def plan_instructions() -> str:
    return ("For a question with several parts, write the whole plan at once instead of one Action:\n"
            "Thought: one short sentence\n"
            'Plan: [\n  {"id": 1, "tool": "a tool", "input": "its input", "depends_on": []},\n'
            '  {"id": 2, "tool": "calculator", "input": "#1 * 2", "depends_on": [1]}\n]\n'
            "In an input, #1 stands for the number step 1 returns. Steps without a dependency run at once. "
            "You then receive every step's result and write the Final Answer.")


def plan_example(tools: ToolRegistry, context: ToolContext) -> str:
    """One worked plan in the prompt (made-up figures), built from the employee data's own columns:
    one value per lookup, the lookups at once, and a calculation on a looked-up number (``#2``)."""
    data, calc = tools.get("employee_data"), tools.get("calculator")
    table = getattr(data, "table", None)
    worked = data.card(context).worked if data is not None else None
    if table is None or worked is None or calc is None or not table.role("pay"):
        return ""
    pay = table.role("pay")
    lookup = worked.tool_input.replace('"', "'")  # a JSON string: the query quotes with '
    leave = next((c for c in table.columns if lookup.endswith(f"['{c}']")), None)
    if leave is None:
        return ""
    what = leave.replace("_", " ")
    steps = [{"id": 1, "tool": "employee_data", "input": lookup, "depends_on": []},
             {"id": 2, "tool": "employee_data", "input": lookup.removesuffix(f"['{leave}']") + f"['{pay}']",
              "depends_on": []},
             {"id": 3, "tool": "calculator", "input": "round(#2 / 12, 2)", "depends_on": [2]}]
    plan = ",\n  ".join(json.dumps(s, ensure_ascii=False) for s in steps)
    results = ["#1 employee_data: 4", "#2 employee_data: 52000", "#3 calculator: round(52000 / 12, 2) = 4333.33"]
    return "\n".join([f"Question: How many {what} do I have, and what is my pay per month?",
                      "Thought: I look up both values at once and divide the pay by 12.",
                      f"Plan: [\n  {plan}\n]", "Observation: " + "\n  ".join(results),
                      "Thought: I have what I need.",
                      f"Final Answer: You have 4 {what}. Your pay is 4333.33 a month."])
