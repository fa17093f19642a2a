"""Procedures: step-by-step guides that HR writes as policy documents, walked through one step at a time.

A procedure is a Markdown (or text) policy file that starts with front matter naming it::

    ---
    procedure: Apply for parental leave
    keywords: parental leave, maternity leave, paternity leave, adoption leave
    applies_to:
      - tenure_months >= 6
      - contract == "permanent"
    contact: the People team (people@example.com)
    ---
    # Applying for parental leave
    1. Tell your line manager …
    2. …

Its numbered items are the steps. ``applies_to`` holds conditions on the asking employee's own
record (every one must hold): a column of the employee file by name, or ``tenure_months``,
``tenure_years``, ``tenure_days`` (from the hire-date column) and ``contract`` (the contract or
employment-status column); operators ``== != >= <= > < in, not in``; strings compare without
case. The record is read under the access rules (the own row only, audited); a condition that
cannot be checked leaves the answer "unknown", never "applies".

The engine recognises a procedure question by rule (a "how do I…" phrasing and a keyword of the
procedure), so the walk-through itself needs no model call; :class:`Walkthrough` is its state,
which the app saves with the chat.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import DataFileError

_FIELD = r"[A-Za-z_][A-Za-z0-9_ ]{0,60}?"
_CONDITION = re.compile(rf"^\s*(?P<field>{_FIELD})\s*(?P<op>==|!=|>=|<=|>|<|\bnot\s+in\b|\bin\b)\s*(?P<value>.+?)\s*$")
_NUMBER = re.compile(r"^[-+]?\d+(\.\d+)?$")
_STEP = re.compile(r"^\s{0,3}(\d{1,2})[.)]\s+(\S.*)$")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$")
_KEYS = ("procedure", "applies_to", "keywords", "contact")
MAX_STEPS = 30
# A question asks how to *do* the procedure's act ("how do I apply for…", "walk me through…"),
# not what a rule says or pays ("how many weeks of parental leave…", "how would I be paid…"):
# those go to the model, which searches the policies.
_ACT = (r"(apply|request|submit|file|claim|start|begin|book|arrange|set\s+up|ask\s+for|sign\s+up|register"
        r"|notify|report|go\s+about)")
INTENT = re.compile(
    rf"\b(how\s+(do|can|should|shall)\s+(i|we)\s+(go\s+about\s+)?{_ACT}|how\s+to\s+{_ACT}"
    rf"|what\s+(are|is)\s+the\s+(steps?|process|procedure)\b|\b(steps?|process|procedure)\s+(to|for)\b"
    rf"|walk\s+me\s+through|guide\s+me\b|help\s+me\s+{_ACT}"
    rf"|i\s*(want|need|would\s+like|'d\s+like)\s+to\s+{_ACT}|(can|may)\s+i\s+{_ACT})", re.I)
NOT_A_PROCEDURE = re.compile(r"\bhow\s+(many|much|long|often)\b|\bpa(y|id)\b|\bcalculat|\bcost|\bsalary\b"
                             r"|\bbalance\b|\b(left|remaining)\b|\bhow\s+(would|will)\s+i\s+be\b", re.I)
# Words of a title that name the act, not the subject: they do not identify a procedure.
_GENERIC = {"apply", "applying", "application", "request", "requesting", "submit", "how", "procedure", "process",
            "steps", "step", "guide", "start", "starting", "take", "taking", "claim", "claiming", "file", "filing"}
HIRE_COLUMN = re.compile(r"hire|hiring|start(ed|ing)?[ _-]?date|join(ed|ing)?[ _-]?date|date[ _-]?(of[ _-]?)?"
                         r"(hire|joining|employment)|employment[ _-]?(start|date)|service[ _-]?date", re.I)
CONTRACT_COLUMN = re.compile(r"contract|employment[ _-]?(status|type)|^status$|^employee[ _-]?type$", re.I)


def _key(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(text).strip().lower()).strip("_")


@dataclass
class Condition:
    """One ``field op value`` line of ``applies_to``."""

    field: str
    op: str
    value: Any  # a number, a string, or a list of them (for in / not in)
    text: str

    @classmethod
    def parse(cls, text: str, where: str) -> "Condition":
        match = _CONDITION.match(text)
        if not match:
            raise DataFileError(f"{where}: the condition {text!r} is not 'field operator value'.",
                                hint='For example: tenure_months >= 12, or contract == "permanent".')
        op = " ".join(match["op"].split())
        value = _value(match["value"], where, text)
        if op in ("in", "not in") and not isinstance(value, list):
            raise DataFileError(f"{where}: {op!r} needs a list in the condition {text!r}.",
                                hint='For example: contract in ["permanent", "fixed-term"].')
        if op in (">=", "<=", ">", "<") and not isinstance(value, (int, float)):
            raise DataFileError(f"{where}: {op!r} compares numbers; {text!r} gives {match['value']}.",
                                hint="For example: tenure_months >= 12.")
        return cls(field=_key(match["field"]), op=op, value=value, text=" ".join(text.split()))

    def describe(self) -> str:
        """The condition in words: "at least 6 months of service", "employment status is not Probation"."""
        service = {"tenure_months": "months of service", "tenure_years": "years of service",
                   "tenure_days": "days of service"}.get(self.field)
        amount = {">=": "at least", ">": "more than", "<=": "at most", "<": "less than"}
        if service and self.op in amount:
            return f"{amount[self.op]} {self.value:g} {service}"
        label = self.field.replace("_", " ")
        if self.op in amount:
            return f"{label} {amount[self.op]} {self.value:g}"
        if self.op in ("in", "not in"):
            return f"{label} is {'one' if self.op == 'in' else 'none'} of {', '.join(map(str, self.value))}"
        return f"{label} is {'not ' if self.op == '!=' else ''}{self.value}"


def _value(raw: str, where: str, text: str, nested: bool = False) -> Any:
    raw = raw.strip()
    if raw.startswith("[") and raw.endswith("]"):
        if nested:  # a condition compares with values, never with lists of lists (nor a thousand levels of them)
            shown = text if len(text) <= 60 else text[:57] + "..."
            raise DataFileError(f"{where}: the condition {shown!r} has a list inside a list.",
                                hint='Write one list of values: contract in ["permanent", "fixed-term"].')
        items = [item.strip() for item in _split_list(raw[1:-1]) if item.strip()]
        return [_value(item, where, text, nested=True) for item in items]
    if len(raw) >= 2 and raw[0] == raw[-1] and raw[0] in "\"'" and raw[0] not in raw[1:-1]:
        return raw[1:-1]
    if _NUMBER.match(raw):
        number = float(raw)
        return int(number) if number.is_integer() else number
    if re.fullmatch(r"[A-Za-z][A-Za-z0-9 _-]*", raw):
        return raw  # an unquoted word: permanent
    raise DataFileError(f"{where}: cannot read the value {raw!r} in the condition {text!r}.",
                        hint='Write numbers as 12 and text in quotes: "permanent".')


@dataclass
class ProcedureStep:
    text: str
    line: int  # 1-based line of the step in its file


@dataclass
class Procedure:
    """A procedure as HR wrote it."""

    id: str  # the file's path under the policy folder
    title: str
    source: str
    steps: list[ProcedureStep]
    conditions: list[Condition] = field(default_factory=list)
    keywords: list[str] = field(default_factory=list)
    contact: str = ""
    intro: str = ""
    sha256: str = ""  # of the file: a saved walk-through knows when the procedure changed

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "title": self.title, "source": self.source, "sha256": self.sha256,
                "steps": [asdict(s) for s in self.steps], "conditions": [c.text for c in self.conditions],
                "contact": self.contact, "intro": self.intro}


def _front_matter(lines: list[str], where: str) -> tuple[dict[str, Any], int]:
    """The front matter's keys (a small YAML subset: ``key: value``, ``key: [a, b]``, ``key:`` with
    ``- item`` lines) and the number of lines it takes; ({}, 0) when the file has none."""
    from engine.policy.loaders import front_matter_end

    if not lines or lines[0].strip() != "---":
        return {}, 0
    end = front_matter_end(lines)
    if end is None:
        raise DataFileError(f"{where}: the front matter that starts on line 1 is not closed with '---'.",
                            hint="End it with a line of three dashes.")
    data: dict[str, Any] = {}
    current: str | None = None
    for number, line in enumerate(lines[1:end], start=2):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        item = re.match(r"^\s*-\s+(.*)$", line)
        if item and current is not None:
            if not isinstance(data[current], list):
                raise DataFileError(f"{where}, line {number}: '{current}' has a value and a list.")
            data[current].append(item[1].strip())
            continue
        pair = re.match(r"^([A-Za-z_][A-Za-z0-9_-]*)\s*:\s*(.*)$", line)
        if not pair:
            raise DataFileError(f"{where}, line {number}: cannot read {line.strip()!r} in the front matter.",
                                hint="Write 'key: value', or 'key:' followed by '- item' lines.")
        current, value = pair[1].lower(), pair[2].strip()
        if current in data:
            # A second "applies_to:" would silently replace the first list: refuse it.
            raise DataFileError(f"{where}, line {number}: '{current}' is given twice in the front matter.")
        if value.startswith("[") and value.endswith("]"):
            data[current] = [v.strip() for v in _split_list(value[1:-1]) if v.strip()]
        elif value:
            data[current] = value.strip("\"'") if current != "applies_to" else [value]
        else:
            data[current] = []
    return data, end + 1


def _split_list(text: str) -> list[str]:
    """Split at commas outside quotes and brackets (a condition may hold a list)."""
    parts, depth, quote, start = [], 0, "", 0
    for i, ch in enumerate(text):
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch == "[":
            depth += 1
        elif ch == "]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return parts


def parse_procedure(text: str, source: str) -> Procedure | None:
    """The procedure a document defines, or None when its front matter names none."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    meta, body_start = _front_matter(lines, source)
    if "procedure" not in meta:
        return None
    unknown = sorted(set(meta) - set(_KEYS))
    if unknown:
        # A misspelt "applies_to" must not make a procedure apply to everyone: refuse the file.
        raise DataFileError(f"{source}: the front matter has an unknown key {unknown[0]!r}.",
                            hint=f"Procedures take: {', '.join(_KEYS)}.")
    title = str(meta["procedure"]).strip()
    if not title or isinstance(meta["procedure"], list):
        raise DataFileError(f"{source}: 'procedure' needs a title.", hint="procedure: Apply for parental leave")
    conditions = [Condition.parse(c, source) for c in _as_list(meta.get("applies_to"))]
    keywords = [k.strip().strip("\"'") for raw in _as_list(meta.get("keywords")) for k in raw.split(",") if k.strip()]
    steps: list[ProcedureStep] = []
    intro: list[str] = []
    in_step = blank = False
    for number, line in enumerate(lines[body_start:], start=body_start + 1):
        step = _STEP.match(line)
        if step:
            steps.append(ProcedureStep(step[2].strip(), number))
            in_step, blank = True, False
        elif _HEADING.match(line):
            in_step = False  # a heading ends the step above it
        elif not line.strip():
            blank = in_step
        elif in_step and (not blank or line.startswith((" ", "\t"))):
            steps[-1].text += "\n" + line.strip()  # the step's own lines, or an indented paragraph of it
            blank = False
        elif not steps:
            intro.append(line.strip())
        else:
            in_step = False  # a paragraph after the list is not part of its last step
    if not steps:
        raise DataFileError(f"{source}: the procedure '{title}' has no numbered steps.",
                            hint="Write the steps as a numbered list: 1. …, 2. …")
    if len(steps) > MAX_STEPS:
        raise DataFileError(f"{source}: the procedure '{title}' has {len(steps)} steps (at most {MAX_STEPS}).",
                            hint="Split it into two procedures.")
    return Procedure(id=source, title=title, source=source, steps=steps, conditions=conditions,
                     keywords=[" ".join(k.split()) for k in keywords], contact=str(meta.get("contact") or ""),
                     intro=" ".join(intro), sha256=hashlib.sha256(text.encode("utf-8")).hexdigest())


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


