"""Policy passages cut into the sentences, list items and table rows a small model can choose from.

A handbook answers most questions in one sentence or one row of a list ("3 to 5 days off: at
least 14 calendar days' notice"). A 1.5B model that reads four passages and writes an answer
often takes the row above or below. So the passages are cut into numbered units (``2c``), code
chooses the few that answer the question (:func:`candidates`: the rows that apply first, then the
nearest), the model writes the answer from those alone, and the ones it rests on are shown with it.
A table row is written out with its column headings ("Years of service: 2 to 5 years; PTO per
year: 120 hours"), so the unit says what each figure is.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from engine.agent.sides import other_side
from engine.policy.terms import english_topics
from engine.agent.turn_format import neutralise

MAX_UNITS = 12  # per passage: labels a to l
UNIT_MAX_CHARS = 320
_LETTERS = "abcdefghijkl"
_LIST_ITEM = re.compile(r"^\s*(?:[-*•–]|\(?[0-9]{1,2}[.)]|\(?[a-z][.)]|\([ivx]{1,4}\))\s+")
_ABBREVIATIONS = re.compile(r"(?:\b(?:e\.g|i\.e|etc|no|nos|p\.m|a\.m|mr|mrs|ms|dr|st|approx|vs|inc|ltd|art|sec|para)"
                            r"|\b[A-Z]|\d)\.$", re.I)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(]?[A-Z0-9])")
_TABLE_RULE = re.compile(r"^\|?\s*:?-{2,}")


@dataclass
class Unit:
    """One sentence, list item or table row of a passage, with its label (``2c``)."""

    label: str
    text: str
    passage: int  # the passage's number, 1-based (what the answer cites as [n])


@dataclass
class Passage:
    """A policy passage as the model reads it: its heading and its units."""

    number: int
    source: str
    section: str
    location: str
    units: list[Unit] = field(default_factory=list)
    withheld: bool = False

    def render(self, only: set[str] | None = None, notes: dict[str, str] | None = None) -> str:
        """The passage with its units; ``only``: the labels of the units to show (the rest left out);
        ``notes``: a remark after a unit (which row applies to the person, and why)."""
        head = f"[{self.number}] {self.source} › {self.section}" if self.section else f"[{self.number}] {self.source}"
        if self.withheld:
            from engine.tools.policy_search import WITHHELD

            return f"{head}: {WITHHELD}"
        units = [u for u in self.units if only is None or u.label in only]
        notes = notes or {}
        return "\n".join([head] + [f"  - {u.text}" + (f" (this applies: {notes[u.label]})" if u.label in notes else "")
                                   for u in units])


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _sentences(text: str) -> list[str]:
    """Split running text into sentences, not at abbreviations ("e.g.") or numbers ("1.5")."""
    out: list[str] = []
    start = 0
    for m in _SENTENCE_END.finditer(text):
        head = text[start:m.start()]
        if _ABBREVIATIONS.search(head.split()[-1] if head.split() else ""):
            continue
        out.append(text[start:m.start()].strip())
        start = m.end()
    out.append(text[start:].strip())
    return [s for s in out if s]


#: A numbered item's title written as its first sentence ("2.4 Carry-forward.", "4.4 Night premium.").
_TITLE_SENTENCE = re.compile(r"^\d{1,2}(?:\.\d{1,2})*\.?\s+[A-Z][^.:;]{0,40}\.$")


#: A sentence that defines what the sentence before named ("That figure is …", "This rate equals …").
_BACK_REFERENCE = re.compile(r"^(?:that|this) (?:figure|rate|amount|number) (?:is|equals)\b", re.I)


#: Where a line ends its sentence or its label ("Annual leave: 25 days" above "Sick leave: 10 days" stays a line).
_LINE_END = re.compile(r"[.!?:;)\]]\s*$")
#: A line of a hard-wrapped paragraph is at least this long where it breaks before the sentence's end.
_WRAPPED = 50


def _joined_lines(text: str) -> list[str]:
    """The text's lines, with a hard-wrapped paragraph's lines (Markdown written at 100 columns, a PDF's
    lines) joined again: a line continues the one above where that one is text that ends no sentence and
    is long enough to have been wrapped, or where it starts with a small letter ("… one week's" / "pay: 1/52nd
    of …" is one sentence, and split, neither half was the rule)."""
    out: list[str] = []
    for raw in text.split("\n"):
        line = " ".join(raw.split())
        before = out[-1] if out else ""
        if line and before and not line.startswith(("|", "#")) and not _LIST_ITEM.match(line) \
                and not before.startswith(("|", "#")) and not _LINE_END.search(before) \
                and (line[0].islower() or len(before) >= _WRAPPED):
            out[-1] = f"{before} {line}"
        else:
            out.append(line)
    return out


def split_units(text: str) -> list[str]:
    """The units of a passage's text: table rows with their headings, list items, sentences."""
    units: list[str] = []
    header: list[str] | None = None
    for raw in _joined_lines(text):
        line = " ".join(raw.split())
        if not line:
            continue
        if line.startswith("|"):
            if _TABLE_RULE.match(line.replace("|", "", 1)) or set(line) <= set("|-: "):
                continue
            cells = _cells(line)
            if header is None:
                header = cells
                continue
            pairs = [f"{h}: {c}" if h else c for h, c in zip(header, cells)]
            units.append("; ".join(pairs))
            continue
        header = None
        if _LIST_ITEM.match(line):
            units.append(line)
            continue
        sentences = _sentences(line)
        if len(sentences) > 1 and _TITLE_SENTENCE.match(sentences[0]):
            # "4.4 Night premium. Associates working between 11 p.m. and 7 a.m. receive …": the title alone
            # is no rule, and offered alone it was taken for one.
            sentences[:2] = [f"{sentences[0]} {sentences[1]}"]
        for i in range(len(sentences) - 1, 0, -1):
            if _BACK_REFERENCE.match(sentences[i]):
                # "… need an hourly figure. That figure is the annual base rate divided by …": alone, the
                # definition says of what
                sentences[i - 1:i + 1] = [f"{sentences[i - 1]} {sentences[i]}"]
        units.extend(sentences)
    return [u if len(u) <= UNIT_MAX_CHARS else u[:UNIT_MAX_CHARS] + " …" for u in units]


def passages_from_hits(hits, first: int = 1) -> list[Passage]:
    """Numbered passages with labelled units, from the policy index's hits."""
    out = []
    for n, hit in enumerate(hits, start=first):
        passage = Passage(n, hit.source, hit.section, hit.location, withheld=hit.withheld)
        if not hit.withheld:
            texts = split_units(neutralise(hit.text))
            if len(texts) > MAX_UNITS:
                texts = texts[:MAX_UNITS - 1] + [" ".join(texts[MAX_UNITS - 1:])[:UNIT_MAX_CHARS]]
            passage.units = [Unit(f"{n}{_LETTERS[i]}", t, n) for i, t in enumerate(texts)]
        out.append(passage)
    return out


def render_passages(passages: list[Passage], only: set[str] | None = None, notes: dict[str, str] | None = None) -> str:
    return "\n".join(p.render(only, notes) for p in passages if only is None or p.withheld
                     or any(u.label in only for u in p.units))


CANDIDATES = 6
APPLIES_BONUS = 0.15  # cosine similarity added for a unit code found to apply
#: Cosine similarity added for each distinctive word of the question a unit's headings share (every level), by its
#: first six letters ("encash" finds "Encashment"): a small embedding model ranks a sentence about
#: accrual above one under "Encashment" for "if I encash ...", where the heading settles the topic.
#: (Headings only: the sentences' own verbs, "receive", "paid", match questions about anything.)
HEADING_BONUS = 0.05
_STEM = 6


def _stems(text: str) -> set[str]:
    return {w[:_STEM] for w in re.findall(r"[a-z]{4,}", text.lower())}


def shared_words(question: str, text: str) -> int:
    """How many of the question's distinctive words (4 letters or more) ``text`` also has, by stem."""
    from engine.agent.slots import distinctive_words

    asked = {w[:_STEM] for w in distinctive_words(question) if len(w) >= 4 and w.isalpha()}
    return len(asked & _stems(text))


def marks(passages: list[Passage], question: str, service=None, job: str = "",
          record: dict | None = None) -> tuple[dict[str, str], set[str]]:
    """Which units of ``passages`` apply (label -> why) and which rows do not, each read with its heading
    (:func:`engine.agent.applies.mark_units`); no embedding."""
    from engine.agent.applies import mark_units
    from engine.policy.terms import named_concepts

    read = {u.label: (p.section or "", u.text) for p in passages for u in p.units}  # (section, text)
    applies, ruled_out = mark_units([u for p in passages for u in p.units],
                                    lambda u: read[u.label][0].split(" › ")[-1], question, service, job, record)
    # A row that applies is about what the question asks, where the question names a topic: a probation
    # table by kind of job names the asker's job, and says nothing of "How much notice would I have to give?"
    asked = named_concepts(question)
    if asked:
        applies = {label: why for label, why in applies.items() if asked & named_concepts(" ".join(read[label]))}
    # (asked what notice the employer must give, the rule for resigning applies to nobody: left out)
    ruled_out |= other_side([u for p in passages for u in p.units], question)
    return {label: why for label, why in applies.items() if label not in ruled_out}, ruled_out


def candidates(passages: list[Passage], question: str, embedder, k: int = CANDIDATES,
               service=None, bonus: float = APPLIES_BONUS, job: str = "",
               record: dict | None = None) -> tuple[list[Unit], dict[str, str]]:
    """The units most likely to answer ``question``, most likely first, and which of them apply.

    Code rules out the rows of a list whose range or relative does not fit the question or the
    person (``service``: their length of service, :class:`engine.agent.applies.Figure`; ``job``: their job
    title; ``record``: their own values by role, for a two-way table's rows) and marks
    those that do (:mod:`engine.agent.applies`); the marked ones come first, then the rest by
    embedding similarity to the question (each unit read with its heading). ``bonus``: how far a
    unit that applies moves up (0 for a calculation, where the rate matters and not the tier)."""

    units = [(p, u) for p in passages for u in p.units]
    if not units:
        return [], {}
    heading = {u.label: p.section.split(" › ")[-1] if p.section else "" for p, u in units}
    path = {u.label: p.section or "" for p, u in units}  # every level: "Remote work › Eligibility"
    inner = inner_headings(passages)
    for label, title in inner.items():
        # (a plain-text handbook's sub-heading inside the passage, "3.3 Titres-restaurant", is the heading of the
        # sentences under it: "L'entreprise en finance 60 %" is about meal vouchers only by its heading)
        heading[label] = f"{heading[label]} › {title}" if heading[label] else title
        path[label] = f"{path[label]} › {title}" if path[label] else title
    applies, ruled_out = marks(passages, question, service, job, record)
    pool = [u for _, u in units if u.label not in ruled_out]
    texts = [f"{heading[u.label]}: {u.text}" if heading[u.label] else u.text for u in pool]
    # (a question in another language than the handbook's, read by an English embedder with the English words of
    # its topics; a French question of a French handbook shares its words already)
    english = english_topics(question) if _other_language(question, pool) else []
    sims = embedder.encode(texts) @ embedder.encode([f"{question} ({', '.join(english)})" if english else question])[0]
    # A unit that applies moves up, but only so far: one that applies and is about something else
    # (a tier of the accrual table for a question about cashing out) stays behind the relevant ones.
    topical = _topical(pool, question, inner)
    score = [float(sims[i]) + (bonus if pool[i].label in applies else 0.0)
              + HEADING_BONUS * shared_words(question, path[pool[i].label])
              + (CONCEPT_BONUS if pool[i].label in topical else 0.0) for i in range(len(pool))]
    order = sorted(range(len(pool)), key=lambda i: -score[i])
    return [pool[i] for i in order[:k]], {u.label: applies[u.label] for u in pool if u.label in applies}


#: A unit that is a sub-heading: a short line with no figure and no sentence's end, numbered ("3.3
#: Titres-restaurant") or with a capital to each longer word ("Overtime", "Carrying Leave Over"), never a clause
#: ("Maximum 3 days per year", "Niet van toepassing op stagiairs").
_SUB_HEADING = re.compile(r"(?P<number>\d{1,2}(?:\.\d{1,2})*\.?\s+)?[^\W\d][^.!?:;|%€$£\d]{1,58}")


def inner_headings(passages: list[Passage]) -> dict[str, str]:
    """label -> the sub-heading above a unit inside its passage, where the passage has sub-headings as units of
    their own (a plain-text handbook's numbered titles); a heading is no heading of itself."""
    out: dict[str, str] = {}
    for p in passages:
        current = ""
        for u in p.units:
            text = u.text.strip()
            m = _SUB_HEADING.fullmatch(text)
            longer = [w for w in re.findall(r"[^\W\d_][\w'’-]*", text) if len(w) >= 4]
            if m and len(text.split()) <= 6 and (m["number"] or longer and all(w[0].isupper() for w in longer)):
                current = text
            elif current:
                out[u.label] = current
    return out


def _other_language(question: str, pool: list[Unit]) -> bool:
    """Whether ``question`` is written in another language than the sentences of ``pool`` (by their common words)."""
    from engine.data.vocab import vocabulary

    vocab = vocabulary()
    return vocab.question_language(question) != vocab.question_language(" ".join(u.text for u in pool[:40]))


#: How far a unit moves up that names, in any language, a topic the question names and few other units do.
CONCEPT_BONUS = 0.1
#: ... "few": at most this many units of the pool name it (a topic every unit names tells none apart).
_FEW = 3


def _topical(pool: list[Unit], question: str, heading: dict[str, str] | None = None) -> set[str]:
    """Labels of the units that name a topic the question names (``engine/policy/lang``: "Ich heirate" and
    "eigene Eheschließung: 3 Arbeitstage" both name marriage) where at most a few units do: the embedder reads
    English, and a German question shares no word with the German row that answers it."""
    from engine.policy.terms import named_in

    asked = named_in(question)
    if not asked:
        return set()
    heading = heading or {}
    named = {u.label: {c: langs for c, langs in named_in(f"{heading.get(u.label, '')} {u.text}", handbook=True).items()
                       if c in asked} for u in pool}
    counts = {c: sum(c in n for n in named.values()) for c in asked}
    # (English on both sides is the embedder's own to rank: only a topic named across languages moves a unit)
    return {label for label, n in named.items()
            if any(counts[c] <= _FEW and (asked[c] | langs) != {"en"} for c, langs in n.items())}


#: A sentence that says what a term is ("For salaried employees, the base hourly rate is the annual salary divided
#: by 2,080 hours"): the term, up to four words ending in a noun a calculation names.
_DEFINES = re.compile(r"\bthe ((?:[a-z'’-]+ ){1,3}(?:rate|pay|salary|wage|value|amount|allowance|day|days|hours))"
                      r" (?:is|are|equals|shall be|will be|is calculated as|is worked out as)\b", re.I)


def with_definitions(picked: list[Unit], passages: list[Passage]) -> list[Unit]:
    """``picked`` with the sentence that defines a term a picked one uses ("paid at the employee's base hourly
    rate") put right after it, in place of the last one. A calculation from "paid at the base hourly rate"
    alone has to guess the rate; the handbook says how it is worked out, often in the next sentence, which
    ranked below a sentence about the same figure ("any hours above 40 are forfeited")."""
    out = list(picked)
    added: list[Unit] = []  # the pairs made so far: neither half makes room for the next
    for unit in picked:
        for p in passages:
            for other in p.units:
                m = _DEFINES.search(other.text)
                if other in out or not m or unit not in out:
                    continue
                term = m.group(1).lower()
                if term.split()[0] in ("same", "following", "other", "first", "last"):
                    continue
                if re.search(rf"\b{re.escape(term)}\b", unit.text.lower()):
                    put_after(out, unit, other, added, len(picked))
    return out


def with_continuations(picked: list[Unit], passages: list[Passage]) -> list[Unit]:
    """``picked`` with the sentence right after a picked one, in the same passage, where it speaks of the same
    figure ("Up to 40 hours carry over …" then "Any hours above 40 are forfeited on December 31") or says what
    it is paid at ("… may convert up to 24 hours" then "Converted hours are paid at the base hourly rate"), put after
    it in place of the last one. The second half of such a pair is what a question about the limit's far side
    asks ("how many will I lose?"), and it shares no word with it."""
    from engine.agent.grounding import numbers_in

    out = list(picked)
    kept: list[Unit] = []  # the pairs made so far: neither half makes room for the next
    for unit in picked:
        passage = next((p for p in passages if unit in p.units), None)
        if passage is None or unit not in out or _is_row(unit.text):
            continue  # (rows of a list or table are alternatives, not halves: code marks the one that applies)
        at = passage.units.index(unit)
        follower = passage.units[at + 1] if at + 1 < len(passage.units) else None
        if follower is None or follower in out or _is_row(follower.text):
            continue
        if set(numbers_in(unit.text)) & set(numbers_in(follower.text)) or _PAID_AT.search(follower.text):
            put_after(out, unit, follower, kept, len(picked))
    return out


#: A sentence that says what something is paid at ("Converted hours are paid at the associate's base hourly
#: rate"): the other half of the rule before it ("… may convert up to 24 hours into pay").
_PAID_AT = re.compile(r"\b(?:are|is|will be|shall be) (?:paid|valued|compensated|reimbursed) (?:at|as|in line with)\b",
                      re.I)


def put_after(out: list[Unit], anchor: Unit, unit: Unit, kept: list[Unit], size: int) -> None:
    """Insert ``unit`` right after ``anchor`` in ``out`` and, past ``size`` units, drop the last one that is
    not part of a pair made so far (``kept``, to which both are added)."""
    out.insert(out.index(anchor) + 1, unit)
    kept += [anchor, unit]
    spare = [u for u in out if u not in kept]
    if len(out) > size and spare:
        out.remove(spare[-1])
    del out[max(size, 1):]


def _is_row(text: str) -> bool:
    """A list item or a table row written out ("Years of service: 2 to 5 years; PTO per year: 120 hours")."""
    return bool(_LIST_ITEM.match(text)) or (text.count(": ") >= 2 and "; " in text)


def heading_of(passages: list[Passage], unit: Unit) -> str:
    """The last part of the heading the unit sits under ("2.2 Requesting PTO")."""
    passage = next((p for p in passages if p.number == unit.passage), None)
    return passage.section.split(" › ")[-1] if passage and passage.section else ""
