"""The conversation as message cards: Markdown (tables, lists), citation chips, marked numbers, copy.

Each message is a :class:`MessageCard`. An answer's numbers are marked by where they came from:
a figure a tool returned is tinted, and hovering it names the tool and the line of its result; a
figure the engine could not ground is underlined in red with a warning. ``[1]`` in the text and the
chips under it open the cited passage. The window keeps the messages; this view only shows them
and reports clicks (``trace_requested``, ``citation_requested``) by the message's index.
"""

from __future__ import annotations

import html
import re

from PySide6.QtCore import QCoreApplication, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPalette, QTextCharFormat, QTextCursor, QTextDocument
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QLayout,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QTextBrowser,
    QTextEdit,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from engine.agent.grounding import number_spans, where_from
from engine.tools.catalog import label as tool_label

#: How a tool is named where a number's origin is shown.
_CITATION = re.compile(r"\[(\d{1,2})\]")


def number_origins(message: dict, earlier: list[dict]) -> dict[str, list[tuple[str, str]]]:
    """For each number of an answer (normalised): where it came from, as ``(label, excerpt)``.

    A calculation's own number is its result (its operands came from elsewhere, and are found
    there); tools come before the question and the rest of the chat, as a figure the person typed
    is theirs, not the assistant's."""
    trace = message.get("trace") or {}
    sources: list[tuple[str, str]] = []
    for s in trace.get("steps") or []:
        if not (s.get("action") and s.get("ok", True) and s.get("observation")):
            continue
        if s["action"] == "calculator":
            sources.insert(0, (f"From the calculator ({s['observation'].strip()[:120]})",
                               s["observation"].rpartition("=")[2]))
        else:
            sources.append((f"From {tool_label(s['action'])}", s["observation"]))
    question = next((m["content"] for m in reversed(earlier) if m["role"] == "user"), "")
    sources.append(("From your question", question))
    sources += [("Earlier in this chat", m["content"]) for m in earlier[:-1] if m.get("content")]
    out: dict[str, list[tuple[str, str]]] = {}
    for _, _, number in number_spans(message.get("content") or ""):
        if number not in out:
            out[number] = where_from(number, sources)
    return out


class FlowLayout(QLayout):
    """Lays its items out left to right and wraps them, like words (the citation chips)."""

    def __init__(self, parent: QWidget | None = None, spacing: int = 6) -> None:
        super().__init__(parent)
        self._items = []
        self.setContentsMargins(0, 0, 0, 0)
        self.setSpacing(spacing)

    def addItem(self, item) -> None:  # noqa: N802 - Qt API
        self._items.append(item)

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):  # noqa: N802 - Qt API
        return self._items[index] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):  # noqa: N802 - Qt API
        return self._items.pop(index) if 0 <= index < len(self._items) else None

    def expandingDirections(self):  # noqa: N802 - Qt API
        return Qt.Orientation(0)

    def hasHeightForWidth(self) -> bool:  # noqa: N802 - Qt API
        return True

    def heightForWidth(self, width: int) -> int:  # noqa: N802 - Qt API
        return self._arrange(QRect(0, 0, width, 0), move=False)

    def setGeometry(self, rect: QRect) -> None:  # noqa: N802 - Qt API
        super().setGeometry(rect)
        self._arrange(rect, move=True)

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return self.minimumSize()

    def minimumSize(self) -> QSize:  # noqa: N802 - Qt API
        size = QSize()
        for item in self._items:
            size = size.expandedTo(item.minimumSize())
        return size

    def _arrange(self, rect: QRect, move: bool) -> int:
        x, y, row = rect.x(), rect.y(), 0
        for item in self._items:
            hint = item.sizeHint()
            # An item wider than the row gets the row (a chip elides its text): nothing sticks out.
            hint = QSize(max(min(hint.width(), rect.width()), item.minimumSize().width()), hint.height())
            if x + hint.width() > rect.right() and row > 0:
                x, y, row = rect.x(), y + row + self.spacing(), 0
            if move:
                item.setGeometry(QRect(QPoint(x, y), hint))
            x += hint.width() + self.spacing()
            row = max(row, hint.height())
        return y + row - rect.y()


