"""Plan mode: the plan grammar, running a plan (at once where independent), references, fallback."""

from __future__ import annotations

import json
import re
import threading

import pytest

from engine.agent.loop import Agent
from engine.errors import AccessDenied, ModelOutputError, SetupError, ToolInputError
from engine.evaluation import link_scores, trace_links
from engine.agent.plan import PlanStep, levels, parse_plan, plan_grammar, plan_text, several_parts
from engine.model.scripted import ScriptedBackend
from engine.agent.steps import ActionStep, FinalAnswer, ObservationStep, PlanMade
from engine.tools.base import Tool, ToolCard, ToolContext, ToolResult
from engine.tools.calculator import CalculatorTool, validate
from engine.tools.registry import TURN_PREFIX, ToolRegistry


class Lookup(Tool):
    """Answers from a dict; 'boom' is bad input, 'secret' is denied; optionally waits at a barrier."""

    def __init__(self, name: str, answers: dict[str, ToolResult], barrier: threading.Barrier | None = None):
        self.name = name
        self.answers = answers
        self.barrier = barrier
        self.calls: list[str] = []

    def card(self, context):
        return ToolCard(self.name, "looks things up", "a phrase", "sick days")

    def grammar_rules(self, root, json_string=False):
        return f'{root} ::= [a-z ]{{1,30}}'

    def run(self, tool_input, context):
        self.calls.append(tool_input)
        if self.barrier is not None:
            self.barrier.wait(timeout=5)  # raises BrokenBarrierError unless the other step runs at the same time
        if tool_input == "boom":
            raise ModelOutputError("no such thing")
        if tool_input == "secret":
            raise AccessDenied("You can see 'salary' only for yourself.")
        return self.answers.get(tool_input, ToolResult("nothing found"))


def scalar(value) -> ToolResult:
    return ToolResult(str(value), data={"value": value}, kind="scalar")


def plan(*steps: tuple, thought="I need several things.") -> str:
    body = ",\n  ".join(json.dumps({"id": i, "tool": t, "input": inp, "depends_on": deps})
                        for i, (t, inp, deps) in enumerate(steps, start=1))
    return f" {thought}\nPlan: [\n  {body}\n]"


def final(text):
    return f" I have what I need.\nFinal Answer: {text}"


def make(outputs, *tools, mode="plan"):
    backend = ScriptedBackend(outputs)
    registry = ToolRegistry([*tools, CalculatorTool()])
    agent = Agent(backend, registry, ToolContext(user="Ana Cruz", today="2026-11-23"), mode=mode)
    return agent, backend


def test_independent_steps_run_at_once_and_the_answer_is_the_second_call():
    barrier = threading.Barrier(2)
    data = Lookup("employee_data", {"my vacation days": scalar(12)}, barrier)
    policy = Lookup("policy_search", {"remote work": ToolResult("[1] Up to 3 days a week from home.")}, barrier)
    agent, backend = make([plan(("employee_data", "my vacation days", []), ("policy_search", "remote work", [])),
                           final("You have 12 vacation days and may work from home 3 days a week [1].")],
                          data, policy)
    events = list(agent.run("How many vacation days do I have left, and how many days can I work from home?"))
    trace = agent.last_trace
    assert trace.llm_calls == 2 and trace.complete and not trace.plan_fallback
    assert data.calls == ["my vacation days"] and policy.calls == ["remote work"]  # both ran, side by side
    assert [s.action for s in trace.steps if s.action] == ["employee_data", "policy_search"]
    assert trace.plan == [{"id": 1, "tool": "employee_data", "input": "my vacation days", "depends_on": []},
                          {"id": 2, "tool": "policy_search", "input": "remote work", "depends_on": []}]
    kinds = [type(e) for e in events if isinstance(e, (PlanMade, ActionStep, ObservationStep, FinalAnswer))]
    assert kinds == [PlanMade, ActionStep, ActionStep, ObservationStep, ObservationStep, FinalAnswer]
    # The answer call sees every result, delimited as data, and may only answer (no more tool calls).
    assert '#1 employee_data: <data from="employee_data">' in backend.prompts[1] and "Up to 3 days" in backend.prompts[1]
    assert "Action:" not in backend.grammars[1].split("\n")[0]
    assert trace.ungrounded_numbers == []
    # ...and writes it once, under the grammar of sourced numbers: its digits can only spell 12, 3, …
    # (a free answer with a made-up figure would need a third call to rewrite it)
    assert re.search(r"^num ::=", backend.grammars[1], re.M) and not re.search(r"^num ::=", backend.grammars[0], re.M)


