"""Read policy documents (.txt, .md, .pdf, .docx) into lines with their locations.

Text files are decoded tolerantly (UTF-8 with or without BOM, then the
Windows code page the text reads best in), line ends normalised, tabs turned into spaces. PDF text comes
from pypdf page by page, DOCX paragraphs from python-docx with heading styles
turned into Markdown headings. A file that cannot be read raises
:class:`DataFileError` with the reason; the indexer skips it and reports why.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from engine.codepage import decode_legacy
from engine.errors import DataFileError

SUPPORTED = (".txt", ".md", ".markdown", ".pdf", ".docx")
# Lines that chat exports and copy-paste leave behind; they are not policy text.
JUNK_LINES = re.compile(r"^\s*(regenerate response|copy code|copy|share|edit)\s*$", re.I)


@dataclass
class Line:
    text: str
    number: int  # 1-based line number (within the page for PDF)
    page: int | None = None


def decode_text(raw: bytes) -> str:
    if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
        return raw.decode("utf-16")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return decode_legacy(raw)[0]


def _clean(text: str) -> str:
    text = text.replace("\t", " ").replace("\u00a0", " ")
    return re.sub(r" {2,}", " ", text).rstrip()


def _text_lines(text: str, page: int | None = None) -> list[Line]:
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return [Line(_clean(t), i, page) for i, t in enumerate(text.split("\n"), start=1)
            if t.strip() and not JUNK_LINES.match(t)]


#: Markdown's strong emphasis around words ("**1.5 times**", "__Note__"): a reader sees the words, not the marks.
_STRONG = re.compile(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1")


def _plain_markdown(text: str) -> str:
    """Markdown text without its strong-emphasis marks (a quoted rule reads "paid at 1.5 times")."""
    return _STRONG.sub(r"\2", text)


_FRONT_MATTER_LINE = re.compile(r"^\s*([A-Za-z_][\w-]*\s*:|-\s|#)")


def front_matter_end(lines: list[str]) -> int | None:
    """The index of the line that closes front matter opened by ``---`` on the first line (within
    200 lines), or None when the text has none or it is not closed."""
    if not lines or lines[0].strip().lstrip("\ufeff") != "---":
        return None
    return next((i for i in range(1, min(len(lines), 200)) if lines[i].strip() in ("---", "...")), None)


def _without_front_matter(text: str) -> str:
    """A Markdown file's front matter (``---`` … ``---`` at the top: a procedure's settings, see
    :mod:`engine.workflows.procedures`) is not policy text; its lines are blanked so line numbers stay true."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    end = front_matter_end(lines)
    if end is None or not all(_FRONT_MATTER_LINE.match(line) for line in lines[1:end] if line.strip()):
        return text  # a rule line and text, not settings: it stays policy text
    return "\n" * (end + 1) + "\n".join(lines[end + 1:])


def _pdf_lines(path: Path) -> list[Line]:
    from pypdf import PdfReader

    reader = PdfReader(str(path))
    if reader.is_encrypted:
        try:
            reader.decrypt("")
        except Exception as exc:
            raise DataFileError(f"{path.name} is password-protected.", hint="Save an unprotected copy.") from exc
    if len(reader.pages) > MAX_PAGES:
        raise DataFileError(f"{path.name} is skipped: it has {len(reader.pages)} pages (at most {MAX_PAGES}).",
                            hint="Split it into documents of a sensible size.")
    lines: list[Line] = []
    for number, page in enumerate(reader.pages, start=1):
        lines += _text_lines(page.extract_text() or "", page=number)
    if not lines:
        raise DataFileError(f"{path.name} has no text layer (it is probably a scan).",
                            hint="Export the document as text-based PDF or DOCX.")
    return lines


#: Budgets checked before a document is parsed: a policy file is text, not a test of the parser.
MAX_TEXT_BYTES = 20 * 1024 * 1024
MAX_UNPACKED_BYTES = 50 * 1024 * 1024  # a DOCX unpacked (its XML); real handbooks are a few MB
MAX_PACK_RATIO = 200  # uncompressed / compressed of one entry; XML compresses ~10x, a bomb 1000x
MAX_PAGES = 2000


