"""The one object that runs engine work off the UI thread.

``EngineWorker`` lives on a QThread and talks to the window only through
signals: the window emits requests (queued across threads), the worker emits
results. Cancellation is a ``threading.Event`` the window sets directly; the
engine checks it between tokens. Indexing runs in ``IndexWorker`` on a second
thread so chat continues meanwhile; the new index is handed to the engine
worker when it is ready.
"""

from __future__ import annotations

import datetime as _dt
import logging
import threading
import traceback
from typing import Callable

from PySide6.QtCore import QObject, QThread, Signal, Slot

from engine.errors import HRAssistantError
from engine.settings import Settings

log = logging.getLogger(__name__)


class _Closing(Exception):
    """The window is closing: long start-up work stops at its next checkpoint."""


class _Call(QThread):
    """Runs one function on a thread of its own (the model load at start-up)."""

    def __init__(self, fn: Callable[[], None]) -> None:
        super().__init__()
        self.fn = fn

    def run(self) -> None:  # noqa: D102 - Qt API
        self.fn()


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
    failed = Signal(str, str)

    def __init__(self, backend_factory: Callable[[Settings], object] | None = None) -> None:
        super().__init__()
        self.backend_factory = backend_factory
        self.cancel_event = threading.Event()
        # Set by the window's closeEvent (not by Stop): indexing and warm-up end at their next
        # checkpoint, so the thread can finish before the window (its QThread's parent) goes.
        self.closing = threading.Event()
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
        self.load_data()
        # The model loads beside the policy index (each its own job): neither waits for the other.
        # A QThread, not a Python thread: it emits this worker's signals, which Qt must see come
        # from a thread it knows.
        loader = _Call(self._load_backend)
        loader.setObjectName("model-load")
        loader.start()
        self.load_policies()
        loader.wait()
        if self.closing.is_set():
            return
        self._prepare_model()
        from .startup_clock import log, seconds_since_start

        log.info("engine ready after %.2f s (model loaded: %s)", seconds_since_start(), self.backend is not None)

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
            personas = []
            if self.data_tool.demo and not identity.user:
                from engine.starters import sample_personas

                personas = [vars(p) for p in sample_personas(self.data_tool)]
            self.data_ready.emit({
                "employees": names, "source": table.source, "problems": table.problems(),
                "user": identity.name, "role": viewer.role if viewer else "", "found": viewer is not None,
                "account": identity.account, "how": identity.how, "view_as": identity.view_as,
                "can_choose": identity.can_choose, "notice": identity.notice, "demo": self.data_tool.demo,
                "personas": personas, "accounts": _filer_names(identity.account)})
            self.job.emit("data", f"Employee data: {len(table.df)} people")
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
        from engine.assistant import build_policy_index

        self.job.emit("policies", "Policies: loading…")
        try:
            shown = [""]

            def progress(stage: str, done: int, total: int) -> None:
                if self.closing.is_set():
                    raise _Closing()
                # Only real work is shown (an unchanged index is checked in milliseconds).
                text = f"Indexing the policies: {stage} {done} of {total}…"
                if stage != "checking" and text != shown[0]:
                    shown[0] = text
                    self.status.emit(text)
                    self.job.emit("policies", f"Policies: {stage} {done} of {total}…")

            self.policy_index = build_policy_index(self.settings, progress=progress)
            self.policies_ready.emit(self.policy_index.last_report)
            self.passages.emit(self.policy_index.outline())
            report = self.policy_index.last_report
            files = len(report.added) + len(report.changed) + len(report.unchanged)
            self.job.emit("policies", f"Policies: {report.chunks} passages from {files} files")
            self._emit_starters()
        except _Closing:
            self.policy_index = None  # nothing was saved: the next start indexes again
        except HRAssistantError as exc:
            self.job.emit("policies", "Policies: not available")
            self.policy_index = None
            self.policies_failed.emit(exc.message, exc.hint)

    def _emit_starters(self) -> None:
        """Questions to try, from what is loaded so far (the data's balances, the procedures HR wrote)."""
        from engine.starters import starter_questions
        from engine.workflows.procedures import ProcedureBook

        titles: list[str] = []
        root = getattr(self.policy_index, "root", None)
        if root is not None:
            try:
                titles = [p.title for p in ProcedureBook.load(root).procedures]
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
        self._load_backend()
        self._prepare_model()

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
        """Load the model (on the start-up's loader thread, or the worker's); report it by signals."""
        try:
            self._load_backend_or_fail()
        except Exception as exc:  # a thread of its own: nothing may escape unseen
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

    @Slot(object)
    def use_index(self, index) -> None:
        """A re-index finished on the index thread: search the new index from now on."""
        self.policy_index = index
        self.agent = None

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
        self.cancel_event.clear()
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


class IndexWorker(QObject):
    """Re-indexes the policy folder on its own thread, so chat continues meanwhile."""

    progress = Signal(str, int, int)
    done = Signal(object, object)  # index, report
    failed = Signal(str, str)

    def __init__(self) -> None:
        super().__init__()
        self.closing = threading.Event()  # see EngineWorker.closing

    def _progress(self, stage: str, done: int, total: int) -> None:
        if self.closing.is_set():
            raise _Closing()
        self.progress.emit(stage, done, total)

    @Slot(object, bool)
    def reindex(self, settings: Settings, rebuild: bool) -> None:
        from engine.assistant import get_embedder, policies_path
        from engine.policy.index import PolicyIndex

        try:
            index = PolicyIndex(policies_path(settings), get_embedder(settings))
            report = index.update(rebuild=rebuild, progress=self._progress)
            index.last_report = report
            self.done.emit(index, report)
        except _Closing:
            pass  # the old index stays on disk as it was
        except HRAssistantError as exc:
            self.failed.emit(exc.message, exc.hint)
        except Exception as exc:
            self.failed.emit(f"Indexing failed ({type(exc).__name__}: {exc}).", "Check the policy folder.")


def _filer_names(account: str) -> list[str]:
    """The names a request this person filed carries: the OS account, and its database role at a site."""
    from engine.data.database import role_name

    return [account, role_name(account)] if account else []


def assemble_tools_for_context(worker: "EngineWorker"):
    from engine.assistant import assemble_tools

    return assemble_tools(worker.policy_index, worker.data_tool, worker.leave_tool)
