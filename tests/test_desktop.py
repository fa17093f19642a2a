"""The desktop window, offscreen with pytest-qt, against the scripted and the real tiny model."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt, QUrl  # noqa: E402
from PySide6.QtWidgets import QPushButton  # noqa: E402

from desktop.history import ChatStore  # noqa: E402
from desktop.ui.main_window import MainWindow  # noqa: E402
from desktop.ui.settings_dialog import SettingsDialog  # noqa: E402
from engine.model.scripted import ScriptedBackend  # noqa: E402
from engine.settings import Settings  # noqa: E402
from tests.conftest import ROOT  # noqa: E402

ANSWER = ("Done.\nFinal Answer: Yes — once a year you can encash up to 10 days [1]. For 10 days you would get "
          "**$1,769.23** (46,000 / 260 × 10).")
SCRIPT = [
    "I will search.\nAction: policy_search\nAction Input: encashment of annual leave\n",
    'I need the pay.\nAction: employee_data\nAction Input: df[df["full_name"] == "Pedro Alves"]["annual_salary_usd"]\n',
    "Compute.\nAction: calculator\nAction Input: round(46000 / 260 * 10, 2)\n",
    ANSWER,
]


@pytest.fixture(autouse=True)
def _warm_embedder():
    """Load the embedding model once in this thread (the window's worker then reuses it)."""
    from engine.assistant import get_embedder

    get_embedder(Settings())


def make_window(qtbot, backend=None, user="Pedro Alves", store=None, agent_mode="react", policies="", **kw):
    """A window on the sample company (or the policy folder ``policies``). The scripts here are ReAct turns, so the
    agent is the ReAct loop unless ``agent_mode`` says otherwise (the routed pipelines have their own scripted tests
    below and in test_routed)."""
    factory = (lambda s: backend) if backend is not None else None
    window = MainWindow(Settings(user=user, agent_mode=agent_mode, policies_path=policies), store=store,
                        backend_factory=factory, ask_sign_in=False, **kw)
    qtbot.addWidget(window)
    window.show()
    return window


def wait_ready(qtbot, window):
    """The model, the data and the policy index are ready (a question asked before the index is would
    wait for it: see test_a_question_during_the_first_indexing_waits…)."""
    qtbot.waitUntil(lambda: window.model_loaded or window.first_run.isVisible(), timeout=60000)
    qtbot.waitUntil(lambda: window.role != "", timeout=60000)
    qtbot.waitUntil(lambda: not window.policy_status.text().endswith("…"), timeout=60000)


def test_question_streams_tokens_fills_trace_and_sources(qtbot):
    backend = ScriptedBackend(list(SCRIPT), token_delay=0.01)
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    assert window.user_label.text().startswith("<b>Pedro Alves</b>") and window.role == "employee"
    window.input.setPlainText("Can I cash out unused vacation leave, and how much would I get for 10 days?")
    window.send()
    # the answer appears piece by piece while the model writes
    qtbot.waitUntil(lambda: "once a year" in window.transcript.toPlainText() and window.busy, timeout=20000)
    assert "$1,769.23" not in window.transcript.toPlainText()
    qtbot.waitUntil(lambda: not window.busy, timeout=20000)
    text = window.transcript.toPlainText()
    assert "$1,769.23" in text and "Sources:" in text
    kinds = [window.trace_tree.topLevelItem(i).text(0) for i in range(window.trace_tree.topLevelItemCount())]
    assert kinds.count("Tool") == 3 and "Observation" in kinds and "Model" in kinds
    assert window.sources.count() == 4 and "leave-policy.md" in window.sources.item(0).text()
    assert window.data_table.model().rowCount() == 1  # the salary lookup as a real table
    assert window.copy_button.isEnabled() and window.regenerate_button.isEnabled()


def test_the_default_routed_agent_reads_the_record_and_the_card_says_so(qtbot):
    """The window's default agent (look up first, then route): a question about the person's own record is
    answered from the record read before the question, in two calls (the field, the answer)."""
    backend = ScriptedBackend(["sick_days_remaining\n", "You have 2 sick days left."], token_delay=0.01)
    window = make_window(qtbot, backend, agent_mode="route")
    wait_ready(qtbot, window)
    window.send("How many sick days do I have left?")  # a question of the router's bank: code routes it
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    assert "You have 2 sick days left." in window.transcript.toPlainText()
    trace = window.worker.agent.last_trace
    assert trace.route[0]["kind"] == "my_data" and trace.llm_calls == 2
    assert [s.action for s in trace.steps if s.action] == ["employee_data"]
    assert "Fields: " in backend.prompts[0] and "sick_days_remaining" in backend.grammars[0]
    kinds = [window.trace_tree.topLevelItem(i).text(0) for i in range(window.trace_tree.topLevelItemCount())]
    assert "Tool" in kinds and "Observation" in kinds


def test_stop_cancels_within_a_second(qtbot):
    backend = ScriptedBackend(["Long.\nFinal Answer: " + "word " * 2000], token_delay=0.01)
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    window.send("Tell me everything")
    qtbot.waitUntil(lambda: "word" in window.transcript.toPlainText(), timeout=60000)
    import time

    t0 = time.perf_counter()
    window.stop()
    qtbot.waitUntil(lambda: not window.busy, timeout=1000)
    assert time.perf_counter() - t0 < 1.0
    assert "(stopped)" in window.transcript.toPlainText()


def test_history_survives_a_restart(qtbot, tmp_path):
    store_path = tmp_path / "chats.sqlite3"
    window = make_window(qtbot, ScriptedBackend(["Hi.\nFinal Answer: Hello Pedro!"]), store=ChatStore(store_path))
    wait_ready(qtbot, window)
    window.send("Hello")
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    window.close()
    again = make_window(qtbot, ScriptedBackend([]), store=ChatStore(store_path))
    wait_ready(qtbot, again)
    qtbot.waitUntil(lambda: again.chat_list.count() == 1, timeout=5000)
    assert again.chat_list.item(0).text() == "Hello"
    assert "Hello Pedro!" in again.transcript.toPlainText()
    again.export_chat(path=str(tmp_path / "chat.md"))
    assert "**HR assistant**:" in (tmp_path / "chat.md").read_text()


def test_regenerate_and_edit_last_question(qtbot):
    backend = ScriptedBackend(["A.\nFinal Answer: first", "B.\nFinal Answer: second"])
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    window.send("Question one")
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    window.regenerate()
    qtbot.waitUntil(lambda: not window.busy and "second" in window.transcript.toPlainText(), timeout=60000)
    assert "first" not in window.transcript.toPlainText()
    assert [m.content for m in window.store.messages(window.conversation)] == ["Question one", "second"]
    window.edit_last()
    assert window.input.toPlainText() == "Question one" and window.store.messages(window.conversation) == []


def test_chats_rename_delete(qtbot):
    window = make_window(qtbot, ScriptedBackend(["x\nFinal Answer: y"]))
    wait_ready(qtbot, window)
    window.send("First question")
    qtbot.waitUntil(lambda: not window.busy, timeout=60000)
    conv = window.conversation
    window.rename_chat(conv, "Leave questions")
    assert window.chat_list.item(0).text() == "Leave questions"
    window.delete_chat(conv, confirm=False)
    assert window.chat_list.count() == 0 and window.store.conversations("Pedro Alves") == []


def test_first_run_without_model_still_searches_and_shows_my_record(qtbot, monkeypatch):
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [])
    window = make_window(qtbot)
    wait_ready(qtbot, window)
    assert window.first_run.isVisible() and "GGUF" in window.first_run.toPlainText()
    assert window.choose_model_button.isVisible() and window.model_status.text() == "No chat model"
    window.search_box.setText("per diem abroad")
    window.search_box.returnPressed.emit()
    qtbot.waitUntil(lambda: window.sources.count() > 0, timeout=60000)
    assert "travel-and-expenses.docx" in window.sources.item(0).text()
    window.record_button.click()
    qtbot.waitUntil(lambda: window.data_table.model().rowCount() == 1, timeout=60000)
    model = window.data_table.model()
    headers = [model.headerData(i, Qt.Horizontal) for i in range(model.columnCount())]
    assert "sick_days_remaining" in headers
    window.send("anything")  # refused with a message, nothing crashes
    assert window.last_problem[0] == "No chat model"