class Chip(QPushButton):
    """A source chip: its whole name where it fits, elided in the middle where it does not (the
    tooltip has it all), so a row of chips wraps and never widens the card."""

    MIN_WIDTH = 80

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full_text = text
        self.setObjectName("chip")
        # Preferred, not a button's Minimum: a layout may then make it narrower than its whole name.
        self.setSizePolicy(QSizePolicy.Preferred, QSizePolicy.Fixed)
        self._show(text)

    def _show(self, text: str) -> None:
        self.setText(text.replace("&", "&&"))  # a lone & would make a keyboard shortcut

    def _padding(self) -> int:
        # The button's frame and margins around its text, as the style sizes them now.
        return QPushButton.sizeHint(self).width() - self.fontMetrics().horizontalAdvance(self.text().replace("&&", "&"))

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt API
        width = self.fontMetrics().horizontalAdvance(self.full_text) + self._padding()
        return QSize(width, QPushButton.sizeHint(self).height())

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt API
        return QSize(self.MIN_WIDTH, QPushButton.minimumSizeHint(self).height())

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        room = self.width() - self._padding()
        metrics = self.fontMetrics()
        shown = self.full_text if metrics.horizontalAdvance(self.full_text) <= room else \
            metrics.elidedText(self.full_text, Qt.ElideMiddle, max(room, 12))
        if shown.replace("&", "&&") != self.text():
            self._show(shown)


