"""Worked examples chosen per question: the nearest few from a bank, not one fixed example per tool.

A small model copies the shape of an example better than it follows a rule, and it copies the
example in front of it, wanted or not. So each pipeline step that fills slots shows the two bank
examples nearest to the question (by embedding): a data query shown in this table's own columns
and values (an example the table cannot fill is not shown), a calculation with made-up figures
(the calculation grammar admits only the context's own numbers, so an example's figures cannot
leak into an answer). The bank (``data/examples.jsonl``) is written for the pipelines and drawn
from the development split; the test split is never in it.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from engine.agent.router import read_bank
from engine.data.schema import hourly_value, part_time_value

BANK = Path(__file__).with_name("data") / "examples.jsonl"
SHOWN = 2
_PLAIN_ROLES = {"vacation_balance", "sick_balance", "days_per_week"}
SECOND_EXAMPLE = 0.6  # a second calculation example only if it is this near too (a near-miss gets copied)
_VACATION = re.compile(r"vacation|annual|holiday|pto|paid[ _-]?time|leave", re.I)
_SICK = re.compile(r"sick", re.I)
_PROBATION = re.compile(r"probation|introductory|trial", re.I)


@dataclass
class Example:
    kind: str  # "slots" or "calc"
    question: str
    body: str  # the slots, or the calculation
    given: str = ""
    variables: str = ""  # a calculation's declared figures


def load_examples(path: Path = BANK) -> list[Example]:
    out = []
    for line in read_bank(path).splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            raw = json.loads(line)
            out.append(Example(raw["kind"], raw["q"], raw.get("slots") or raw.get("calc", ""), raw.get("given", ""),
                               raw.get("vars", "")))
    return out


def table_words(table, viewer) -> dict[str, str]:
    """What the slot examples' placeholders stand for in this table (quoted as the slots write them)."""
    q = lambda name: '"' + name + '"'  # noqa: E731 - the slots' quoting
    words: dict[str, str] = {}
    for role, key in (("name", "name"), ("department", "dept"), ("employment_type", "status"),
                      ("pay_basis", "paybasis")):
        col = table.role(role)
        if col:
            words[key] = q(col)
    if table.pay_columns:
        words["pay"] = q(table.pay_columns[0])
    # Plain figures: number columns with no meaning beyond their figure (a leave balance is one).
    numeric = [c for c, col in table.columns.items() if col.dtype in ("int", "float") and set(col.roles) <= _PLAIN_ROLES]
    balance = next((c for c in numeric if _VACATION.search(c) and not _SICK.search(c)), None)
    sick = next((c for c in numeric if _SICK.search(c)), None)
    if balance:
        words["balance"] = q(balance)
    if sick:
        words["sick"] = q(sick)
    df = table.df
    everyone = list(df.index)
    dept = table.role("department")
    if dept and viewer.can_read(dept, everyone):
        values = df[dept].dropna()
        if len(values):
            top = str(values.value_counts().index[0])
            words["dept_value"] = top
            words["dept_value_q"] = q(top)
    status = table.role("employment_type")
    if status and viewer.can_read(status, everyone):
        values = [v for v in dict.fromkeys(df[status]) if isinstance(v, str)]
        part = next((v for v in values if part_time_value(v)), None)
        probation = next((v for v in values if _PROBATION.search(v)), None)
        if part:
            words["parttime"] = q(part)
        if probation:
            words["probation"] = q(probation)
    basis = table.role("pay_basis")
    if basis and viewer.can_read(basis, everyone):
        hourly = next((v for v in dict.fromkeys(df[basis]) if hourly_value(v)), None)
        if hourly:
            words["hourly"] = q(str(hourly))
    name = table.role("name")
    if name:
        others = [v for i, v in df[name].items() if isinstance(v, str) and i != viewer.row]
        for key, person in zip(("person", "person2"), others[:2]):
            words[key] = person
            words[f"{key}_q"] = q(person)
    # The same in words, for the example questions ("PTO Balance (hrs)" -> "pto balance hrs").
    for key in ("balance", "sick", "pay", "dept", "parttime", "probation"):
        if key in words:
            words[f"{key}_w"] = " ".join(re.sub(r"[^\w]+", " ", words[key].strip('"')).lower().split())
    return words


