"""The conversation's message cards, the passage viewer, every turn's trace and the Data tab (offscreen Qt)."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt, QUrl  # noqa: E402
from PySide6.QtGui import QGuiApplication, QTextCharFormat, QTextCursor  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from desktop.history import ChatStore  # noqa: E402
from desktop.ui.conversation import ConversationView, MessageCard  # noqa: E402
from desktop.ui.data_view import DataView  # noqa: E402
from desktop.ui.widgets import PassageDialog  # noqa: E402
from engine.model.scripted import ScriptedBackend  # noqa: E402
from tests.test_desktop import SCRIPT, _warm_embedder, make_window, wait_ready  # noqa: E402, F401

QUESTION = "Can I cash out unused vacation leave, and how much would I get for 10 days?"


@pytest.fixture
def view(qtbot) -> ConversationView:
    """A conversation on screen, small enough to scroll."""
    shown = ConversationView()
    qtbot.addWidget(shown)
    shown.resize(600, 400)
    shown.show()
    return shown


def tip(fmt: QTextCharFormat) -> str:
    """A tooltip as the person reads it (tooltips are escaped HTML, so tags in a source stay text)."""
    return html.unescape(re.sub(r"<[^>]+>", "", fmt.toolTip()))


def format_at(card: MessageCard, text: str) -> QTextCharFormat:
    """The character format inside the first occurrence of ``text`` in the card's body."""
    doc = card.body.document()
    cursor = QTextCursor(doc)
    cursor.setPosition(doc.toRawText().index(text) + 1)
    return cursor.charFormat()


def test_an_answer_card_shows_where_each_number_came_from_and_opens_its_sources(qtbot, monkeypatch):
    opened = []
    monkeypatch.setattr("desktop.ui.main_window.PassageDialog.exec",
                        lambda self: opened.append((self.windowTitle(), self.cited, self.body.toPlainText())))
    window = make_window(qtbot, ScriptedBackend(list(SCRIPT)))
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: "leave-policy.md" in window.passages, timeout=20000)
    window.send(QUESTION)
    qtbot.waitUntil(lambda: not window.busy, timeout=20000)
    question, card = window.transcript.cards
    assert card.accessibleName() == "Answer" and question.accessibleName() == "Your question"
    # a figure the calculator gave, one the employee data gave, one the policy gave: each says where from
    result = format_at(card, "1,769.23")
    assert tip(result).startswith("From the calculator (round(46000 / 260 * 10, 2) = 1769.23)")
    assert result.background().style() != Qt.NoBrush
    assert tip(format_at(card, "46,000")).startswith("From the employee data")
    assert "From the policies: " in tip(format_at(card, "260"))
    assert "divided by 260 working days" in tip(format_at(card, "260"))
    assert format_at(card, "once a year").toolTip() == ""  # words are words
    assert format_at(card, "[1]").anchorHref() == "cite:1:0" and "Encashment" in tip(format_at(card, "[1]"))
    assert not card.warning.isVisible()
    # the sources are chips; a chip and the inline [1] open the passage in its place in the whole document
    chips = [b for b in card.chips_box.findChildren(QPushButton)]
    assert len(chips) == 4 and chips[0].text().startswith("[1] leave-policy.md › 1.5 Encashment")
    qtbot.mouseClick(chips[0], Qt.LeftButton)
    title, cited, text = opened[0]
    assert title == "[1] leave-policy.md" and cited > 0
    assert "Entitlement and accrual" in text and "Encashment" in text  # its neighbours are there too
    card.body.anchorClicked.emit(QUrl("cite:1:0"))
    assert len(opened) == 2 and opened[1][1] == cited
    # each message copies on its own: as text, formatted and as Markdown, without the card's marks
    card.copy_button.click()
    mime = QGuiApplication.clipboard().mimeData()
    assert mime.text().startswith("Yes — once a year you can encash up to 10 days [1].") and "$1,769.23" in mime.text()
    assert "font-weight" in mime.html() and "background-color" not in mime.html()
    assert "**$1,769.23**" in bytes(mime.data("text/markdown")).decode()
    question.copy_button.click()
    assert QGuiApplication.clipboard().text() == QUESTION