def test_corrupt_model_shows_cause_and_app_keeps_running(qtbot, tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF" + b"\x03\x00\x00\x00" + b"\x01" * 4)
    window = MainWindow(Settings(user="Pedro Alves", model_path=str(bad)), ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.last_problem is not None and "model" in window.last_problem[0], timeout=60000)
    assert "broken.gguf" in window.last_problem[1] and window.first_run.isVisible()


def test_settings_dialog_refuses_a_bad_model_file(qtbot, tmp_path):
    bad = tmp_path / "notes.gguf"
    bad.write_text("these are not model weights")
    dialog = SettingsDialog(Settings(), can_change_sources=False)
    qtbot.addWidget(dialog)
    dialog.model.setText(str(bad))
    dialog.try_accept()
    assert dialog.result_settings is None and "not a GGUF model" in dialog.error.text()
    assert not dialog.sources["policies_path"].parent().isEnabled()  # only HR may change data sources


def test_settings_dialog_shows_model_details_and_accepts(qtbot, tiny_model_path):
    dialog = SettingsDialog(Settings(), can_change_sources=True)
    qtbot.addWidget(dialog)
    dialog.model.setText(str(tiny_model_path))
    dialog.numbers["n_ctx"].setValue(2048)
    dialog.try_accept()
    assert "tiny-random-test-model — llama" in dialog.model_info.text()
    assert dialog.result_settings.n_ctx == 2048 and dialog.result_settings.model_path == str(tiny_model_path)


def test_real_engine_with_tiny_model(qtbot, tiny_model_path):
    from engine.model.llama import LlamaBackend

    backend = LlamaBackend(tiny_model_path, Settings(n_ctx=8192, n_threads=2, seed=7))
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    window.settings = window.worker.settings = Settings(user="Pedro Alves", max_steps=1, max_answer_tokens=300)
    window.send("How many sick days do I have left?")
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    assert window.trace_tree.topLevelItemCount() >= 2
    assert window.store.messages(window.conversation)[-1].role == "assistant"
    backend.close()


def test_closing_mid_indexing_stops_it_and_ends_the_threads(qtbot, tmp_path):
    """A QThread destroyed while it runs aborts the process (seen as rc 134 with a busy machine):
    closing the window mid-indexing stops the indexing at its next batch, the engine thread ends
    before the window goes, and nothing half-built is saved."""
    from desktop.ui.main_window import STRAGGLERS
    from engine.policy.index import store_dir_for

    docs = tmp_path / "docs"
    docs.mkdir()
    for i in range(40):
        (docs / f"policy-{i}.md").write_text(f"# Policy {i}\n\n" + "\n\n".join(
            f"Rule {i}.{j}: staff may take {j} days of leave of type {i}-{j} after {j + 2} months." for j in range(20)))
    window = MainWindow(Settings(user="Pedro Alves", policies_path=str(docs)), ask_sign_in=False,
                        backend_factory=lambda s: ScriptedBackend(["x\nFinal Answer: y"]))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: "embedding" in window.policy_status.text(), timeout=60000)
    window.close()
    assert window.engine_thread.isFinished() and not STRAGGLERS
    assert not (store_dir_for(docs) / "manifest.json").exists()  # stopped, not finished