def _tokens(text: str) -> list[str]:
    from engine.policy.index import tokenize

    return tokenize(text)


def _contains(words: list[str], phrase: list[str]) -> bool:
    """``phrase`` occurs in ``words`` as adjacent words, in order ("partner leave", not "partner … leave")."""
    n = len(phrase)
    return n > 0 and any(words[i:i + n] == phrase for i in range(len(words) - n + 1))


class ProcedureBook:
    """The procedures of a policy folder, and the files that could not be read as one (with why)."""

    def __init__(self, procedures: list[Procedure] | None = None, problems: list[str] | None = None) -> None:
        self.procedures = procedures or []
        self.problems = problems or []

    def __len__(self) -> int:
        return len(self.procedures)

    @classmethod
    def load(cls, root: str | Path) -> "ProcedureBook":
        """Read every Markdown policy file under ``root`` that starts with front matter."""
        from engine.policy.loaders import decode_text, policy_files

        root = Path(root).expanduser()
        procedures, problems = [], []
        try:
            files = policy_files(root)
        except DataFileError as exc:
            return cls([], [exc.message])
        for path in files:
            if path.suffix.lower() not in (".md", ".markdown"):
                continue
            source = path.name if root.is_file() else path.relative_to(root).as_posix()
            try:
                text = decode_text(path.read_bytes()).lstrip("\ufeff")
                if not text.startswith("---"):
                    continue  # no front matter: an ordinary policy document
                procedure = parse_procedure(text, source)
            except DataFileError as exc:
                problems.append(exc.message)
                continue
            except OSError as exc:
                problems.append(f"{source} cannot be read: {exc.strerror or exc}.")
                continue
            if procedure is not None:
                procedures.append(procedure)
        return cls(procedures, problems)

    def get(self, procedure_id: str) -> Procedure | None:
        return next((p for p in self.procedures if p.id == procedure_id), None)

    def match(self, question: str) -> Procedure | None:
        """The procedure a "how do I …" question is about, or None (then it is an ordinary question).
        The agent also leaves a question with several parts to the model (its plan rule)."""
        if not self.procedures or not INTENT.search(question) or NOT_A_PROCEDURE.search(question):
            return None
        if question.count("?") > 1:
            return None  # a question with another part is the model's: the walk-through would drop it
        words = _tokens(question)
        best: tuple[int, int] = (0, 0)
        chosen = None
        for procedure in self.procedures:
            phrases = procedure.keywords or [" ".join(w for w in re.findall(r"[A-Za-z0-9']+", procedure.title)
                                                      if w.lower() not in _GENERIC)]
            hits = [len(t) for t in (_tokens(p) for p in phrases) if _contains(words, t)]
            score = (max(hits, default=0), len(hits))
            if score > best:
                best, chosen = score, procedure
        return chosen


