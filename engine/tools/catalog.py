"""Every kind of tool the app has, by name: how the window labels a source and describes a call.

A trace saved with a chat names its tools by name; the window reads them back without building
the tools (which need the data and the index), so it asks this catalog. Adding a tool is its
module plus one line here.
"""

from __future__ import annotations

from engine.tools.base import Tool
from engine.tools.calculator import CalculatorTool
from engine.tools.employee_data import EmployeeDataTool
from engine.tools.leave_request import LeaveRequestTool
from engine.tools.policy_search import PolicySearchTool

KINDS: dict[str, type[Tool]] = {cls.name: cls for cls in (PolicySearchTool, EmployeeDataTool, CalculatorTool,
                                                          LeaveRequestTool)}


def label(name: str) -> str:
    """How the window names a tool as the source of a figure ("the policies")."""
    kind = KINDS.get(name)
    return kind.label if kind is not None else name


def describe_call(name: str, tool_input: str) -> str:
    """A call of tool ``name`` as the person reads it in the answer card."""
    kind = KINDS.get(name)
    return kind.describe_call(tool_input) if kind is not None else f"Using {name}"
