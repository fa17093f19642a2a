"""Grounding check: every number in an answer should come from an observation or the question.

An HR answer with a number nobody looked up (a balance, a rate, a sum) is the
most harmful kind of wrong. The check is deliberately literal: numbers are
compared after removing currency signs and thousands separators
(``$1,769.23`` == ``1769.23``) and trailing decimal zeros (``5.0`` == ``5``).
Citation markers (``[1]``) and list numbers are not claims and are ignored.
"""

from __future__ import annotations

import re

_NUMBER = re.compile(r"(?<![\w.])[-+]?[$€£₱]?\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w])")
_CITATION = re.compile(r"\[\d{1,2}\]")
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s", re.M)


def normalise_number(text: str) -> str:
    value = text.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value.lstrip("0") or "0"


def numbers_in(text: str) -> list[str]:
    """Normalised numbers of ``text`` in order of appearance (duplicates kept)."""
    return [normalise_number(m.group(1)) for m in _NUMBER.finditer(text)]


def _grounded(claim: str, known: set[str], values: list[float]) -> bool:
    """Literally present, or a source number rounded to the claim's precision (1769.230769 -> 1769.23)."""
    if claim in known:
        return True
    decimals = len(claim.split(".")[1]) if "." in claim else 0
    target = float(claim)
    return any(round(v, decimals) == target for v in values)


def ungrounded_numbers(answer: str, sources: list[str]) -> list[str]:
    """Numbers of ``answer`` that appear in none of ``sources``; each reported once."""
    claims = _LIST_MARKER.sub(" ", _CITATION.sub(" ", answer))
    known = {n for source in sources for n in numbers_in(source)}
    values = [float(n) for n in known]
    out: list[str] = []
    for n in numbers_in(claims):
        if n not in out and not _grounded(n, known, values):
            out.append(n)
    return out
