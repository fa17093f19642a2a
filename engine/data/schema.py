"""What an employee table's columns mean beyond who is who: units, pay basis, dates of service.

Real HR exports say the same things in different ways: a balance is kept in days in one
("Annual Leave Left") and in hours in another ("PTO Balance (hrs)"); a pay column holds an
annual salary in one, a monthly salary in the next, and in a third an hourly rate or an annual
salary depending on another column ("Pay Type": Hourly / Salary). A person's name may be one
column or two ("First Name", "Last Name"). This module reads those meanings from the headers
and the values, so the person's record can state every amount with its unit
(:mod:`engine.data.profile`), and says what it concluded (``hr-assistant whoami``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

#: Extra column meanings; the identity ones (name, id, manager, ...) are in engine.data.employees.
SEMANTIC_PATTERNS = {
    "first_name": re.compile(r"^(first|given|fore)[ _-]?names?$|^forenames?$", re.I),
    "last_name": re.compile(r"^(last|family|sur)[ _-]?names?$|^surnames?$", re.I),
    "preferred_name": re.compile(r"preferred|nick[ _-]?name|known[ _-]?as|goes[ _-]?by", re.I),
    "hire_date": re.compile(r"hire|hiring|start|join|employ(ment|ed)?[ _-]?(date|since)|date[ _-]?of[ _-]?(hire|join)"
                            r"|service[ _-]?date|seniority|entry", re.I),
    "probation_end": re.compile(r"probation|introductory|regulari[sz]ation", re.I),
    "employment_type": re.compile(r"employment[ _-]?(type|status|basis)|contract|^status$|work[ _-]?status"
                                  r"|full[ _-]?time|part[ _-]?time|^fte$|schedule[ _-]?type", re.I),
    "pay_basis": re.compile(r"pay[ _-]?(type|basis|class|frequency|group)|salary[ _-]?(type|basis)|wage[ _-]?type"
                            r"|hourly[ _/-]?(or[ _-]?)?salar|comp(ensation)?[ _-]?(type|basis)", re.I),
    "weekly_hours": re.compile(r"hours?[ _/-]*(per[ _-]?)?(wk|week)|weekly[ _-]?hours|(std|standard|scheduled|"
                               r"contract(ed)?)[ _-]?hours", re.I),
    "fte": re.compile(r"^fte$|full[ _-]?time[ _-]?equivalent", re.I),
}

_HOURS = re.compile(r"\b(hrs?|hours?)\b|\(h\)|_hrs?\b|_hours?\b", re.I)
_DAYS = re.compile(r"\bdays?\b|_days?\b", re.I)
_WEEKS = re.compile(r"\bweeks?\b", re.I)
_CURRENCY = {"usd": "USD", "$": "USD", "dollar": "USD", "eur": "EUR", "€": "EUR", "euro": "EUR", "gbp": "GBP",
             "£": "GBP", "pound": "GBP", "php": "PHP", "₱": "PHP", "peso": "PHP", "inr": "INR", "₹": "INR",
             "cad": "CAD", "aud": "AUD", "chf": "CHF", "sek": "SEK", "nok": "NOK", "dkk": "DKK", "pln": "PLN"}
_CURRENCY_RE = re.compile(r"\b(usd|eur|gbp|php|inr|cad|aud|chf|sek|nok|dkk|pln)\b|[$€£₱₹]|dollar|euro|pound|peso",
                          re.I)
#: Leave balances: a count of days or hours someone still has (or has taken).
_BALANCE = re.compile(r"leave|vacation|holiday|pto|paid[ _-]?time|sick|annual|time[ _-]?off|balance|remaining|left"
                      r"|available|accrued|taken|used|comp[ _-]?time|toil", re.I)
_MONTHLY = re.compile(r"month", re.I)
_HOURLY = re.compile(r"hour|hrly|hr\b", re.I)
_ANNUAL = re.compile(r"annual|year|yearly|p\.?a\.?\b|per[ _-]?annum", re.I)
_HOURLY_VALUE = re.compile(r"^\s*(hourly|hour|non[ _-]?exempt|wage|hrly|h)\s*$", re.I)
_SALARY_VALUE = re.compile(r"^\s*(salar(y|ied)|annual|exempt|yearly|monthly|month|year|fixed)\s*$", re.I)
_PART_TIME = re.compile(r"part[ _-]?time|\bpt\b|casual", re.I)
_FULL_TIME = re.compile(r"full[ _-]?time|\bft\b", re.I)


def column_unit(name: str, dtype: str, roles: list[str]) -> str:
    """The unit of a number column from its header: "hours", "days", "weeks", a currency code, or ""."""
    if dtype not in ("int", "float"):
        return ""
    m = _CURRENCY_RE.search(name)
    if "pay" in roles or m:
        return _CURRENCY.get(m.group(0).lower(), "") if m else ""
    if SEMANTIC_PATTERNS["weekly_hours"].search(name) or "weekly_hours" in roles and _WEEKS.search(name):
        return "hours a week"  # ("Uren per week": hours a week, not the weeks its English word "week" says)
    if _HOURS.search(name):
        return "hours"
    if _WEEKS.search(name):
        return "weeks"
    if "overtime_balance" in roles and not _DAYS.search(name):
        from engine.data.columns import header_unit

        return header_unit(name) or "hours"  # (time banked from overtime is counted in hours: "TOIL")
    if _DAYS.search(name) or _BALANCE.search(name):
        return "days"  # a leave balance with no unit in its name is kept in days almost everywhere
    from engine.data.columns import header_unit

    unit = header_unit(name)  # "Resturlaub (Tage)", "Verlofsaldo (uren)": the other languages' words
    if unit:
        return unit
    if "vacation_balance" in roles or "sick_balance" in roles:
        return "days"
    return ""


def pay_period(name: str) -> str:
    """What a pay column's header says it holds per: "hour", "month", "year" or "" (unknown)."""
    if _MONTHLY.search(name):
        return "month"
    if _HOURLY.search(name) and not re.search(r"salary", name, re.I):
        return "hour"
    if _ANNUAL.search(name) or re.search(r"salary", name, re.I):
        return "year"
    from engine.data.columns import header_period

    return header_period(name)  # "Jahresgehalt", "Salaire mensuel", "Uurloon"


