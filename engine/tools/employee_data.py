"""Employee-data tool: safe pandas-like queries over the employee table, with access control."""

from __future__ import annotations

import json
import math
from typing import Any

from engine.data.access import AccessPolicy, Viewer, make_viewer
from engine.data.audit import AuditSink
from engine.data.employees import EmployeeTable, cell_text
from engine.errors import AccessDenied, ModelOutputError
from engine.data.query import QueryResult, run_query
from engine.tools.base import Tool, ToolCard, ToolContext, ToolParts, ToolResult, WorkedExample

MAX_TABLE_ROWS = 20


def _gbnf_literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def py_string(text: str) -> str:
    """The Python literal the model writes for a column name (double quotes)."""
    return json.dumps(text, ensure_ascii=False)


def _json_escaped_py(text: str) -> str:
    """A column name as a single-quoted Python literal, escaped for a JSON string."""
    return json.dumps("'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'", ensure_ascii=False)[1:-1]


def _cell(v: Any) -> str:
    return cell_text(v).replace("|", "\\|").replace("\n", " ")


def _json_safe(v: Any) -> Any:
    if v is None or isinstance(v, (str, bool, int)):
        return v
    if isinstance(v, float):
        return None if math.isnan(v) else v
    if hasattr(v, "item"):
        return _json_safe(v.item())
    if hasattr(v, "strftime"):
        try:
            return v.strftime("%Y-%m-%d")
        except ValueError:
            return None
    return str(v)


def format_result(result: QueryResult) -> ToolResult:
    """A scalar as a value; a series or table as a compact Markdown table with its row count."""
    import pandas as pd

    value = result.value
    notes = result.notes
    if isinstance(value, pd.Series):
        name = str(value.name) if value.name is not None else "value"
        if value.index.names == [None]:  # plain rows: one column
            value = value.to_frame(name)
        else:  # a grouped result: the group keys become columns
            keys = [str(n) if n is not None else f"level {i}" for i, n in enumerate(value.index.names)]
            if name in keys:  # df.groupby("department")["department"].count(): the key and the figure share a name
                name = f"{name} (value)"
            frame = value.reset_index(drop=True).to_frame(name)
            for i, key in enumerate(keys):
                frame.insert(i, key, value.index.get_level_values(i))
            value = frame
    if isinstance(value, pd.DataFrame):
        total = len(value)
        shown = value.head(MAX_TABLE_ROWS)
        if isinstance(shown.index, pd.MultiIndex) or shown.index.name is not None:
            taken = {str(c) for c in shown.columns}
            shown = shown.rename_axis([f"{n} (group)" if str(n) in taken else n for n in shown.index.names])
            shown = shown.reset_index()
        cols = [str(c) for c in shown.columns]
        rows = [[_json_safe(v) for v in row] for row in shown.itertuples(index=False, name=None)]
        lines = ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
        lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in shown.itertuples(index=False, name=None)]
        head = f"{total} row{'s' if total != 1 else ''}" + (f" (first {MAX_TABLE_ROWS} shown)" if total > MAX_TABLE_ROWS else "")
        text = head + ":\n" + "\n".join(lines) if total else "No rows match."
        if notes:
            text += "\n" + " ".join(notes)
        data = {"columns": cols, "rows": rows, "row_count": total, "truncated": total > MAX_TABLE_ROWS,
                "grouped": result.grouped}
        return ToolResult(text=text, data=data, kind="table")
    if isinstance(value, list):
        text = ", ".join(_cell(v) for v in value[:50]) + (f" … ({len(value)} in all)" if len(value) > 50 else "")
        text = text or "(empty list)"
        if notes:
            text += "\n" + " ".join(notes)
        return ToolResult(text=text, data={"value": [_json_safe(v) for v in value[:1000]]}, kind="scalar")
    text = _cell(value) if value is not None else "(no value)"
    if isinstance(value, float):
        text = f"{value:.4f}".rstrip("0").rstrip(".")
    if notes:
        text += "\n" + " ".join(notes)
    return ToolResult(text=text, data={"value": _json_safe(value)}, kind="scalar")



#: The column meanings the tool's card names beside a column (who is who, pay and its basis, dates of
#: service); the others (a site, a leave balance, a status) are for code and the record, which say them.
CARD_ROLES = {"name", "employee_id", "manager", "department", "email", "username", "pay", "first_name", "last_name",
              "preferred_name", "sorted_name", "hire_date", "probation_end", "employment_type", "pay_basis",
              "weekly_hours", "fte"}

