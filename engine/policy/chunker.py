"""Structure-aware chunking: every chunk keeps the heading path it sits under.

Real manuals repeat the same items under different headings ("Unused Leave:
… cannot be carried over" under forty leave types); only the heading says
which leave a sentence is about. The chunker recognises Markdown headings,
Roman (``III.``) and lettered (``A.``) outlines, numbered items and ALL-CAPS
titles, and gives each chunk its path, e.g.
``LEAVE POLICY › H. Bereavement Leave › 1. Eligibility and Accrual``.
Chunks stay under the embedding model's input length.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from engine.policy.loaders import Line

# 10: a window cut from a long paragraph keeps the line breaks of the rows beside it;
# 9: Markdown strong emphasis marks dropped; 8: a Word table in its place, as Markdown table rows;
# 7: "2.1 Title" items, long sections cut between lines
CHUNKER_VERSION = 10
MAX_WORDS = 150  # all-MiniLM-L6-v2 reads 256 word pieces; the heading path takes some of them
SEPARATOR = " › "

_MD = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_ROMAN = re.compile(r"^([IVXLC]{1,7})[.)]\s+(\S.{0,90})$")
_LETTER = re.compile(r"^([A-Z])[.)]\s+(\S.{0,90})$")
#: A numbered item: "3. Carry-over", "3) …", or a sub-item with a short title ("2.4 Carry-forward. On …",
#: "2.5 Selling holiday: …"); a line starting "1.5 times …" or "2.1 Full-time staff are entitled …" is none.
_NUMBERED = re.compile(r"^(\d{1,2})[.)]\s+(\S.*)$|^(\d{1,2}\.\d{1,2})\.?\s+([A-Z][^.:;]{1,50}[.:](?:\s.*)?)$")
_MARKER = re.compile(r"^(?:[IVXLC]{1,7}|[A-Z]|\d{1,2})[.)]\s+")
_ROMAN_VALID = re.compile(r"^M{0,3}(CM|CD|D?C{0,3})(XC|XL|L?X{0,3})(IX|IV|V?I{0,3})$")


@dataclass
class Chunk:
    source: str  # file path relative to the policy root
    section: str  # heading path
    text: str
    line_start: int
    line_end: int
    page: int | None = None

    def embedding_text(self) -> str:
        """What is embedded and indexed: the heading path (outline markers dropped) and the text."""
        labels = [_MARKER.sub("", label) for label in self.section.split(SEPARATOR) if label]
        return f"{' › '.join(labels)}: {self.text}" if labels else self.text

    def location(self) -> str:
        lines = f"lines {self.line_start}-{self.line_end}" if self.line_end > self.line_start else f"line {self.line_start}"
        return f"page {self.page}, {lines}" if self.page else lines

    def to_dict(self) -> dict:
        return asdict(self)


def _is_title(text: str) -> bool:
    letters = [c for c in text if c.isalpha()]
    return 3 <= len(letters) and len(text) <= 90 and text.upper() == text and not text.endswith(".")


def _item_label(number: str, text: str) -> str:
    mark = number if "." in number else f"{number}."  # "2.4 Carry-forward", "3. Carry-over"
    title = re.match(r"^([^.:;]{2,50})\.\s+[A-Z]", text)  # "Carry-forward. On December 31 …"
    if title:
        return f"{mark} {title.group(1).strip()}"
    head, sep, _ = text.partition(":")
    if sep and len(head) <= 60:
        return f"{mark} {head.strip()}"
    words = text.split()
    return f"{mark} {' '.join(words[:8])}{'…' if len(words) > 8 else ''}"


def chunk_lines(lines: list[Line], source: str) -> list[Chunk]:
    """Split a document's lines into chunks with heading paths.

    The items of one heading (numbered items, paragraphs) stay together while they fit
    the embedding window, so a chunk is a whole section; a longer section is cut at item
    boundaries and each part names its items in the path (``… › 1. Eligibility – 3. Unused Leave``).
    """
    path: list[tuple[int, str]] = []  # (level, label)
    chunks: list[Chunk] = []
    units: list[tuple[str | None, list[Line]]] = []  # (item label, lines) under the current heading
    last_letter: str | None = None

    def heading() -> str:
        return SEPARATOR.join(label for _, label in path)

    def flush() -> None:
        nonlocal units
        parts: list[list[tuple[str | None, list[Line]]]] = [[]]
        words = 0
        for label, unit_lines in units:
            n = sum(len(line.text.split()) for line in unit_lines)
            if parts[-1] and words + n > MAX_WORDS:
                parts.append([])
                words = 0
            parts[-1].append((label, unit_lines))
            words += n
        for part in parts:
            if not part:
                continue
            labels = [label for label, _ in part if label]
            section = heading()
            if len(parts) > 1 and labels:
                section += SEPARATOR + (labels[0] if len(labels) == 1 else f"{labels[0]} – {labels[-1]}")
            part_lines = [line for _, unit_lines in part for line in unit_lines]
            chunks.extend(_split_long(part_lines, source, section))
        units = []

    def set_heading(level: int, label: str) -> None:
        flush()
        while path and path[-1][0] >= level:
            path.pop()
        path.append((level, label))

    for line in lines:
        text = line.text.strip()
        m = _MD.match(text)
        if m:
            set_heading(len(m.group(1)), m.group(2).strip())
            last_letter = None
            continue
        m_letter, m_roman = _LETTER.match(text), _ROMAN.match(text)
        # "I." is a letter after "H.", a Roman numeral otherwise (likewise V, X, L, C).
        is_next_letter = bool(m_letter and last_letter and ord(m_letter.group(1)) == ord(last_letter) + 1)
        if m_letter and (is_next_letter or m_letter.group(1) == "A" or not m_roman):
            if not text.endswith(".") or len(text) < 40:
                set_heading(12, f"{m_letter.group(1)}. {m_letter.group(2).strip().rstrip(':')}")
                last_letter = m_letter.group(1)
                continue
        if m_roman and _ROMAN_VALID.match(m_roman.group(1)) and (not text.endswith(".") or len(text) < 40):
            set_heading(11, f"{m_roman.group(1)}. {m_roman.group(2).strip().rstrip(':')}")
            last_letter = None
            continue
        if _is_title(text):
            # An all-capitals line is a document title; a file may hold several documents.
            set_heading(0, text)
            last_letter = None
            continue
        m = _NUMBERED.match(text)
        if m:
            number, rest = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
            units.append((_item_label(number, rest), [line]))
        elif units:
            units[-1][1].append(line)
        else:
            units.append((None, [line]))
    flush()
    return chunks


def _split_long(part: list[Line], source: str, section: str) -> list[Chunk]:
    """One chunk, or several when a single item or paragraph is itself longer than the window: cut
    between lines where the lines allow it (a list keeps its rows apart), with one line of overlap."""
    words = [w for line in part for w in line.text.split()]
    if len(words) <= MAX_WORDS:
        return [_make(part, words, source, section)]
    if all(len(line.text.split()) <= MAX_WORDS // 2 for line in part):
        out: list[Chunk] = []
        window: list[Line] = []
        count = 0
        for line in part:
            n = len(line.text.split())
            if window and count + n > MAX_WORDS:
                out.append(_make(window, [w for x in window for w in x.text.split()], source, section))
                window = window[-1:] if len(window[-1].text.split()) + n <= MAX_WORDS else []
                count = sum(len(x.text.split()) for x in window)
            window.append(line)
            count += n
        if window:
            out.append(_make(window, [w for x in window for w in x.text.split()], source, section))
        return out
    out = []
    # (each word with what follows it: a window cut from a long paragraph keeps the line breaks of the table or
    # list beside it, so its rows stay units of their own)
    ends = [("\n" if i == len(line.text.split()) - 1 else " ") for line in part for i, _ in enumerate(line.text.split())]
    step = MAX_WORDS - 20  # overlap keeps sentences whole across a cut
    for start in range(0, len(words), step):
        span = range(start, min(start + MAX_WORDS, len(words)))
        text = "".join(words[i] + ends[i] for i in span).strip()
        out.append(_make(part, words[start:start + MAX_WORDS], source, section, text))
        if start + MAX_WORDS >= len(words):
            break
    return out


def _make(part: list[Line], words: list[str], source: str, section: str, text: str = "") -> Chunk:
    whole = sum(len(line.text.split()) for line in part) == len(words)
    # A whole section keeps its line breaks: a list item or a table row is a unit of its own
    # (engine.agent.evidence); a window cut from a long paragraph keeps the breaks it has (``text``).
    if not text:
        text = "\n".join(" ".join(line.text.split()) for line in part if line.text.strip()) if whole else " ".join(words)
    return Chunk(source=source, section=section, text=text, line_start=part[0].number,
                 line_end=part[-1].number, page=part[0].page)