def _says(value: Any, yes, no) -> bool | None:
    """True where ``yes`` finds its word in a text cell, False where ``no`` does, else None."""
    if not isinstance(value, str):
        return None
    return True if yes(value) else False if no(value) else None


def _vocab_says(value: Any, yes: str, no: str) -> bool | None:
    from engine.data.vocab import vocabulary

    kind = vocabulary().value_kind(value, (yes, no))
    return True if kind == yes else False if kind == no else None


def hourly_value(value: Any) -> bool | None:
    """Whether a pay-basis cell says "hourly" (True), "salaried" (False) or neither (None), in any language."""
    said = _says(value, _HOURLY_VALUE.match, _SALARY_VALUE.match)
    return said if said is not None else _vocab_says(value, "hourly", "salaried")


_PERIOD_VALUE = {"hour": re.compile(r"^\s*(hourly|hour|hrly|h)\s*$", re.I),
                 "day": re.compile(r"^\s*(daily|day|per[ _-]?day)\s*$", re.I),
                 "week": re.compile(r"^\s*(weekly|week)\s*$", re.I),
                 "month": re.compile(r"^\s*(monthly|month|per[ _-]?month)\s*$", re.I),
                 "year": re.compile(r"^\s*(annual|annually|yearly|year|per[ _-]?(year|annum))\s*$", re.I)}


def basis_period(value: Any, header_period: str = "") -> str:
    """The period a pay amount is per, for a row whose pay-basis cell is ``value``: the cell's own period
    ("Hourly", "Monthly", "Annual"), else for a salaried row the pay column's header period or a year,
    else the header period ("" where nothing says)."""
    if isinstance(value, str):
        from engine.data.vocab import vocabulary

        # "Weekly wage", "Annual salary", "Mensual", "Monatsgehalt": the period the cell's words name
        named = next((period for period, pattern in _PERIOD_VALUE.items() if pattern.match(value)), "") \
            or vocabulary().period(value)
        if named in ("hour", "day", "week", "month", "year"):
            # (an "Annual Salary" column beside "Pay Frequency: Monthly": how often it is paid, not what the
            # figure is per; the header's own period stands, unless the cell says the row is paid by the hour)
            return header_period if header_period and named != "hour" else named
    hourly = hourly_value(value)
    if hourly:
        return "hour"
    if hourly is False:
        return header_period if header_period in ("month", "year", "week") else "year"
    return header_period


def part_time_value(value: Any) -> bool | None:
    """Whether an employment-type cell says part-time (True), full-time (False) or neither (None), in any
    language ("Teilzeit", "temps partiel")."""
    said = _says(value, _PART_TIME.search, _FULL_TIME.search)
    return said if said is not None else _vocab_says(value, "part_time", "full_time")


def guess_semantic_roles(columns: dict, taken: set[str]) -> dict[str, list[str]]:
    """Column meanings beyond identity: name parts, hire date, pay basis, weekly hours, FTE, contract.

    ``columns``: name -> :class:`engine.data.employees.Column`; ``taken``: columns that already
    have an identity meaning (a manager's id is not a hire date)."""
    roles: dict[str, list[str]] = {}
    for name, col in columns.items():
        if name in taken:
            continue
        for role, pattern in SEMANTIC_PATTERNS.items():
            if not pattern.search(name):
                continue
            if role in ("first_name", "last_name", "preferred_name", "pay_basis") and col.dtype != "text":
                continue
            if role in ("hire_date", "probation_end") and col.dtype != "date":
                continue
            if role in ("weekly_hours", "fte") and col.dtype not in ("int", "float"):
                continue
            if role == "employment_type" and col.dtype != "text" and not SEMANTIC_PATTERNS["fte"].search(name):
                continue
            if role == "employment_type" and SEMANTIC_PATTERNS["fte"].search(name):
                continue  # FTE is its own meaning
            roles.setdefault(role, []).append(name)
            break
    # A status column that says "Probation" is about probation too, but it stays the contract column.
    for role in list(roles):
        roles[role] = roles[role][:1]
    return roles


