"""What to try first: starter questions for the signed-in person's role, and the sample company's personas.

Both are made by code from the data the app has (its columns, the person's role, the procedures HR
wrote), never from a fixed list of names or figures: on a company's own export the chips ask about
the balances that export keeps, in its unit, and a procedure's chip exists only where HR wrote one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.data.access import make_viewer

#: At most this many chips: a newcomer reads them at a glance.
MAX_STARTERS = 5


@dataclass(frozen=True)
class Persona:
    """Someone to try the sample company as."""

    name: str
    role: str  # "employee", "manager" or "hr"
    sees: str  # one line: what this person may see


def _unit(column: str) -> str:
    return "hours" if re.search(r"hours?|hrs?\b|_h$", column, re.I) else "days"


def _balance_words(kind: str, column: str) -> str:
    """"vacation days", "sick days", "PTO hours": the balance as the column names it."""
    if re.search(r"\bpto\b|^pto|_pto", column, re.I):
        word = "PTO"
    elif kind == "vacation" and re.search(r"annual", column, re.I):
        word = "annual leave"
    elif kind == "vacation" and re.search(r"holiday", column, re.I):
        word = "holiday"
    else:
        word = kind
    return f"{word} {_unit(column)}"


def starter_questions(table, role: str, procedure_titles: list[str] | tuple[str, ...] = ()) -> list[str]:
    """Questions the assistant answers from this data for a person of ``role`` ("" = not in the data:
    policies and procedures only), most useful first."""
    from engine.data.schema import leave_columns

    balances = [(kind, _balance_words(kind, col)) for kind, col in leave_columns(table).items()] if table else []
    out: list[str] = []
    if role:
        if balances:
            out.append(f"How many {balances[0][1]} do I have left?")
        if role == "manager" and table.role("manager"):
            out.append("Who reports to me?")
            if balances:
                kind = balances[-1][1]
                out.append(f"Which of my direct reports has the fewest {kind} left?")
        elif role == "hr":
            if table.role("department"):
                out.append("How many employees are in each department?")
            if balances:
                out.append(f"Who has the most {balances[0][1]} left?")
        elif len(balances) > 1:
            out.append(f"How many {balances[1][1]} do I have left?")
    if balances:
        word = balances[0][1].rsplit(" ", 1)
        out.append(f"Can I carry over unused {word[0]} {word[1]} to next year?")
    for title in procedure_titles:
        # "Apply for parental leave" -> "How do I apply for parental leave?"
        words = title.strip().rstrip(".?")
        if words and len(out) < MAX_STARTERS:
            out.append(f"How do I {words[0].lower()}{words[1:]}?")
            break
    return out[:MAX_STARTERS]


def sample_personas(data_tool) -> list[Persona]:
    """One employee, one manager and one HR person of the sample company (those that exist), with what
    each may see, decided by the same access rules the assistant applies."""
    table = data_tool.table
    name_col = table.role("name")
    if not name_col:
        return []
    viewers = []
    for name in table.df[name_col]:
        if isinstance(name, str) and name.strip():
            viewers.append(make_viewer(table, name, data_tool.policy))
    employees = [v for v in viewers if v.role == "employee"]
    # A team lead rather than the chief executive: the smallest team of two or more shows a manager's view.
    managers = sorted((v for v in viewers if v.role == "manager" and len(v.reports) >= 2), key=lambda v: len(v.reports))
    hr = [v for v in viewers if v.role == "hr"]
    out = []
    if employees:
        out.append(Persona(employees[0].name, "employee", "sees their own record (pay, leave balances) and the policies"))
    if managers:
        m = managers[0]
        out.append(Persona(m.name, "manager", f"sees their own record and those of their {len(m.reports)} direct reports"))
    if hr:
        out.append(Persona(hr[0].name, "hr", "sees every employee's record and company-wide figures"))
    return out
