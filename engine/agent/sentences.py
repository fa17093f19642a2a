"""The sentences code writes into an answer itself, in the question's language
(``engine/agent/lang/<code>.toml``; English fills a key a language lacks)."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

LANG_DIR = Path(__file__).with_name("lang")


@functools.lru_cache(maxsize=None)
def table(code: str) -> dict[str, str]:
    path = LANG_DIR / f"{code}.toml"
    return tomllib.loads(path.read_text(encoding="utf-8")).get("sentences", {}) if path.is_file() else {}


def languages() -> list[str]:
    return sorted(p.stem for p in LANG_DIR.glob("*.toml"))


def say(key: str, language: str = "en", **fields) -> str:
    """Sentence ``key`` in ``language``, filled in."""
    text = table(language).get(key) or table("en")[key]
    return text.format(**fields)