def _check_docx(path: Path) -> None:
    import zipfile

    try:
        with zipfile.ZipFile(path) as z:
            entries = z.infolist()
    except zipfile.BadZipFile as exc:
        raise DataFileError(f"{path.name} cannot be read: it looks damaged (not a valid DOCX: {exc}).",
                            hint="Open and save it again in a word processor.") from None
    total = sum(e.file_size for e in entries)
    worst = max((e.file_size / max(e.compress_size, 1) for e in entries), default=0)
    if total > MAX_UNPACKED_BYTES or worst > MAX_PACK_RATIO:
        raise DataFileError(f"{path.name} is skipped: it unpacks to {total / 1024**2:.0f} MB "
                            f"(up to {worst:.0f} times its packed size), more than a policy document holds.",
                            hint="Check where the file comes from; save the policy text again as a new DOCX or PDF.")


def _docx_lines(path: Path) -> list[Line]:
    import docx

    _check_docx(path)
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    document = docx.Document(str(path))
    lines: list[Line] = []
    number = 0
    # Paragraphs and tables in document order: a notice-period table belongs under its heading.
    for child in document.element.body.iterchildren():
        tag = child.tag.rsplit("}", 1)[-1]
        if tag == "tbl":
            for row_text in _docx_table_rows(Table(child, document)):
                number += 1
                lines.append(Line(_clean(row_text), number))
            continue
        if tag != "p":
            continue
        para = Paragraph(child, document)
        text = para.text.strip()
        if not text:
            continue
        number += 1
        style = (para.style.name or "").lower() if para.style is not None else ""
        m = re.match(r"heading (\d)", style)
        if m:
            text = "#" * int(m.group(1)) + " " + text
        elif style == "title":
            text = "# " + text
        lines.append(Line(_clean(text), number))
    return lines


def _docx_table_rows(table) -> list[str]:
    """A Word table as Markdown table rows (its first row the header), so its rows are read like a
    Markdown handbook's: one row a unit the pipelines can pick (a notice period by years of service).
    A merged cell stands in every column and row it spans, so each row reads whole and in line."""
    rows: list[list[str]] = []
    for row in table.rows:
        cells = [" ".join(cell.text.split()).replace("|", "/") for cell in row.cells]
        if any(cells):
            rows.append(cells)
    if not rows:
        return []
    width = max(len(r) for r in rows)
    out = ["| " + " | ".join(r + [""] * (width - len(r))) + " |" for r in rows]
    if len(rows) > 1:
        out.insert(1, "| " + " | ".join(["---"] * width) + " |")
    return out


def load_lines(path: Path) -> list[Line]:
    """The document's non-empty lines; raises DataFileError with a reason if it cannot be read."""
    suffix = path.suffix.lower()
    if suffix not in SUPPORTED:
        raise DataFileError(f"{path.name}: {suffix or 'files without an extension'} are not supported.",
                            hint="Use .txt, .md, .pdf or .docx.")
    try:
        if suffix == ".pdf":
            lines = _pdf_lines(path)
        elif suffix == ".docx":
            lines = _docx_lines(path)
        else:
            if path.stat().st_size > MAX_TEXT_BYTES:
                raise DataFileError(f"{path.name} is skipped: {path.stat().st_size / 1024**2:.0f} MB is more text "
                                    f"than a policy document holds (at most {MAX_TEXT_BYTES // 1024**2} MB).",
                                    hint="Split it, or check that the right file was added.")
            raw = path.read_bytes()
            if b"\x00" in raw[:2048] and not raw.startswith((b"\xff\xfe", b"\xfe\xff")):
                raise DataFileError(f"{path.name} is not a text file.", hint="Save it as UTF-8 text or Markdown.")
            text = decode_text(raw)
            lines = _text_lines(_plain_markdown(_without_front_matter(text)) if suffix in (".md", ".markdown")
                                else text)
    except DataFileError:
        raise
    except OSError as exc:
        raise DataFileError(f"{path.name} cannot be read: {exc.strerror or exc}.",
                            hint="Check that the file exists and your account may read it.") from exc
    except Exception as exc:  # a damaged PDF or DOCX: the library's own error
        raise DataFileError(f"{path.name} cannot be read: it looks damaged ({type(exc).__name__}).",
                            hint="Open and save it again, or export it as PDF/DOCX again.") from exc
    if not lines:
        raise DataFileError(f"{path.name} contains no text.", hint="Check that the right file was added.")
    return lines


def policy_files(root: Path) -> list[Path]:
    """Every supported document under ``root`` (a file or a folder), in a stable order."""
    root = Path(root).expanduser()
    if root.is_file():
        return [root]
    if not root.is_dir():
        raise DataFileError(f"The policy folder {root} does not exist.",
                            hint="Choose the policy folder in Settings or pass --policies PATH.")
    return sorted(p for p in root.rglob("*") if p.is_file() and p.suffix.lower() in SUPPORTED
                  and not any(part.startswith(".") for part in p.relative_to(root).parts))