def test_a_thread_that_outlived_its_window_is_waited_for_at_exit(qtbot):
    import threading

    from PySide6.QtCore import QThread

    from desktop.app import _after_exit
    from desktop.ui.main_window import STRAGGLERS

    release = threading.Event()

    class Slow(QThread):
        def run(self):
            release.wait(10)

    thread = Slow()
    thread.start()
    STRAGGLERS.append(thread)
    threading.Timer(0.3, release.set).start()
    assert _after_exit(3) == 3  # waited for it rather than destroying it running (an abort)
    assert thread.isFinished() and not STRAGGLERS


def test_citation_link_opens_passage_viewer(qtbot, monkeypatch):
    opened = []
    monkeypatch.setattr("desktop.ui.main_window.PassageDialog.exec", lambda self: opened.append(self.windowTitle()))
    backend = ScriptedBackend(list(SCRIPT))
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    window.send("Can I cash out vacation leave?")
    qtbot.waitUntil(lambda: not window.busy, timeout=20000)
    window.transcript.cards[1].body.anchorClicked.emit(QUrl("cite:1:0"))  # the [1] in the answer's text
    assert opened == ["[1] leave-policy.md"]


def test_screenshot_of_the_real_application(tmp_path, tiny_model_path):
    """Start the real app in its own process (under Xvfb when available), answer a question, save a screenshot."""
    shot = tmp_path / "s.png"  # README's screenshots come from the real model: scripts/screenshots.py
    env = {**os.environ, "HR_ASSISTANT_DATA_DIR": str(tmp_path / "d"), "HR_ASSISTANT_CONFIG_DIR": str(tmp_path / "c")}
    script = f"""
import sys
from PySide6.QtWidgets import QApplication
from PySide6.QtCore import QTimer
from engine.model.scripted import ScriptedBackend
from engine.settings import Settings
from desktop.app import apply_theme
from desktop.ui.main_window import MainWindow
app = QApplication(sys.argv)
apply_theme(app)
w = MainWindow(Settings(user="Pedro Alves"), backend_factory=lambda s: ScriptedBackend({SCRIPT!r}), ask_sign_in=False)
w.show()
def ask():
    if not w.model_loaded:
        return QTimer.singleShot(200, ask)
    w.send("Can I cash out unused vacation leave, and how much would I get for 10 days?")
    QTimer.singleShot(300, done)
def done():
    if w.busy:
        return QTimer.singleShot(200, done)
    app.processEvents()
    w.grab().save({str(shot)!r})
    app.quit()
QTimer.singleShot(200, ask)
app.exec()
"""
    cmd = [sys.executable, "-c", script]
    shot.parent.mkdir(parents=True, exist_ok=True)
    xvfb = shutil.which("xvfb-run")
    proc = None
    if xvfb:  # a real X server; Qt's xcb plugin needs the X client libraries (libxcb-cursor0 and friends)
        x_env = {k: v for k, v in env.items() if k != "QT_QPA_PLATFORM"}
        proc = subprocess.run([xvfb, "-a", "-s", "-screen 0 1280x800x24"] + cmd, env=x_env, cwd=ROOT,
                              capture_output=True, text=True, timeout=240)
    if proc is None or (proc.returncode != 0 and "xcb" in proc.stderr):
        # No Xvfb or no X libraries on this machine: the same app on Qt's offscreen platform.
        proc = subprocess.run(cmd, env={**env, "QT_QPA_PLATFORM": "offscreen"}, cwd=ROOT, capture_output=True,
                              text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.exists() and shot.stat().st_size > 10_000


def test_a_damaged_chat_history_is_kept_aside_and_the_window_starts(qtbot, tmp_path):
    from desktop.history import ChatStore

    path = tmp_path / "chats.sqlite3"
    path.write_bytes(b"this is not a database" * 100)
    store = ChatStore(path)
    assert store.set_aside == tmp_path / "chats.sqlite3.bad"
    assert store.set_aside.read_bytes().startswith(b"this is not")
    conversation = store.create("Pedro Alves")
    store.add(conversation.id, "user", "Hello")
    assert [m.content for m in store.messages(conversation.id)] == ["Hello"]
    window = make_window(qtbot, ScriptedBackend([]), store=store)
    assert window.last_problem and "kept as" in window.last_problem[1]


def test_an_index_build_shows_its_progress_in_the_status_bar(qtbot, tmp_path):
    from desktop.worker import EngineWorker

    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "leave.md").write_text("# Leave\nTen days of leave.\n")
    worker = EngineWorker()
    worker.settings = Settings(policies_path=str(docs))
    shown: list[str] = []
    worker.status.connect(shown.append)
    ready: list = []
    worker.policies_ready.connect(ready.append)
    worker.load_policies()  # real work: step by step, each a queued event of the worker's thread (here, this one)
    qtbot.waitUntil(lambda: len(ready) == 1, timeout=60000)
    assert any(s.startswith("Indexing the policies: embedding") for s in shown), shown
    shown.clear()
    worker.load_policies()  # unchanged: checked at once, silently
    assert len(ready) == 2 and not any(s.startswith("Indexing") for s in shown)


