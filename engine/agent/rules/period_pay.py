"""An amount that is the person's pay for a number of periods ("a long-service payment of one week's pay",
"a bonus of one month's salary", "two weeks' wages").

Asked how much of something the person gets, where one offered sentence about what the question names sets it
at their pay for a number of weeks or months: that many times their pay for the period, by code (a week's pay
of a salaried person is a 52nd of the year's unless the handbook makes it otherwise). A rule for some people
only gives way unless it is a length of service and the question or the record says which one applies; pay for
each year of service, a cap, a share of something else, or several amounts, are the model's.
"""

from __future__ import annotations

import re

from engine.agent.calc_slot import PLAIN_NUMBER, Variable
from engine.agent.rules.base import Reader, Settled, View, count_text, plain, words_of
from engine.agent.rules.multiple import GENERIC_PAY_WORDS, asks_pay
from engine.agent.rules.words import to_english

#: "1 week's pay", "two weeks' wages", "a month's basic salary", "20 days' pay".
_PERIODS = re.compile(r"(?<![\w.])(\d{1,2}(?:\.5)?|an?|one|two|three|four|six|half a)\s+(day|week|month)(?:'s|s'|’s|s’|s)?\s+"
                      r"(?:of\s+(?:your\s+|the\s+)?)?(?:(?:gross|basic|base|ordinary|normal|full|regular|usual)\s+){0,2}"
                      r"(?:pay|salary|wages?|earnings)\b", re.I)
_NUMBER = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "six": 6, "half a": 0.5}
_PER_YEAR = {"year": 1, "month": 12, "week": 52}
#: The periods a person's pay may be kept at (a day's pay is made from another period only by the handbook's rule).
_KEPT = (*_PER_YEAR, "day")
#: A rule for some people only, or a sum that grows with service or is capped: the model's reading.
_CONDITION = re.compile(r"\b(?:if|unless|provided|only|eligible|who have|probation|subject to|depending on|up to|at most|"
                        r"maximum|minimum|at least|more than|less than|for each|for every|per year|per complete|"
                        r"each (?:full |complete )?year)\b", re.I)
#: A length of service the rule is for ("On reaching five years' continuous service", "after 10 years").
_SERVICE = re.compile(r"\b(\d{1,2})\s+years?(?:'|’)?\s+(?:of\s+)?(?:continuous\s+|unbroken\s+)?service\b", re.I)
_YEARS_ASKED = re.compile(r"\b(\d{1,2})\s+years?\b", re.I)
#: Where one sentence states several amounts, each its own rule ("…, and on completing 20 years' service …").
_CLAUSES = re.compile(r",\s+and\s+|;\s+|\.\s+")
_ASKS_WHAT = re.compile(r"^\s*(?:what(?:'s| is| will| would| does)?|how (?:big|large|high|much))\b", re.I)


def periods_of_pay(text: str) -> list[tuple[float, str]]:
    """(how many, "week" or "month") for each amount of pay for periods ``text`` states."""
    return [(float(_NUMBER.get(m.group(1).lower(), 0) or m.group(1)), m.group(2).lower()) for m in _PERIODS.finditer(text)]


def _service_fits(rule: str, view: View) -> bool | None:
    """Whether the rule's length of service is the one the question states or the record has (None: it names none)."""
    needed = [int(n) for n in _SERVICE.findall(rule)]
    if not needed:
        return None
    stated = [int(n) for n in _YEARS_ASKED.findall(view.text)]
    if stated:
        return needed[0] in stated
    return view.service_years is not None and int(view.service_years) == needed[0]


class PeriodPay(Reader):
    name = "period_pay"
    order = 56
    kinds = ("policy_calc", "policy_me")

    def read(self, view: View) -> Settled | None:
        if not (asks_pay(view) or view.words.has("asks.how_much", view.text) or _ASKS_WHAT.search(view.text)) \
                or view.prorated or view.pay is None or view.pay_period not in (*_KEPT, "hour"):
            return None
        if view.figures(("hours", "days", "weeks", "months")):  # ("for 3 weeks"): a quantity asked, another reader's
            return None
        asked = words_of(view.text) - GENERIC_PAY_WORDS - {"year", "years", "service", "week", "month"}
        found = []
        for unit in view.offered():
            english = to_english(unit.text)
            if not (words_of(unit.text) | words_of(english)) & asked or \
                    _CONDITION.search(_SERVICE.sub(" ", _CLAUSES.sub(" ", english))) and len(periods_of_pay(english)) > 1:
                continue  # (a condition anywhere in a sentence of several amounts holds for each of them)
            # (each clause its own amount: "at 10 years' service … a week's pay, and on completing 20 years' service
            # … two weeks' pay" is two rules, of which the person's service picks one)
            for clause in _CLAUSES.split(english) if len(periods_of_pay(english)) > 1 else [english]:
                amounts = periods_of_pay(clause)
                fits = _service_fits(clause, view)
                if len(amounts) != 1 or fits is False or _CONDITION.search(_SERVICE.sub(" ", clause)):
                    continue
                if clause is not english and fits is None:
                    continue  # (of several amounts, one that names no service: which applies is the model's)
                found.append((unit, amounts[0]))
        if len({a for _, a in found}) != 1:
            return None  # none, or several (by service, by kind of pay): the model reads which
        rule, (count, period) = found[0]
        pay = view.pay
        made = [(v, per) for v, _, per in view.rates() if per == period and v is not pay]
        hourly_week = view.pay_period == "hour" and period == "week" and bool(view.weekly_hours)
        if view.pay_period == period:
            base_var, factor = pay, 1.0
        elif made:
            base_var, factor = made[0][0], 1.0  # (the handbook's own week's pay: "1/52nd of annual salary")
            hourly_week = False
        elif hourly_week:
            # (a week's pay of someone paid by the hour: their rate times their contracted weekly hours)
            base_var = Variable("weekly_pay", round(pay.value * (view.weekly_hours or 0), 4), "")
            factor = 1.0
        elif period not in _PER_YEAR or view.pay_period not in _PER_YEAR:
            return None  # (a day's pay from a month's, or a week's from a day's: by a rule the handbook did not give)
        else:
            base_var, factor = pay, _PER_YEAR[view.pay_period] / _PER_YEAR[period]
        n = Variable("periods", count, f"{PLAIN_NUMBER}: how many {period}s, from the policy")
        code = f"answer = {base_var.name} * {plain(factor)} * {n.name}\n" if factor != 1 else \
            f"answer = {base_var.name} * {n.name}\n"
        base = plain(round(base_var.value * factor, 2))
        variables = [pay, n] if base_var is pay else [pay, base_var, n]
        if hourly_week:
            hours = Variable("weekly_hours", float(view.weekly_hours or 0), f"{PLAIN_NUMBER}: your contracted hours a week")
            code = f"weekly_pay = {pay.name} * weekly_hours\n" + code
            variables = [pay, hours, n]
        return Settled(self.name, rule, variables, code, "period_pay",
                       {"count": count_text(view, count, f"{period}s"), "base": base},
                       also=view.defining([base_var.name]) if base_var is not pay and not hourly_week else [],
                       check=f"{plain(count)} × a {period}'s pay ({base})")
