"""The record's balances added up ("How many sick and vacation days do I have in total?").

Two or more balances of one unit, each named by a word of its own in the question: their sum, by
the calculator. A difference, an average or a figure of the question's own is another calculation.
"""

from __future__ import annotations

import re

from engine.agent.applies import question_figures
from engine.agent.calc_slot import plain_number
from engine.agent.rules.base import Reader, Settled, View, words_of


class RecordTotal(Reader):
    name = "total"
    order = 5
    kinds = ("my_calc",)

    def read(self, view: View) -> Settled | None:
        q = view.words  # (the question's language, with English's phrases)
        if not q.has("asks.total", view.text) or q.has("asks.not_a_sum", view.text) \
                or question_figures(view.text) or re.search(r"\d", view.text):
            return None
        asked = words_of(view.text)
        named = [b for b in view.balances if words_of(_label(b)) & asked]
        if len(named) < 2 or len({_unit(b) for b in named}) != 1:
            return None
        # (each named by a word of its own: "sick and vacation days" names two, "leave days" names none apart)
        if any(not (words_of(_label(b)) - set().union(*(words_of(_label(c)) for c in named if c is not b))) & asked
               for b in named):
            return None
        unit = _unit(named[0])
        each = ", ".join(f"{plain_number(b.value)} ({_label(b)})" for b in named)
        # (the sum is no rule of the handbook: it rests on the record alone)
        return Settled(self.name, None, list(named), "answer = " + " + ".join(b.name for b in named) + "\n", "total",
                       {"unit": unit, "each": each}, check="a total of the record's balances")


def _label(balance) -> str:
    return balance.note.rpartition(", ")[0]


def _unit(balance) -> str:
    return balance.note.rpartition(", ")[2]
