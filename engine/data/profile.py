"""The signed-in person's own record, looked up before the model writes a word.

Most questions an employee asks are about themselves ("How many sick days do I have left?",
"How much would 10 days of leave pay me?", "Can I use my PTO yet?"). Code, not the model, looks
the person up: every column they may read on their own row, each amount with its unit, and the
facts a policy commonly needs computed from it as of today (years and months of service, days
since the start date, probation, part-time or full-time). Pay per month or per year is left to the
calculator: shown beside the salary, a small model took the monthly figure for the annual one. A manager also
gets their direct reports as a small table. The reporting line comes from the data, and what is
shown is decided by the access rules (:mod:`engine.data.access`) before anything is read; the
look-up is in the audit log like any query.
"""

from __future__ import annotations

import datetime as _dt
import numbers
import re
from dataclasses import dataclass, field
from typing import Any

from engine.data.employees import cell_text
from engine.data.schema import basis_period, hourly_value, infer_schema, part_time_value

#: At most this many direct reports and columns go into the prompt; the data tool answers the rest.
MAX_REPORTS = 15
MAX_REPORT_COLUMNS = 8
#: Columns that say nothing a question needs (a name is already a name).
_SKIP_ROLES = ("first_name", "last_name", "sorted_name", "email", "username")


@dataclass
class Fact:
    """One line of the record: a column's value (with its unit), or a fact computed from them."""

    label: str
    value: str
    note: str = ""
    column: str = ""  # the source column; "" for a computed fact

    def render(self) -> str:
        return f"- {self.label}: {self.value}" + (f" ({self.note})" if self.note else "")


@dataclass
class Profile:
    """What the assistant knows about the person asking, for the prompt and the window."""

    name: str
    role: str
    facts: list[Fact] = field(default_factory=list)
    computed: list[Fact] = field(default_factory=list)
    report_columns: list[str] = field(default_factory=list)
    reports: list[list[str]] = field(default_factory=list)
    reports_total: int = 0
    today: str = ""
    service_years: float | None = None  # length of service as of today, in years (fractional)
    service_text: str = ""  # the same in words ("5 full years and 7 months of service")
    service_days: int | None = None  # days since the start date
    full_time_week: float | None = None  # a part-timer's full-time week in hours (see full_time_week())
    probation: str = ""  # what the record says of the person's probation ("on probation now; Status: Probation")
    id_columns: set[str] = field(default_factory=set)  # columns that hold ids, not figures

    @property
    def found(self) -> bool:
        return bool(self.facts)

    @property
    def job_title(self) -> str:
        """The record's job title ("" where it keeps none)."""
        return next((f.value for f in self.facts if f.note.startswith("job title")), "")

    @property
    def part_time(self) -> bool:
        """The record says the person works part-time (the computed "Works" fact)."""
        return any(f.label == "Works" and f.value == "part-time" for f in self.computed)

    def render(self) -> str:
        """The record as the model reads it (inside the system prompt, after everything shared)."""
        if not self.facts:
            return f"{self.name} is not in the employee data: there is no record to look up."
        lines = ["Their record in the employee data (only they, their manager and HR may see it):"]
        lines += [f.render() for f in self.facts]
        if self.computed:
            lines.append(f"Worked out from the record as of {self.today}:")
            lines += [f.render() for f in self.computed]
        if self.reports_total:
            lines.append(f"Their direct reports ({self.reports_total}" +
                         (f", first {len(self.reports)} shown" if self.reports_total > len(self.reports) else "") + "):")
            lines.append("| " + " | ".join(self.report_columns) + " |")
            lines += ["| " + " | ".join(row) + " |" for row in self.reports]
        elif self.role == "manager":
            lines.append("Their direct reports: none found in the data.")
        return "\n".join(lines)

    def source_text(self) -> str:
        """What the record states, as a source of figures for grounding: not ids (an employee number is
        no answer to anything), nor the record's own headings."""
        facts = [f for f in self.facts + self.computed if f.column not in self.id_columns]
        lines = [f.render() for f in facts]
        lines += [" | ".join(row) for row in self.reports]
        return "\n".join(lines)

    @property
    def start(self) -> _dt.date | None:
        """The person's start date, where the record has one (see _computed's "Length of service")."""
        m = next((re.search(r"start on (\d{4}-\d{2}-\d{2})", f.note) for f in self.computed
                  if f.label == "Length of service"), None)
        return _dt.date.fromisoformat(m.group(1)) if m else None

    def fact(self, label: str) -> Fact | None:
        return next((f for f in self.facts + self.computed if f.label == label), None)


