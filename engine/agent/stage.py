"""What every stage of a turn reads from the turn (engine.agent.routed._Turn), declared once for the
stage mixins (engine.agent.stage_calc, engine.agent.stage_data) and their type checks."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Generator, Iterator

from engine.agent.memory import Memory
from engine.agent.steps import Step, Trace

if TYPE_CHECKING:
    from engine.agent.routed import Part, RoutedAgent


class Stage:
    """The turn as a stage sees it: provided by engine.agent.routed._Turn."""

    agent: RoutedAgent
    question: str
    language: str
    memory: Memory
    trace: Trace
    partial: str
    columns_above: bool  # the employee data's columns are in the system prompt
    parts: list[Part]  # the parts of the question, in order
    tell: Callable[[str], None]
    call: Callable[..., Generator[Step, None, str]]
    tool_step: Callable[..., Iterator[Step]]
    _conversation: Callable[[], list[str]]
    _last_question: Callable[[], str]
    _which: Callable[[Part, bool], str]
    _named_people: Callable[[str], list[str]]
