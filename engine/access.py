"""Who may see which employee data, enforced in code before any query runs.

Default policy:

* HR: members of a department named like HR, Human Resources or People see everyone.
* A manager (anyone who appears as someone's manager) sees their own row and the
  rows of their direct reports.
* Every other employee sees their own row.
* Directory columns (name, id, department, position/title, manager, email) are
  visible for everyone; every other column is *sensitive* and can only be read
  on rows the user may see. ``hr_only`` columns are visible to HR alone.

The signed-in user comes from the app (``--user`` on the CLI), never from the
question or the model. An access policy file (TOML) changes the defaults; only
HR can change it in the app. Every query is appended to an audit log.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import re
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .employees import HR_DEPARTMENT, EmployeeTable, normalise_name

DIRECTORY_HINT = re.compile(r"position|title|job|role$|^rank$", re.I)


@dataclass
class AccessPolicy:
    hr_departments: list[str] = field(default_factory=list)  # extra department names counted as HR
    public_columns: list[str] | None = None  # None: the directory columns
    hr_only_columns: list[str] = field(default_factory=list)
    managers_see_reports: bool = True

    @classmethod
    def from_toml(cls, path: Path) -> "AccessPolicy":
        import tomllib

        from .errors import DataFileError

        try:
            data = tomllib.loads(path.read_text(encoding="utf-8")).get("access", {})
            if not isinstance(data, dict):
                raise ValueError("[access] must be a table")
            for key in ("hr_departments", "hr_only_columns", "public_columns"):
                if data.get(key) is not None and not (isinstance(data[key], list)
                                                      and all(isinstance(v, str) for v in data[key])):
                    raise ValueError(f"{key} must be a list of column or department names")
        except (OSError, UnicodeDecodeError, ValueError) as exc:  # tomllib.TOMLDecodeError is a ValueError
            # Fail closed: guessing a policy could show someone data the real one withholds.
            raise DataFileError(f"The access policy {path} cannot be read: {exc}.",
                                hint="Fix the file (UTF-8 TOML with an [access] table) or remove it; employee data "
                                     "stays unavailable until then. Policies and the calculator still work.") from None
        return cls(
            hr_departments=list(data.get("hr_departments", [])),
            public_columns=data.get("public_columns"),
            hr_only_columns=list(data.get("hr_only_columns", [])),
            managers_see_reports=bool(data.get("managers_see_reports", True)),
        )


@dataclass
class Viewer:
    """The signed-in user as the access policy sees them."""

    name: str
    row: int | None  # index of their row, None if not in the file
    role: str  # "hr", "manager" or "employee"
    visible_rows: frozenset[int]
    reports: list[str]
    public_columns: frozenset[str]
    hr_only_columns: frozenset[str]

    def can_read(self, column: str, rows) -> bool:
        """May this user read ``column`` on every row of ``rows`` (index labels)?"""
        if self.role == "hr":
            return True
        if column in self.hr_only_columns:
            return False
        if column in self.public_columns:
            return True
        if len(rows) > len(self.visible_rows):
            return False  # more rows than the user may see: some are someone else's
        return all(r in self.visible_rows for r in rows)

    def denial(self, column: str) -> str:
        if column in self.hr_only_columns:
            return f"Only HR can see '{column}'."
        if self.role == "manager":
            return f"You can see '{column}' only for yourself and your direct reports ({', '.join(self.reports)})."
        return f"You can see '{column}' only for yourself."


def find_user_row(table: EmployeeTable, user: str) -> int | None:
    """The row of the signed-in user: by name, id, email or user name (accent- and case-insensitive)."""
    key = normalise_name(user)
    if not key:
        return None
    for role in ("name", "employee_id", "email", "username"):
        col = table.role(role)
        if not col:
            continue
        matches = [int(idx) for idx, value in table.df[col].items()
                   if value is not None and value == value and normalise_name(value) == key]
        if len(matches) > 1:
            # Guessing would give one person the other's rights: name both rows instead.
            from .errors import DataFileError

            id_col = table.role("employee_id")
            which = ", ".join(f"line {m + 2}" + (f" ({table.df.at[m, id_col]})" if id_col else "") for m in matches)
            raise DataFileError(f"{len(matches)} employees match '{user}' in the column '{col}': {which}.",
                                hint="Sign in with the employee id, e-mail or user name, or make the names unique.")
        if matches:
            return matches[0]
    return None


def make_viewer(table: EmployeeTable, user: str, policy: AccessPolicy | None = None) -> Viewer:
    policy = policy or AccessPolicy()
    df = table.df
    row = find_user_row(table, user)
    name_col, id_col = table.role("name"), table.role("employee_id")
    dept_col, mgr_col = table.role("department"), table.role("manager")
    role = "employee"
    reports: list[int] = []
    if row is not None:
        if dept_col:
            dept = str(df.at[row, dept_col] or "")
            extra = {normalise_name(d) for d in policy.hr_departments}
            if HR_DEPARTMENT.match(dept) or normalise_name(dept) in extra:
                role = "hr"
        if mgr_col:
            keys = set()
            if name_col:
                keys.add(normalise_name(df.at[row, name_col]))
            if id_col:
                keys.add(normalise_name(df.at[row, id_col]))
            keys.discard("")
            reports = [int(i) for i, v in df[mgr_col].items() if v is not None and v == v
                       and normalise_name(v) in keys and i != row]
            if reports and role != "hr":
                role = "manager"
    visible = {row} if row is not None else set()
    if role == "manager" and policy.managers_see_reports:
        visible |= set(reports)
    if role == "hr":
        visible = set(int(i) for i in df.index)
    if policy.public_columns is not None:
        public = set(policy.public_columns)
    else:
        public = {c for r in ("name", "employee_id", "department", "manager", "email") for c in table.roles.get(r, [])}
        public |= {c for c in table.columns if DIRECTORY_HINT.search(c) and table.columns[c].dtype == "text"}
    public -= set(table.pay_columns)
    report_names = [str(df.at[i, name_col]) for i in reports] if name_col else [str(i) for i in reports]
    return Viewer(
        name=str(df.at[row, name_col]) if row is not None and name_col else user,
        row=row,
        role=role,
        visible_rows=frozenset(visible),
        reports=report_names,
        public_columns=frozenset(public),
        hr_only_columns=frozenset(policy.hr_only_columns),
    )


class AuditLog:
    """Append-only JSON-lines log of every data query: who, what, allowed or not."""

    _lock = threading.Lock()

    def __init__(self, path: Path) -> None:
        self.path = path

    def record(self, user: str, role: str, query: str, allowed: bool, detail: str = "", rows: int | None = None) -> None:
        entry: dict[str, Any] = {
            "time": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "user": user,
            "role": role,
            "query": query,
            "allowed": allowed,
        }
        if detail:
            entry["detail"] = detail
        if rows is not None:
            entry["rows"] = rows
        line = json.dumps(entry, ensure_ascii=False) + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                os.write(fd, line.encode("utf-8"))
            finally:
                os.close(fd)
