"""Load an employee file (CSV or XLSX) and understand its columns.

Real HR exports differ in everything: delimiter, encoding, line ends, number
formats (``1,250.00``, ``$ 85,000``), date formats (``2/16/2013``,
``2013-02-16``, ``16.02.2013``) and header names. This module reads them
without configuration, infers each column's type, and guesses each column's
meaning (person name, manager, department, employee id, email, user name, pay).
A ``<file>.toml`` beside the data (or the site file's ``[columns]``) overrides any
guess; one that a user could have written may not make a pay column public::

    [columns]
    name = "Full Name"
    manager = "Reports To"
    pay = ["Annual Salary (USD)", "Bonus"]
"""

from __future__ import annotations

import csv
import errno
import datetime as _dt
import hashlib
import io
import os
import math
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import DataFileError
from engine.codepage import decode_legacy

ROLE_PATTERNS = {
    # The words HR systems put before an id: "Assoc ID", "Team Member No.", "EE #". Never "Tax ID" or
    # "National ID" (nor "Member ID", a health plan's, nor "Person Number", a national one in some
    # countries): an id column is public, so only words
    # that name the person's place in the company.
    "employee_id": re.compile(r"^(employee|emp\.?|ee|staff|personnel|worker|badge|payroll|associate|assoc\.?"
                              r"|team[ _-]?member|colleague|personnel|crew[ _-]?member)?[ _-]?"
                              r"(id|no\.?|number|#|ref|code)$|^id$|^badge$", re.I),
    "name": re.compile(r"^(full[ _-]?|employee[ _-]?|display[ _-]?)?name$", re.I),
    "manager": re.compile(r"manager|supervisor|reports[ _-]?to|superior|boss|line[ _-]?lead", re.I),
    "department": re.compile(r"department|dept|organi[sz]ational[ _-]?unit|division|business[ _-]?unit|^team$|^unit$", re.I),
    "email": re.compile(r"e-?mail", re.I),
    "username": re.compile(r"^((network|windows|ad|domain|os|system|computer)[ _-]?)?(user[ _-]?(name|id)?|login|logon"
                           r"|account)([ _-]?name)?$", re.I),
    "pay": re.compile(r"salary|pay|wage|compensation|income|bonus|allowance|rate", re.I),
}
#: A header whose figures are hours or days ("(hrs/pay period)", "hours/week"), never money.
_TIME_QUANTITY = re.compile(r"\(\s*(hrs?|hours?|days?)\b|\b(hrs?|hours?|days?)\s*/", re.I)
HR_DEPARTMENT = re.compile(r"^\s*(hr|human[ _-]?resources?|people([ _-]?(ops|operations|services|team|and culture|"
                           r"& culture))?)"
                           r"(\s+(department|dept\.?|team|division))?\s*$", re.I)
#: A currency written beside an amount, before or after it ("R$ 4.850,00", "CHF 12'500.00", "35 000 kr", "12 500 zł").
_MONEY_MARK = r"(?:[$€£¥₱₹]|R\$|Fr\.|PHP|USD|EUR|GBP|CHF|SEK|NOK|DKK|PLN|CZK|HUF|BRL|CAD|AUD|INR|MXN|kr\.?|zł|Kč|Ft)"
_CURRENCY = re.compile(rf"^\(?\s*([-+]?)\s*{_MONEY_MARK}?\s*([-+]?[\d\s,.'’ ]*\d)\s*(?:{_MONEY_MARK}|%)?\s*\)?$",
                       re.I)
