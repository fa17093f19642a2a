"""Overtime paid in tiers: "time and a half for the first four hours of overtime in a week and double time
thereafter", "the first 2 hours at 1.5 times the hourly rate, any further hours at 2 times".

Asked what a number of overtime hours would pay, where one offered sentence pays the first N hours at one
multiple of the person's hourly rate and the hours beyond at another: the first N at the first multiple and
the rest at the second, by code (a small model paid all of them at the first).
"""

from __future__ import annotations

import re

from engine.agent import caps
from engine.agent.calc_slot import PLAIN_NUMBER, Variable
from engine.agent.rates import day_kinds
from engine.agent.rules.base import Reader, Settled, View, how_made, plain, words_of
from engine.agent.rules.multiple import GENERIC_PAY_WORDS, hours_asked

_N = r"(\d+(?:\.\d+)?|one|two|three|four|five|six|eight|ten|twelve)"
_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10, "twelve": 12}
_MULT = (r"(?:(?P<{0}t>\d+(?:\.\d+)?)\s*(?:times|x|×)|(?P<{0}p>\d+(?:\.\d+)?)\s*(?:%|percent|per cent)"
         r"|(?P<{0}h>time and a half|time-and-a-half)|(?P<{0}d>double(?: time)?|twice))")
#: "time and a half for the first four hours … and double time thereafter"
_FIRST_THEN = re.compile(_MULT.format("a") + r"[^.;]{0,30}?\bfor the first\s+" + _N + r"\s+hours?\b[^.;]{0,60}?"
                         + _MULT.format("b") + r"[^.;]{0,20}?\b(?:thereafter|after that|beyond that|for (?:any|all|the) "
                         r"(?:further|additional|remaining|other|subsequent) hours|for each hour after)", re.I)
#: "the first 2 hours are paid at 1.5 times …, any further hours at 2 times"
_FIRST_AT = re.compile(r"\bthe first\s+" + _N + r"\s+hours?\b[^.;]{0,60}?\bat\s+" + _MULT.format("a") + r"[^.;]{0,60}?"
                       r"\b(?:further|additional|remaining|subsequent|other) hours?\b[^.;]{0,30}?\bat\s+" + _MULT.format("b"),
                       re.I)


def _factor(m: re.Match, tag: str) -> float:
    if m.group(f"{tag}t"):
        return float(m.group(f"{tag}t"))
    if m.group(f"{tag}p"):
        return float(m.group(f"{tag}p")) / 100
    return 1.5 if m.group(f"{tag}h") else 2.0


def tiers(text: str) -> tuple[float, float, float] | None:
    """(hours of the first tier, its multiple, the multiple beyond) a sentence pays overtime at, or None."""
    m = _FIRST_THEN.search(text)
    if m:
        hours = m.group(5)
    else:
        m = _FIRST_AT.search(text)
        if not m:
            return None
        hours = m.group(1)
    first = float(hours) if hours[0].isdigit() else float(_NUMBERS[hours.lower()])
    a, b = _factor(m, "a"), _factor(m, "b")
    return (first, a, b) if first > 0 and 1 <= a <= 5 and 1 <= b <= 5 and a != b else None


def _days_of(unit, before) -> frozenset[str]:
    """The kinds of day a tiered sentence pays: its own, and those the sentence before it in the same passage
    makes overtime ("… any hours worked on a Saturday, are overtime. Overtime is paid at 1.5 times …")."""
    own = day_kinds(unit.text)
    if before is not None and before.passage == unit.passage and re.search(r"\bovertime\b", before.text, re.I) \
            and re.match(r"\s*overtime\b", unit.text, re.I):
        return own | day_kinds(before.text)
    return own


class TieredOvertime(Reader):
    name = "tiered"
    order = 29  # (before the plain multiple: a sentence with two multiples is not one)

    def read(self, view: View) -> Settled | None:
        asked_hours = hours_asked(view)
        if asked_hours is None:
            return None
        asked = words_of(view.text) - GENERIC_PAY_WORDS
        days = day_kinds(view.text) - {"work"}
        overtime = view.words.has("asks.overtime", view.text)
        # (every sentence of the passages: a rule in tiers is specific enough, and a small embedder ranked
        # "6 hours over my normal week" nearer the Sunday premium)
        every = view.everything()
        found = [(u, t) for i, u in enumerate(every) if (t := tiers(u.text)) is not None
                 and (overtime or words_of(u.text) & asked)
                 and caps.same_kind(view.text, u.text) and not (days and not _days_of(u, every[i - 1] if i else None) & days)]
        if len({t for _, t in found}) != 1:
            return None
        rates = [(v, term) for v, term, per in view.rates() if per == "hour"]
        if not rates:
            return None
        (rule, (first, a, b)), (rate, term) = found[0], rates[0]
        hours = Variable("asked_hours", asked_hours.value, "from the question")
        tier = Variable("first_tier_hours", first, "hours of the first tier, from the policy")
        m1 = Variable("first_multiple", a, f"{PLAIN_NUMBER}: the first tier's multiple, from the policy")
        m2 = Variable("then_multiple", b, f"{PLAIN_NUMBER}: the multiple after it, from the policy")
        code = (f"first = min(asked_hours, first_tier_hours)\n"
                f"answer = {rate.name} * (first_multiple * first + then_multiple * (asked_hours - first))\n")
        n1 = min(hours.value, first)
        words = view.words
        return Settled(self.name, rule, [rate, tier, m1, m2, hours], code, "tiered",
                       {"first": words.count(n1, "hours"), "m1": words.answer("times", n=plain(a)),
                        "rest": words.count(hours.value - n1, "hours"), "m2": words.answer("times", n=plain(b)),
                        "term": term, "rate": plain(rate.value), "how": how_made(rate),
                        "count": words.count(hours.value, "hours")},
                       check=f"{plain(hours.value)} hours of overtime in tiers")
