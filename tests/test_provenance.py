"""The working under an answer names where each figure comes from (engine.agent.provenance)."""

from engine.agent.calc_slot import Calculation, Variable
from engine.agent.provenance import working


def calc(code: str, text: str) -> Calculation:
    return Calculation(code, text=text)


def test_a_payout_s_working_names_the_rate_its_definition_and_the_days_asked():
    rate = Variable("daily_rate", 676.9231, "your daily rate as the policy defines it: 176000 / 260")
    days = Variable("asked_days", 5, "from the question")
    assert working([calc("answer = daily_rate * asked_days", "3384.62")], [rate, days]) == \
        "your daily rate of 676.92 (176000 / 260) × 5 days = 3384.62"


def test_a_chain_names_the_record_s_figures_and_uses_each_line_s_result():
    balance = Variable("annual_leave_bal_hrs", 112, "Annual Leave Bal (hrs), hours")
    lines = [calc("carried = min(annual_leave_bal_hrs, 60)", "60"), calc("answer = annual_leave_bal_hrs - carried", "52")]
    assert working(lines, [balance]) == ("carried = min(your Annual Leave Bal (hrs) of 112, 60) = 60; "
                                         "your Annual Leave Bal (hrs) of 112 - 60 = 52")


def test_figures_of_the_question_keep_their_unit_and_a_policy_multiple_is_a_plain_number():
    variables = [Variable("hourly_rate", 20, "Hourly Rate, USD per hour"), Variable("asked_hours", 8, "from the question"),
                 Variable("multiple", 1.5, "a plain number: 1.5 times, from the policy")]
    assert working([calc("answer = hourly_rate * multiple * asked_hours", "240")], variables) == \
        "your Hourly Rate of 20 × 1.5 × 8 hours = 240"