# -- applicability ------------------------------------------------------------------------------

@dataclass
class Check:
    condition: str  # as HR wrote it
    ok: bool | None  # None: could not be checked (no such column, not readable, empty)
    value: str = ""  # what the record holds, as shown to the user
    reason: str = ""
    label: str = ""  # the condition in words


@dataclass
class Applicability:
    verdict: str  # "applies", "does_not_apply" or "unknown"
    checks: list[Check] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "checks": [asdict(c) for c in self.checks]}

    def summary(self) -> str:
        parts = []
        for c in self.checks:
            mark = {True: "✓", False: "✗", None: "?"}[c.ok]
            parts.append(f"{mark} {c.label or c.condition}" + (f" (yours: {c.value})" if c.value else "")
                         + (f" ({c.reason})" if c.reason else ""))
        return "; ".join(parts)


def _months_between(start: _dt.date, end: _dt.date) -> int:
    """Whole calendar months from ``start`` to ``end``: from 31 August, a month is complete on the
    last day of a shorter month (28 February), as dateutil's relativedelta counts."""
    months = (end.year - start.year) * 12 + end.month - start.month
    last_day = (end + _dt.timedelta(days=1)).day == 1
    return months - (1 if end.day < start.day and not last_day else 0)


def _column_for(table, name: str) -> tuple[str | None, str]:
    """The employee column a condition's field names, and how to derive the value ("", "tenure_*")."""
    columns = list(table.columns)
    exact = {_key(c): c for c in columns}
    if name in exact:
        return exact[name], ""
    if name in ("tenure_months", "tenure_years", "tenure_days", "hire_date", "start_date"):
        dates = [c for c in columns if table.columns[c].dtype == "date" and HIRE_COLUMN.search(c)]
        return (dates[0] if dates else None), ("" if name in ("hire_date", "start_date") else name)
    if name in ("contract", "contract_type", "employment_status", "employment_type"):
        found = [c for c in columns if table.columns[c].dtype == "text" and CONTRACT_COLUMN.search(c)]
        return (found[0] if found else None), ""
    return None, ""


