"""When the asker's probation ends, worked out by code: the handbook's length from their start date.

"When is my trial period over?" A small model shown "Probation lasts six months from the date you joined"
and a start date of 2026-08-12 wrote 2027-02-11, or copied the handbook's example date. Code adds the
length to the start date, in the handbook's unit (months as calendar months), and where the handbook
shows its own example ("if you were hired on March 1, your introductory period ends on May 29"), counts
the way the example does (there: the start date is day 1).
"""

from __future__ import annotations

import calendar
import datetime as _dt
import re
from dataclasses import dataclass

from engine.agent.evidence import Unit
from engine.agent.sentences import say

_N = r"(\d{1,3}|one|two|three|four|five|six|nine|twelve)"
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "nine": 9, "twelve": 12}
_NAME = r"(?:probation|introductory|trial)"
#: The length of the probation, next to its name ("Probation lasts six months", "The first 90 calendar days of
#: employment are your introductory period", "a 3-month trial period").
_LENGTH = re.compile(rf"{_NAME}[^.;]{{0,30}}?\b{_N}[- ](?:calendar[- ])?(day|week|month)s?\b"
                     rf"|\b{_N}[- ](?:calendar[- ])?(day|week|month)s?\b[^.;0-9]{{0,40}}?{_NAME}"
                     rf"|\b(?:first|initial)\s+{_N}\s+(?:calendar\s+)?(day|week|month)s?\b[^.;]{{0,60}}?{_NAME}", re.I)
#: The end as the Nth day after the start ("The introductory period ends on the 90th calendar day after your
#: start date"): that many days added to the start.
_NTH_AFTER = re.compile(rf"{_NAME}[^.;]{{0,60}}?\b(?:ends?|is over|finish(?:es)?|runs? until|lasts? until)\s+(?:on\s+)?"
                        rf"the\s+(\d{{1,3}})(?:st|nd|rd|th)\s+(?:calendar\s+)?day\s+(?:after|following|from)\b", re.I)
#: A length in working days is not a count of calendar days: no date is worked out from it.
_WORKING = re.compile(r"\b(?:working|business|work)[- ]days?\b", re.I)
#: A sentence about lengthening the period ("may extend the introductory period once, by up to 30 days")
#: states the extension, not the period.
_EXTENSION = re.compile(r"\b(?:extend\w*|extension|prolong\w*|lengthen\w*|by up to|a further|an additional)\b", re.I)
_MONTHS = {m.lower(): i for i, m in enumerate(calendar.month_name) if m} | \
          {m.lower(): i for i, m in enumerate(calendar.month_abbr) if m}
_DATE = r"(\d{1,2}(?:st|nd|rd|th)?\s+[A-Z][a-z]+|[A-Z][a-z]+\s+\d{1,2}(?:st|nd|rd|th)?)(?:,?\s+(\d{4}))?"
#: The handbook's own example: "someone who joined on 3 March completes probation on 3 September", "someone starting on
#: 1 March finishes their trial at the end of 29 May".
_EXAMPLE = re.compile(rf"\b(?:joined|joining|hired|started|starting|starts|start(?:ed|ing)? work)\s+on\s+{_DATE}\b"
                      rf"[^.]{{0,80}}?\b(?:ends?|ended|completes?|finish(?:es)?|is over|are over|runs? until|lasts? until)"
                      rf"(?:\s+\w+){{0,2}}?\s+(?:(?:on|at the end of|by the end of)\s+)?{_DATE}", re.I)


@dataclass(frozen=True)
class Length:
    """A probation's length as the handbook states it."""

    n: int
    unit: str  # "day", "week", "month"

    def after(self, start: _dt.date) -> _dt.date:
        if self.unit == "month":
            month = start.month - 1 + self.n
            year, month = start.year + month // 12, month % 12 + 1
            return start.replace(year=year, month=month, day=min(start.day, calendar.monthrange(year, month)[1]))
        return start + _dt.timedelta(days=self.n * (7 if self.unit == "week" else 1))


def probation_length_of(text: str) -> Length | None:
    """The probation's length a sentence states, in its unit, or None (none, or in working days)."""
    # (what comes after an extension's words is the extension: "lasts 3 months and may be extended by 3 more")
    text = _EXTENSION.split(text, maxsplit=1)[0]
    nth = _NTH_AFTER.search(text)
    if nth is not None:
        return Length(int(nth.group(1)), "day")
    m = _LENGTH.search(text)
    if m is None or _WORKING.search(m.group(0)):
        return None
    count, unit = [g for g in m.groups() if g][:2]
    return Length(int(count) if count.isdigit() else _WORD_NUMBERS[count.lower()], unit.lower())


