"""Small widgets: the passage viewer and the sign-in dialog."""

from __future__ import annotations

import html

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)


class PassageDialog(QDialog):
    """A cited passage in its place: the whole document's passages in order, the cited one
    highlighted and scrolled into view (just the passage when the document is not at hand)."""

    def __init__(self, citation: dict, document: list[dict] | None = None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"[{citation.get('n', '')}] {citation.get('source', '')}")
        self.resize(680, 520)
        layout = QVBoxLayout(self)
        heading = QLabel(f"<b>{html.escape(citation.get('section') or '')}</b><br>"
                         f"{html.escape(citation.get('source') or '')}, {html.escape(citation.get('location') or '')}")
        heading.setWordWrap(True)
        heading.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(heading)
        self.body = QTextBrowser()
        self.body.setAccessibleName("Passage text")
        layout.addWidget(self.body)
        passages = document or [citation]
        self.cited = next((i for i, p in enumerate(passages) if _same_place(p, citation)), None)
        if self.cited is None:  # the document changed since the answer: show what was cited, first
            passages, self.cited = [citation, *passages], 0
        mark = self.palette().color(QPalette.Highlight)
        mark.setAlpha(60)
        parts = []
        for i, p in enumerate(passages):
            style = f" style='background-color:{mark.name(QColor.HexArgb)}'" if i == self.cited else ""
            anchor = "<a name='cited'></a>" if i == self.cited else ""
            section = p["section"].split(" › ")[-1] if p.get("section") else ""
            parts.append(f"{anchor}<table width='100%' cellpadding='6'{style}><tr><td>"
                         f"<small>{html.escape(p.get('location') or '')}</small>"
                         + (f"<br><b>{html.escape(section)}</b>" if section else "")
                         + f"<p style='white-space:pre-wrap'>{html.escape(p.get('text') or '')}</p></td></tr></table>")
        self.body.setHtml("".join(parts))
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def showEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().showEvent(event)
        self.body.scrollToAnchor("cited")


def _same_place(passage: dict, citation: dict) -> bool:
    return (passage.get("line_start") == citation.get("line_start") and passage.get("page") == citation.get("page")
            and passage.get("text") == citation.get("text"))


class SignInDialog(QDialog):
    """Pick who you are from the employee data (searchable)."""

    def __init__(self, names: list[str], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Sign in")
        self.resize(380, 480)
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Who are you? The assistant shows your own data and, for managers and HR, "
                                "the data your role allows."))
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Type to search your name…")
        self.filter.setAccessibleName("Search employees")
        layout.addWidget(self.filter)
        self.list = QListWidget()
        self.list.setAccessibleName("Employees")
        self.list.addItems(names)
        layout.addWidget(self.list)
        self.buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        self.buttons.accepted.connect(self._accept)
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        self.filter.textChanged.connect(self._filter)
        self.list.itemDoubleClicked.connect(lambda _: self._accept())
        self.chosen = ""

    def _filter(self, text: str) -> None:
        key = text.casefold()
        first = None
        for i in range(self.list.count()):
            item = self.list.item(i)
            hidden = key not in item.text().casefold()
            item.setHidden(hidden)
            if not hidden and first is None:
                first = item
        if first is not None:
            self.list.setCurrentItem(first)

    def _accept(self) -> None:
        item = self.list.currentItem()
        if item is not None and not item.isHidden():
            self.chosen = item.text()
            self.accept()