class MessageBody(QTextBrowser):
    """Rich text that is as tall as its content: the scroll area around the cards scrolls, not it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setFrameShape(QFrame.NoFrame)
        self.setOpenLinks(False)
        # Reached by a click, not by Tab: hiding a card would otherwise pass the focus on, and the
        # scroll area would scroll to the card that got it.
        self.setFocusPolicy(Qt.ClickFocus)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAsNeeded)  # a wide table scrolls sideways
        self.setSizePolicy(QSizePolicy.Expanding, QSizePolicy.Fixed)
        self.viewport().setAutoFillBackground(False)
        self.setStyleSheet("QTextBrowser { background: transparent; }")
        self.document().setDocumentMargin(2)
        self.document().documentLayout().documentSizeChanged.connect(lambda _: self.fit())

    def fit(self) -> None:
        height = int(self.document().size().height()) + 2
        if self.horizontalScrollBar().isVisible():
            height += self.horizontalScrollBar().height()
        if height != self.height():
            self.setFixedHeight(height)

    def resizeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().resizeEvent(event)
        self.fit()

    def wheelEvent(self, event) -> None:  # noqa: N802 - Qt API
        # The conversation scrolls, not the card under the pointer (a wide table still scrolls sideways).
        if event.angleDelta().x() and self.horizontalScrollBar().isVisible():
            super().wheelEvent(event)
            return
        area = self.parentWidget()
        while area is not None and not isinstance(area, QScrollArea):
            area = area.parentWidget()
        if area is not None:
            QCoreApplication.sendEvent(area.verticalScrollBar(), event)
        else:
            event.ignore()


class MessageCard(QFrame):
    """One message: who, the text as Markdown, its sources as chips, and for an answer its footer."""

    def __init__(self, view: ConversationView, index: int) -> None:
        super().__init__()
        self.view, self.index = view, index
        self.message: dict = {}
        self.setFrameShape(QFrame.NoFrame)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(12, 8, 12, 8)
        layout.setSpacing(4)
        head = QHBoxLayout()
        self.who = QLabel()
        self.who.setTextFormat(Qt.RichText)
        head.addWidget(self.who)
        head.addStretch(1)
        self.copy_button = QToolButton()
        self.copy_button.setText("Copy")
        self.copy_button.setAutoRaise(True)
        self.copy_button.setToolTip("Copy this message")
        self.copy_button.setAccessibleName("Copy this message")
        self.copy_button.clicked.connect(self.copy)
        head.addWidget(self.copy_button)
        layout.addLayout(head)
        self.body = MessageBody()
        self.body.setAccessibleName("Message text")
        self.body.anchorClicked.connect(self._on_anchor)
        layout.addWidget(self.body)
        self.warning = QLabel()
        self.warning.setWordWrap(True)
        self.warning.hide()
        layout.addWidget(self.warning)
        self.chips_box = QWidget()
        self.chips = FlowLayout(self.chips_box)
        self.chips_box.hide()
        layout.addWidget(self.chips_box)
        self.footer = QLabel()
        self.footer.setTextFormat(Qt.RichText)
        self.footer.setAccessibleName("How I got this")
        self.footer.linkActivated.connect(lambda _: self.view.trace_requested.emit(self.index))
        self.footer.hide()
        layout.addWidget(self.footer)
        #: Normalised number -> its origins, as last marked (tests and hover read it).
        self.origins: dict[str, list[tuple[str, str]]] = {}

    # -- filling -----------------------------------------------------------------------------------
    def show_message(self, message: dict, earlier: list[dict], live_text: str = "") -> None:
        self.message = message
        user = message["role"] == "user"
        if self.objectName() != ("userCard" if user else "assistantCard"):
            self.setObjectName("userCard" if user else "assistantCard")
            self.setAccessibleName("Your question" if user else "Answer")
            self.who.setText("<b>You</b>" if user else "<b>HR assistant</b>")
            self.style().unpolish(self)  # the style sheet picks the card's look by its name
            self.style().polish(self)
        content = message.get("content") or ""
        streaming = bool(message.get("streaming"))
        self.copy_button.setVisible(bool(content) and not streaming)
        # Raw HTML in a message (a question, or a model echoing a document) is shown as text, never run
        # as markup: it could fake a link, a chip or a mark.
        self.body.document().setMarkdown(live_text + (f"\n\n{content}" if content and live_text else content),
                                         QTextDocument.MarkdownDialectGitHub | QTextDocument.MarkdownNoHTML)
        trace = message.get("trace") or {}
        citations = trace.get("citations") or []
        self.origins = {}
        if not user and not streaming:
            self._mark(trace, citations, earlier)
        self._show_warning(trace.get("ungrounded") or [])
        self._show_chips(citations)
        self._show_footer(trace if not streaming else {})
        self.body.fit()

    def _mark(self, trace: dict, citations: list[dict], earlier: list[dict]) -> None:
        """Tint the numbers that came from a tool, underline the ungrounded ones, link ``[k]``."""
        self.origins = number_origins(self.message, earlier)
        ungrounded = set(trace.get("ungrounded") or [])
        doc = self.body.document()
        text = doc.toRawText()
        palette = self.palette()
        dark = palette.color(QPalette.Window).lightness() < 128
        tint = QColor(palette.color(QPalette.Highlight))
        tint.setAlpha(70 if dark else 45)
        for start, end, number in number_spans(text):
            fmt = QTextCharFormat()
            origins = self.origins.get(number) or []
            if number in ungrounded:
                fmt.setUnderlineStyle(QTextCharFormat.WaveUnderline)
                fmt.setUnderlineColor(QColor("#ff6b6b" if dark else "#c62828"))
                fmt.setToolTip(_tip("No looked-up data, policy or calculation contains this number: check it."))
            elif origins and any(not label.startswith(("From your", "Earlier")) for label, _ in origins):
                fmt.setBackground(tint)
                fmt.setToolTip(_tip(_origin_text(origins)))
            elif origins:
                fmt.setToolTip(_tip(_origin_text(origins)))
            else:
                continue
            self._format(start, end, fmt)
        numbers = {c.get("n"): k for k, c in enumerate(citations)}
        for m in _CITATION.finditer(text):
            k = numbers.get(int(m.group(1)))
            if k is None:
                continue
            fmt = QTextCharFormat()
            fmt.setAnchor(True)
            fmt.setAnchorHref(f"cite:{self.index}:{k}")
            fmt.setForeground(palette.color(QPalette.Link))
            fmt.setToolTip(_tip(_chip_tooltip(citations[k])))
            self._format(m.start(), m.end(), fmt)

    def _format(self, start: int, end: int, fmt: QTextCharFormat) -> None:
        cursor = QTextCursor(self.body.document())
        cursor.setPosition(start)
        cursor.setPosition(end, QTextCursor.KeepAnchor)
        cursor.mergeCharFormat(fmt)

    def _show_warning(self, ungrounded: list[str]) -> None:
        self.warning.setVisible(bool(ungrounded))
        if ungrounded:
            self.warning.setText("⚠ Check these numbers — no looked-up data or policy contains them: "
                                 + ", ".join(ungrounded))

    def _show_chips(self, citations: list[dict]) -> None:
        while self.chips.count():
            item = self.chips.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        if citations:
            label = QLabel("Sources:")
            self.chips.addWidget(label)
        for k, c in enumerate(citations):
            section = c["section"].split(" › ")[-1] if c.get("section") else ""
            label = f"[{c.get('n', k + 1)}] {c.get('source', '')}" + (f" › {section}" if section else "")
            chip = Chip(label)
            chip.setCursor(Qt.PointingHandCursor)
            chip.setToolTip(_tip(_chip_tooltip(c, title=label)))  # the whole name, however the chip elides it
            chip.setAccessibleName(f"Open source {c.get('n', k + 1)}: {c.get('source', '')}")
            chip.clicked.connect(lambda _=False, k=k: self.view.citation_requested.emit(self.index, k))
            self.chips.addWidget(chip)
        self.chips_box.setVisible(bool(citations))

    def _show_footer(self, trace: dict) -> None:
        steps = trace.get("steps") or []
        self.footer.setVisible(bool(steps))
        if steps:
            tools = sum(1 for s in steps if s.get("action"))
            calls = trace.get("llm_calls", 0)
            self.footer.setText(f"<a href='trace:{self.index}'>How I got this</a> · {tools} tool "
                                f"step{'s' if tools != 1 else ''} · {calls} model call{'s' if calls != 1 else ''}"
                                f" · {trace.get('seconds') or 0:.1f} s")

    # -- acting ------------------------------------------------------------------------------------
    def _on_anchor(self, url) -> None:
        parts = url.path().split(":")
        if url.scheme() == "cite" and len(parts) == 2 and parts[1].isdigit():
            self.view.citation_requested.emit(self.index, int(parts[1]))

    def copy(self) -> None:
        """The message as plain text, formatted text (HTML) and Markdown, without the marks of the card.

        Qt makes the clipboard's data itself, from a clean copy of the message: clipboard data
        made in Python crashes the interpreter when it exits (PySide6 6.12, seen offscreen)."""
        clean = QTextEdit()
        clean.document().setMarkdown(self.message.get("content") or "",
                                     QTextDocument.MarkdownDialectGitHub | QTextDocument.MarkdownNoHTML)
        clean.selectAll()
        clean.copy()
        clean.deleteLater()

    def plain_text(self) -> str:
        parts = [self.who.text().replace("<b>", "").replace("</b>", ""), self.body.toPlainText()]
        if self.warning.isVisibleTo(self):
            parts.append(self.warning.text())
        if self.chips_box.isVisibleTo(self):
            parts.append(" ".join(getattr(w, "full_text", w.text()) for w in
                                  (self.chips.itemAt(i).widget() for i in range(self.chips.count()))))
        if self.footer.isVisibleTo(self):
            parts.append(re.sub(r"<[^>]+>", "", self.footer.text()))
        return "\n".join(parts)


def _tip(text: str) -> str:
    """A tooltip that shows ``text`` as it is: Qt would take text with a tag in it for HTML."""
    return f"<p style='white-space:pre-wrap'>{html.escape(text)}</p>"


def _origin_text(origins: list[tuple[str, str]]) -> str:
    """The hover text of a number: each place it came from, the calculator's result as it is."""
    return "\n".join(label if label.startswith("From the calculator") else f"{label}: {excerpt}"
                     for label, excerpt in origins)


