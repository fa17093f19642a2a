"""A policy question's topic in the handbook's language: the concepts of ``engine/policy/lang/<code>.toml``.

The embedder reads English; a German question ("Wie viele Urlaubstage habe ich noch?") against an English
handbook, or an English one against a French handbook ("taux horaire"), shares no word with the passage that
answers it. Each language file names a topic's words under one concept key; a question that names a
concept in one language is searched with that concept's words of the other languages too, and only with
those the handbook itself uses (see :meth:`engine.policy.index.PolicyIndex.search`).
"""

from __future__ import annotations

import functools
import re
import tomllib
import unicodedata
from pathlib import Path

LANG_DIR = Path(__file__).with_name("lang")


def _fold(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _words(phrase: str) -> set[str]:
    return set(re.findall(r"[^\W_]+", _fold(phrase)))


def _pattern(phrase: str) -> str:
    words = [re.escape(w) for w in re.split(r"[\s-]+", _fold(phrase).lstrip("~").strip()) if w]
    body = r"[\s-]+".join(words)
    if body.endswith(r"\*"):
        return rf"(?<!\w){body[:-2]}\w*"
    return rf"(?<!\w){body}(?:s|es)?(?!\w)"  # (a plural too: "NOTICE PERIODS" names the notice period)


@functools.lru_cache(maxsize=None)
def concepts() -> dict[str, dict[str, tuple[re.Pattern, tuple[str, ...]]]]:
    """concept -> language -> (what the question may write, the phrases a handbook writes)."""
    out: dict[str, dict[str, tuple[re.Pattern, tuple[str, ...]]]] = {}
    for path in sorted(LANG_DIR.glob("*.toml")):
        terms = tomllib.loads(path.read_text(encoding="utf-8")).get("terms", {})
        for concept, phrases in terms.items():
            pattern = re.compile("|".join(_pattern(p) for p in phrases))
            # ("~stay late": how a question says it, never how a handbook does: not searched for)
            plain = tuple(p for p in phrases if not p.endswith("*") and not p.startswith("~"))
            out.setdefault(concept, {})[path.stem] = (pattern, plain)
    return out


def other_languages(question: str) -> list[str]:
    """The words of the other languages for each concept ``question`` names ("Urlaubstage" -> "vacation",
    "annual leave", "congés payés", …); a language whose own words the question uses adds nothing."""
    text = _fold(question)
    asked = _words(question)
    out: list[str] = []
    for by_language in concepts().values():
        named = {code for code, (pattern, _) in by_language.items() if pattern.search(text)}
        if named:
            for code in named:
                if not any(_words(p) <= asked for p in by_language[code][1]):
                    # named only in a question's words ("stay late"): the handbook's words for it are searched too
                    out += list(by_language[code][1])
            # (a word the question's own language also has for it, "home-office" for "home office", adds nothing)
            own = {w for code in named for p in by_language[code][1] for w in _words(p)}
            out += [p for code, (_, plain) in by_language.items() if code not in named for p in plain
                    if not _words(p) <= own]
            if "en" not in named:
                # A question in another language than English also brings its own language's other words for the
                # topic ("morrer" -> "falecimento", "nojo"): the embedder reads English, so only words find them.
                out += [p for code in named for p in by_language[code][1] if not _words(p) <= asked]
    return list(dict.fromkeys(out))


def english_topics(question: str) -> list[str]:
    """The English handbook word of each topic ``question`` names only in another language's words
    ("Krijg ik extra verlofuren vanwege mijn dienstjaren?" -> "vacation", "years of service"); [] for a question
    that names its topics in English or names none. The embedder reads English: a Dutch question is far from
    the English row that answers it until it carries the row's words."""
    out = []
    for concept, languages in named_in(question).items():
        english = concepts()[concept].get("en")
        if english and "en" not in languages and english[1]:
            out.append(english[1][0])
    return out


def named_concepts(text: str) -> set[str]:
    """The concepts ``text`` names in any language ("Aviso prévio" and "notice" both name "notice")."""
    folded = _fold(text)
    return {concept for concept, by_language in concepts().items()
            if any(pattern.search(folded) for pattern, _ in by_language.values())}


@functools.lru_cache(maxsize=None)
def _handbook_patterns() -> dict[str, dict[str, re.Pattern]]:
    """concept -> language -> the phrases a handbook writes (no "~" phrase: those are a question's)."""
    out: dict[str, dict[str, re.Pattern]] = {}
    for path in sorted(LANG_DIR.glob("*.toml")):
        terms = tomllib.loads(path.read_text(encoding="utf-8")).get("terms", {})
        for concept, phrases in terms.items():
            kept = [p for p in phrases if not p.startswith("~")]
            if kept:
                out.setdefault(concept, {})[path.stem] = re.compile("|".join(_pattern(p) for p in kept))
    return out


def named_in(text: str, handbook: bool = False) -> dict[str, set[str]]:
    """The concepts ``text`` names, each with the languages whose words name it there; ``handbook``: a
    handbook's text, read without the phrases only a question uses ("~renunciar" is no notice in a rule)."""
    folded = _fold(text)
    out: dict[str, set[str]] = {}
    if handbook:
        for concept, patterns in _handbook_patterns().items():
            langs = {code for code, pattern in patterns.items() if pattern.search(folded)}
            if langs:
                out[concept] = langs
        return out
    for concept, by_language in concepts().items():
        langs = {code for code, (pattern, _) in by_language.items() if pattern.search(folded)}
        if langs:
            out[concept] = langs
    return out


@functools.lru_cache(maxsize=None)
def _relative_phrases() -> list[tuple[str, str, int, re.Pattern]]:
    """(language, kind, length, pattern) for each phrase of every language's ``[relatives]``, longest first."""
    out = []
    for path in sorted(LANG_DIR.glob("*.toml")):
        kinds = tomllib.loads(path.read_text(encoding="utf-8")).get("relatives", {})
        out += [(path.stem, kind, len(phrase), re.compile(_pattern(phrase))) for kind, phrases in kinds.items()
                for phrase in phrases]
    return sorted(out, key=lambda row: -row[2])


def relatives_named(text: str, languages: set[str] | None = None) -> list[str]:
    """The kinds of relative ``text`` names ("child", "parent", "in-law", …), in the order it names them, in the
    words of ``languages`` (all where None). A longer phrase is read before the words inside it ("grand-père" is a
    grandparent, not also a "père")."""
    rest = _fold(text)
    found: list[tuple[int, str]] = []
    for code, kind, _, pattern in _relative_phrases():
        if languages is not None and code not in languages:
            continue  # (a French "son" is "his", a Dutch "kind" no English one)
        for m in pattern.finditer(rest):
            found.append((m.start(), kind))
        rest = pattern.sub(lambda m: " " * len(m.group(0)), rest)
    return list(dict.fromkeys(kind for _, kind in sorted(found)))


def without_concepts(text: str, wanted: set[str]) -> str:
    """``text`` with the handbook's phrases of the ``wanted`` concepts blanked out ("Matrimonio o inscripción como
    pareja de hecho" with marriage's phrases out names no partner: the couple is the event, not a relative)."""
    rest = _fold(text)
    for concept in wanted:
        for pattern in _handbook_patterns().get(concept, {}).values():
            rest = pattern.sub(lambda m: " " * len(m.group(0)), rest)
    return rest


@functools.lru_cache(maxsize=None)
def relative_kinds() -> frozenset[str]:
    """Every kind of relative the language files name ("child", "in-law", …)."""
    return frozenset(kind for _, kind, _, _ in _relative_phrases())