def _foreign_company(tmp_path, my_department):
    import pwd

    me = pwd.getpwuid(os.geteuid()).pw_name
    path = tmp_path / "staff.csv"
    path.write_text("employee_id,full_name,username,department,manager,annual_salary_usd\n"
                    f"E1,Ana Cruz,{me},{my_department},Olu Bello,61000\n"
                    "E2,Olu Bello,obello,Operations,,99000\nE3,Li Wei,lwei,Operations,Olu Bello,58000\n")
    return path


def test_off_the_sample_the_window_is_the_os_account_and_offers_no_persona(qtbot, tmp_path):
    path = _foreign_company(tmp_path, "Operations")
    window = MainWindow(Settings(user="Olu Bello", employees_path=str(path)),
                        backend_factory=lambda s: ScriptedBackend(["Final Answer: ok"]), ask_sign_in=True)
    qtbot.addWidget(window)
    wait_ready(qtbot, window)
    # settings.json said "Olu Bello"; the OS says Ana Cruz, and the OS wins
    assert window.user == "Ana Cruz" and window.role == "employee"
    assert "Account" in window.user_label.text()
    assert not window.switch_action.isEnabled() and window.employees == []


def test_hr_views_as_someone_and_the_window_says_so(qtbot, tmp_path):
    path = _foreign_company(tmp_path, "Human Resources")
    window = MainWindow(Settings(employees_path=str(path)),
                        backend_factory=lambda s: ScriptedBackend(["Final Answer: ok"]), ask_sign_in=False)
    qtbot.addWidget(window)
    wait_ready(qtbot, window)
    assert window.role == "hr" and window.switch_action.isEnabled() and window.switch_action.text() == "View as…"
    window.request_set_user.emit("Li Wei")
    qtbot.waitUntil(lambda: window.user == "Li Wei", timeout=60000)
    assert window.role == "employee" and "Viewing as Li Wei" in window.user_label.text()
    assert "recorded in the audit log" in window.user_label.text()


def test_settings_the_site_fixes_are_shown_locked(qtbot, tmp_path, site_file):
    site_file(f'[site]\npolicies = "{ROOT / "data" / "policies"}"\n[settings]\nn_threads = 2\n')
    from engine.site import load_site

    site = load_site()
    dialog = SettingsDialog(Settings(), can_change_sources=True, locked=site.locked(), site_path=str(site.path))
    qtbot.addWidget(dialog)
    assert not dialog.rows["policies_path"].isEnabled() and not dialog.rows["n_threads"].isEnabled()
    assert "IT department" in dialog.rows["n_threads"].toolTip()
    assert dialog.rows["employees_path"].isEnabled() and dialog.rows["n_ctx"].isEnabled()


def test_an_unreachable_model_server_is_shown_and_the_window_keeps_working(qtbot, monkeypatch):
    from engine.model.remote import RemoteBackend
    from tests.llama_server import free_port

    monkeypatch.setattr(RemoteBackend, "RETRIES", 1)
    url = f"http://127.0.0.1:{free_port()}"
    window = MainWindow(Settings(user="Pedro Alves", model_url=url), ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.last_problem is not None and "model" in window.last_problem[0], timeout=60000)
    assert "cannot be reached" in window.last_problem[1] and url in window.last_problem[1]
    # the data and the policies still work without the model
    qtbot.waitUntil(lambda: window.role == "employee", timeout=30000)