def _date(text: str, year: str | None, default_year: int) -> _dt.date | None:
    words = re.sub(r"(st|nd|rd|th)\b", "", text).split()
    day = next((int(w) for w in words if w.isdigit()), None)
    month = next((_MONTHS[w.lower().rstrip(".")] for w in words if w.lower().rstrip(".") in _MONTHS), None)
    if day is None or month is None:
        return None
    try:
        return _dt.date(int(year) if year else default_year, month, day)
    except ValueError:
        return None


def example_offset(text: str, length: Length) -> int:
    """Days the handbook's own example ends before (negative) or after the plain count, -1 to 1; 0 without one."""
    m = _EXAMPLE.search(text)
    if m is None:
        return 0
    start = _date(m.group(1), m.group(2), 2025)
    end = _date(m.group(3), m.group(4) or (m.group(2) if m.group(2) else None), 2025)
    if start is None or end is None:
        return 0
    if end < start:  # (a year the example leaves out: "joined on 3 November … completes on 3 May")
        end = end.replace(year=end.year + 1)
    offset = (end - length.after(start)).days
    return offset if abs(offset) <= 1 else 0


def handbook_end(texts: list[str], start: _dt.date) -> tuple[_dt.date, Length] | None:
    """The end of the probation of someone who started on ``start``, by the first of the handbook's ``texts``
    (its chunks) that states the length, counted the way that text's own example counts; None where none does."""
    for text in texts:
        length = next((n for s in re.split(r"(?<=[.;])\s+", text) if (n := probation_length_of(s))), None)
        if length is not None:
            return length.after(start) + _dt.timedelta(days=example_offset(text, length)), length
    return None


def asks_probation_end(question: str) -> bool:
    """Whether a question asks when the asker's probation ends ("When is my trial period over?", "Wann endet
    meine Probezeit?"): the words of ``[probation_end]`` in the agent's language files, and the asker's."""
    from engine.agent.sentences import probation_end_words, self_words

    words = probation_end_words()
    return bool(words["when"].search(question) and words["name"].search(question) and self_words().search(question))


def probation_end(units: list[Unit], start: _dt.date | None, language: str = "en") -> tuple[str, Unit | None, str]:
    """Code's answer to when the probation of someone who started on ``start`` ends, from the first of the
    passages' ``units`` that states the length; that unit; and the working, as a source of the answer's
    figures ("2026-10-12 + 90 days - 1 day = 2027-01-09"). ("", None, "") where no unit states the length."""
    if start is None:
        return "", None, ""
    for unit in units:
        length = probation_length_of(unit.text)
        if length is None:
            continue
        document = " ".join(u.text for u in units if u.passage == unit.passage)
        offset = example_offset(document, length)
        end = length.after(start) + _dt.timedelta(days=offset)
        counted = "+ 1 day " if offset > 0 else "- 1 day " if offset else ""
        working = f"{start.isoformat()} + {length.n} {length.unit}s {counted}= {end.isoformat()} " \
                  f"({end.year}, {end.month}, {end.day})"
        words = say(f"probation_{length.unit}{'s' if length.n != 1 else ''}", language, n=length.n)
        return say("probation_end", language, date=end.isoformat(), length=words, start=start.isoformat(),
                   cite=unit.passage), unit, working
    return "", None, ""


#: A day a rule counts from the start ("you can't use it until … from your 91st calendar day on"); not working days.
_NTH_DAY = re.compile(r"\bfrom (?:your|the|their|an? employee's) (\d{1,3})(?:st|nd|rd|th) (?:calendar )?day\b", re.I)


def asks_from_when(question: str) -> bool:
    """Whether a question asks from what date the asker may do something ("From what date can I use my PTO?",
    "Ab wann darf ich Urlaub nehmen?"): ``[probation_end]`` ``from_when`` of the agent's language files."""
    from engine.agent.sentences import probation_end_words, self_words

    return bool(probation_end_words()["from_when"].search(question) and self_words().search(question))


def day_from_start(units: list[Unit], start: _dt.date | None, topic: set[str],
                   language: str = "en") -> tuple[str, Unit | None, str]:
    """Code's answer to from what date the asker may do what a rule allows "from your Nth calendar day": the
    first of ``units`` that says so and shares a word of ``topic`` (what the question is about), counted with
    the start as day 1; that unit; and the working. ("", None, "") where none does."""
    if start is None:
        return "", None, ""
    for unit in units:
        m = _NTH_DAY.search(unit.text)
        if m is None or not topic & {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]{3,}", unit.text)}:
            continue
        n = int(m.group(1))
        if not 1 < n <= 400:
            continue
        day = start + _dt.timedelta(days=n - 1)
        # (the day's number as a figure: "91st" in the rule is no "91" to the grounding check)
        working = f"{start.isoformat()} + {n - 1} days = {day.isoformat()} ({day.year}, {day.month}, {day.day}): day {n}"
        return say("from_day", language, date=day.isoformat(), n=n, start=start.isoformat(),
                   cite=unit.passage), unit, working
    return "", None, ""
