"""Questions about a team or the company as slots, not code: rows, filter, result.

A small model writing pandas picks the wrong column, forgets the filter or ranks by the name.
Here it fills three short slots under a grammar generated from the loaded table::

    Rows: my direct reports
    Filter: "Employment Type" is "Part-Time"
    Result: the 1 with the lowest "PTO Balance (hrs)"

Only the table's real columns can be named, a text column with few values offers exactly its
values (where the person may read that column on every row), and "me" and "my direct reports"
are values of their own, resolved by code from the reporting line in the data. The slots compile
to the employee-data query language (:mod:`engine.data.query`), so the same access checks, limits
and audit log apply as to any query.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field

from engine.agent.sentences import asked_aggregate, asked_tenure, asks_several, employee_nouns, possessive_words
from engine.data.access import manager_keys
from engine.data.employees import normalise_name, unsort_name
from engine.errors import ToolInputError

AGGREGATES = {"average": "mean", "total": "sum", "highest": "max", "lowest": "min", "median": "median"}
MAX_VALUES = 40  # a text column with more distinct values takes free text
MAX_TOP = 10
#: Most tokens a slot the model fills may take (a pick, a query, a calculation).
SLOT_TOKENS = 160
_NUMBER_OPS = {"above": ">", "below": "<", "at least": ">=", "at most": "<=", "is": "=="}
_DATE_OPS = {"before": "<", "after": ">"}
_IDENTITY_ONLY = {"first_name", "last_name", "preferred_name", "email", "username"}
_HIGH = re.compile(r"\b(most|highest|largest|biggest|greatest|maximum|max|top|longest)\b", re.I)
_LOW = re.compile(r"\b(fewest|least|lowest|smallest|minimum|min|shortest)\b", re.I)
_BOUNDS = re.compile(r"\bat (most|least)\b|\bthe most of\b", re.I)
_WORD = re.compile(r"[a-z]+")
#: A word of a name, as the question writes it ("Anna", "Ibáñez", "O'Neil").
_NAME_WORD = re.compile(r"[^\W\d_][\w'’]*")
#: Words that say nothing about which column is meant (they are in many column names or questions).
_PLAIN = {"days", "day", "hours", "hour", "hrs", "week", "weeks", "year", "years", "month", "months", "remaining",
          "left", "balance", "number", "total", "usd", "eur", "gbp", "the", "of", "my", "me", "who", "has", "have",
          "with", "per", "and", "in", "a", "an", "is", "are", "how", "many", "much", "for", "to", "i", "do", "does",
          "if", "what", "when", "can", "could", "be", "on", "at", "by", "or", "you", "your", "it", "that", "this",
          "will", "would", "get", "out", "up", "any", "all", "not", "no", "from", "as", "each", "there", "than"}


def asked_direction(question: str) -> str:
    """"highest" or "lowest" when the question says which one it wants ("most", "fewest"), else ""."""
    text = _BOUNDS.sub(" ", question or "")
    high, low = bool(_HIGH.search(text)), bool(_LOW.search(text))
    return "highest" if high and not low else "lowest" if low and not high else ""


_THRESHOLD = re.compile(r"\b((more|less|greater|fewer|higher|lower)\s+than|above|below|over|under|exceed(s|ing)?"
                        r"|at\s+least|at\s+most|upwards\s+of|in\s+excess\s+of)\s+(\S+\s+)?[$€£]?\d", re.I)


def asked_threshold(question: str) -> bool:
    """Whether the question compares with a figure of its own ("earn more than 200000", "above 10 days"):
    then that comparison must be in the query, or the count it gives answers another question."""
    return bool(_THRESHOLD.search(question or ""))


def distinctive_words(text: str) -> set[str]:
    """The words of ``text`` that can tell one column from another (plural -s off, plain words out)."""
    words = set(_WORD.findall(text.lower().replace("_", " "))) - _PLAIN
    # (one letter tells nothing: the "s" of "What's" and "Carer's")
    return {w[:-1] if w.endswith("s") and len(w) > 3 else w for w in words if len(w) > 1} - _PLAIN


def asked_columns(question: str, columns: list[str], aliases: dict[str, list[str]] | None = None) -> list[str]:
    """The number columns the question names by a distinctive word ("sick days left" → the sick-days
    column, not the vacation one), or by a whole phrase of their ``aliases`` (what the column's role is
    called: "annual leave" for "AL Bal (hrs)"); all of them when it names none."""
    asked = distinctive_words(question or "")
    aliases = aliases or {}

    def alias_words(column: str) -> int:
        phrases = [distinctive_words(p) for p in aliases.get(column, [])]
        return max((len(w) for w in phrases if w and w <= asked), default=0)

    scored = [(len(distinctive_words(c) & asked) + alias_words(c), c) for c in columns]
    best = max((n for n, _ in scored), default=0)
    return [c for n, c in scored if n == best] if best else list(columns)


def named_columns(question: str, columns: list[str]) -> list[str]:
    """The columns the question names by a word of theirs, stem against stem ("everyone's salaries" names
    "annual_salary_usd"; "pay rate" names "Pay Rate"); none where it names none."""
    def stems(text: str) -> set[str]:
        return {w[:5] for w in distinctive_words(text) if w.isalpha() and len(w) >= 3}

    asked = stems(question or "")
    return [c for c in columns if stems(c) & asked]


def _lit(text: str) -> str:
    """A GBNF string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _q(name: str) -> str:
    """A column as the model writes it: in double quotes."""
    return '"' + name + '"'


