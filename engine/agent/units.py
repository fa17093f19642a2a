"""A plausibility check on a calculation line, by units, before its result is stated.

A small model that writes ``annual_salary / 260 * (years_of_service + 1/12) * vacation_days`` gets
a number the calculator works out faithfully and the answer then states ("you will receive
$39,900"). Code knows the unit of every declared figure (its column says per year, hours, days),
so it can tell that money times a length of time times a number of days is no amount of money, and
that a payout of more than ten years of the person's pay is no payout. Such a line is
refused with the reason, so the model writes it again; the policy's own constants (260, 1/12) carry
no unit and are never held against a line.

A unit is ``(money, time)`` exponents: any amount of pay is money ``(1, 0)`` (its period is what the
policy's constants convert), a balance in days or hours or a length of service is time ``(0, 1)``,
a count or a share ``(0, 0)``; ``None`` is a figure of unknown unit, which nothing is checked
against. Money times money, or two lengths of time multiplied (service years times vacation days),
is no figure an HR question asks for.
"""

from __future__ import annotations

import ast
import re

from engine.agent.calc_slot import PLAIN_NUMBER, Variable
from engine.agent.rules.words import in_any_language

Unit = tuple[int, int] | None

_PAY_NAMES = {"annual_salary", "monthly_salary", "hourly_rate", "weekly_pay", "daily_wage", "monthly_pay", "annual_pay",
              "daily_rate", "overtime_rate", "per_day", "per_hour", "rate"}
#: Money without doubt (pay words, currencies) ...
_MONEY = re.compile(r"salar|\bpay\b(?!\s*period)|\bwages?\b"
                    r"|\b(usd|gbp|eur|php|inr|cad|aud|chf|sek|nok|dkk|nzd|pln|mxn|ars|brl|zł)\b|[$£€]"
                    r"|dollar|pound|euro|compensation", re.I)
#: ... time without doubt (a unit of time, or leave that is counted in it) ...
_TIME = re.compile(r"\b(hours?|hrs|days?|weeks?|months?|years?)\b|_(hours?|hrs|days?|weeks?|months?|years?)\b|service"
                   r"|\b(leave|holiday|vacation|pto|sick|accru\w*)\b|_(leave|holiday|vacation|pto|sick|accru\w*)", re.I)
#: ... and words that are money only where no unit of time is named ("rate", "bonus", "allowance").
_MONEYISH = re.compile(r"\b(rate|bonus|stipend|allowance|budget|earnings?)\b|_(rate|bonus|stipend|allowance|budget)\b",
                       re.I)
_PER_PERIOD = re.compile(r"\b(per|a|each|every)\s+(week|day|month|year|pay period)\b|/\s*(week|wk|day|month|year)\b"
                         r"|\b(weekly|daily|monthly|annual|yearly)\b|_(weekly|daily|monthly|annual|yearly)|"
                         r"(weekly|daily|monthly|annual|yearly)_", re.I)
#: How many years of a person's pay a figure about them may come to before it is no longer plausible.
PAY_YEARS = 10


def unit_of(variable: Variable) -> Unit:
    """The unit of a declared figure, from its name and note; None where neither says."""
    text = f"{variable.name.replace('_', ' ')} {variable.note}"
    if variable.note.startswith(PLAIN_NUMBER):
        return (0, 0)  # a multiple code read ("the rate plus 17.5%"): its words name a rate, it is none
    if variable.name in _PAY_NAMES or _MONEY.search(text):
        # Money, whatever its period: a salary divided by 2080 hours is a rate, a daily rate times days an
        # amount, and the policy's constants (260, 12) that turn one into the other carry no unit.
        return (1, 0)
    if _TIME.search(text):
        # Hours *per week* (a schedule) is a length of time per length of time: a plain number, so a
        # pro-rata accrual (120 hours * scheduled_hours_per_week / 40) is not refused as hours squared.
        return (0, 0) if _PER_PERIOD.search(text) else (0, 1)
    if _MONEYISH.search(text):
        return (1, 0)
    if re.search(r"\bfte\b|percent|share|count|number of", text, re.I):
        return (0, 0)
    return None


class _Mismatch(Exception):
    pass


