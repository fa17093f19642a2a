"""Leave earned per hour worked, over the person's own hours ("0.0577 hours of PTO for each hour paid",
"part-time colleagues accrue leave at 8% of hours worked").

Asked how much leave they build up in a week or a year, where one offered sentence about that kind of
leave states one rate per hour worked that is the person's (a part-timers' rule only for a part-timer;
of rows by length of service, the row their service falls in): the rate times their weekly hours, times
52 for a year. Hours the question states stand for the weekly hours.
"""

from __future__ import annotations

import re

from engine.agent import caps
from engine.agent.applies import Figure, judge
from engine.agent.calc_slot import PLAIN_NUMBER, Variable
from engine.agent.rules.base import Reader, Settled, View, plain

_NUM = r"(\d+(?:\.\d+)?)"
#: "0.0577 hours of PTO for each hour paid", "1 hour of sick time for every 30 hours worked".
_PER_HOUR = re.compile(rf"\b{_NUM}\s+hours?\b(?:\s+of\s+(?:[\w-]+\s+){{0,3}}?)?[^.;:]{{0,20}}?\b(?:for\s+)?(?:each|every|"
                       rf"per)\s+(?:{_NUM}\s+)?hours?\s+(?:worked|paid|of work)\b", re.I)
#: "accrue leave at 8% of hours worked", "earns 8 percent of the hours worked".
_SHARE = re.compile(rf"\b(?:accru\w*|earn\w*|build\w* up)\b[^.;]{{0,40}}?\bat\s+{_NUM}\s*(?:%|percent|per cent)\s+of\s+"
                    rf"(?:the\s+|your\s+|their\s+|all\s+)?hours\s+(?:worked|paid)\b", re.I)


def accrual_rate(text: str) -> float | None:
    """Hours of leave earned per hour worked that ``text`` states, or None (none, or several)."""
    found = {round(float(m.group(1)) / float(m.group(2) or 1), 6) for m in _PER_HOUR.finditer(text)}
    found |= {round(float(m.group(1)) / 100, 6) for m in _SHARE.finditer(text)}
    found.discard(0)
    return found.pop() if len(found) == 1 else None


class LeaveAccrual(Reader):
    name = "accrual"
    order = 40
    kinds = ("policy_calc", "policy_me", "policy")

    def read(self, view: View) -> Settled | None:
        q = view.words
        if not q.has("asks.accrue", view.text) or not q.has("asks.how_much", view.text):
            return None
        period = "year" if q.has("asks.per_year", view.text) else "week" if q.has("asks.per_week", view.text) else ""
        figures = view.figures(("hours",))
        hours = Variable("asked_hours", figures[0].value, "hours a week, from the question") if len(figures) == 1 \
            else Variable("weekly_hours", view.weekly_hours, "hours a week, from your record") \
            if view.weekly_hours and not view.figures() else None
        if not period or hours is None:
            return None
        w = view.rule_words
        service = Figure(view.service_years, "years", "your length of service") \
            if view.service_years is not None else None
        found = []
        for u in view.everything():
            rate = accrual_rate(u.text)
            if rate is None or not caps.same_kind(view.text, u.text):
                continue
            if w.has("rule.part_time", u.text) and not view.part_time:
                continue  # (a part-timers' rule, and the person works full-time)
            heading = "length of service" if any(re.search(r"service|tenure|anniversar", x, re.I) for x in
                                                 (*(x.text for x in view.everything()), *view.documents)) else ""
            verdict, _ = judge(u.text, heading, [], service)
            found.append((u, rate, verdict))
        applying = [f for f in found if f[2] == "applies"] or [f for f in found if f[2] == ""]
        if len({rate for _, rate, _ in applying}) != 1:
            return None  # none, or rules code cannot choose between: the model reads which
        rule, rate, _ = applying[0]
        per_hour = Variable("leave_per_hour", rate, f"{PLAIN_NUMBER}: hours of leave per hour worked, from the policy")
        weeks = " * 52" if period == "year" else ""
        return Settled(self.name, rule, [per_hour, hours], f"answer = leave_per_hour * {hours.name}{weeks}\n",
                       f"accrual_{period}", {"hours": plain(hours.value), "rate": plain(rate)},
                       check=f"leave earned per hour worked, over {plain(hours.value)} hours a week")
