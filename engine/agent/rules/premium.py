"""The multiple of the hourly rate a kind of day's hours are paid at, asked for itself ("What percentage of my
hourly wage do I get for overtime on a Sunday?").

Where the offered sentences pay one multiple for the kind of day the question names (the Sunday row, not the
Saturday one), code says it in the handbook's own words ("150%", "double time"); rows that disagree, or a
question naming no kind of day where the rule pays several, are the model's.
"""

from __future__ import annotations

from engine.agent import caps
from engine.agent.rates import day_kinds, most_specific, multiple_for, rate_multiples
from engine.agent.rules.base import Reader, Settled, View, words_of
from engine.agent.rules.multiple import GENERIC_PAY_WORDS


class PremiumRateReader(Reader):
    name = "premium"
    order = 31
    kinds = ("policy", "policy_me", "policy_calc")

    def read(self, view: View) -> Settled | None:
        q = view.words
        if not q.has("asks.premium_rate", view.text) or view.figures(("hours",)):
            return None  # (hours to pay: the multiple reader's)
        days = day_kinds(view.text) - {"work"}
        if not days and not q.has("asks.overtime", view.text):
            return None
        asked = words_of(view.text) - GENERIC_PAY_WORDS

        def fitting(units) -> list:
            found = [(u, m) for u in units
                     if (days & day_kinds(u.text) or not days and words_of(u.text) & asked)
                     and caps.same_kind(view.text, u.text)
                     and (m := multiple_for(rate_multiples(u.text), view.text)) is not None]
            return most_specific(found, days) if days else found

        found = fitting(view.offered())
        if not found and days:  # (the asked day's row of a table whose other rows were offered)
            found = fitting(view.everything())
        if len({m.factor for _, m in found}) != 1:
            return None
        rule, multiple = found[0]
        written = multiple.written
        low = written.lower()
        of_rate = (q.answer("premium_of") if low.endswith(("%", "percent", "per cent"))
                   else q.answer("premium_times") if low.endswith(("times", "x")) else "")
        return Settled(self.name, rule, [], "", "premium", {"written": written, "of_rate": of_rate},
                       check=f"paid at {written} for the day asked")
