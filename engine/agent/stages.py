"""Where the time of one question goes: its events, timed as they come, summed by stage.

An agent run is a stream of events (:mod:`engine.agent.steps`); the stage a run is in changes at a
:class:`StageStarted` ("Working out what kind of question this is", "Writing the answer"), at a
tool call and when a model call ends. Timing that stream from outside the agent measures every
agent mode alike and changes nothing in it. Each model call also brings its token accounting
(prompt tokens evaluated and reused, tokens generated).
"""

from __future__ import annotations

import re
import time
from typing import Any

from engine.agent.steps import ActionStep, ModelCallStep, ObservationStep, StageStarted, Step

#: What code does before the first event: the record look-up, splitting the question, the routing vote.
START = "before the first step (look-up, split, routing vote)"
CODE = "code between steps"


def stage_name(doing: str) -> str:
    """A stage's name without what differs per question ("Searching the policies: leave" -> "Searching
    the policies"; "Writing the answer to part 2" -> "Writing the answer")."""
    name = doing.split(":", 1)[0].split("…", 1)[0].strip()
    name = re.sub(r"\s+(to|of|for) part \d+$", "", name)
    name = re.sub(r"^Calculating\b.*", "Calculating", name)
    return name or doing


class StageClock:
    """Feed it every event of one run (:meth:`see`), then :meth:`finish`: a list of stage records."""

    def __init__(self) -> None:
        self.started = self._mark = time.perf_counter()
        self._current = START
        self._before_tool: dict[str, Any] | None = None
        self.stages: list[dict[str, Any]] = []

    def _close(self, now: float, **extra: Any) -> None:
        seconds = now - self._mark
        if seconds > 0.0005 or extra:
            self.stages.append({"stage": self._current, "seconds": round(seconds, 4), **extra})
        self._mark = now

    def see(self, step: Step) -> None:
        now = time.perf_counter()
        if isinstance(step, StageStarted):
            self._close(now)
            self._current = stage_name(step.doing)
        elif isinstance(step, ActionStep):
            self._close(now)
            self._before_tool = self.stages[-1] if self.stages else None
            self._current = f"tool: {step.action}"
        elif isinstance(step, ObservationStep):
            gap = now - self._mark
            ran = float(step.seconds or 0.0)
            if ran > gap and self._before_tool is not None:
                # The routed pipelines run a look-up first and report it after (action and observation
                # together): its time is inside the stage before, and moves to the tool.
                moved = min(ran - gap, self._before_tool["seconds"])
                self._before_tool["seconds"] = round(self._before_tool["seconds"] - moved, 4)
                self._mark -= moved
            self._close(now, tool=True)
            self._current = CODE
            self._before_tool = None
        elif isinstance(step, ModelCallStep):
            stage = self._current if self._current not in (START, CODE) else "model call"
            self._current = f"model: {stage}"
            self._close(now, model=True, prompt_evaluated=step.prompt_tokens_evaluated,
                        prompt_reused=step.prompt_tokens_reused, generated=step.completion_tokens)
            self._current = CODE

    def finish(self) -> list[dict[str, Any]]:
        self._current = self._current if self._current != CODE else "code after the last step (checks, answer)"
        self._close(time.perf_counter())
        return self.stages


def summarise(per_question: list[list[dict[str, Any]]]) -> list[dict[str, Any]]:
    """Stage records of many questions, summed by stage: total seconds, share of all, the questions it
    ran in, and for model stages the tokens. Largest first."""
    totals: dict[str, dict[str, Any]] = {}
    for stages in per_question:
        seen: set[str] = set()
        for s in stages:
            t = totals.setdefault(s["stage"], {"stage": s["stage"], "seconds": 0.0, "questions": 0, "calls": 0,
                                               "prompt_evaluated": 0, "prompt_reused": 0, "generated": 0})
            t["seconds"] += s["seconds"]
            t["calls"] += 1
            for key in ("prompt_evaluated", "prompt_reused", "generated"):
                t[key] += s.get(key, 0)
            if s["stage"] not in seen:
                t["questions"] += 1
                seen.add(s["stage"])
    everything = sum(t["seconds"] for t in totals.values()) or 1.0
    out = sorted(totals.values(), key=lambda t: -t["seconds"])
    for t in out:
        t["seconds"] = round(t["seconds"], 3)
        t["share"] = round(t["seconds"] / everything, 4)
    return out


def table(summary: list[dict[str, Any]], questions: int) -> list[str]:
    """The summary as text lines: stage, seconds per question, share, calls, tokens per call."""
    rows = [f"{'stage':<52}{'s/question':>11}{'share':>7}{'calls':>7}{'prompt eval':>12}{'reused':>8}{'generated':>10}"]
    for t in summary:
        calls = max(t["calls"], 1)
        model = t["stage"].startswith("model:")
        rows.append(f"{t['stage'][:51]:<52}{t['seconds'] / max(questions, 1):>11.2f}{t['share']:>7.0%}{t['calls']:>7}"
                    + (f"{t['prompt_evaluated'] / calls:>12.0f}{t['prompt_reused'] / calls:>8.0f}"
                       f"{t['generated'] / calls:>10.0f}" if model else ""))
    return rows