@dataclass
class SlotQuery:
    """The filled slots of one question."""

    rows: str = "everyone"  # "everyone", "me" or "my direct reports"
    filters: list[tuple[str, str, str]] = field(default_factory=list)  # (column, op word, value)
    result: str = "count"  # "count", "names", "list", an aggregate word, "count per", "top"
    columns: list[str] = field(default_factory=list)  # what the result shows or aggregates
    by: str = ""  # the group column of a "per" result
    top: int = 0
    highest: bool = True
    dated: bool = False  # a ranking by a date (the hire date): earliest or latest first

    @property
    def order(self) -> str:
        """Which end of a ranking comes first, in words ("highest", or "earliest" for a date)."""
        if self.dated:
            return "latest" if self.highest else "earliest"
        return "highest" if self.highest else "lowest"

    def describe(self) -> str:
        """The slots as the model wrote them (the trace shows this line)."""
        parts = [f"Rows: {self.rows}"]
        parts.append("Filter: " + (filter_text(self.filters) or "none"))
        parts.append("Result: " + self._result_words())
        return "; ".join(parts)

    def _result_words(self) -> str:
        if self.result == "top":
            return f"the {self.top} with the {self.order} {_q(self.columns[0])}"
        if self.result == "list":
            return "list of " + ", ".join(_q(c) for c in self.columns)
        if self.result == "count per":
            return f"count per {_q(self.by)}"
        if self.result in AGGREGATES:
            return f"{self.result} of {_q(self.columns[0])}" + (f" per {_q(self.by)}" if self.by else "")
        return self.result


def filter_text(filters: list[tuple[str, str, str]]) -> str:
    """Conditions as the Filter slot writes them (``"Reparto" is "Produzione" and "FTE" above 0.5``)."""
    return " and ".join(f'{_q(c)} {op} {v if op == "is one of" or _numeric(v) else _q(v)}' for c, op, v in filters)


_FILLER = {"of", "and", "the", "a", "an", "in", "on", "at", "for", "to"}


def _tokens(text: str) -> list[str]:
    return [t for t in re.sub(r"[^a-z0-9]+", " ", normalise_name(text)).split() if t not in _FILLER]


def mentioned(value: str, text: str) -> bool:
    """Does ``text`` mention the column value ``value``? Every word of it, in any form ("Engineering" in "how
    many engineers", "Part-Time" in "part-timers"), or its initials ("HR" for "Human Resources")."""
    words = _tokens(value)
    asked = _tokens(text)
    if not words or not asked:
        return False
    short = value.strip()
    if len(short) <= 3 and short.isupper():
        # "IT", "HR": only as the data writes it ("the system has approved it" names no IT team)
        return bool(re.search(rf"(?<!\w){re.escape(short)}(?!\w)", text))

    def seen(word: str) -> bool:
        if len(word) <= 3:
            return word in asked
        stem = word[:5]
        return any(a.startswith(stem) or (len(a) >= 4 and word.startswith(a[:5])) for a in asked)

    if all(seen(w) for w in words):
        return True
    if len(words) >= 2 and "".join(w[0] for w in words) in asked:
        return True
    from engine.data.vocab import vocabulary

    meaning = vocabulary().gloss(value)  # "Elternzeit" is parental leave: "Who is on parental leave?" names it
    return bool(meaning) and meaning.casefold() != value.casefold() and mentioned(meaning, text)


def names_value(value: str, text: str, proper: bool = True) -> bool:
    """Does ``text`` name the column value ``value`` outright: each word of it as a word of the text, or
    one that shares its first five letters ("Engineering" in "engineers"; not "Qualidade" in "Qual")? A
    ``proper`` value (a department's or a site's name, not a kind of contract or pay) must have its capitals."""
    words = [w for w in _tokens(value) if len(w) > 1]
    asked = set(_tokens(text))
    if not words:
        return False
    if len(value.strip()) <= 3:  # "IT", "HR": only as the data writes it ("approved it" names no department)
        return bool(re.search(rf"(?<!\w){re.escape(value.strip())}(?!\w)", text))
    # Each word with the capital the data gives it ("the Comercial department"): "How many people report to me?"
    # names no team called "People".
    capitals = {w[:5] for w in re.findall(r"[^\W\d_]+", text) if w[0].isupper()}
    if proper and any(w[0].isupper() and w[:5] not in capitals for w in re.findall(r"[^\W\d_]{2,}", value)):
        return False
    return all(w in asked or (len(w) >= 5 and any(len(a) >= 5 and a[:5] == w[:5] for a in asked)) for w in words)


