"""The words of HR exports in several languages, read from the files in ``engine/data/lang/``.

Code here is only the mechanism: folding a header to comparable words and matching the entries
of the language files (see ``engine/data/lang/README.md`` for their syntax). A new language is a
new file.
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

LANG_DIR = Path(__file__).with_name("lang")

_FOLD = str.maketrans({"ß": "ss", "ø": "o", "æ": "ae", "œ": "oe", "ł": "l", "đ": "d", "ı": "i", "º": " ", "ª": " ",
                       "°": " ", "№": "no", "#": " no "})
_BRACKETS = re.compile(r"\([^)]*\)|\[[^\]]*\]|\{[^}]*\}")


def fold(text: str) -> str:
    """Lower case, no accents, words separated by single spaces: "Vorgesetzte(r) Pers.-Nr." ->
    "vorgesetzte r pers nr"."""
    text = unicodedata.normalize("NFKD", str(text).casefold().translate(_FOLD))
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^0-9a-z]+", " ", text).split())


def core(header: str) -> str:
    """A header's folded words without what stands in brackets (a unit, a currency, "ID")."""
    return fold(_BRACKETS.sub(" ", header)) or fold(header)


@dataclass(frozen=True)
class Entry:
    """One vocabulary entry: its words (each may start or end with ``*``), and ``=`` for a whole header."""

    text: str
    language: str
    whole: bool
    words: tuple[str, ...]

    @classmethod
    def parse(cls, raw: str, language: str) -> "Entry":
        whole = raw.startswith("=")
        body = raw[1:] if whole else raw
        words = tuple(w if w in ("*",) else _fold_word(w) for w in body.split())
        return cls(raw, language, whole, tuple(w for w in words if w.strip("*")))

    def score(self, words: list[str]) -> float:
        """How much of the header this entry names (0 where it does not match): one per exact word,
        less for a stem, more for a whole header."""
        n = len(self.words)
        if not n or n > len(words):
            return 0.0
        if self.whole and n != len(words):
            return 0.0
        for start in range(len(words) - n + 1):
            got = 0.0
            for w, token in zip(self.words, words[start:start + n]):
                s = _word_score(w, token)
                if not s:
                    break
                got += s
            else:
                return got + (0.5 if self.whole else 0.0) + (0.25 if n == len(words) else 0.0)
        return 0.0


def _fold_word(word: str) -> str:
    star_left, star_right = word.startswith("*"), word.endswith("*")
    body = fold(word.strip("*")).replace(" ", "")
    return ("*" if star_left else "") + body + ("*" if star_right else "")


def _word_score(entry_word: str, token: str) -> float:
    left, right = entry_word.startswith("*"), entry_word.endswith("*")
    body = entry_word.strip("*")
    if left and right:
        return 0.5 if body in token and body != token else (1.0 if body == token else 0.0)
    if right:
        return 1.0 if token == body else (0.6 if token.startswith(body) else 0.0)
    if left:
        return 1.0 if token == body else (0.6 if token.endswith(body) else 0.0)
    return 1.0 if token == body else 0.0


