"""Is an answer broken text? A small model under a grammar can loop or spill figures without words
("Your hourly rate is 49500 / 2, = 24750 = 24750 = 24750 1, 2, 49500 / 2, 1, 2, …"). Such an answer is
never shown: the pipeline replaces it with an honest sentence, and the evaluation counts it.

The checks are about the shape of text, not about any one string: a fragment said over and over, a run of
figures with no word between them, and text that is mostly not words.
"""

from __future__ import annotations

import re

# A fragment (up to 40 characters) said four times or more in a row.
_REPEATS = re.compile(r"(\S.{0,40}?)(?:[\s,;]+\1){3,}")
# Five figures or more joined only by operators, commas or spaces ("1, 2, 49500 / 2, 1, 2").
_FIGURE = r"[-$€£]?\d[\d.,]*%?"
_FIGURE_RUN = re.compile(rf"{_FIGURE}(?:\s*[-+*/=×÷,:]\s*|\s+){_FIGURE}" + rf"(?:(?:\s*[-+*/=×÷,:]\s*|\s+){_FIGURE}){{3,}}")
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
    visible = [c for c in prose if not c.isspace()]
    if len(visible) >= 30 and sum(c.isalpha() for c in visible) < 0.4 * len(visible):
        return "mostly not words"
    return ""