def test_a_prepared_leave_request_is_stored_only_after_approve(qtbot):
    from engine.workflows.leave import RequestStore

    backend = ScriptedBackend([
        "Book it.\nAction: leave_request\nAction Input: vacation from 2027-07-14 to 2027-07-16\n",
        "Done.\nFinal Answer: I prepared the request for 3 working days; please approve it.",
        "Book it.\nAction: leave_request\nAction Input: sick from 2027-07-19 to 2027-07-19\n",
        "Done.\nFinal Answer: Prepared; please approve it.",
    ])
    window = MainWindow(Settings(user="Pedro Alves", leave_requests=True, agent_mode="react"), backend_factory=lambda s: backend,
                        ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    wait_ready(qtbot, window)
    store = RequestStore.default()
    window.input.setPlainText("Book me 3 days off from 14 July")
    window.send()
    qtbot.waitUntil(lambda: not window.busy and window.leave_card.isVisible(), timeout=20000)
    card = window.leave_text.text()
    assert "not submitted yet" in card and "3 working days" in card and "2027-07-14, 2027-07-15, 2027-07-16" in card
    assert "8 now" in card and "5 after" in card
    assert store.list(None) == []  # shown, not stored
    qtbot.mouseClick(window.leave_approve, Qt.LeftButton)
    qtbot.waitUntil(lambda: not window.leave_card.isVisible(), timeout=60000)
    assert [(r["employee"], r["day_count"], r["status"]) for r in store.list()] == [("Pedro Alves", 3, "pending")]
    qtbot.waitUntil(lambda: "Submitted: vacation leave 2027-07-14 to 2027-07-16" in window.transcript.toPlainText(),
                    timeout=5000)
    window.input.setPlainText("And a sick day on the 19th")
    window.send()
    qtbot.waitUntil(lambda: not window.busy and window.leave_card.isVisible(), timeout=20000)
    qtbot.mouseClick(window.leave_reject, Qt.LeftButton)
    qtbot.waitUntil(lambda: not window.leave_card.isVisible(), timeout=60000)
    assert len(store.list(None)) == 1  # the rejected one was never stored

    # Tools > Leave requests: the filed request, which its employee may cancel but not approve
    window.open_requests()
    dialog = window.requests_dialog
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1, timeout=20000)
    assert [dialog.table.item(0, c).text() for c in (1, 2, 3, 5, 7)] == [
        "Pedro Alves", "vacation", "2027-07-14", "3", "pending"]
    assert "leave" in dialog.policy.toPlainText().lower()  # what the policies say, beside the list
    dialog.table.selectRow(0)
    assert dialog.cancel_request.isEnabled() and not dialog.approve.isEnabled() and not dialog.decline.isEnabled()
    dialog.reason.setText("plans changed")
    assert not dialog.decline.isEnabled()  # nobody declines their own
    qtbot.mouseClick(dialog.cancel_request, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 0, timeout=20000)  # pending only: it is gone
    assert [r["status"] for r in store.list(None)] == ["cancelled"]
    dialog.show_decided.setChecked(True)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1, timeout=20000)
    assert dialog.table.item(0, 7).text() == "cancelled" and not dialog.cancel_request.isEnabled()
    # a step the store refuses (approving in single-user mode, where no manager exists) is said, not done
    problems = []
    window._problem = lambda title, message, hint="": problems.append(message)
    window.request_act_on_request.emit(store.list(None)[0]["id"], "approved", "")
    qtbot.waitUntil(lambda: bool(problems), timeout=20000)
    assert "nobody else sees your requests" in problems[0] and store.list(None)[0]["status"] == "cancelled"


def test_a_procedure_is_walked_through_in_a_card_and_resumes_after_a_restart(qtbot, tmp_path):
    path = tmp_path / "chats.sqlite"
    window = make_window(qtbot, ScriptedBackend([]), store=ChatStore(path))  # no model call is needed
    wait_ready(qtbot, window)
    window.send("How do I apply for parental leave?")
    qtbot.waitUntil(lambda: not window.busy and window.procedure_card.isVisible(), timeout=20000)
    card = window.procedure_card
    assert card.progress.text() == "Step 1 of 6" and "line manager" in card.step.text()
    assert "It applies to you" in window.transcript.toPlainText() and not card.back_button.isEnabled()
    qtbot.mouseClick(card.next_button, Qt.LeftButton)
    qtbot.mouseClick(card.skip_button, Qt.LeftButton)
    qtbot.mouseClick(card.back_button, Qt.LeftButton)
    assert card.progress.text() == "Step 2 of 6" and "certificate" in card.step.text()
    window._set_busy(True)  # another answer on its way: the card waits for it
    assert not card.isEnabled()
    window._set_busy(False)
    conversation = window.conversation
    window.close()
    # a restart: a new window over the same chat file resumes where the user left off
    again = make_window(qtbot, ScriptedBackend([]), store=ChatStore(path))
    wait_ready(qtbot, again)
    again.open_chat(conversation)
    assert again.procedure_card.isVisible() and again.procedure_card.progress.text() == "Step 2 of 6"
    qtbot.mouseClick(again.procedure_card.cancel_button, Qt.LeftButton)
    assert not again.procedure_card.isVisible()
    qtbot.waitUntil(lambda: "Cancelled at step 2 of 6" in again.transcript.toPlainText(), timeout=5000)
    assert ChatStore(path).messages(conversation)[-1].content == "Apply for parental leave: Cancelled at step 2 of 6."
    again.open_chat(conversation)
    assert not again.procedure_card.isVisible()  # a cancelled walk-through stays closed
    again.send("How do I apply for parental leave?")
    qtbot.waitUntil(lambda: not again.busy and again.procedure_card.isVisible(), timeout=20000)
    again.delete_chat(conversation, confirm=False)
    assert not again.procedure_card.isVisible() and again.chat.procedure_msg is None


def test_the_answer_card_shows_live_progress_then_how_i_got_this(qtbot):
    backend = ScriptedBackend(list(SCRIPT), token_delay=0.02)
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    window.send("Can I cash out unused vacation leave, and how much would I get for 10 days?")
    # at once: when send() returns, before the event loop ran once (so before any signal of the
    # worker reached the window), the card already says it is working. No wall-clock bound: a
    # loaded CI machine made a 200 ms bound fail while the behaviour was right.
    assert "Working on it" in window.transcript.toPlainText()
    qtbot.waitUntil(lambda: "Searching the policies: “encashment of annual leave”" in window.transcript.toPlainText(),
                    timeout=20000)
    qtbot.waitUntil(lambda: "Calculating round(46000 ÷ 260 × 10, 2)" in window.transcript.toPlainText(), timeout=20000)
    text = window.transcript.toPlainText()
    assert "✓ Searching the policies" in text and "✓ Looking up the employee data" in text
    qtbot.waitUntil(lambda: not window.busy, timeout=20000)
    text = window.transcript.toPlainText()
    assert "Working on it" not in text and "Searching the policies" not in text  # collapsed
    assert "How I got this · 3 tool steps · 4 model calls" in text
    window.side_tabs.setCurrentIndex(1)
    window.trace_tree.clear()
    window.transcript.cards[1].footer.linkActivated.emit("trace:1")  # the card's "How I got this"
    assert window.side_tabs.currentWidget() is window.trace_tree
    turn = window.trace_tree.topLevelItem(0)
    assert turn.text(0) == "Question" and turn.isExpanded() and turn.childCount() > 3


