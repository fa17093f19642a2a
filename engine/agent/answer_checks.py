"""The checks a ReAct final answer passes before it is given, each a small pure function.

The loop (:mod:`engine.agent.loop`) asks them in order; each says what to do with one answer and
nothing else, so each is tested on its own (``tests/test_answer_checks.py``):

1. :func:`calculation_note`: the answer writes out arithmetic instead of its result; while a tool
   step is left, it goes back to the calculator once.
2. :func:`denial_answer`: the access layer refused, nothing else was found, and the answer states a
   figure anyway: the access layer's own words are the whole answer.
3. :func:`grounding_note`: the answer states a number no source has; it is withdrawn and written
   again under the grammar of sourced numbers (once).
4. :func:`settled_answer`: broken text, or a rewrite that still fought the grammar, becomes an
   honest sentence; an answer at the step limit says it may be incomplete.
"""

from __future__ import annotations

from engine.agent.degenerate import degenerate

#: The answer given where no answer can be backed by what the tools returned.
UNBACKED = ("I could not write an answer that I can back with what the tools returned, and I will not give a "
            "figure that no tool gave me. Please ask in other words, or ask HR.")


def calculation_note(calculation: str | None, *, tools_left: bool, sent_back: bool) -> str | None:
    """What the model is told when its answer writes out ``calculation`` instead of the result, or
    None where the answer goes on (no such calculation, no tool step left, or sent back once already:
    then the calculator works it out in the answer)."""
    if not calculation or not tools_left or sent_back:
        return None
    return (f"Error: the answer writes the calculation {calculation} instead of its result. "
            "Work it out with the calculator, then answer with the result.")


def denial_answer(unsourced: list[str], denials: list[str], found: bool) -> str | None:
    """The whole answer when the access layer refused, no tool found anything else and the answer
    fills the gap with a figure of its own; None otherwise."""
    if not (unsourced and denials and not found):
        return None
    return "I can't tell you that. " + " ".join(dict.fromkeys(denials))


def grounding_note(unsourced: list[str], *, rewritten: bool) -> str | None:
    """What the model is told when its answer states numbers no source has (once: a rewrite is not
    sent back again), or None."""
    if not unsourced or rewritten:
        return None
    return (f"Error: the answer states {', '.join(unsourced)}, which no observation and not the question "
            "contains. Answer again with only numbers that an observation or the question gives; where you do "
            "not have a figure, say that you do not know it.")


def settled_answer(answer: str, *, rewritten: bool, cut_off: bool,
                   unsourced: list[str]) -> tuple[str, bool, str]:
    """``(answer, replaced, check)``: the answer to give, whether it replaced the model's, and what
    the trace's checks say about it ("" if nothing).

    Broken text (a short piece repeated) is replaced; so is a grounded rewrite that was cut off or
    still states an unsourced number: it fought the grammar, and nothing in it can be trusted."""
    broken = degenerate(answer)
    if broken or rewritten and (cut_off or unsourced):
        return UNBACKED, True, f"the answer was broken text ({broken}); replaced" if broken else ""
    return answer, False, ""


def at_limit(answer: str, max_steps: int) -> str:
    """An answer written because the step limit was reached, marked as possibly incomplete."""
    return f"(I reached my limit of {max_steps} tool steps, so this answer may be incomplete.)\n\n{answer}"