def test_a_reference_takes_the_number_an_earlier_step_returned():
    data = Lookup("employee_data", {"my salary": ToolResult("1 row:\n| salary |\n|---|\n| 46000 |", kind="table",
                                                           data={"columns": ["salary"], "rows": [[46000]],
                                                                 "row_count": 1})})
    agent, backend = make([plan(("employee_data", "my salary", []), ("calculator", "round(#1 / 12, 2)", [1])),
                           final("That is 3833.33 a month.")], data)
    trace = agent.ask("What is my salary, and what is it per month?")
    assert trace.steps[1].action_input == "round(46000 / 12, 2)"
    assert trace.steps[1].observation == "round(46000 / 12, 2) = 3833.33"
    assert trace.answer == "That is 3833.33 a month." and trace.ungrounded_numbers == [] and trace.llm_calls == 2


def test_a_failed_step_hands_over_to_react_with_what_is_known():
    data = Lookup("employee_data", {"my vacation days": scalar(12)})
    policy = Lookup("policy_search", {"cash out": ToolResult("[1] Up to 10 days may be cashed out.")})
    agent, backend = make([plan(("employee_data", "boom", []), ("calculator", "#1 * 2", [1]),
                                ("policy_search", "cash out", [])),
                           " I ask again.\nAction: employee_data\nAction Input: my vacation days\n",
                           final("You have 12 days; up to 10 may be cashed out [1].")], data, policy)
    trace = agent.ask("How many vacation days do I have, and can I cash them out?")
    assert trace.plan_fallback and trace.complete and trace.llm_calls == 3
    assert "Action:" in backend.grammars[1]  # after the failure, tools are allowed again
    assert "(not run: a step it needs failed)" in backend.prompts[1]  # the calculator waited for step 1
    assert "Up to 10 days" in backend.prompts[1]  # the independent step ran
    assert data.calls == ["boom", "my vacation days"]


def test_a_denied_step_ends_in_an_answer_without_retrying():
    data = Lookup("employee_data", {"my vacation days": scalar(12)})
    agent, backend = make([plan(("employee_data", "my vacation days", []), ("employee_data", "secret", [])),
                           final("You have 12 days; I can't share Ivan's salary.")], data)
    trace = agent.ask("How many vacation days do I have, and what is Ivan's salary?")
    assert trace.llm_calls == 2 and not trace.plan_fallback
    assert "Action:" not in backend.grammars[1].split("\n")[0]
    assert "This is not available to the user." in backend.prompts[1]


def test_a_reference_to_a_result_that_is_not_one_number_fails_the_step():
    data = Lookup("employee_data", {"my team": ToolResult("3 rows: …", kind="table",
                                                         data={"columns": ["n"], "rows": [[1], [2], [3]],
                                                               "row_count": 3})})
    agent, backend = make([plan(("employee_data", "my team", []), ("calculator", "#1 * 2", [1])),
                           final("I could not work that out.")], data)
    trace = agent.ask("Who is in my team, and what is twice that?")
    assert trace.plan_fallback
    assert "Step 2 uses #1, but step 1 did not return one number." in backend.prompts[1]


def test_a_calculation_with_a_made_up_number_is_not_run():
    data = Lookup("employee_data", {"my vacation days": scalar(12)})
    agent, backend = make([plan(("employee_data", "my vacation days", []), ("calculator", "#1 * 20000", [1])),
                           final("You have 12 days.")], data)
    trace = agent.ask("How many vacation days do I have, and what are they worth?")
    assert trace.plan_fallback and trace.steps[1].ok is False
    assert "never guess a figure" in trace.steps[1].observation
    assert "20000" not in " ".join(s.observation or "" for s in trace.steps if s.ok)


def test_the_plan_steps_are_remembered_so_react_does_not_repeat_them():
    data = Lookup("employee_data", {"my vacation days": scalar(12)})
    agent, backend = make([plan(("employee_data", "my vacation days", []), ("employee_data", "boom", [])),
                           " Again.\nAction: employee_data\nAction Input: my vacation days\n",
                           final("You have 12 days.")], data)
    trace = agent.ask("How many vacation days do I have, and the other thing?")
    assert data.calls == ["my vacation days", "boom"]  # the repeat was not run again
    assert trace.steps[2].cached


def test_a_setup_error_in_a_step_ends_the_run():
    class Broken(Lookup):
        def run(self, tool_input, context):
            raise SetupError("The employee file is unreadable.")

    agent, backend = make([plan(("employee_data", "anything", []))], Broken("employee_data", {}))
    trace = agent.ask("How many days, and what else?")
    assert trace.error == "The employee file is unreadable."