DATE_FORMATS = ["%Y-%m-%d", "%m/%d/%Y", "%d.%m.%Y", "%d/%m/%Y", "%Y/%m/%d", "%m/%d/%y", "%d/%m/%y", "%d-%m-%Y", "%m-%d-%Y",
                "%d-%b-%Y", "%d %b %Y",
                "%b %d, %Y", "%B %d, %Y", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S"]
MAX_ROWS = 500_000


@dataclass
class Column:
    name: str
    dtype: str  # "int", "float", "date", "text", "bool"
    roles: list[str] = field(default_factory=list)
    examples: list[str] = field(default_factory=list)
    date_format: str | None = None
    missing: int = 0
    #: (file line, value) of cells that do not fit the column's type and count as missing.
    bad_cells: list[tuple[int, str]] = field(default_factory=list)
    #: The columns a derived column is made of ("First Name", "Last Name" for a name), or None.
    derived_from: list[str] | None = None
    decimal: str = ""  # the decimal mark its numbers were read with ("," or "."; "" each value decided)
    ambiguous_dates: bool = False  # dates that fit day-first and month-first, with nothing to say which


@dataclass
class EmployeeTable:
    """The loaded table and what we know about its columns."""

    df: Any  # pandas.DataFrame
    columns: dict[str, Column]
    source: str
    roles: dict[str, list[str]]  # role -> column names
    notes: list[str] = field(default_factory=list)  # what was ignored of the column settings, and why
    #: Columns that may be public at most (None: no limit). Set when a user-writable side file changed
    #: the column meanings, so it cannot make a column public that the guess kept private.
    public_cap: set[str] | None = None
    sha256: str = ""  # fingerprint of the data as read
    findings: dict[str, Any] = field(default_factory=dict)  # role -> engine.data.columns.Finding
    column_map: Any = None  # the engine.data.column_map.ColumnMap in force (site file and side file)
    conventions: dict[str, str] = field(default_factory=dict)  # "decimal": ",", "dates": "day-first"

    def role(self, role: str) -> str | None:
        names = self.roles.get(role) or []
        return names[0] if names else None

    def problems(self) -> list[str]:
        """Data-quality findings a person should fix in the file (cells that were not understood).

        Line numbers only, never the cells' values: these are shown to whoever opens the data."""
        out = list(self.notes)
        for col in self.columns.values():
            if col.bad_cells:
                shown = ", ".join(f"line {line}" for line, _ in col.bad_cells[:5])
                more = f" and {len(col.bad_cells) - 5} more" if len(col.bad_cells) > 5 else ""
                out.append(f"'{col.name}' is a number column, but {len(col.bad_cells)} "
                           f"cell{'s are' if len(col.bad_cells) > 1 else ' is'} not a number ({shown}{more}); "
                           "they count as missing")
        return out

    @property
    def pay_columns(self) -> list[str]:
        return list(self.roles.get("pay", []))

    def folded(self, column: str) -> list[str | None]:
        """The column's values case-folded, computed once (case-insensitive text search)."""
        cache = self.__dict__.setdefault("_folded", {})
        if column not in cache:
            cache[column] = [v.casefold() if isinstance(v, str) else None for v in self.df[column]]
        return cache[column]


_FOLD = str.maketrans({"ø": "o", "Ø": "O", "ł": "l", "Ł": "L", "æ": "ae", "Æ": "AE", "ß": "ss", "đ": "d", "Đ": "D",
                       "œ": "oe", "Œ": "OE", "ı": "i"})


def normalise_name(text: Any) -> str:
    """Case-, accent- and space-insensitive key for matching people's names (and ids: a number column
    with an empty cell holds 3004.0 for the id 3004)."""
    if isinstance(text, float) and text.is_integer():
        text = int(text)
    text = unicodedata.normalize("NFKD", str(text)).translate(_FOLD)
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(text.casefold().split())


# -- reading ----------------------------------------------------------------------------------------
def _decode(raw: bytes, path: Path) -> str:
    if raw.startswith(b"\xff\xfe") or raw.startswith(b"\xfe\xff"):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        # Excel on Windows writes the system's code page: Windows-1250 in Poland, 1252 in France …
        return decode_legacy(raw)[0]


#: Checked before a file is parsed, so an oversized file is refused in milliseconds, not after
#: seconds and gigabytes (500,000 employees of ~200 bytes each is 100 MB).
MAX_FILE_BYTES = 200 * 1024 * 1024
MAX_XLSX_UNPACKED = 400 * 1024 * 1024


def _shown(path: Path) -> str:
    """A path as a message names it (a 5,000-character path would bury the message)."""
    text = str(path)
    return text if len(text) <= 120 else f"{text[:50]}…{text[-60:]}"


def _check_size(path: Path) -> None:
    """Refuse what is no plain file of a plausible size, before a byte is read: a device (/dev/zero
    never ends), a FIFO (blocks forever), a folder, an oversized file."""
    import stat as _stat

    try:
        info = path.stat()
    except OSError as exc:
        reason = "the path is too long" if exc.errno == errno.ENAMETOOLONG else (exc.strerror or str(exc))
        raise DataFileError(f"The employee file {_shown(path)} cannot be read: {reason}.",
                            hint="Check the path and that your account may read it.") from exc
    if not _stat.S_ISREG(info.st_mode):
        raise DataFileError(f"{_shown(path)} is not a file (a folder, device or pipe).",
                            hint="Choose the employee list itself (a CSV or XLSX file).")
    size = info.st_size
    if size > MAX_FILE_BYTES:
        raise DataFileError(f"{path.name} is {size / 1024**2:.0f} MB, more than an employee list of "
                            f"{MAX_ROWS:,} rows (at most {MAX_FILE_BYTES // 1024**2} MB).",
                            hint="Check that this is the employee list; split a larger one.")


def _read_bytes(path: Path) -> bytes:
    _check_size(path)
    try:
        with open(path, "rb") as f:
            raw = f.read(MAX_FILE_BYTES + 1)  # a file that grows after the check is still bounded
    except OSError as exc:
        raise DataFileError(f"The employee file {_shown(path)} cannot be read: {exc.strerror}.",
                            hint="Check the path and that your account may read it.") from exc
    if len(raw) > MAX_FILE_BYTES:
        raise DataFileError(f"{path.name} is more than {MAX_FILE_BYTES // 1024**2} MB.",
                            hint="Check that this is the employee list; split a larger one.")
    return raw


def _delimiter(sample: str, cut: bool = False) -> str:
    """The separator of a CSV file: the one that splits the first lines into the most columns, the same
    number on (nearly) every line. csv.Sniffer took the comma of "Gaßner, Ursula", in every row of a
    semicolon file, for the separator and read two columns."""
    if cut and "\n" in sample.rstrip("\n"):
        sample = sample[:sample.rstrip("\n").rfind("\n")]  # (the last line is cut off)
    best, best_score = "", (-1.0, 0)
    for d in ",;\t|":
        try:
            rows = [r for r in csv.reader(io.StringIO(sample, newline=""), delimiter=d) if any(c.strip() for c in r)]
        except csv.Error:
            continue
        if not rows:
            continue
        width = max(len(rows[0]), len(rows[min(1, len(rows) - 1)]))  # (a title line above the header: the next)
        if width < 2:
            continue
        same = sum(1 for r in rows if len(r) == width or len(r) > width and not any(c.strip() for c in r[width:]))
        score = (round(same / len(rows), 1), width)  # consistent first, then the most columns
        if score > best_score:
            best, best_score = d, score
    if best and best_score[0] >= 0.8:
        return best
    try:
        return csv.Sniffer().sniff(sample, delimiters=",;\t|").delimiter
    except csv.Error:
        first = next((line for line in sample.splitlines() if line.strip()), "")
        return max(",;\t|", key=first.count)


def _read_csv_rows(path: Path, raw: bytes | None = None) -> list[list[str]]:
    raw = _read_bytes(path) if raw is None else raw
    if b"\x00" in raw[:4096] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        raise DataFileError(f"The employee file {path} is not a text (CSV) file.",
                            hint="Export the employee list as CSV (UTF-8) or XLSX.")
    if raw.count(b"\n") > 2 * MAX_ROWS:  # counted in C before any decoding or parsing
        raise DataFileError(f"{path.name} has more than {MAX_ROWS} rows.", hint="Split the file.")
    text = _decode(raw, path)
    if not text.strip():
        raise DataFileError(f"The employee file {path} is empty.", hint="Export the employee list again.")
    delimiter = _delimiter(text[:16384], cut=len(text) > 16384)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, quotechar='"', skipinitialspace=False)
    rows: list[list[str]] = []
    width = None
    titles = 0  # lines above the header with one cell (a title, a date of export)
    try:
        for row in reader:
            line = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if width is None and sum(1 for c in row if c.strip()) <= 1 and titles < 5:
                titles += 1
                rows.append([c.strip() for c in row])
                continue
            if width is None:
                width = len(row)
                rows = [] if len(row) >= 3 else rows  # (the header follows the title lines: they go)
            elif len(row) != width:
                # Trailing empty cells are a common export habit; anything else is an error.
                if len(row) > width and all(not c.strip() for c in row[width:]):
                    row = row[:width]
                else:
                    raise DataFileError(
                        f"Line {line} of {path.name} has {len(row)} fields, but the header has {width}.",
                        hint="A value probably contains the separator "
                        f"'{delimiter}' without quotes; fix that line or export the file again.",
                    )
            rows.append([c.strip() for c in row])
            if len(rows) > MAX_ROWS:
                raise DataFileError(f"{path.name} has more than {MAX_ROWS} rows.", hint="Split the file.")
    except csv.Error as exc:
        raise DataFileError(f"Line {reader.line_num} of {path.name} cannot be read: {exc}.",
                            hint="Check the quotes on that line.") from exc
    return rows


