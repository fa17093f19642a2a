"""What one question's pipeline has found so far: one record, not state spread over a class.

Each stage reads and adds to it; nothing else is shared between stages. A part's own findings are on
its :class:`~engine.agent.routed.Part`; this holds what later parts and the answer may use.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.agent.calc_slot import Variable
from engine.agent.evidence import Passage


@dataclass
class Memory:
    """The findings of one question, across its parts."""

    results: list[str] = field(default_factory=list)  # calculator and data results (sources for the answer's numbers)
    passages: dict[tuple[str, str, str], Passage] = field(default_factory=dict)  # shown so far, by (source, location, text)
    part_values: list[tuple[int, float]] = field(default_factory=list)  # each part's calculated answer, for a later part
    data_values: list[tuple[str, float, str]] = field(default_factory=list)  # earlier data results' figures (name, value, note)
    part_texts: list[str] = field(default_factory=list)  # the parts routed so far
    part_kinds: list[str] = field(default_factory=list)  # ... and their kinds
    declared: list[Variable] = field(default_factory=list)  # the figures the current calculation may name
    record_shown: bool = False  # the person's record is in the trace as a look-up