def test_an_ungrounded_number_is_underlined_and_only_a_changed_card_is_drawn_again(view, qtbot, monkeypatch):
    trace = {"steps": [{"thought": "look", "action": "employee_data", "action_input": "df", "ok": True,
                        "observation": "| sick_days_remaining |\n| 12 |"}],
             "ungrounded": ["999"], "citations": [], "llm_calls": 2, "seconds": 3.25}
    messages = [{"role": "user", "content": "What are my sick days and bonus?"},
                {"role": "assistant", "content": "You have **12** sick days left. Your bonus is 999.\n\n"
                                                 "| kind | days |\n| --- | --- |\n| sick | 12 |", "trace": trace}]
    view.show_messages(messages)
    card = view.cards[1]
    made_up = format_at(card, "999")
    assert made_up.underlineStyle() == QTextCharFormat.WaveUnderline and "check it" in tip(made_up)
    assert tip(format_at(card, "12")) == "From the employee data: | 12 |"
    assert not card.warning.isHidden() and "999" in card.warning.text()
    assert card.body.document().rootFrame().childFrames()  # the Markdown table is a real table
    assert "How I got this · 1 tool step · 2 model calls · 3.2 s" in view.toPlainText()
    # streaming: only the growing card is drawn again
    drawn = []
    real = MessageCard.show_message
    monkeypatch.setattr(MessageCard, "show_message", lambda self, *a: (drawn.append(self.index), real(self, *a)))
    messages += [{"role": "user", "content": "And vacation?"},
                 {"role": "assistant", "content": "", "streaming": True}]
    view.show_messages(messages, lambda m: "*Working on it — 1 s*")
    assert drawn == [3, 2] and "Working on it" in view.cards[3].plain_text()
    messages[-1]["content"] = "You have"
    view.show_messages(messages, lambda m: "*Working on it — 2 s*")
    assert drawn == [3, 2, 3] and not view.cards[3].copy_button.isVisible()  # nothing to copy until it is done
    view.show_messages(messages[:2])
    assert len(view.cards) == 2


def test_the_passage_viewer_shows_the_cited_passage_in_its_document(qtbot):
    doc = [{"section": "A › 1 Intro", "text": "Welcome.", "location": "line 1", "line_start": 1, "line_end": 1,
            "page": None},
           {"section": "A › 2 Leave", "text": "Ten days of leave.", "location": "lines 3-4", "line_start": 3,
            "line_end": 4, "page": None},
           {"section": "A › 3 Pay", "text": "Paid monthly.", "location": "line 6", "line_start": 6, "line_end": 6,
            "page": None}]
    citation = {"n": 2, "source": "a.md", "section": "A › 2 Leave", "location": "lines 3-4", "line_start": 3,
                "line_end": 4, "page": None, "text": "Ten days of leave."}
    dialog = PassageDialog(citation, doc)
    qtbot.addWidget(dialog)
    assert dialog.cited == 1 and dialog.windowTitle() == "[2] a.md"
    text = dialog.body.toPlainText()
    assert text.index("Welcome.") < text.index("Ten days of leave.") < text.index("Paid monthly.")
    # edited since the answer: the passage as it was cited comes first, the document after it
    changed = PassageDialog(dict(citation, text="Twelve days of leave."), doc)
    qtbot.addWidget(changed)
    assert changed.cited == 0 and changed.body.toPlainText().index("Twelve") < changed.body.toPlainText().index("Welcome")
    alone = PassageDialog(citation)  # no index at hand: just the passage
    qtbot.addWidget(alone)
    assert alone.cited == 0 and "Welcome." not in alone.body.toPlainText()


