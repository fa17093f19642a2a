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
import datetime as _dt
import hashlib
import json
import os
import re
import sys
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.data.employees import HR_DEPARTMENT, EmployeeTable, default_public_columns, normalise_name


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
        if others and len(rows) < self.min_group_size:
            raise AccessDenied(f"A summary of '{column}' over fewer than {self.min_group_size} people is not "
                               f"shown: it would give individual values away.")


ROW_KEY = "#row:"


def find_user_row(table: EmployeeTable, user: str) -> int | None:
    """The row of the signed-in user: by name, id, email or user name (accent- and case-insensitive),
    or exactly the row ``#row:N`` that the identity layer pinned."""
    if re.fullmatch(r"#row:[0-9]{1,9}", user):
        row = int(user[len(ROW_KEY):])
        return row if row in table.df.index else None
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
            from engine.errors import DataFileError

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
                name = normalise_name(df.at[row, name_col])
                # A name two people share says nothing about whose report someone is: ids only then.
                if sum(1 for v in df[name_col] if isinstance(v, str) and normalise_name(v) == name) == 1:
                    keys.add(name)
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
    )


GENESIS = "0" * 64


def _line_hash(line: bytes) -> str:
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


#: The longest audit entry written (a query is at most 600 characters; details are cut to fit). Finding the
#: last entry reads at most twice this from the end, however long a line someone appended by hand.
MAX_ENTRY_BYTES = 16384


def _last_line(fd: int) -> bytes:
    """The last complete line of an open file, from a bounded tail (a 48 MB line appended to the log must
    not make every query read it: the chain breaks there anyway, and verify-audit says so)."""
    end = os.lseek(fd, 0, os.SEEK_END)
    start = max(0, end - 2 * MAX_ENTRY_BYTES)
    os.lseek(fd, start, os.SEEK_SET)
    chunks, left = [], end - start
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    body = b"".join(chunks).rstrip(b"\n")
    cut = body.rfind(b"\n")
    return body[cut + 1:] if cut >= 0 or start == 0 else body


def _bounded(entry: dict) -> bytes:
    """The entry as one JSON line of at most :data:`MAX_ENTRY_BYTES`, its free-text fields cut to fit."""
    line = json.dumps(entry, ensure_ascii=False).encode("utf-8")
    for key in ("detail", "query"):
        if len(line) < MAX_ENTRY_BYTES:
            break
        if isinstance(entry.get(key), str):
            over = len(line) - MAX_ENTRY_BYTES + 64
            text = entry[key].encode("utf-8")[:max(0, len(entry[key].encode("utf-8")) - over)]
            entry[key] = text.decode("utf-8", errors="ignore") + " …(cut)"
            line = json.dumps(entry, ensure_ascii=False).encode("utf-8")
    return line + b"\n"


class _FileLock:
    """An exclusive lock on an open file, across processes (two windows, the CLI)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self):
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            os.lseek(self.fd, 0, os.SEEK_SET)
            msvcrt.locking(self.fd, msvcrt.LK_LOCK, 1)
        else:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_EX)
        return self

    def __exit__(self, *exc) -> None:
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            os.lseek(self.fd, 0, os.SEEK_SET)
            msvcrt.locking(self.fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_UN)


class AuditLog:
    """Append-only JSON-lines log of every data query: who (the OS account, and the persona
    viewed as), what, allowed or not, and the data and access policy in force.

    Each entry carries the SHA-256 of the entry before it (``prev``), so an edited, inserted
    or deleted entry breaks the chain at that point: :func:`verify_audit` names it. A chain
    kept by the user's own account cannot stop them from rewriting the whole file, so sites
    send the audit to a place users cannot write (the site file's ``audit``) or to the
    database's insert-only table.
    """

    _lock = threading.Lock()

    def __init__(self, path: Path, *, data_hash: str = "", policy_hash: str = "") -> None:
        self.path = path
        self.data_hash = data_hash
        self.policy_hash = policy_hash

    def record(self, user: str, role: str, query: str, allowed: bool, detail: str = "", rows: int | None = None,
               *, account: str = "", view_as: str = "") -> None:
        entry: dict[str, Any] = {
            "time": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "account": account,
            "user": user,
            "role": role,
        }
        if view_as:
            entry["view_as"] = view_as
        entry.update(query=query, allowed=allowed)
        if detail:
            entry["detail"] = detail
        if rows is not None:
            entry["rows"] = rows
        if self.data_hash:
            entry["data_sha256"] = self.data_hash
        if self.policy_hash:
            entry["policy_sha256"] = self.policy_hash
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
            try:
                with _FileLock(fd):
                    last = _last_line(fd)
                    entry["prev"] = _line_hash(last) if last else GENESIS
                    os.write(fd, _bounded(entry))
            finally:
                os.close(fd)


def audit_file_problems(path: Path) -> list[str]:
    """What about a shared audit file lets the people it records read or rewrite it (POSIX; [] if nothing).

    An audit log others can read shows everyone's leave dates and balances; one they can write but
    that is not append-only (``chattr +a``) can be rewritten whole, which its hash chain cannot stop."""
    import stat

    if sys.platform == "win32":
        return []
    try:
        info = path.stat()
    except FileNotFoundError:
        return [f"{path} does not exist yet: the first person to ask would create and own it; IT creates it "
                "(owned by root, mode 0622, chattr +a)"]
    except OSError as exc:
        return [f"{path} cannot be checked ({exc.strerror})"]
    out = []
    if info.st_mode & (stat.S_IRGRP | stat.S_IROTH):
        out.append(f"{path} can be read by other accounts (mode {stat.S_IMODE(info.st_mode):o}): everyone's "
                   "entries are visible; make it 0622 or 0620")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not _append_only(path):
        out.append(f"{path} can be written by other accounts and is not append-only: an entry can be "
                   "rewritten or cut; run 'chattr +a' on it (Linux) or use the database mode")
    return out


def _append_only(path: Path) -> bool:
    """Whether the file has the append-only attribute (Linux ``chattr +a``)."""
    try:
        import array
        import fcntl

        # Write-only is enough for the ioctl, and is what an account has on the recommended 0622 file.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | getattr(os, "O_NONBLOCK", 0))
    except (ImportError, OSError):
        return bool(getattr(path.stat(), "st_flags", 0) & 0x00040004)  # BSD/macOS: UF_APPEND | SF_APPEND
    try:
        flags = array.array("l", [0])
        fcntl.ioctl(fd, 0x80086601, flags, True)  # FS_IOC_GETFLAGS
        return bool(flags[0] & 0x20)  # FS_APPEND_FL
    except OSError:
        return False
    finally:
        os.close(fd)


def verify_audit(path: Path) -> tuple[int, str]:
    """Check the hash chain of an audit log: (entries checked, '' or the first broken link)."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return 0, f"{path} cannot be read: {exc.strerror}"
    prev, n = GENESIS, 0
    for n, line in enumerate(raw.splitlines(), 1):
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise ValueError
        except ValueError:
            return n - 1, f"line {n} is not an audit entry (damaged or edited)"
        if "prev" not in entry:
            if prev == GENESIS and n == 1:
                return 0, "line 1 has no chain (written before audit chaining; start a new log)"
            return n - 1, f"line {n} has no link to the entry before it (inserted or edited)"
        if entry["prev"] != prev:
            what = "the first entry does not start the chain (entries before it were removed)" if n == 1 else \
                f"line {n} does not follow line {n - 1} (line {n - 1} was edited, or entries between were removed)"
            return n - 1, what
        prev = _line_hash(line)
    return n, ""