def _typed_text_dates(rows: list[list[str]], dated: dict[int, int]) -> None:
    """In a workbook column Excel holds as dates, a cell someone typed as text ("01.03.2022") is a date too,
    where its format says the order (dots are day-first; ISO): one such cell had made the whole column text."""
    for i, count in dated.items():
        cells = [r[i] for r in rows[1:] if i < len(r) and r[i]]
        if count < 0.8 * len(cells):
            continue
        for r in rows[1:]:
            if i < len(r) and r[i] and not re.fullmatch(r"\d{4}-\d{2}-\d{2}", r[i]):
                for fmt in ("%d.%m.%Y", "%d.%m.%y", "%Y/%m/%d"):
                    try:
                        r[i] = _dt.datetime.strptime(r[i], fmt).strftime("%Y-%m-%d")
                        break
                    except ValueError:
                        continue


def _xlsx_sheet_rows(z, limit: int) -> int:
    """How many rows the workbook's first worksheet has, found without parsing them, so a sheet over the limit
    is refused as fast as a CSV (openpyxl takes minutes over 600,000 rows): the sheet's own
    ``<dimension ref="A1:K600001"/>`` where it says more than ``limit``, else its row tags counted in the
    unpacked XML in C (a dimension may be missing, as openpyxl's write-only mode leaves it, or wrong),
    stopping past ``limit``. 0 where the workbook's parts cannot be found (openpyxl then names the problem)."""
    sheet = _first_sheet_part(z)
    if sheet is None:
        return 0
    with z.open(sheet) as f:
        head = f.read(64 * 1024)
    root = re.search(rb"<(\w{1,16}:)?worksheet[\s>]", head)
    prefix = (root.group(1) or b"") if root else b""  # a namespace prefix the sheet's elements carry ("x:")
    found = re.search(rb"<" + prefix + rb"dimension\s[^>]*?ref=[\"']\$?[A-Z]+\$?\d+:\$?[A-Z]+\$?(\d+)", head)
    if found and int(found.group(1)) > limit:
        return int(found.group(1))
    # "<row" starts a row and nothing else in a worksheet but "<rowBreaks"; each tag is counted in the
    # block with the previous block's last bytes before it, so one cut in two is counted once.
    tags = [b"<" + prefix + b"row", b"<" + prefix + b"rowBreaks"]
    counts, tails = [0, 0], [b"", b""]
    with z.open(sheet) as f:
        while counts[0] - counts[1] <= limit:
            block = f.read(1 << 20)
            if not block:
                break
            for i, tag in enumerate(tags):
                window = tails[i] + block
                counts[i] += window.count(tag)
                tails[i] = window[-(len(tag) - 1):]
    return counts[0] - counts[1]


def _first_sheet_part(z) -> str | None:
    """The zip member of the workbook's first worksheet (as openpyxl's ``worksheets[0]``), from its parts."""
    import posixpath
    import xml.etree.ElementTree as ET

    def local(tag: str) -> str:
        return tag.rsplit("}", 1)[-1]

    def target(rels_part: str, base: str, rel_id: str | None, kind: str) -> str | None:
        for rel in ET.fromstring(z.read(rels_part)):
            if (rel.get("Id") == rel_id if rel_id else rel.get("Type", "").endswith(kind)):
                to = rel.get("Target", "")
                return to.lstrip("/") if to.startswith("/") else posixpath.normpath(posixpath.join(base, to))
        return None

    try:
        book = target("_rels/.rels", "", None, "/officeDocument")
        if not book:
            return None
        folder, name = posixpath.split(book)
        rels = posixpath.join(folder, "_rels", name + ".rels")
        for element in ET.fromstring(z.read(book)).iter():
            if local(element.tag) == "sheet":
                rel_id = next((v for k, v in element.attrib.items() if local(k) == "id"), None)
                part = target(rels, folder, rel_id, "")
                if part and part in z.namelist() and "chartsheet" not in part:
                    return part
    except (KeyError, ET.ParseError, ValueError):
        return None
    return None


def _read_xlsx_rows(path: Path) -> list[list[str]]:
    try:
        import openpyxl
    except ImportError as exc:  # pragma: no cover
        raise DataFileError("Reading XLSX files needs openpyxl.", hint="Reinstall the app.") from exc
    _check_size(path)
    import zipfile
    import zlib

    unpacked = sheet_rows = 0  # (where the file is no zip, openpyxl names the problem below)
    try:
        with zipfile.ZipFile(path) as z:
            unpacked = sum(e.file_size for e in z.infolist())
            if unpacked <= MAX_XLSX_UNPACKED:
                sheet_rows = _xlsx_sheet_rows(z, MAX_ROWS + 1)
    except (zipfile.BadZipFile, zlib.error, OSError, EOFError, RuntimeError):
        pass
    if unpacked > MAX_XLSX_UNPACKED:
        raise DataFileError(f"The workbook {path.name} unpacks to {unpacked / 1024**2:.0f} MB, more than an employee "
                            "list holds.", hint="Check where the file comes from; export the list again as CSV.")
    if sheet_rows > MAX_ROWS + 1:  # (+1: the header)
        raise DataFileError(f"{path.name} has more than {MAX_ROWS} rows.",
                            hint="Split the file. (If the list is shorter, its first sheet has empty formatted rows "
                                 "below it: delete them, or export the list as CSV.)")
    try:
        wb = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:
        raise DataFileError(f"The workbook {path.name} cannot be opened ({type(exc).__name__}).",
                            hint="Save it again in Excel as .xlsx, or export it as CSV.") from exc
    ws = wb.worksheets[0]
    ws.reset_dimensions()  # read the rows that are there: a sheet's dimension may be missing or too small
    rows = []
    dated: dict[int, int] = {}  # column -> how many of its cells the workbook holds as dates
    for values in ws.iter_rows(values_only=True):
        cells = ["" if v is None else (v.strftime("%Y-%m-%d") if isinstance(v, (_dt.date, _dt.datetime)) else str(v))
                 for v in values]
        for i, v in enumerate(values):
            if isinstance(v, (_dt.date, _dt.datetime)):
                dated[i] = dated.get(i, 0) + 1
        if any(c.strip() for c in cells):
            rows.append([c.strip() for c in cells])
            if len(rows) > MAX_ROWS + 1:  # counted while streaming, as for CSV (+1: the header)
                wb.close()
                raise DataFileError(f"{path.name} has more than {MAX_ROWS} rows.", hint="Split the file.")
    wb.close()
    rows = _from_header(rows)
    _typed_text_dates(rows, dated)
    if rows:
        width = max(i + 1 for i, c in enumerate(rows[0]) if c) if any(rows[0]) else 0
        rows = [r[:width] + [""] * (width - len(r)) for r in rows]
    return rows


