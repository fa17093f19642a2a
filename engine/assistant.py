"""Assemble an agent from settings: the model, the tools and who is asking.

The CLI, the evaluation harness and the desktop worker all build their agent
here, so they behave the same.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path

from typing import TYPE_CHECKING

from engine.agent.loop import Agent
from engine.errors import HRAssistantError
from engine.model.backend import ModelBackend
from engine.model.discovery import resolve_model_path, resource_root
from engine.identity import Identity, os_account, resolve_identity
from engine.settings import Settings, data_dir
from engine.site import Site, load_site
from engine.tools.base import ToolContext
from engine.tools.employee_data import EmployeeDataTool
from engine.tools.registry import ToolRegistry

if TYPE_CHECKING:
    from engine.model.packs import Progress as PackProgress
    from engine.policy.index import PolicyIndex, Progress as IndexProgress

log = logging.getLogger(__name__)


@dataclass
class Sources:
    """Data the tools read; empty strings mean the configured default."""

    employees: str = ""
    policies: str = ""


def sample_data_dir() -> Path:
    """Our sample company (shipped with the app): in the checkout or bundle, else where the wheel put it."""
    candidates = [resource_root() / "data", Path(sys.prefix) / "share" / "hr-assistant" / "data"]
    for folder in candidates:
        if (folder / "employees.csv").is_file():
            return folder
    return candidates[0]


def employees_path(settings: Settings, sources: Sources | None = None) -> Path:
    chosen = (sources.employees if sources else "") or settings.employees_path
    return Path(chosen).expanduser() if chosen else sample_data_dir() / "employees.csv"


def build_data_tool(settings: Settings, sources: Sources | None = None, site: Site | None = None):
    """The employee-data tool over the configured employee file (loaded once).

    Where the data comes from, its column meanings, the access policy and the audit
    destination are the site file's when it sets them; the access policy is never read
    from a file in the user's own folders.
    """
    from engine.data.access import AccessPolicy, AuditLog
    from engine.data.employees import load_employees

    site = site if site is not None else load_site()
    site.check_override("employees_path", sources.employees if sources else "", "--employees")
    settings = site.apply(settings)
    policy = AccessPolicy.from_mapping(site.access, str(site.path)) if site.access else AccessPolicy()
    if site.database:
        # Site mode: the database decides which rows and columns this account receives.
        from engine.data.database import DatabaseAudit, load_from_database, role_name

        user = role_name(os_account())
        table = load_from_database(site.database, user, site.columns or None)
        return EmployeeDataTool(table, policy, DatabaseAudit(site.database, user, data_hash=table.sha256,
                                                             policy_hash=policy.fingerprint()))
    path = employees_path(settings, sources)
    table = load_employees(path, overrides=site.columns or None)
    from engine.data.audit import AuditHead

    audit = AuditLog(Path(site.audit).expanduser() if site.audit else data_dir() / "audit.log",
                     data_hash=table.sha256, policy_hash=policy.fingerprint(), shared=bool(site.audit),
                     head=AuditHead(site.audit_head) if site.audit_head else None)
    return EmployeeDataTool(table, policy, audit, demo=_is_sample(path))


def _is_sample(path: Path) -> bool:
    """Is this the bundled sample company (a demo, where picking a persona is allowed)?"""
    try:
        return path.resolve() == (sample_data_dir() / "employees.csv").resolve()
    except OSError:
        return False


def policies_path(settings: Settings, sources: Sources | None = None) -> Path:
    load_site().check_override("policies_path", sources.policies if sources else "", "--policies")
    chosen = (sources.policies if sources else "") or settings.policies_path
    return Path(chosen).expanduser() if chosen else sample_data_dir() / "policies"


_EMBEDDERS: dict[str, object] = {}


def get_embedder(settings: Settings):
    """The embedding model (loaded once per process: loading torch takes seconds)."""
    from engine.policy.embedder import Embedder

    key = settings.embedding_model_path or ""
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = Embedder(key or None)
    return _EMBEDDERS[key]


def build_policy_index(settings: Settings, sources: Sources | None = None, *, rebuild: bool = False,
                       progress: IndexProgress | None = None) -> PolicyIndex:
    """The policy index of the configured folder, brought up to date (incrementally)."""
    from engine.policy.index import PolicyIndex

    index = PolicyIndex(policies_path(settings, sources), get_embedder(settings))
    index.last_report = index.update(rebuild=rebuild, progress=progress)
    return index


def assemble_tools(policy_index=None, data_tool=None, leave_tool=None) -> ToolRegistry:
    """The agent's tools in the catalog's order; a part that could not be loaded (None) is left out
    (see :func:`engine.tools.catalog.assemble`)."""
    from engine.tools.base import ToolParts
    from engine.tools.catalog import assemble

    return assemble(ToolParts(policy_index=policy_index, data_tool=data_tool, leave_tool=leave_tool))


def build_leave_tool(settings: Settings, data_tool, sources: Sources | None = None):
    """The leave-request tool (when the setting is on and the data has a leave balance), with its
    calendar and the store approved requests go to; None otherwise."""
    from engine.workflows.leave import Calendar, LeaveDesk, RequestStore
    from engine.data.schema import leave_columns
    from engine.tools.leave_request import LeaveRequestTool

    if not settings.leave_requests or data_tool is None or not leave_columns(data_tool.table):
        return None
    holidays = settings.holidays_path or str(employees_path(settings, sources).with_name("holidays.csv"))
    desk = LeaveDesk(RequestStore.default(), data_tool.audit)
    return LeaveRequestTool(data_tool, Calendar.load(holidays), desk)


def build_tools(settings: Settings, sources: Sources | None = None,
                progress: IndexProgress | None = None) -> ToolRegistry:
    """The registry of tools for this installation: policy search, employee data, calculator.
    ``progress(stage, done, total)`` reports an index (re)build, which can take minutes."""
    data = build_data_tool(settings, sources)
    return assemble_tools(build_policy_index(settings, sources, progress=progress), data,
                          build_leave_tool(settings, data, sources))


def sign_in(tools: ToolRegistry | EmployeeDataTool | None, requested: str = "", *, personas: bool = False,
            remembered: str = "", site: Site | None = None) -> Identity:
    """Who is asking: the OS account, or a persona where that is allowed (see :mod:`engine.identity`).

    ``tools`` is the registry or the employee-data tool itself; ``remembered`` is the persona
    chosen last time (settings), used only where choosing one is allowed."""
    data = tools.of(EmployeeDataTool) if isinstance(tools, ToolRegistry) else tools
    if data is None:
        account = os_account()
        return Identity(account=account, user="", name=account,
                        notice="The employee data is not available: the assistant answers from the policies "
                               "and the calculator only.")
    site = site if site is not None else load_site()
    identity = resolve_identity(data, requested, site=site, personas=personas)
    if not requested and remembered and identity.can_choose:
        try:
            return resolve_identity(data, remembered, site=site, personas=personas)
        except HRAssistantError:
            pass  # a persona from another data file: signed in as the OS account instead
    return identity


def context_for(identity: Identity, tools: ToolRegistry | None = None) -> ToolContext:
    """The tools' view of an identity; the role comes from the employee data, never from the question."""
    role = "employee"
    data = tools.of(EmployeeDataTool) if tools is not None else None
    if data is not None and identity.user:
        role = data.viewer(identity.user).role
    return ToolContext(user=identity.user, role=role, account=identity.account, view_as=identity.view_as,
                       name=identity.name if identity.user else "")