#: The endings by which a noun's number or gender differ (after the letters two forms share): "opérat-eur" and
#: "opérat-rices", "camarer-o" and "camarer-as", "Mitarbeiter-innen"; not "train-er" and "train-ing", "intern" and
#: "intern-al", "manage-r" and "manage".
_FORM_ENDINGS = frozenset({"", "s", "es", "e", "a", "o", "os", "as", "i", "y", "en", "n", "in", "innen", "nen", "eur",
                           "eurs", "euse", "euses", "rice", "rices", "ice", "ices", "ier", "iere", "ieres", "iers"})


def _same_word(word: str, asked: str) -> bool:
    """``asked`` is ``word`` in another number or gender ("opérateurs", "camareras", "Mitarbeiterinnen"): they
    share five letters at least and differ only by the endings of :data:`_FORM_ENDINGS` ("Recepcionista" is no
    "recepción", "Trainer" no "training")."""
    common = len(os.path.commonprefix([word, asked]))
    return word == asked or common >= 5 and word[common:] in _FORM_ENDINGS and asked[common:] in _FORM_ENDINGS


def names_title(value: str, text: str, others: list[str]) -> bool:
    """Does ``text`` name the job title ``value`` as a common noun, in any case and number ("our production
    operators (the opérateurs and opératrices de production)" for "Opérateur/Opératrice de production",
    "orderpickers"), by words no value of another column it names has taken ("the Engineering team" names the
    department, not also the job title "Engineer")? Not a title that is a word for any employee ("Medewerker"),
    nor one named only as the asker's own, in the singular ("my manager"; "my orderpickers" are a filter)."""
    words = [w for w in _tokens(value) if len(w) > 1]
    if not words or len(value.strip()) <= 3 or not any(len(w) > 3 for w in words):
        return False
    if all(w in {t for n in employee_nouns() for t in _tokens(n)} for w in words if len(w) > 3):
        return False
    taken = {w for other in others for w in _tokens(other)}
    asked = [a for a in _tokens(text) if not any(_same_word(t, a) or t[:5] == a[:5] for t in taken if len(t) > 3)]
    if not all(w in asked if len(w) <= 3 else any(_same_word(w, a) for a in asked) for w in words):
        return False
    # ("my manager": the asker's own, not the people whose title it is)
    own = {_tokens(m.group(1))[0] for m in re.finditer(possessive_words().pattern + r"\s+([\w'’-]+)", text, re.I)
           if _tokens(m.group(1))}
    return not all(w in own for w in words if len(w) > 3)


def value_head(value: str) -> str:
    """The name at the head of a value that adds a descriptor after a dash or in brackets ("São José dos Pinhais -
    Fábrica", "Leeds (warehouse)": "São José dos Pinhais", "Leeds"); "" for a value with none."""
    head = re.split(r"\s+[-–—/|]\s+|\s*\(", value.strip(), maxsplit=1)[0].strip()
    return head if head and head != value.strip() and len(head) >= 4 else ""


def names_meaning(value: str, text: str, itself: bool = False) -> bool:
    """Does ``text`` name what the column value means, where the data writes it in another language
    ("parental leave" for "Ouderschapsverlof", "part-time" for "Tempo parziale"): every word of its English
    gloss, as a word of the text? With ``itself`` (a status or a kind of contract, never a department such
    as "People"), a value with no gloss is its own meaning, in any case ("Part-time" in "lavora part-time")."""
    from engine.data.vocab import vocabulary

    meaning = vocabulary().gloss(value) or (value if itself else "")
    if not meaning or meaning.casefold() == value.casefold() and not itself:
        return False
    asked = set(_tokens(text))
    words = [w for w in _tokens(meaning) if len(w) > 2 or w in ("hr",)]
    return bool(words) and all(w in asked for w in words)


def names_own_word(value: str, values: list[str], text: str) -> bool:
    """Does ``text`` name a word of ``value`` (six letters or more, or five after "on") that no other of ``values`` has
    ("introductory" of "Active - Introductory", beside "Active" and "Active - Notice"; "leave" of "Leave of
    Absence", beside "Active" and "Terminated")?"""
    asked = set(_tokens(text))
    others = {w for v in values if v != value for w in _tokens(v)}
    # (a word of five letters only as what someone is "on": "out on leave" names "Leave of Absence", "how many days
    # of annual leave" does not)
    return any(w in asked and w not in others and (len(w) >= 6 or len(w) == 5 and re.search(
        rf"\bon\s+{re.escape(w)}\b", normalise_name(text))) for w in _tokens(value))


def question_dates(text: str) -> list[str]:
    """The dates a date filter may compare with: those the text writes (2024-03-01), and a year it names as
    its first and last day. A date the text does not give (today's, the asker's hire date) is not offered."""
    found = set(re.findall(r"\b((?:19|20)\d\d-[01]\d-[0-3]\d)\b", text))
    for year in re.findall(r"(?<![\d-])((?:19|20)\d\d)(?![\d-])", text):
        found |= {f"{year}-01-01", f"{year}-12-31"}
    return sorted(found)


def _says_own(column: str, text: str) -> bool:
    """Does ``text`` speak of the asker's own value of ``column`` ("my department", "our location")?"""
    words = [w for w in _tokens(column) if len(w) >= 4]
    return any(re.search(rf"\b(my|our|same)\s+{re.escape(w[:5])}", text, re.I) for w in words)