def _unit(node: ast.AST, units: dict[str, Unit]) -> Unit:
    if isinstance(node, ast.Expression):
        return _unit(node.body, units)
    if isinstance(node, ast.Constant):
        return (0, 0)
    if isinstance(node, ast.Name):
        return units.get(node.id)
    if isinstance(node, ast.UnaryOp):
        return _unit(node.operand, units)
    if isinstance(node, ast.Call):  # round, min, max, abs: the unit of their figures
        args = [_unit(a, units) for a in node.args[:1] if not isinstance(a, ast.Constant)] or [None]
        known = [_unit(a, units) for a in node.args if not isinstance(a, ast.Constant)]
        known = [u for u in known if u is not None]
        return known[0] if known else args[0]
    if isinstance(node, ast.BinOp):
        left, right = _unit(node.left, units), _unit(node.right, units)
        if isinstance(node.op, (ast.Add, ast.Sub)):
            # A constant added (years + 1/12, hours + 40 * 2) takes the other side's unit.
            if _constants_only(node.left) or left is None:
                return right
            if _constants_only(node.right) or right is None:
                return left
            if left[0] != right[0]:  # money and days; a salary and a bonus may differ in time, not in money
                raise _Mismatch("adds money to what is not money")
            return left
        if left is None or right is None:
            return None
        if isinstance(node.op, ast.Mult):
            return (left[0] + right[0], left[1] + right[1])
        if isinstance(node.op, ast.Div):
            return (left[0] - right[0], left[1] - right[1])
        return None
    return None


def _constants_only(node: ast.AST) -> bool:
    """Whether an expression has no name in it (the policy's figures only: they carry no unit)."""
    return not any(isinstance(n, ast.Name) for n in ast.walk(node))


def line_problem(code: str, units: dict[str, Unit], value: float, ceiling: float | None = None) -> tuple[str, Unit]:
    """Why a worked-out line is no plausible figure ("" if it is), and the unit of its result.

    ``code`` is the line as written (``answer = daily_rate * asked_days``), ``units`` the unit of
    each name it may use, ``value`` its result; ``ceiling`` is the most money a figure about this
    person can be (some years of their pay), where their pay is known."""
    written = code.partition(" = ")[2]
    try:
        tree = ast.parse(written.strip(), mode="eval")
        unit = _unit(tree, units)
    except _Mismatch as exc:
        return f"it {exc}", None
    except SyntaxError:
        return "", None
    if unit is not None:
        money, time = unit
        if money not in (0, 1) or abs(time) > 1:
            return "its units do not fit (" + _describe(unit) + ")", unit
    money = unit is not None and unit[0] == 1 or unit is None and any(
        (u := units.get(n.id)) is not None and u[0] == 1 for n in ast.walk(tree) if isinstance(n, ast.Name))
    if ceiling and money and abs(value) > ceiling:
        return f"{value:,.2f} is more than {PAY_YEARS} years of the person's pay", unit
    return "", unit


#: "How much would I get / be paid / is it worth": money (not "how much leave", "how much time").
_ASKS_MONEY = re.compile(r"\bhow much\b(?!\s+(leave|holiday|vacation|pto|sick|time|notice|overtime|of (my|the) "
                         r"(leave|holiday|vacation|pto|time)))(?=.*\b(get|earn|receive|paid|pay|payout|worth|owed|"
                         r"cost|make|bonus|salary|allowance|stipend)\b)|[$£€]", re.I)
#: "How many days / hours …": a length of time.
_ASKS_TIME = re.compile(r"\bhow many\s+(\w+\s+){0,2}?(days?|hours?|hrs|weeks?|months?)\b", re.I)


#: A rule that pays at the person's own rate ("paid at the employee's base hourly rate", "1/260 of your annual
#: salary"): its amount of money is worked out from their pay.
RATE_BASED = re.compile(r"\b(salary|salaries|hourly rate|base rate|pay rate|daily rate|base pay|regular rate|wages?)\b",
                        re.I)


