"""Typed events of an agent run and the trace they add up to.

The agent loop yields these; the CLI prints them, the tests assert on them, the
desktop app renders them. A :class:`Trace` serialises to JSON.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass
class Step:
    """Base class of every event."""

    kind = "step"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, **asdict(self)}


@dataclass
class AnswerToken(Step):
    """A piece of text as the model writes it (streamed to the UI)."""

    text: str
    kind = "token"


@dataclass
class AnswerRetracted(Step):
    """The answer written so far is withdrawn (it stated a number with no source); another follows."""

    reason: str
    kind = "retracted"


@dataclass
class ThoughtStep(Step):
    """The model's thought, as soon as its line is complete (while the model goes on writing)."""

    thought: str
    kind = "thought"


@dataclass
class StageStarted(Step):
    """The agent starts a step that is not a tool call (deciding the kind of question, writing a
    calculation, writing the answer), so whoever watches can say what is happening now."""

    doing: str
    kind = "stage"


@dataclass
class ModelCallStep(Step):
    """Timing and token accounting of one model call, after it ends."""

    seconds: float
    prompt_tokens_evaluated: int
    prompt_tokens_reused: int
    completion_tokens: int
    kind = "model_call"


@dataclass
class PlanMade(Step):
    """The model wrote a plan (plan mode): every tool call at once, as dicts of
    :class:`engine.agent.plan.PlanStep` (id, tool, input, depends_on). Its steps follow as actions."""

    thought: str
    steps: list[dict[str, Any]]
    kind = "plan"


@dataclass
class ProcedureOffered(Step):
    """The question asks how to do something HR wrote a procedure for: the procedure (its steps),
    whether it applies to the user (checked against their own record) and, unless it does not,
    the walk-through to start (dict of :class:`engine.workflows.procedures.Walkthrough`). No model call."""

    procedure: dict[str, Any]
    applicability: dict[str, Any]
    walkthrough: dict[str, Any] | None = None
    kind = "procedure"


@dataclass
class ActionStep(Step):
    action: str
    action_input: str
    kind = "action"


@dataclass
class ObservationStep(Step):
    action: str
    action_input: str
    observation: str
    ok: bool = True
    seconds: float = 0.0
    cached: bool = False  # True: the same call was made before, nothing was run
    data: Any = None  # structured result for the app (table rows, citations), JSON-safe
    kind = "observation"


@dataclass
class FinalAnswer(Step):
    answer: str
    complete: bool = True  # False: step limit, context limit or cut short
    ungrounded_numbers: list[str] = field(default_factory=list)  # numbers no observation or question holds
    kind = "final"


@dataclass
class ErrorStep(Step):
    """A setup error or a cancellation that ended the run."""

    message: str
    hint: str = ""
    error_type: str = ""
    kind = "error"


@dataclass
class TraceStep:
    """One Thought/Action/Observation round of the trace."""

    thought: str
    action: str | None = None
    action_input: str | None = None
    observation: str | None = None
    ok: bool = True
    cached: bool = False
    seconds: float = 0.0


@dataclass
class Trace:
    """Everything about one question: steps, answer and token accounting."""

    question: str
    user: str
    answer: str = ""
    complete: bool = False
    steps: list[TraceStep] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    llm_calls: int = 0
    prompt_tokens_evaluated: int = 0
    prompt_tokens_reused: int = 0
    completion_tokens: int = 0
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    tool_seconds: float = 0.0
    seconds: float = 0.0
    first_token_seconds: float | None = None  # from the question to the first token of the answer
    error: str | None = None
    ungrounded_numbers: list[str] = field(default_factory=list)  # numbers of the answer with no source
    plan: list[dict[str, Any]] | None = None  # the plan's steps, when the question was planned
    plan_fallback: bool = False  # a planned step failed and the ReAct loop took over
    procedure: dict[str, Any] | None = None  # a recognised procedure: its id, title, applicability, walk-through
    route: list[dict[str, Any]] = field(default_factory=list)  # each part's kind, and whether code or the model chose
    evidence: list[dict[str, Any]] = field(default_factory=list)  # the policy sentences picked as the answer's basis
    checks: list[str] = field(default_factory=list)  # what the answer checks changed (a figure added, a claim withdrawn)
    claims_about_others: int = 0  # sentences about someone else's pay withdrawn: no allowed data backed them
    per_call: list[dict[str, Any]] = field(default_factory=list)
    stages: list[dict[str, Any]] = field(default_factory=list)  # where the time went (engine.agent.stages)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
