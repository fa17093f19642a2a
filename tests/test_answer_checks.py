"""The checks a ReAct final answer passes, one at a time (engine/agent/answer_checks.py)."""

import pytest
from hypothesis import given, strategies as st

from engine.agent import answer_checks as checks


@pytest.mark.parametrize("calculation, tools_left, sent_back, sent", [
    ("84000 / 260", True, False, True),  # arithmetic left to the reader, a step left: back to the calculator
    ("84000 / 260", False, False, False),  # no step left: the calculator works it out in the answer instead
    ("84000 / 260", True, True, False),  # sent back once already
    (None, True, False, False),  # nothing written out
    ("", True, False, False),
])
def test_an_answer_that_writes_its_arithmetic_goes_back_once(calculation, tools_left, sent_back, sent):
    note = checks.calculation_note(calculation, tools_left=tools_left, sent_back=sent_back)
    assert (note is not None) == sent
    if sent:
        assert calculation in note and "calculator" in note


@pytest.mark.parametrize("unsourced, denials, found, answer", [
    (["90000"], ["You can see 'salary' only for yourself."], False,
     "I can't tell you that. You can see 'salary' only for yourself."),
    # The same refusal twice is said once.
    (["90000"], ["Not yours.", "Not yours."], False, "I can't tell you that. Not yours."),
    (["90000"], ["Not yours."], True, None),  # something else was found: the answer may rest on it
    ([], ["Not yours."], False, None),  # no figure made up: the model's own refusal stands
    (["90000"], [], False, None),  # nothing denied: the grounding check handles it
])
def test_a_denied_question_with_a_made_up_figure_is_answered_by_the_access_layer(unsourced, denials, found, answer):
    assert checks.denial_answer(unsourced, denials, found) == answer


@given(st.lists(st.from_regex(r"[1-9][0-9]{0,6}", fullmatch=True), max_size=4), st.booleans())
def test_an_unsourced_number_is_sent_back_exactly_once(unsourced, rewritten):
    note = checks.grounding_note(unsourced, rewritten=rewritten)
    if unsourced and not rewritten:
        assert note is not None and all(n in note for n in unsourced)
    else:
        assert note is None


@pytest.mark.parametrize("answer, rewritten, cut_off, unsourced, replaced, check", [
    ("You have 8 days left.", False, False, [], False, ""),
    ("You have 8 days left.", True, False, [], False, ""),  # a clean rewrite stands
    ("You have 8 days left.", False, True, [], False, ""),  # a first answer cut off is flagged incomplete, not replaced
    ("You have 8 days", True, True, [], True, ""),  # a rewrite cut off fought the grammar
    ("You have 8 days left.", True, False, ["8"], True, ""),  # a rewrite that still states an unsourced number
    ("1, 1, 1, 1, 1, 1, 1, 1", False, False, [], True, "broken text"),
])
def test_broken_or_unbacked_answers_become_an_honest_sentence(answer, rewritten, cut_off, unsourced, replaced, check):
    given_answer, was_replaced, said = checks.settled_answer(answer, rewritten=rewritten, cut_off=cut_off,
                                                             unsourced=unsourced)
    assert was_replaced == replaced
    assert given_answer == (checks.UNBACKED if replaced else answer)
    assert (check in said) if check else said == ""


def test_an_answer_at_the_step_limit_says_it_may_be_incomplete():
    assert checks.at_limit("You have 8 days.", 6).startswith("(I reached my limit of 6 tool steps")
    assert checks.at_limit("You have 8 days.", 6).endswith("\n\nYou have 8 days.")
