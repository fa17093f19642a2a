"""The rate a handbook defines from pay, asked for itself ("What is my base hourly rate?").

"For salaried employees, the base hourly rate is the annual salary divided by 2,080 hours" (or
"Hourly rate = annual salary / 2,080", "divide the annual salary by 2,080"): code reads the definition
(:func:`engine.agent.rates.rate_definition`), checks it is about the person's kind of pay, and the
calculator applies it to their pay.
"""

from __future__ import annotations

from engine.agent.calc_slot import Variable
from engine.agent.rates import applies_to, rate_definitions
from engine.agent.rules.base import Reader, Settled, View, plain

class DefinedRate(Reader):
    name = "rate"
    order = 20

    def read(self, view: View) -> Settled | None:
        asks = view.words  # (the question's language, with English's phrases)
        if view.figures(("hours", "days", "weeks", "months", "years")) or view.pay is None \
                or not asks.has("asks.what_is", view.text) or asks.has("asks.premium", view.text) \
                or asks.has("asks.multiple", view.text):  # (an overtime or Sunday rate is another reader's)
            return None
        # (a part-timer's only where part-time staff's rate is made otherwise: over their own hours)
        known = {(d.per, d.base, tuple(d.steps)) for d in view.definitions()}
        # (the offered sentences first, then the rest of the passages: an English embedder ranks a French
        # handbook's definition low, and what it defines, for this pay, is what was asked)
        for u, d in ((u, d) for u in view.everything() for d in rate_definitions(u.text, view.weekly_hours)
                     if (d.per, d.base, tuple(d.steps)) in known):
            if applies_to(d, view.pay_period) and asks.has(f"rate_terms.{d.per}", view.text):
                return self._settled(view, d, u, [])
        for d in view.definitions():
            # (made from a month's pay the handbook makes from the person's yearly pay: "/ 14 / 173")
            if d.via and asks.has(f"rate_terms.{d.per}", view.text):
                rules = view.defining([d.name])
                rule = next((u for u in rules if any(x.per == d.per for x in rate_definitions(u.text, view.weekly_hours))),
                            None)
                if rule is not None:
                    return self._settled(view, d, rule, [r for r in rules if r is not rule])
        return None

    def _settled(self, view: View, d, u, also: list) -> Settled:
        asks = view.words
        assert view.pay is not None  # (read() returns before, without pay)
        variables: list[Variable] = [view.pay]
        steps: list[str] = []
        for i, (op, v) in enumerate(d.steps):
            if d.over_hours is not None and i == len(d.steps) - 1:  # the person's hours, by name
                variables.append(Variable("weekly_hours", d.over_hours, "hours a week, from your record"))
                steps.append(f"{op} weekly_hours")
            else:
                steps.append(f"{op} {plain(v)}")
        # (a question in another language names the rate in its words: "Su precio por hora es …")
        term = d.term if view.language == "en" else asks.found(f"rate_terms.{d.per}", view.text) or d.term
        return Settled(self.name, u, variables, f"answer = {view.pay.name} {' '.join(steps)}\n", "rate",
                       {"term": term, "expression": d.expression(view.pay.value)}, also=also,
                       check=f"the {d.term} as the policy defines it")
