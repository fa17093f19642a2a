"""Tools describe themselves: the window's labels and call descriptions, and which tools take only
sourced numbers, come from the tool classes; a new tool is its module, found by the catalog."""

from __future__ import annotations

from engine.agent.loop import Agent
from engine.model.scripted import ScriptedBackend
from engine.tools.base import Tool, ToolCard, ToolContext, ToolResult
from engine.tools.catalog import KINDS, describe_call, label
from engine.tools.registry import ToolRegistry


def test_every_tool_kind_labels_itself_and_describes_its_calls():
    assert set(KINDS) == {"policy_search", "employee_data", "calculator", "leave_request"}
    assert {name: label(name) for name in KINDS} == {
        "policy_search": "the policies", "employee_data": "the employee data", "calculator": "the calculator",
        "leave_request": "the leave request"}
    assert describe_call("policy_search", "  sick   leave ") == "Searching the policies: “sick leave”"
    assert describe_call("employee_data", "(your own record)") == "Reading your record"
    assert describe_call("employee_data", "Rows: my direct reports; Result: names") == (
        "Looking up the employee data: my direct reports; Result: names")
    assert describe_call("calculator", "46000 / 260 * 10") == "Calculating 46000 ÷ 260 × 10"
    assert describe_call("leave_request", "vacation from 2027-07-14 to 2027-07-16") == "Preparing the leave request"
    assert describe_call("weather", "x") == "Using weather" and label("weather") == "weather"
    assert [name for name, kind in KINDS.items() if kind.sourced_inputs] == ["calculator"]


class Doubler(Tool):
    """A new tool in one class: it says itself that its input numbers must be sourced."""

    name = "doubler"
    label = "the doubler"
    sourced_inputs = True

    def __init__(self) -> None:
        self.calls: list[str] = []

    def card(self, context):
        return ToolCard(self.name, "doubles a number", "a number", "21")

    def grammar_rules(self, root, json_string=False):
        return f"{root} ::= [0-9]{{1,6}}"

    def run(self, tool_input, context):
        self.calls.append(tool_input)
        return ToolResult(str(2 * int(tool_input)))


def test_a_tool_that_takes_only_sourced_numbers_is_checked_by_the_loop_without_naming_it():
    tool = Doubler()
    backend = ScriptedBackend(["I will double it.\nAction: doubler\nAction Input: 17\n",
                               "I will double the 21.\nAction: doubler\nAction Input: 21\n",
                               "I know it.\nFinal Answer: 42"])
    agent = Agent(backend, ToolRegistry([tool]), ToolContext(user="Ana Cruz", today="2026-11-26"), mode="react")
    trace = agent.ask("What is twice 21?")
    assert tool.calls == ["21"]  # 17 is in no source: refused before the tool ran
    assert "17 is not in the question" in trace.steps[0].observation
    assert trace.answer == "42"


def test_a_new_tool_is_one_module_the_catalog_finds_and_builds(tmp_path, monkeypatch):
    import engine.tools
    from engine.tools import catalog
    from engine.tools.base import ToolParts

    (tmp_path / "echo_tool.py").write_text(
        "from engine.tools.base import Tool, ToolCard, ToolResult\n"
        "class EchoTool(Tool):\n"
        "    name = 'echo'\n"
        "    label = 'the echo'\n"
        "    order = 35\n"
        "    @classmethod\n"
        "    def build(cls, parts):\n"
        "        return cls()\n"
        "    @classmethod\n"
        "    def describe_call(cls, tool_input):\n"
        "        return f'Echoing {tool_input}'\n"
        "    def card(self, context):\n"
        "        return ToolCard(self.name, 'says it back', 'text', 'hello')\n"
        "    def grammar_rules(self, root, json_string=False):\n"
        "        return f'{root} ::= [a-z ]+'\n"
        "    def run(self, tool_input, context):\n"
        "        return ToolResult(tool_input)\n", encoding="utf-8")
    monkeypatch.setattr(engine.tools, "__path__", [*engine.tools.__path__, str(tmp_path)])
    import importlib
    import sys

    spec = importlib.util.spec_from_file_location("engine.tools.echo_tool", tmp_path / "echo_tool.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "engine.tools.echo_tool", module)
    spec.loader.exec_module(module)
    kinds = catalog._discover()
    assert list(kinds) == ["policy_search", "employee_data", "calculator", "echo", "leave_request"]  # by order
    monkeypatch.setattr(catalog, "KINDS", kinds)
    assert catalog.label("echo") == "the echo" and catalog.describe_call("echo", "hi") == "Echoing hi"
    # Built from what was loaded: no index and no data here, so the calculator and the new tool only.
    assert catalog.assemble(ToolParts()).names == ["calculator", "echo"]
