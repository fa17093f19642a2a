"""The sentences code writes into an answer itself, in the question's language
(``engine/agent/lang/<code>.toml``; English fills a key a language lacks)."""

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


def languages() -> list[str]:
    return sorted(p.stem for p in LANG_DIR.glob("*.toml"))


def say(key: str, language: str = "en", **fields) -> str:
    """Sentence ``key`` in ``language``, filled in."""
    text = table(language).get(key) or table("en")[key]
    return text.format(**fields)