LDD = """\tlinux-vdso.so.1 (0x00007ffd)
\tlibQt6XcbQpa.so.6 => /opt/PySide6/Qt/lib/libQt6XcbQpa.so.6 (0x00007f83)
\tlibxcb-icccm.so.4 => not found
\tlibxcb-keysyms.so.1 => not found
\tlibxcb-cursor.so.0 => not found
\tlibxcb-icccm.so.4 => not found
\tlibweird.so.3 => not found
"""


def test_missing_qt_libraries_become_install_lines():
    from desktop.platform_check import install_lines, missing_libraries

    missing = missing_libraries(LDD)
    assert missing == ["libxcb-icccm.so.4", "libxcb-keysyms.so.1", "libxcb-cursor.so.0", "libweird.so.3"]
    lines = install_lines(missing)
    assert "sudo apt-get install libxcb-icccm4 libxcb-keysyms1 libxcb-cursor0" in lines
    assert "sudo dnf install xcb-util-wm xcb-util-keysyms xcb-util-cursor" in lines
    assert "provides: libweird.so.3" in lines


def test_which_platform_is_checked():
    from desktop.platform_check import _platform, qt_platform_problem

    assert _platform({"QT_QPA_PLATFORM": "offscreen", "DISPLAY": ":0"}) is None
    assert _platform({"WAYLAND_DISPLAY": "wayland-0", "DISPLAY": ":0"}) == "wayland"
    assert _platform({"DISPLAY": ":0"}) == "xcb" and _platform({"QT_QPA_PLATFORM": "xcb"}) == "xcb"
    assert "no display" in qt_platform_problem({})
    assert qt_platform_problem({"QT_QPA_PLATFORM": "offscreen"}) is None


