"""Dates a question names, read by code ("from 14 July 2027 to 16 July 2027", "on the 19th", "tomorrow"),
so a leave request's days are the person's words, not the model's guess."""

from __future__ import annotations

import datetime as _dt
import re

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october", "november",
     "december"], start=1)}
_MONTHS.update({m[:3]: i for m, i in list(_MONTHS.items())})
_MONTHS["sept"] = 9
_MON = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_PATTERNS = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("dmy", re.compile(r"\b(\d{1,2})(?:st|nd|rd|th)?(?:\s+of)?\s+" + _MON + r"(?:,?\s+(\d{4}))?\b", re.I)),
    ("mdy", re.compile(r"\b" + _MON + r"\s+(\d{1,2})(?:st|nd|rd|th)?(?:,?\s+(\d{4}))?\b", re.I)),
    ("day", re.compile(r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b", re.I)),
    ("rel", re.compile(r"\b(today|tomorrow)\b", re.I)),
]


def _future(year: int | None, month: int, day: int, today: _dt.date) -> _dt.date | None:
    """The date, in the year given, or else the next one on or after today."""
    for y in ([year] if year else [today.year, today.year + 1]):
        try:
            d = _dt.date(y, month, day)
        except ValueError:
            continue
        if year or d >= today:
            return d
    return None


def question_dates(text: str, today: str) -> list[str]:
    """The dates ``text`` names, as YYYY-MM-DD, in the order it names them (a date without a year is the next
    one from ``today``; "the 19th" is in this month or the next)."""
    now = _dt.date.fromisoformat(today)
    found: list[tuple[int, _dt.date]] = []
    taken: list[tuple[int, int]] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text or ""):
            if any(a < m.end() and m.start() < b for a, b in taken):
                continue  # part of a date already read ("14 July 2027" is not also "July 2027")
            d = None
            if kind == "iso":
                try:
                    d = _dt.date(int(m[1]), int(m[2]), int(m[3]))
                except ValueError:
                    d = None
            elif kind == "dmy":
                d = _future(int(m[3]) if m[3] else None, _MONTHS[m[2].lower()], int(m[1]), now)
            elif kind == "mdy":
                d = _future(int(m[3]) if m[3] else None, _MONTHS[m[1].lower()], int(m[2]), now)
            elif kind == "day":
                day = int(m[1])
                month = now.month if day >= now.day else now.month % 12 + 1
                year = now.year if month >= now.month else now.year + 1
                d = _future(year, month, day, now)
            elif kind == "rel":
                d = now + _dt.timedelta(days=1 if m[1].lower() == "tomorrow" else 0)
            if d is not None:
                found.append((m.start(), d))
                taken.append((m.start(), m.end()))
    return [d.isoformat() for _, d in sorted(found)]