def _plain(value: Any) -> Any:
    if hasattr(value, "date") and callable(value.date):
        return value.date()
    if hasattr(value, "item"):
        return value.item()
    return value


def check_applicability(procedure: Procedure, data_tool, context, today: _dt.date | None = None) -> Applicability:
    """Does ``procedure`` apply to the asking employee? Reads only their own row, under the access
    rules, and writes one audit entry naming the columns read."""
    if not procedure.conditions:
        return Applicability("applies")
    today = today or (_dt.date.fromisoformat(context.today) if getattr(context, "today", "") else _dt.date.today())
    checks: list[Check] = []
    if data_tool is None or not context.user:
        reason = "your employee record is not available"
        return Applicability("unknown", [_unchecked(c, "", reason) for c in procedure.conditions])
    viewer = data_tool.viewer(context.user)
    table = data_tool.table
    read: list[str] = []
    refused = False  # a condition named a column the access rules keep from this user
    for condition in procedure.conditions:
        column, derive = _column_for(table, condition.field)
        if viewer.row is None:
            checks.append(_unchecked(condition, "", "you are not in the employee data"))
            continue
        if column is None:
            checks.append(_unchecked(condition, "", f"the employee data has no '{condition.field}'"))
            continue
        if not viewer.can_read(column, [viewer.row]):
            checks.append(_unchecked(condition, "", viewer.denial(column)))
            refused = True
            continue
        read.append(column)
        raw = _plain(table.df.at[viewer.row, column])
        if raw is None or raw != raw or raw == "":
            checks.append(_unchecked(condition, "", f"'{column}' is empty in your record"))
            continue
        if derive:
            if not isinstance(raw, _dt.date):
                checks.append(_unchecked(condition, str(raw), f"'{column}' is not a date"))
                continue
            value: Any = {"tenure_months": _months_between(raw, today),
                          "tenure_years": _months_between(raw, today) / 12,  # compared unrounded
                          "tenure_days": (today - raw).days}[derive]
            unit = derive.split("_")[1]
            shown = f"{round(value, 1):g} {unit} ({column} {raw.isoformat()})"
        else:
            value, shown = raw, (raw.isoformat() if isinstance(raw, _dt.date) else str(raw))
        checks.append(_compare(condition, value, shown))
    if getattr(data_tool, "audit", None) is not None:
        data_tool.audit.record(viewer.name, viewer.role, f"procedure check: {procedure.title}", not refused,
                               "columns: " + ", ".join(dict.fromkeys(read)) if read else "no column read",
                               1 if read else 0, account=context.account, view_as=context.view_as)
    if any(c.ok is False for c in checks):
        return Applicability("does_not_apply", checks)
    return Applicability("applies" if all(c.ok for c in checks) else "unknown", checks)