def _text(value: Any) -> str:
    return " ".join(cell_text(value).split())


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


_PROBATION = re.compile(r"probation|introductory|trial period|\bon trial\b", re.I)

def _on_probation(value: Any) -> bool:
    """Whether a status cell says probation, in any language ("Probation", "Probezeit", "période d'essai")."""
    from engine.data.vocab import vocabulary

    return isinstance(value, str) and bool(_PROBATION.search(value) or vocabulary().value_kind(value, ("probation",)))


def service(start: _dt.date, today: _dt.date) -> tuple[int, int, int]:
    """Completed years, the months after them, and days, from ``start`` to ``today``."""
    months = (today.year - start.year) * 12 + today.month - start.month - (today.day < start.day)
    months = max(months, 0)
    return months // 12, months % 12, max((today - start).days, 0)


def build_profile(data_tool, user: str, today: str, *, account: str = "", view_as: str = "") -> Profile:
    """The :class:`Profile` of ``user`` (a key the access layer understands), read as they may read it;
    ``account``/``view_as`` go into the audit entry of the look-up."""
    table = data_tool.table
    viewer = data_tool.viewer(user)
    profile = Profile(name=viewer.name or user, role=viewer.role, today=today)
    row = viewer.row
    if row is None:
        return profile
    schema = infer_schema(table)
    df = table.df
    day = _dt.date.fromisoformat(today) if today else _dt.date.today()
    pay_basis_col = table.role("pay_basis")
    hourly = hourly_value(df.at[row, pay_basis_col]) if pay_basis_col and viewer.can_read(pay_basis_col, [row]) \
        else None
    shown: list[str] = []
    for col in table.columns.values():
        if any(r in col.roles for r in _SKIP_ROLES) or not viewer.can_read(col.name, [row]):
            continue
        text = _text(df.at[row, col.name])
        if not text:
            continue
        note = ""
        unit = schema.units.get(col.name, "")
        if "pay" in col.roles:
            basis = df.at[row, pay_basis_col] if pay_basis_col and viewer.can_read(pay_basis_col, [row]) else None
            period = basis_period(basis, schema.pay_periods.get(col.name, ""))
            money = unit or ""
            per = {"hour": "per hour", "day": "per day", "week": "per week", "month": "per month", "year": "per year"}.get(
                period, "per period not stated in the data")
            note = " ".join(p for p in (money, per) if p)
            # (the basis cell named only where it decided: "Annual Salary" is per year whatever "Pay Frequency" says)
            if pay_basis_col and (hourly is not None or basis_period(basis)) \
                    and period != schema.pay_periods.get(col.name, ""):
                note += f", because {pay_basis_col} is {_text(df.at[row, pay_basis_col])}"
        elif unit:
            note = unit
        from engine.data.columns import gloss

        meaning = gloss(table, col.name)  # "Resturlaub (Tage)" is the vacation balance
        if meaning:
            note = f"{meaning}, {note}" if note else meaning
        if col.dtype == "text":
            from engine.data.vocab import vocabulary

            said = vocabulary().gloss(text)  # "Elternzeit": on parental leave
            if said and said.casefold() != text.casefold():
                note = f"{note}: {said}" if note else said
        if "manager" in col.roles:
            text = _manager_name(table, text) or text
        profile.facts.append(Fact(col.name, text, note, col.name))
        shown.append(col.name)
    profile.computed = _computed(table, viewer, row, day, schema, hourly)
    if profile.part_time:
        # A part-timer's pro-rata share is their hours over a full-time week, which the handbook often says
        # only by example ("scheduled 20 hours a week accrues half"): the data says it plainly.
        profile.full_time_week = full_time_week(table, viewer)
        if profile.full_time_week is not None:
            profile.computed.append(Fact("Full-time week", f"{_text(profile.full_time_week)} hours",
                                         "the scheduled hours per week of most full-time staff in the data"))
    probation = next((f for f in profile.computed if f.label == "Probation"), None)
    if probation is not None:
        said = ("probation " if probation.value.startswith("end") else "") + probation.value
        profile.probation = f"{said}; {probation.note}" if probation.note else said
    profile.id_columns = {c for r in ("employee_id", "manager", "username", "email") for c in table.roles.get(r, [])}
    hire = table.role("hire_date")
    if hire and viewer.can_read(hire, [row]) and df.at[row, hire] == df.at[row, hire] and df.at[row, hire] is not None:
        start = df.at[row, hire]
        start = start.date() if hasattr(start, "date") else start
        years, months, days = service(start, day)
        profile.service_years = round(days / 365.25, 2)
        profile.service_days = days
        profile.service_text = f"{_plural(years, 'full year')} and {_plural(months, 'month')} of service"
    if viewer.role == "manager":
        _add_reports(profile, data_tool, viewer)
    if data_tool.audit is not None:
        data_tool.audit.record(viewer.name, viewer.role, "(own record, looked up before the question)", True,
                               rows=1 + len(profile.reports), account=account, view_as=view_as)
    return profile


