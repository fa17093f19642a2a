"""Leave requests: the company calendar, a prepared request, and the store it goes to on approval.

The agent can only *prepare* a request (:class:`~engine.tools.leave_request.LeaveRequestTool`):
the working days it covers (weekends and public holidays from the calendar file left out, half
days counted as 0.5) and the balance before and after, from the employee's own record. Nothing
is stored until the person approves the exact request (:meth:`RequestStore.submit`); a
rejected one is only written to the audit log.

A filed request is pending. At a site with a database, the employee's manager (the data's
reporting line) or HR approves or declines it, with a reason, and the employee may cancel it
while it is pending; the database enforces who may do which (engine.data.database). In
single-user mode the request stays in the person's own file, which they may cancel from; a site
that shares an employee file without a database refuses requests (:class:`NoSharedStore`).
"""

from __future__ import annotations

import csv
import os
import datetime as _dt
import io
import re
import sqlite3
import threading
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from engine.errors import AccessDenied, DataFileError, RequestRefused, SetupError

if TYPE_CHECKING:
    from engine.data.audit import AuditSink
    from engine.data.database import DatabaseRequestStore
    from engine.site import Site

MAX_SPAN_DAYS = 92  # one request covers at most a quarter; longer leave is arranged with HR
WEEKEND = (5, 6)  # Saturday, Sunday
_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass
class Calendar:
    """Working days: Monday to Friday, less the public holidays of the calendar file."""

    holidays: dict[_dt.date, str] = field(default_factory=dict)
    source: str = ""
    weekend: tuple[int, ...] = WEEKEND

    @classmethod
    def load(cls, path: str | Path | None) -> "Calendar":
        """Read ``date,name`` lines (ISO dates; a header and ``#`` comments allowed). A missing
        path gives a calendar without holidays; a bad line is an error that names it."""
        if not path:
            return cls()
        path = Path(path)
        try:
            text = path.read_text(encoding="utf-8-sig")
        except FileNotFoundError:
            return cls(source=f"{path} (missing: no public holidays)")
        except (OSError, UnicodeDecodeError) as exc:
            raise DataFileError(f"The holiday calendar {path} cannot be read ({exc}).",
                                hint="Save it as UTF-8 text with lines 'YYYY-MM-DD,Holiday name'.") from exc
        holidays: dict[_dt.date, str] = {}
        for n, row in enumerate(csv.reader(io.StringIO(text)), start=1):
            if not row or not row[0].strip() or row[0].lstrip().startswith("#"):
                continue
            value = row[0].strip()
            if n == 1 and not _DATE.match(value):
                continue  # a header line
            try:
                day = _dt.date.fromisoformat(value)
            except ValueError:
                raise DataFileError(f"Line {n} of the holiday calendar {path.name} has {value!r}, not a date.",
                                    hint="Write dates as YYYY-MM-DD, e.g. 2026-12-25,Christmas Day.") from None
            holidays[day] = (row[1].strip() if len(row) > 1 else "") or "public holiday"
        return cls(holidays, str(path))

    def working_days(self, start: _dt.date, end: _dt.date) -> tuple[list[_dt.date], list[str]]:
        """The working days from ``start`` to ``end`` (inclusive), and what was left out and why."""
        days, skipped = [], []
        day = start
        while day <= end:
            if day.weekday() in self.weekend:
                pass
            elif day in self.holidays:
                skipped.append(f"{day.isoformat()} ({self.holidays[day]})")
            else:
                days.append(day)
            day += _dt.timedelta(days=1)
        return days, skipped


