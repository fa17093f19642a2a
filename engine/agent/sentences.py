"""The sentences code writes into an answer itself, in the question's language
(``engine/agent/lang/<code>.toml``; English fills a key a language lacks), and the words of a
question those files keep (where its next part opens, what a data question asks for)."""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path

LANG_DIR = Path(__file__).with_name("lang")


@functools.lru_cache(maxsize=None)
def _file(code: str) -> dict:
    path = LANG_DIR / f"{code}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def table(code: str) -> dict[str, str]:
    return _file(code).get("sentences", {})


@functools.lru_cache(maxsize=None)
def part_split() -> re.Pattern | None:
    """Where a question in another language opens its next part: a conjunction, then a question word
    (each language's ``[parts]``; English is split by the routed pipeline's own patterns)."""
    alternatives = []
    for code in languages():
        parts = _file(code).get("parts", {})
        conjunctions = "|".join(re.escape(c) for c in parts.get("conjunctions", ()))
        words = "|".join(re.escape(w) for w in parts.get("question_words", ()))
        if conjunctions and words:
            alternatives.append(rf",?\s+(?:{conjunctions})\s+(?=(?:{words})\b)")
    return re.compile("|".join(alternatives), re.I) if alternatives else None


def _phrases(phrases) -> re.Pattern:
    """Whole words or phrases of a language file's list, longest first; "stem*" is the start of a word, and
    "…" up to two words ("my … guys": "my warehouse guys", "my night shift guys")."""
    def one(phrase: str) -> str:
        if "…" in phrase:
            # (not a possessive between: "my manager's team" is not my team)
            return r"\s+(?:(?![\w-]*['’]s\s)[\w'’-]+\s+){0,2}".join(one(piece.strip()) for piece in phrase.split("…"))
        return re.escape(phrase[:-1]) + r"\w*" if phrase.endswith("*") else re.escape(phrase)

    alternatives = "|".join(one(p) for p in sorted(set(phrases), key=len, reverse=True))
    return re.compile(rf"(?<!\w)(?:{alternatives})(?!\w)", re.I) if alternatives else re.compile(r"(?!x)x")


@functools.lru_cache(maxsize=None)
def aggregate_words() -> dict[str, re.Pattern]:
    """What a data question asks for ("average", "total", "median", "count"): every language's
    ``[aggregates]`` words as one pattern per kind."""
    words: dict[str, list[str]] = {}
    for code in languages():
        for kind, phrases in _file(code).get("aggregates", {}).items():
            words.setdefault(kind, []).extend(phrases)
    return {kind: _phrases(phrases) for kind, phrases in words.items()}


@functools.lru_cache(maxsize=None)
def team_words() -> re.Pattern:
    """Every language's words for the asker's direct reports ("my team", "mi equipo", "mein Team")."""
    return _phrases(p for code in languages() for p in _file(code).get("team", {}).get("words", ()))


@functools.lru_cache(maxsize=None)
def people_words() -> re.Pattern:
    """Every language's words that ask which people, or how many, have some property (``[people]``)."""
    return _phrases(p for code in languages() for p in _file(code).get("people", {}).get("words", ()))


@functools.lru_cache(maxsize=None)
def self_words() -> re.Pattern:
    """Every language's words by which a question speaks of the asker (``[self]``: "my", "mein*", "mis")."""
    return _phrases(p for code in languages() for p in _file(code).get("self", {}).get("words", ()))


@functools.lru_cache(maxsize=None)
def possessive_words() -> re.Pattern:
    """Every language's "my" before a noun (``[self].possessive``: "my", "mon", "mijn", "mein*")."""
    return _phrases(p for code in languages() for p in _file(code).get("self", {}).get("possessive", ()))


@functools.lru_cache(maxsize=None)
def employee_nouns() -> frozenset[str]:
    """Every language's words for an employee as such (``[people].nouns``: "employee", "Mitarbeiter", "medewerker"),
    lower case."""
    return frozenset(w.casefold() for code in languages() for w in _file(code).get("people", {}).get("nouns", ()))