class EmployeeDataTool(Tool):
    """Answers questions about employees from the employee table, as the signed-in user may see it."""

    name = "employee_data"
    label = "the employee data"
    order = 20

    @classmethod
    def build(cls, parts: ToolParts) -> "EmployeeDataTool | None":
        # (built from the data source and the access policy before the tools, as the identity needs it first)
        return parts.data_tool

    @classmethod
    def describe_call(cls, tool_input: str) -> str:
        text = " ".join(tool_input.split())
        if text.startswith("(your own record"):
            return "Reading your record"
        if text.startswith("Rows: "):  # a query written as slots: "Rows: …; Filter: …; Result: …"
            return "Looking up the employee data: " + text.replace("Rows: ", "", 1)[:80]
        return "Looking up the employee data"

    def __init__(self, table: EmployeeTable, policy: AccessPolicy | None = None, audit: AuditSink | None = None,
                 *, demo: bool = False) -> None:
        self.table = table
        self.policy = policy or AccessPolicy()
        self.audit = audit
        self.demo = demo  # the bundled sample company: picking a persona is allowed
        self._viewers: dict[str, Viewer] = {}

    def viewer(self, user: str) -> Viewer:
        if user not in self._viewers:
            self._viewers[user] = make_viewer(self.table, user, self.policy)
        return self._viewers[user]

    # -- card -----------------------------------------------------------------------------------------
    def card(self, context: ToolContext) -> ToolCard:
        """The same for every user: columns, with examples only where anyone may read them."""
        name_col = self.table.role("name") or next(iter(self.table.columns))
        leave = [c for c in self.table.columns if "sick" in c.lower()] or \
            [c for c in self.table.columns if "leave" in c.lower() or "vacation" in c.lower()]
        target = leave[0] if leave else next(iter(self.table.columns))
        example = f'df[df[{py_string(name_col)}] == "Ana Example"][{py_string(target)}]'
        extra = ["Columns:"]
        public = self.viewer("").public_columns
        for col in self.table.columns.values():
            desc = f'{py_string(col.name)} ({col.dtype}'
            said = [r for r in col.roles if r in CARD_ROLES]
            if said:
                desc += ", " + ", ".join(r.replace("_", " ") for r in said)
            desc += ")"
            if col.examples and col.name in public:
                desc += " e.g. " + ", ".join(py_string(str(e)) for e in col.examples[:2])
            extra.append("  " + desc)
        extra.append('Select rows first, then columns. Dates: (today - df["<date column>"]).dt.days.')
        worked = WorkedExample(
            question=f"How many {target.replace('_', ' ')} do I have?" if leave else "What is in my record?",
            thought="I look up the user's own row.", tool_input=example.replace("Ana Example", "Ana Example"),
            observation=f"1 row:\n| {target} |\n|---|\n| 4 |", answer=f"You have 4 {target.replace('_', ' ')}.")
        return ToolCard(
            name=self.name,
            worked=worked,
            purpose="look up employee records (leave balances, pay, dates, managers, departments) in the HR data.",
            input_format="one pandas expression over df: filters with == != < > & | ~, .isin, .between, "
            ".str.contains, groupby(...)[col].mean/sum/min/max/count/median/nunique, sort_values, head, "
            "value_counts, len(...).",
            example=example,
            extra=extra,
        )

    def user_notes(self, context: ToolContext) -> list[str]:
        viewer = self.viewer(context.user)
        name_col = self.table.role("name") or next(iter(self.table.columns))
        me = py_string(viewer.name)
        if viewer.row is None:
            return [f"{context.user or 'The user'} is not in the employee data: only directory columns of "
                    "employee_data can be read."]
        lines = [f"In employee_data, the user's own row is df[df[{py_string(name_col)}] == {me}]."]
        if viewer.role == "hr":
            lines.append("As HR, the user may see every employee's data.")
        elif viewer.role == "manager":
            lines.append(f"The user may see the data of their direct reports ({', '.join(viewer.reports)}) and "
                         "their own; of everyone else only names, departments, titles, managers and e-mails.")
        else:
            lines.append("The user may see only their own data; of other people only names, departments, titles, "
                         "managers and e-mails.")
        return lines

    # -- grammar --------------------------------------------------------------------------------------
    _GRAMMAR = [
            "ROOT ::= \"len(\" P-frame \")\" | P-expr",
            "P-col ::= COLUMNS",
            "P-date ::= DATES",
            'P-frame ::= "df" ("[" (P-ref P-tail | P-cond (P-bool P-cond){0,3}) "]")?',
            'P-bool ::= " & " | " | "',
            'P-cond ::= "~"? "(" P-ref P-tail ")"',
            'P-ref ::= "df[" P-col "]" (".str.lower()" | ".dt." P-dtf)? | "(today - df[" P-date "]).dt.days"',
            'P-tail ::= " " P-cmp " " P-val | ".isin([" P-val (", " P-val){0,9} "])" | ".between(" P-val ", " P-val ")"'
            ' | ".str.contains(" P-str ")" | ".str.startswith(" P-str ")"',
            'P-cmp ::= "==" | "!=" | "<" | "<=" | ">" | ">="',
            'P-val ::= P-str | P-num | "True" | "False"',
            'P-str ::= "\\"" [^"\\\\\\n]{0,80} "\\""',
            'P-num ::= "-"? ("0" | [1-9] [0-9]{0,11}) ("." [0-9]{1,4})?',
            'P-int ::= "0" | [1-9] [0-9]{0,2}',
            'P-agg ::= "mean" | "sum" | "min" | "max" | "count" | "median" | "nunique"',
            'P-dtf ::= "year" | "month" | "day"',
            'P-expr ::= P-sel P-post{0,3} | P-grp P-post{0,2} | P-frame P-fpost{0,2} | P-tenure P-post{0,3}',
            'P-sel ::= P-frame "[" P-col "]" | P-frame "[[" P-col (", " P-col){0,7} "]]"',
            'P-grp ::= P-frame ".groupby(" P-col ")" ("[" P-col "]")? "." P-agg "()" | P-frame ".groupby(" P-col ").size()"',
            'P-tenure ::= "(today - " P-frame "[" P-date "]).dt.days" '
            '| "((today - " P-frame "[" P-date "]).dt.days / " P-num ")"',
            'P-post ::= "." P-agg "()" | ".value_counts()" | ".sort_values(ascending=" ("True" | "False") ")" '
            '| ".head(" P-int ")" | ".round(" P-int ")" | ".tolist()" | ".unique()" | ".dt." P-dtf | ".str.lower()" '
            '| ".nlargest(" P-int ")" | ".nsmallest(" P-int ")"',
            'P-fpost ::= ".sort_values(by=" P-col ", ascending=" ("True" | "False") ")" | ".head(" P-int ")" | ".count()"',
    ]

    def grammar_rules(self, root: str, json_string: bool = False) -> str:
        """The query grammar, generated from the loaded table: only real column names can be written.

        Inside a JSON string (a native tool call) the query quotes with ``'`` and a column
        name is written as its JSON-escaped Python literal, so the call stays valid JSON.
        """
        literal = _json_escaped_py if json_string else py_string
        cols = " | ".join(_gbnf_literal(literal(c)) for c in self.table.columns)
        dates = " | ".join(_gbnf_literal(literal(c)) for c, col in self.table.columns.items() if col.dtype == "date")
        lines = [line.replace("ROOT", root).replace("P-", f"{root}-") for line in self._GRAMMAR]
        if json_string:
            lines = [line.replace('P-str ::= "\\"" [^"\\\\\\n]{0,80} "\\""'.replace("P-", f"{root}-"),
                                  f'{root}-str ::= "\'" [^\'"\\\\\\x00-\\x1f]{{0,80}} "\'"') for line in lines]
        # Column names go in last, so no name can ever clash with a placeholder.
        lines[1] = f"{root}-col ::= {cols}"
        lines[2] = f"{root}-date ::= {dates or root + '-col'}"
        return "\n".join(lines)

    # -- run --------------------------------------------------------------------------------------------
    def run(self, tool_input: str, context: ToolContext) -> ToolResult:
        viewer = self.viewer(context.user)
        try:
            result = run_query(tool_input, self.table, viewer, context.today or None)
        except AccessDenied as exc:
            self._audit(context, viewer, tool_input, False, str(exc))
            raise
        except ModelOutputError as exc:
            self._audit(context, viewer, tool_input, False, f"invalid: {exc.message}")
            raise
        tool_result = format_result(result)
        rows = tool_result.data.get("row_count") if isinstance(tool_result.data, dict) else None
        self._audit(context, viewer, tool_input, True, rows=rows)
        return tool_result

    def _audit(self, context: ToolContext, viewer: Viewer, query: str, allowed: bool, detail: str = "",
               rows: int | None = None) -> None:
        if self.audit is not None:
            self.audit.record(viewer.name, viewer.role, query, allowed, detail, rows, account=context.account,
                              view_as=context.view_as)
