"""Who may see which employee data, enforced in code before any query runs.

Default policy:

* HR: members of a department named like HR, Human Resources or People see everyone.
* A manager (anyone who appears as someone's manager) sees their own row and the
  rows of their direct reports.
* Every other employee sees their own row.
* Directory columns (name, id, department, position/title, manager, email) are
  visible for everyone; every other column is *sensitive* and can only be read
  on rows the user may see. ``hr_only`` columns are visible to HR alone.

The signed-in user comes from the operating system (:mod:`engine.identity`), never
from the question or the model. The ``[access]`` table of the site file (which
only administrators can write) changes the defaults; no file in the user's own
folders does. Every query is appended to a hash-chained audit log.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from engine.data.employees import HR_DEPARTMENT, EmployeeTable, default_public_columns, normalise_name, unsort_name


@dataclass
class AccessPolicy:
    hr_departments: list[str] = field(default_factory=list)  # extra department names counted as HR
    public_columns: list[str] | None = None  # None: the directory columns
    hr_only_columns: list[str] = field(default_factory=list)
    managers_see_reports: bool = True

    min_group_size: int = 5  # aggregates of a sensitive column over fewer other people's rows are refused

    @classmethod
    def from_mapping(cls, data: Any, where: str) -> "AccessPolicy":
        """The policy of an ``[access]`` table; a damaged one fails closed with a clear error."""
        from engine.errors import DataFileError

        try:
            if not isinstance(data, dict):
                raise ValueError("[access] must be a table")
            unknown = sorted(set(data) - {"hr_departments", "hr_only_columns", "public_columns",
                                          "managers_see_reports", "min_group_size"})
            if unknown:
                raise ValueError(f"unknown key {unknown[0]!r}")
            for key in ("hr_departments", "hr_only_columns", "public_columns"):
                if data.get(key) is not None and not (isinstance(data[key], list)
                                                      and all(isinstance(v, str) for v in data[key])):
                    raise ValueError(f"{key} must be a list of column or department names")
            size = data.get("min_group_size", 5)
            if not isinstance(size, int) or isinstance(size, bool) or not 1 <= size <= 1000:
                raise ValueError("min_group_size must be a whole number from 1 to 1000")
            if not isinstance(data.get("managers_see_reports", True), bool):
                raise ValueError("managers_see_reports must be true or false")
        except ValueError as exc:
            # Fail closed: guessing a policy could show someone data the real one withholds.
            raise DataFileError(f"The access policy in {where} cannot be used: {exc}.",
                                hint="Ask IT to fix the [access] table of the site file; employee data stays "
                                     "unavailable until then. Policies and the calculator still work.") from None
        return cls(
            hr_departments=list(data.get("hr_departments", [])),
            public_columns=data.get("public_columns"),
            hr_only_columns=list(data.get("hr_only_columns", [])),
            managers_see_reports=data.get("managers_see_reports", True),
            min_group_size=size,
        )

    def fingerprint(self) -> str:
        """SHA-256 of the policy in force (recorded with every audit entry)."""
        body = json.dumps(dataclasses.asdict(self), sort_keys=True)
        return hashlib.sha256(body.encode()).hexdigest()


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
    min_group_size: int = 5
    pay_columns: frozenset[str] = frozenset()

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

    def check_aggregate(self, column: str, rows) -> None:
        """Refuse a summary of a sensitive column over a group so small it gives one person's value away."""
        from engine.errors import AccessDenied

        if self.role == "hr" or column in self.public_columns:
            return
        others = [r for r in rows if r != self.row]
        if column not in self.pay_columns and all(r in self.visible_rows for r in others):
            # A manager's total of their own reports' leave: each value is theirs to read already. (Pay keeps the
            # minimum group for everyone: a sum of two salaries is no figure a manager asked HR for.)
            return
        if others and len(rows) < self.min_group_size:
            raise AccessDenied(f"A summary of '{column}' over fewer than {self.min_group_size} people is not "
                               f"shown: it would give individual values away.")


ROW_KEY = "#row:"


def _exact_key(text: Any) -> str:
    import unicodedata

    if isinstance(text, float) and text.is_integer():
        text = int(text)
    return " ".join(unicodedata.normalize("NFC", str(text)).lower().split())  # not casefold: ß is no ss here


def find_user_row(table: EmployeeTable, user: str) -> int | None:
    """The row of the signed-in user: by name, id, email or user name (accent- and case-insensitive),
    or exactly the row ``#row:N`` that the identity layer pinned."""
    if re.fullmatch(r"#row:[0-9]{1,9}", user):
        row = int(user[len(ROW_KEY):])
        return row if row in table.df.index else None
    key = normalise_name(unsort_name(user))  # "Okafor, Daniel" is Daniel Okafor
    if not key:
        return None
    exact_key = _exact_key(unsort_name(user))
    for role in ("name", "employee_id", "email", "username"):
        col = table.role(role)
        if not col or col == table.role("manager"):
            continue
        # Written exactly (but for case and spaces) first: "Jürgen Müller" and "Jurgen Muller" are two people.
        matches = [int(idx) for idx, value in table.df[col].items()
                   if value is not None and value == value and _exact_key(unsort_name(value)) == exact_key]
        if not matches and exact_key == key:
            # Folded only where the name as given has nothing folding changes: "Jurgen Muller" typed without
            # umlauts finds "Jürgen Müller"; "Jürgen Müller" never finds someone written "Jurgen Muller".
            matches = [int(idx) for idx, value in table.df[col].items()
                       if value is not None and value == value and normalise_name(unsort_name(value)) == key]
        if len(matches) > 1:
            # Guessing would give one person the other's rights: name both rows instead.
            from engine.errors import DataFileError

            id_col = table.role("employee_id")
            which = ", ".join(f"line {m + 2}" + (f" ({table.df.at[m, id_col]})" if id_col else "") for m in matches)
            raise DataFileError(f"{len(matches)} employees match '{user}' in the column '{col}': {which}.",
                                hint="Sign in with the employee id, e-mail or user name, or make the names unique.")
        if matches:
            return matches[0]
    return _row_by_id(table, user)