@functools.lru_cache(maxsize=None)
def approve_words() -> re.Pattern:
    """Every language's words by which a question asks the assistant itself to approve something (``[approve_ask]``)."""
    return _phrases(p for code in languages() for p in _file(code).get("approve_ask", {}).get("words", ()))


@functools.lru_cache(maxsize=None)
def probation_end_words() -> dict[str, re.Pattern]:
    """Every language's words of a question asking when a probation ends (``[probation_end]``: "when",
    and the probation's names)."""
    return {key: _phrases(p for code in languages() for p in _file(code).get("probation_end", {}).get(key, ()))
            for key in ("when", "name", "from_when")}


def asked_aggregate(question: str) -> str:
    """"average", "total" or "median" where a data question asks for that of a figure, "names" where it asks
    who and not how many ("Wer ist in Elternzeit?"), "count" where it asks how many people ("our headcount"),
    "" else (a count or names asked win over an aggregate:
    "How many people earn more than the average?")."""
    words = aggregate_words()
    if "relative" in words:  # ("the people who report to me": no question of who)
        question = words["relative"].sub(" ", question)
    names = words["names"].search(question) if "names" in words else None
    if names and not ("number" in words and words["number"].search(question)):
        # ("What's the combined PTO balance of the hygienists who report to me?": a who after the figure asked for
        # qualifies whose figure it is; "Who has the highest total overtime?" asks who)
        figure = next((m for kind in ("average", "median", "total") if kind in words
                       for m in [words[kind].search(question)] if m), None)
        if figure is None or names.start() < figure.start():
            return "names"
        question = question[:names.start()]
    if "headcount" in words and words["headcount"].search(question):
        return "count"
    if "count" in words and words["count"].search(question):
        # "How many vacation days do my reports have left in total?": days added up, not people counted
        if "total" in words and words["total"].search(question) and _names_unit(question):
            return "total"
        return ""
    return next((kind for kind in ("average", "median", "total") if kind in words and words[kind].search(question)), "")


def _names_unit(question: str) -> bool:
    """Whether a question names a unit of time ("days", "Stunden", "horas"), in any language's words."""
    from engine.data.vocab import fold, vocabulary

    # (a unit's word of three letters or more: "at", German for working days, and "h" are other words too; an
    # entry's "*" is read as the data layer reads it: "*uren" ends a compound, so "verlofuren" names hours)
    asked = fold(question).split()
    return any(e.score(asked) for units in vocabulary().units.values() for e in units
               if all(len(w.strip("*")) >= 3 for w in e.words))


def asks_several(question: str) -> bool:
    """Whether a question about people asks for several of them ("who are", "which employees", "quiénes"):
    without such words, "who has the most …" asks for the one at the top."""
    words = aggregate_words()
    return "plural" in words and bool(words["plural"].search(question))


@functools.lru_cache(maxsize=None)
def _tenure_words() -> dict[str, re.Pattern]:
    return {key: _phrases(p for code in languages() for p in _file(code).get("tenure", {}).get(key, ()))
            for key in ("earliest", "latest")}


def asked_tenure(question: str) -> str:
    """"earliest" where a data question ranks people by how long they have been here ("who has been with
    the company the longest"), "latest" where it asks for the newest, "" else (``[tenure]`` words)."""
    words = _tenure_words()
    early, late = bool(words["earliest"].search(question)), bool(words["latest"].search(question))
    return "earliest" if early and not late else "latest" if late and not early else ""


def languages() -> list[str]:
    return sorted(p.stem for p in LANG_DIR.glob("*.toml"))


def say(key: str, language: str = "en", **fields) -> str:
    """Sentence ``key`` in ``language``, filled in."""
    text = table(language).get(key) or table("en")[key]
    return text.format(**fields)
