"""The unit check on a calculation line: money times days times years is no payout."""

import pytest

from engine.agent.calc_slot import Variable
from engine.agent.units import culprits, line_problem, pay_ceiling, rate_problem, unit_of

SALARY = Variable("annual_salary", 84000, "annual_salary_usd, per year")
DAYS = Variable("vacation_days_remaining", 15, "vacation_days_remaining, days")
YEARS = Variable("years_of_service", 8.15, "8 full years and 1 month of service")
HOURS = Variable("pto_balance_hrs", 110, "PTO Balance (hrs), hours")
ASKED = Variable("asked_number", 40, "from the question")
BONUS = Variable("bonus_usd", 5000, "Bonus (USD)")
UNITS = {v.name: unit_of(v) for v in (SALARY, DAYS, YEARS, HOURS, ASKED, BONUS)}


def test_units_come_from_the_names_and_notes():
    assert UNITS["annual_salary"] == (1, 0)
    assert UNITS["vacation_days_remaining"] == (0, 1)
    assert UNITS["years_of_service"] == (0, 1)
    assert UNITS["pto_balance_hrs"] == (0, 1)
    assert UNITS["asked_number"] is None  # a bare figure of the question: nothing is held against it
    assert UNITS["bonus_usd"] == (1, 0)
    assert unit_of(Variable("fte", 0.6, "FTE")) == (0, 0)
    assert unit_of(Variable("hourly_rate", 41.25, "Pay Rate, per hour")) == (1, 0)
    # A multiple code read from the policy is a plain number, though its words name the rate it multiplies.
    loading = Variable("multiple", 1.175, "a plain number: the rate plus 17.5%, from the policy")
    assert unit_of(loading) == (0, 0)
    units = {"hourly_rate": (1, 0), "multiple": unit_of(loading), "asked_hours": (0, 1)}
    assert line_problem("answer = hourly_rate * multiple * asked_hours", units, 902.4)[0] == ""


def test_a_daily_rate_times_days_is_money():
    problem, unit = line_problem("daily_rate = annual_salary / 260", UNITS, 323.08)
    assert problem == "" and unit == (1, 0)
    units = {**UNITS, "daily_rate": unit}
    problem, unit = line_problem("answer = daily_rate * min(10, vacation_days_remaining)", units, 3230.77)
    assert problem == "" and unit == (1, 1)
    # A salary over the hours of a year is a rate (the question's 2080 hours), and times hours an amount.
    hours = {**UNITS, "asked_hours": (0, 1)}
    assert line_problem("hourly_rate = annual_salary / asked_hours", hours, 40.38) == ("", (1, -1))
    hours["hourly_rate"] = (1, -1)
    assert line_problem("answer = hourly_rate * pto_balance_hrs * 1.5", hours, 6663.46) == ("", (1, 0))


def test_a_schedule_per_week_is_a_plain_number_so_pro_rata_passes():
    schedule = Variable("scheduled_hours_week", 20, "Scheduled Hours/Week, hours per week")
    assert unit_of(schedule) == (0, 0)
    units = {**UNITS, "scheduled_hours_week": (0, 0), "pto_hours": (0, 1)}
    assert line_problem("answer = pto_hours * scheduled_hours_week / 40", units, 60) == ("", (0, 1))


@pytest.mark.parametrize("name, note, unit", [
    ("holiday_allowance", "Holiday Allowance (days)", (0, 1)),
    ("days_earned", "from the record", (0, 1)),
    ("accrual_rate", "days per month", (0, 0)),
    ("hours_per_pay_period", "hours", (0, 0)),
    ("daily_hours", "hours", (0, 0)),
    ("bonus_usd", "Bonus (USD)", (1, 0)),
    ("stipend", "Wellness stipend", (1, 0)),
])
def test_leave_words_and_periods_are_not_money(name, note, unit):
    assert unit_of(Variable(name, 1, note)) == unit


def test_money_times_two_lengths_of_time_is_refused():
    problem, _ = line_problem("answer = annual_salary / 260 * (years_of_service + 1/12) * vacation_days_remaining",
                              UNITS, 39900)
    assert "units do not fit" in problem
    assert "units do not fit" in line_problem("answer = annual_salary * annual_salary", UNITS, 7.056e9)[0]


def test_money_added_to_days_is_refused_but_salary_plus_bonus_is_not():
    assert "not money" in line_problem("answer = annual_salary + vacation_days_remaining", UNITS, 84015)[0]
    assert line_problem("answer = annual_salary + bonus_usd", UNITS, 89000)[0] == ""
    # A bare constant added to a length of time keeps its unit (years and a month).
    assert line_problem("answer = years_of_service + 1/12", UNITS, 8.23) == ("", (0, 1))


def test_a_payout_above_ten_years_of_pay_is_refused():
    ceiling = pay_ceiling([HOURS, Variable("annual_salary", 92000, "Pay Rate, per year")])
    assert ceiling == 920000
    problem, _ = line_problem("answer = hourly_rate * asked_number", {**UNITS, "hourly_rate": (1, 0)},
                              10733333.33, ceiling)
    assert "more than 10 years of the person's pay" in problem
    # Five years of salary is large, but a figure someone may ask for.
    assert line_problem("answer = annual_salary * 5", UNITS, 460000, ceiling)[0] == ""
    # An hourly rate times many hours is a product of two large figures, and plausible.
    hourly = [Variable("hourly_rate", 45, "Pay Rate, per hour")]
    assert pay_ceiling(hourly) == 45 * 2080 * 10
    assert line_problem("answer = hourly_rate * asked_number", {"hourly_rate": (1, 0)}, 7200,
                        pay_ceiling(hourly))[0] == ""
    # A number of days is no money: the ceiling is not held against it.
    assert line_problem("answer = vacation_days_remaining * 100000", UNITS, 1.5e6, ceiling)[0] == ""
    # Without pay in the record there is no ceiling.
    assert pay_ceiling([DAYS, ASKED]) is None


