"""The column map: what IT confirms each column of the employee export means.

It lives in the site file's ``[columns]`` table or in ``<file>.toml`` beside the data, and
``hr-assistant data --check --write-map FILE`` writes the inferred one for review::

    [columns]
    confirmed = true                 # the map is complete: nothing is guessed beside it
    employee_id = "Personalnummer"
    first_name = "Vorname"
    last_name = "Name"
    manager = "Vorgesetzter (Pers.-Nr.)"
    pay = ["Jahresgehalt (EUR)"]

    [columns.format]
    decimal = ","                    # "4.850,00" is 4850
    dates = "day-first"              # "03.04.2019" is 3 April

    [columns.units]
    "Resturlaub (Tage)" = "days"

    [columns.money]
    "Jahresgehalt (EUR)" = { period = "year", currency = "EUR" }

    [columns.hr]
    departments = ["Personal"]       # who is HR (site file or a root-owned side file only)

Every column it names is checked against the file on every load: a renamed or missing column is
an error naming it, never a silent guess.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from engine.errors import DataFileError

_UNITS = ("hours", "days", "weeks", "hours a week")
_PERIODS = ("hour", "day", "week", "month", "year")
_TABLES = ("format", "units", "money", "hr")


def _bad(source: str, what: str, hint: str) -> DataFileError:
    return DataFileError(f"The column map in {source} {what}.", hint=hint)


@dataclass
class ColumnMap:
    """The confirmed meanings beyond role -> column: number and date conventions, units, pay periods, HR."""

    source: str = ""
    confirmed: bool = False
    decimal: str = ""
    dates: str = ""
    units: dict[str, str] = field(default_factory=dict)
    pay: dict[str, dict[str, str]] = field(default_factory=dict)
    hr_departments: list[str] = field(default_factory=list)
    roles: dict[str, Any] = field(default_factory=dict)  # the role lines as written (checked by the loader)
    notes: list[str] = field(default_factory=list)

    @classmethod
    def parse(cls, conf: dict[str, Any], source: str, trust: str = "site") -> "ColumnMap":
        """Read a ``[columns]`` table. ``trust``: "site" (IT's file: everything), "own" (the user's side
        file beside their own data: everything but who is HR), "none" (a file someone else could have
        written: nothing but pay columns, which only ever make data more private)."""
        cmap = cls(source=source)
        for table in _TABLES:
            if table in conf and not isinstance(conf[table], dict):
                raise _bad(source, f"gives {conf[table]!r} for {table}, which is a table",
                           f"Write it as [columns.{table}] with one line per setting (README: the column map).")
        unknown = sorted(k for k, v in conf.items() if isinstance(v, dict) and k not in _TABLES)
        if unknown:
            raise _bad(source, f"has a table [columns.{unknown[0]}] it does not know",
                       "Its tables are [columns.format], [columns.units], [columns.money] and [columns.hr].")
        cmap.roles = {k: v for k, v in conf.items() if not isinstance(v, dict) and k != "confirmed"}
        if trust == "none":
            ignored = [k for k in conf if k in _TABLES and k != "hr" or k == "confirmed"]
            if "hr" in conf:
                cmap.notes.append(f"who is HR ([columns.hr] in {source}) was ignored: only IT's column map (the site "
                                  "file, or a side file root owns) says who is HR")
            if ignored:
                cmap.notes.append(f"the column map's {', '.join(ignored)} in {source} were ignored: a user could have "
                                  "written that file; IT sets them in the site file's [columns]")
            return cmap
        confirmed = conf.get("confirmed", False)
        if not isinstance(confirmed, bool):
            raise _bad(source, f"gives {confirmed!r} for confirmed", "Write confirmed = true or confirmed = false.")
        cmap.confirmed = confirmed
        fmt = conf.get("format", {})
        decimal = fmt.get("decimal", "")
        if decimal not in ("", ",", "."):
            raise _bad(source, f"gives {decimal!r} as the decimal mark", 'Write decimal = "," or decimal = ".".')
        dates = fmt.get("dates", "")
        if dates not in ("", "day-first", "month-first", "iso"):
            raise _bad(source, f"gives {dates!r} for the date order",
                       'Write dates = "day-first" (31.12.2026), "month-first" (12/31/2026) or "iso".')
        unknown_fmt = sorted(set(fmt) - {"decimal", "dates"})
        if unknown_fmt:
            raise _bad(source, f"has '{unknown_fmt[0]}' under [columns.format]", "It takes decimal and dates.")
        cmap.decimal, cmap.dates = decimal, "" if dates == "iso" else dates
        for column, unit in conf.get("units", {}).items():
            if unit not in _UNITS:
                raise _bad(source, f"gives {unit!r} as the unit of '{column}'",
                           f"A unit is one of: {', '.join(_UNITS)}.")
            cmap.units[column] = unit
        for column, spec in conf.get("money", {}).items():
            spec = {"period": spec} if isinstance(spec, str) else spec
            if not isinstance(spec, dict) or spec.get("period", "") not in ("", *_PERIODS) \
                    or set(spec) - {"period", "currency"}:
                raise _bad(source, f"gives {spec!r} for the pay column '{column}'",
                           'Write "Column" = { period = "year", currency = "EUR" } (period: hour, week, month, year).')
            cmap.pay[column] = {k: str(v) for k, v in spec.items()}
        hr = conf.get("hr", {})
        if hr:
            if trust != "site":
                cmap.notes.append(f"who is HR ([columns.hr] in {source}) was ignored: only IT's column map (the site "
                                  "file, or a side file root owns) says who is HR")
            else:
                departments = hr.get("departments", [])
                if not isinstance(departments, list) or not all(isinstance(d, str) for d in departments) \
                        or set(hr) - {"departments"}:
                    raise _bad(source, "has a [columns.hr] it cannot read", 'Write departments = ["Personal"].')
                cmap.hr_departments = list(departments)
        return cmap

    def merged(self, other: "ColumnMap") -> "ColumnMap":
        """This map with ``other``'s settings over it (the site file's over a side file's)."""
        return ColumnMap(
            source=other.source if other.roles or other.confirmed else self.source,
            confirmed=self.confirmed or other.confirmed,
            decimal=other.decimal or self.decimal, dates=other.dates or self.dates,
            units={**self.units, **other.units}, pay={**self.pay, **other.pay},
            hr_departments=other.hr_departments or self.hr_departments,
            roles={**self.roles, **other.roles}, notes=self.notes + other.notes)

    def check_columns(self, columns: dict, label: str) -> None:
        """Every column the map names must be in the file (a renamed column is an error, not a guess)."""
        for what, names in (("units", self.units), ("money", self.pay)):
            for column in names:
                if column not in columns:
                    raise DataFileError(f"The column map names '{column}' under [columns.{what}], but {label} has no "
                                        "such column.", hint=f"Its columns are: {', '.join(columns)}.")

    @property
    def present(self) -> bool:
        return bool(self.roles or self.confirmed or self.decimal or self.dates or self.units or self.pay)


