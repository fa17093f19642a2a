"""The full-time amounts a part-timer's share is taken of ("A full-time employee receives 200 leave hours per
calendar year"): the amounts of time the rule's rows state, for the period the question asks."""

from __future__ import annotations

import re

#: An amount of time a rule states, with up to two words between the figure and its unit ("200 leave hours",
#: "25 working days", "8 hours").
AMOUNT_OF_TIME = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s*(?:[^\W\d]+[- ]){0,2}?(hours?|days?|weeks?)\b", re.I)
#: The period a question asks an amount for ("per year", "annually").
PERIOD_ASKED = re.compile(r"\b(?:a|per|each|every) (year|month)\b|\b(annually|yearly|monthly)\b", re.I)
_A_WEEK = re.compile(r"\s*(?:a|per|each|every|/)\s*week\b", re.I)
_PERIODS = {"annually": "year", "yearly": "year", "monthly": "month"}


def _amounts(texts: list[str], period: str = "") -> list[str]:
    found = []
    for text in texts:
        for m in AMOUNT_OF_TIME.finditer(text):
            if float(m.group(1)) == 0:  # (a row of extra days that gives none: nothing to take a share of)
                continue
            if m.group(2).lower().startswith("hour") and _A_WEEK.match(text[m.end():]):
                continue  # ("a full-time employee (40 hours a week)": the week that defines full time)
            if period and not re.match(rf"\s*(?:a|per|each|every|/)\s*(?:calendar\s+|full\s+)?{period}\b",
                                       text[m.end():], re.I):
                continue
            found.append(f"{m.group(1)} {m.group(2)}")
    return list(dict.fromkeys(found))


def full_time_amounts(applying: list[str], others: list[str], question: str) -> list[str]:
    """The amounts ("200 hours") a part-timer's share may be of: those of the rows that apply to the person
    (``applying``), else of the other rows; of the period the question asks where a row states one; never 0
    (an extra-days row that gives none, where the base amount is in another sentence)."""
    asked = PERIOD_ASKED.search(question)
    period = _PERIODS.get(w := (asked.group(1) or asked.group(2)).lower(), w) if asked else ""
    for texts in (applying, others):
        amounts = _amounts(texts)
        if amounts:
            return (_amounts(texts, period) if period else []) or amounts
    return []
