"""When the asker's probation ends, by code (engine/agent/probation_end.py)."""

from __future__ import annotations

import datetime as dt

import pytest

from engine.agent.evidence import Unit, split_units
from engine.agent.probation_end import (Length, asks_from_when, asks_probation_end, day_from_start, example_offset,
                                        probation_end, probation_length_of)


def _units(*texts: str) -> list[Unit]:
    return [Unit(f"{n}{chr(97 + i)}", t, n) for n, text in enumerate(texts, start=1)
            for i, t in enumerate(split_units(text))]


@pytest.mark.parametrize("question", ["When is my trial period over?", "When does my probation end?",
                                      "What date does my introductory period end?", "Wann endet meine Probezeit?",
                                      "Quando termina o meu período experimental?", "Tot wanneer loopt mijn proeftijd?"])
def test_a_question_asking_when_my_probation_ends(question):
    assert asks_probation_end(question)


@pytest.mark.parametrize("question", ["Am I still on probation?", "How long is the probation period?",
                                      "When does probation end for new hires?", "When can I take my vacation?"])
def test_other_questions_are_not(question):
    assert not asks_probation_end(question)


@pytest.mark.parametrize("text, length", [
    ("Probation lasts six months from the date you joined.", Length(6, "month")),
    ("The first 90 calendar days of employment are your introductory period.", Length(90, "day")),
    ("New employees serve a 3-month probation period.", Length(3, "month")),
    ("Your trial period is 12 weeks.", Length(12, "week")),
    ("The probation period is 60 working days.", None),  # (working days: no calendar date from them)
    ("Employees on probation may not take leave.", None),
    ("Your probationary period ends on the 120th calendar day after your first day of work.", Length(120, "day")),
    ("The trial period finishes on the 60th day following the start of employment.", Length(60, "day")),
    # (an extension is not the period: "by up to 30 days" once answered as the whole introductory period)
    ("HR may extend the introductory period once, by up to 45 days, on the manager's written request.", None),
    ("The probation period can be prolonged by a further 3 months.", None),
    ("Probation lasts 3 months and may be extended once by up to 3 more months.", Length(3, "month")),
])
def test_the_length_a_sentence_states(text, length):
    assert probation_length_of(text) == length


def test_months_are_calendar_months_to_the_same_day_or_the_months_last():
    assert Length(6, "month").after(dt.date(2026, 8, 12)) == dt.date(2027, 2, 12)
    assert Length(1, "month").after(dt.date(2026, 1, 31)) == dt.date(2026, 2, 28)


def test_the_handbooks_own_example_decides_how_days_are_counted():
    days = "For example, if you were hired on March 1, your introductory period ends on May 29."
    assert example_offset(days, Length(90, "day")) == -1  # the hire date is day 1
    months = "For example, someone who joined on 3 March completes probation on 3 September."
    assert example_offset(months, Length(6, "month")) == 0
    assert example_offset("Nothing to see here.", Length(6, "month")) == 0


def test_the_end_is_worked_out_from_the_start_date_and_cites_the_rule():
    units = _units("The Company values its people.",
                   "The first 90 calendar days of employment are your introductory period. Day 1 is your hire date. "
                   "For example, if you were hired on March 1, your introductory period ends on May 29.")
    stated, unit, working = probation_end(units, dt.date(2026, 10, 12))
    assert "2027-01-09" in stated and "[2]" in stated
    assert working.startswith("2026-10-12 + 90 days - 1 day = 2027-01-09")
    assert unit.passage == 2
    assert "2027-01-09" in probation_end(units, dt.date(2026, 10, 12), "de")[0]
    assert probation_end(units, None) == ("", None, "")
    assert probation_end(_units("Employees on probation may not take leave."), dt.date(2026, 1, 1)) == ("", None, "")


@pytest.mark.parametrize("question, yes", [
    ("I started here recently. From what date can I use my PTO?", True),
    ("When can I start using my vacation days?", True),
    ("Ab wann darf ich meinen Urlaub nehmen?", True),
    ("À partir de quand puis-je poser mes congés ?", True),
    ("How many PTO hours do I have?", False),
    ("From what date can new hires use PTO?", False),  # (nobody's start date is asked about)
])
def test_a_question_asking_from_what_date_i_may(question, yes):
    assert asks_from_when(question) is yes


def test_a_day_counted_from_the_start_is_worked_out_for_the_rule_about_what_is_asked():
    units = _units("Everyone starts with an introductory period of 90 calendar days. Your hire date counts as day one.",
                   "You start earning PTO on your first day, but you can't use it until the introductory period is "
                   "over, that is, from your 91st calendar day on.",
                   "Health insurance starts from your 31st day of employment.")
    stated, unit, working = day_from_start(units, dt.date(2026, 10, 13), {"pto"})
    assert stated.startswith("From 2027-01-11: that is your day 91") and "[2]" in stated and unit.passage == 2
    assert working.startswith("2026-10-13 + 90 days = 2027-01-11")
    assert day_from_start(units, dt.date(2026, 10, 13), {"insurance"})[0].startswith("From 2026-11-12")
    assert day_from_start(units, dt.date(2026, 10, 13), {"pension"}) == ("", None, "")  # no rule about it
    assert day_from_start(units, None, {"pto"}) == ("", None, "")



def test_a_trial_counted_from_and_including_the_first_day_ends_a_day_earlier_as_its_example_shows():
    import datetime as _dt

    from engine.agent.evidence import Unit
    from engine.agent.probation_end import asks_probation_end, probation_end

    units = [Unit("1a", "New permanent employees start with a trial period of 90 calendar days, counted from and "
                        "including your first day of work.", 1),
             Unit("1b", "For example, someone starting on 1 March finishes their trial at the end of 29 May.", 1)]
    assert asks_probation_end("When does my 90 day trial finish?")
    answer, unit, working = probation_end(units, _dt.date(2027, 4, 6))
    assert "2027-07-04" in answer and unit.label == "1a" and "- 1 day" in working
