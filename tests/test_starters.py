"""What a newcomer is offered (starter questions per role, the sample company's personas) and what code
writes into an answer itself (a short list of the data's rows, the record fields a question names).
Deterministic, on the real data files and the real query layer."""

from __future__ import annotations

from types import SimpleNamespace

from engine.agent.data_text import _listing
from engine.agent.stage_data import narrow_fields
from engine.agent.slots import SlotGrammar, SlotQuery
from engine.assistant import build_context, build_data_tool, build_tools
from engine.data.employees import load_employees
from engine.settings import Settings
from engine.starters import sample_personas, starter_questions
from tests.conftest import ROOT

CLINIC = ROOT / "benchmarks" / "synthetic" / "juniper-ridge" / "employees.csv"


def test_the_sample_company_offers_an_employee_a_manager_and_hr_decided_by_the_access_rules():
    personas = sample_personas(build_data_tool(Settings()))
    assert [p.role for p in personas] == ["employee", "manager", "hr"]
    manager = personas[1]
    from engine.data.access import make_viewer

    tool = build_data_tool(Settings())
    viewer = make_viewer(tool.table, manager.name, tool.policy)
    # the smallest team of two or more: a team lead, not the chief executive with everyone under them
    assert viewer.role == "manager" and len(viewer.reports) >= 2
    assert f"their {len(viewer.reports)} direct reports" in manager.sees
    assert make_viewer(tool.table, personas[2].name, tool.policy).role == "hr"


def test_starters_follow_the_role_and_the_export_s_own_balances_and_units():
    sample = load_employees(ROOT / "data" / "employees.csv")
    clinic = load_employees(CLINIC)
    employee = starter_questions(sample, "employee", ["Apply for parental leave"])
    assert employee[0] == "How many vacation days do I have left?" and "How many sick days do I have left?" in employee
    assert employee[-1] == "How do I apply for parental leave?"
    assert "Who reports to me?" in starter_questions(sample, "manager")
    assert "How many employees are in each department?" in starter_questions(sample, "hr")
    assert not any("report" in q for q in starter_questions(sample, "employee"))
    # balances kept in hours, named PTO: the chips say so
    assert starter_questions(clinic, "employee")[0] == "How many PTO hours do I have left?"
    # someone not in the data: policies and procedures only, nothing about "my" record
    outsider = starter_questions(sample, "", ["Request a hybrid or remote work arrangement"])
    assert outsider == ["Can I carry over unused vacation days to next year?",
                        "How do I request a hybrid or remote work arrangement?"]
    assert starter_questions(None, "") == []
    assert all(len(starter_questions(sample, role, ["A", "B"])) <= 5 for role in ("employee", "manager", "hr"))


def _run(user: str, query: SlotQuery):
    tools = build_tools(Settings())
    data = tools.get("employee_data")
    context = build_context(user, tools, personas=True)
    grammar = SlotGrammar(data.table, data.viewer(context.user), scope=query.rows)
    return data.run(grammar.compile(query), context)


def test_a_short_list_of_rows_is_written_whole_by_code():
    reports = SlotQuery(rows="my direct reports", result="names")
    assert _listing(reports, _run("Tomás Herrera", reports), False) == \
        "Your direct reports (2): Søren Dahl and Nadia Haddad."
    per = SlotQuery(result="count per", by="department")
    text = _listing(per, _run("Priya Raman", per), False)
    assert text.startswith("Number of employees per department:") and "| Operations | 13 |" in text
    assert text.count("\n| ") == 7  # the header and all six departments
    assert _listing(per, _run("Priya Raman", per), True) == ""  # no table inside a numbered answer
    # a single figure, or a list too long to read at a glance, is the model's to state
    count = SlotQuery(result="count")
    assert _listing(count, _run("Priya Raman", count), False) == ""
    everyone = SlotQuery(result="names")
    assert _listing(everyone, _run("Priya Raman", everyone), False) == ""
    # Asked who, a list of their fields is answered by the names, inside a numbered answer too (a model had
    # written "There is 1 person in my team who works part-time" and named nobody).
    fields = SlotQuery(rows="my direct reports", result="list", columns=["department", "annual_salary_usd"])
    assert _listing(fields, _run("Tomás Herrera", fields), True) == ""
    assert _listing(fields, _run("Tomás Herrera", fields), True, names_asked=True) == \
        "Your direct reports (2): Søren Dahl and Nadia Haddad."
    assert _listing(fields, _run("Tomás Herrera", fields), False, names_asked=True).startswith("Your direct reports (2):\n")


def test_the_record_fields_a_question_names_are_the_ones_read():
    fields = [SimpleNamespace(label="vacation_days_remaining"), SimpleNamespace(label="sick_days_remaining"),
              SimpleNamespace(label="annual_salary_usd")]
    assert [f.label for f in narrow_fields(fields, "How many sick days do I have left?")] == ["sick_days_remaining"]
    both = narrow_fields(fields[:2], "How many sick and vacation days do I have in total?")
    assert len(both) == 2
    # nothing named (or only words every balance has): the model's pick stands
    assert narrow_fields(fields[:2], "How much time off do I have left?") == fields[:2]
    assert narrow_fields(fields, "How many days of annual leave do I have?") == fields


def test_asked_what_was_used_the_field_of_what_was_taken_is_read_not_the_balance():
    record = [SimpleNamespace(label="Annual Leave Entitlement (hrs)"), SimpleNamespace(label="Annual Leave Taken (hrs)"),
              SimpleNamespace(label="Annual Leave Left (hrs)"), SimpleNamespace(label="Sick Days Taken")]
    left = [record[2]]
    used = narrow_fields(left, "How many hours of holiday have I used so far this year?", record)
    assert [f.label for f in used] == ["Annual Leave Taken (hrs)"]
    # what is left is still the balance
    assert narrow_fields(left, "How many hours of holiday do I have left?", record) == left