def _manager_name(table, value: str) -> str:
    """A manager given by id ("3013") or e-mail as the name of that row (directory columns everyone may
    read)."""
    from engine.data.employees import normalise_name

    name_col = table.role("name")
    key = normalise_name(value)
    for key_col in (table.role("employee_id"), table.role("email")):
        if not key_col or not name_col:
            continue
        for idx, v in table.df[key_col].items():
            if v is not None and normalise_name(v) == key:
                return f"{table.df.at[idx, name_col]} ({key_col} {value})"
    return ""


def _computed(table, viewer, row: int, day: _dt.date, schema, hourly: bool | None) -> list[Fact]:
    df = table.df
    out: list[Fact] = []
    hire = table.role("hire_date")
    if hire and viewer.can_read(hire, [row]):
        value = df.at[row, hire]
        if value is not None and value == value:
            start = value.date() if hasattr(value, "date") else value
            years, months, days = service(start, day)
            out.append(Fact("Length of service", f"{_plural(years, 'full year')} and {_plural(months, 'month')}",
                            f"{days} days since the start on {start.isoformat()}"))
    probation = table.role("probation_end")
    if probation and viewer.can_read(probation, [row]):
        value = df.at[row, probation]
        if value is not None and value == value:
            end = value.date() if hasattr(value, "date") else value
            left = (end - day).days
            out.append(Fact("Probation", f"ends on {end.isoformat()}, in {_plural(left, 'day')}" if left > 0
                            else f"ended on {end.isoformat()}"))
    kind = table.role("employment_type")
    for said in (kind, table.role("status")):
        if not said or not viewer.can_read(said, [row]) or any(f.label == "Probation" for f in out):
            continue
        # A status column that says "Probation" for some people says, for everyone else, that theirs is over.
        value = _text(df.at[row, said])
        if _on_probation(value):
            out.append(Fact("Probation", "on probation now", f"{said}: {value}"))
        elif value and any(_on_probation(v) for v in df[said]):
            out.append(Fact("Probation", "not on probation", f"{said}: {value}"))
    if kind and viewer.can_read(kind, [row]):
        part = part_time_value(df.at[row, kind])
        if part is not None:
            out.append(Fact("Works", "part-time" if part else "full-time", f"{kind}: {_text(df.at[row, kind])}"))
    hours = table.role("weekly_hours")
    if not kind and hours and viewer.can_read(hours, [row]) and (week := usual_week(table, viewer)) is not None:
        # No column says who is part-time: the data's usual week does ("Sched Hrs/Wk" 24 where most have 40).
        value = df.at[row, hours]
        if isinstance(value, numbers.Real) and value == value and 0 < float(value) <= 80:
            out.append(Fact("Works", "part-time" if float(value) < week else "full-time",
                            f"{hours}: {_text(value)}, where most people in the data have {_text(week)}"))
    fte = table.role("fte")
    if fte and viewer.can_read(fte, [row]) and not any(f.label == "Works" for f in out):
        value = df.at[row, fte]
        if isinstance(value, numbers.Real) and value == value:
            # (a share in percent, "Pensum (%)": 80 is 0.8 of a full-time post)
            share = float(value) / 100 if fte_in_percent(table) else float(value)
            out.append(Fact("Works", "full-time" if share >= 1 else "part-time", f"FTE {_text(value)}"))
    return out


