"""Which row of a handbook's list or table applies: decided by code where the figures say so.

Handbooks put their rules in rows: notice by the length of the leave ("3 to 5 days off: at least
14 calendar days' notice"), entitlements by years of service ("2 to 5 years: 120 hours"), days by
relationship ("sibling, grandparent …: up to 3 days"). A small model reading such a list picks the
row above or below. Code can often tell which row applies: a range in the row against a figure of
the question ("a 4-day request") or of the person's record (years of service), or a relative named
in the question against the row's words. Such a row is marked for the model ("applies: 4 days"),
and its siblings whose range does not hold are left out of the choice.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from engine.agent.rules.words import question_units, to_english

_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
          "ten": 10, "eleven": 11, "twelve": 12, "fifteen": 15, "twenty": 20, "thirty": 30, "a": 1, "an": 1}
_NUM = r"(\d+(?:\.\d+)?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty|thirty)"
#: A unit a question counts in: English's words, and every language's (engine/agent/rules/lang/*.toml
#: [question_units]: "6 horas extra", "10 Stunden", "3 jours").
_OTHER_UNITS = question_units()
_UNIT = r"(hours?|hrs?|days?|weeks?|months?|years?" + "".join(
    f"|{re.escape(w)}" for w in sorted(_OTHER_UNITS, key=len, reverse=True)) + ")"
_UNITS = {"hour": "hours", "hours": "hours", "hr": "hours", "hrs": "hours", "day": "days", "days": "days",
          "week": "weeks", "weeks": "weeks", "month": "months", "months": "months", "year": "years", "years": "years",
          **_OTHER_UNITS}

#: Ranges a row states, as (pattern, kind): the numbers come first, the unit word last.
_RANGES = [
    # "1 year up to, but not including, 3 years", "2 to less than 5 years": the high end left out
    (re.compile(rf"\b{_NUM}\s+(?:{_UNIT}\s+)?(?:up to|to|until),?\s+(?:but\s+)?(?:not including|excluding|less than|"
                rf"under|below|fewer than),?\s+{_NUM}\s+(?:full\s+|calendar\s+|working\s+)?{_UNIT}", re.I), "from_below"),
    # "5 years, less than 10": the unit said once, at the low end
    (re.compile(rf"\b{_NUM}\s+{_UNIT},?\s+(?:but\s+)?(?:not including|less than|under|below|fewer than)\s+{_NUM}\b"
                rf"(?:\s+(?:full\s+|complete\s+)?{_UNIT}\b|(?!\s*(?:%|percent|[a-z])))", re.I), "from_below"),
    (re.compile(rf"\bbetween {_NUM} and {_NUM}\s+(?:\w+\s+)?{_UNIT}", re.I), "between"),
    (re.compile(rf"\b{_NUM}\s*(?:to|-|–|and up to|up to)\s*{_NUM}\s+(?:full\s+|calendar\s+|working\s+)?{_UNIT}", re.I),
     "between"),
    (re.compile(rf"\bafter {_NUM}\s+{_UNIT}?\s*and up to {_NUM}\s+{_UNIT}", re.I), "after_upto"),
    (re.compile(rf"\b(?:less than|under|fewer than|below|shorter than)\s+{_NUM}\s+"
                rf"(?:full\s+|calendar\s+|working\s+)?{_UNIT}", re.I), "below"),
    (re.compile(rf"\b(?:up to|at most|within(?: the)? first|no more than)\s+{_NUM}\s+"
                rf"(?:full\s+|calendar\s+|working\s+)?{_UNIT}", re.I), "at_most"),
    (re.compile(rf"\b(?:more than|over|beyond|longer than)\s+{_NUM}\s+(?:full\s+|calendar\s+|"
                rf"working\s+|consecutive\s+)?{_UNIT}", re.I), "above"),
    (re.compile(rf"\b{_NUM}\s+or\s+{_NUM}\s+(?:full\s+|calendar\s+|working\s+)?{_UNIT}", re.I), "between"),
    (re.compile(rf"\b(?:after|at least|from|minimum of)\s+{_NUM}\s+(?:full\s+|calendar\s+|"
                rf"working\s+|consecutive\s+)?{_UNIT}", re.I), "at_least"),
    (re.compile(rf"\b{_NUM}\s+(?:full\s+|calendar\s+|working\s+)?{_UNIT}\s+or (?:more|longer|over|above)\b", re.I),
     "at_least"),
    (re.compile(rf"\b{_NUM}\+\s*{_UNIT}", re.I), "at_least"),
    (re.compile(rf"\b{_NUM} or more\s+(?:\w+\s+)?{_UNIT}", re.I), "at_least"),
    (re.compile(r"\bin the first year\b", re.I), "first_year"),
    # a table row keyed by whole years ("Years of service: 5 years; Vacation days: 20 days", beside "6 to 10 years"):
    # that many completed years
    (re.compile(rf"^[^:;]{{1,60}}:\s*{_NUM}\s+(years?)\s*(?=;|$)", re.I), "whole"),
    (re.compile(rf"\b(?:until|before|during|in)(?: the)?(?: first)? {_NUM}[ -]{_UNIT}", re.I), "below"),
]
#: How long before something a thing must be done ("at least 3 months before the intended leave date").
_LEAD_TIME = re.compile(r"\b\d+\s+(?:full\s+|calendar\s+|working\s+|business\s+)?(?:days?|weeks?|months?)['’]?\s+"
                        r"(?:before|in advance|prior to|ahead of|beforehand)\b", re.I)
_SERVICE = re.compile(r"service|employ|tenure|worked|with the company|seniority|years? of|introductory|probation"
                      r"|new (?:employees|hires|starters)|hire date|start date", re.I)
def _value(text: str) -> float:
    return float(_WORDS.get(text.lower(), text)) if not text[0].isdigit() else float(text)


@dataclass
class Figure:
    value: float
    unit: str  # "days", "hours", "weeks", "months", "years"
    why: str  # how the person would say it ("4 days", "5 full years of service")


def question_figures(question: str) -> list[Figure]:
    """Quantities the question states with a unit ("a 4-day request", "10 hours")."""
    out: list[Figure] = []
    # "a 4-day request", "10 vacation days", "5 hours of overtime": the unit may follow a word or two later.
    # "5 of my vacation days": the figure counts the days the words after "of" name.
    for m in re.finditer(rf"\b{_NUM}[\s-]+(?:of\s+(?:my|the|your|our|his|her|their|those|these)\s+)?"
                         rf"(?:[a-z]+[\s-]+){{0,2}}?{_UNIT}\b", question, re.I):
        value = _value(m.group(1))
        unit = _UNITS.get(m.group(2).lower().rstrip("s") + ("s" if m.group(2).lower().endswith("s") else ""),
                          _UNITS.get(m.group(2).lower(), "days"))
        if _BACK.search(question[:m.start()]) and any(f.value == value and f.unit == unit for f in out):
            continue  # "… for those 4 hours": the quantity said before, named again
        out.append(Figure(value, unit, f"{m.group(1)} {unit}"))
    return out


#: Words that point back to a quantity said before ("those 4 hours", "the same 2 days").
_BACK = re.compile(r"\b(?:those|these|the same|said|both)\s+$", re.I)


def question_relative(question: str, languages: set[str] | None = None) -> str:
    """The kind of relative a question names first ("grandmother" -> "grandparent", "mon beau-père" -> "in-law";
    ``engine/policy/lang``), in the words of its own language and of ``languages`` (the handbook's: a short
    question, "Murió mi abuela", may not tell its language), or ""."""
    from engine.data.vocab import vocabulary
    from engine.policy.terms import relatives_named

    return next(iter(relatives_named(question, {vocabulary().question_language(question)} | (languages or set()))), "")


def _ranges(text: str) -> list[tuple[str, float, float | None, str]]:
    """(kind, low, high, unit) of each range the text states."""
    out: list[tuple[str, float, float | None, str]] = []
    taken: list[tuple[int, int]] = []
    for pattern, kind in _RANGES:
        for m in pattern.finditer(text):
            if any(a < m.end() and m.start() < b for a, b in taken):  # (no two ranges of the same words)
                continue
            taken.append(m.span())
            groups = [g for g in m.groups() if g]
            unit = _UNITS.get(groups[-1].lower(), "") if groups and groups[-1].lower() in _UNITS else "years"
            nums = [_value(g) for g in groups if g.lower() not in _UNITS and g.strip() not in ("the",)]
            if kind == "first_year":
                out.append(("below", 1.0, None, "years"))
            elif kind in ("between", "after_upto", "from_below") and len(nums) >= 2:
                # ("1 jaar tot minder dan 18 maanden": the low end in its own unit, read in the high end's)
                units = [_UNITS.get(g.lower(), "") for g in m.groups()[1:2] if g and g.lower() in _UNITS]
                low = nums[0] * _PER_YEAR[unit] / _PER_YEAR[units[0]] \
                    if units and units[0] != unit and units[0] in _PER_YEAR and unit in _PER_YEAR else nums[0]
                out.append((kind, low, nums[1], unit))
            elif nums:
                out.append((kind, nums[0], None, unit))
    return out


#: How many of each unit a year has (a range's two ends in two units are read in one).
_PER_YEAR = {"years": 1.0, "months": 12.0, "weeks": 52.18, "days": 365.25}


def _holds(kind: str, low: float, high: float | None, value: float) -> bool:
    if kind in ("between", "after_upto"):
        return low <= value <= (high if high is not None else low)
    if kind == "from_below":
        return low <= value < (high if high is not None else low)
    if kind == "whole":
        return low <= value < low + 1
    return {"below": value < low, "at_most": value <= low, "above": value > low, "at_least": value >= low}.get(kind, False)


def judge(unit_text: str, heading: str, figures: list[Figure], service: Figure | None) -> tuple[str, str]:
    """("applies", why) when a range of the row holds for a figure of the question or the person,
    ("not", why) when the row has such ranges and none holds, ("", "") when code cannot tell."""
    # (a handbook in another language: "korter dan 5 jaar", "10 ans ou plus" in the English words read here)
    unit_text, heading = to_english(unit_text), to_english(heading)
    if not _ranges(unit_text):
        return "", ""
    # ("submitted at least 3 months before the leave": a lead time, whatever the heading says of service)
    about_service = bool(_SERVICE.search(unit_text) or _SERVICE.search(heading)) and not _LEAD_TIME.search(unit_text)
    verdict = ""
    for segment in _SEGMENT.split(unit_text):
        by_unit: dict[str, list] = {}
        for r in _ranges(segment):
            by_unit.setdefault(r[3], []).append(r)
        for unit, ranges in by_unit.items():
            # (a lower and an upper bound of one unit in one cell or clause are one band: "more than 5 years and up
            # to 10 years", "oltre 5 anni e fino a 10 anni" hold only where both do; "5 or more years of service: up
            # to 20 days" is a band of years and a cap of days)
            both = {kind in _LOWER for kind, *_ in ranges} == {True, False} and \
                not any(kind in ("between", "after_upto", "from_below", "whole", "first_year") for kind, *_ in ranges)
            candidates = [f for f in figures if f.unit == unit]
            if not candidates and service is not None and unit in ("years", "months", "weeks", "days") and about_service:
                per_year = {"years": 1, "months": 12, "weeks": 52.18, "days": 365.25}[unit]
                candidates = [Figure(service.value * per_year, unit, service.why)]
                # (in the record's words: "128 months of service" is a figure no source gives)
            if not candidates:
                continue
            held = [next((f.why for f in candidates if _holds(kind, low, high, f.value)), None)
                    for kind, low, high, _ in ranges]
            if all(held) if both else any(held):
                return "applies", next(h for h in held if h)
            verdict = "not"
    return (verdict, "") if verdict else ("", "")


#: A table row's cells and a text's clauses: each states its own band.
_SEGMENT = re.compile(r";\s*|\.\s+")
#: The kinds of range that are a lower bound.
_LOWER = ("above", "at_least")


def relative_applies(unit_text: str, relative: str, languages: set[str] | None = None) -> bool:
    """Whether a row names the kind of relative ``relative``, in the words of ``languages`` (and English's)."""
    from engine.policy.terms import relatives_named

    return relative in relatives_named(unit_text, languages)


#: Why a row applies that is the asker's own event (a table of events, "Mariage du salarié").
OWN_EVENT = "own event"


def own_event_topics(question: str) -> set[str]:
    """The topics of a question about an event of the asker's own ("Je me marie le 9 octobre", "Ik ga trouwen", "for
    my wedding"), or none: a question not in the first person, one about someone of mine the language files do not
    call a relative ("my best friend", "my colleague's wedding"), and a death (never one's own)."""
    from engine.agent.sentences import possessive_words, self_words
    from engine.policy.terms import named_concepts

    if not self_words().search(question):
        return set()
    topics = named_concepts(question) - {"bereavement"}
    for m in re.finditer(possessive_words().pattern + r"\s+((?:[\w'’-]+\s*){1,2})", question, re.I):
        following = m.group(1)
        if re.search(r"['’]s\b", following) or not named_concepts(following) & topics:
            return set()
    return topics


def _own_event_row(siblings, rows: set[str], topics: set[str], langs: set[str], verdicts: dict) -> None:
    """A question about the asker's own event, naming no relative ("Ik ga trouwen"), of a table whose rows of
    that topic are a relative's and one that is nobody's in particular or the employee's ("Huwelijk van de
    werknemer: 2 dagen" beside "Huwelijk van een kind, broer, zus, vader of moeder: de dag van het huwelijk"):
    that one row applies, the relatives' rows of the topic do not."""
    from engine.policy.terms import named_concepts, relatives_named, without_concepts

    table = [(u, named_concepts(u.text)) for u in siblings if u.label in rows]
    # (a topic every row names, "klein verlet" of a table of special leave, tells no row apart)
    telling = {c for c in topics if not all(c in named for _, named in table)} or topics
    topical = [u for u, named in table if telling & named]
    # (the topic's own words name no relative: "inscripción como pareja de hecho" is the asker's own event)
    kin = [u for u in topical if relatives_named(without_concepts(u.text, telling), langs)]
    own = [u for u in topical if u not in kin]
    if kin and len(own) == 1 and not any(verdicts[u.label][0] == "applies" for u in topical):
        verdicts[own[0].label] = ("applies", OWN_EVENT)
        for u in kin:
            verdicts[u.label] = ("not", "")


_ROW = re.compile(r"^\s*(?:[-*•–]|\(?[0-9]{1,2}(?:\.[0-9]{1,2})?[.)]?|\(?[a-z][.)]|\([ivx]{1,4}\))\s+|^[^:;]{1,60}: [^;]+; ")


def is_row(text: str) -> bool:
    """A list item or a table row (rather than running text)."""
    return bool(_ROW.match(text))


def _opening(text: str) -> str:
    words = re.findall(r"[a-z]+", re.sub(r"^\s*(?:[-*•–]|\(?[0-9]{1,2}(?:\.[0-9]{1,2})?[.)]?)\s+", "", text.lower()))
    return " ".join(words[:2])


def parallel_rows(siblings) -> set[str]:
    """Sentences of running text that are rows all the same: two or more of one passage that open alike
    and each state a range of the same unit ("Requests of 1 or 2 days need 5 days' notice. Requests of
    3 to 10 days need 3 weeks' notice."). Sentences that open alike but range over other things
    ("Employees with 1 to 5 years of service …", "Employees with 3 or more days of sickness …") are no rows
    of one list."""
    groups: dict[str, list[tuple[Any, set[str]]]] = {}
    for u in siblings:
        units = set() if is_row(u.text) else {r[3] for r in _ranges(u.text)}
        if units:
            groups.setdefault(_opening(u.text), []).append((u, units))
    rows: set[str] = set()
    for opening, group in groups.items():
        if opening.count(" ") != 1:
            continue
        for unit in {x for _, units in group for x in units}:
            same = [u.label for u, units in group if unit in units]
            if len(same) >= 2:
                rows.update(same)
    return rows


def _title_words(text: str) -> list[str]:
    """The words of a job title or a row that say what the job is ("Assistante commerciale" -> assistante,
    commerciale; "assistant(e) commercial(e)" -> assistant, commercial: an inclusive ending folds to a word
    too short to count), without case or accents."""
    from engine.data.vocab import fold

    return [w for w in fold(text).split() if len(w) >= 4 and w.isalpha()]


def names_job(row: str, title: str) -> bool:
    """Whether a row names the job ``title`` (each word of it, in a form of one of the row's words:
    "Assistante commerciale" in "assistant(e) commercial(e), chargé(e) RH")."""
    wanted = _title_words(title)
    if not wanted:
        return False
    # (each comma-separated item of the row on its own: the words of one job, not two)
    for item in re.split(r"[,;|/]", row):
        words = _title_words(item)
        # (a form of the word: "Diseñadora" of "Diseño", five letters alike, or one the start of the other)
        if all(any(w.startswith(r) or r.startswith(w) or w[:5] == r[:5] for r in words
                   if min(len(r), len(w)) >= 4 and w[:4] == r[:4]) for w in wanted):
            return True
    return False


def _highest_band_only(siblings, rows: set[str], verdicts: dict) -> None:
    """Of rows that each hold by an open-ended band ("2 years or more", "5 years or more"), the one with the
    highest threshold applies; the lower ones are the bands before it ("not")."""
    open_ended = {}
    for u in siblings:
        if u.label in rows and verdicts[u.label][0] == "applies":
            ranges = _ranges(u.text)
            if ranges and all(kind in ("at_least", "above") for kind, *_ in ranges):
                open_ended[u.label] = max(low for _, low, _, _ in ranges)
    if len(open_ended) >= 2:
        top = max(open_ended.values())
        for label, low in open_ended.items():
            if low < top:
                verdicts[label] = ("not", "")


#: A table row as the handbook reader writes it: "Level: Levels 3–4; Up to 5 years: 20 days; More than 5 years: 30 days".
_CELL = re.compile(r"([^:;]{1,80}):\s*([^;]+)")


def _cells(text: str) -> list[tuple[str, str]]:
    return [(h.strip(), v.strip()) for h, v in _CELL.findall(text)] if is_row(text) and "; " in text else []


def _range_cells(cells: list[tuple[str, str]]) -> list[tuple[str, str, tuple]]:
    """The cells whose column header is one range of time ("Up to 5 years of service", "Plus de 10 ans")."""
    out = []
    for header, value in cells[1:]:
        ranges = _ranges(to_english(header))
        if len(ranges) == 1 and ranges[0][3] in ("years", "months"):
            out.append((header, value, ranges[0]))
    return out


def two_way_row(text: str) -> bool:
    """Whether ``text`` is a row of a two-way table: a key cell, then a column per range of service."""
    return len(_range_cells(_cells(text))) >= 2


def service_cell(text: str, service: Figure | None) -> tuple[str, str] | None:
    """In a row of a two-way table (a key cell, then one column per range of service), the cell of the
    person's service: (its header, its value); None where the row is no such row or no single cell holds."""
    cells = _cells(text)
    ranged = _range_cells(cells) if cells else []
    if service is None or len(ranged) < 2:
        return None
    per_year = {"years": 1, "months": 12}
    held = [(h, v) for h, v, (kind, low, high, unit) in ranged if _holds(kind, low, high, service.value * per_year[unit])]
    return held[0] if len(held) == 1 else None


def _key_fits(key: str, value: str) -> bool:
    """Whether a row's key cell ("Levels 3–4", "Quadri", "Level 5") names the person's record value ("3",
    "Quadro"): a number inside its range or among its numbers, or a word of it in another form."""
    from engine.data.vocab import fold

    numbers = [float(n) for n in re.findall(r"\d+(?:\.\d+)?", key)]
    try:
        mine = float(value.replace(",", "."))
    except ValueError:
        mine = None
    if mine is not None:
        span = re.search(r"(\d+(?:\.\d+)?)\s*(?:[–—-]|to|and|bis|à|a|al|tot)\s*(\d+(?:\.\d+)?)", key)
        if span and float(span.group(1)) <= mine <= float(span.group(2)):
            return True
        return mine in numbers
    words = [w for w in fold(value).split() if len(w) >= 4]
    keys = [w for w in fold(key).split() if len(w) >= 4]
    return bool(words) and all(any(w[:5] == k[:5] and abs(len(w) - len(k)) <= 2 for k in keys) for w in words)


def _record_row(rows: list, record: dict[str, tuple[str, str]]) -> tuple | None:
    """Of a two-way table's rows, the one whose key cell names the person's own value of the record column
    its header names (header "Level", the record's "Livello: 3", the row "Levels 3–4"): (row, why); None where
    no header names a column of the record, or not exactly one row fits."""
    from engine.data.vocab import vocabulary

    if not rows or not record:
        return None
    header = _cells(rows[0].text)[0][0]
    roles = vocabulary().header_roles(header)
    role = roles[0][0] if roles else ""
    if role not in record:
        return None
    label, value = record[role]
    fits = [u for u in rows if _key_fits(_cells(u.text)[0][1], value)]
    return (fits[0], f"your {label}: {value}") if len(fits) == 1 else None


def person_cell(text: str, record: dict[str, tuple[str, str]] | None) -> tuple[str, str] | None:
    """In a table row with a column per kind of person ("Operai: 20 giorni; Impiegati: 2 mesi; Quadri: 4 mesi"),
    the one cell whose header names the person's own value of a record column ("Qualifica: Impiegato"): (the
    row's key cell, that cell), each as "header: value"; None where no single cell does."""
    cells = _cells(text)
    if len(cells) < 3 or not record:
        return None
    # (a word of the record's, "Impiegato": a number, "2", would fit any header with a range, "Days 1-3")
    fits = {(h, v) for h, v in cells[1:] for _, value in record.values()
            if not re.fullmatch(r"[\d.,\s]+", value) and _key_fits(h, value)}
    if len(fits) != 1:
        return None
    (header, value), = fits
    return f"{cells[0][0]}: {cells[0][1]}", f"{header}: {value}"


def mark_units(units, heading_of, question: str, service: Figure | None, job: str = "",
               record: dict[str, tuple[str, str]] | None = None) -> tuple[dict, set]:
    """Which units apply (label -> why) and which rows do not (labels), from the question's figures,
    the relative it names, the person's length of service and their job title (``job``: a row of a table
    by kind of job that names it). Only rows of a list or table are ever ruled out, and only when a
    sibling row applies; running text is only marked. In a two-way table (one column per range of service),
    the row of the person's own value of the column its key names (``record``: role -> (label, value)) applies,
    with the cell of their service."""
    from engine.data.vocab import vocabulary

    figures = question_figures(question)
    applies: dict[str, str] = {}
    ruled_out: set[str] = set()
    by_passage: dict[int, list] = {}
    for u in units:
        by_passage.setdefault(u.passage, []).append(u)
    for siblings in by_passage.values():
        rows = {u.label for u in siblings if is_row(u.text)} | parallel_rows(siblings)
        langs = {vocabulary().question_language(" ".join(u.text for u in siblings))}
        relative = question_relative(question, langs)
        # "Je me marie le 9 octobre": the asker's own event, of the topics the question names
        own_event = own_event_topics(question) if not relative else set()
        verdicts = {}
        for u in siblings:
            # In running text a figure of the question says little ("up to 40 hours" is no row to choose);
            # the person's service does ("employees with five or more years of service accrue …").
            verdict, why = judge(u.text, heading_of(u), figures if u.label in rows else [], service)
            if relative and u.label in rows:
                if relative_applies(u.text, relative, langs):
                    verdict, why = "applies", relative
                elif any(relative_applies(s.text, relative, langs) for s in siblings if s.label in rows):
                    verdict = "not"
            verdicts[u.label] = (verdict, why)
        if not relative and own_event:
            _own_event_row(siblings, rows, own_event, langs, verdicts)
        if job:
            named = [u for u in siblings if u.label in rows and names_job(u.text, job)]
            if len(named) == 1:  # (one row names the job: the others are other jobs' rows)
                verdicts[named[0].label] = ("applies", f"your job title: {job}")
                for u in siblings:
                    if u.label in rows and u is not named[0] and verdicts[u.label][0] != "applies":
                        verdicts[u.label] = ("not", "")
        _highest_band_only(siblings, rows, verdicts)
        # A table keyed by a column of the record ("Área: Comercial; Dias de home office por semana: até 3 dias"):
        # the row of the person's own value applies, the other rows of that key do not.
        keyed: dict[str, list] = {}
        for u in siblings:
            cells = _cells(u.text) if u.label in rows else []
            if cells and not two_way_row(u.text):
                keyed.setdefault(cells[0][0].lower(), []).append(u)
        for group in keyed.values():
            chosen = _record_row(group, record or {}) if len(group) >= 2 else None
            if chosen and not any(verdicts[u.label][0] == "applies" for u in group if u is not chosen[0]):
                for u in group:
                    verdicts[u.label] = ("applies", chosen[1]) if u is chosen[0] else ("not", "")
        two_way = [u for u in siblings if u.label in rows and two_way_row(u.text)]
        if len(two_way) >= 2:
            # (every row has every range of service: the person's service says which cell, not which row)
            for u in two_way:
                verdicts[u.label] = ("", "")
            chosen = _record_row(two_way, record or {})
            cell = service_cell(chosen[0].text, service) if chosen else None
            if chosen:
                why = chosen[1] + (f"; with {service.why}: {cell[1]} ({cell[0]})" if cell and service else "")
                for u in two_way:
                    verdicts[u.label] = ("applies", why) if u is chosen[0] else ("not", "")
        rows_apply = any(verdicts[u.label][0] == "applies" and u.label in rows for u in siblings)
        for u in siblings:
            verdict, why = verdicts[u.label]
            if verdict == "applies":
                applies[u.label] = why
            elif verdict == "not" and rows_apply and u.label in rows:
                ruled_out.add(u.label)
    return applies, ruled_out


_PROBATION_WORDS = re.compile(r"probation|introductory period|trial period", re.I)
_N = r"(\d{1,3}|one|two|three|four|five|six|nine|twelve)"
#: The length of the probation itself, next to its name ("a probation period of 3 months", "the 90-day
#: introductory period", "during the first 90 days"), never another figure of the sentence ("2 days per week").
_PERIOD_LENGTH = re.compile(rf"(?:probation|introductory|trial)[^.;]{{0,25}}?\b{_N}[- ](day|week|month)s?\b"
                            rf"|\b{_N}[- ](day|week|month)s?\b[^.;0-9]{{0,25}}?(?:probation|introductory|trial)"
                            rf"|\b(?:first|initial)\s+{_N}\s+(day|week|month)s?\b", re.I)
_WORD_NUMBERS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "nine": 9, "twelve": 12}
_DAYS_PER = {"day": 1, "week": 7, "month": 30.4375}


