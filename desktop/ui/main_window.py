"""The main window: chats, streamed answers, reasoning trace, sources, data tables and charts."""

from __future__ import annotations

import html
import logging
import time

from PySide6.QtCore import QEvent, QSettings, Qt, QThread, QTimer, Signal
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import (
    QHBoxLayout,
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMenu,
    QPlainTextEdit,
    QPushButton,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.settings import Settings, config_dir, data_dir, save_settings

from ..chat import Chat
from ..history import ChatStore
from ..worker import EngineWorker
from .documents_dialog import DocumentsDialog
from .requests_dialog import RequestsDialog
from .procedure_card import ProcedureCard
from .conversation import WITHHELD_NOTE, ConversationView
from .data_view import DataView
from .widgets import PassageDialog, SignInDialog
from .asking_part import AskingPart
from .chats_part import ChatsPart
from .documents_part import DocumentsPart
from .model_part import ModelPart
from .requests_part import RequestsPart

log = logging.getLogger(__name__)
# How long closing the window waits for its engine thread. Indexing and warm-up stop at their
# next checkpoint (well under a second); only loading a model file cannot be interrupted.
THREAD_EXIT_MS = 30000
# Threads still running when their window closed: kept alive here, waited for at exit (app.run).
STRAGGLERS: list[QThread] = []

FIRST_RUN_TEXT = """### No chat model yet

The assistant writes its answers with a **GGUF chat model** — a language model packed for
llama.cpp that runs on this computer (1–5 GB; nothing is sent anywhere).

1. Get a model file from your IT department, for example *Qwen2.5-1.5B-Instruct Q4_K_M*
   (about 1 GB) or *Qwen2.5-3B-Instruct Q4_K_M* (about 2 GB).
2. Copy it into a models folder, or click **Choose model file…** below.

Meanwhile you can **search the policies** (box at the top) and look up **My record**.
"""


class MainWindow(AskingPart, ChatsPart, RequestsPart, ModelPart, DocumentsPart, QMainWindow):
    """The window: its parts (asking, chats, requests and walk-throughs, model and settings, documents)
    are in their own modules; building it, rendering and the engine thread are here."""

    # requests to the engine worker (queued onto its thread)
    request_start = Signal(object, str)
    request_set_user = Signal(str)
    request_ask = Signal(int, str, object)
    request_search = Signal(str)
    request_record = Signal()
    request_reload_model = Signal(object)  # the new settings
    request_forget = Signal()
    request_leave_decision = Signal(str, bool)
    request_list_requests = Signal(bool)
    request_act_on_request = Signal(str, str, str)
    request_reindex = Signal(object, bool)

    def __init__(self, settings: Settings, store: ChatStore | None = None, backend_factory=None,
                 ask_sign_in: bool = True) -> None:
        super().__init__()
        self.settings = settings
        self.store = store or ChatStore(data_dir() / "chats.sqlite3")
        self.ask_sign_in = ask_sign_in
        self.user = settings.user
        self.role = ""
        self.employees: list[str] = []
        self.chat = Chat(self.store)  # the open chat: its messages and where the store keeps them
        self.busy = False
        self.model_loaded = False
        self.index_report = None
        self.passages: dict[str, list[dict]] = {}  # each policy file's passages, for showing a citation in place
        self.documents: DocumentsDialog | None = None
        self.requests_dialog: RequestsDialog | None = None
        self._render_pending = False
        self._observation_data: list = []  # structured tool results of the running answer
        self.last_problem: tuple[str, str, str] | None = None
        if self.store.set_aside is not None:
            self._problem("Chat history", f"The chat history file was damaged; it is kept as {self.store.set_aside} "
                          "and a new history was started.", "Nothing else is affected.")
        self.setWindowTitle("HR Assistant")
        self.resize(1200, 780)
        self._build_ui()
        self._build_menus()
        self._start_threads(backend_factory)
        self._restore_geometry()
        # No persona is asked for: the worker signs in the OS account (or the persona remembered
        # from last time, where picking one is allowed).
        QTimer.singleShot(0, lambda: self.request_start.emit(self.settings, ""))

    # -- construction ----------------------------------------------------------------------------
    def _build_ui(self) -> None:
        splitter = QSplitter()
        self.setCentralWidget(splitter)

        side = QWidget()
        side_l = QVBoxLayout(side)
        self.user_label = QLabel("Signing in…")
        self.user_label.setWordWrap(True)
        self.user_label.setAccessibleName("Signed-in user")
        side_l.addWidget(self.user_label)
        self.new_chat_button = QPushButton("New chat")
        self.new_chat_button.setAccessibleName("New chat")
        self.new_chat_button.clicked.connect(self.new_chat)
        side_l.addWidget(self.new_chat_button)
        self.chat_filter = QLineEdit()
        self.chat_filter.setPlaceholderText("Filter chats…")
        self.chat_filter.setAccessibleName("Filter chats")
        self.chat_filter.textChanged.connect(self._filter_chats)
        side_l.addWidget(self.chat_filter)
        self.chat_list = QListWidget()
        self.chat_list.setAccessibleName("Chats")
        self.chat_list.itemClicked.connect(lambda item: self.open_chat(item.data(Qt.UserRole)))
        self.chat_list.setContextMenuPolicy(Qt.CustomContextMenu)
        self.chat_list.customContextMenuRequested.connect(self._chat_menu)
        side_l.addWidget(self.chat_list)
        splitter.addWidget(side)

        center = QWidget()
        c_l = QVBoxLayout(center)
        top = QHBoxLayout()
        self.search_box = QLineEdit()
        self.search_box.setPlaceholderText("Search the policies… (Ctrl+K)")
        self.search_box.setAccessibleName("Search the policies")
        self.search_box.returnPressed.connect(lambda: self.request_search.emit(self.search_box.text()))
        top.addWidget(self.search_box)
        self.record_button = QPushButton("My record")
        self.record_button.setAccessibleName("Show my employee record")
        self.record_button.clicked.connect(self.request_record.emit)
        top.addWidget(self.record_button)
        c_l.addLayout(top)
        self.first_run = QTextBrowser()
        self.first_run.setAccessibleName("First-run help")
        self.first_run.setMarkdown(FIRST_RUN_TEXT)
        self.first_run.setMaximumHeight(260)
        self.first_run.hide()
        c_l.addWidget(self.first_run)
        self.choose_model_button = QPushButton("Choose model file…")
        self.choose_model_button.clicked.connect(self.choose_model)
        self.choose_model_button.hide()
        c_l.addWidget(self.choose_model_button)
        self._build_welcome(c_l)
        self.transcript = ConversationView()
        self.transcript.starter_chosen.connect(self.send)
        self.transcript.trace_requested.connect(self.open_trace)
        self.transcript.citation_requested.connect(self.open_citation)
        c_l.addWidget(self.transcript, 1)
        actions = QHBoxLayout()
        self.copy_button = QPushButton("Copy answer")
        self.regenerate_button = QPushButton("Regenerate")
        self.edit_button = QPushButton("Edit last question")
        for b in (self.copy_button, self.regenerate_button, self.edit_button):
            b.setEnabled(False)
            actions.addWidget(b)
        actions.addStretch(1)
        self.copy_button.clicked.connect(self.copy_answer)
        self.regenerate_button.clicked.connect(self.regenerate)
        self.edit_button.clicked.connect(self.edit_last)
        c_l.addLayout(actions)
        # A prepared leave request waits here for the person's decision: nothing is sent before Approve.
        self.leave_card = QFrame()
        self.leave_card.setObjectName("leaveCard")
        self.leave_card.setFrameShape(QFrame.StyledPanel)
        self.leave_card.setAccessibleName("Leave request awaiting your approval")
        card_l = QVBoxLayout(self.leave_card)
        self.leave_text = QLabel("")
        self.leave_text.setWordWrap(True)
        self.leave_text.setTextInteractionFlags(Qt.TextSelectableByMouse)
        card_l.addWidget(self.leave_text)
        card_buttons = QHBoxLayout()
        self.leave_approve = QPushButton("Approve and submit")
        self.leave_reject = QPushButton("Reject")
        self.leave_approve.clicked.connect(lambda: self._decide_leave(True))
        self.leave_reject.clicked.connect(lambda: self._decide_leave(False))
        card_buttons.addWidget(self.leave_approve)
        card_buttons.addWidget(self.leave_reject)
        card_buttons.addStretch(1)
        card_l.addLayout(card_buttons)
        self.leave_card.hide()
        self._leave_request: dict | None = None
        c_l.addWidget(self.leave_card)
        # A procedure HR wrote, walked through one step at a time; its progress is saved with the chat.
        self._clock = QTimer(self)
        self._clock.setInterval(500)
        self._clock.timeout.connect(self._schedule_render)
        self.procedure_card = ProcedureCard()
        self.procedure_card.changed.connect(self._on_procedure_changed)
        c_l.addWidget(self.procedure_card)
        bottom = QHBoxLayout()
        self.input = QPlainTextEdit()
        self.input.setPlaceholderText("Ask about leave, pay, policies… (Ctrl+Enter to send)")
        self.input.setAccessibleName("Question")
        self.input.setMaximumHeight(90)
        bottom.addWidget(self.input, 1)
        self.send_button = QPushButton("Send")
        self.send_button.setAccessibleName("Send question")
        self.send_button.clicked.connect(self.send)
        self.stop_button = QPushButton("Stop")
        self.stop_button.setAccessibleName("Stop the answer")
        self.stop_button.setEnabled(False)
        self.stop_button.clicked.connect(self.stop)
        bottom.addWidget(self.send_button)
        bottom.addWidget(self.stop_button)
        c_l.addLayout(bottom)
        splitter.addWidget(center)

        self.side_tabs = QTabWidget()
        self.trace_tree = QTreeWidget()
        self.trace_tree.setHeaderLabels(["Step", "Detail", "Time"])
        self.trace_tree.setAccessibleName("Reasoning trace")
        self.trace_tree.setColumnWidth(0, 110)
        self.trace_tree.setColumnWidth(1, 260)
        self.side_tabs.addTab(self.trace_tree, "Reasoning")
        self.sources = QListWidget()
        self.sources.setWordWrap(True)
        self.sources.setAccessibleName("Sources")
        self.sources.itemActivated.connect(self._open_source)
        self.sources.itemDoubleClicked.connect(self._open_source)
        self.side_tabs.addTab(self.sources, "Sources")
        self.data_view = DataView()
        self.data_table, self.chart = self.data_view.table, self.data_view.chart
        self.side_tabs.addTab(self.data_view, "Data")
        splitter.addWidget(self.side_tabs)
        splitter.setSizes([230, 620, 350])

        # One label per background job, each saying what that job is doing now (none waits for another).
        self.data_status = QLabel("Employee data: waiting…")
        self.policy_status = QLabel("Policies: waiting…")
        self.model_status = QLabel("Model: waiting…")
        for label, name in ((self.data_status, "Employee data status"), (self.policy_status, "Policy index status"),
                            (self.model_status, "Model status")):
            label.setAccessibleName(name)
            # Each label in its own box, so the three never run into each other.
            label.setStyleSheet("QLabel { padding: 0 8px; border-left: 1px solid palette(mid); }")
            self.statusBar().addPermanentWidget(label)
        self._job_message = ""

    def _build_welcome(self, layout: QVBoxLayout) -> None:
        """The sample company's first page: what it is, and whom to try it as."""
        self.welcome = QFrame()
        self.welcome.setObjectName("welcome")
        self.welcome.setFrameShape(QFrame.StyledPanel)
        self.welcome.setAccessibleName("Welcome")
        w_l = QVBoxLayout(self.welcome)
        self.welcome_text = QLabel()
        self.welcome_text.setWordWrap(True)
        self.welcome_text.setTextFormat(Qt.RichText)
        w_l.addWidget(self.welcome_text)
        self.persona_buttons: list[QPushButton] = []
        self._persona_box = QVBoxLayout()
        w_l.addLayout(self._persona_box)
        other = QHBoxLayout()
        self.someone_else = QPushButton("Someone else…")
        self.someone_else.setAccessibleName("Pick another person of the sample company")
        self.someone_else.clicked.connect(lambda: self.sign_in(force=True))
        other.addWidget(self.someone_else)
        other.addStretch(1)
        w_l.addLayout(other)
        self.welcome.hide()
        layout.addWidget(self.welcome)

    def _show_welcome(self, info: dict) -> None:
        people = len(self.employees) or "a few"
        self.welcome_text.setText(
            "<h3>Welcome — this is a sample company</h3>"
            f"<p>No employee data of your own is set up yet, so the assistant runs on a made-up company of "
            f"{people} people that comes with the app. Nothing in it is real. Ask about its policies, your "
            "leave and your pay as you would at work; your company's own files go in Tools › Settings.</p>"
            "<p>Try it as one of these people; what you see follows their role. You can switch later "
            "(Tools › Switch user…).</p>")
        for button in self.persona_buttons:
            button.deleteLater()
        self.persona_buttons = []
        for persona in info.get("personas") or []:
            role = {"hr": "HR", "manager": "Manager", "employee": "Employee"}.get(persona["role"], persona["role"])
            button = QPushButton(f"{role}: {persona['name']} — {persona['sees']}")
            button.setAccessibleName(f"Try as {persona['name']} ({role})")
            button.setStyleSheet("QPushButton { text-align: left; padding: 6px 10px; }")
            button.clicked.connect(lambda _=False, name=persona["name"]: self.choose_persona(name))
            self._persona_box.addWidget(button)
            self.persona_buttons.append(button)
        self.welcome.show()

    def choose_persona(self, name: str) -> None:
        """Act as ``name`` (where picking a persona is allowed: the sample company, a kiosk, HR's view-as)."""
        self.welcome.hide()
        self.user = name
        self.chat.new()
        self.request_set_user.emit(name)

    def _build_menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        self._action(file_menu, "New chat", QKeySequence.New, self.new_chat)
        self._action(file_menu, "Export chat to Markdown…", None, self.export_chat)
        file_menu.addSeparator()
        self._action(file_menu, "Quit", QKeySequence.Quit, self.close)
        chat_menu = self.menuBar().addMenu("&Chat")
        self._action(chat_menu, "Send", QKeySequence("Ctrl+Return"), self.send)
        self._action(chat_menu, "Stop", QKeySequence("Esc"), self.stop)
        self._action(chat_menu, "Search policies", QKeySequence("Ctrl+K"), self.search_box.setFocus)
        tools = self.menuBar().addMenu("&Tools")
        self._action(tools, "Settings…", QKeySequence("Ctrl+,"), self.open_settings)
        self._action(tools, "Policy documents…", None, self.open_documents)
        self._action(tools, "Leave requests…", None, self.open_requests)
        self.switch_action = self._action(tools, "Switch user…", None, lambda: self.sign_in(force=True))
        self.switch_action.setEnabled(False)  # until the data says whether this account may pick a persona

    def _action(self, menu: QMenu, text: str, shortcut, slot) -> QAction:
        action = QAction(text, self)
        if shortcut is not None:
            action.setShortcut(shortcut)
        action.triggered.connect(slot)
        menu.addAction(action)
        self.addAction(action)
        return action

    def _start_threads(self, backend_factory) -> None:
        self.engine_thread = QThread(self)
        self.engine_thread.setObjectName("engine")
        self.worker = EngineWorker(backend_factory)
        self.worker.moveToThread(self.engine_thread)
        self.request_start.connect(self.worker.start)
        self.request_set_user.connect(self.worker.set_user)
        self.request_ask.connect(self.worker.ask)
        self.request_search.connect(self.worker.search)
        self.request_record.connect(self.worker.my_record)
        self.request_reload_model.connect(self.worker.load_model)
        self.request_reindex.connect(self.worker.reindex)
        self.request_forget.connect(self.worker.forget_last_turn)
        self.request_leave_decision.connect(self.worker.decide_leave)
        self.request_list_requests.connect(self.worker.list_requests)
        self.request_act_on_request.connect(self.worker.act_on_request)
        w = self.worker
        w.status.connect(self._on_status)
        w.job.connect(self._on_job)
        w.data_ready.connect(self._on_data_ready)
        w.data_failed.connect(lambda m, h: self._problem("The employee data cannot be used", m, h))
        w.policies_ready.connect(self._on_policies_ready)
        w.passages.connect(self._on_passages)
        w.policies_failed.connect(lambda m, h: self._problem("The policy documents cannot be searched", m, h))
        w.model_ready.connect(self._on_model_ready)
        w.model_missing.connect(self._on_model_missing)
        w.model_failed.connect(self._on_model_failed)
        w.step.connect(self._on_step)
        w.answered.connect(self._on_answered)
        w.search_done.connect(self._on_search_done)
        w.lookup_done.connect(self._on_lookup_done)
        w.failed.connect(self._on_failed)
        w.leave_decided.connect(self._on_leave_decided)
        w.requests_listed.connect(self._on_requests_listed)
        w.request_acted.connect(self._on_request_acted)
        w.starters.connect(self.transcript.set_starters)
        w.index_progress.connect(self._on_index_progress)
        w.reindexed.connect(self._on_index_done)
        w.index_failed.connect(lambda m, h: self._problem("Indexing failed", m, h))
        self.engine_thread.start()

    # -- window state ------------------------------------------------------------------------------
    def _qsettings(self) -> QSettings:
        return QSettings(str(config_dir() / "window.ini"), QSettings.IniFormat)

    def _restore_geometry(self) -> None:
        s = self._qsettings()
        if s.value("geometry") is not None:
            self.restoreGeometry(s.value("geometry"))

    def changeEvent(self, event) -> None:  # noqa: N802 - Qt API
        super().changeEvent(event)
        if event.type() == QEvent.PaletteChange and hasattr(self, "transcript"):
            self.transcript.redraw()  # the marks and tints follow the light or dark theme
            self._schedule_render()

    def closeEvent(self, event) -> None:  # noqa: N802 - Qt API
        s = self._qsettings()
        s.setValue("geometry", self.saveGeometry())
        s.sync()
        self.worker.cancel_event.set()
        self.worker.closing.set()
        self.hide()  # the window goes at once; the engine thread ends at its next checkpoint
        thread = self.engine_thread
        thread.quit()
        if not thread.wait(THREAD_EXIT_MS):
            # Still running (a model file still loading): a QThread destroyed while it runs
            # aborts the process, so it outlives the window and is waited for at exit.
            log.warning("%s thread still running at close; waiting for it at exit", thread.objectName())
            thread.setParent(None)
            STRAGGLERS.append(thread)
        super().closeEvent(event)

    # -- sign-in -----------------------------------------------------------------------------------
    def _on_data_ready(self, info: dict) -> None:
        self.employees = info.get("employees", [])
        self.identity_info = info
        guessed = info.get("columns_guessed") or []
        self.data_status.setToolTip(
            "No column map is confirmed; the column meanings were guessed:\n" + "\n".join(guessed)
            + "\n\nIT: hr-assistant data --check --write-map FILE writes them for review." if guessed else "")
        if info.get("problems"):
            self._problem("Employee data", "The employee file has cells that were not understood: "
                          + "; ".join(info["problems"]) + ".", "Fix them in the file; until then they count as missing.")
        can_choose = bool(info.get("can_choose"))
        self.switch_action.setEnabled(can_choose)
        self.switch_action.setText("View as…" if info.get("how") == "view-as" or (
            can_choose and info.get("role") == "hr" and not info.get("demo")) else "Switch user…")
        if info.get("found"):
            self.welcome.hide()
            self.user, self.role = info["user"], info["role"]
            text = f"<b>{html.escape(self.user)}</b><br>{self._role_text()}"
            if info.get("how") == "demo":
                text += "<br><small>Sample company (made-up data)</small>"
            if info.get("view_as"):
                text = (f"<b>Viewing as {html.escape(self.user)}</b><br>{self._role_text()}<br>"
                        f"<small>You are {html.escape(info['account'])} (HR); recorded in the audit log</small>")
            elif info.get("how") == "os":
                text += f"<br><small>Account {html.escape(info['account'])}</small>"
            self.user_label.setText(text)
            if info.get("how") in ("demo", "kiosk") and self.settings.user != self.user:
                self.settings = self.settings.replace(user=self.user)  # the persona, remembered for next time
                save_settings(self.settings)
            self.reload_chats()
            return
        self.user, self.role = info.get("account", ""), ""
        self.user_label.setText(f"<b>{html.escape(self.user)}</b><br>Policies and calculator only")
        if info.get("demo") and info.get("personas"):
            # The sample company: a page that says so and offers people to try, not a warning about the account
            # (there is no HR to ask to add it).
            self.reload_chats()
            self._show_welcome(info)
            return
        self.welcome.hide()
        if info.get("notice"):
            self._problem("Employee data", info["notice"], "")
        self.reload_chats()
        if can_choose:
            self.sign_in()  # a kiosk: pick who to be

    def _role_text(self) -> str:
        return {"hr": "HR — sees every employee", "manager": "Manager — sees own team",
                "employee": "Employee — sees own record"}.get(self.role, self.role)

    def sign_in(self, force: bool = False) -> None:
        if not self.employees or not (self.ask_sign_in or force):
            return
        dialog = SignInDialog(self.employees, self)
        if dialog.exec() and dialog.chosen:
            self.choose_persona(dialog.chosen)

    # -- rendering ---------------------------------------------------------------------------------
    def _schedule_render(self) -> None:
        # Tokens can arrive faster than a redraw is useful: at most one render per 40 ms.
        if not self._render_pending:
            self._render_pending = True
            QTimer.singleShot(40, self.render)

    def render(self) -> None:
        self._render_pending = False
        self.transcript.show_messages(self.messages, self._live_progress)

    @staticmethod
    def _live_progress(msg: dict) -> str:
        """What the assistant is doing, step by step, with the time so far (Markdown)."""
        elapsed = time.monotonic() - msg.get("started", time.monotonic())
        lines = []
        for p in msg.get("progress") or []:
            mark = {True: "✓", False: "✗", None: "…"}[p["done"]]
            took = f" ({p['seconds']:.1f} s)" if p.get("seconds") else ""
            lines.append(f"- {mark} {p['text']}{took}")
        if not msg["content"] and not any(p["done"] is None for p in msg.get("progress") or []):
            lines.append("- … Thinking" if not lines else "- … Thinking about the results")
        return f"*Working on it — {elapsed:.0f} s*\n\n" + "\n".join(lines)

    def _show_all_traces(self, focus: int | None = None) -> None:
        """Reasoning for every answer of the chat, one branch per turn; ``focus`` (a message index,
        default the last answer) is open and selected, and its sources are listed."""
        self.trace_tree.clear()
        self.sources.clear()
        # Answers only: a note after a leave decision or a walk-through has a trace of its own kind.
        answers = [i for i, m in enumerate(self.messages) if m["role"] == "assistant" and m.get("trace")
                   and ("steps" in m["trace"] or "answer_complete" in m["trace"])]
        if focus is None and answers:
            focus = answers[-1]
        for i in answers:
            record = self.messages[i]["trace"]
            question = next((m["content"] for m in reversed(self.messages[:i]) if m["role"] == "user"), "")
            steps = record.get("steps") or []
            tools = sum(1 for s in steps if s.get("action"))
            turn = QTreeWidgetItem(self.trace_tree, ["Question", " ".join(question.split())[:120],
                                                     f"{record.get('seconds') or 0:.1f}s"])
            turn.setToolTip(1, question)
            turn.setData(0, Qt.UserRole, i)
            for step in steps:
                QTreeWidgetItem(turn, ["Thought", step.get("thought", ""), ""])
                if step.get("action"):
                    QTreeWidgetItem(turn, ["Tool", f"{step['action']}: {step.get('action_input', '')}", ""])
                    obs = QTreeWidgetItem(turn, ["Observation", (step.get("observation") or "")[:200],
                                                 f"{step.get('seconds', 0):.2f}s"])
                    QTreeWidgetItem(obs, ["", step.get("observation") or "", ""])
            if not steps:
                QTreeWidgetItem(turn, ["", f"Answered with {tools} tool steps", ""])
            if i == focus:
                turn.setExpanded(True)
                self.trace_tree.setCurrentItem(turn)
                self.trace_tree.scrollToItem(turn)
                self._show_sources(record.get("citations") or [], switch=False)

    def _show_sources(self, citations: list[dict], switch: bool = True) -> None:
        self.sources.clear()
        for c in citations:
            item = QListWidgetItem(f"[{c.get('n', '')}] {c['source']} › {c['section']}\n{c['location']}")
            if c.get("withheld"):
                item.setToolTip(WITHHELD_NOTE)
                item.setText(item.text() + " · not shown to the assistant")
            item.setData(Qt.UserRole, c)
            self.sources.addItem(item)
        if citations and switch:
            self.side_tabs.setCurrentWidget(self.sources)

    def open_trace(self, index: int) -> None:
        """"How I got this": every turn of the chat in Reasoning, this one open and selected."""
        self._show_all_traces(index)
        self.side_tabs.setCurrentWidget(self.trace_tree)

    def open_citation(self, index: int, k: int) -> None:
        """The cited passage in its place in the document, highlighted."""
        if not 0 <= index < len(self.messages):
            return
        citations = (self.messages[index].get("trace") or {}).get("citations") or []
        if 0 <= k < len(citations):
            citation = citations[k]
            self._show_passage(citation)

    def _on_passages(self, outline: dict) -> None:
        self.passages = outline

    def _open_source(self, item: QListWidgetItem) -> None:
        self._show_passage(item.data(Qt.UserRole))

    def _show_passage(self, citation: dict) -> None:
        dialog = PassageDialog(citation, self.passages.get(citation.get("source", "")), self)
        dialog.exec()
        dialog.deleteLater()  # not kept as a child of the window for every passage ever opened

    def _show_leave_request(self, request: dict) -> None:
        """The exact request, with the balance after, and the only buttons that can submit it."""
        self._leave_request = request
        half = [w for w, on in (("half day at the start", request["half_start"]),
                                ("half day at the end", request["half_end"])) if on]
        days = ", ".join(request["days"])
        skipped = f"<br>Not counted: {html.escape(', '.join(request['skipped']))}" if request["skipped"] else ""
        self.leave_text.setText(
            f"<b>Leave request — not submitted yet</b><br>{html.escape(request['leave_type'].capitalize())} leave for "
            f"{html.escape(request['employee'])}<br>{request['start']} to {request['end']}: "
            f"<b>{request['day_count']:g} working day{'s' if request['day_count'] != 1 else ''}</b> "
            f"({html.escape(days)}{'; ' + ', '.join(half) if half else ''}){skipped}<br>"
            f"{html.escape(request['balance_column'].replace('_', ' '))}: {request['balance_before']:g} now, "
            f"<b>{request['balance_after']:g} after</b>")
        self.leave_approve.setEnabled(True)
        self.leave_reject.setEnabled(True)
        self.leave_card.show()

    def _decide_leave(self, approve: bool) -> None:
        if self._leave_request is None:
            return
        self.leave_approve.setEnabled(False)
        self.leave_reject.setEnabled(False)
        self.request_leave_decision.emit(self._leave_request["id"], approve)

    def _show_data(self, data) -> None:
        if isinstance(data, dict) and data.get("kind") == "leave_request":
            self._show_leave_request(data)
            return
        if isinstance(data, dict) and data.get("citations"):
            self._observation_data = [*self._observation_data, data]
            return
        if not (isinstance(data, dict) and "rows" in data):
            return
        self.data_view.show_result(data)

    # -- without a model -----------------------------------------------------------------------------
    def _on_search_done(self, query: str, hits) -> None:
        citations = [{"n": n, **h.to_dict()} for n, h in enumerate(hits, start=1)]
        self._show_sources(citations)
        if not hits:
            self.statusBar().showMessage(f"No policy passage matches “{query}”.", 5000)

    def _on_lookup_done(self, result) -> None:
        self._show_data(result.data)
        self.side_tabs.setCurrentIndex(2)

