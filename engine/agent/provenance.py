"""Where each figure of a calculation comes from, as the person reads it under the answer.

"Worked out: 676.9231 * 5 = 3384.62" says what the calculator did, not why: the working names each
figure instead, "your daily rate of 676.92 (176000 / 260) × 5 days = 3384.62", from the notes code
gave the figures it declared (the record's label, the question, the policy's definition).
"""

from __future__ import annotations

import re

from engine.agent.calc_slot import PLAIN_NUMBER, Calculation, Variable, plain_number, shown_value

_NAME = re.compile(r"\b(?!(?:round|abs|min|max|sqrt)\b)[a-z_][a-z0-9_]*\b")
_OPERATORS = {"*": "×", "/": "/"}  # (a division reads as it is written; a product as a product)


def described(variable: Variable) -> str:
    """One figure with where it comes from ("5 days", "your daily rate of 676.92 (176000 / 260)")."""
    value, note, name = variable.value, variable.note, variable.name
    shown = shown_value(value)
    if note.startswith("from the question"):
        unit = re.sub(r"_\d+$", "", name.removeprefix("asked_")) if name.startswith("asked_") else ""
        unit = "" if unit == "number" else unit
        return f"{plain_number(value)} {unit}".strip() if unit else plain_number(value)
    if " as the policy defines it: " in note:
        term, _, expression = note.partition(" as the policy defines it: ")
        return f"{term} of {shown} ({expression})"
    if note.startswith(PLAIN_NUMBER):
        return plain_number(value)
    what, _, rest = note.partition(", ")
    if name.startswith("amount_per_"):
        return f"{shown} {what}".strip()
    if name == "most_allowed":
        return f"{plain_number(value)} {what} ({rest})" if rest else plain_number(value)
    if name.startswith("part") and name.endswith("_answer"):
        return f"{shown} ({note})"
    return f"your {what} of {shown}" if what else shown


def working(lines: list[Calculation], variables: list[Variable]) -> str:
    """The calculation's lines with every figure named by where it comes from, each with its result."""
    known = {v.name: v for v in variables}
    results: dict[str, str] = {}
    out = []
    for calc in lines:
        written = " ".join(calc.code.partition(" = ")[2].split())
        if not written:
            out.append(f"{calc.shown} = {calc.text}")
            continue

        def name(m: re.Match) -> str:
            word = m.group(0)
            if word in known:
                return described(known[word])
            return results.get(word, word)

        text = _NAME.sub(name, written)
        text = re.sub(r"\s([*/])\s", lambda m: f" {_OPERATORS[str(m.group(1))]} ", text)
        out.append((f"{calc.name} = " if calc.name != "answer" else "") + f"{text} = {calc.text}")
        results[calc.name] = calc.text
    return "; ".join(out)
