"""A balance under a carry-over cap: what carries over, and what is lost.

"Up to 40 hours of unused PTO carry over into the next calendar year. Any hours above 40 are forfeited."
Of a balance B under a cap C, min(B, C) carries over and the rest is lost: a fixed calculation a small
model gets wrong (``40 / min(88, 40)``). The balance is the question's figure in the cap's unit, else
the one balance of the record in that unit the question or the rule names.
"""

from __future__ import annotations

from engine.agent import caps
from engine.agent.calc_slot import Variable
from engine.agent.rules.base import Reader, Settled, View, plain, words_of


class CarryOverCap(Reader):
    name = "cap"
    order = 10
    kinds = ("policy_me", "policy_calc")

    def read(self, view: View) -> Settled | None:
        q = view.words  # (the question's language, with English's phrases)
        if not q.has("asks.how_much", view.text) or not (q.has("asks.carry", view.text) or q.has("asks.loss", view.text)):
            return None
        everything = view.everything()
        cap = caps.find_cap(view.offered(), view.text) or caps.find_cap(everything, view.text)
        if cap is None:
            return None
        rule = next(u for u in everything if u.label == cap.label)
        balance = self._balance(view, cap, rule.text)
        if balance is None:
            return None
        limit = plain(cap.amount)
        code = f"carried = min({balance.name}, {limit})\nanswer = {balance.name} - carried\n"
        over = balance.value > cap.amount
        if not q.has("asks.loss", view.text):
            code = f"answer = min({balance.name}, {limit})\n"
            if over:  # (the sentence says what lapses too: the calculator works it out, so it is a source)
                code = f"lost = {balance.name} - min({balance.name}, {limit})\n" + code
        gone = caps.loss_sentence(everything, cap)
        fields = {"have": plain(balance.value), "unit": cap.unit, "limit": limit,
                  "carried": plain(min(balance.value, cap.amount)), "lost": plain(max(balance.value - cap.amount, 0)),
                  "gone": view.words.gone(gone.text) if gone is not None else view.words.answers["gone_default"],
                  "cite2": f" [{gone.passage}]" if gone is not None else ""}
        return Settled(self.name, rule, [balance], code, "cap_some" if over else "cap_all", fields,
                       also=[gone] if gone is not None and over else [],
                       check="a balance under a carry-over cap")

    @staticmethod
    def _balance(view: View, cap: caps.Cap, rule: str) -> Variable | None:
        asked = view.figures((cap.unit,))
        if asked:
            return Variable(f"asked_{cap.unit}", asked[0].value, "from the question")
        return one_balance(view, cap.unit, rule)


def one_balance(view: View, unit: str, rule: str) -> Variable | None:
    """The record's one leave balance in ``unit`` that the part or ``rule`` names (or the only one in it)."""
    mine = [b for b in view.balances if b.note.rpartition(", ")[2] == unit]
    named = [b for b in mine if words_of(b.note.rpartition(", ")[0]) & words_of(f"{view.text} {rule}")]
    chosen = named or mine
    return chosen[0] if len(chosen) == 1 else None