def _numeric(text: str) -> bool:
    return bool(re.fullmatch(r"-?\d+(\.\d+)?", text))


class SlotGrammar:
    """The slot grammar and compiler for one table, one viewer."""

    def __init__(self, table, viewer, *, names: list[str] | None = None, grouping: bool = True,
                 scope: str = "", question: str = "", mentions: str | None = None,
                 carried: list[tuple[str, str, str]] | None = None) -> None:
        self.table = table
        # What code reads off the question, so the model cannot get it wrong: the direction of a ranking
        # ("fewest"), the number columns it names ("sick days"), and the figures a filter may compare with
        # (a threshold comes from the question, never from the model).
        self.question = question
        self.viewer = viewer
        self.scope = scope  # whose rows, when code has decided it ("everyone", "my direct reports")
        # A filter value must be one the question (or the conversation before it) mentions: a model offered
        # every value filtered on the asker's own job title for "Who has the most vacation days?".
        self.mentions = question if mentions is None else mentions
        self.grouping = grouping  # offer "… per <column>" (only when the question asks for a breakdown)
        # The filter of the part before, which this part refers back to ("…, and what is their average salary?")
        self.carried = [f for f in carried or () if f[0] in table.columns]
        self.named: list[tuple[str, str]] = []
        self.names = names or []  # people the question or the conversation names (offered as values)
        self.name_col = table.role("name")
        self.numeric = [c for c, col in table.columns.items() if col.dtype in ("int", "float")
                        and "employee_id" not in col.roles and "manager" not in col.roles]
        # Name parts, e-mail and log-in say who someone is, which the name column already does.
        self.text = [c for c, col in table.columns.items() if col.dtype in ("text", "bool")
                     and not set(col.roles) & _IDENTITY_ONLY]
        self.dates = [c for c, col in table.columns.items() if col.dtype == "date"]
        all_rows = list(table.df.index)
        self.values: dict[str, list[str]] = {}
        mine = sorted(viewer.visible_rows)
        for c in self.text:
            if c == self.name_col:
                continue  # a name is free text
            # A column the person may not read on every row offers the values of the rows they may read (their
            # own and their reports': a manager's "which of them is on parental leave?"), never anyone else's.
            rows = all_rows if viewer.can_read(c, all_rows) else mine if mine and viewer.can_read(c, mine) else []
            distinct = [str(v) for v in dict.fromkeys(table.df[c].loc[rows]) if isinstance(v, str) and v.strip()]
            if 0 < len(distinct) <= MAX_VALUES:
                self.values[c] = sorted(distinct)

    # -- what the model reads ------------------------------------------------------------------------
    def columns_text(self) -> str:
        """The table's columns for the prompt: kind, unit and (few) values."""
        from engine.data.schema import infer_schema

        units = infer_schema(self.table).units
        lines = []
        for c, col in self.table.columns.items():
            if set(col.roles) & _IDENTITY_ONLY or "employee_id" in col.roles:
                continue
            if col.dtype in ("int", "float"):
                kind = "number" + (f", {units[c]}" if units.get(c) else "")
            elif col.dtype == "date":
                kind = "date"
            else:
                kind = "text"
                if c in self.values and len(self.values[c]) <= 12:
                    kind += ": " + ", ".join(self.values[c])
            lines.append(f"  {_q(c)} ({kind})")
        return "\n".join(lines)

    # -- grammar ---------------------------------------------------------------------------------------
    def grammar(self) -> str:
        """GBNF for the three slot lines (the prompt ends with ``Rows: ``)."""
        scopes = ['"everyone"', '"me"'] + (['"my direct reports"'] if self.viewer.reports else [])
        if self.scope and (self.scope != "my direct reports" or self.viewer.reports):
            scopes = [f'"{self.scope}"']
        numcols = " | ".join(_lit(_q(c)) for c in self.numeric) or '"\\"\\""'
        ranked = asked_columns(self.question, self.numeric, self._role_words()) if self.question else self.numeric
        rankcols = " | ".join(_lit(_q(c)) for c in ranked) or numcols
        direction = asked_direction(self.question) if self.question else ""
        ends = f'"{direction}"' if direction else '("highest" | "lowest")'
        figures = sorted(set(re.findall(r"\d+(?:\.\d+)?", re.sub(r"\d{4}-\d{2}-\d{2}", " ", self.question))))
        textcols = [c for c in self.text]
        conds = []
        for c in textcols:
            if c in self.values:
                offered = [v for v in self.values[c] if mentioned(v, self.mentions)] if self.mentions else self.values[c]
                own = self._own_value(c)
                if own and own not in offered and self.mentions and _says_own(c, self.mentions):
                    offered.append(own)  # "my department", "the same location as me": the asker's own value
                if not offered:
                    continue
                values = " | ".join(_lit(_q(v)) for v in offered)
                conds.append(f'{_lit(_q(c))} (" is " | " is not ") ({values})')
            elif c == self.name_col and not self.names and self.question and not self._names_someone():
                continue  # the question names nobody: no name to filter on (a name from an example is copied)
            elif c == self.name_col and self.names:
                # (only the people named: with the record above, a model wrote the asker's own name instead)
                values = " | ".join(_lit(_q(n)) for n in self.names)
                conds.append(f'{_lit(_q(c))} (" is " | " is not ") ({values})'
                             f' | {_lit(_q(c))} " is one of " ({values}) (", " ({values})){{1,4}}')
            elif "employee_id" in self.table.columns[c].roles and self.mentions and \
                    not re.search(r"\b[A-Za-z#-]*\d+\b", self.mentions):
                continue  # no ID in the question: filtering on one picks the asker's own from the record
            else:
                conds.append(f'{_lit(_q(c))} (" is " | " is not " | " contains ") freetext')
        # A figure the question compares with ("more than 200000") must be in the filter: a count of the
        # department without it was once read back as "5 people in Engineering earn more than 200000".
        must_compare = bool(self.numeric and figures and asked_threshold(self.question))
        # The one value of the data the question itself names ("the average base salary in the Comercial
        # department") must be a condition: a model once wrote "Filter: none" and averaged the whole company.
        # (not a manager column: "What is Margaret Okafor's salary?" names a person, not her reports)
        kinds = {c for c in textcols if {"status", "employment_type", "pay_basis"} & set(self.table.columns[c].roles)}
        # A job title is a common noun, named in any case and number ("our production operators (the opérateurs
        # and opératrices de production)" for "Opérateur/Opératrice de production", "orderpickers"), but not the
        # asker's own ("my manager" names no job title "Manager").
        titles = {c for c in textcols if "job_title" in self.table.columns[c].roles}
        # (a job title only by its whole words: "departamento de Cocina" names no "Cocinero" by their first letters)
        named = [(c, v) for c in textcols if c in self.values and "manager" not in self.table.columns[c].roles
                 and c not in titles for v in self.values[c]
                 if self.question and (names_value(v, self.question, c not in kinds)
                                       or names_meaning(v, self.question, c in kinds))]
        if self.question and titles:
            named += [(c, v) for c in titles if c in self.values for v in self.values[c]
                      if (c, v) not in named and names_title(v, self.question, [w for _, w in named])]
        if not named and self.question:
            # "Who is still in their introductory period?", the data's status "Active - Introductory": the one
            # value of a status column with a word the question names that no other value of it has
            named = [(c, v) for c in textcols if c in self.values and {"status", "employment_type"} & set(
                self.table.columns[c].roles) for v in self.values[c] if names_own_word(v, self.values[c], self.question)]
        if not named and self.question:
            # "the São José dos Pinhais factory unit", the data's site "São José dos Pinhais - Fábrica": a value named
            # by its head before a dash or bracket, where no other value of the column has that head
            named = [(c, v) for c in textcols if c in self.values and "manager" not in self.table.columns[c].roles
                     and c not in kinds for v in self.values[c]
                     if (head := value_head(v)) and names_value(head, self.question)
                     and sum(value_head(w) == head for w in self.values[c]) == 1]
        # "the Hastings Packhouse" names the site, not also the team "Packhouse" inside it: a value whose words
        # are all part of a longer value the question names gives way to it.
        named = [(c, v) for c, v in named
                 if not any(set(_tokens(v)) < set(_tokens(v2)) for _, v2 in named)]
        self.named = named  # (values the question names by their meaning: a filter on one is asked for)
        # (several values of several columns named: "the active employees at the Waverly clinic" is the status and
        # the site, each a condition; a model given the choice filtered on a department "Clinical")
        # (two values of one column are either of them: "the opérateurs and opératrices de production", the data's
        # "Opérateur de production" and "Opératrice de production"; the query reads the pair as "is one of")
        must_name = 1 <= len({c for c, _ in named}) <= 3 and len(named) <= 4 and not must_compare \
            and not self.grouping \
            and not any(c == nc and v == nv for c, _, v in self.carried for nc, nv in named)
        # "Who on my team works part-time?" where no column says so: fewer hours than the data's usual week
        week = "" if must_compare or must_name or named else self._week_condition()
        if self.numeric and (figures or not self.question):
            conds.append('numcol (" above " | " below " | " at least " | " at most " | " is ") number')
        dates = question_dates(self.mentions) if self.mentions else []
        if self.dates and (dates or not self.mentions):
            datecols = " | ".join(_lit(_q(c)) for c in self.dates)
            conds.append(f'({datecols}) (" before " | " after ") "\\"" date "\\""')
        groupcols = " | ".join(_lit(_q(c)) for c in self.values) or _lit(_q(self.name_col or self.text[0]))
        anycols = " | ".join(_lit(_q(c)) for c, col in self.table.columns.items() if not set(col.roles) & _IDENTITY_ONLY)
        results = ['"count"', '"names"', '"list of " anycol (", " anycol){0,3}']
        per = ' (" per " groupcol)?' if self.grouping else ""
        if self.grouping:
            results.append('"count per " groupcol')
        asked = asked_aggregate(self.question) if self.question else ""
        if asked == "names" and direction and self.numeric:
            # "Who has the biggest leave balance?": the top of that ranking (a model offered names listed everyone)
            results = [f'"the " top " with the " {ends} " " rankcol']
        elif asked == "names":  # "Who is on parental leave?": the people (or the top of a ranking), never a count
            results = [r for r in results if not r.startswith('"count')]
            if self.numeric:
                results.append(f'"the " top " with the " {ends} " " rankcol')
        elif asked == "count":  # "What's our total headcount?": people counted, never a column's total
            results = [r for r in results if r.startswith('"count')]
        elif asked and self.numeric:  # "What is the average salary in Sales?": that average, never a count
            results = [f'"{asked} of " rankcol{per}']
        elif self.numeric:
            aggregates = '("average" | "total" | "median" | ' + (ends if direction else '"highest" | "lowest"') + ")"
            results += [f'{aggregates} " of " rankcol{per}', f'"the " top " with the " {ends} " " rankcol']
        tenure = asked_tenure(self.question) if self.question else ""
        hired = [c for c in self.dates if "hire_date" in self.table.columns[c].roles]
        if tenure and hired and asked != "count":
            # "Who has been with the company the longest?": the first hired, which no number column ranks
            # (offered everything, a model listed every name and wrote a length of service of its own).
            results = [f'"the " top " with the {tenure} " {_lit(_q(hired[0]))}']
        top = self._top_rule(figures, bool(tenure and hired and asked != "count" or asked == "names" and direction))
        more = ' (" and " cond)?' if conds else ""
        # (the people of the part before, then anything this part names or compares with)
        lead = " ".join(["carried", *(['" and " namedcond'] if must_name else []),
                         *(['" and " numcond'] if must_compare else [])])
        rules = [
            'root ::= scope "\\nFilter: " filter "\\nResult: " result "\\n"',
            "scope ::= " + " | ".join(scopes),
            # (nothing to filter on that the question mentions: "none" is the only filter)
            # (a forced condition, and another only where the grammar has one: "cond" undefined fails to parse)
            (f'filter ::= {lead}' + more if self.carried else
             'filter ::= (cond " and ")? numcond (" and " cond)?' if must_compare and conds else
             'filter ::= numcond' if must_compare else
             'filter ::= namedcond' + more if must_name else
             f'filter ::= {_lit(week)}' + more if week else
             'filter ::= "none"' + (' | cond (" and " cond){0,2}' if conds else "")),
            *([f"carried ::= {_lit(filter_text(self.carried))}"] if self.carried else []),
            # (two values of one column are either of them: "is" each, never one kept and the other ruled out)
            *(['namedcond ::= ' + ' " and " '.join(
                f'{_lit(_q(c))} ' + ('" is "' if sum(c == c2 for c2, _ in named) > 1 else '(" is " | " is not ")')
                + f' {_lit(_q(v))}' for c, v in named)]
              if must_name else []),
            *(['numcond ::= numcol (" above " | " below " | " at least " | " at most ") number']
              if must_compare else []),
            *(["cond ::= " + " | ".join(f"({c})" for c in conds)] if conds else []),
            "result ::= " + " | ".join(results),
            f"numcol ::= {numcols}",
            f"rankcol ::= {rankcols}",
            f"groupcol ::= {groupcols}",
            f"anycol ::= {anycols}",
            'freetext ::= "\\"" [^"\\x00-\\x1f\\\\]{1,60} "\\""',
            ("number ::= " + " | ".join(f'"{f}"' for f in figures)) if self.question and figures else
            'number ::= "-"? ("0" | [1-9] [0-9]{0,9}) ("." [0-9]{1,4})?',
            ("date ::= " + " | ".join(f'"{d}"' for d in dates)) if dates else
            'date ::= [12] [0-9] [0-9] [0-9] "-" [01] [0-9] "-" [0-3] [0-9]',
            top,
        ]
        return "\n".join(rules) + "\n"

    def _top_rule(self, figures: list[str], ranking: bool) -> str:
        """How many of a ranking: the number the question gives ("the 3 with the most PTO"), one where it asks
        who (not which people) is at the top ("who has been here the longest"), else the model's choice."""
        small = [f for f in figures if f.isdigit() and 1 <= int(f) <= MAX_TOP]
        if ranking and self.question and not asked_threshold(self.question):
            if len(small) == 1:
                return f'top ::= "{small[0]}"'
            if not small and not asks_several(self.question):
                return 'top ::= "1"'
        return 'top ::= [1-9] | "10"'

    def _week_condition(self) -> str:
        """'"Sched Hrs/Wk" below 40' where the question asks who works part-time (full-time: 'at least 40'),
        no column of the data says it, and the data's usual full week is known; "" else."""
        from engine.data.profile import usual_week
        from engine.data.vocab import vocabulary

        hours = self.table.role("weekly_hours")
        kind = self.table.role("employment_type")
        if not self.question or not hours or hours not in self.numeric or (kind and kind in self.values):
            return ""
        asked = f" {' '.join(_tokens(self.question))} "
        glosses = vocabulary().glosses

        def names(meaning: str) -> bool:
            words = {meaning, meaning.replace("-", " "), meaning.replace("-", "")} | \
                {k for k, g in glosses.items() if g == meaning}
            return any(f" {' '.join(_tokens(w))} " in asked for w in words if _tokens(w))

        part, full = names("part-time"), names("full-time")
        if part == full or (week := usual_week(self.table, self.viewer)) is None:
            return ""
        return f'"{hours}" {"below" if part else "at least"} {week:g}'

    def _role_words(self) -> dict[str, list[str]]:
        """Each number column's role in English header phrases ("AL Bal (hrs)": "vacation", "annual leave", …)."""
        from engine.data.vocab import vocabulary

        headers = vocabulary().headers
        return {c: [e.text.strip("=*") for r in self.table.columns[c].roles for e in headers.get(r, [])
                    if e.language == "en"] for c in self.numeric}

    def _names_someone(self) -> bool:
        """Does the question write a word of someone's name, capitalised as the table writes it ("Anna")?
        (A capital alone says nothing: German capitalises every noun, Spanish opens with "¿Quién".)"""
        col = self.name_col
        if not col:
            return False
        words = {w for v in self.table.df[col] if isinstance(v, str) for w in _NAME_WORD.findall(v)
                 if len(w) > 1 and w[0].isupper()}
        return any(w in words or re.sub(r"['’]s?$", "", w) in words for w in _NAME_WORD.findall(self.question))

    def _own_value(self, column: str) -> str:
        row = self.viewer.row
        if row is None or not self.viewer.can_read(column, [row]):
            return ""
        value = self.table.df.at[row, column]
        return value if isinstance(value, str) and value in self.values.get(column, []) else ""

    # -- reading what the model wrote -------------------------------------------------------------------
    def unasked(self, query: SlotQuery) -> list[tuple[str, str, str]]:
        """The filters on a free-text column whose value the question (and the conversation before it) does not
        mention: a model's own addition ("Puesto" is the asker's own title, asked who of my team has most
        leave left), which would empty the result. The person's own value where the question says "my …" stays."""
        out = []
        for column, op, value in query.filters:
            if column == self.name_col or column not in self.text or _numeric(value) \
                    or (column, op, value) in self.carried or (column, value) in self.named:
                continue  # (names and figures have their own checks)
            if op in ("is", "is not", "contains") and not mentioned(value, self.mentions) \
                    and not (value == self._own_value(column) and _says_own(column, self.mentions)):
                out.append((column, op, value))
        return out

    def parse(self, text: str) -> SlotQuery:
        """The slots of ``Rows: … / Filter: … / Result: …`` (the grammar guarantees the shape)."""
        lines = {k.strip().lower(): v.strip() for k, _, v in
                 (line.partition(":") for line in ("Rows:" + text).splitlines() if ":" in line)}
        q = SlotQuery(rows=lines.get("rows", "everyone"))
        flt = lines.get("filter", "none")
        if flt != "none":
            for part in re.split(r'(?<=["\d]) and (?=")', flt):
                m = re.match(r'"(?P<col>[^"]+)" (?P<op>is one of|is not|is|contains|above|below|at least|at most|before|'
                             r'after) (?P<val>"[^"]*"(?:, "[^"]*")*|\S+)$', part.strip())
                if m:
                    value = m["val"] if m["op"] == "is one of" else m["val"].strip('"')
                    q.filters.append((m["col"], m["op"], value))
        result = lines.get("result", "count")
        cols = re.findall(r'"([^"]+)"', result)
        if result.startswith("the "):
            m = re.match(r"the (\d+) with the (highest|lowest|earliest|latest)", result)
            q.result, q.top = "top", int(m.group(1)) if m else 1
            q.highest = bool(m and m.group(2) in ("highest", "latest"))
            q.columns, q.dated = cols[:1], bool(m and m.group(2) in ("earliest", "latest"))
        elif result.startswith("list of"):
            q.result, q.columns = "list", cols
        elif result.startswith("count per"):
            q.result, q.by = "count per", cols[0] if cols else ""
        elif result.split(" ")[0] in AGGREGATES:
            q.result, q.columns = result.split(" ")[0], cols[:1]
            q.by = cols[1] if " per " in result and len(cols) > 1 else ""
        else:
            q.result = "names" if result.startswith("names") else "count"
        # A person named is found by their name; anything else filtered on beside it can only miss them.
        if any(c == self.name_col and op in ("is", "is one of") for c, op, _ in q.filters):
            q.filters = [f for f in q.filters if f[0] == self.name_col]
        # Two people by name cannot both be the one row: "A and B" means either of them.
        same = [f for f in q.filters if f[1] == "is"]
        for column in {c for c, _, _ in same}:
            values = [v for c, _, v in same if c == column]
            if len(values) > 1:
                q.filters = [f for f in q.filters if not (f[0] == column and f[1] == "is")]
                q.filters.append((column, "is one of", ", ".join(json.dumps(v, ensure_ascii=False) for v in values)))
        if q.result in AGGREGATES and not q.by and any(c == self.name_col and op in ("is", "is one of")
                                                        for c, op, _ in q.filters):
            # Someone's own figure, asked for by name: their row, not a summary of it (which the access
            # rules treat as a summary over a small group).
            q.result = "list"
        return q

    # -- compiling to the query language -------------------------------------------------------------------
    def _value(self, column: str, value: str) -> str:
        """A free-text value as the cell holds it (accents and case aside), where the person may read
        that column on every row; otherwise as written."""
        col = self.table.columns.get(column)
        if col is None or col.dtype != "text" or not self.viewer.can_read(column, list(self.table.df.index)):
            return value
        key = normalise_name(value)
        cells = [v for v in dict.fromkeys(self.table.df[column]) if isinstance(v, str)]
        exact = [v for v in cells if normalise_name(v) == key]
        if exact:
            return exact[0]
        if column == self.name_col:
            # "Ivan" or "Petrov" alone, when exactly one person is called that.
            part = [v for v in cells if key and key in normalise_name(v).split()]
            if len(part) == 1:
                return part[0]
        return value

    def _reports_condition(self) -> str:
        mgr = self.table.role("manager")
        if not mgr or self.viewer.row is None:
            raise ToolInputError("The employee data has no manager column, so direct reports are not known.")
        df = self.table.df
        own = manager_keys(self.table, self.viewer.row)
        literals = []
        for value in dict.fromkeys(df[mgr]):
            if value is not None and value == value and normalise_name(unsort_name(value)) in own:
                literal = json.dumps(value.item() if hasattr(value, "item") else value, ensure_ascii=False)
                if isinstance(value, float) and value.is_integer():
                    literal = str(int(value))
                literals.append(literal)
        column = f"df[{json.dumps(mgr, ensure_ascii=False)}]"
        if len(literals) > 1:  # (the column names them one way on some rows, another on others)
            return f"({column}.isin([{', '.join(literals)}]))"
        return f"({column} == {literals[0] if literals else chr(34) * 2})"  # no reports: an empty result

    def _me_condition(self) -> str:
        df = self.table.df
        key = self.table.role("employee_id") or self.name_col
        if key is None or self.viewer.row is None:
            raise ToolInputError("You are not in the employee data.")
        value = df.at[self.viewer.row, key]
        literal = json.dumps(value.item() if hasattr(value, "item") else value, ensure_ascii=False)
        return f"(df[{json.dumps(key, ensure_ascii=False)}] == {literal})"

    def compile(self, q: SlotQuery) -> str:
        """The query-language text of the slots (run by the employee-data tool, with its checks)."""
        conds = []
        if q.rows == "me":
            conds.append(self._me_condition())
        elif q.rows == "my direct reports":
            conds.append(self._reports_condition())
        for column, op, value in q.filters:
            col = json.dumps(column, ensure_ascii=False)
            if op in _NUMBER_OPS and _numeric(value) and column in self.numeric:
                conds.append(f"(df[{col}] {_NUMBER_OPS[op]} {value})")
            elif op in _DATE_OPS:
                conds.append(f"(df[{col}] {_DATE_OPS[op]} {json.dumps(value)})")
            elif op == "contains":
                conds.append(f"(df[{col}].str.contains({json.dumps(value, ensure_ascii=False)}))")
            elif op == "is one of":
                cells = [self._value(column, v) for v in re.findall(r'"([^"]*)"', value)]
                conds.append(f"(df[{col}].isin({json.dumps(cells, ensure_ascii=False)}))")
            else:
                cell = self._value(column, value)
                lit = json.dumps(cell, ensure_ascii=False)
                conds.append(f"(df[{col}] {'!=' if op == 'is not' else '=='} {lit})")
        frame = "df" + (f"[{' & '.join(conds)}]" if conds else "")
        name = json.dumps(self.name_col, ensure_ascii=False) if self.name_col else None
        if q.result == "count":
            return f"len({frame})"
        if q.result == "names":
            return f"{frame}[[{name}]]" if name else f"len({frame})"
        if q.result == "list":
            listed = list(dict.fromkeys(([self.name_col] if self.name_col else []) + q.columns))
            return f"{frame}[[{', '.join(json.dumps(c, ensure_ascii=False) for c in listed)}]]"
        if q.result == "count per":
            return f"{frame}[{json.dumps(q.by, ensure_ascii=False)}].value_counts()"
        if not q.columns:
            raise ToolInputError("The result names no column.")
        column = json.dumps(q.columns[0], ensure_ascii=False)
        if q.result == "top":
            cols = ", ".join(json.dumps(c, ensure_ascii=False) for c in dict.fromkeys(
                ([self.name_col] if self.name_col else []) + q.columns[:1]))
            # A few more than asked, so a tie at the cut is seen (and kept) by the caller.
            return (f"{frame}.sort_values(by={column}, ascending={not q.highest}).head({min(q.top, MAX_TOP) + 5})"
                    f"[[{cols}]]")
        agg = AGGREGATES[q.result]
        if q.by:
            return f"{frame}.groupby({json.dumps(q.by, ensure_ascii=False)})[{column}].{agg}()"
        return f"{frame}[{column}].{agg}()"


def cut_ties(result_rows: list[list], top: int) -> list[list]:
    """The first ``top`` rows of a ranked table, and any row tied with the last of them."""
    if len(result_rows) <= top:
        return result_rows
    last = result_rows[top - 1][-1]
    return result_rows[:top] + [r for r in result_rows[top:] if r[-1] == last]