def build_context(user: str, tools: ToolRegistry | None = None, *, personas: bool = False) -> ToolContext:
    """Who is asking, as :func:`sign_in` decides it (``user`` is a requested persona, may be empty)."""
    return context_for(sign_in(tools, user, personas=personas), tools)


def load_backend(settings: Settings, model: str | None = None, progress: PackProgress | None = None, model_url: str | None = None
                 ) -> ModelBackend:
    """The configured model: the site's inference server when ``model_url`` is set, else a local GGUF
    file (the default model is assembled first if it never was; ``progress`` reports it)."""
    url = model_url or settings.model_url
    if url and not model:
        from engine.model.remote import RemoteBackend

        return RemoteBackend(url, settings)
    from engine.model.llama import LlamaBackend  # heavy: imported only when a model is needed

    return LlamaBackend(resolve_model_path(model, settings, progress), settings)


def make_agent(backend: ModelBackend, tools: ToolRegistry, context: ToolContext, settings: Settings) -> Agent:
    """An agent with the configured limits and turn format (one place for the CLI, eval and the app)."""
    from engine.agent.turn_format import choose_format

    if not context.user and tools.get("employee_data") is not None:
        # Not in the employee data: policies and the calculator only (the data tool would only refuse).
        tools = ToolRegistry([t for t in tools if t.name != "employee_data"])
    turn_format = choose_format(settings.turn_format, backend, tools, context)
    if settings.agent_mode == "route":
        from engine.agent.routed import RoutedAgent

        return RoutedAgent(backend, tools, context, router=router_for(tools, settings),
                           examples=examples_for(tools, settings), max_steps=settings.max_steps,
                           max_tokens=settings.max_answer_tokens, turn_format=turn_format,
                           procedures=procedures_for(tools), readers=settings.rule_readers,
                           route_tiebreak=settings.route_tiebreak)
    return Agent(backend, tools, context, max_steps=settings.max_steps, max_tokens=settings.max_answer_tokens,
                 turn_format=turn_format, mode=settings.agent_mode, procedures=procedures_for(tools))


_BANKS: dict[tuple[str, int], object] = {}


def _embedder_of(tools: ToolRegistry, settings: Settings):
    search = tools.get("policy_search")
    return getattr(getattr(search, "index", None), "embedder", None) or get_embedder(settings)


def router_for(tools: ToolRegistry, settings: Settings):
    """The question router over the embedding model the policy search uses (its examples embedded once)."""
    from engine.agent.router import Router

    embedder = _embedder_of(tools, settings)
    return _BANKS.setdefault(("router", id(embedder)), Router(embedder))


def examples_for(tools: ToolRegistry, settings: Settings):
    """The worked examples the pipelines choose from, per question (embedded once)."""
    from engine.agent.examples import ExampleBank

    embedder = _embedder_of(tools, settings)
    return _BANKS.setdefault(("examples", id(embedder)), ExampleBank(embedder))


def procedures_for(tools: ToolRegistry):
    """The procedures written in the policy folder (None without policy search). A file that is not a
    valid procedure is logged and left out; it is still indexed as an ordinary policy document."""
    from engine.workflows.procedures import ProcedureBook

    search = tools.get("policy_search")
    root = getattr(getattr(search, "index", None), "root", None)
    if root is None:
        return None
    book = ProcedureBook.load(root)
    for problem in book.problems:
        log.warning("procedure skipped: %s", problem)
    return book


def build_agent(backend: ModelBackend, settings: Settings, user: str, sources: Sources | None = None,
                progress=None) -> Agent:
    """An agent for the OS account (or the persona ``user``, where that is allowed); ``agent.identity`` says which."""
    tools = build_tools(settings, sources, progress)
    identity = sign_in(tools, user, remembered=settings.user)
    agent = make_agent(backend, tools, context_for(identity, tools), settings)
    agent.identity = identity
    return agent