# -- type inference -------------------------------------------------------------------------------------
def parse_number(text: str, decimal: str = "") -> float | None:
    """``1,250.50`` / ``$ 85,000`` / ``₱20,000`` / ``1.250,50`` / ``(300)`` -> float; None if not a number.

    ``decimal`` is the file's decimal mark where it is known ("," in ``4.850,00``, ``12,5``): then
    ``4.850`` is four thousand eight hundred and fifty, not 4.85. Unknown (""), each value decides."""
    t = re.sub(r"[.,]-{1,2}$", "", text.strip())  # "4850,-": whole units, as German and Swiss lists write them
    if not t:
        return None
    m = _CURRENCY.match(t)
    if not m:
        return None
    sign, body = m.group(1), re.sub(r"[\s'’\u00a0\u202f]", "", m.group(2))
    if decimal in (",", "."):
        group = "." if decimal == "," else ","
        if body.count(decimal) > 1 or (body.count(group) and not re.fullmatch(
                rf"\d{{1,3}}(\{group}\d{{3}})+(\{decimal}\d*)?", body)):
            return None
        body = body.replace(group, "").replace(decimal, ".")
        try:
            value = float(body)
        except ValueError:
            return None
        return -abs(value) if (t.startswith("(") and t.endswith(")") or sign == "-") else value
    if body.count(",") and body.count("."):
        if body.rfind(",") > body.rfind("."):  # 1.250,50
            body = body.replace(".", "").replace(",", ".")
        else:
            body = body.replace(",", "")
    elif body.count(",") == 1 and len(body.split(",")[1]) != 3:  # 12,5 (decimal comma)
        body = body.replace(",", ".")
    elif body.count(","):
        parts = body.split(",")
        if not all(len(p) == 3 for p in parts[1:]):
            return None
        body = body.replace(",", "")
    if body.count(".") > 1:
        parts = body.split(".")
        if all(len(p) == 3 for p in parts[1:]):
            body = body.replace(".", "")
        else:
            return None
    try:
        value = float(body)
    except ValueError:
        return None
    if t.startswith("(") and t.endswith(")") or sign == "-":
        value = -abs(value)
    return value


_NUMBERISH = re.compile(r"^[-+(]?\s*[$€£]?\s*[-+]?[\d][\d.,\s'\u00a0\u202f]*\s*[$€£%]?\)?$")
_GROUPS_DOT = re.compile(r"^[-+]?\d{1,3}(\.\d{3}){2,}$")  # 1.234.567: dots group thousands
_GROUPS_COMMA = re.compile(r"^[-+]?\d{1,3}(,\d{3}){2,}$")  # 1,234,567
_DOTTED_DATE = re.compile(r"^\d{1,2}\.\d{1,2}\.\d{4}$")
_ONE_GROUP = re.compile(r"^[-+]?\d{1,3}\.\d{3}$")  # 48.000: 48 or 48000? (48,000 is read as 48000, as before)
_COMMA_DECIMAL = re.compile(r"^[-+(]?\s*[$€£]?\s*(\d{1,3}(\.\d{3})+,\d+|\d+,\d{1,2}|\d+,\d{4,})\s*[$€£%]?\)?$")
_DOT_DECIMAL = re.compile(r"^[-+(]?\s*[$€£]?\s*(\d{1,3}(,\d{3})+\.\d+|\d+\.\d{1,2}|\d+\.\d{4,})\s*[$€£%]?\)?$")


def decimal_mark(rows: list[list[str]]) -> str:
    """The file's decimal mark, decided from all its cells: "," where some are written ``4.850,00`` or
    ``12,5`` and none ``4,850.00`` or ``12.5``; "." the other way round; "" where the cells cannot tell
    (only whole numbers, or both kinds)."""
    comma = dot = groups = 0
    width = max((len(r) for r in rows), default=0)
    for i in range(width):
        cells = [r[i] for r in rows[1:] if i < len(r) and r[i]]
        # Only columns of numbers count: "2,3" in a text column (a room, a version) says nothing.
        if not cells or sum(bool(_NUMBERISH.match(c)) for c in cells) < 0.8 * len(cells):
            continue
        for cell in cells:
            if _COMMA_DECIMAL.match(cell) or _GROUPS_DOT.match(cell):
                comma += 1
            elif _DOT_DECIMAL.match(cell) or _GROUPS_COMMA.match(cell):
                dot += 1
            elif _ONE_GROUP.match(cell) and not cell.lstrip("+-").startswith("0"):
                groups += 1
            elif re.fullmatch(r"[-+]?0\.\d+", cell):  # "0.875": a decimal point (no group of thousands starts with 0)
                dot += 1
    if not comma and not dot and groups >= 3 and any(_DOTTED_DATE.match(c) for r in rows[1:] for c in r):
        # "8.900", "4.250", "1.875" in pay, and dates written 01.03.2019: the German convention, in which a
        # dot groups thousands; read as decimals, a monthly pay came out a thousand times too small.
        return ","
    return "," if comma and not dot else "." if dot and not comma else ""


def ambiguous_thousands(values: list[str]) -> bool:
    """Whether a number column read without a known decimal mark holds figures like ``48.000``, which are
    48 with a decimal point and 48000 with a decimal comma."""
    return any(_ONE_GROUP.match(v) for v in values if v)


#: Formats with the day and month in either order: the column, or the file, must say which.
_DAY_FIRST = {"%d/%m/%Y": "%m/%d/%Y", "%d/%m/%y": "%m/%d/%y", "%d-%m-%Y": "%m-%d-%Y"}
_MONTH_FIRST = {v: k for k, v in _DAY_FIRST.items()}