def test_the_app_names_the_packages_instead_of_qts_abort(tmp_path):
    """On this machine, for real: ldd over PySide6's own xcb plugin. Where every library is
    installed there is nothing to name, and the check must then stay out of the way."""
    from desktop.platform_check import _plugin, missing_libraries

    plugin = _plugin("libqxcb.so")
    if plugin is None or shutil.which("ldd") is None:
        pytest.skip("no xcb plugin or no ldd here")
    missing = missing_libraries(subprocess.run(["ldd", str(plugin)], capture_output=True, text=True).stdout)
    env = {k: v for k, v in os.environ.items() if k not in ("QT_QPA_PLATFORM", "WAYLAND_DISPLAY")}
    env.update(DISPLAY=":99", HOME=str(tmp_path))  # a display that does not exist: Qt would abort
    run = subprocess.run([sys.executable, "-c", "import sys, desktop.app; sys.exit(desktop.app.run([]))"],
                         cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    if missing:
        assert run.returncode == 2 and "sudo apt-get install" in run.stderr, run.stderr
        assert all(lib in run.stderr for lib in missing)
    else:  # the plugin loads; Qt itself then fails to reach :99, with its own message
        assert "sudo apt-get install" not in run.stderr


def test_each_background_job_reports_its_own_state_and_none_waits_for_the_model(qtbot):
    import threading

    release = threading.Event()

    def slow_model(settings):
        release.wait(30)  # a model that takes long to load (a 1.5B model on a busy laptop)
        return ScriptedBackend(["Hi.\nFinal Answer: Hello!"])

    from engine.assistant import build_policy_index

    build_policy_index(Settings())  # indexed before (the usual start): checked in milliseconds
    window = MainWindow(Settings(user="Pedro Alves"), backend_factory=slow_model, ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    # the data and the policy index are ready while the model is still loading
    qtbot.waitUntil(lambda: window.policy_status.text().startswith("Policies: 68 passages"), timeout=60000)
    assert window.data_status.text() == "Employee data: 42 people"
    assert window.model_status.text() == "Model: loading…" and not window.model_loaded
    release.set()
    qtbot.waitUntil(lambda: window.model_status.text().startswith("Model: ready"), timeout=30000)
    assert window.model_loaded


def test_the_card_says_which_step_runs_now_one_line_per_step(qtbot):
    """The routed agent announces each step as it starts (choosing the fields, writing the answer): the card
    shows it while it runs and ticks it off when the next starts; the Reasoning tab lists the same steps."""
    backend = ScriptedBackend(["sick_days_remaining\n", "You have 2 sick days left."], token_delay=0.15)
    window = make_window(qtbot, backend, agent_mode="route")
    wait_ready(qtbot, window)
    window.send("How many sick days do I have left?")
    qtbot.waitUntil(lambda: "… Choosing what to read from your record" in window.transcript.toPlainText(),
                    timeout=30000)
    qtbot.waitUntil(lambda: "… Writing the answer" in window.transcript.toPlainText(), timeout=30000)
    text = window.transcript.toPlainText()
    assert "✓ Choosing what to read from your record" in text and "✓ Reading your record" in text
    rows = [(window.trace_tree.topLevelItem(i).text(0), window.trace_tree.topLevelItem(i).text(1))
            for i in range(window.trace_tree.topLevelItemCount())]
    assert ("Step", "Writing the answer") in rows and ("Step", "Choosing what to read from your record") in rows
    assert "Thinking" not in text  # a step is always named
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    progress = window.messages[-1]["trace"]["progress"]
    assert [p["text"] for p in progress] == ["Choosing what to read from your record", "Reading your record",
                                             "Writing the answer"]
    assert all(p["done"] for p in progress)  # the last stage is closed when the answer is in


def test_the_sample_company_starts_with_a_welcome_page_and_starter_questions(qtbot):
    """No account of the sample company matches this computer's: a page says it is sample data and offers an
    employee, a manager and HR to try (no warning about the account); the chosen person's role decides the
    questions an empty chat offers, and a click asks one."""
    backend = ScriptedBackend(["Final Answer: ok"] * 4)
    window = MainWindow(Settings(agent_mode="react"), backend_factory=lambda s: backend, ask_sign_in=True)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.welcome.isVisible() and len(window.persona_buttons) == 3, timeout=60000)
    assert "sample company" in window.welcome_text.text()
    labels = [b.text() for b in window.persona_buttons]
    assert [label.split(":")[0] for label in labels] == ["Employee", "Manager", "HR"]
    assert "direct reports" in labels[1] and "every employee" in labels[2]
    assert window.last_problem is None  # no "ask HR to add your account" on a demo
    qtbot.waitUntil(lambda: window.model_loaded, timeout=60000)
    manager = labels[1].split(": ", 1)[1].split(" — ")[0]
    window.persona_buttons[1].click()
    qtbot.waitUntil(lambda: window.role == "manager", timeout=60000)
    assert window.user == manager and not window.welcome.isVisible()
    assert "Sample company" in window.user_label.text()
    qtbot.waitUntil(lambda: "Who reports to me?" in window.transcript.starters, timeout=30000)
    starters = window.transcript.starters
    assert "How do I apply for parental leave?" in starters  # a procedure HR wrote
    assert all("salary" not in q for q in starters) and len(starters) <= 5
    chip = next(w for w in window.transcript.findChildren(QPushButton) if getattr(w, "full_text", "") == "Who reports to me?")
    chip.click()
    qtbot.waitUntil(lambda: not window.busy and len(window.messages) == 2, timeout=30000)
    assert window.messages[0]["content"] == "Who reports to me?"
    assert not window.transcript._starter_box.isVisibleTo(window)  # the chat is no longer empty


def test_cards_fit_the_pane_chips_wrap_and_long_source_names_elide(qtbot):
    """A narrow window: the conversation never scrolls sideways, every card fits its width, and a chip too long
    for it shows its name elided in the middle (the whole name is in its tooltip and copied text)."""
    window = make_window(qtbot, ScriptedBackend(["Final Answer: ok"]))
    wait_ready(qtbot, window)
    long = "handbooks/2026/people-and-culture/leave-and-time-off-policy-for-all-permanent-staff-v12-final.md"
    citations = [{"n": k, "source": long, "section": f"Section {k} › Carry-over of unused annual leave days",
                  "location": "p. 3", "text": "Up to 5 days may be carried over."} for k in range(1, 5)]
    window.chat.messages = [{"id": None, "role": "user", "content": "Can I carry over leave?", "trace": None},
                       {"id": None, "role": "assistant", "content": "Up to 5 days [1].",
                        "trace": {"citations": citations, "steps": []}}]
    window.render()
    for width in (1200, 760, 560):
        window.resize(width, 700)
        qtbot.wait(150)
        view = window.transcript
        assert view.horizontalScrollBar().maximum() == 0 or not view.horizontalScrollBar().isVisible()
        for card in view.cards:
            assert card.geometry().right() <= view.viewport().width() + 1, (width, card.geometry())
        chips = [c for c in view.cards[1].findChildren(QPushButton) if c.objectName() == "chip"]
        assert len(chips) == 4 and all(c.geometry().right() <= view.cards[1].width() for c in chips)
        if width == 560:
            assert all("…" in c.text() for c in chips) and long in chips[0].toolTip()
    assert long in view.cards[1].plain_text()


def test_the_status_bar_names_the_model_server_and_its_slots(qtbot):
    class ServerModel(ScriptedBackend):
        url, slots = "http://127.0.0.1:8088", 4

    window = make_window(qtbot, ServerModel(["Final Answer: ok"]))
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: "ready" in window.model_status.text(), timeout=30000)
    assert "(server http://127.0.0.1:8088, 4 parallel slots)" in window.model_status.text()


def test_new_settings_reach_the_worker_with_the_request_on_its_own_thread(qtbot):
    """A change of model settings is sent to the worker with the reload request: the window never
    writes the worker's settings from its own thread."""
    backend = ScriptedBackend(["Hello."])
    window = make_window(qtbot, backend)
    wait_ready(qtbot, window)
    new = window.settings.replace(max_steps=3)
    window.apply_settings(new)
    assert window.settings == new
    qtbot.waitUntil(lambda: window.worker.settings == new, timeout=20000)
    qtbot.waitUntil(lambda: window.model_loaded, timeout=20000)


