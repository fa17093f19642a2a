"""An amount that is a percentage of the person's pay ("Holiday allowance is 8% of your gross annual salary",
"a bonus of 10 % of the monthly base salary").

Asked how much of something the person gets, where one offered sentence about what the question names sets it
at one percentage of their pay for a period it names (a year's, a month's): that share of their pay for that
period, by code. A percentage of something else (of the hours, of the rate for overtime, "paid at 150%") is no
share of pay; a rule with a condition the question does not state, or several percentages, is the model's.
"""

from __future__ import annotations

import re

from engine.agent.calc_slot import Variable
from engine.agent.rules.base import Reader, Settled, View, plain, words_of
from engine.agent.rules.multiple import GENERIC_PAY_WORDS, asks_pay
from engine.agent.rules.words import to_english

#: "8% of your gross annual salary", "10 percent of the monthly base pay", "8% of the annual gross salary".
_SHARE = re.compile(r"(?<![\d.])(\d{1,3}(?:\.\d{1,2})?)\s*(?:%|percent|per cent)\s+of\s+(?:the\s+|your\s+|their\s+|an?\s+"
                    r"|his\s+|her\s+|the\s+employee'?s\s+)?(?:(?:gross|base|basic|fixed|contractual|regular)\s+){0,2}"
                    r"(annual|yearly|monthly|month'?s|year'?s)\s+(?:(?:gross|base|basic|fixed|contractual|regular)\s+){0,2}"
                    r"(?:salary|pay|wages?|earnings|income)\b", re.I)
_PERIOD = {"annual": "year", "yearly": "year", "year's": "year", "years": "year", "monthly": "month",
           "month's": "month", "months": "month"}
_PER_YEAR = {"year": 1, "month": 12, "week": 52}
#: A rule for some people only ("after 5 years of service", "if the company's targets are met"): whether the
#: person is one of them is the model's reading, not a share code may state.
_CONDITION = re.compile(r"\b(?:if|unless|provided|only|after|once|eligible|who have|years? of service|probation|subject to|"
                        r"depending on|up to|at most|maximum|minimum|at least|more than|less than)\b", re.I)
#: "What is my holiday allowance?", "How big is my bonus?": an amount asked without the words of pay.
_ASKS_WHAT = re.compile(r"^\s*(?:what(?:'s| is| will| would| does)?|how (?:big|large|high|much))\b", re.I)


def shares_of_pay(text: str) -> list[tuple[float, str]]:
    """(percent, "year" or "month") for each share of pay ``text`` states."""
    return [(float(m.group(1)), _PERIOD[m.group(2).lower().replace("’", "'")]) for m in _SHARE.finditer(text)]


class ShareOfPay(Reader):
    name = "share"
    order = 55
    kinds = ("policy_calc", "policy_me")  # ("How much holiday allowance do I get?" is the policy applied to me)

    def read(self, view: View) -> Settled | None:
        if not (asks_pay(view) or view.words.has("asks.how_much", view.text) or _ASKS_WHAT.search(view.text)) \
                or view.prorated or view.pay is None \
                or view.pay_period not in _PER_YEAR:
            return None
        if view.figures():  # ("for 10 hours", "5 days"): an amount for a quantity, another reader's
            return None
        w = view.rule_words
        asked = words_of(view.text) - GENERIC_PAY_WORDS
        # (a handbook of another language read in English words; its own words still name what it is about)
        found = [(u, s) for u in view.offered() for english in [to_english(u.text)] for s in shares_of_pay(english)
                 if (words_of(u.text) | words_of(english)) & asked and not w.has("pay_addition", english)
                 and not _CONDITION.search(english)
                 and (not w.has("pay_condition", english) or w.has("pay_condition", view.text))]
        if len({s for _, s in found}) != 1:
            return None  # none, or several (tiers by service, a part-timer's): the model reads which
        rule, (percent, period) = found[0]
        factor = _PER_YEAR[view.pay_period] / _PER_YEAR[period]
        pay = view.pay
        share = Variable("share_percent", percent, "percent, from the policy")
        code = f"answer = {pay.name} * {plain(factor)} * {share.name} / 100\n" if factor != 1 else \
            f"answer = {pay.name} * {share.name} / 100\n"
        base = plain(round(pay.value * factor, 2))
        return Settled(self.name, rule, [pay, share], code, f"share_{period}",
                       {"percent": plain(percent), "base": base},
                       check=f"{plain(percent)}% of a {period}'s pay ({base})")
