"""The words of handbook rules in each language, read from ``engine/agent/rules/lang/<code>.toml``.

Code here is the mechanism only: number words become figures where a unit follows, a family of
phrases becomes one pattern, an answer sentence is filled in. A language file may leave a table out;
English fills what it lacks, so a new language can start with its answer sentences.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

LANG_DIR = Path(__file__).with_name("lang")
#: What may follow a number word for it to be a figure ("five days", "one and a half times").
_UNIT_AFTER = r"(?=[\s-]+(?:(?:full|complete|consecutive|working|business|calendar|paid|unpaid|additional|extra)[\s-]+)?" \
              r"(?:hours?|days?|weeks?|months?|years?|times|percent|per cent|shifts?)\b)"


def _phrase(text: str) -> str:
    """A phrase as a pattern: its words in order, any spacing or hyphen between them."""
    words = re.split(r"[\s-]+", text.strip())
    body = r"[\s-]+".join(re.escape(w) for w in words)
    left = r"\b" if words[0][:1].isalnum() else ""
    right = r"\b" if words[-1][-1:].isalnum() else ""
    return f"{left}{body}{right}"


def _alternation(phrases) -> str:
    """The phrases as one pattern, longest first; an entry "re:…" is a pattern of its own."""
    return "|".join(f"(?:{p[3:]})" if p.startswith("re:") else _phrase(p)
                    for p in sorted(phrases, key=len, reverse=True))


@dataclass(frozen=True)
class Words:
    """One language's rule words (with English under it for what the file lacks)."""

    code: str
    numbers: dict
    multiples: dict
    per: dict
    families: dict
    answers: dict
    loss_words: dict
    tables: dict  # every table of the file (English under it), for a reader's own ("prohibition")

    @functools.cached_property
    def _number_table(self) -> dict[str, float]:
        """Number words, folded, with the tens-and-units a table of tens and units makes ("twenty five")."""
        table = {_fold(k): float(v) for k, v in self.numbers.items()}
        tens = {k: v for k, v in table.items() if v in (20, 30, 40, 50, 60, 70, 80, 90) and " " not in k}
        units = {k: v for k, v in table.items() if 1 <= v <= 9 and v == int(v) and " " not in k}
        for t, tv in tens.items():
            for u, uv in units.items():
                table.setdefault(f"{t} {u}", tv + uv)
        return table

    @functools.cached_property
    def _number_re(self) -> re.Pattern:
        # (not right after a hyphen or a word joined to it: "one-half", "forty-five" read whole or not at all)
        return re.compile(rf"(?<![\w-])(?:{_alternation(self._number_table)}){_UNIT_AFTER}", re.I)

    @functools.cached_property
    def _multiple_re(self) -> re.Pattern:
        return re.compile(_alternation(self.multiples), re.I)

    @functools.cached_property
    def _per_re(self) -> re.Pattern:
        from engine.agent.rates import CURRENCY_CODES

        money = (rf"(?:(?:R\$|[$€£]|\b(?:{CURRENCY_CODES})\b)\s?\d[\d,]*(?:\.\d+)?|\d[\d,]*(?:\.\d+)?\s?"
                 rf"(?:(?:{CURRENCY_CODES}|dollars|euros|pounds|pesos|reais|złotych|zł|kr)\b|€))")
        return re.compile(rf"({money})\s+(?:{_alternation(self.per)})", re.I)

    def family(self, name: str) -> re.Pattern:
        """The phrases of one concept as a pattern ("carry", "limit", "loss", "holiday", …)."""
        return _compiled(self.code, name, tuple(self.families.get(name, ())))

    def has(self, name: str, text: str) -> bool:
        return bool(self.families.get(name)) and bool(self.family(name).search(text))

    def found(self, name: str, text: str) -> str:
        """The phrase of family ``name`` that ``text`` says, as it says it ("precio por hora"); "" if none."""
        m = self.family(name).search(text) if self.families.get(name) else None
        return m.group(0) if m else ""

    def plain_figures(self, text: str) -> str:
        """``text`` with the figures it writes in words written as figures ("a maximum of five days" ->
        "a maximum of 5 days", "one and a half times" -> "1.5 times", "1/260th" -> "1/260", "55 USD daily" ->
        "55 USD per day"); everything else as it was."""
        table = self._number_table
        text = self._multiple_re.sub(lambda m: f"{_plain(self._value(self.multiples, m.group(0)))} times"
                                     + (" the" if m.group(0).lower().endswith(" the") else ""), text)

        def figure(m: re.Match) -> str:
            before = m.string[:m.start()].split()
            # ("one hundred twenty hours": a number word after another is part of a number read no further)
            if before and _fold(before[-1]) in {w for k in table for w in k.split()} | {"hundred", "thousand"}:
                return m.group(0)
            value = table.get(_fold(m.group(0)))
            return m.group(0) if value is None else _plain(value)

        text = self._number_re.sub(figure, text)
        text = re.sub(r"\b(1\s?/\s?\d[\d,.]*)(?:st|nd|rd|th)\b", r"\1", text)
        per = {k.lower(): v for k, v in self.per.items()}
        return self._per_re.sub(lambda m: f"{m.group(1)} per "
                                          f"{per[' '.join(m.group(0)[len(m.group(1)):].lower().split())]}", text)

    @staticmethod
    def _value(table: dict, phrase: str) -> float:
        key = " ".join(re.split(r"[\s-]+", phrase.lower()))
        for k, v in table.items():
            if " ".join(re.split(r"[\s-]+", k.lower())) == key:
                return float(v)
        return 0.0

    def answer(self, key: str, **fields) -> str:
        """Answer sentence ``key`` of this language, filled in."""
        units = self.tables.get("units", {})
        if "unit" in fields:  # (the record's "hours" in this language's word)
            fields = {**fields, "unit": units.get(fields["unit"], fields["unit"])}
        return self.answers[key].format(**fields)

    def count(self, value: float, unit: str) -> str:
        """"5 hours", "1 day": a number of a unit, as the answers write it."""
        n = _plain(value)
        key = f"{unit}_many" if value != 1 else unit
        if key in self.answers:
            return self.answer(key, n=n)
        return f"{n} {unit if value != 1 else unit.rstrip('s')}"

    def gone(self, text: str) -> str:
        """How the answer says the rest of a balance goes, from the loss word ``text`` uses."""
        low = text.lower()
        for stem, key in self.loss_words.items():
            if stem in low:
                return self.answers[key]
        return self.answers["gone_default"]