def _policy_folder(path, files: int, rules: int = 20):
    path.mkdir(exist_ok=True)
    for i in range(files):
        (path / f"policy-{i}.md").write_text(f"# Policy {i}\n\n" + "\n\n".join(
            f"Rule {i}.{j}: staff may take {j} days of leave of type {i}-{j} after {j + 2} months." for j in range(rules)))
    return path


def test_one_engine_thread_owns_the_model_and_the_embedder(qtbot, tmp_path, monkeypatch):
    """The window has one executor: the chat model and the embedding model are only ever used on its
    thread (start-up indexing, a search, a re-index and a question alike), never on the window's."""
    import threading

    from PySide6.QtCore import QThread

    from engine.policy.embedder import Embedder

    used: dict[str, set[int]] = {"embedder": set(), "model": set()}
    encode = Embedder.encode

    def recorded_encode(self, texts, *args, **kw):
        used["embedder"].add(threading.get_ident())
        return encode(self, texts, *args, **kw)

    monkeypatch.setattr(Embedder, "encode", recorded_encode)

    class Recorded(ScriptedBackend):
        def stream(self, *args, **kw):
            used["model"].add(threading.get_ident())
            return (yield from super().stream(*args, **kw))

    docs = _policy_folder(tmp_path / "docs", 3, rules=4)
    backend = Recorded(["I will search.\nAction: policy_search\nAction Input: leave of type 1-2\n",
                        "Done.\nFinal Answer: Two days [1]."])
    window = make_window(qtbot, backend, policies=str(docs))
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: window.index_report is not None, timeout=60000)
    with qtbot.waitSignal(window.worker.search_done, timeout=20000):
        window.request_search.emit("leave of type 2-3")
    with qtbot.waitSignal(window.worker.reindexed, timeout=60000):
        window.request_reindex.emit(window.settings, True)
    window.send("How many days of leave of type 1-2 may I take?")
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    assert "Two days" in window.transcript.toPlainText()
    assert len(used["embedder"]) == 1 and used["embedder"] == used["model"]
    assert threading.get_ident() not in used["embedder"]
    assert window.findChildren(QThread) == [window.engine_thread]


def test_a_question_during_a_reindex_is_answered_between_its_steps_against_the_index_as_it_was(qtbot, tmp_path):
    """Re-indexing runs step by step on the engine thread: a question asked meanwhile is answered
    before the re-index ends, searching the index as it was; then the new index is searched."""
    docs = _policy_folder(tmp_path / "docs", 1, rules=4)
    backend = ScriptedBackend(["I will search.\nAction: policy_search\nAction Input: leave of type 0-2\n",
                               "Done.\nFinal Answer: Two days [1]."])
    window = make_window(qtbot, backend, policies=str(docs))
    wait_ready(qtbot, window)
    qtbot.waitUntil(lambda: window.index_report is not None and window.index_report.chunks > 0, timeout=60000)
    before = window.index_report.chunks
    _policy_folder(docs, 30)  # 29 new files: a step for each, and more to embed
    events: list[str] = []
    window.worker.reindexed.connect(lambda report: events.append(f"reindexed {report.chunks}"))
    window.worker.answered.connect(lambda trace: events.append("answered"))
    window.request_reindex.emit(window.settings, False)
    window.send("How many days of leave of type 0-2 may I take?")
    qtbot.waitUntil(lambda: len(events) == 2, timeout=120000)
    assert events[0] == "answered" and events[1].startswith("reindexed")
    assert int(events[1].split()[1]) >= before + 29
    sources = [window.sources.item(i).text() for i in range(window.sources.count())]
    assert sources and all("policy-0.md" in s for s in sources)  # searched before the new files were in
    with qtbot.waitSignal(window.worker.search_done, timeout=20000) as found:
        window.request_search.emit("leave of type 17-3")
    assert any(hit.source == "policy-17.md" for hit in found.args[1])


def test_a_question_during_the_first_indexing_waits_for_the_policies_and_stop_ends_it_at_once(qtbot, tmp_path):
    """At the first start the policies are still being indexed when the model is ready: a question
    asked then is answered once they are (with the policy search), and Stop on such a waiting
    question ends it without waiting for the indexing to finish (after the step under way: a file or
    a batch of embeddings) while the indexing goes on."""
    docs = _policy_folder(tmp_path / "docs", 60)
    backend = ScriptedBackend(["I will search.\nAction: policy_search\nAction Input: leave of type 40-2\n",
                               "Done.\nFinal Answer: Two days [1]."])
    window = make_window(qtbot, backend, policies=str(docs))
    qtbot.waitUntil(lambda: window.model_loaded, timeout=60000)
    assert window.index_report is None  # still indexing
    window.send("Tell me about leave of type 3-3")
    qtbot.waitUntil(lambda: "Waiting for the policy documents to be indexed" in window.transcript.toPlainText(),
                    timeout=20000)
    window.stop()
    # (it ends when the indexing step under way is done: one batch of embeddings, seconds on a loaded machine)
    qtbot.waitUntil(lambda: not window.busy, timeout=30000)
    assert "(stopped)" in window.transcript.toPlainText() and window.index_report is None
    assert backend.prompts == []  # the model never started on it
    window.send("How many days of leave of type 40-2 may I take?")
    qtbot.waitUntil(lambda: not window.busy, timeout=120000)
    assert window.index_report is not None and "Two days" in window.transcript.toPlainText()
    sources = [window.sources.item(i).text() for i in range(window.sources.count())]
    assert any("policy-40.md" in s for s in sources)