def _id_key(value: Any) -> str:
    """A personnel number as written in any of its forms: "000101", 101 and 101.0 alike; "E-100" and "e100"."""
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    text = re.sub(r"[^0-9a-z]", "", str(value).casefold())
    return re.sub(r"\d+", lambda m: str(int(m.group(0))), text)


def _row_by_id(table: EmployeeTable, user: str) -> int | None:
    """The one row whose id is ``user`` written another way (leading zeros a number column dropped, a hyphen);
    None where none is, or several are."""
    col = table.role("employee_id")
    key = _id_key(user)
    if not col or not key or not re.search(r"\d", key):
        return None
    matches = [int(idx) for idx, value in table.df[col].items() if value == value and value is not None
               and _id_key(value) == key]
    return matches[0] if len(matches) == 1 else None


def manager_keys(table: EmployeeTable, row: int) -> set[str]:
    """What a manager column may write for the person on ``row``: their name (where nobody else has it), id,
    e-mail or user name, folded as :func:`normalise_name` folds them."""
    df = table.df
    keys = set()
    name_col = table.role("name")
    if name_col:
        name = normalise_name(df.at[row, name_col])
        # A name two people share says nothing about whose report someone is: ids only then.
        if sum(1 for v in df[name_col] if isinstance(v, str) and normalise_name(v) == name) == 1:
            keys.add(name)
            # ... and written family name first without a comma, as French and Hungarian exports write a
            # manager ("ROUSSET Bernard"), where the file gives the two parts of the name apart
            first, last = table.role("first_name"), table.role("last_name")
            if first and last and isinstance(df.at[row, first], str) and isinstance(df.at[row, last], str):
                turned = normalise_name(f"{df.at[row, last]} {df.at[row, first]}")
                # (never where it is someone else's name either way round: "Martin Thomas" beside "Thomas Martin"
                # names neither for sure)
                others = [r for r in df.index if r != row]
                if not any(normalise_name(df.at[r, name_col]) == turned or isinstance(df.at[r, first], str)
                           and isinstance(df.at[r, last], str)
                           and normalise_name(f"{df.at[r, last]} {df.at[r, first]}") == turned for r in others):
                    keys.add(turned)
    for col in (table.role("employee_id"), table.role("email"), table.role("username")):
        if col == table.role("manager"):
            continue  # (a row's manager is no key of the row itself: fail closed on a confused map)
        if col and df.at[row, col] is not None and df.at[row, col] == df.at[row, col]:
            keys.add(normalise_name(df.at[row, col]))
    keys.discard("")
    return keys


def make_viewer(table: EmployeeTable, user: str, policy: AccessPolicy | None = None) -> Viewer:
    policy = policy or AccessPolicy()
    df = table.df
    row = find_user_row(table, user)
    name_col = table.role("name")
    dept_col, mgr_col = table.role("department"), table.role("manager")
    role = "employee"
    reports: list[int] = []
    if row is not None:
        if dept_col:
            dept = str(df.at[row, dept_col] or "")
            from engine.data.columns import is_hr_department, table_languages

            mapped = table.column_map.hr_departments if table.column_map is not None else []
            extra = {normalise_name(d) for d in policy.hr_departments}
            if mapped:  # IT's confirmed map names HR: nobody else is
                is_hr = normalise_name(dept) in {normalise_name(d) for d in mapped}
            elif dept_col in table.roles.get("cost_centre", []):
                # (a department known only as a cost centre: a trainee booked to the HR cost centre is no HR; the
                # site names HR departments where it wants them)
                is_hr = normalise_name(dept) in extra
            else:
                is_hr = bool(HR_DEPARTMENT.match(dept)) or is_hr_department(dept, table_languages(table)) \
                    or normalise_name(dept) in extra
            if is_hr:
                role = "hr"
        if mgr_col:
            keys = manager_keys(table, row)
            # A manager written family name first ("Castellanos, Beatriz") is the same person.
            reports = [int(i) for i, v in df[mgr_col].items() if v is not None and v == v
                       and normalise_name(unsort_name(v)) in keys and i != row]
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
        public = default_public_columns(table.columns, table.roles)
    if table.public_cap is not None:
        public &= table.public_cap  # a user-written side file cannot make anything public
    # A derived column (a name made of first and last name) is as public as all of its parts.
    public |= {c.name for c in table.columns.values() if c.derived_from and set(c.derived_from) <= public}
    public -= set(table.pay_columns)
    public -= set(policy.hr_only_columns)
    report_names = [str(df.at[i, name_col]) for i in reports] if name_col else [str(i) for i in reports]
    return Viewer(
        name=str(df.at[row, name_col]) if row is not None and name_col else user,
        row=row,
        role=role,
        visible_rows=frozenset(visible),
        reports=report_names,
        public_columns=frozenset(public),
        hr_only_columns=frozenset(policy.hr_only_columns),
        min_group_size=policy.min_group_size,
        pay_columns=frozenset(table.pay_columns),
    )


# The audit log lives in its own module; these names stay importable from here.
from engine.data.audit import AuditLog, GENESIS, audit_file_problems, verify_audit  # noqa: E402,F401
