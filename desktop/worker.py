"""The one executor of engine work in the window, off the UI thread.

``EngineWorker`` lives on one QThread and owns everything heavy: the chat model, the embedding
model, the policy index, the employee data. It talks to the window only through signals: the
window emits requests (queued across threads), the worker emits results. Cancellation is a
``threading.Event`` the window sets directly; the engine checks it between tokens.

Indexing is cooperative rather than a second thread: the policy index is brought up to date one
step at a time (a file read, a batch of passages embedded), each step a queued event of this
thread, so a question asked meanwhile is answered between two steps, against the index as it was,
and the embedder is never used from two threads at once.
"""

from __future__ import annotations

import datetime as _dt
import logging
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Generator

from PySide6.QtCore import QObject, Qt, Signal, Slot

from engine.errors import HRAssistantError
from engine.settings import Settings

log = logging.getLogger(__name__)
WAITING_FOR_INDEX = "Waiting for the policy documents to be indexed"


@dataclass
class _IndexJob:
    """A policy index being brought up to date, one step per event of the worker's thread."""

    index: Any  # engine.policy.index.PolicyIndex, not yet searched
    steps: Generator[tuple[str, int, int], None, Any]  # PolicyIndex.update_steps
    startup: bool  # the start-up's update (else a re-index asked for in the Documents dialog)
    shown: str = ""