def _unchecked(condition: Condition, shown: str, reason: str) -> Check:
    return Check(condition.text, None, shown, reason, condition.describe())


_TRUTH = {"true": True, "yes": True, "1": True, "false": False, "no": False, "0": False}


def _compare(condition: Condition, value: Any, shown: str) -> Check:
    from engine.data.employees import normalise_name

    def norm(v: Any) -> Any:
        if isinstance(v, bool):
            return v
        if isinstance(value, bool) and str(v).strip().lower() in _TRUTH:
            return _TRUTH[str(v).strip().lower()]  # a yes/no column against true, yes, 1
        if isinstance(v, (int, float)):
            return float(v)
        if isinstance(v, _dt.date):
            return v
        text = str(v)
        if _NUMBER.match(text.strip()):
            return float(text)
        try:
            return _dt.date.fromisoformat(text.strip())
        except ValueError:
            return normalise_name(text)

    left = norm(value)
    op = condition.op
    try:
        if op in ("in", "not in"):
            inside = left in [norm(v) for v in condition.value]
            ok = inside if op == "in" else not inside
        else:
            right = norm(condition.value)
            ok = {"==": lambda: left == right, "!=": lambda: left != right, ">=": lambda: left >= right,
                  "<=": lambda: left <= right, ">": lambda: left > right, "<": lambda: left < right}[op]()
    except TypeError:
        return _unchecked(condition, shown, "the value cannot be compared")
    return Check(condition.text, bool(ok), shown, "", condition.describe())


# -- the walk-through ---------------------------------------------------------------------------