def _date_format(values: list[str], order: str = "") -> str | None:
    """The one format every value fits. Where both day-first and month-first fit (no day above 12),
    ``order`` ("day-first"/"month-first", from the file's other dates or the column map) decides;
    without it the column cannot tell, and None is returned (the caller reports it)."""
    candidates = []
    for fmt in DATE_FORMATS:
        try:
            for v in values:
                _dt.datetime.strptime(v, fmt)
        except ValueError:
            continue
        candidates.append(fmt)
    if not candidates:
        return None
    fmt = candidates[0]
    twin = _DAY_FIRST.get(fmt) or _MONTH_FIRST.get(fmt)
    if twin and twin in candidates:
        if order == "day-first":
            return fmt if fmt in _DAY_FIRST else twin
        if order == "month-first":
            return fmt if fmt in _MONTH_FIRST else twin
        return None
    return fmt


def date_order(rows: list[list[str]], width: int) -> str:
    """Whether the file writes dates day first or month first, from the columns that can tell (a day
    above 12, or dates with dots, which are day-first everywhere): "day-first", "month-first" or ""."""
    day = month = 0
    for i in range(width):
        cells = [r[i] for r in rows[1:] if i < len(r) and r[i]]
        parts = [re.fullmatch(r"(\d{1,2})([./-])(\d{1,2})\2(\d{2,4})", c) for c in cells[:400]]
        if not cells or not all(parts):
            continue
        if any(p.group(2) == "." for p in parts if p) or any(int(p.group(1)) > 12 for p in parts if p):
            day += 1
        elif any(int(p.group(3)) > 12 for p in parts if p):
            month += 1
    return "day-first" if day and not month else "month-first" if month and not day else ""


