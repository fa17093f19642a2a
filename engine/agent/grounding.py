"""Grounding check: every number in an answer should come from an observation or the question.

An HR answer with a number nobody looked up (a balance, a rate, a sum) is the
most harmful kind of wrong. The check is deliberately literal: numbers are
compared after removing currency signs and thousands separators
(``$1,769.23`` == ``1769.23``) and trailing decimal zeros (``5.0`` == ``5``).
Citation markers (``[1]``) and list numbers are not claims and are ignored.
"""

from __future__ import annotations

import re
import unicodedata


_NUMBER = re.compile(r"(?<![\w.])[-+]?[$€£₱]?\s?(\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)(?![\w])")
_CITATION = re.compile(r"\[\d{1,2}\]")
_LIST_MARKER = re.compile(r"^\s*\d{1,2}[.)]\s", re.M)


def normalise_number(text: str) -> str:
    # Digits of any script are the same figure: "۷۲" is 72 to whoever reads it.
    value = "".join(str(unicodedata.digit(c)) if c.isdigit() and not c.isascii() else c for c in text)
    value = value.replace(",", "")
    if "." in value:
        value = value.rstrip("0").rstrip(".")
    return value.lstrip("0") or "0"


def numbers_in(text: str) -> list[str]:
    """Normalised numbers of ``text`` in order of appearance (duplicates kept)."""
    return [normalise_number(m.group(1)) for m in _NUMBER.finditer(text)]


#: Dates and times are not figures: their parts (2026, 07, 14; 9, 30) are not marked one by one.
_DATE_OR_TIME = re.compile(r"\d{4}-\d{1,2}-\d{1,2}|\d{1,2}[./]\d{1,2}[./]\d{2,4}|\d{1,2}:\d{2}(?::\d{2})?")


def number_spans(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, normalised)`` of each number of ``text``, citation markers (``[1]``), dates
    and times left out: where a reader's eye meets a figure, for marking where it came from."""
    out = []
    dates = [m.span() for m in _DATE_OR_TIME.finditer(text)]
    for m in _NUMBER.finditer(text):
        start, end = m.span(1)
        if text[start - 1:start] == "[" and text[end:end + 1] == "]":
            continue
        if any(a <= start < b for a, b in dates) or re.match(r"\.\d", text[end:end + 2]):
            continue  # part of a date or time, or the head of "1.5x"
        if text[start - 1:start] in ("$", "€", "£", "₱"):
            start -= 1  # the currency sign belongs to the figure
        out.append((start, end, normalise_number(m.group(1))))
    return out


def where_from(claim: str, sources: list[tuple[object, str]], limit: int = 3, width: int = 60) -> list[tuple[object, str]]:
    """``(label, excerpt)`` of the sources that contain the number ``claim`` (normalised), literally
    or as a rounding of it, in the order given; the excerpt is the text around it (``width``
    characters each side, on its line)."""
    out: list[tuple[object, str]] = []
    for label, text in sources:
        for line in text.splitlines():
            # A whole number must be there as written: 7 days are not the 6.8 of a salary table.
            spans = [(a, b) for a, b, n in number_spans(line)
                     if (n == claim if "." not in claim else _grounded(claim, {n}, [float(n)]))]
            if spans:
                a, b = spans[0]
                head, tail = max(0, a - width), min(len(line), b + width)
                excerpt = ("…" if head else "") + line[head:tail].strip() + ("…" if tail < len(line) else "")
                out.append((label, excerpt))
                break
        if len(out) >= limit:
            break
    return out


def _grounded(claim: str, known: set[str], values: list[float]) -> bool:
    """Literally present, or a source number rounded to the claim's precision (1769.230769 -> 1769.23)."""
    if claim in known:
        return True
    decimals = len(claim.split(".")[1]) if "." in claim else 0
    target = float(claim)
    return any(round(v, decimals) == target for v in values)


#: A time of day written with an "h" between hours and minutes ("9h30", "14h", "14 h 30").
_WRITTEN_TIME = re.compile(r"(?<![\w.])([01]?\d|2[0-3])\s?h\s?([0-5]\d)?(?![\w])", re.I)


