"""Who ends the employment, in a question and in a notice rule (engine/agent/sides.py)."""

from __future__ import annotations

import pytest

from engine.agent.evidence import Passage, Unit, marks
from engine.agent.sides import other_side, side_of


@pytest.mark.parametrize("text, side", [
    ("If the company lays me off, how much notice do I get?", "employer"),
    ("How much notice does the employer have to give if they fire me?", "employer"),
    ("Wie lang ist die Kündigungsfrist, wenn mir gekündigt wird?", "employer"),
    ("Quel préavis en cas de licenciement après 6 ans ?", "employer"),
    ("Hoeveel opzegtermijn als de werkgever opzegt?", "employer"),
    ("¿Cuánto preaviso me corresponde si me despiden?", "employer"),
    ("Notice period for the employer: 2 months", "employer"),
    ("If I resign, how much notice do I have to give?", "employee"),
    ("I'm thinking of quitting. What's my notice period?", "employee"),
    ("Quel est mon préavis de démission ?", "employee"),
    ("Wie lange ist die Frist, wenn ich kündige?", "employee"),
    ("If you resign, your notice period is one month, regardless of your length of service.", "employee"),
])
def test_the_side_a_text_speaks_of(text, side):
    assert side_of(text) == side


@pytest.mark.parametrize("text", [
    "What is my notice period?",  # (no side: both rules may answer)
    "Notice is given in writing, whether you resign or the company ends the employment.",  # (both sides)
    "How many vacation days do I have left?",
    "Can I take leave during a shutdown?",
])
def test_a_text_of_no_one_side_has_none(text):
    assert side_of(text) == ""


def _passage() -> Passage:
    texts = ["If you resign, your notice period is one month, regardless of your length of service.",
             "Length of employment: less than 5 years; Notice period for the employer: 1 month",
             "Length of employment: 5 to less than 10 years; Notice period for the employer: 2 months",
             "Notice is given in writing and ends on the last day of a calendar month."]
    return Passage(1, "h.md", "Notice periods", "", [Unit(f"1{chr(97 + i)}", t, 1) for i, t in enumerate(texts)])


def test_the_other_side_s_rule_is_left_out_and_a_rule_of_no_side_stays():
    units = _passage().units
    assert other_side(units, "If the company let me go, how much notice would they have to give me?") == {"1a"}
    assert other_side(units, "How much notice do I give if I resign?") == {"1b", "1c"}
    assert other_side(units, "What is the notice period?") == set()


def test_without_a_rule_of_the_asked_side_nothing_is_left_out():
    units = [Unit("1a", "If you resign, your notice period is one month.", 1)]
    assert other_side(units, "If they fire me, how much notice do I get?") == set()


def test_a_row_that_applies_by_service_is_kept_and_the_resignation_rule_is_not_marked():
    from engine.agent.applies import Figure

    applies, ruled_out = marks([_passage()], "If the company let me go, how much notice would I get?",
                               Figure(7.0, "years", "7 full years of service"))
    assert "1a" in ruled_out and "1a" not in applies
    assert "1c" in applies
