"""The rate a handbook defines from pay, asked for itself ("What is my base hourly rate?").

"For salaried employees, the base hourly rate is the annual salary divided by 2,080 hours" (or
"Hourly rate = annual salary / 2,080", "divide the annual salary by 2,080"): code reads the definition
(:func:`engine.agent.rates.rate_definition`), checks it is about the person's kind of pay, and the
calculator applies it to their pay.
"""

from __future__ import annotations

from engine.agent.rates import applies_to, rate_definitions
from engine.agent.rules.base import Reader, Settled, View, plain

class DefinedRate(Reader):
    name = "rate"
    order = 20

    def read(self, view: View) -> Settled | None:
        asks = view.words  # (the question's language, with English's phrases)
        if view.figures() or view.pay is None or not asks.has("asks.what_is", view.text):
            return None
        for u, d in ((u, d) for u in view.offered() for d in rate_definitions(u.text, view.weekly_hours)):
            if not applies_to(d, view.pay_period):
                continue
            if asks.has(f"rate_terms.{d.per}", view.text):
                steps = " ".join(f"{op} {plain(v)}" for op, v in d.steps)
                return Settled(self.name, u, [view.pay], f"answer = {view.pay.name} {steps}\n", "rate",
                               {"term": d.term, "expression": d.expression(view.pay.value)},
                               check=f"the {d.term} as the policy defines it")
        return None