@dataclass
class LeaveRequest:
    """A prepared leave request: exactly what the person sees, approves and what is stored."""

    id: str
    employee: str  # the name in the employee data
    leave_type: str  # "vacation", "sick", …
    balance_column: str
    start: str  # ISO dates
    end: str
    days: list[str]  # the working days it takes
    half_start: bool
    half_end: bool
    day_count: float
    balance_before: float
    balance_after: float
    prepared_by: str  # the OS account
    prepared_at: str
    skipped: list[str] = field(default_factory=list)  # holidays inside the range
    status: str = "prepared"  # prepared → pending (approved by the person, waiting for HR) | rejected
    kind: str = "leave_request"

    def to_dict(self) -> dict:
        return asdict(self)

    def summary(self) -> str:
        half = [w for w, on in (("half day at the start", self.half_start), ("half day at the end", self.half_end)) if on]
        days = ", ".join(self.days[:10]) + (f" … ({len(self.days)} in all)" if len(self.days) > 10 else "")
        text = (f"{self.leave_type} leave for {self.employee}, {self.start} to {self.end}: {_num(self.day_count)} "
                f"working day{'s' if self.day_count != 1 else ''} ({days}{'; ' + ', '.join(half) if half else ''}). "
                f"{self.balance_column}: {_num(self.balance_before)} now, {_num(self.balance_after)} after.")
        if self.skipped:
            text += " Not counted: " + ", ".join(self.skipped) + "."
        return text


def _num(value: float) -> str:
    return str(int(value)) if value == int(value) else f"{value:g}"


def prepare(employee: str, leave_type: str, balance_column: str, balance: float, start: _dt.date, end: _dt.date,
            calendar: Calendar, *, half_start: bool = False, half_end: bool = False,
            account: str = "") -> LeaveRequest:
    """A request for the working days from ``start`` to ``end``; refused (:class:`ValueError` with
    the reason) when the range is empty or backwards, too long, or larger than the balance."""
    if end < start:
        raise ValueError(f"The leave ends ({end}) before it starts ({start}).")
    if (end - start).days >= MAX_SPAN_DAYS:
        raise ValueError(f"A request covers at most {MAX_SPAN_DAYS} days; ask HR for longer leave.")
    days, skipped = calendar.working_days(start, end)
    if not days:
        raise ValueError(f"{start} to {end} has no working day (weekend or public holiday).")
    if len(days) == 1 and half_start and half_end:
        half_end = False  # one day, half: counted once
    count = len(days) - 0.5 * (half_start and days[0] == start) - 0.5 * (half_end and days[-1] == end)
    if count > balance:
        raise ValueError(f"The request takes {_num(count)} days, but {employee} has {_num(balance)} "
                         f"{balance_column.replace('_', ' ')}.")
    now = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
    return LeaveRequest(uuid.uuid4().hex[:12], employee, leave_type, balance_column, start.isoformat(), end.isoformat(),
                        [d.isoformat() for d in days], half_start, half_end, count, balance, balance - count,
                        account, now, skipped)


STORE_COLUMNS = ("id", "employee", "leave_type", "start", "end", "day_count", "balance_before", "balance_after",
                 "days", "prepared_by", "prepared_at", "approved_at", "status", "db_user", "decided_by", "decided_at",
                 "decision_reason")  # db_user and the decision: site mode