def _fold(phrase: str) -> str:
    return " ".join(re.split(r"[\s-]+", phrase.strip().lower()))


def _plain(value: float) -> str:
    value = float(value)
    return str(int(value)) if value.is_integer() else f"{value:g}"


@functools.lru_cache(maxsize=None)
def _compiled(code: str, name: str, phrases: tuple) -> re.Pattern:
    return re.compile(_alternation(phrases), re.I) if phrases else re.compile(r"(?!x)x")


@functools.lru_cache(maxsize=None)
def _table(code: str) -> dict:
    path = LANG_DIR / f"{code}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


def languages() -> list[str]:
    """Languages that have a rule-words file."""
    return sorted(p.stem for p in LANG_DIR.glob("*.toml"))


@functools.lru_cache(maxsize=None)
def words(code: str = "en") -> Words:
    """The rule words of language ``code``; English fills each table the language lacks."""
    base, own = _table("en"), _table(code) if code != "en" else {}

    def merged(name: str) -> dict:
        return {**base.get(name, {}), **own.get(name, {})}

    def union(name: str) -> dict:  # (a family is English's phrases and the language's: handbooks mix them)
        mine = own.get(name, {})
        return {k: [*base.get(name, {}).get(k, []), *mine.get(k, [])] for k in {*base.get(name, {}), *mine}}

    families = {**union("families"), **{f"asks.{k}": v for k, v in union("asks").items()},
                **{f"rule.{k}": v for k, v in union("rule_kinds").items()},
                **{f"rate_terms.{k}": v for k, v in union("rate_terms").items()}}
    tables = {name: merged(name) for name in {*base, *own}}
    return Words(code if own or code == "en" else "en", merged("numbers"), merged("multiples"), merged("per"),
                 families, merged("answers"), own.get("loss_words", base.get("loss_words", {})), tables)


@functools.lru_cache(maxsize=None)
def question_units() -> dict[str, str]:
    """Every language's words for a unit a question counts in ("Stunden", "horas", "jours") -> the unit
    ("hours", "days", …), from each file's ``[question_units]``."""
    out: dict[str, str] = {}
    for code in languages():
        for unit, phrases in _table(code).get("question_units", {}).items():
            out.update({_fold(p): unit for p in phrases})
    return out