def _sentence_at(text: str, at: int) -> str:
    """The sentence of ``text`` around position ``at``."""
    start = max(text.rfind(". ", 0, at), text.rfind("\n", 0, at)) + 1
    ends = [i for i in (text.find(". ", at), text.find("\n", at)) if i >= 0]
    return text[start:min(ends) if ends else len(text)]


def mentions_probation(text: str) -> bool:
    """Whether ``text`` speaks of probation (or an introductory or trial period)."""
    return bool(_PROBATION_WORDS.search(text))


#: A probation that is a sanction, not the start of employment ("a disciplinary probation of 30 days").
_SANCTION = re.compile(r"disciplin|misconduct|performance improvement|improvement plan|\bPIP\b|corrective|warning"
                       r"|sanction|suspen", re.I)


def probation_length(text: str) -> int | None:
    """The length of the probation in days, where ``text`` states it, else None. A sentence about a
    probation as a sanction (discipline, a performance plan) states no length of the new hire's one."""
    m = next((m for m in _PERIOD_LENGTH.finditer(text) if not _SANCTION.search(_sentence_at(text, m.start()))), None)
    if m is None:
        return None
    groups = [g for g in m.groups() if g]
    count, unit = groups[0], groups[1]
    n = int(count) if count.isdigit() else _WORD_NUMBERS[count.lower()]
    return round(n * _DAYS_PER[unit.lower()])


def probation_note(text: str, record: str, service_days: int | None, length: int | None = None) -> str:
    """What code knows about the person for a policy sentence that speaks of probation (or an
    introductory or trial period), "" for any other sentence.

    A small model told "employees who have completed probation may work remotely" and shown a record
    that says "Probation" elsewhere answers "you are eligible". Code says it next to the sentence:
    from the record (``record``: a status column or a probation end date, see
    :attr:`engine.data.profile.Profile.probation`), else from the period the sentence itself states
    ("the first 90 days") or, where it states none, the one another sentence of the handbook states
    (``length``), and the person's days of service."""
    if not mentions_probation(text) or _SANCTION.search(text):  # (a disciplinary probation is not theirs)
        return ""
    if record:
        return record
    length = probation_length(text) or length
    if service_days is None or length is None:
        return ""
    if service_days < length:
        return f"you are {service_days} days into it, so still in it"
    return f"you have completed it ({service_days} days of service)"