def fte_in_percent(table) -> bool:
    """Whether the FTE column gives shares in percent ("Pensum (%)": 100, 80, 50) rather than fractions (1, 0.8)."""
    column = table.role("fte")
    if not column:
        return False
    values = [float(v) for v in table.df[column] if isinstance(v, numbers.Real) and v == v]
    return "%" in column or bool(values) and max(values) > 1.5


def usual_week(table, viewer) -> float | None:
    """The weekly hours at least half the people in the data are scheduled for, where that is a full week (30
    hours or more) and no one has more; None else, or where so few people have hours that the figure would
    be someone's own."""
    hours = table.role("weekly_hours")
    if not hours:
        return None
    df = table.df
    values = [float(v) for v in df[hours] if isinstance(v, numbers.Real) and v == v and 0 < float(v) <= 80]
    if len(values) < max(viewer.min_group_size, 1) and viewer.role != "hr" and not viewer.can_read(hours, list(df.index)):
        return None
    from collections import Counter

    if not values:
        return None
    week, count = Counter(values).most_common(1)[0]
    return week if count * 2 >= len(values) and week >= 30 and sum(v > week for v in values) * 10 <= len(values) else None


def full_time_week(table, viewer) -> float | None:
    """The weekly hours most full-time people in the data are scheduled for; None where the data does not
    say, or where so few full-timers have it that the figure would be someone's own (the access layer's
    smallest group for a summary)."""
    hours, kind = table.role("weekly_hours"), table.role("employment_type")
    if hours and not kind:
        return usual_week(table, viewer)
    if not hours or not kind:
        return None
    df = table.df
    full = [df.at[r, hours] for r in df.index if part_time_value(df.at[r, kind]) is False]
    full = [float(v) for v in full if isinstance(v, numbers.Real) and v == v and 0 < float(v) <= 80]
    if len(full) < max(viewer.min_group_size, 1) and viewer.role != "hr" and not viewer.can_read(hours, list(df.index)):
        return None
    if not full:
        return None
    from collections import Counter

    return Counter(full).most_common(1)[0][0]


def _add_reports(profile: Profile, data_tool, viewer) -> None:
    table = data_tool.table
    df = table.df
    rows = sorted(r for r in viewer.visible_rows if r != viewer.row)
    profile.reports_total = len(rows)
    if not rows:
        return
    name_col = table.role("name")
    cols = [name_col] if name_col else []
    skip = _SKIP_ROLES + ("manager", "preferred_name", "employee_id", "name")

    def rank(col) -> int:
        # Numbers first (balances, pay: what questions about a team compare), then dates, then a title.
        return {"int": 0, "float": 0, "date": 1}.get(col.dtype, 2)

    wanted = [c for c in table.columns.values() if not any(r in c.roles for r in skip)
              and (c.dtype != "text" or c.name.lower().endswith(("title", "position", "role"))
                   or "pay_basis" in c.roles)]  # "Hourly" / "Monthly" says what each row's pay figure is per
    for col in sorted(wanted, key=rank):
        if len(cols) >= MAX_REPORT_COLUMNS:
            break
        if viewer.can_read(col.name, rows):
            cols.append(col.name)
    profile.report_columns = cols
    profile.reports = [[_text(df.at[r, c]) for c in cols] for r in rows[:MAX_REPORTS]]