def answer_problem(question: str, unit: Unit, rate_based: bool = False) -> str:
    """Why a calculation's answer, of ``unit``, cannot answer ``question`` ("" where it can, or either is
    unknown): a question asking how much someone would get wants money, not days or hours (a payout worked
    out as "40 * 2 + 160 * years_of_service"), and one asking how many days or hours wants no money.
    ``rate_based``: the rule pays at the person's own rate and their pay is a figure of the calculation, so
    an answer that is no money ("40 * 2 + 160 * 12") leaves their pay out."""
    if unit is None:
        return ""
    money, time = unit
    leave = bool(in_any_language("asks.leave_amount").search(question))  # ("how much paid leave …?": days)
    asks_money = bool(_ASKS_MONEY.search(question)) and not leave
    asks_time = bool(_ASKS_TIME.search(question)) and not re.search(r"\bhow much\b", question, re.I) or leave
    if asks_money and not asks_time and rate_based and money == 0:
        return "the policy pays it at your own rate, and your pay is not in it"
    if asks_money and not asks_time and money == 0 and time != 0:
        return "the question asks for an amount of money, and this is a length of time"
    if asks_time and not asks_money and money != 0:
        return "the question asks for a length of time, and this is an amount of money"
    return ""


#: How many of each pay figure a year holds.
_PER_YEAR = {"annual_salary": 1, "monthly_salary": 12, "weekly_pay": 52}


def pay_ceiling(variables: list[Variable]) -> float | None:
    """The most money a calculation about one person can come to: :data:`PAY_YEARS` years of their pay."""
    per_year = {**_PER_YEAR, "hourly_rate": 2080}
    for v in variables:
        if v.name in per_year and v.value > 0:
            return PAY_YEARS * v.value * per_year[v.name]
    return None


#: The hours or days in a year a rate per hour or per day may stand for: a part-timer's few hundred hours to
#: more than anyone works; outside them, the pay was divided by some other figure ("/ 16", the 16:30 of a
#: working day, made an hourly rate of 195 out of a monthly salary of 3,120).
_RATE_SPANS = {"hourly_rate": (300, 4000), "per_hour": (300, 4000), "daily_rate": (40, 400), "per_day": (40, 400)}


def rate_problem(name: str, value: float | None, variables: list[Variable]) -> str:
    """Why a line that names a rate per hour or per day of the person's pay is no such rate ("" if it may be):
    their yearly pay over it is no plausible number of hours or days in a year."""
    span = _RATE_SPANS.get(name)
    pay = next((v.value * _PER_YEAR[v.name] for v in variables if v.name in _PER_YEAR and v.value > 0), None)
    if span is None or pay is None or not value or value <= 0:
        return ""
    count = pay / value
    if span[0] <= count <= span[1]:
        return ""
    unit = "hours" if span[1] > 1000 else "days"
    return f"a year's pay of {pay:,.2f} would be {count:,.0f} {unit} of it, not a rate per {unit[:-1]}"


def _describe(unit: tuple[int, int]) -> str:
    money, time = unit
    parts = []
    if money:
        parts.append("money" + (f"^{money}" if money != 1 else ""))
    if time:
        parts.append(("times " if money else "") + "time" + (f"^{time}" if time != 1 else ""))
    return " ".join(parts) or "a plain number"


_NAME_RE = re.compile(r"\b(?!(?:round|abs|min|max|sqrt)\b)[a-z_][a-z0-9_]*\b")


def culprits(lines: list[str], failed: int, units: dict[str, Unit], asked: set[str]) -> list[str]:
    """The declared figures to leave out when a calculation is written again, after line ``failed``
    of ``lines`` was refused for its units or its size.

    A small model that is told only "write it again" writes the same lines (greedy decoding, nearly
    the same prompt). What made the line impossible is nearly always a length of time the question
    never asked about (years of service multiplied into a payout): those figures, the ones the line
    rests on through the earlier lines it names, are taken out of the next attempt's grammar.
    ``asked`` holds what the question names: the figures it gave (``asked_*``, earlier answers) and
    its distinctive words, matched against each figure's name."""
    from engine.agent.slots import distinctive_words

    rests_on: dict[str, set[str]] = {}
    for line in lines[:failed + 1]:
        name, _, written = line.partition(" = ")
        used: set[str] = set()
        for word in _NAME_RE.findall(written):
            used |= rests_on.get(word, {word})
        rests_on[name.strip()] = used
    failed_name = lines[failed].partition(" = ")[0].strip()
    out = []
    for name in sorted(rests_on.get(failed_name, set())):
        unit = units.get(name)
        if unit is None or unit[1] == 0 or name.startswith(("asked_", "part")):
            continue  # not a length of time, or the question's own figure
        if distinctive_words(name) & asked:
            continue
        out.append(name)
    return out
