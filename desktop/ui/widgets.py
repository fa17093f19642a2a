"""Small widgets: a bar chart for grouped results, the passage viewer, the sign-in dialog."""

from __future__ import annotations

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QPainter, QPalette
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


class BarChart(QWidget):
    """Horizontal bars for (label, value) pairs: pay by department, leave by team."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setAccessibleName("Chart of the grouped result")
        self.setMinimumHeight(160)
        self.title = ""
        self.bars: list[tuple[str, float]] = []

    def set_data(self, title: str, bars: list[tuple[str, float]]) -> None:
        self.title, self.bars = title, bars[:20]
        self.setMinimumHeight(40 + 22 * len(self.bars))
        self.update()

    def paintEvent(self, event) -> None:  # noqa: N802 - Qt API
        if not self.bars:
            return
        p = QPainter(self)
        p.setRenderHint(QPainter.Antialiasing)
        pal = self.palette()
        text = pal.color(QPalette.WindowText)
        bar = pal.color(QPalette.Highlight)
        fm = p.fontMetrics()
        label_w = min(max(fm.horizontalAdvance(label) for label, _ in self.bars) + 10, self.width() // 2)
        top = 24
        p.setPen(text)
        p.drawText(4, 16, self.title)
        peak = max((abs(v) for _, v in self.bars), default=1) or 1
        avail = max(self.width() - label_w - 90, 20)
        for i, (label, value) in enumerate(self.bars):
            y = top + i * 22
            p.setPen(text)
            p.drawText(QRectF(4, y, label_w - 8, 18), Qt.AlignRight | Qt.AlignVCenter,
                       fm.elidedText(label, Qt.ElideRight, label_w - 8))
            w = avail * abs(value) / peak
            p.fillRect(QRectF(label_w, y + 2, w, 14), QColor(bar))
            p.drawText(QRectF(label_w + w + 6, y, 84, 18), Qt.AlignLeft | Qt.AlignVCenter, f"{value:,.2f}".rstrip("0").rstrip("."))
        p.end()


class PassageDialog(QDialog):
    """A cited policy passage with its heading path and location."""

    def __init__(self, citation: dict, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"[{citation.get('n', '')}] {citation['source']}")
        self.resize(620, 420)
        layout = QVBoxLayout(self)
        heading = QLabel(f"<b>{citation['section']}</b><br>{citation['source']}, {citation['location']}")
        heading.setWordWrap(True)
        heading.setTextInteractionFlags(Qt.TextSelectableByMouse)
        layout.addWidget(heading)
        body = QTextBrowser()
        body.setAccessibleName("Passage text")
        body.setPlainText(citation["text"])
        layout.addWidget(body)
        buttons = QDialogButtonBox(QDialogButtonBox.Close)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)


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