def ungrounded_numbers(answer: str, sources: list[str], citations: int | None = None) -> list[str]:
    """Numbers of ``answer`` that appear in none of ``sources``; each reported once.

    With ``citations`` (how many passages the sources hold), a marker ``[k]`` beyond them is a
    claim too (``[2]`` with no passage cites nothing)."""
    if citations is not None:
        answer = _CITATION.sub(lambda m: " " if int(m.group(0)[1:-1]) <= citations else m.group(0)[1:-1], answer)
    from engine.agent.rules.words import written_figures

    claims = _LIST_MARKER.sub(" ", _CITATION.sub(" ", answer))
    known = {n for source in sources for n in numbers_in(source)}
    known |= {f for source in sources for f in written_figures(source)}  # "one and a half times" is 1.5
    # A time as Portuguese and French write it ("até às 9h30") is the 9:30 an answer writes, and only that: its
    # minutes are no figure of their own ("30 days" stays unsourced).
    times = {(int(m.group(1)), int(m.group(2) or 0)) for source in sources for m in _WRITTEN_TIME.finditer(source)}
    if times:
        claims = re.sub(r"(?<![\w.:])(\d{1,2}):(\d{2})(?![\d:])",
                        lambda m: " " if (int(m.group(1)), int(m.group(2))) in times else m.group(0), claims)
    values = [float(n) for n in known]
    out: list[str] = []
    for n in numbers_in(claims):
        if n not in out and not _grounded(n, known, values):
            out.append(n)
    return out


_OPERAND_TEXT = r"\(?[$€£₱]?\d[\d,]*(?:\.\d+)?\)?"
_OPERATOR = r"\s*(?:[*/×÷]|(?<=\s)x(?=\s))\s*"
#: A product or quotient, or a chain of them (``78,000 / 260 × 10``).
_CALCULATION = re.compile(r"(?<![\w.])" + _OPERAND_TEXT + r"(?:" + _OPERATOR + _OPERAND_TEXT + r"){1,4}")


def written_calculation(answer: str, sources: list[str]) -> str | None:
    """A product or quotient an answer writes out (``84,000 / 2080``) instead of its result, or None.

    Small models like to leave the arithmetic to the reader; the loop sends such an answer back
    to the calculator. An expression quoted from a source (a date like ``14/07/2025`` in the
    data, a rate ``1.5 x`` in a policy) is not a calculation of the answer's own."""
    plain_sources = [_plain(source) for source in sources]
    for m in _CALCULATION.finditer(answer):
        expression = m.group(0)
        echo = re.compile(r"(?<![\d.])" + re.escape(_plain(expression)) + r"(?![\d.])")
        if any(echo.search(source) for source in plain_sources):
            continue  # quoted from a source, or working that echoes what the calculator was given
        result = _RESULT.match(answer, m.end())
        if result and _checks_out(expression, result.group(1)):
            continue  # working shown with its right result ("46,000 / 260 = 176.92")
        return expression.strip()
    return None


def as_arithmetic(expression: str) -> str:
    """A calculation as an answer writes it (``$78,000 × 10``) as calculator input (``78000 * 10``)."""
    return re.sub(r"[$€£₱,]", "", expression).replace("×", "*").replace("÷", "/").replace(" x ", " * ")


def shown_calculations(answer: str) -> list[str]:
    """The calculations an answer shows with their right result (``78,000 / 260 = 300``): the
    engine has the calculator confirm them, so the result counts as sourced like any tool result."""
    out = []
    for m in _CALCULATION.finditer(answer):
        result = _RESULT.match(answer, m.end())
        if result and _checks_out(m.group(0), result.group(1)):
            out.append(m.group(0).strip())
    return out


def derivation(claim: str, sources: list[str], stated: list[str]) -> str | None:
    """An expression of two source numbers whose result is ``claim`` (``58000 + 54000`` for
    112000), or None: an answer that adds two looked-up figures in its head states a fact of
    arithmetic, which the calculator can confirm.

    ``stated``: the numbers the answer itself states (:func:`stated_numbers`). Both operands must
    be among them ("58,000 and 54,000, together 112,000"), and a number used twice must be stated
    twice: a table of dozens of figures, or a policy's line numbers and dates, make almost any
    round figure by chance (an invented average of 100,000 as 2 * 50000). Small claims (under 10)
    are left alone, as any two small numbers make them by chance."""
    try:
        target = float(claim)
    except ValueError:
        return None
    if abs(target) < 10:
        return None
    decimals = len(claim.split(".")[1]) if "." in claim else 0
    # Figures of the sources only: not a citation marker, a line number, a row count or a date part.
    found = {n for source in sources for n in stated_numbers(_STRUCTURE.sub(" ", source))}
    known = sorted((n for n in found if n in stated and n != claim), key=lambda n: (len(n), n))[:200]
    values = [(n, float(n)) for n in known]
    for a, x in values:
        for b, y in values:
            if a == b and stated.count(a) < 2:
                continue
            for op, value in (("+", x + y), ("-", x - y), ("*", x * y), ("/", x / y if y else None)):
                if value is not None and abs(round(value, decimals) - target) < 1e-9 and (op in "-/" or a <= b):
                    return f"{a} {op} {b}"
    return None