def _toml_str(text: str) -> str:
    """A TOML basic string: quotes, backslashes and control characters escaped, so any header reads back."""
    out = []
    for ch in text:
        if ch in ('"', "\\"):
            out.append("\\" + ch)
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def _comment(text: str) -> str:
    """Text for a TOML comment: on one line, without control characters."""
    return "".join(ch if ch.isprintable() else " " for ch in str(text))


def _toml_key(text: str) -> str:
    return text if text.replace("_", "").isalnum() and text.isascii() else _toml_str(text)


def write_map(table) -> str:
    """The inferred map of a loaded table as TOML for IT to review (``data --check --write-map``)."""
    from engine.data.columns import ROLES, MULTI
    from engine.data.schema import infer_schema

    schema = infer_schema(table)
    lines = [f"# Column map for {_comment(table.source)}, written by hr-assistant data --check --write-map.",
             "# Check every line against the file, correct what is wrong, then set confirmed = true: the app then",
             "# uses exactly this map and guesses nothing. Put it beside the data as <file>.toml (root-owned at a",
             "# site) or paste it into the site file.",
             "[columns]", "confirmed = false"]
    for role in ROLES:
        cols = [c for c in table.roles.get(role, []) if not table.columns[c].derived_from]
        if role == "name" and not cols and len(schema.name_parts) == 2:
            lines.append(f"# name: made of {_comment(' + '.join(schema.name_parts))} (first_name and last_name below)")
            continue
        if role == "name" and not cols and table.roles.get("sorted_name"):
            cols = list(table.roles["sorted_name"][:1])  # "Okafor, Daniel": the column as written
        finding = table.findings.get(role)
        if not cols and finding is not None and finding.suggested:
            lines.append(f"# {role} = {_toml_str(finding.column)}   # suggested, not used: "
                         f"{_comment('; '.join(finding.evidence))}")
            continue
        if not cols:
            lines.append(f"# {role} = ?   ({ROLES[role]}: no column found)")
            continue
        why = f"   # {finding.confidence:.2f}: {_comment('; '.join(finding.evidence))}" if finding else ""
        value = "[" + ", ".join(_toml_str(c) for c in cols) + "]" if role in MULTI else _toml_str(cols[0])
        lines.append(f"{role} = {value}{why}")
    lines += ["", "[columns.format]"]
    lines.append(f"decimal = {_toml_str(table.conventions.get('decimal') or '.')}"
                 + ("" if table.conventions.get("decimal") else "   # the file did not say; check it"))
    lines.append(f"dates = {_toml_str(table.conventions.get('dates') or 'iso')}")
    lines += ["", "[columns.units]"]
    for col, unit in schema.units.items():
        if col in table.pay_columns:
            continue
        if unit in _UNITS:
            lines.append(f"{_toml_key(col)} = {_toml_str(unit)}")
        else:  # a currency on a column no role says is pay: IT decides ([columns] pay, then [columns.money])
            lines.append(f"# {_toml_key(col)} holds {unit}: if it is pay, name it under pay above and in [columns.money]")
    lines += ["", "[columns.money]"]
    for col in table.pay_columns:
        period, currency = schema.pay_periods.get(col, ""), schema.units.get(col, "")
        parts = [f"period = {_toml_str(period)}" if period else "", f"currency = {_toml_str(currency)}" if currency else ""]
        lines.append(f"{_toml_key(col)} = {{ {', '.join(p for p in parts if p)} }}"
                     + ("" if period else "   # the period was not found: hour, week, month or year?"))
    hr = table.column_map.hr_departments if table.column_map is not None else []
    lines += ["", "[columns.hr]", "departments = [" + ", ".join(_toml_str(d) for d in hr) + "]"
              + ("" if hr else "   # which departments are HR (else the usual names: HR, Personal, RH, ...)")]
    return "\n".join(lines) + "\n"