def test_unknown_units_are_not_held_against_a_line():
    assert line_problem("answer = asked_number * 3", UNITS, 120) == ("", None)
    assert line_problem("answer = part1_answer + data_value", UNITS, 5) == ("", None)


@pytest.mark.parametrize("lines, failed, asked, left_out", [
    # Years of service multiplied into a payout, through an intermediate line: the years go.
    (["hourly_rate = annual_salary / 2080 * (years_of_service - 5)", "answer = hourly_rate * asked_number"], 1,
     {"cash", "pto"}, ["years_of_service"]),
    # A balance the question names stays; the one it does not name goes; pay is never blamed.
    (["answer = annual_salary / 260 * vacation_days_remaining * pto_balance_hrs"], 0, {"vacation"},
     ["pto_balance_hrs"]),
    # The question's own figures and earlier answers are never left out.
    (["answer = asked_hours * asked_days"], 0, set(), []),
    # Only what the failed line rests on: an earlier line it does not use is not blamed.
    (["days = vacation_days_remaining", "answer = annual_salary * years_of_service * years_of_service"], 1,
     set(), ["years_of_service"]),
    # The years a question asks about ("per year of service") stay.
    (["answer = annual_salary * years_of_service * pto_balance_hrs"], 0, {"service"}, ["pto_balance_hrs"]),
])
def test_a_refused_line_names_the_figures_to_leave_out(lines, failed, asked, left_out):
    units = {**UNITS, "asked_hours": (0, 1), "asked_days": (0, 1)}
    assert culprits(lines, failed, units, asked) == left_out


@pytest.mark.parametrize("question, unit, refused", [
    ("If I cash out 40 hours of PTO, how much would I get?", (0, 1), True),  # "40 * 2 + 160 * years" is hours
    ("If I cash out 40 hours of PTO, how much would I get?", (1, 0), False),
    ("How much would 10 days pay?", (0, 1), True),
    ("How many PTO hours do I accrue per year?", (1, 0), True),
    ("How many PTO hours do I accrue per year?", (0, 1), False),
    ("How much leave do I get?", (0, 1), False),  # leave, not money
    # "paid leave" is leave: 19800 EUR x 3.62 years was once stated as "71676 days of paid leave"
    ("I'm getting married next spring. How much paid leave does the company give for the wedding?", (1, 1), True),
    ("I'm getting married next spring. How much paid leave does the company give for the wedding?", (0, 1), False),
    ("¿Cuántos días de permiso me dan por mi boda?", (1, 0), True),
    ("If I cash out 5 days of leave, how much would I get paid?", (1, 1), False),  # money for leave: money
    ("How many days can I sell, and for how much?", (1, 0), False),  # asks both: not held against either
    ("What is 3 plus 4?", (0, 1), False),
    ("How much would I get?", None, False),  # an answer of unknown unit is never refused
])
def test_a_calculated_answer_must_be_the_kind_of_figure_the_question_asks_for(question, unit, refused):
    from engine.agent.units import answer_problem

    assert bool(answer_problem(question, unit)) == refused


def test_figures_of_the_policy_added_to_a_length_of_time_leave_it_a_length_of_time():
    # "40 * 2 + 160 * years_of_service" is hours, not a plain number: a payout question refuses it.
    from engine.agent.units import answer_problem

    problem, unit = line_problem("answer = 40 * 2 + 160 * years_of_service", {"years_of_service": (0, 1)}, 2009.6)
    assert problem == "" and unit == (0, 1)
    assert answer_problem("If I cash out 40 hours of PTO, how much would I get?", unit)


def test_a_payout_at_the_person_s_rate_must_have_their_pay_in_it():
    from engine.agent.units import answer_problem

    question = "If I cash out 40 hours of PTO, how much would I get?"
    assert answer_problem(question, (0, 0), rate_based=True)  # "40 * 2 + 160 * 12": the policy's figures only
    assert not answer_problem(question, (1, 0), rate_based=True)
    assert not answer_problem("How much is the wellness stipend a year?", (0, 0), rate_based=False)  # policy money


@pytest.mark.parametrize("name, value, pay, refused", [
    ("hourly_rate", 195.0, Variable("monthly_salary", 3120, "Bruto maandsalaris, per month"), True),  # 3120 / 16
    ("hourly_rate", 511.89, Variable("monthly_salary", 2426.72, "per month"), True),  # / 24 * 1.5 ** 4
    ("hourly_rate", 18.0, Variable("monthly_salary", 3120, "per month"), False),  # 3120 * 3 / (13 * 40)
    ("hourly_rate", 16.0, Variable("monthly_salary", 2426.72, "per month"), False),  # / 151.67
    ("hourly_rate", 40.38, SALARY, False),  # 84000 / 2080
    ("hourly_rate", 84000.0, SALARY, True),  # the salary itself
    ("daily_rate", 323.08, SALARY, False),  # 84000 / 260
    ("daily_rate", 7000.0, SALARY, True),  # a month's pay
    ("hourly_rate", 5.0, SALARY, True),  # 16,800 hours a year
    ("overtime_rate", 90000.0, SALARY, False),  # (no rate per hour or day by name: other checks)
    ("hourly_rate", 195.0, DAYS, False),  # (no yearly pay to compare with)
])
def test_a_rate_per_hour_or_day_must_be_a_plausible_share_of_a_year_s_pay(name, value, pay, refused):
    assert bool(rate_problem(name, value, [pay, DAYS])) is refused