def test_the_combined_mode_plans_only_questions_with_several_parts():
    data = Lookup("employee_data", {"my vacation days": scalar(12), "my sick days": scalar(3)})
    agent, backend = make([" I look it up.\nAction: employee_data\nAction Input: my vacation days\n",
                           final("You have 12 days."),
                           plan(("employee_data", "my vacation days", []), ("employee_data", "my sick days", [])),
                           final("12 vacation days and 3 sick days.")], data, mode="auto")
    first = agent.ask("How many vacation days do I have left?")
    assert first.plan is None and "Plan:" not in backend.grammars[0]
    second = agent.ask("How many vacation days do I have left, and how many sick days?")
    assert second.plan is not None and second.llm_calls == 2
    assert "For a question with several parts" in backend.prompts[0]  # the plan format is in the system prompt


def test_react_mode_never_plans():
    agent, backend = make([final("Hello.")], Lookup("employee_data", {}), mode="react")
    agent.ask("How many days do I have, and how many more?")
    assert "Plan:" not in backend.grammars[0] and "several parts" not in backend.prompts[0]


@pytest.mark.parametrize("question, expected", [
    ("Can I cash out unused vacation leave, and how much would I get for 10 days?", True),
    ("How many vacation days do I have left? Can I cash them out?", True),
    ("How many sick days do I have left, and how many days a week can I work from home?", True),
    ("How many sick days do I have left?", False),
    ("And how much would those be worth?", False),
    ("What is the policy on travel and expenses?", False),
])
def test_several_parts(question, expected):
    assert several_parts(question) is expected


def test_parse_plan_refuses_what_the_grammar_forbids():
    tools = ToolRegistry([Lookup("employee_data", {}), CalculatorTool()])
    ok = parse_plan('[{"id": 1, "tool": "employee_data", "input": "x", "depends_on": []}, '
                    '{"id": 2, "tool": "calculator", "input": "#1 * 2", "depends_on": []}]', tools)
    assert ok[1].needs == [1]  # a reference is a dependency even when not listed
    for bad in ('[{"id": 2, "tool": "employee_data", "input": "x", "depends_on": []}]',
                '[{"id": 1, "tool": "shell", "input": "x", "depends_on": []}]',
                '[{"id": 1, "tool": "calculator", "input": "#1 * 2", "depends_on": []}]',
                '[{"id": 1, "tool": "employee_data", "input": "x", "depends_on": [2]}]',
                '[]', '[{"id": 1, "tool": "employee_data"', '{"id": 1}'):
        with pytest.raises(ModelOutputError):
            parse_plan(bad, tools)


def test_levels_group_what_can_run_at_once():
    steps = [PlanStep(1, "a", "x"), PlanStep(2, "b", "y"), PlanStep(3, "calculator", "#1 + #2"),
             PlanStep(4, "a", "z", [3])]
    assert [[s.id for s in level] for level in levels(steps)] == [[1, 2], [3], [4]]


def test_plan_grammar_on_the_tiny_model_only_writes_valid_plans(tiny_backend):
    """Random weights obey the plan grammar: real tools, valid inputs, steps numbered in order,
    references and dependencies only to earlier steps."""
    from engine.tools.calculator import CalculatorTool

    tools = ToolRegistry([Lookup("employee_data", {}), Lookup("policy_search", {}), CalculatorTool()])
    grammar = plan_grammar(tools)
    prompt = tiny_backend.chat_prompt([{"role": "system", "content": "x"}, {"role": "user", "content": "q"}])
    prompt += TURN_PREFIX
    plans = 0
    for seed in range(16):
        tiny_backend.reseed(500 + seed)
        gen = tiny_backend.generate(prompt, grammar, max_tokens=3000)
        assert gen.stop_reason == "end", (seed, gen.text[-200:])
        body = plan_text(TURN_PREFIX + gen.text)
        if body is None:
            assert "\nFinal Answer: " in gen.text
            continue
        plans += 1
        steps = parse_plan(body, tools)  # raises on anything the grammar should have excluded
        for step in steps:
            if step.tool == "calculator":
                try:  # with references filled in, valid arithmetic (it may still fail a bound, such as its length)
                    validate(step.input.replace("#", "1"))
                except ToolInputError as exc:
                    assert "not valid arithmetic" not in exc.message, step.input
    assert plans >= 4


def test_trace_links_from_a_plan_and_from_numbers_passed_on():
    planned = {"question": "q", "plan": [{"id": 1, "tool": "employee_data", "input": "x", "depends_on": []},
                                         {"id": 2, "tool": "calculator", "input": "#1 * 2", "depends_on": [1]}],
               "steps": [{"action": "employee_data", "action_input": "x", "observation": "46000", "ok": True},
                         {"action": "calculator", "action_input": "46000 * 2", "observation": "= 92000", "ok": True}]}
    assert trace_links(planned) == [("employee_data", "calculator")]
    react = {"question": "what are 10 days worth?", "plan": None,
             "steps": [{"action": "employee_data", "action_input": "x", "observation": "| 46,000 |", "ok": True},
                       {"action": "policy_search", "action_input": "rate", "observation": "[1] divided by 260",
                        "ok": True},
                       {"action": "calculator", "action_input": "46000 / 260 * 10", "observation": "", "ok": True}]}
    assert trace_links(react) == [("employee_data", "calculator"), ("policy_search", "calculator")]
    assert link_scores([("employee_data", "calculator")], trace_links(react))[2] == pytest.approx(2 / 3)
    assert link_scores([], []) == (1.0, 1.0, 1.0)