class EngineWorker(QObject):
    # -> window
    status = Signal(str)
    job = Signal(str, str)  # "data" | "policies" | "model", and what it is doing now (for the status bar)
    data_ready = Signal(object)  # dict: user, role, name, employees (list of names)
    data_failed = Signal(str, str)
    policies_ready = Signal(object)  # IndexReport
    passages = Signal(object)  # dict: each policy file's passages in order (PolicyIndex.outline)
    policies_failed = Signal(str, str)
    model_ready = Signal(object)  # dict of model info
    model_missing = Signal(str)
    model_failed = Signal(str, str)
    step = Signal(object)  # engine.agent.steps.Step
    answered = Signal(object)  # engine.agent.steps.Trace
    search_done = Signal(str, object)  # query, list[Hit]
    lookup_done = Signal(object)  # ToolResult
    leave_decided = Signal(object)  # dict of the engine.workflows.leave.LeaveRequest, status "pending" or "rejected"
    requests_listed = Signal(object, object)  # list of stored request dicts (as the store lets us see), policy hits
    request_acted = Signal(object)  # the request dict after an approve/decline/cancel
    starters = Signal(object)  # list[str]: questions to try, for the signed-in person's role
    index_progress = Signal(str, int, int)  # a re-index's stage, done, total (the Documents dialog)
    reindexed = Signal(object)  # IndexReport of a finished re-index, now searched
    index_failed = Signal(str, str)  # a re-index failed; the index as it was is still searched
    failed = Signal(str, str)
    # -> this worker itself, queued: the next step of an index job, the start-up's model load
    _next_index_step = Signal(object)
    _load_model_next = Signal()

    def __init__(self, backend_factory: Callable[[Settings], object] | None = None) -> None:
        super().__init__()
        self.backend_factory = backend_factory
        self.cancel_event = threading.Event()
        # Set by the window's closeEvent (not by Stop): indexing and warm-up end at their next
        # checkpoint, so the thread can finish before the window (its QThread's parent) goes.
        self.closing = threading.Event()
        self._index_job: _IndexJob | None = None
        self._prepared = False  # the loaded model has read its instructions once (warm_up)
        self._model_pending = False  # the start-up's model load is queued, not yet tried
        self._starting = False  # a start-up whose "engine ready" is not yet logged
        # Questions ("ask") and searches waiting for the start-up's index, in the order they came.
        self._held: list[tuple[str, Callable[[], None]]] = []
        # Queued even when emitted on this thread: each step is an event of its own, so requests
        # already waiting (a question, a search) run before it.
        self._next_index_step.connect(self._index_step, Qt.QueuedConnection)
        self._load_model_next.connect(self._start_model, Qt.QueuedConnection)
        self.settings = Settings()
        self.user = ""  # a persona asked for (sample company, kiosk, HR's "view as"); "" = the OS account
        self.identity = None  # engine.identity.Identity, decided when the data is loaded
        self.backend = None
        self.data_tool = None
        self.leave_tool = None
        self.policy_index = None
        self.agent = None
        self.agent_conversation: int | None = None
        self._role = ""  # the signed-in person's role ("" = not in the data), for the starter questions

    # -- setup ----------------------------------------------------------------------------------
    @Slot(object, str)
    def start(self, settings: Settings, user: str) -> None:
        """Load the employee data, the policy index and the model, reporting each as it is ready."""
        self.settings, self.user = settings, user
        self.agent = None
        self._prepared = False
        self._model_pending = self._starting = True
        self.load_data()
        # An unchanged index is checked here in milliseconds; real indexing work goes step by step,
        # and the model loads after its first step, so neither waits for the other to finish.
        self.job.emit("model", "Model: loading…")  # next in this thread's queue
        self.load_policies()
        self._load_model_next.emit()

    @Slot()
    def _start_model(self) -> None:
        if self.closing.is_set():
            return
        self._load_backend()
        self._model_pending = False
        self._prepare_when_ready()

    @Slot(str)
    def set_user(self, user: str) -> None:
        """A persona was picked (where that is allowed): their access applies from the next question on."""
        self.user = user
        self.agent = None
        self.load_data()

    @Slot()
    def load_data(self) -> None:
        """Load the employee data and decide who is asking: the OS account, or an allowed persona."""
        from engine.assistant import build_data_tool, build_leave_tool, sign_in
        from engine.errors import IdentityError

        self.job.emit("data", "Employee data: loading…")
        try:
            self.data_tool = build_data_tool(self.settings)
            self.leave_tool = build_leave_tool(self.settings, self.data_tool)
            try:
                self.identity = sign_in(self.data_tool, self.user, remembered=self.settings.user)
            except IdentityError as exc:
                self.failed.emit(exc.message, exc.hint)
                self.user = ""
                self.identity = sign_in(self.data_tool)
            identity, table = self.identity, self.data_tool.table
            name_col = table.role("name")
            # The list of names is only for those who may pick one.
            names = sorted(str(n) for n in table.df[name_col].dropna()) if name_col and identity.can_choose else []
            viewer = self.data_tool.viewer(identity.user) if identity.user else None
            self._role = viewer.role if viewer else ""
            # What the column meanings rest on: a map IT confirmed, or the app's guess (shown, so IT knows).
            cmap = table.column_map
            guessed = [] if self.data_tool.demo or (cmap is not None and cmap.confirmed) else \
                [f.line() for f in table.findings.values()]
            personas = []
            if self.data_tool.demo and not identity.user:
                from engine.starters import sample_personas

                personas = [vars(p) for p in sample_personas(self.data_tool)]
            self.data_ready.emit({
                "employees": names, "source": table.source, "problems": table.problems(),
                "user": identity.name, "role": viewer.role if viewer else "", "found": viewer is not None,
                "account": identity.account, "how": identity.how, "view_as": identity.view_as,
                "can_choose": identity.can_choose, "notice": identity.notice, "demo": self.data_tool.demo,
                "personas": personas, "accounts": _filer_names(identity.account),
                "columns_guessed": guessed})
            self.job.emit("data", f"Employee data: {len(table.df)} people"
                          + (" · columns guessed (no confirmed map)" if guessed else ""))
            self._emit_starters()
        except HRAssistantError as exc:
            self.job.emit("data", "Employee data: not available")
            self.data_tool = None
            self._role = ""
            self.leave_tool = None
            self.identity = None
            self.data_failed.emit(exc.message, exc.hint)

    def _context(self, tools):  # noqa: D401 - who is asking, for the tools
        from engine.assistant import context_for, sign_in

        identity = self.identity if self.identity is not None and self.data_tool is not None else sign_in(tools)
        return context_for(identity, tools)

    @Slot()
    def load_policies(self) -> None:
        """Bring the configured folder's policy index up to date (at start-up), step by step."""
        self.job.emit("policies", "Policies: loading…")
        self._begin_index(self.settings, rebuild=False, startup=True)

    @Slot(object, bool)
    def reindex(self, settings: Settings, rebuild: bool) -> None:
        """Re-index the policy folder (the Documents dialog). Questions asked meanwhile are answered
        between its steps against the index as it was; the new one is searched once it is complete."""
        self._begin_index(settings, rebuild=rebuild, startup=False)

    def _begin_index(self, settings: Settings, rebuild: bool, startup: bool) -> None:
        from engine.assistant import get_embedder, policies_path
        from engine.policy.index import PolicyIndex

        try:
            index = PolicyIndex(policies_path(settings), get_embedder(settings))
        except HRAssistantError as exc:
            self._index_failed(startup, exc.message, exc.hint)
            return
        # A job begun while another runs replaces it: the other's steps stop, having saved nothing.
        self._index_job = job = _IndexJob(index, index.update_steps(rebuild), startup)
        self._index_step(job)

    @Slot(object)
    def _index_step(self, job: _IndexJob) -> None:
        """Run the job up to its next piece of real work (a file read, a batch embedded), then queue
        the rest behind whatever the window has asked for meanwhile."""
        if job is not self._index_job:
            return  # replaced by a newer job, or the window is closing
        try:
            while True:
                if self.closing.is_set():
                    self._index_job = None  # nothing was saved: the next start indexes again
                    return
                if self.cancel_event.is_set() and self._held:
                    self._release_held(("ask",))  # Stop on a held question: it ends now, as stopped
                stage, done, total = next(job.steps)
                if stage != "checking":  # checking an unchanged file takes microseconds: not a step
                    self._index_progress(job, stage, done, total)
                    break
        except StopIteration as end:
            self._index_job = None
            self._index_done(job, end.value)
            return
        except HRAssistantError as exc:
            self._index_job = None
            self._index_failed(job.startup, exc.message, exc.hint)
            return
        except Exception as exc:  # a file someone dropped into the folder must not end the worker
            traceback.print_exc()
            self._index_job = None
            self._index_failed(job.startup, f"Indexing failed ({type(exc).__name__}: {exc}).",
                               "Check the policy folder.")
            return
        self._next_index_step.emit(job)

    def _held_for_index(self, kind: str, call: Callable[[], None]) -> bool:
        """Hold ``call`` while the start-up's index is being built (an answer or a search without the
        policies would be wrong, not early); True if held. A re-index holds nothing: meanwhile the
        index as it was is searched."""
        if self._index_job is None or not self._index_job.startup:
            return False
        self._held.append((kind, call))
        return True

    def _release_held(self, kinds: tuple[str, ...] = ("ask", "search")) -> None:
        released = [call for kind, call in self._held if kind in kinds]
        self._held = [(kind, call) for kind, call in self._held if kind not in kinds]
        for call in released:
            call()

    def _index_progress(self, job: _IndexJob, stage: str, done: int, total: int) -> None:
        text = f"Indexing the policies: {stage} {done} of {total}…"
        if text == job.shown:
            return
        job.shown = text
        self.job.emit("policies", f"Policies: {stage} {done} of {total}…")
        if job.startup:
            self.status.emit(text)
        else:  # the window shows it in the status bar and the Documents dialog
            self.index_progress.emit(stage, done, total)

    def _index_done(self, job: _IndexJob, report) -> None:
        job.index.last_report = report
        self.policy_index = job.index
        self.agent = None  # the next question searches the new index
        files = len(report.added) + len(report.changed) + len(report.unchanged)
        self.job.emit("policies", f"Policies: {report.chunks} passages from {files} files")
        self.passages.emit(job.index.outline())
        (self.policies_ready if job.startup else self.reindexed).emit(report)
        self._emit_starters()
        self._prepare_when_ready()
        if job.startup:
            self._release_held()

    def _index_failed(self, startup: bool, message: str, hint: str) -> None:
        if startup:
            self.job.emit("policies", "Policies: not available")
            self.policy_index = None
            self.policies_failed.emit(message, hint)
            self._prepare_when_ready()
            self._release_held()
        else:  # the index as it was is still searched
            kept = "; the earlier index is still searched" if self.policy_index is not None else ""
            self.job.emit("policies", "Policies: re-indexing failed" + kept)
            self.index_failed.emit(message, hint)

    def _emit_starters(self) -> None:
        """Questions to try, from what is loaded so far (the data's balances, the procedures HR wrote)."""
        from engine.starters import starter_questions
        from engine.workflows.procedures import ProcedureBook

        from engine.assistant import policies_path

        titles: list[str] = []
        try:  # the policy folder's procedures: read from the folder, indexed or not yet
            titles = [p.title for p in ProcedureBook.load(policies_path(self.settings)).procedures]
        except (HRAssistantError, OSError) as exc:  # the chips are a help: never a failure to show
            log.warning("procedures not read for the starter questions: %s", exc)
        table = self.data_tool.table if self.data_tool is not None else None
        self.starters.emit(starter_questions(table, getattr(self, "_role", ""), titles))

    @Slot(object)
    def load_model(self, settings=None) -> None:
        """(Re)load the chat model and prepare it (after a change of model in Settings). The new
        settings come with the request, so they are set on this thread, never from the window's."""
        if settings is not None:
            self.settings = settings
        self._prepared = False
        self._load_backend()
        self._prepare_when_ready()

    def _prepare_when_ready(self) -> None:
        """Warm the model up once it is loaded and the start-up's index is settled: the instructions
        it reads once name the tools, and the policy search is one only when there is an index."""
        if self.closing.is_set() or self._model_pending:
            return
        if self._index_job is not None and self._index_job.startup:
            if self.backend is not None:
                self.job.emit("model", "Model: loaded; waiting for the policy index")
            return
        if self.backend is not None and not self._prepared:
            self._prepared = True
            self._prepare_model()
        if self._starting:  # the data, the index and the model (or why there is none) are all settled
            self._starting = False
            from .startup_clock import log as clock_log, seconds_since_start

            clock_log.info("engine ready after %.2f s (model loaded: %s)", seconds_since_start(),
                           self.backend is not None)

    def _prepare_model(self) -> None:
        if self.backend is None:
            return
        self.warm_up()
        info = getattr(self.backend, "info", None)
        name = info.summary().get("name") if info is not None else getattr(self.backend, "name", "")
        text = f"Model: ready — {name}" if name else "Model: ready"
        url, slots = getattr(self.backend, "url", ""), getattr(self.backend, "slots", 0)
        if url:  # a site's model server: which one, and how many answers it writes at once
            text += f" (server {url}" + (f", {slots} parallel slots" if slots else "") + ")"
        self.job.emit("model", text)

    def _load_backend(self) -> None:
        """Load the model; report it by signals."""
        try:
            self._load_backend_or_fail()
        except Exception as exc:  # never let the worker thread die
            traceback.print_exc()
            self.backend = None
            self.job.emit("model", "Model: failed to load")
            self.model_failed.emit(f"The model could not be loaded ({type(exc).__name__}: {exc}).",
                                   "Choose another model file in Settings.")

    def _load_backend_or_fail(self) -> None:
        from engine.assistant import load_backend
        from engine.errors import NoModelFound
        from engine.model.discovery import no_model_message

        self.job.emit("model", "Model: loading…")
        if self.backend is not None and hasattr(self.backend, "close"):
            self.backend.close()
        self.backend = None
        shown = [-1]

        def progress(done: int, total: int, what: str) -> None:
            percent = done * 100 // max(total, 1)
            if percent != shown[0]:
                shown[0] = percent
                self.status.emit(f"Setting up the model {what} (first start only): {percent} %")
                self.job.emit("model", f"Model: setting up, {percent} %")

        try:
            if self.backend_factory is not None:
                self.backend = self.backend_factory(self.settings)
            else:
                if self.settings.model_url:
                    self.status.emit(f"Connecting to the model server {self.settings.model_url}…")
                # (the same choice of model as the CLI and the evaluation: engine.assistant.load_backend)
                self.backend = load_backend(self.settings, progress=progress)
        except NoModelFound:
            self.job.emit("model", "No chat model")
            self.model_missing.emit(no_model_message())
            return
        except HRAssistantError as exc:
            self.job.emit("model", "Model: failed to load")
            self.model_failed.emit(exc.message, exc.hint)
            return
        except MemoryError:
            self.job.emit("model", "Model: failed to load")
            self.model_failed.emit("The model does not fit into memory.",
                                   "Lower the context size in Settings or choose a smaller model.")
            return
        info = getattr(self.backend, "info", None)
        self.model_ready.emit(info.summary() if info is not None else {"name": getattr(self.backend, "name", "model")})

    def warm_up(self) -> None:
        """Evaluate the system prompt now, while the user reads the window, so the first
        question evaluates only its own tokens (seconds saved on a CPU)."""
        from engine.assistant import assemble_tools, make_agent

        if self.backend is None:
            return
        self.job.emit("model", "Model: preparing (reading the instructions once)…")
        try:
            tools = assemble_tools(self.policy_index, self.data_tool, self.leave_tool)
            make_agent(self.backend, tools, self._context(tools), self.settings).warm_up()
        except HRAssistantError as exc:  # a warm-up is an optimisation: never a failure to show
            log.warning("model warm-up skipped: %s", exc.message)

    # -- chat -----------------------------------------------------------------------------------
    def _agent(self, conversation: int, history: list[dict]):
        from engine.assistant import assemble_tools, make_agent

        if self.agent is None or self.agent_conversation != conversation:
            tools = assemble_tools(self.policy_index, self.data_tool, self.leave_tool)
            self.agent = make_agent(self.backend, tools, self._context(tools), self.settings)
            self.agent.history = list(history)
            self.agent_conversation = conversation
            if hasattr(self.backend, "set_conversation"):  # a site's balancer keeps each chat on one host
                self.backend.set_conversation(str(conversation))
        return self.agent

    @Slot(int, str, object)
    def ask(self, conversation: int, question: str, history: list) -> None:
        """Answer ``question`` in ``conversation``; ``history`` is used when the chat is new to the agent."""
        self.cancel_event.clear()  # (a Stop while the question is held still stops it)
        if not self._held_for_index("ask", lambda: self._answer(conversation, question, history)):
            self._answer(conversation, question, history)
            return
        from engine.agent.steps import StageStarted

        self.step.emit(StageStarted(doing=WAITING_FOR_INDEX))  # the answer card says why nothing moves yet

    def _answer(self, conversation: int, question: str, history: list) -> None:
        if self.backend is None:
            self.failed.emit("No chat model is loaded.", "Choose a GGUF model file in Settings.")
            return
        try:
            agent = self._agent(conversation, history)
            for step in agent.run(question, self.cancel_event):
                self.step.emit(step)
            self.answered.emit(agent.last_trace)
        except Exception as exc:  # never let the worker thread die
            self.agent = None
            traceback.print_exc()
            self.failed.emit(f"The assistant stopped unexpectedly ({type(exc).__name__}: {exc}).",
                             "Your chat is saved; try again, or restart the app.")

    @Slot(str, bool)
    def decide_leave(self, request_id: str, approve: bool) -> None:
        """The person approved (store it) or rejected (discard it) a prepared leave request."""
        if self.leave_tool is None:
            self.failed.emit("Leave requests are not available.", "Turn them on in Settings.")
            return
        try:
            tools = assemble_tools_for_context(self)
            request = self.leave_tool.desk.decide(request_id, approve, self._context(tools))
            self.leave_decided.emit(request.to_dict())
        except HRAssistantError as exc:
            self.failed.emit(exc.message, exc.hint)

    def _request_desk(self):
        """The desk for filed requests: the leave tool's, else one over the store this site uses."""
        if self.leave_tool is not None:
            return self.leave_tool.desk
        from engine.workflows.leave import LeaveDesk, RequestStore

        return LeaveDesk(RequestStore.default(), self.data_tool.audit if self.data_tool is not None else None)

    @Slot(bool)
    def list_requests(self, include_decided: bool) -> None:
        """The filed leave requests this person may see (theirs; a manager's reports'; HR: all), with
        what the policies say about notice and approval beside them."""
        try:
            store = self._request_desk().store
            if store.refuses:
                self.failed.emit(store.reason, store.hint)
                return
            from engine.workflows.leave import visible_to

            viewer = (self.data_tool.viewer(self.identity.user)
                      if self.data_tool is not None and self.identity is not None and self.identity.user else None)
            rows = visible_to(store.list(None if include_decided else "pending"), viewer)
            hits = []
            if self.policy_index is not None:
                try:
                    hits = self.policy_index.search("leave request notice approval manager", k=3)
                except HRAssistantError:
                    hits = []
            self.requests_listed.emit(rows, hits)
        except HRAssistantError as exc:
            self.failed.emit(exc.message, exc.hint)

    @Slot(str, str, str)
    def act_on_request(self, request_id: str, status: str, reason: str) -> None:
        """Approve or decline (the employee's manager or HR) or cancel (the employee) a filed request;
        the store (the database at a site) decides whether this person may."""
        try:
            tools = assemble_tools_for_context(self)
            row = self._request_desk().act(request_id, status, self._context(tools), reason)
            self.request_acted.emit(row)
        except HRAssistantError as exc:
            self.failed.emit(exc.message, exc.hint)

    @Slot()
    def forget_last_turn(self) -> None:
        """Regenerate / edit: the last question and answer leave the model's context."""
        if self.agent is not None and len(self.agent.history) >= 2:
            del self.agent.history[-2:]

    # -- without a model ------------------------------------------------------------------------
    @Slot(str)
    def search(self, query: str) -> None:
        if self._held_for_index("search", lambda: self.search(query)):
            return
        if self.policy_index is None:
            self.search_done.emit(query, [])
            return
        try:
            self.search_done.emit(query, self.policy_index.search(query, k=5))
        except HRAssistantError as exc:
            self.failed.emit(exc.message, exc.hint)

    @Slot()
    def my_record(self) -> None:
        """The signed-in user's own row of the employee data."""
        from engine.tools.base import ToolContext
        from engine.tools.employee_data import py_string

        if self.data_tool is None or self.identity is None:
            self.failed.emit("The employee data is not loaded.", "Check the employee file in Settings.")
            return
        if not self.identity.user:
            self.failed.emit(self.identity.notice, "")
            return
        table = self.data_tool.table
        viewer = self.data_tool.viewer(self.identity.user)
        name_col = table.role("name")
        query = f"df[df[{py_string(name_col)}] == {py_string(viewer.name)}]"
        try:
            result = self.data_tool.run(query, ToolContext(user=self.identity.user, role=viewer.role,
                                                           account=self.identity.account,
                                                           view_as=self.identity.view_as,
                                                           today=_dt.date.today().isoformat()))
            self.lookup_done.emit(result)
        except HRAssistantError as exc:
            self.failed.emit(exc.message, exc.hint)


def _filer_names(account: str) -> list[str]:
    """The names a request this person filed carries: the OS account, and its database role at a site."""
    from engine.data.database import role_name

    return [account, role_name(account)] if account else []


def assemble_tools_for_context(worker: "EngineWorker"):
    from engine.assistant import assemble_tools

    return assemble_tools(worker.policy_index, worker.data_tool, worker.leave_tool)