#: Numbers of a tool's text that are not figures: "(line 12)", "(lines 10-15)", "6 rows:".
_STRUCTURE = re.compile(r"\((?:line|lines|page|p\.) [\d\s,–-]+\)|^\s*\d+ rows?:", re.M)


def stated_numbers(answer: str) -> list[str]:
    """The figures an answer states, normalised, duplicates kept: no citation markers, no list
    numbers ("1. Band A"), and no parts of dates or times (2026-11-23 states no 11 or 23)."""
    return [n for _, _, n in number_spans(_LIST_MARKER.sub(" ", answer))]


def _plain(text: str) -> str:
    # Thousands separators go; any other comma (between a function's arguments) stays a boundary.
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text).replace(",", "|")
    return re.sub(r"[\s$€£₱()]", "", text).replace("×", "*").replace("÷", "/")


_RESULT = re.compile(r"\s*=\s*[$€£₱]?(\d[\d,]*(?:\.\d+)?)")


def _checks_out(expression: str, stated: str) -> bool:
    from engine.tools.calculator import CalculatorError, evaluate  # late: the tools import this module

    try:
        value = evaluate(as_arithmetic(expression))
    except CalculatorError:
        return False
    claim = normalise_number(stated)
    decimals = len(claim.split(".")[1]) if "." in claim else 0
    return abs(round(value, decimals) - float(claim)) < 1e-9


# -- enforcing it: the final answer's grammar admits only numbers that have a source ---------------

_DIGIT_RUN = re.compile(r"\d[\d,]*(?:\.\d+)?")
#: A run of digits an answer may copy; not the digits of an ID ("H105", "E1017"), which are no figure.
_FIGURE_RUN = re.compile(r"(?<![A-Za-z\d])\d[\d,]*(?:\.\d+)?")


def _with_separators(integer: str) -> str:
    return f"{int(integer):,}"


def number_forms(sources: list[str]) -> set[str]:
    """Every way an answer may write a number that appears in ``sources``.

    A number as written (``46,000``, ``02``), without separators (``46000``), with them,
    without leading zeros, and a fraction rounded to 2, 1 or 0 decimals (``1769.230769``
    -> ``1769.23``); integers may also carry ``.00``.
    """
    forms: set[str] = set()
    for source in sources:
        for m in _FIGURE_RUN.finditer(source):
            raw = m.group(0).rstrip(",")
            forms.add(raw)
            plain = raw.replace(",", "")
            if plain.count(".") > 1 or not plain.replace(".", "").isdigit():
                continue
            whole, _, frac = plain.partition(".")
            whole = whole.lstrip("0") or "0"
            values = [(whole, frac)]
            if frac:
                value = float(f"{whole}.{frac}")
                # Rounding a computed figure (1769.230769) is fine; rounding 7.5 days to 8 is not a fact.
                for d in [d for d in (2, 1, 0) if len(frac) > max(d, 2 if d == 0 else d)]:
                    text = f"{value:.{d}f}"
                    w, _, f = text.partition(".")
                    values.append((w, f))
            else:
                values.append((whole, "00"))
            for w, f in values:
                for head in {w, _with_separators(w)}:
                    forms.add(head + ("." + f if f else ""))
                    if f and f.rstrip("0"):
                        forms.add(head + "." + f.rstrip("0"))
                    elif f:
                        forms.add(head)
    return {f for f in forms if f and f[0].isdigit() and f[-1].isdigit()}


# -- and for the calculator: its numbers must have a source too -----------------------------------

#: Numbers any calculation may use without a source: small counts, rounding digits, percent,
#: and calendar facts that hold everywhere (a policy's own figures, such as 260 working days, do not).
UNIVERSAL_CONSTANTS = frozenset({*(float(n) for n in range(13)), 24.0, 52.0, 60.0, 100.0, 365.0, 1000.0})


def unsourced_numbers(expression: str, sources: list[str]) -> list[str]:
    """Numbers of a calculator ``expression`` that no source contains (a percentage may be
    written as a fraction and back: 150 % -> 1.5, 0.15 -> 15; a figure written in words counts:
    "one and a half times" -> 1.5)."""
    from engine.agent.rules.words import written_figures

    known = {n for source in sources for n in numbers_in(source)}
    known |= {f for source in sources for f in written_figures(source)}
    values = [float(n) for n in known]
    values += [v / 100 for v in values] + [v * 100 for v in values]
    out: list[str] = []
    for m in _DIGIT_RUN.finditer(expression):
        claim = normalise_number(m.group(0).rstrip(","))
        try:
            value = float(claim)
        except ValueError:
            continue
        if value in UNIVERSAL_CONSTANTS or claim in known or claim in out:
            continue
        decimals = len(claim.split(".")[1]) if "." in claim else 0
        if not any(abs(round(v, decimals) - value) < 1e-9 for v in values):
            out.append(claim)
    return out