def _fill(text: str, words: dict[str, str]) -> str | None:
    missing = [k for k in re.findall(r"\{(\w+)\}", text) if k not in words]
    if missing:
        return None
    return re.sub(r"\{(\w+)\}", lambda m: words[m.group(1)], text)


class ExampleBank:
    """The bank, embedded once; :meth:`slots` and :meth:`calculations` give a question's nearest."""

    def __init__(self, embedder, examples: list[Example] | None = None) -> None:
        self.embedder = embedder
        self.examples = examples if examples is not None else load_examples()
        self._vectors = None
        self._calc_vectors = None

    def _ranked(self, question: str, kind: str) -> list[Example]:
        import numpy as np

        if self._vectors is None:
            self._vectors = self.embedder.encode([e.question for e in self.examples])
        sims = self._vectors @ self.embedder.encode([question])[0]
        return [self.examples[int(i)] for i in np.argsort(-sims) if self.examples[int(i)].kind == kind]

    def slots(self, question: str, table, viewer, *, manager: bool) -> str:
        """The nearest slot examples, in this table's own columns and words ("" if none fits). They are
        ranked as filled in: "Who has the most pto balance hrs?" is near "Who has the most PTO hours?"."""
        import numpy as np

        words = table_words(table, viewer)
        filled = []
        for e in self.examples:
            if e.kind != "slots" or (not manager and "my direct reports" in e.body):
                continue
            body, q = _fill(e.body, words), _fill(e.question, words)
            if body is not None and q is not None:
                filled.append((q, body))
        if not filled:
            return ""
        sims = self.embedder.encode([q for q, _ in filled]) @ self.embedder.encode([question])[0]
        # An embedding hardly tells "most" from "fewest": the direction a question ranks in is read here.
        want = _direction(question)
        sims = sims + np.array([0.1 * want * _direction(q) for q, _ in filled])
        order = [int(i) for i in np.argsort(-sims)[:SHOWN]][::-1]  # the nearest last, next to the question
        return "\n".join(f"Question: {filled[i][0]}\n{filled[i][1]}" for i in order)

    def calculations(self, question: str, context: str = "") -> str:
        """The nearest calculation examples, as code (made-up figures), the nearest last. ``context``: the
        policy sentences offered, whose wording finds the right pattern better than the question alone."""
        import numpy as np

        calcs = [e for e in self.examples if e.kind == "calc"]
        if not calcs:
            return ""
        if self._calc_vectors is None:
            self._calc_vectors = self.embedder.encode([f"{e.question} {e.given}" for e in calcs])
        sims = self._calc_vectors @ self.embedder.encode([f"{question} {context}".strip()])[0]
        order = [int(i) for i in np.argsort(-sims)]
        chosen = [i for n, i in enumerate(order[:SHOWN]) if n == 0 or sims[i] >= SECOND_EXAMPLE][::-1]
        shown = []
        for i in chosen:
            e = calcs[i]
            lines = [f'# Question: "{e.question}"'] + ([f"# {e.given}"] if e.given else [])
            lines += [e.variables] if e.variables else []
            shown.append("\n".join(lines + [e.body]))
        return "\n\n".join(shown)


_UP = re.compile(r"\b(most|highest|largest|biggest|maximum|max|longest|top)\b", re.I)
_DOWN = re.compile(r"\b(fewest|least|lowest|smallest|minimum|min|shortest)\b", re.I)


def _direction(text: str) -> int:
    """+1 for a question after the most of something, -1 for the least, 0 for neither."""
    return 1 if _UP.search(text) else (-1 if _DOWN.search(text) else 0)