class RequestStore:
    """Approved requests in a SQLite file (single-user mode): written only by :meth:`submit`."""

    _lock = threading.Lock()
    refuses = False  # (see NoSharedStore)
    reason = hint = ""  # why and what to do, where a store refuses

    @classmethod
    def default(cls, site: Site | None = None) -> RequestStore | NoSharedStore | DatabaseRequestStore:
        """Where filed requests go: the site database in site mode (its ``leave_requests`` table, as the
        OS account's role); nowhere at a site that shares an employee file without a database (see
        :class:`NoSharedStore`); else ``leave-requests.sqlite`` in the user data folder."""
        from engine.settings import data_dir
        from engine.site import load_site

        site = site if site is not None else load_site()
        if site.database:
            from engine.data.database import DatabaseRequestStore, role_name
            from engine.identity import os_account

            return DatabaseRequestStore(site.database, role_name(os_account()))
        if site.active and site.employees:
            return NoSharedStore(site.path)
        return cls(data_dir() / "leave-requests.sqlite")

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            _private(self.path)
            with self._connect() as db:
                db.execute("CREATE TABLE IF NOT EXISTS leave_requests (id TEXT PRIMARY KEY, employee TEXT NOT NULL, "
                           "leave_type TEXT NOT NULL, start TEXT NOT NULL, \"end\" TEXT NOT NULL, day_count REAL NOT "
                           "NULL, balance_before REAL, balance_after REAL, days TEXT NOT NULL, prepared_by TEXT, "
                           "prepared_at TEXT, approved_at TEXT NOT NULL, status TEXT NOT NULL)")
        except (OSError, sqlite3.Error) as exc:
            raise SetupError(f"The leave request store {self.path} cannot be opened ({exc}).",
                             hint="Check that the folder is writable and the file is not damaged.") from exc

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def submit(self, request: LeaveRequest) -> None:
        """Store an approved request as pending (HR decides next)."""
        approved = _dt.datetime.now().astimezone().isoformat(timespec="seconds")
        with self._lock, self._connect() as db:
            db.execute("INSERT INTO leave_requests VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)",
                       (request.id, request.employee, request.leave_type, request.start, request.end,
                        request.day_count, request.balance_before, request.balance_after, " ".join(request.days),
                        request.prepared_by, request.prepared_at, approved, "pending"))
        request.status = "pending"

    def decide(self, request_id: str, status: str, reason: str = "") -> dict:
        """Cancel one of this file's pending requests. Approving or declining needs a manager or HR,
        who only exist at a site with a database: a file the person can write decides nothing."""
        if status != "cancelled":
            raise RequestRefused("In single-user mode nobody else sees your requests, so nobody can approve or "
                                 "decline them here.", hint="Leave requests are decided at sites with a database.")
        with self._lock, self._connect() as db:
            found = db.execute("UPDATE leave_requests SET status = 'cancelled' WHERE id = ? AND status = 'pending'",
                               (request_id,)).rowcount
        if not found:
            raise RequestRefused(f"There is no pending leave request {request_id}.",
                                 hint="'hr-assistant requests --all' lists them.")
        return next(r for r in self.list(None) if r["id"] == request_id)

    def list(self, status: str | None = "pending") -> list[dict]:
        with self._connect() as db:
            db.row_factory = sqlite3.Row
            sql = "SELECT * FROM leave_requests" + (" WHERE status = ?" if status else "") + " ORDER BY approved_at, id"
            return [dict(r) for r in db.execute(sql, (status,) if status else ())]

    def export_csv(self, status: str | None = "pending") -> str:
        return requests_csv(self.list(status))


class NoSharedStore:
    """A site that shares an employee file but has no database: a request would have to live in a file
    its employee can edit and others could read, and no manager or HR could decide it from there. So
    requests are refused, saying why, rather than stored where they cannot be trusted."""

    refuses = True

    def __init__(self, site_path) -> None:
        self.path = f"none (the site file {site_path} names no [database])"
        self.reason = ("Leave requests at this site need the site database: with a shared employee file alone, "
                       "a request could only be kept where its employee can change it and no manager sees it.")
        self.hint = "File it the usual way, or ask IT to set up the site database ('hr-assistant admin init-db')."

    def submit(self, request) -> None:
        raise RequestRefused(self.reason, hint=self.hint)

    def decide(self, request_id: str, status: str, reason: str = "") -> dict:
        raise RequestRefused(self.reason, hint=self.hint)

    def list(self, status: str | None = "pending") -> list[dict]:
        return []


def _private(path: Path) -> None:
    """The request file readable by its owner only (dates and balances are personal); SQLite gives its
    journal the same mode. An existing file of ours that others could read is made private."""
    if os.name != "posix":
        return  # the user's own data folder (AppData) is private on Windows
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        return
    info = path.stat()
    if info.st_mode & 0o077 and info.st_uid == os.getuid():
        path.chmod(0o600)


