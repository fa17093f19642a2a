"""Assemble an agent from settings: the model, the tools and who is asking.

The CLI, the evaluation harness and the desktop worker all build their agent
here, so they behave the same.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from .agent import Agent
from .llm import ModelBackend
from .models import resolve_model_path, resource_root
from .settings import Settings, data_dir
from .tools.base import ToolContext
from .tools.calculator import CalculatorTool
from .tools.registry import ToolRegistry


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


def build_data_tool(settings: Settings, sources: Sources | None = None):
    """The employee-data tool over the configured employee file (loaded once)."""
    from .access import AccessPolicy, AuditLog
    from .employees import load_employees
    from .tools.employee_data import EmployeeDataTool

    path = employees_path(settings, sources)
    policy_file = data_dir() / "access_policy.toml"
    policy = AccessPolicy.from_toml(policy_file) if policy_file.exists() else AccessPolicy()
    return EmployeeDataTool(load_employees(path), policy, AuditLog(data_dir() / "audit.log"))


def policies_path(settings: Settings, sources: Sources | None = None) -> Path:
    chosen = (sources.policies if sources else "") or settings.policies_path
    return Path(chosen).expanduser() if chosen else sample_data_dir() / "policies"


_EMBEDDERS: dict[str, object] = {}


def get_embedder(settings: Settings):
    """The embedding model (loaded once per process: loading torch takes seconds)."""
    from .policy.embedder import Embedder

    key = settings.embedding_model_path or ""
    if key not in _EMBEDDERS:
        _EMBEDDERS[key] = Embedder(key or None)
    return _EMBEDDERS[key]


def build_policy_index(settings: Settings, sources: Sources | None = None, *, rebuild: bool = False, progress=None):
    """The policy index of the configured folder, brought up to date (incrementally)."""
    from .policy.index import PolicyIndex

    index = PolicyIndex(policies_path(settings, sources), get_embedder(settings))
    index.last_report = index.update(rebuild=rebuild, progress=progress)
    return index


def assemble_tools(policy_index=None, data_tool=None) -> ToolRegistry:
    """The agent's tools in their fixed order; a part that could not be loaded (None) is left out."""
    from .tools.policy_search import PolicySearchTool

    tools = [PolicySearchTool(policy_index)] if policy_index is not None else []
    if data_tool is not None:
        tools.append(data_tool)
    return ToolRegistry([*tools, CalculatorTool()])


def build_tools(settings: Settings, sources: Sources | None = None, progress=None) -> ToolRegistry:
    """The registry of tools for this installation: policy search, employee data, calculator.
    ``progress(stage, done, total)`` reports an index (re)build, which can take minutes."""
    return assemble_tools(build_policy_index(settings, sources, progress=progress), build_data_tool(settings, sources))


def build_context(user: str, tools: ToolRegistry | None = None) -> ToolContext:
    """Who is asking; the role comes from the employee data, never from the question."""
    role = "employee"
    data = tools.get("employee_data") if tools is not None else None
    if data is not None and user:
        role = data.viewer(user).role
    return ToolContext(user=user, role=role)


def load_backend(settings: Settings, model: str | None = None, progress=None) -> ModelBackend:
    """The configured model; the default model is assembled first if it never was (``progress`` reports it)."""
    from .llama_backend import LlamaBackend  # heavy: imported only when a model is needed

    return LlamaBackend(resolve_model_path(model, settings, progress), settings)


def make_agent(backend: ModelBackend, tools: ToolRegistry, context: ToolContext, settings: Settings) -> Agent:
    """An agent with the configured limits and turn format (one place for the CLI, eval and the app)."""
    from .turn_format import choose_format

    return Agent(backend, tools, context, max_steps=settings.max_steps, max_tokens=settings.max_answer_tokens,
                 turn_format=choose_format(settings.turn_format, backend, tools, context))


def build_agent(backend: ModelBackend, settings: Settings, user: str, sources: Sources | None = None,
                progress=None) -> Agent:
    tools = build_tools(settings, sources, progress)
    return make_agent(backend, tools, build_context(user, tools), settings)
