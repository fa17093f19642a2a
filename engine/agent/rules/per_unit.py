"""A number of units at the policy's amount per unit ("a meal allowance of $55 per day", "55 USD daily").

Asked what a number of hours, days, weeks or months it states would pay, where one offered sentence
about what the question names states one amount per that unit: the amount times the number. An
addition to pay (a shift differential) does not answer what a shift pays, and a rule for another kind
of day (nights) does not answer for the day asked (a holiday).
"""

from __future__ import annotations

from engine.agent import caps
from engine.agent.calc_slot import Variable, shown_value
from engine.agent.rates import day_kinds, per_unit_amounts
from engine.agent.rules.base import Reader, Settled, View, words_of
from engine.agent.rules.multiple import GENERIC_PAY_WORDS, asks_pay


def about_the_day(question: str, rule: str) -> bool:
    """Whether ``rule`` is about the kind of day ``question`` names (or either names none but working days)."""
    asked, said = day_kinds(question) - {"work"}, day_kinds(rule) - {"work"}
    return not asked or not said or bool(asked & said)


class PerUnitAmount(Reader):
    name = "per_unit"
    order = 50

    def read(self, view: View) -> Settled | None:
        if not asks_pay(view) or view.prorated:
            return None
        figures = view.figures()
        if len(figures) != 1:
            return None
        w = view.rule_words
        asked = words_of(view.text) - GENERIC_PAY_WORDS
        unit = figures[0].unit[:-1]
        # (only a sentence about what the question names: a meal allowance per day says nothing of a cash-out)
        found = [(u, p) for u in view.offered() for p in per_unit_amounts(u.text)
                 if p.unit == unit and words_of(u.text) & asked and caps.same_kind(view.text, u.text)
                 and about_the_day(view.asked, u.text)
                 and (not w.has("pay_addition", u.text) or w.has("pay_addition", view.text))
                 and (not w.has("pay_condition", u.text) or w.has("pay_condition", view.text))]
        if len({(p.amount, p.currency) for _, p in found}) > 1:
            # Rows of one table ("Interstate; Per diem: $125 per day", "Overseas; …"): the one whose own words,
            # those not every row has, the question names.
            common = set.intersection(*(words_of(u.text) for u, _ in found))
            own = [len((words_of(u.text) - common) & asked) for u, _ in found]
            found = [f for f, n in zip(found, own) if n and n == max(own)]
        if len({(p.amount, p.currency) for _, p in found}) != 1:
            return None  # none, or several (a part-timer's and a full-timer's): the model reads which
        rule, amount = found[0]
        asked_n = Variable(f"asked_{figures[0].unit}", figures[0].value, "from the question")
        # (the note names the money, so the unit check reads money per hour, not hours)
        per = Variable(f"amount_per_{unit}", amount.amount, f"{amount.currency} per {unit}, from the policy")
        cur = amount.currency if len(amount.currency) == 1 else f" {amount.currency}" if amount.currency else ""
        each = shown_value(amount.amount)
        each = f"{cur}{each}" if len(cur) == 1 else f"{each}{cur}"
        count = view.words.count(asked_n.value, figures[0].unit)
        return Settled(self.name, rule, [per, asked_n], f"answer = {per.name} * {asked_n.name}\n",
                       "per_unit_up_to" if amount.up_to else "per_unit",
                       {"each": view.words.answer("per_unit_each", amount=each, unit=unit, cite=rule.passage),
                        "count": count},
                       check=f"{count} at the policy's amount per {unit}",
                       money=("{}" + cur) if len(cur) != 1 else (cur + "{}"))
