"""Is an answer broken text? A small model under a grammar can loop or spill figures without words
("Your hourly rate is 49500 / 2, = 24750 = 24750 = 24750 1, 2, 49500 / 2, 1, 2, …"). Such an answer is
never shown: the pipeline replaces it with an honest sentence, and the evaluation counts it.

The checks are about the shape of text, not about any one string: a fragment said over and over, a run of
figures with no word between them, and text that is mostly not words.
"""

from __future__ import annotations

import datetime as _dt
import re

# A fragment (up to 40 characters) said four times or more in a row.
_REPEATS = re.compile(r"(\S.{0,40}?)(?:[\s,;]+\1){3,}")
# Five figures or more joined only by operators, commas or spaces ("1, 2, 49500 / 2, 1, 2").
_FIGURE = r"[-$€£]?\d[\d.,]*%?"
_FIGURE_RUN = re.compile(rf"{_FIGURE}(?:\s*[-+*/=×÷,:]\s*|\s+){_FIGURE}" + rf"(?:(?:\s*[-+*/=×÷,:]\s*|\s+){_FIGURE}){{3,}}")
# Three figures joined by hyphens, the shape of a date, that are no date ("2026-1-2026 Urlaubstage").
_DATE_SHAPE = re.compile(r"(?<![\w.-])(\d{1,4})-(\d{1,2})-(\d{1,4})(?![\w-])")
# A code-written table or quote is not the model's prose: only the prose is judged.
_NOT_PROSE = re.compile(r"^\s*(\||>|Worked out).*$", re.M)


def degenerate(text: str) -> str:
    """Why ``text`` is broken ("" when it reads as sentences)."""
    prose = _NOT_PROSE.sub("", text or "").strip()
    if not prose:
        return ""
    if _REPEATS.search(prose):
        return "a fragment repeats"
    if _FIGURE_RUN.search(prose):
        return "a run of figures with no words"
    if any(not _a_date(*m.groups()) for m in _DATE_SHAPE.finditer(prose)):
        return "a date that is no date"
    visible = [c for c in prose if not c.isspace()]
    if len(visible) >= 30 and sum(c.isalpha() for c in visible) < 0.4 * len(visible):
        return "mostly not words"
    return ""


def _a_date(a: str, b: str, c: str) -> bool:
    """Whether year-month-day or day-month-year figures name a real day."""
    for year, month, day in ((a, b, c), (c, b, a)):
        if len(year) == 4:
            try:
                _dt.date(int(year), int(month), int(day))
                return True
            except ValueError:
                pass
    return False