#: Said of a passage the policy search withheld from the model (it addresses an AI assistant).
WITHHELD_NOTE = "Not shown to the assistant: this passage gives instructions to an AI assistant. Please tell HR."


def _chip_tooltip(citation: dict, title: str = "") -> str:
    text = " ".join((citation.get("text") or "").split())
    # (the warning first, before anything else the tooltip says)
    warning = (WITHHELD_NOTE + "\n\n" if citation.get("withheld") else "") + (f"{title}\n" if title else "")
    more = "…" if len(text) > 240 else ""
    return f"{warning}{citation.get('section', '')}\n{citation.get('location', '')}\n\n{text[:240]}{more}"


class ConversationView(QScrollArea):
    """The chat as a column of cards; only a card whose message changed is redrawn."""

    trace_requested = Signal(int)  # the message's index: show how that answer was made
    starter_chosen = Signal(str)  # a starter question was clicked: ask it
    citation_requested = Signal(int, int)  # the message's index, the citation's index: open the passage

    STYLE = """
    QFrame#userCard { background: palette(alternate-base); border-radius: 10px; margin-left: 48px; }
    QFrame#assistantCard { background: palette(base); border: 1px solid palette(mid); border-radius: 10px;
                           margin-right: 24px; }
    QPushButton#chip { border: 1px solid palette(mid); border-radius: 10px; padding: 2px 10px;
                       background: palette(button); text-align: left; }
    QPushButton#chip:hover, QPushButton#starter:hover { border-color: palette(highlight); }
    QPushButton#starter { border: 1px solid palette(mid); border-radius: 12px; padding: 4px 12px;
                          background: palette(base); text-align: left; }
    """

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QFrame.NoFrame)
        # The cards fit the pane: they wrap and elide, and only a wide table scrolls, inside its card.
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarAlwaysOff)
        self.setAccessibleName("Conversation")
        inner = QWidget()
        inner.setStyleSheet(self.STYLE)
        self._layout = QVBoxLayout(inner)
        self._layout.setSpacing(10)
        # An empty chat: what to do, and questions to try for the person's role (a click asks one).
        self._placeholder = QWidget()
        empty = QVBoxLayout(self._placeholder)
        empty.setContentsMargins(0, 0, 0, 0)
        self._hint = QLabel("<i>Ask a question to start.</i>")
        self._hint.setWordWrap(True)
        empty.addWidget(self._hint)
        self._starter_box = QWidget()
        self._starter_box.setAccessibleName("Questions to try")
        self._starters = FlowLayout(self._starter_box)
        empty.addWidget(self._starter_box)
        self._starter_box.hide()
        self._layout.addWidget(self._placeholder)
        self._layout.addStretch(1)
        self.setWidget(inner)
        self._cards: dict[int, MessageCard] = {}  # by the message's index; drawn newest first
        self._shown: dict[int, tuple] = {}
        self._pending: tuple[list[dict], object] | None = None
        self.verticalScrollBar().rangeChanged.connect(self._follow)
        self._at_bottom = True
        self.verticalScrollBar().valueChanged.connect(
            lambda v: setattr(self, "_at_bottom", v >= self.verticalScrollBar().maximum() - 8))

    #: Cards drawn per pass. Opening a long chat draws the newest this many at once and the older
    #: ones in later passes of the event loop, so the window answers clicks meanwhile.
    BATCH = 12

    @property
    def cards(self) -> list[MessageCard]:
        """The cards drawn so far, in the order of the messages."""
        return [self._cards[i] for i in sorted(self._cards)]

    def show_messages(self, messages: list[dict], live_text=None) -> None:
        """Show ``messages``; ``live_text(message)`` gives the progress shown above a streaming answer."""
        follow = self._at_bottom
        for i in [i for i in self._cards if i >= len(messages)]:
            card = self._cards.pop(i)
            self._shown.pop(i, None)
            card.setParent(None)
            card.deleteLater()
        self._placeholder.setVisible(not messages)
        self._pending = None
        try:
            self._draw(messages, live_text)
        finally:
            if follow:  # what hiding and drawing cards moved, the newest message stays in view
                self.scroll_to_end()

    def _draw(self, messages: list[dict], live_text) -> None:
        for i, card in self._cards.items():
            # A card still showing another message (the chat before) waits hidden for its turn, so no
            # click on it can reach a message it does not show.
            if self._shown.get(i) is not None and self._shown[i][0] != id(messages[i]):
                card.hide()
                self._shown[i] = None
        drawn = 0
        for i in range(len(messages) - 1, -1, -1):
            message = messages[i]
            live = live_text(message) if live_text and message.get("streaming") else ""
            key = (id(message), message.get("content"), live, id(message.get("trace")), bool(message.get("streaming")))
            if self._shown.get(i) == key:
                continue
            if drawn == self.BATCH:
                self._pending = (messages, live_text)
                QTimer.singleShot(0, self._continue)
                return
            if i not in self._cards:
                card = self._cards[i] = MessageCard(self, i)
                before = sum(1 for j in self._cards if j < i)
                self._layout.insertWidget(1 + before, card)  # after the placeholder, in message order
            self._cards[i].show_message(message, messages[:i], live)
            self._cards[i].show()
            self._shown[i] = key
            drawn += 1

    def _continue(self) -> None:
        if self._pending is not None:
            self.show_messages(*self._pending)

    def redraw(self) -> None:
        """Draw every card again (the colours changed): its style sheet and its marks."""
        self._shown = {}
        for card in self._cards.values():
            card.setObjectName("")  # show_message polishes it again under its name

    def scroll_to_end(self) -> None:
        """Follow the newest message again (a new question, another chat)."""
        self._at_bottom = True
        self.verticalScrollBar().setValue(self.verticalScrollBar().maximum())

    def _follow(self, _minimum: int, maximum: int) -> None:
        # New text keeps the view at the bottom unless the person scrolled up to read.
        if self._at_bottom:
            self.verticalScrollBar().setValue(maximum)

    def set_starters(self, questions: list[str]) -> None:
        """The questions an empty chat offers, as chips that ask one when clicked."""
        while self._starters.count():
            item = self._starters.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        for question in questions:
            chip = Chip(question)
            chip.setObjectName("starter")
            chip.setCursor(Qt.PointingHandCursor)
            chip.setToolTip(_tip(question))
            chip.setAccessibleName(f"Ask: {question}")
            chip.clicked.connect(lambda _=False, q=question: self.starter_chosen.emit(q))
            self._starters.addWidget(chip)
        self._starter_box.setVisible(bool(questions))
        self._hint.setText("<i>Ask a question to start" + (", or try one of these:</i>" if questions else ".</i>"))

    @property
    def starters(self) -> list[str]:
        """The starter questions offered now (tests read them)."""
        return [self._starters.itemAt(i).widget().full_text for i in range(self._starters.count())]

    def toPlainText(self) -> str:  # noqa: N802 - the name QTextEdit gives it
        if not self.cards:
            return "\n".join([self._hint.text().replace("<i>", "").replace("</i>", ""), *self.starters])
        return "\n\n".join(card.plain_text() for card in self.cards)