@dataclass
class Walkthrough:
    """Where the user is in a procedure. The user drives it: next (done), skip, back, cancel."""

    procedure: str  # Procedure.id
    title: str
    steps: list[str]
    source: str = ""
    lines: list[int] = field(default_factory=list)
    sha256: str = ""
    position: int = 0  # the step shown now (== len(steps) when finished)
    marks: list[str] = field(default_factory=list)  # per step: "", "done" or "skipped"
    state: str = "active"  # "active", "finished" or "cancelled"

    @classmethod
    def start(cls, procedure: Procedure) -> "Walkthrough":
        return cls(procedure=procedure.id, title=procedure.title, steps=[s.text for s in procedure.steps],
                   source=procedure.source, lines=[s.line for s in procedure.steps], sha256=procedure.sha256,
                   marks=[""] * len(procedure.steps))

    @property
    def active(self) -> bool:
        return self.state == "active"

    @property
    def current(self) -> str:
        return self.steps[self.position] if self.active and self.position < len(self.steps) else ""

    def _advance(self, mark: str) -> None:
        if not self.active:
            return
        self.marks[self.position] = mark
        self.position += 1
        if self.position >= len(self.steps):
            self.state = "finished"

    def next(self) -> None:
        """The current step is done: show the next one (the last one finishes the procedure)."""
        self._advance("done")

    def skip(self) -> None:
        self._advance("skipped")

    def back(self) -> None:
        if self.state == "finished":
            self.state = "active"
        if self.active and self.position > 0:
            self.position -= 1
            self.marks[self.position] = ""

    def cancel(self) -> None:
        if self.active:
            self.state = "cancelled"

    def apply(self, action: str) -> None:
        actions = {"next": self.next, "skip": self.skip, "back": self.back, "cancel": self.cancel}
        if action not in actions:
            raise ValueError(f"unknown walk-through action {action!r}")
        actions[action]()

    def progress(self) -> str:
        if self.state == "cancelled":
            return f"Cancelled at step {self.position + 1} of {len(self.steps)}"
        if self.state == "finished":
            skipped = self.marks.count("skipped")
            return f"All {len(self.steps)} steps gone through" + (f" ({skipped} skipped)" if skipped else "")
        return f"Step {self.position + 1} of {len(self.steps)}"

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "Walkthrough":
        """A saved walk-through; a damaged one raises ValueError (the app then offers none)."""
        if not isinstance(data, dict) or not all(k in data for k in ("procedure", "title", "steps", "marks")):
            raise ValueError("not a walk-through")
        w = cls(**{k: data[k] for k in cls.__dataclass_fields__ if k in data})
        steps_ok = isinstance(w.steps, list) and w.steps and all(isinstance(t, str) for t in w.steps)
        marks_ok = isinstance(w.marks, list) and all(m in ("", "done", "skipped") for m in w.marks)
        position_ok = type(w.position) is int and 0 <= w.position <= (len(w.steps) if steps_ok else 0)
        if (not steps_ok or not marks_ok or len(w.marks) != len(w.steps) or not position_ok
                or w.state not in ("active", "finished", "cancelled")
                or (w.state == "active" and w.position >= len(w.steps))):
            raise ValueError("not a walk-through")
        return w


def answer_text(procedure: Procedure, applicability: Applicability) -> str:
    """What the assistant says when it recognises a procedure question (the steps follow in the card)."""
    n = len(procedure.steps)
    head = f"**{procedure.title}** is a procedure of {n} step{'s' if n != 1 else ''} ({procedure.source})."
    contact = procedure.contact or "HR"
    if applicability.verdict == "does_not_apply":
        failed = [c for c in applicability.checks if c.ok is False]
        why = "; ".join(f"it needs {c.label or c.condition}" + (f", and your record has {c.value}" if c.value else "")
                        for c in failed)
        intro = f" {procedure.intro}" if procedure.intro else ""
        return (f"{head}\n\nIt does not apply to you: {why}.{intro} If you think your record is wrong, "
                f"contact {contact}.")
    steps = "\n".join(f"{i}. {s.text}" for i, s in enumerate(procedure.steps, start=1))
    if applicability.verdict == "unknown":
        missing = "; ".join(f"{c.label or c.condition}: {c.reason}" for c in applicability.checks if c.ok is None)
        lead = f"I could not check whether it applies to you ({missing}). Check with {contact} before you start."
    elif applicability.checks:
        lead = "It applies to you: " + "; ".join(
            f"{c.label or c.condition} (yours: {c.value})" if c.value else c.label or c.condition
            for c in applicability.checks) + "."
    else:
        lead = "It applies to everyone."
    intro = f"\n\n{procedure.intro}" if procedure.intro else ""
    return f"{head} {lead}{intro}\n\nThe steps:\n{steps}"

