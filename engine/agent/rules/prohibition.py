"""A window a rule forbids ("No PTO may be taken during the last two weeks of a fiscal quarter").

Asked "Can I take PTO during the last week of the fiscal quarter?", a small model quoted that sentence
and answered yes. Where the question asks to take some leave in a window of time, and an offered rule
forbids that kind of leave in a window every word of which the question's window names (its "last",
"fiscal", "quarter"; figures and units aside), the answer is no, by code. A rule with an exception
("unless approved by …") or a window the question does not name leaves it to the model.
"""

from __future__ import annotations

import re

import datetime as _dt

from engine.agent import caps
from engine.agent.rules.base import Reader, Settled, View
from engine.agent.windows import asked_days, meets, rule_window


def _words(text: str, filler: set[str]) -> set[str]:
    return {w.rstrip("s") for w in re.findall(r"[a-z]+", text.lower()) if w not in filler and len(w) > 1} - filler


class Prohibition(Reader):
    name = "prohibition"
    order = 60
    kinds = ("policy", "policy_me")

    def read(self, view: View) -> Settled | None:
        w = view.rule_words
        table = w.tables.get("prohibition", {})
        asked = re.search(table.get("asks", "").removeprefix("re:"), view.text.strip(), re.I)
        if not table or asked is None:
            return self._dated(view, table)
        filler = {f.rstrip("s") for f in table.get("filler", ())} | set(table.get("filler", ()))
        window = _words(asked.group("window"), filler)
        thing = asked.group("thing")
        exception = re.compile("|".join(rf"\b{re.escape(p)}\b" for p in table.get("exception", ())), re.I)
        found = []
        for u in view.offered():
            for m in re.finditer(table["forbids"].removeprefix("re:"), u.text, re.I):
                said = next((m.group(g) for g in ("thing1", "thing2", "thing3") if m.group(g)), "")
                forbidden = _words(m.group("window"), filler)
                if not forbidden or not forbidden <= window or exception.search(u.text):
                    continue
                if not caps.same_kind(thing, said or u.text):
                    continue
                found.append(u)
        return self._no(view, found, "a rule forbids what is asked in the window asked") or self._dated(view, table)

    def _dated(self, view: View, table: dict) -> Settled | None:
        """Days the question names by date ("the 14th to the 18th of December"), inside a window of dates a rule
        forbids that kind of leave in ("the two weeks before Christmas Day"), for a group the person is in."""
        try:
            today = _dt.date.fromisoformat(view.today[:10])
        except ValueError:
            return None
        days = asked_days(view.text, today)
        if days is None or not table or not re.search(table.get("asks_dated", "").removeprefix("re:"), view.text, re.I):
            return None
        exception = re.compile("|".join(rf"\b{re.escape(p)}\b" for p in table.get("exception", ())), re.I)
        group = re.compile(table.get("group", "").removeprefix("re:"), re.I)
        found = []
        for u in view.offered():
            for m in re.finditer(table["forbids"].removeprefix("re:"), u.text, re.I):
                window = rule_window(m.group("window"), days[0])
                said = next((m.group(g) for g in ("thing1", "thing2", "thing3") if m.group(g)), "")
                if window is None or not meets(days, window) or exception.search(u.text) \
                        or not caps.same_kind(view.text, said or u.text):
                    continue
                named = group.search(u.text) if table.get("group") else None
                if named and not {x.lower().rstrip("s") for x in named.group("group").split()} & view.group_words:
                    continue  # (a rule for production staff, and the person is in sales)
                found.append(u)
        return self._no(view, found, "a rule forbids leave on the dates asked")

    def _no(self, view: View, found: list, check: str) -> Settled | None:
        return said_no(self.name, view, found, check)


def said_no(reader: str, view: View, found: list, check: str) -> Settled | None:
    """"No. The policy says: …" where exactly one sentence was ``found`` (quoted as written, without its list
    mark); None for none or several."""
    if len({u.label for u in found}) != 1:
        return None
    rule = found[0]
    original = next((u for u in view.units if u.label == rule.label), rule)
    text = re.sub(r"^\s*[-*•–]\s*", "", original.text).strip().rstrip(".;")
    return Settled(reader, rule, [], "", "prohibited", {"rule": text}, check=check)
