"""Who ends the employment: a question about the employer's notice ("if the company let me go") is not
answered by the rule for resigning ("If you resign, your notice period is one month"), nor the other way round.

The words of each side are the ``ended_by_employer`` and ``ended_by_employee`` families of the rule-words files
(engine/agent/rules/lang/*.toml), every language at once: a handbook in English answers a question in Dutch.
"""

from __future__ import annotations

from engine.agent.rules.words import in_any_language


def side_of(text: str) -> str:
    """"employer" or "employee" where ``text`` speaks of the employment ended by that side only, "" else."""
    employer = bool(in_any_language("ended_by_employer").search(text))
    employee = bool(in_any_language("ended_by_employee").search(text))
    return "employer" if employer and not employee else "employee" if employee and not employer else ""


def other_side(units, question: str) -> set[str]:
    """Labels of the ``units`` about the other side's ending than the one ``question`` asks about, where some
    unit speaks of the question's side (without one, nothing is left out: the model reads what there is)."""
    asked = side_of(question)
    if not asked:
        return set()
    sides = {u.label: side_of(u.text) for u in units}
    if asked not in sides.values():
        return set()
    return {label for label, side in sides.items() if side and side != asked}