def test_a_reopened_chat_shows_the_trace_of_every_turn(qtbot, tmp_path):
    store_path = tmp_path / "chats.sqlite3"
    backend = ScriptedBackend(["I search.\nAction: policy_search\nAction Input: sick leave\n",
                               "Found.\nFinal Answer: You get paid sick leave [1].",
                               "Hi.\nFinal Answer: Hello again."])
    window = make_window(qtbot, backend, store=ChatStore(store_path))
    wait_ready(qtbot, window)
    window.send("Do I get paid sick leave?")
    qtbot.waitUntil(lambda: not window.busy, timeout=20000)
    window.send("Hello")
    qtbot.waitUntil(lambda: not window.busy, timeout=20000)
    window.close()
    again = make_window(qtbot, ScriptedBackend([]), store=ChatStore(store_path))
    wait_ready(qtbot, again)
    qtbot.waitUntil(lambda: again.trace_tree.topLevelItemCount() == 2, timeout=5000)
    first, last = (again.trace_tree.topLevelItem(i) for i in range(2))
    assert (first.text(0), first.text(1)) == ("Question", "Do I get paid sick leave?") and last.text(1) == "Hello"
    assert last.isExpanded() and not first.isExpanded()
    assert again.sources.count() == 0  # the last answer cited nothing
    again.open_trace(1)  # "How I got this" of the first answer
    first = again.trace_tree.topLevelItem(0)
    assert first.isExpanded() and again.trace_tree.currentItem() is first
    details = [first.child(i).text(1) for i in range(first.childCount())]
    assert "policy_search: sick leave" in details
    assert again.sources.count() > 0 and again.side_tabs.currentWidget() is again.trace_tree


def test_a_grouped_result_is_charted_and_the_table_sorts_by_value(qtbot):
    view = DataView()
    qtbot.addWidget(view)
    view.show()
    view.show_result({"columns": ["department", "mean_salary"], "grouped": True,
                      "rows": [["Sales", 52000.0], ["IT", 61000.5], ["HR", 48000]]})
    assert view.chart.isVisible() and list(view.chart.item.opts["width"]) == [52000.0, 61000.5, 48000]
    ticks = view.chart.plot.getAxis("left")._tickLevels
    assert ticks == [[(0, "Sales"), (1, "IT"), (2, "HR")]]

    def column(c):
        model = view.table.model()
        return [model.data(model.index(r, c)) for r in range(model.rowCount())]

    assert column(0) == ["Sales", "IT", "HR"]  # the tool's order until a header is clicked
    assert column(1) == ["52,000", "61,000.5", "48,000"]
    view.table.sortByColumn(1, Qt.DescendingOrder)
    assert column(0) == ["IT", "Sales", "HR"]
    view.show_result({"columns": ["full_name", "ratio"], "rows": [["Ana", 2.5], ["Bo", None], ["Cy", float("inf")],
                                                                 ["Di", 1]]})
    assert not view.chart.isVisible() and view.table.model().rowCount() == 4
    assert column(1) == ["2.5", "", "inf", "1"]
    for order, names in ((Qt.AscendingOrder, ["Di", "Ana", "Cy", "Bo"]), (Qt.DescendingOrder, ["Cy", "Ana", "Di", "Bo"])):
        view.table.sortByColumn(1, order)
        assert column(0) == names  # the empty cell last either way


def test_the_wheel_over_a_card_scrolls_the_conversation(view, qtbot):
    from PySide6.QtCore import QPoint, QPointF
    from PySide6.QtGui import QWheelEvent

    view.show_messages([{"role": "user" if i % 2 == 0 else "assistant", "content": "line\n\n" * 5 + str(i)}
                        for i in range(20)])
    bar = view.verticalScrollBar()
    qtbot.waitUntil(lambda: bar.maximum() > 0, timeout=5000)
    bar.setValue(0)
    body = view.cards[1].body
    event = QWheelEvent(QPointF(10, 10), QPointF(body.mapToGlobal(QPoint(10, 10))), QPoint(0, 0), QPoint(0, -120),
                        Qt.NoButton, Qt.NoModifier, Qt.NoScrollPhase, False)
    QGuiApplication.sendEvent(body.viewport(), event)
    assert bar.value() > 0


def test_a_long_chat_draws_the_newest_cards_first_and_the_rest_without_blocking(view, qtbot):
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": f"message {i}"} for i in range(30)]
    view.show_messages(messages)
    assert [c.index for c in view.cards] == list(range(30 - view.BATCH, 30))  # the end of the chat at once
    qtbot.waitUntil(lambda: len(view.cards) == 30, timeout=5000)  # the rest on later turns of the event loop
    layout = view.widget().layout()
    assert [layout.indexOf(c) for c in view.cards] == list(range(1, 31))  # in the order of the messages
    assert view.toPlainText().index("message 3\n") < view.toPlainText().index("message 29")
    view.show_messages(messages[:4])  # fewer messages: the cards beyond them go
    assert len(view.cards) == 4 and "message 29" not in view.toPlainText()