@functools.lru_cache(maxsize=None)
def in_any_language(name: str) -> re.Pattern:
    """Family ``name`` in every language's words at once, for code that reads a question before it knows
    its language ("how many … do I have left", "wie viele … noch", "cuántos … me quedan")."""
    phrases: list[str] = []
    for code in languages():
        phrases += [p for p in words(code).families.get(name, ()) if p not in phrases]
    return _compiled("all", name, tuple(phrases))


@functools.lru_cache(maxsize=None)
def _glossaries() -> tuple[tuple[re.Pattern, dict[str, str]], ...]:
    """Each language's ``[to_english]`` phrases as one pattern, with what each phrase becomes."""
    out = []
    for code in languages():
        table = {k if k.startswith("re:") else _fold(k): v for k, v in _table(code).get("to_english", {}).items()}
        if code != "en" and table:
            out.append((re.compile(_alternation(k for k in _table(code)["to_english"] if not k.startswith("then:")), re.I),
                        table))
    return tuple(out)


def _foreign(text: str, least: int = 2) -> tuple[re.Pattern, dict[str, str]] | None:
    """The glossary of the language ``text`` is written in, where it is one with ``[to_english]`` phrases
    (``least`` of them: one shared word says little about the language of a sentence)."""
    # (the language with most phrases in it: Spanish and Portuguese share "dividido por" and "horas")
    hits = [(len(pattern.findall(text)), i) for i, (pattern, _) in enumerate(_glossaries())]
    best = max(hits, default=(0, -1))
    return _glossaries()[best[1]] if best[0] >= least else None


def _english_notation(text: str) -> str:
    text = re.sub(r"(?<![\d.,])(\d{1,3})((?:\.\d{3})+)(?![\d,]|\.\d)", lambda m: m.group(1) + m.group(2).replace(".", ""), text)
    return re.sub(r"(?<=\d),(?=\d{1,2}\b)", ".", text)


def to_english(text: str, least: int = 2) -> str:
    """A handbook sentence of another language in the English words the rule readers know ("Le taux horaire
    de base est égal au salaire brut mensuel divisé par 151,67 heures." -> "the base hourly rate is the monthly
    gross salary divided by 151.67 hours."), by its language file's ``[to_english]`` phrases, with its figures
    in English notation (1.760 -> 1760, 151,67 -> 151.67); ``text`` itself where fewer than ``least`` of a
    language's phrases occur (a short question may name one: "no domingo")."""
    found = _foreign(text, least)
    if found is None:
        return text
    pattern, table = found
    # ("re:…" entries first: a pattern with groups, and what it becomes with them, "nach dem vollendeten (\d+)\.
    # Dienstjahr" = "after \1 years of service"; the phrases then read what is left, and "then:…" entries what they
    # leave)
    for key, template in table.items():
        if key.startswith("re:"):
            text = re.sub(key[3:], template, text, flags=re.I)
    text = pattern.sub(lambda m: table.get(_fold(m.group(0)), m.group(0)), text)
    # ("then:…" entries last: what the phrases leave behind, "el monthly salary" -> "the monthly salary")
    for key, template in table.items():
        if key.startswith("then:"):
            text = re.sub(key[5:], template, text, flags=re.I)
    return _english_notation(text)


def english_figures(text: str) -> str:
    """``text`` with its figures in English notation where it is a sentence of another language ("divisé par
    151,67 heures" -> "divisé par 151.67 heures"): the calculator and the grounding check read them so."""
    return text if _foreign(text) is None else _english_notation(text)


def written_figures(text: str) -> list[str]:
    """The figures ``text`` writes in words, in any language's number words, as they read in figures
    ("paid at one and a half times your regular rate" -> ["1.5"], "cinco días" -> ["5"]): a calculation
    may use them as much as the figures written in digits."""
    return list(_written_figures(text))


@functools.lru_cache(maxsize=1024)
def _written_figures(text: str) -> tuple[str, ...]:
    # (cached: the grounding checks read the same passages again for every line of a calculation)
    out: list[str] = []
    digits = set(re.findall(r"\d+(?:\.\d+)?", english_figures(text)))
    for code in languages():
        plain = english_figures(words(code).plain_figures(text))
        out += [f for f in re.findall(r"(?<![\d.,/])\d+(?:\.\d+)?(?![\d,])", plain) if f not in digits and f not in out]
    return tuple(out)