def _infer(name: str, values: list[str], decimal: str = "", order: str = "") -> Column:
    present = [v for v in values if v and v.lower() not in ("na", "n/a", "nan", "null", "none", "-")]
    col = Column(name=name, dtype="text", missing=len(values) - len(present), decimal=decimal)
    col.examples = list(dict.fromkeys(present))[:3]
    if not present:
        return col
    if all(v.lower() in ("true", "false", "yes", "no") for v in present):
        col.dtype = "bool"
        return col
    looks_like_id = bool(ROLE_PATTERNS["employee_id"].search(name))
    numbers = [parse_number(v, decimal) for v in present]
    bad = sum(n is None for n in numbers)
    # A few stray cells (a spreadsheet formula "=1+1", "n.a.", a note) must not turn a salary
    # column into text: it stays numeric and the stray cells are reported, not guessed.
    mostly = bad <= max(1, len(present) // 20) and len(present) - bad >= 3
    if (bad == 0 or mostly) and not (looks_like_id and any(v.startswith("0") for v in present)):
        good = [n for n in numbers if n is not None]
        col.dtype = "int" if all(float(n).is_integer() for n in good) else "float"
        if bad:
            col.bad_cells = [(i + 2, v) for i, v in enumerate(values)
                             if v and v.lower() not in _BLANK and parse_number(v, decimal) is None]
            col.missing += len(col.bad_cells)
        return col
    if any(ch.isdigit() for ch in present[0]):
        fmt = _date_format(present, order)
        if fmt:
            col.dtype, col.date_format = "date", fmt
        elif _date_format(present, "day-first"):
            col.ambiguous_dates = True  # both orders fit and nothing in the file says which
    return col


_BLANK = ("", "na", "n/a", "nan", "null", "none", "-")
_ID_REFERENCE = re.compile(r"\b(id|no|number|badge|ref|code)\b|#", re.I)
_PLAIN_NUMBER = r"^[-+]?(\d{1,3}(,\d{3})+|\d+)(\.\d+)?$"
_SAMPLE = 200


def _column(name: str, values: list[str], decimal: str = "", order: str = ""):
    """Infer a column's type from a sample, convert the whole column vectorised, and fall back to
    value-by-value inference over every value when the sample misled (exact, only slower)."""
    sample = values if len(values) <= 2 * _SAMPLE else values[:_SAMPLE] + values[-_SAMPLE:]
    col = _infer(name, sample, decimal, order)
    series = _fast_convert(col, values) if len(values) > 2 * _SAMPLE and not decimal == "," else None
    if series is None:
        col = _infer(name, values, decimal, order) if sample is not values else col
        series = _convert(col, values)
    else:
        col.missing = int(series.isna().sum())
    return col, series


def _fast_convert(col: Column, values: list[str]):
    """Vectorised conversion with pandas; None if any value does not fit the inferred type."""
    import pandas as pd

    raw = pd.Series(values, dtype="object")
    blank = raw.str.lower().isin(_BLANK)
    if col.dtype in ("int", "float"):
        cleaned = raw.str.replace(r"[\s$€£¥₱₹']|PHP|USD|EUR|GBP", "", regex=True)
        plain = cleaned.str.match(_PLAIN_NUMBER) | blank
        if not plain.all():
            return None
        nums = pd.to_numeric(cleaned.str.replace(",", "", regex=False).where(~blank), errors="coerce")
        if (nums.isna() & ~blank).any():
            return None
        nums = nums.astype("float64")
        if not blank.any() and (nums % 1 == 0).all():
            col.dtype = "int"
            return nums.astype("int64")
        col.dtype = "float" if (nums.dropna() % 1 != 0).any() else col.dtype
        return nums
    if col.dtype == "date":
        dates = pd.to_datetime(raw.where(~blank), format=col.date_format, errors="coerce")
        if (dates.isna() & ~blank).any():
            return None
        return dates
    if col.dtype == "text":
        return raw.where(raw != "", None)
    return None


def _convert(col: Column, values: list[str]):
    import pandas as pd

    blank = {"", "na", "n/a", "nan", "null", "none", "-"}
    if col.dtype in ("int", "float"):
        nums = [None if v.lower() in blank else parse_number(v, col.decimal) for v in values]
        series = pd.Series(nums, dtype="float64")
        if col.dtype == "int" and not series.isna().any():
            series = series.astype("int64")
        return series
    if col.dtype == "date":
        return pd.to_datetime(pd.Series([None if v.lower() in blank else v for v in values], dtype="object"),
                              format=col.date_format, errors="coerce")
    if col.dtype == "bool":
        return pd.Series([None if v.lower() in blank else v.lower() in ("true", "yes") for v in values],
                         dtype="object")
    return pd.Series([None if v == "" else v for v in values], dtype="object")


def _guess_roles(columns: dict[str, Column], df) -> dict[str, list[str]]:
    roles: dict[str, list[str]] = {}
    for name, col in columns.items():
        for role, pattern in ROLE_PATTERNS.items():
            if not pattern.search(name):
                continue
            if role == "pay" and (col.dtype not in ("int", "float") or _TIME_QUANTITY.search(name)):
                continue  # ("PTO Accrual Rate (hrs/pay period)" counts hours, not money)
            if role in ("name", "department") and col.dtype != "text":
                continue
            if role == "manager" and col.dtype != "text" and not _ID_REFERENCE.search(name):
                continue  # a manager is named, or referred to by id ("Supervisor Emp #": 3004)
            if role in ("employee_id", "email", "username") and ROLE_PATTERNS["manager"].search(name):
                continue  # "manager_id", "Reports To (email)": a manager reference, not the row's own key
            roles.setdefault(role, []).append(name)
    if "email" not in roles:
        for name, col in columns.items():
            if col.dtype == "text" and col.examples and all("@" in e for e in col.examples) \
                    and not ROLE_PATTERNS["manager"].search(name):
                roles["email"] = [name]
                break
    from engine.data.schema import SEMANTIC_PATTERNS

    split_name = any(SEMANTIC_PATTERNS["last_name"].search(n) for n in columns)
    if "name" not in roles and not split_name:
        # The first text column whose values look like "First Last" (not a job title: "Chief Executive Officer").
        for name, col in columns.items():
            if col.dtype == "text" and name not in sum(roles.values(), []) and not DIRECTORY_HINT.search(name) \
                    and col.examples and all(
                    len(str(e).split()) >= 2 and str(e)[0].isupper() for e in col.examples):
                roles["name"] = [name]
                break
    for role in ("name", "manager", "department", "employee_id", "email", "username"):
        if len(roles.get(role, [])) > 1:
            roles[role] = roles[role][:1]
    return roles


def _side_file(path: Path) -> Path | None:
    for toml_path in (path.with_suffix(path.suffix + ".toml"), path.with_suffix(".toml")):
        if toml_path.exists() or toml_path.is_symlink():
            return toml_path
    return None


def _read_side_file(toml_path: Path) -> tuple[dict[str, Any], bool, bool]:
    """The side file's settings; whether only an administrator could have written it; and whether
    it is the user's own (theirs, not a link, in a folder nobody else can write into).

    The file is opened once and its owner checked on that open file (``fstat``), so it cannot be
    swapped between the check and the read. On Windows side files are neither (the site file's
    [columns] is the way there).
    """
    import stat
    import sys
    import tomllib

    from engine.site import admin_only_problem

    trusted = mine = False
    try:
        try:
            fd = os.open(toml_path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
            link = False
        except OSError:
            fd = os.open(toml_path, os.O_RDONLY)  # a link: read it, never trust it
            link = True
        with os.fdopen(fd, "rb") as fh:
            st = os.fstat(fh.fileno())
            raw = fh.read(1024 * 1024)
        if sys.platform != "win32" and not link and not st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            if st.st_uid == 0:
                trusted = not admin_only_problem(toml_path.parent)
            if st.st_uid == os.geteuid():
                folder = toml_path.parent.stat()
                mine = not (folder.st_mode & (stat.S_IWGRP | stat.S_IWOTH)) or bool(folder.st_mode & stat.S_ISVTX)
        return tomllib.loads(raw.decode("utf-8")), trusted, mine
    except (OSError, ValueError) as exc:
        raise DataFileError(f"The column settings {toml_path.name} cannot be read: {exc}.",
                            hint="Fix the TOML syntax or remove the file.") from exc


DIRECTORY_HINT = re.compile(r"position|title|job|role$|^rank$", re.I)


def default_public_columns(columns: dict[str, "Column"], roles: dict[str, list[str]]) -> set[str]:
    """The directory columns everyone may read: name, id, department, manager, e-mail, job title."""
    public = {c for r in ("name", "employee_id", "department", "manager", "email", "first_name", "last_name",
                          "preferred_name", "sorted_name") for c in roles.get(r, [])}
    public |= {c for c in columns if DIRECTORY_HINT.search(c) and columns[c].dtype == "text"}
    return public


#: Column meanings that decide who someone is and what is public.
_IDENTITY_ROLES = ("name", "employee_id", "email", "username", "manager", "department")


def load_employees(path: str | Path, overrides: dict[str, Any] | None = None) -> EmployeeTable:
    """Read an employee file; raise :class:`DataFileError` with the line and the problem if it is malformed."""
    path = Path(path).expanduser()
    try:
        exists = path.exists()
    except OSError:  # a path too long to look up: the size check below names it
        exists = True
    if not exists:
        raise DataFileError(f"The employee file {_shown(path)} does not exist.",
                            hint="Choose the employee file in Settings or pass --employees FILE.")
    suffix = path.suffix.lower()
    if suffix in (".xlsx", ".xlsm"):
        rows = _read_xlsx_rows(path)
        raw = _read_bytes(path)  # for the fingerprint only: openpyxl reads the workbook itself
    elif suffix in (".csv", ".txt", ".tsv", ""):
        raw = _read_bytes(path)
        rows = _read_csv_rows(path, raw)
    else:
        raise DataFileError(f"{path.name} is not a CSV or XLSX file.", hint="Export the employee list as CSV or XLSX.")
    rows = _without_totals(_from_header(rows))
    if len(rows) < 2:
        raise DataFileError(f"The employee file {path.name} has a header but no employees.",
                            hint="Export the employee list again.")
    return table_from_rows(rows, str(path), path.name, overrides, _side_file(path), own_data=_owned_by_me(path),
                           sha256=hashlib.sha256(raw).hexdigest())


def _from_header(rows: list[list[str]]) -> list[list[str]]:
    """The rows from the header on: a title above it ("Personalliste AlpenTech AG – Stand 30.09.2024", one
    cell) is no header, and taken for one it made a table of one column."""
    filled = [sum(1 for c in r if str(c).strip()) for r in rows[:6]]
    start = next((i for i, n in enumerate(filled) if n >= 2), 0)
    if start and filled[start] >= 3:
        return rows[start:]
    return rows


def _without_totals(rows: list[list[str]]) -> list[list[str]]:
    """The rows without a totals line at the end ("TOTAL", "Summe", "Razem" as the first filled cell, with
    the sums beside it): counted as an employee, it added itself to every sum and could be signed in as."""
    from engine.data.vocab import vocabulary

    vocab = vocabulary()
    every = set(vocab.languages)
    while len(rows) > 2:
        first = next((c for c in rows[-1] if str(c).strip()), "")
        if not vocab.value_in(first, "total_row", every):
            break
        rows = rows[:-1]
    return rows


def _owned_by_me(path: Path) -> bool:
    """Is the data file (after links) the user's own, which they could edit anyway?"""
    try:
        return os.name == "posix" and path.resolve().stat().st_uid == os.geteuid()
    except OSError:
        return False


def table_from_rows(rows: list[list[str]], source: str, label: str, overrides: dict[str, Any] | None = None,
                    side: Path | None = None, own_data: bool = False, sha256: str = "") -> EmployeeTable:
    """An employee table from a header row and text cells (a file's, or a database's).

    ``own_data``: the user owns the data file, so a side file of theirs may set column meanings
    (they could edit the data itself); it still cannot make a column public. ``sha256``: the
    fingerprint of the data as read (recorded with every audit entry)."""
    import pandas as pd

    header = rows[0]
    names: list[str] = []
    for i, h in enumerate(header):
        h = " ".join(h.replace("\ufeff", "").split()) or f"column_{i + 1}"
        base, n = h, 2
        while h in names:
            h, n = f"{base}_{n}", n + 1
        names.append(h)
    data = rows[1:]
    side_conf, trusted, mine = _read_side_file(side) if side is not None else ({}, True, True)
    from_file = side_conf.get("columns", {})
    side_name = side.name if side is not None else "beside the data"
    if not isinstance(from_file, dict):
        raise DataFileError(f"The column settings beside {label} need a [columns] table.",
                            hint='For example: [columns]\nname = "Full Name"')
    from engine.data.column_map import ColumnMap

    # The map's own tables ([columns.format], [columns.units], [columns.pay], [columns.hr], confirmed) are
    # read here; its role lines go through the trust rules below like any column setting.
    site_map = ColumnMap.parse(dict(overrides or {}), "the site file's [columns]", trust="site")
    side_trust = "site" if trusted else "own" if (own_data and mine) else "none"
    side_map = ColumnMap.parse(dict(from_file), side_name, trust=side_trust)
    cmap = side_map.merged(site_map)
    overrides = {k: v for k, v in (overrides or {}).items() if not isinstance(v, dict) and k != "confirmed"}
    from_file = {k: v for k, v in from_file.items() if not isinstance(v, dict) and k != "confirmed"}
    decimal = cmap.decimal or decimal_mark(rows)
    order = cmap.dates or date_order(rows, len(names))
    columns: dict[str, Column] = {}
    series = {}
    raw_cells: dict[str, list[str]] = {}
    for i, name in enumerate(names):
        values = [r[i] if i < len(r) else "" for r in data]
        col, series[name] = _column(name, values, decimal, order)
        columns[name] = col
        raw_cells[name] = values[:2000]
    cmap.check_columns(columns, label)
    df = pd.DataFrame(series)
    roles = _guess_roles(columns, df)
    from engine.data.columns import infer_roles
    from engine.data.schema import guess_semantic_roles

    taken = {c for cols in roles.values() for c in cols}
    for role, cols in guess_semantic_roles(columns, taken).items():
        roles.setdefault(role, cols)
    roles, findings = infer_roles(columns, df, roles)
    guessed_public = default_public_columns(columns, roles)  # what may be public at most, by the guess
    if cmap.confirmed:
        roles = {r: c for r, c in roles.items() if r == "sorted_name"}  # the confirmed map is complete
        findings = {}
    guessed_pay = set(roles.get("pay", []))
    notes: list[str] = list(side_map.notes)
    public_cap = None
    if not trusted:
        # A side file a user could have written may only make more columns private, unless it is
        # the user's own file beside the user's own data (they could edit the data itself): then it
        # may set meanings, but what is public stays the guess's. Data a site file fixes is never
        # the user's own, so there a user's side file only ever adds pay columns.
        if not own_data or not mine:
            ignored = sorted(k for k in from_file if k != "pay")
            if ignored:
                notes.append(f"the column meanings {', '.join(ignored)} in {side_name} were ignored: a user could "
                             "have written that file; IT sets them in the site file's [columns]")
            from_file = {k: v for k, v in from_file.items() if k == "pay"}
        else:
            public_cap = guessed_public
        for role in _IDENTITY_ROLES:
            if isinstance(from_file.get(role), list) and len(from_file[role]) != 1:
                raise DataFileError(f"The column settings {side_name} give a list for '{role}'; it takes one column.",
                                    hint=f'For example: {role} = "{next(iter(columns))}"')
    conf = {**from_file, **(overrides or {})}  # the site file's [columns] win over the side file
    for role, value in conf.items():
        if not (isinstance(value, str) or isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise DataFileError(f"The column settings give {value!r} for '{role}'; use a column name or a list of "
                                "names.", hint=f'For example: {role} = "{next(iter(columns))}"')
        wanted = [value] if isinstance(value, str) else list(value)
        missing = [c for c in wanted if c not in columns]
        if missing:
            raise DataFileError(f"The column settings name {missing[0]!r} for '{role}', but {label} has no such "
                                "column.", hint=f"Its columns are: {', '.join(names)}.")
        if role not in (overrides or {}) and not trusted:
            if role == "pay":
                wanted = list(dict.fromkeys([*roles.get("pay", []), *wanted]))
            elif set(wanted) & guessed_pay:
                raise DataFileError(
                    f"The column settings {side_name} make the pay column '{sorted(set(wanted) & guessed_pay)[0]}' "
                    f"the '{role}' column, which would make it readable by everyone.",
                    hint="Only a column-meaning file placed by IT (or the site file's [columns]) may do that; "
                         "remove the line.")
        roles[role] = wanted
        from engine.data.columns import Finding

        where = "the site file's [columns]" if role in (overrides or {}) else side_name
        if wanted:  # (an empty list says no column has this role)
            findings[role] = Finding(role, wanted[0], 1.0, [f"set in {where}"])
        else:
            findings.pop(role, None)
    df, columns = _derive_name(df, columns, roles)
    if not cmap.confirmed:
        df, columns = _derive_balances(df, columns, roles, findings)
    for role, cols in roles.items():
        for c in cols:
            if role not in columns[c].roles:
                columns[c].roles.append(role)
    table = EmployeeTable(df=df, columns=columns, source=source, roles=roles)
    table.findings = findings
    table.column_map = cmap
    table.conventions = {"decimal": decimal, "dates": order}
    for col in columns.values():
        if not decimal and col.dtype in ("int", "float") and ambiguous_thousands(raw_cells[col.name]):
            notes.append(f"'{col.name}' has numbers like 48.000 that are 48 with a decimal point and 48000 with a "
                         "decimal comma, and nothing in the file says which; set decimal under [columns.format] in "
                         "the column map")
        if col.ambiguous_dates:
            notes.append(f"'{col.name}' holds dates that fit both day-first and month-first, and nothing in the "
                         "file says which, so they are not read as dates; set dates = \"day-first\" (or "
                         "\"month-first\") under [columns.format] in the column map")
    table.notes = notes
    table.public_cap = public_cap
    table.sha256 = sha256
    return table


#: A name written family name first: "Okafor, Daniel", "Ramírez Soto, Diego". Not "Smith, Jr." (a suffix).
_SORTED_NAME = re.compile(r"^\s*([^\W\d_][\w' .-]*?)\s*,\s*([^\W\d_][\w' .-]*?)\s*$")
_SUFFIX = re.compile(r"^(jr|sr|ii|iii|iv|phd|md|cpa|rn|esq|mba|cfa|dds|do|pe|pmp)\.?$", re.I)


def unsort_name(text: Any) -> str:
    """ "Okafor, Daniel" as "Daniel Okafor"; any other text as it is."""
    if not isinstance(text, str):
        return text
    m = _SORTED_NAME.match(text)
    if not m or _SUFFIX.match(m.group(2)):
        return text
    return f"{m.group(2)} {m.group(1)}"


def _sorted_names(values) -> bool:
    """Whether a name column writes (almost) every name family name first, "Okafor, Daniel"."""
    texts = [v for v in values if isinstance(v, str) and v.strip()]
    return len(texts) >= 2 and sum(unsort_name(v) != v for v in texts) >= 2 / 3 * len(texts)


def _derive_name(df, columns: dict[str, Column], roles: dict[str, list[str]]):
    """A person's name split over two columns ("First Name", "Last Name") or written family name first
    ("Okafor, Daniel") becomes one more column, "Daniel Okafor", so people are found, matched to their
    manager and named in answers as they name themselves."""
    if roles.get("name"):
        sorted_col = roles["name"][0]
        if not _sorted_names(df[sorted_col]):
            return df, columns
        parts, at = [sorted_col], list(columns).index(sorted_col)
        values = [unsort_name(v).strip() if isinstance(v, str) and v.strip() else None for v in df[sorted_col]]
        roles["sorted_name"] = [sorted_col]
    elif roles.get("first_name") and roles.get("last_name"):
        first, last = roles["first_name"][0], roles["last_name"][0]
        parts, at = [first, last], min(list(columns).index(first), list(columns).index(last))
        values = [" ".join(str(p).strip() for p in (a, b) if isinstance(p, str) and p.strip()) or None
                  for a, b in zip(df[first], df[last])]
    else:
        return df, columns
    label = next(n for n in ("Name", "Full Name", "Employee Name", "full_name_derived") if n not in columns)
    import pandas as pd

    df = df.copy()
    df.insert(at, label, pd.Series(values, index=df.index, dtype="object"))  # text as the loader keeps it
    col = Column(name=label, dtype="text", derived_from=parts,
                 examples=[v for v in dict.fromkeys(values) if v][:3], missing=sum(v is None for v in values))
    names = list(columns)
    names.insert(at, label)
    columns = {n: (col if n == label else columns[n]) for n in names}
    roles["name"] = [label]
    return df, columns


def _derive_balances(df, columns: dict[str, Column], roles: dict[str, list[str]], findings: dict):
    """A year's allowance beside what was taken of it ("Annual Leave Entitlement (hrs)", "Annual Leave Taken
    (hrs)") becomes one more column, what is left ("Annual Leave Left (hrs)"), and that is the balance: a
    person asking what they have left must not be told their allowance."""
    from engine.data.columns import Finding, taken_words
    from engine.data.vocab import vocabulary

    vocab = vocabulary()
    for role in ("vacation_balance", "sick_balance"):
        for c in list(roles.get(role, [])):
            here = {r: e for r, _, e in vocab.header_roles(c)}
            if "leave_entitlement" not in here or taken_words(c) or columns[c].dtype not in ("int", "float"):
                continue
            unit = vocab.unit(c)
            taken = next((t for t in columns if t != c and columns[t].dtype in ("int", "float")
                          and role in {r for r, _, _ in vocab.header_roles(t)} and taken_words(t)
                          and vocab.unit(t) == unit), None)
            if taken is None:
                continue
            word = here["leave_entitlement"].text.strip("=")
            base = re.sub(rf"\s*\b{re.escape(word)}\b", "", c, count=1, flags=re.I).strip() if \
                re.search(rf"\b{re.escape(word)}\b", c, re.I) else c
            stem, paren, rest = base.partition("(")
            label = f"{stem.strip()} Left" + (f" ({rest}" if paren else "")
            if label in columns:
                continue
            import pandas as pd

            values = pd.to_numeric(df[c], errors="coerce") - pd.to_numeric(df[taken], errors="coerce")
            df = df.copy()
            at = list(columns).index(taken) + 1
            df.insert(at, label, values.round(4))
            col = Column(name=label, dtype="float", derived_from=[c, taken],
                         examples=[cell_text(v) for v in values.dropna().unique()[:3]],
                         missing=int(values.isna().sum()))
            names = list(columns)
            names.insert(at, label)
            columns = {n: (col if n == label else columns[n]) for n in names}
            roles[role] = [label if x == c else x for x in roles[role]]
            findings[role] = Finding(role, label, 0.9, [f"'{c}' minus '{taken}': the allowance less what was "
                                                        "taken"])
            for col_name in (c, taken):
                columns[col_name].roles = [r for r in columns[col_name].roles if r != role]
    return df, columns


def cell_text(value: Any) -> str:
    """A cell as text for people and the model: empty for missing, dates as YYYY-MM-DD, whole floats
    without ".0", other floats to at most 2 decimals, and no thousands separators (the model copies
    figures into the calculator, which takes none: "45,500" went in as round(45, 5))."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if hasattr(value, "strftime"):
        try:
            return value.strftime("%Y-%m-%d")
        except ValueError:
            return ""
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() else f"{value:.2f}".rstrip("0").rstrip(".")
    return str(value)
