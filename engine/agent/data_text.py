"""A data result as the answer shows it: its shape, a one-line summary, a short listing code writes."""

from __future__ import annotations

import re

from engine.agent.calc_slot import shown_value, variable_name
from engine.agent.slots import cut_ties


def _shape(result, query) -> tuple[str, str]:
    """A data result as the model reads it, and its single figure or name(s) when it has one."""
    data = result.data if isinstance(result.data, dict) else {}
    if query.result == "top" and data.get("rows"):
        rows = cut_ties(data["rows"], max(1, query.top))
        cols = data["columns"]
        lines = ["| " + " | ".join(cols) + " |"] + ["| " + " | ".join(_cell(v) for v in r) + " |" for r in rows]
        who = ", ".join(str(r[0]) for r in rows) if len(rows) <= 3 else ""
        head = f"{len(rows)} row{'s' if len(rows) != 1 else ''}, {query.order} {query.columns[0]} first:\n"
        return head + "\n".join(lines), who
    if query.result == "names" and data.get("rows") and len(data["rows"]) <= 12:
        return result.text, ", ".join(str(r[0]) for r in data["rows"])
    if "value" in data and not isinstance(data.get("value"), list):
        return result.text, _cell(data["value"])
    return result.text, ""


def _cell(value) -> str:
    if isinstance(value, float):
        return shown_value(value)
    return "" if value is None else str(value)


def _summary(query, result, text: str, value: str) -> str:
    """Code's one line on a data result, so the answer states what was found (not what it guesses)."""
    data = result.data if isinstance(result.data, dict) else {}
    rows = data.get("rows") or []
    if query.result == "count":
        return f"The count is {value}."
    if query.result == "names" and rows:
        names = [str(r[0]) for r in rows[:12]]
        return f"{len(rows)} {'person' if len(rows) == 1 else 'people'}: {', '.join(names)}."
    if query.result == "top" and rows:
        top = cut_ties(rows, max(1, query.top))
        who = "; ".join(f"{r[0]} ({_cell(r[-1])})" for r in top[:6])
        return f"{query.order.capitalize()} {query.columns[0]}: {who}."
    if query.result in ("average", "total", "highest", "lowest", "median") and value and not query.by:
        return f"The {query.result} of {query.columns[0]} is {value}."
    if (query.result == "count per" or query.by) and len(rows) > 1:
        ranked = sorted(rows, key=lambda r: -(r[-1] if isinstance(r[-1], (int, float)) else 0))
        what = "count" if query.result == "count per" else f"{query.result} {query.columns[0]}"
        return (f"Highest {what}: {ranked[0][0]} ({_cell(ranked[0][-1])}); lowest: {ranked[-1][0]} "
                f"({_cell(ranked[-1][-1])}).")
    return ""


_ASKS_YES_NO = re.compile(r"\s*(is|are|does|do|did|can|could|has|have|was|were|will|should)\b", re.I)
#: A data result of at most this many rows is listed whole by code (a longer one is summarised by the model).
LIST_ROWS = 12


def _listing(query, result, several: bool, names_asked: bool = False) -> str:
    """A list of names, or a small table, as the answer itself: every row the data returned, nothing else.
    ``names_asked``: the question asks who ("On my team, who works part-time?"), so a list's first column,
    the names, is the answer even inside a numbered answer or for one row (a model had written "There is 1
    person in my team who works part-time" and named nobody)."""
    data = result.data if isinstance(result.data, dict) else {}
    rows, cols = data.get("rows") or [], data.get("columns") or []
    if not 0 < len(rows) <= LIST_ROWS or data.get("truncated") or not cols:
        return ""
    who = "Your direct reports" if query.rows == "my direct reports" else "The employees"
    if query.filters:
        who += " where " + " and ".join(f"{c} {op} {v}" for c, op, v in query.filters)
    if names_asked and query.result == "list" and (several or len(rows) == 1) \
            and all(isinstance(r[0], str) and r[0].strip() for r in rows):
        rows, cols = [r[:1] for r in rows], cols[:1]  # (a list shows the names first)
    if len(cols) == 1 and (query.result == "names" or names_asked and query.result == "list"):
        names = [str(r[0]) for r in rows]
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        return f"{who} ({len(names)}): {joined}."
    if several or query.result not in ("names", "list", "count per") and not query.by:
        return ""  # a table inside a numbered answer breaks it; a single figure is the model's to state
    if query.result == "list" and len(rows) == 1:
        return ""  # one person's fields: a fact, which the model states in a sentence
    if query.result == "count per":
        title = f"Number of employees per {query.by}" + (f" ({who[0].lower()}{who[1:]})" if query.filters
                                                          or query.rows != "everyone" else "")
    elif query.by:
        title = f"{query.result.capitalize()} {query.columns[0]} per {query.by}"
    else:
        title = f"{who} ({len(rows)})"
    table = ["| " + " | ".join(str(c) for c in cols) + " |", "|" + "---|" * len(cols)]
    table += ["| " + " | ".join(_cell(v) for v in r) + " |" for r in rows]
    return f"{title}:\n\n" + "\n".join(table)


def _figures(result) -> list[tuple[str, float, str]]:
    """The figures of a small data result, named for a later calculation ("grace_mwangi_annual_salary_usd")."""
    data = result.data if isinstance(result.data, dict) else {}
    rows, cols = data.get("rows") or [], data.get("columns") or []
    if "value" in data and isinstance(data["value"], (int, float)) and not isinstance(data["value"], bool):
        return [("data_value", float(data["value"]), "the employee data's result")]
    out = []
    if 0 < len(rows) <= 6 and cols:
        for row in rows:
            for col, cell in zip(cols[1:], row[1:]):
                if isinstance(cell, (int, float)) and not isinstance(cell, bool):
                    out.append((variable_name(f"{row[0]} {col}"), float(cell), f"{col} of {row[0]}"))
    return out