@dataclass
class Vocabulary:
    """Every language file's entries, by section and key."""

    headers: dict[str, list[Entry]] = field(default_factory=dict)
    units: dict[str, list[Entry]] = field(default_factory=dict)
    periods: dict[str, list[Entry]] = field(default_factory=dict)
    values: dict[str, set[str]] = field(default_factory=dict)
    value_languages: dict[tuple[str, str], str] = field(default_factory=dict)
    values_by_language: dict[str, dict[str, set[str]]] = field(default_factory=dict)
    corpus: dict[str, dict[str, list[str]]] = field(default_factory=dict)  # language -> key -> headers
    languages: list[str] = field(default_factory=list)
    question_words: dict[str, set[str]] = field(default_factory=dict)  # language -> words that mark a question
    answer_in: dict[str, str] = field(default_factory=dict)  # language -> the instruction to answer in it
    glosses: dict[str, str] = field(default_factory=dict)  # a cell value (folded) -> its meaning in English

    def gloss(self, value: str) -> str:
        """A cell value's meaning in English words ("Elternzeit" -> "parental leave"), or ""."""
        return self.glosses.get(fold(value), "")

    def question_language(self, text: str) -> str:
        """The language a question is written in, by its common words ("Wie viele Urlaubstage habe ich
        noch?" -> "de"); English unless another language has at least two of its words and more than English."""
        words = fold(text).split()
        hits = {lang: sum(w in marks for w in words) for lang, marks in self.question_words.items()}
        english = hits.get("en", 0)
        best = max((lang for lang in hits if lang != "en"), key=lambda lang: hits[lang], default="")
        return best if best and hits[best] >= 2 and hits[best] > english else "en"

    def header_roles(self, header: str, language: str = "") -> list[tuple[str, float, Entry]]:
        """(role, score, entry) for every role whose entry matches the header's words, best first (only
        ``language``'s entries where one is given)."""
        words = core(header).split()
        out: dict[str, tuple[float, Entry]] = {}
        for role, entries in self.headers.items():
            for entry in entries:
                if language and entry.language != language:
                    continue
                s = entry.score(words)
                if s and s > out.get(role, (0.0, entry))[0]:
                    out[role] = (s, entry)
        return sorted(((r, s, e) for r, (s, e) in out.items()), key=lambda t: -t[1])

    def _best(self, table: dict[str, list[Entry]], header: str) -> str:
        words = fold(header).split()
        best, score = "", 0.0
        for key, entries in table.items():
            for entry in entries:
                s = entry.score(words) - (0.25 if len(entry.words) == len(words) else 0.0)
                if s > score:
                    best, score = key, s
        return best

    def unit(self, header: str) -> str:
        """The unit a header names anywhere in it: "hours", "days", "weeks" or ""."""
        return self._best(self.units, header)

    def period(self, header: str) -> str:
        """The pay period a header names: "hour", "week", "month", "year" or ""."""
        return self._best(self.periods, header)

    def value_kind(self, value: object, kinds: tuple[str, ...]) -> str:
        """Which of ``kinds`` (keys of ``[values]``) a cell's whole text is, or ""."""
        if not isinstance(value, str):
            return ""
        text = fold(value)
        for kind in kinds:
            if text in self.values.get(kind, ()):
                return kind
        return ""

    def value_in(self, value: object, kind: str, languages: set[str]) -> bool:
        """Whether a cell's whole text is a word of ``kind`` in one of ``languages``."""
        text = fold(str(value)) if isinstance(value, str) else ""
        return any(text in self.values_by_language.get(lang, {}).get(kind, ()) for lang in languages)

    def value_of_words(self, value: object, kind: str, languages: set[str]) -> bool:
        """Whether a cell is made of ``kind``'s phrases of ``languages`` alone, two or more of them
        ("HR - Personal", "Personal (HR)": HR named twice), or is one of them (:meth:`value_in`)."""
        if self.value_in(value, kind, languages):
            return True
        text = fold(str(value)) if isinstance(value, str) else ""
        phrases = sorted({p for lang in languages for p in self.values_by_language.get(lang, {}).get(kind, ())},
                         key=len, reverse=True)
        if not text or not phrases:
            return False
        rest, found = f" {text} ", 0
        for phrase in phrases:
            while f" {phrase} " in rest:
                rest, found = rest.replace(f" {phrase} ", " ", 1), found + 1
        return found >= 2 and not rest.strip()

    def value_language(self, value: object, kind: str) -> str:
        return self.value_languages.get((kind, fold(str(value))), "")


@functools.lru_cache(maxsize=1)
def vocabulary() -> Vocabulary:
    """All language files, read once."""
    vocab = Vocabulary()
    # English first: on a tie between two languages' words the English reading stands
    for path in sorted(LANG_DIR.glob("*.toml"), key=lambda p: (p.stem != "en", p.stem)):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        lang = str(data.get("language") or path.stem)
        vocab.languages.append(lang)
        for section, target in (("headers", vocab.headers), ("units", vocab.units), ("periods", vocab.periods)):
            for key, entries in data.get(section, {}).items():
                target.setdefault(key, []).extend(Entry.parse(e, lang) for e in entries)
        for key, entries in data.get("values", {}).items():
            for e in entries:
                vocab.values.setdefault(key, set()).add(fold(e))
                vocab.values_by_language.setdefault(lang, {}).setdefault(key, set()).add(fold(e))
                vocab.value_languages.setdefault((key, fold(e)), lang)
        vocab.corpus[lang] = {k: list(v) for k, v in data.get("corpus", {}).items()}
        for value, meaning in data.get("glosses", {}).items():
            vocab.glosses.setdefault(fold(value), str(meaning))
        question = data.get("question", {})
        vocab.question_words[lang] = {fold(w) for w in question.get("words", [])}
        if question.get("answer"):
            vocab.answer_in[lang] = str(question["answer"])
    return vocab
