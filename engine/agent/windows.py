"""Windows of calendar dates: the ones a rule forbids leave in, and the days a question asks for.

"No annual leave may be taken in the two weeks before Christmas Day", "leave is not approved from 15 December
to 5 January": a window of dates, one year at a time. "Any chance I could take the 14th to the 18th of
December off?": the days asked. Code tells whether they meet (the words of a window are data: the named days
in ``engine/agent/rules/lang/en.toml`` ``[named_days]``).
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re

from engine.agent.rules.words import words

_MONTH_NAMES = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | \
               {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m} | {"sept": 9}
_MONTH = r"(?P<{}>" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<{}>[0-3]?\d)(?:st|nd|rd|th)?"
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "a": 1}


def _named_days() -> dict[str, tuple[int, int]]:
    table = words("en").tables.get("named_days", {})
    return {name.lower(): (int(v[:2]), int(v[3:5])) for name, v in table.items()}


def _date_pattern(tag: str) -> str:
    """A day of a month, either way round ("14 December", "the 14th of December", "December 14")."""
    d, m, d2, m2 = (_DAY.format(f"{tag}d"), _MONTH.format(f"{tag}m"), _DAY.format(f"{tag}d2"), _MONTH.format(f"{tag}m2"))
    return rf"(?:(?:the\s+)?{d}(?:\s+of)?\s+{m}|{m2}\s+{d2})"


_DATE = re.compile(r"\b" + _date_pattern("a") + r"\b", re.I)
#: "14 to 18 December", "the 14th to the 18th of December", "14-18 Dec", "December 14 to 18".
_SPAN_SAME_MONTH = re.compile(r"\b(?:the\s+)?(?P<d1>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:to|until|till|through|thru|-|–)\s*"
                              r"(?:the\s+)?(?P<d2>[0-3]?\d)(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MONTH.format("m") + r"\b"
                              r"|\b" + _MONTH.format("m2") + r"\s+(?P<d3>[0-3]?\d)(?:st|nd|rd|th)?\s*(?:to|until|till|"
                              r"through|thru|-|–)\s*(?P<d4>[0-3]?\d)(?:st|nd|rd|th)?\b", re.I)
_SPAN = re.compile(r"\b(?:from\s+|between\s+)?" + _date_pattern("a") + r"\s*(?:to|until|till|through|thru|and|-|–)\s*"
                   + _date_pattern("b") + r"\b", re.I)
#: "the week of 7 December": that day and the four after it.
_WEEK_OF = re.compile(r"\bweek of\s+" + _date_pattern("a") + r"\b", re.I)


def _month_day(m: re.Match, tag: str) -> tuple[int, int] | None:
    day = m.group(f"{tag}d") or m.group(f"{tag}d2")
    month = m.group(f"{tag}m") or m.group(f"{tag}m2")
    if not day or not month:
        return None
    return _MONTH_NAMES[month.lower().rstrip(".")], int(day)


def _on_or_after(month: int, day: int, today: _dt.date) -> _dt.date | None:
    """The next such day from ``today`` on (a question asks about days to come)."""
    for year in (today.year, today.year + 1):
        try:
            date = _dt.date(year, month, day)
        except ValueError:
            return None
        if date >= today:
            return date
    return None


def asked_days(question: str, today: _dt.date) -> tuple[_dt.date, _dt.date] | None:
    """The first and last day a question asks for, or None where it names no calendar date."""
    m = _SPAN_SAME_MONTH.search(question)
    if m:
        month = _MONTH_NAMES[(m.group("m") or m.group("m2")).lower().rstrip(".")]
        first, last = (int(m.group("d1") or m.group("d3")), int(m.group("d2") or m.group("d4")))
        start = _on_or_after(month, first, today)
        if start is None or last < first:
            return None
        try:
            return start, start.replace(day=last)
        except ValueError:
            return None
    m = _SPAN.search(question)
    if m and (a := _month_day(m, "a")) and (b := _month_day(m, "b")):
        start = _on_or_after(*a, today)
        end = _on_or_after(*b, start) if start else None
        return (start, end) if start and end else None
    m = _WEEK_OF.search(question)
    if m and (a := _month_day(m, "a")):
        start = _on_or_after(*a, today)
        return (start, start + _dt.timedelta(days=4)) if start else None
    m = _DATE.search(question)
    if m and (a := _month_day(m, "a")):
        day = _on_or_after(*a, today)
        return (day, day) if day else None
    return None


def rule_window(text: str, around: _dt.date) -> tuple[_dt.date, _dt.date] | None:
    """The window of dates a rule's sentence states, in the year of the days asked (``around``): "the two weeks
    before Christmas Day", "from 15 December to 5 January"; None where it states none."""
    named = _named_days()
    names = "|".join(re.escape(n) for n in sorted(named, key=len, reverse=True))
    before = re.search(rf"\b(?P<n>\d+|one|two|three|four|five|six|a)\s+(?P<unit>weeks?|days?)\s+(?:before|prior to|"
                       rf"leading up to|ahead of)\s+(?:the\s+)?(?:(?P<name>{names})|{_date_pattern('a')})", text, re.I) \
        if names else None
    if before:
        n = int(before.group("n")) if before.group("n").isdigit() else _NUMBER_WORDS[before.group("n").lower()]
        days = n * (7 if before.group("unit").lower().startswith("week") else 1)
        month, day = named[before.group("name").lower()] if before.group("name") else _month_day(before, "a") or (0, 0)
        if not month:
            return None
        for year in (around.year, around.year + 1):
            end = _dt.date(year, month, day)
            if end > around:
                return end - _dt.timedelta(days=days), end - _dt.timedelta(days=1)
        return None
    m = _SPAN.search(text)
    if m and (a := _month_day(m, "a")) and (b := _month_day(m, "b")):
        start = _dt.date(around.year, *a)
        end = _dt.date(around.year + (1 if b < a else 0), *b)
        if end < around:  # (a window of last year's December to January holds this year's too)
            start, end = start.replace(year=start.year + 1), end.replace(year=end.year + 1)
        return start, end
    return None


def meets(a: tuple[_dt.date, _dt.date], b: tuple[_dt.date, _dt.date]) -> bool:
    """Whether two windows share a day."""
    return a[0] <= b[1] and b[0] <= a[1]