def test_a_figure_worked_out_in_the_head_is_confirmed_by_the_calculator():
    data = Lookup("employee_data", {"grace": scalar(58000), "fatima": scalar(54000)})
    agent, backend = make([plan(("employee_data", "grace", []), ("employee_data", "fatima", [])),
                           final("Grace earns 58,000 and Fatima 54,000; together 112,000.")], data)
    trace = agent.ask("What do Grace and Fatima earn, and what is that together?")
    assert trace.answer.endswith("together 112,000.") and trace.ungrounded_numbers == [] and trace.llm_calls == 2
    assert [(s.action, s.action_input, s.observation) for s in trace.steps if s.action == "calculator"] == \
        [("calculator", "54000 + 58000", "54000 + 58000 = 112000")]


def test_a_made_up_figure_is_still_withdrawn():
    from engine.agent.grounding import derivation, stated_numbers

    assert derivation("4833.33", ["58000"], ["58000", "4833.33"]) is None
    assert derivation("7", ["3", "4"], ["3", "4", "7"]) is None  # small: by chance
    # A figure made in the head must show what it is made of: the operands are stated in the answer.
    table = ["6 rows: | 2 | 50000 | 84000 | 2019-02-11 |"]
    answer = "The average salary in Finance is 100,000.00"
    assert derivation("100000", table, stated_numbers(answer)) is None  # 2 * 50000 is in the table by chance
    assert derivation("100000", table, stated_numbers("2 people at 50,000 make 100,000")) == "2 * 50000"
    assert stated_numbers("You joined on 2026-11-23 [1], 10 days.") == ["10"]  # no date parts, no markers
    assert derivation("23", ["11", "12"], stated_numbers("You joined on 2026-11-23.")) is None
    assert derivation("112000", ["58000", "54000"], stated_numbers("58,000 and 54,000, together 112,000")) == \
        "54000 + 58000"
    assert derivation("100000", ["50000"], ["50000", "100000"]) is None  # one 50,000 is not two
    assert derivation("100000", ["50000"], ["50000", "50000", "100000"]) == "50000 + 50000"
    # List numbers, citation markers, line numbers and row counts are not figures to combine.
    bands = ["[1] pay.md › Bands (line 4): Band A pays 50,000.\n[2] pay.md › Bands (line 9): Band B pays 58,000."]
    listed = "Bands:\n1. Band A: $50,000 [1]\n2. Band B: $58,000 [2]\nThe average salary is $100,000."
    assert stated_numbers(listed) == ["50000", "58000", "100000"]
    assert derivation("100000", bands, stated_numbers(listed)) is None
    assert derivation("11", ["1 row:\n| 10 |"], stated_numbers("1 row of 10 days: 11")) is None
    # The operands the answer states are found however many other numbers the sources hold.
    filler = " ".join(str(i) for i in range(1000, 1250)) + " salaries 58,000 and 54,000"
    assert derivation("112000", [filler], stated_numbers("58,000 and 54,000, together 112,000")) == "54000 + 58000"
    data = Lookup("employee_data", {"grace": scalar(58000)})
    agent, backend = make([plan(("employee_data", "grace", [])), final("Grace earns 61,500."),
                           final("I don't know Grace's pay.")], data)
    trace = agent.ask("What does Grace earn, and is it more than the average?")
    assert "61,500" not in trace.answer and "withdrawn" not in trace.answer
    assert any("61500" in (s.observation or "") for s in trace.steps)  # the retraction note


def test_a_shown_calculation_is_confirmed_so_its_result_counts_as_sourced():
    data = Lookup("employee_data", {"salary": scalar(78000)})
    policy = Lookup("policy_search", {"daily rate": ToolResult("[1] The daily rate is the salary divided by 260.")})
    agent, backend = make([plan(("employee_data", "salary", []), ("policy_search", "daily rate", [])),
                           final("A day is 78,000 / 260 = 300 [1], so 10 days are 3,000.")], data, policy)
    trace = agent.ask("What is my salary, and what are 10 days worth?")
    assert trace.ungrounded_numbers == [] and trace.llm_calls == 2
    assert ("calculator", "78000 / 260") in [(s.action, s.action_input) for s in trace.steps]