@dataclass
class Schema:
    """What the loader concluded about the table, in words a person can check."""

    name_parts: list[str] = field(default_factory=list)  # the columns a derived name column is made of
    derived_name: str = ""  # the derived column, if any
    units: dict[str, str] = field(default_factory=dict)  # number column -> "hours", "days", a currency
    pay_basis: str = ""  # the column saying hourly or salaried, if any
    pay_periods: dict[str, str] = field(default_factory=dict)  # pay column -> "hour", "month", "year", ""

    def lines(self, table) -> list[str]:
        """What was concluded, one line each (``hr-assistant whoami``, ``data --check``)."""
        out = []
        for role in ("name", "employee_id", "username", "email", "manager", "department"):
            col = table.role(role)
            if col:
                how = f" (made of {' + '.join(self.name_parts)})" if role == "name" and self.derived_name else ""
                out.append(f"{role.replace('_', ' ')}: '{col}'{how}")
        for role in ("preferred_name", "hire_date", "probation_end", "employment_type", "fte", "weekly_hours"):
            col = table.role(role)
            if col:
                out.append(f"{role.replace('_', ' ')}: '{col}'")
        for col in table.pay_columns:
            period = self.pay_periods.get(col, "")
            if self.pay_basis:
                what = f"an amount per hour, month or year, as '{self.pay_basis}' says per row"
            else:
                what = {"hour": "an hourly rate", "day": "a daily amount", "week": "a weekly amount",
                        "month": "a monthly amount", "year": "an annual amount"}.get(
                    period, "an amount per unknown period")
            unit = self.units.get(col, "")
            out.append(f"pay: '{col}' is {what}" + (f" in {unit}" if unit else ""))
        for col, unit in self.units.items():
            if col not in table.pay_columns and unit in ("hours", "days", "weeks"):
                out.append(f"'{col}' counts {unit}")
        return out


def _unitless(name: str) -> bool:
    """Whether a header names no unit of time, in any language ("PTO Balance", not "PTO Balance (hrs)")."""
    from engine.data.columns import header_unit

    return not (_DAYS.search(name) or _HOURS.search(name) or _WEEKS.search(name) or header_unit(name))


def _hours_by_values(series) -> bool:
    """Whether a leave balance with no unit in its header holds hours: a median above 40 or any value above
    100 (days of leave left run to a few dozen; hours run to hundreds)."""
    import pandas as pd

    values = pd.to_numeric(series, errors="coerce").dropna()
    return len(values) >= 3 and (values.median() > 40 or values.max() > 100)


def infer_schema(table) -> Schema:
    """The :class:`Schema` of a loaded table (its roles are already set)."""
    schema = Schema()
    schema.pay_basis = table.role("pay_basis") or ""
    cmap = getattr(table, "column_map", None)
    unitless: list[str] = []  # leave balances whose header names no unit
    for name, col in table.columns.items():
        spec = cmap.pay.get(name, {}) if cmap is not None and "pay" in col.roles else {}
        unit = spec.get("currency") or (cmap.units.get(name) if cmap is not None else "") \
            or column_unit(name, col.dtype, col.roles)
        if unit == "days" and not (cmap is not None and cmap.units.get(name)) and _unitless(name) \
                and {"vacation_balance", "sick_balance"} & set(col.roles):
            unitless.append(name)
        if unit:
            schema.units[name] = unit
        if "pay" in col.roles:
            schema.pay_periods[name] = spec.get("period") or pay_period(name)
    # ("PTO Balance": 184.00, 121.50, 66.25 are hours, nobody has 184 days left; and a file keeps its leave in one
    # unit, so "Sick Balance" beside it, 40.00 and 24.00, is hours too)
    if any(_hours_by_values(table.df[name]) for name in unitless):
        for name in unitless:
            schema.units[name] = "hours"
    derived = [c for c in table.columns.values() if getattr(c, "derived_from", None)]
    if derived:
        schema.derived_name = derived[0].name
        schema.name_parts = list(derived[0].derived_from)
    return schema


LEAVE_TYPES = {
    "vacation": re.compile(r"vacation|annual[ _-]?leave|holiday|pto|paid[ _-]?time|^vl$", re.I),
    "sick": re.compile(r"sick|^sl$", re.I),
}


def leave_columns(table) -> dict[str, str]:
    """Leave type -> the balance column of the employee data (numeric columns only). The leave tool
    books against these, and ``admin init-db`` gives the same map to the database, which computes
    a request's balances from the employee's own row."""
    out: dict[str, str] = {}
    for kind in ("vacation", "sick"):  # the balances the column roles found, in any language, first
        cols = [c for c in table.roles.get(f"{kind}_balance", []) if table.columns[c].dtype in ("int", "float")]
        if cols:
            out[kind] = cols[0]
    for kind, pattern in LEAVE_TYPES.items():
        for name, col in table.columns.items():
            if col.dtype in ("int", "float") and pattern.search(name) and kind not in out:
                out[kind] = name
    return out