def visible_to(rows: list[dict], viewer) -> list[dict]:
    """The requests a person is shown: all for HR; their own and their direct reports' otherwise. At a
    site the database already returned only these (this is the app's second wall); in single-user
    mode the file is the OS account's own, and this keeps each persona of the sample company to theirs."""
    if viewer is None:
        return []
    if viewer.role == "hr":
        return rows
    names = {viewer.name, *getattr(viewer, "reports", [])}
    hidden = set(getattr(viewer, "hr_only_columns", ()))
    out = []
    for r in rows:
        if r.get("employee") not in names:
            continue
        # A report's balance in a column the employee table keeps for HR is not the manager's to read here
        # either; a row that does not say which column it books against is treated as such where any is.
        column = r.get("balance_column")
        if r.get("employee") != viewer.name and hidden and (column is None or column in hidden):
            r = {**r, "balance_before": None, "balance_after": None}
        out.append(r)
    return out


def export_csv(store, status: str | None = "pending") -> str:
    """HR's CSV of a store's requests (the SQLite file or the site database)."""
    return requests_csv(store.list(status))


def requests_csv(rows: list[dict]) -> str:
    """Stored requests as CSV for HR's spreadsheet."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=STORE_COLUMNS, extrasaction="ignore", lineterminator="\n")
    writer.writeheader()
    for row in rows:
        # A cell that starts like a formula is written as text, so a spreadsheet never runs it.
        # ("" in "=+-@" is true: an empty cell must stay empty, not become "'".)
        writer.writerow({k: ("'" + v if isinstance(v, str) and v and v[0] in "=+-@\t\r" else v)
                         for k, v in row.items()})
    return out.getvalue()


class LeaveDesk:
    """Holds prepared requests until the person decides; every step goes to the audit log."""

    def __init__(self, store: RequestStore | NoSharedStore | DatabaseRequestStore,
                 audit: AuditSink | None = None) -> None:
        self.store = store
        self.audit = audit
        self._prepared: dict[str, tuple[LeaveRequest, str]] = {}  # id -> (request, account that prepared it)
        self._lock = threading.Lock()

    def hold(self, request: LeaveRequest, context) -> None:
        with self._lock:
            self._prepared[request.id] = (request, context.account)
        self._record(context, request, "prepared", True)

    def decide(self, request_id: str, approve: bool, context) -> LeaveRequest:
        """Approve (store as pending) or reject (discard) a prepared request of this account.
        Only the engine's own copy is used: nothing the window sends can change what is stored."""
        with self._lock:
            held = self._prepared.get(request_id)
            if held is None or held[1] != context.account:
                raise AccessDenied("There is no prepared leave request with that id for you.")
            del self._prepared[request_id]
        request = held[0]
        if approve:
            self.store.submit(request)
        else:
            request.status = "rejected"
        self._record(context, request, "approved" if approve else "rejected", True)
        return request

    def act(self, request_id: str, status: str, context, reason: str = "") -> dict:
        """Approve, decline or cancel a filed request (``status``: approved/declined/cancelled); the
        store decides whether this person may (the database at a site). Audited either way."""
        try:
            row = self.store.decide(request_id, status, reason)
        except (AccessDenied, RequestRefused) as exc:
            self._note(context, f"leave request {request_id} {status} refused: {exc.message}", False, request_id)
            raise
        self._note(context, f"leave request {status}: {row.get('employee')} {row.get('leave_type')} leave "
                            f"{row.get('start')} to {row.get('end')}" + (f"; reason: {reason}" if reason else ""),
                   True, request_id)
        return row

    def _note(self, context, text: str, allowed: bool, request_id: str) -> None:
        if self.audit is not None:
            self.audit.record(context.name or context.user, context.role, text, allowed, detail=f"request {request_id}",
                              account=context.account, view_as=context.view_as)

    def pending(self) -> list[LeaveRequest]:
        with self._lock:
            return [r for r, _ in self._prepared.values()]

    def _record(self, context, request: LeaveRequest, what: str, allowed: bool) -> None:
        if self.audit is not None:
            self.audit.record(context.name or context.user, context.role, f"leave request {what}: {request.summary()}",
                              allowed, detail=f"request {request.id}", account=context.account,
                              view_as=context.view_as)