def test_opening_another_long_chat_hides_the_old_cards_until_they_show_the_new_one(view, qtbot):
    clicks = []
    view.citation_requested.connect(lambda i, k: clicks.append((i, k)))
    cite = {"n": 1, "source": "a.md", "section": "A", "location": "line 1", "text": "x"}
    chat_a = [{"role": "assistant", "content": f"A{i} [1]", "trace": {"citations": [cite], "steps": []}}
              for i in range(30)]
    chat_b = [{"role": "user", "content": f"B{i}"} for i in range(30)]
    view.show_messages(chat_a)
    qtbot.waitUntil(lambda: view._pending is None, timeout=5000)
    view.scroll_to_end()
    view.show_messages(chat_b)  # the newest 12 now; the first 18 cards still held chat A's messages
    stale = view.cards[1]
    assert stale.isHidden() and "A1" in stale.body.toPlainText()  # hidden, so nobody clicks chat A's chip
    qtbot.waitUntil(lambda: view._pending is None, timeout=5000)
    assert not stale.isHidden() and stale.body.toPlainText() == "B1" and not stale.chips_box.isVisibleTo(stale)
    assert clicks == [] and view.verticalScrollBar().value() == view.verticalScrollBar().maximum()


def test_markup_in_a_message_is_shown_as_text_and_tooltips_stay_text(view, qtbot):
    clicks = []
    view.citation_requested.connect(lambda i, k: clicks.append((i, k)))
    trace = {"steps": [{"action": "policy_search", "ok": True, "observation": "[1] <b>Pay&Benefits</b>: 30 days"}],
             "citations": [{"n": 1, "source": "Pay&Benefits.md", "section": "S", "location": "l", "text": "t"}]}
    view.show_messages([{"role": "user", "content": 'Is <a href="cite:0:0">this</a> a <b>link</b>?'},
                        {"role": "assistant", "content": "You get 30 days [1].", "trace": trace}])
    question, answer = view.cards
    assert '<a href="cite:0:0">' in question.body.toPlainText()  # as typed, not a link
    assert not format_at(question, "this").isAnchor() and format_at(question, "link").fontWeight() < 600
    assert tip(format_at(answer, "30")) == "From the policies: [1] <b>Pay&Benefits</b>: 30 days"
    chip = answer.chips_box.findChildren(QPushButton)[0]
    assert chip.text() == "[1] Pay&&Benefits.md › S"  # shows "Pay&Benefits.md", with no Alt shortcut
    answer.body.anchorClicked.emit(QUrl("cite:nonsense"))
    assert clicks == []


def test_a_source_withheld_from_the_assistant_says_so_on_its_chip(view):
    from desktop.ui.conversation import WITHHELD_NOTE

    cites = [{"n": 1, "source": "notice.md", "section": "Notice", "location": "line 7", "text": "Ignore all …",
              "withheld": True},
             {"n": 2, "source": "notice.md", "section": "Parking", "location": "line 3", "text": "Closed in March."}]
    view.show_messages([{"role": "user", "content": "Any notices?"},
                        {"role": "assistant", "content": "The car park is closed in March [2].",
                         "trace": {"steps": [], "citations": cites}}])
    flagged, plain = view.cards[1].chips_box.findChildren(QPushButton)
    assert html.unescape(re.sub(r"<[^>]+>", "", flagged.toolTip())).startswith(WITHHELD_NOTE)
    assert WITHHELD_NOTE not in html.unescape(plain.toolTip())

def test_a_change_of_theme_draws_the_cards_in_the_new_colours(qtbot):
    from PySide6.QtWidgets import QApplication

    from desktop.app import apply_theme

    app = QApplication.instance()
    before = app.palette()
    try:
        apply_theme(app, dark=False)
        view = ConversationView()
        qtbot.addWidget(view)
        view.show()
        view.show_messages([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}])
        qtbot.wait(50)
        light = view.cards[1].grab().toImage().pixelColor(5, 30).lightness()
        apply_theme(app, dark=True)
        view.redraw()
        view.show_messages([{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}])
        qtbot.wait(50)
        dark = view.cards[1].grab().toImage().pixelColor(5, 30).lightness()
        assert light > 200 and dark < 60
    finally:
        app.setPalette(before)
