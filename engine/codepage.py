"""Which legacy code page an export that is not UTF-8 was written in.

Excel on Windows writes CSV in the system's code page: Windows-1252 in Western Europe and the
Americas, Windows-1250 in Central Europe (Polish, Czech, Hungarian …), Windows-1257 in the Baltics,
Windows-1251 for Cyrillic. Read in the wrong one, "Łódź" becomes "£ódŸ", "zaległy" "zaleg³y" and
"Poznań" "Poznañ": names stop matching and header words stop naming their roles.

Every byte decodes in every one of these code pages, so the choice is by plausibility: the text read
in each is scored by the words that no language writes (a symbol or superscript inside a word, a
capital letter after a small one, Latin and Cyrillic letters in one word, accented letters no one
alphabet has together, a Latin word made only of accented letters), and the code page with the
fewest wins; a tie keeps the earlier one, Windows-1252, so a file that reads the same in all is read
as most Western software would. (Hungarian "ő" and Baltic letters can tie with Western ones and are
then read as Windows-1252.)
"""

from __future__ import annotations

import re
import unicodedata

#: The accented small letters of the languages written in these code pages. A word whose accented
#: letters no one alphabet holds together ("pøíjmení": Danish ø beside Czech í) is read wrongly.
ALPHABETS: tuple[str, ...] = (
    "äöüß", "àâæçéèêëîïôœùûüÿ", "áéíóúñü", "áâãàçéêíóôõú", "àèéìíîòóùú", "éëïóöüèáç", "åäöé", "æøåé",
    "ąćęłńóśźż", "áčďéěíňóřšťúůýž", "áäčďéíĺľňóôŕšťúýž", "áéíóöőúüű", "ăâîșşțţ", "čćđšž", "ąčęėįšųūž",
    "āčēģīķļņšūž", "äõöüšž", "áðéíóúýþæö", "çğıöşü", "ëç",
)

#: Tried in this order; a tie keeps the earlier one.
CODE_PAGES: tuple[str, ...] = ("cp1252", "cp1250", "cp1257", "cp1251")

_WORD = re.compile(r"[^\s\d.,;:!?()\[\]{}\"'/\\|<>=+*&%$#@^~`_-]+")


def _script(char: str) -> str:
    name = unicodedata.name(char, "")
    if name.startswith("CYRILLIC"):
        return "cyrillic"
    if name.startswith("LATIN"):
        return "latin"
    return "other"


def _odd(word: str) -> bool:
    """True when no language writes this word (see the module's docstring)."""
    if len(word) < 2 or word.isascii():
        return False
    scripts = set()
    previous = ""
    accented = letters = 0
    for char in word:
        kind = unicodedata.category(char)
        if kind[0] in "SN" or kind == "Cc":
            # A currency sign, superscript or symbol beside a letter: "£ód", "zaleg³y".
            return True
        if kind[0] == "L":
            scripts.add(_script(char))
            letters += 1
            accented += not char.isascii()
            if kind == "Lu" and not char.isascii() and previous and unicodedata.category(previous) == "Ll":
                return True
        previous = char
    if "latin" in scripts and "cyrillic" in scripts:
        return True
    if "latin" in scripts:
        marked = {char for char in word.casefold() if char.isalpha() and not char.isascii()}
        if marked and not any(marked <= set(alphabet) for alphabet in ALPHABETS):
            return True
    # A Latin word of accented letters only is Cyrillic read in a Western code page: "Ïðèâåò".
    return "cyrillic" not in scripts and letters >= 5 and accented == letters


def oddity(text: str) -> int:
    """How many words of ``text`` no language writes."""
    return sum(_odd(word) for word in _WORD.findall(text))


def decode_legacy(raw: bytes) -> tuple[str, str]:
    """``raw`` (not UTF-8) decoded in the most plausible code page, and that code page's name."""
    best: tuple[int, str, str] | None = None
    for page in CODE_PAGES:
        text = raw.decode(page, errors="replace")
        score = oddity(text) + 3 * text.count("\ufffd")
        if best is None or score < best[0]:
            best = (score, page, text)
    assert best is not None
    return best[2], best[1]
