"""Hours or days paid at the person's own rate ("Cashed-out hours are paid at the employee's base hourly
rate", "Each day is paid at 1/260 of your annual salary").

Asked what some hours or days would pay (a number of them, all of the person's, or the most the rule
allows), where an offered rule pays them at the person's rate with no multiple of it and code knows
that rate per hour or per day: the rate times the quantity. "All of them" where the rule allows fewer
is the most it allows, and the answer says so.
"""

from __future__ import annotations

from engine.agent import caps
from engine.agent.applies import question_figures
from engine.agent.calc_slot import Variable, shown_value
from engine.agent.rates import rate_definitions
from engine.agent.rules.base import Reader, Settled, View, how_made, plain
from engine.agent.rules.cap import one_balance
from engine.agent.rules.words import to_english


class UnitPay(Reader):
    name = "unit_pay"
    order = 40

    def read(self, view: View) -> Settled | None:
        w, q = view.rule_words, view.words  # (the handbook's words, the question's)
        text = view.text
        figures = view.figures(("hours", "days"))
        whole, most = q.has("asks.all_of", text), q.has("asks.most", text)
        # "And how much would those be worth?" after "How many vacation days do I have left?": that balance.
        follows = (not figures and not most and q.has("asks.those", text) and q.has("asks.have_left", view.before)
                   and not question_figures(view.before))
        # ("… the congés payés I have left. How much would the company pay me for those days?": the balance the
        # question itself names)
        follows = follows or not figures and not most and q.has("asks.those", text) and q.has("asks.my_remaining", text)
        whole = whole or follows
        if not q.has("asks.pay", text) or q.has("asks.multiple", text) or q.has("asks.premium", text) \
                or not (len(figures) == 1 or not figures and (whole or most)):
            return None
        wanted = figures[0].unit[:-1] if figures else ""
        rate, term, per = next(((v, t, p) for v, t, p in view.rates() if p == wanted or not wanted), (None, "", ""))
        if rate is None:
            return None
        paid_at, payment, converts = w.family("rule.paid_at_rate"), w.family("rule.payment"), w.family("asks.converts")
        rate_based = w.family("rule.rate_based")
        offered = view.offered()
        # (a handbook in another language read in the English words its language file gives: "é pago" is paid)
        rules = [u for u in offered if not w.has("asks.multiple", u.text) and (
            paid_at.search(en := to_english(u.text)) and rate_based.search(en)
            or any(d.per == per for d in rate_definitions(u.text)) and payment.search(en))]
        # (the rule about what the question does (converting, cashing out) before one about something else)
        rule = next((u for u in rules if converts.search(u.text) and converts.search(text)), None) \
            or (rules[0] if rules else None)
        if rule is None:
            return None
        passage = " ".join(u.text for u in view.everything() if u.passage == rule.passage)
        if not caps.same_kind(text, passage or rule.text):
            return None  # a rule for cashing out vacation says nothing of sick days
        unit = per + "s"
        fields = {"term": term, "rate": shown_value(rate.value), "how": how_made(rate)}
        if figures:
            asked = Variable(f"asked_{unit}", figures[0].value, "from the question")
            return self._settled(rule, rate, [asked], asked.name, view.words.count(asked.value, unit), fields)
        balance = one_balance(view, unit, rule.text + (f" {view.before}" if follows else ""))
        limit = next((float(m.group(1)) for u in view.everything() for m in caps.LIMIT.finditer(u.text)
                      if m.group(2).lower().rstrip("s") == per and converts.search(u.text)), None)
        a = view.words
        if whole and not most:
            if balance is None:
                return None
            if limit is None or balance.value <= limit:
                return self._settled(rule, rate, [balance], balance.name,
                                     a.answer("all_of", n=plain(balance.value), unit=unit), fields)
            # "all of them", where the rule allows fewer: the most it allows, and it says so
            most_allowed = Variable("most_allowed", limit, f"{unit}, the most the policy allows")
            return self._settled(rule, rate, [balance, most_allowed], f"min({balance.name}, {most_allowed.name})",
                                 a.answer("not_all_of", n=plain(balance.value), unit=unit, limit=plain(limit)), fields)
        if limit is None:
            return None
        most_allowed = Variable("most_allowed", limit, f"{unit}, the most the policy allows")
        if balance is None:
            return self._settled(rule, rate, [most_allowed], most_allowed.name,
                                 a.answer("most_allowed", limit=plain(limit), unit=unit), fields)
        said = (a.answer("most_allowed", limit=plain(limit), unit=unit) if min(balance.value, limit) == limit
                else a.answer("all_of_up_to", n=plain(balance.value), unit=unit, limit=plain(limit)))
        return self._settled(rule, rate, [balance, most_allowed], f"min({balance.name}, {most_allowed.name})",
                             said, fields)

    def _settled(self, rule, rate: Variable, quantity: list[Variable], expression: str, said: str,
                 fields: dict) -> Settled:
        return Settled(self.name, rule, [rate, *quantity], f"answer = {rate.name} * {expression}\n", "unit_pay",
                       {**fields, "said": said}, check=f"{expression} at the person's {fields['term']}")
