"""Procedures: HR's step-by-step guides, the applicability check on the user's own record, the
walk-through state, the agent's answer without a model call, and the CLI."""

from __future__ import annotations

import datetime as dt
import json
import shutil

import pytest

from engine.data.access import AccessPolicy, AuditLog
from engine.assistant import Sources, assemble_tools, build_data_tool, context_for, make_agent, sign_in
from engine.errors import DataFileError
from engine.policy.loaders import load_lines
from engine.workflows.procedures import Condition, ProcedureBook, Walkthrough, check_applicability, parse_procedure
from engine.model.scripted import ScriptedBackend
from engine.settings import Settings
from engine.agent.steps import FinalAnswer, ProcedureOffered
from engine.tools.base import ToolContext
from engine.tools.employee_data import EmployeeDataTool
from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "policies"
REFERENCE = ROOT / "tests" / "reference" / "autonomous-hr-chatbot"  # an unchanged copy (MIT); see its README
TODAY = dt.date(2026, 11, 23)

DOC = """---
procedure: Apply for parental leave
keywords: [parental leave, maternity leave]
applies_to:
  - tenure_months >= 6
  - employment_status in ["permanent", "part-time"]
contact: People team
---
# Applying for parental leave

Intro line.

1. Tell your manager.
2. Get the certificate
   from your doctor.
3. Submit the form:
   - attach the certificate
   - at least 8 weeks ahead.

A closing paragraph that is not a step.
"""


def data_tool(tmp_path, employees=ROOT / "data" / "employees.csv", policy=None):
    tool = build_data_tool(Settings(), Sources(employees=str(employees)))
    return EmployeeDataTool(tool.table, policy or AccessPolicy(), AuditLog(tmp_path / "audit.log"))


def me(name, role="employee"):
    return ToolContext(user=name, role=role, account="acct", name=name, today=TODAY.isoformat())


def test_a_procedure_is_read_from_front_matter_and_numbered_steps():
    p = parse_procedure(DOC, "procedures/parental.md")
    assert p.title == "Apply for parental leave" and p.contact == "People team"
    assert p.keywords == ["parental leave", "maternity leave"]
    assert [c.text for c in p.conditions] == ["tenure_months >= 6", 'employment_status in ["permanent", "part-time"]']
    assert [s.text for s in p.steps] == ["Tell your manager.", "Get the certificate\nfrom your doctor.",
                                         "Submit the form:\n- attach the certificate\n- at least 8 weeks ahead."]
    assert [s.line for s in p.steps] == [13, 14, 16]  # lines of the file, front matter counted
    assert p.intro == "Intro line."
    assert parse_procedure("# Just a policy\n\n1. A rule.\n", "x.md") is None
    assert parse_procedure("---\ntitle: Handbook\n---\n1. A rule.\n", "x.md") is None  # front matter of another tool


@pytest.mark.parametrize("doc, message", [
    ("---\nprocedure: X\napplies-to:\n  - tenure_months >= 6\n---\n1. Step.\n", "unknown key 'applies-to'"),
    ("---\nprocedure: X\napplies_to:\n  - tenure_months about 6\n---\n1. Step.\n", "not 'field operator value'"),
    ("---\nprocedure: X\napplies_to:\n  - contract >= \"permanent\"\n---\n1. Step.\n", "compares numbers"),
    ("---\nprocedure: X\n---\nNo steps here.\n", "has no numbered steps"),
    ("---\nprocedure: X\n1. Step.\n", "not closed"),
    ("---\nprocedure: X\napplies_to:\n  - tenure_months >= 6\napplies_to:\n---\n1. Step.\n", "given twice"),
    ("---\nprocedure: X\napplies_to: contract == \"permanent\" or contract == \"fixed\"\n---\n1. Step.\n",
     "cannot read the value"),
])
def test_a_faulty_procedure_is_refused_with_the_reason(doc, message):
    # A misspelt key must never make a procedure apply to everyone.
    with pytest.raises(DataFileError, match=message):
        parse_procedure(doc, "x.md")


def test_the_book_keeps_good_procedures_and_names_the_bad_files(tmp_path):
    (tmp_path / "good.md").write_text(DOC, encoding="utf-8")
    (tmp_path / "bad.md").write_text("---\nprocedure: Bad\napplies_to: tenure >> 3\n---\n1. x\n", encoding="utf-8")
    (tmp_path / "plain.md").write_text("# Policy\nText.\n", encoding="utf-8")
    book = ProcedureBook.load(tmp_path)
    assert [p.title for p in book.procedures] == ["Apply for parental leave"]
    assert len(book.problems) == 1 and "bad.md" in book.problems[0]
    assert ProcedureBook.load(tmp_path / "missing").problems  # a missing folder is a problem, not a crash


def test_a_byte_order_mark_keywords_with_apostrophes_and_list_values(tmp_path):
    (tmp_path / "bom.md").write_bytes("\ufeff---\nprocedure: Claim mother's leave\nkeywords: mother's leave, "
                                      "paternity leave\napplies_to: contract in [\"full-time, permanent\", "
                                      "\"part-time\"]\n---\n1. Step.\n".encode("utf-8"))
    [p] = ProcedureBook.load(tmp_path).procedures
    assert p.keywords == ["mother's leave", "paternity leave"]
    assert p.conditions[0].value == ["full-time, permanent", "part-time"]


def test_service_is_counted_in_calendar_months_and_yes_no_columns_compare(tmp_path):
    from engine.workflows.procedures import _months_between

    assert _months_between(dt.date(2025, 8, 31), dt.date(2026, 2, 28)) == 6  # the last day of a short month
    assert _months_between(dt.date(2024, 2, 29), dt.date(2025, 2, 28)) == 12
    assert _months_between(dt.date(2026, 6, 1), dt.date(2026, 11, 30)) == 5
    csv = tmp_path / "staff.csv"
    csv.write_text("employee_id,full_name,hire_date,remote_eligible\nE1,Ana Cruz,2026-03-24,yes\n"
                   "E2,Li Wei,2020-01-01,no\nE3,Tom Berg,2020-01-01,yes\n", encoding="utf-8")
    tool = data_tool(tmp_path, employees=csv)
    eligible = parse_procedure("---\nprocedure: X\napplies_to:\n  - remote_eligible == true\n---\n1. s\n", "x.md")
    assert check_applicability(eligible, tool, me("Ana Cruz"), TODAY).verdict == "applies"
    assert check_applicability(eligible, tool, me("Li Wei"), TODAY).verdict == "does_not_apply"
    # 8 months is 0.67 years: shown rounded, compared exactly
    years = parse_procedure("---\nprocedure: X\napplies_to: tenure_years >= 0.7\n---\n1. s\n", "x.md")
    assert check_applicability(years, tool, me("Ana Cruz"), TODAY).verdict == "does_not_apply"


def test_a_rule_line_at_the_top_of_a_policy_is_not_front_matter(tmp_path):
    path = tmp_path / "p.md"
    path.write_text("---\nEmployees accrue 2 days per month.\n---\n# Other\nText.\n", encoding="utf-8")
    assert [line.text for line in load_lines(path)][:2] == ["---", "Employees accrue 2 days per month."]
    txt = tmp_path / "p.txt"
    txt.write_text("---\nprocedure: Not here\n---\nEnd.\n", encoding="utf-8")
    assert len(load_lines(txt)) == 4  # only Markdown has front matter


def test_front_matter_is_not_indexed_and_line_numbers_stay_true(tmp_path):
    path = tmp_path / "p.md"
    path.write_text(DOC, encoding="utf-8")
    lines = load_lines(path)
    assert not any("tenure_months" in line.text or line.text == "---" for line in lines)
    assert lines[0].text == "# Applying for parental leave" and lines[0].number == 9


@pytest.mark.parametrize("question, title", [
    ("How do I apply for parental leave?", "Apply for parental leave"),
    ("What are the steps to take paternity leave?", "Apply for parental leave"),
    ("I want to request remote work", "Request a hybrid or remote work arrangement"),
    ("Walk me through working from home", "Request a hybrid or remote work arrangement"),
    ("How long is maternity leave?", None),  # a policy question, not a "how do I"
    ("How do I apply for annual leave?", None),  # no procedure for it: the agent answers
    ("How many vacation days do I have?", None),
    # questions about what the rule says or pays are the model's, even when they name the subject
    ("How many weeks of parental leave can I take?", None),
    ("How would I be paid during parental leave?", None),
    ("Can I take leave to care for my partner? He is in hospital.", None),
    ("How should I calculate my parental leave pay if I work 4 days?", None),
    ("How do I log overtime on days I work from home?", None),
    ("How do I apply for parental leave and how many vacation days do I have left?", None),  # a second part
    ("Can I apply for partner leave?", "Apply for parental leave"),
])
def test_procedure_questions_are_recognised_by_intent_and_keyword(question, title):
    match = ProcedureBook.load(SAMPLE).match(question)
    assert (match.title if match else None) == title


def test_applicability_reads_the_own_record_and_is_audited(tmp_path):
    tool = data_tool(tmp_path)
    parental = ProcedureBook.load(SAMPLE).get("procedures/parental-leave.md")
    yes = check_applicability(parental, tool, me("Pedro Alves"), TODAY)
    assert yes.verdict == "applies" and yes.checks[0].value.startswith("67 months")
    no = check_applicability(parental, tool, me("Isabel Cruz"), TODAY)  # hired 2026-06-01
    assert no.verdict == "does_not_apply" and no.checks[0].ok is False and no.checks[0].value.startswith("5 months")
    unknown = check_applicability(parental, tool, me("Diego Morales"), TODAY)  # no hire date in the file
    assert unknown.verdict == "unknown" and "empty" in unknown.checks[0].reason
    entries = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert [e["user"] for e in entries] == ["Pedro Alves", "Isabel Cruz", "Diego Morales"]
    assert entries[0]["query"] == "procedure check: Apply for parental leave" and "hire_date" in entries[0]["detail"]


def test_the_boundary_day_and_text_and_list_conditions(tmp_path):
    tool = data_tool(tmp_path)
    six = parse_procedure("---\nprocedure: X\napplies_to: tenure_months >= 6\n---\n1. s\n", "x.md")
    # Isabel Cruz was hired on 2026-06-01: six full months on 2026-12-01, not the day before.
    assert check_applicability(six, tool, me("Isabel Cruz"), dt.date(2026, 11, 30)).verdict == "does_not_apply"
    assert check_applicability(six, tool, me("Isabel Cruz"), dt.date(2026, 12, 1)).verdict == "applies"
    cases = {'contract == "PERMANENT"': True, "contract != permanent": False,
             'location in ["head office", "warehouse north"]': True,
             'department not in ["Operations", "Sales"]': False, "vacation_days_remaining >= 8": True,
             "vacation_days_remaining > 8": False}
    for text, expected in cases.items():
        p = parse_procedure(f"---\nprocedure: X\napplies_to: {text}\n---\n1. s\n", "x.md")
        result = check_applicability(p, tool, me("Pedro Alves"), TODAY)
        assert result.checks[0].ok is expected, (text, result)


def test_a_column_the_user_may_not_read_is_not_checked(tmp_path):
    # HR marked the salary HR-only: a procedure cannot read it, even on the user's own row.
    tool = data_tool(tmp_path, policy=AccessPolicy(hr_only_columns=["annual_salary_usd"]))
    p = parse_procedure("---\nprocedure: X\napplies_to:\n  - annual_salary_usd < 50000\n  - shoe_size > 40\n---\n"
                        "1. s\n", "x.md")
    result = check_applicability(p, tool, me("Pedro Alves"), TODAY)
    assert result.verdict == "unknown"
    assert "Only HR" in result.checks[0].reason and result.checks[0].value == ""
    assert "no 'shoe_size'" in result.checks[1].reason
    [entry] = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert entry["allowed"] is False  # the refused column is on record as refused
    outsider = check_applicability(p, tool, me("Nobody Here"), TODAY)
    assert outsider.verdict == "unknown" and "not in the employee data" in outsider.checks[0].reason


@pytest.mark.skipif(not REFERENCE.exists(), reason="the old app's reference data is not here")
def test_the_old_apps_employee_file_works_unchanged(tmp_path):
    tool = data_tool(tmp_path, employees=REFERENCE / "employee_data.csv")  # dates as 2/16/2013
    (tmp_path / "policies").mkdir()
    (tmp_path / "policies" / "vl.md").write_text(
        "---\nprocedure: File a vacation leave\nkeywords: vacation leave\napplies_to:\n  - tenure_years >= 1\n"
        "  - contract == permanent\n---\n1. Fill in the leave form.\n2. Have your supervisor sign it.\n",
        encoding="utf-8")
    p = ProcedureBook.load(tmp_path / "policies").match("How do I file a vacation leave?")
    assert check_applicability(p, tool, me("Joseph Peña"), TODAY).verdict == "applies"
    probation = check_applicability(p, tool, me("Mark Delos Santos"), TODAY)
    assert probation.verdict == "does_not_apply" and probation.checks[1].value == "Probation"


def test_the_walkthrough_moves_as_the_user_drives_it():
    walk = Walkthrough.start(parse_procedure(DOC, "p.md"))
    assert walk.progress() == "Step 1 of 3" and walk.current == "Tell your manager."
    walk.back()  # nothing before the first step
    assert walk.position == 0
    walk.next()
    walk.skip()
    assert walk.marks == ["done", "skipped", ""] and walk.position == 2
    walk.back()
    assert walk.position == 1 and walk.marks[1] == ""
    walk.next()
    walk.next()
    assert walk.state == "finished" and walk.progress() == "All 3 steps gone through"
    walk.back()  # back from the end reopens the last step
    assert walk.active and walk.position == 2
    walk.cancel()
    assert walk.state == "cancelled"
    walk.next()  # a cancelled walk-through does not move
    assert walk.position == 2
    again = Walkthrough.from_dict(json.loads(json.dumps(walk.to_dict())))
    assert again == walk
    with pytest.raises(ValueError):
        Walkthrough.from_dict({**walk.to_dict(), "marks": []})
    with pytest.raises(ValueError):
        walk.apply("jump")
    for damaged in ([], {**walk.to_dict(), "marks": None}, {**walk.to_dict(), "position": "1"},
                    {**walk.to_dict(), "state": "active", "position": 3}, {"title": "only a title"}):
        with pytest.raises(ValueError):  # a damaged saved state is refused, never a crash later
            Walkthrough.from_dict(damaged)


def agent_for(user, backend=None, tmp_path=None):
    data = build_data_tool(Settings())
    tools = assemble_tools(type("Idx", (), {"root": SAMPLE})(), data)
    return make_agent(backend or ScriptedBackend([]), tools, context_for(sign_in(tools, user), tools), Settings())


def test_the_agent_offers_the_procedure_without_a_model_call():
    backend = ScriptedBackend([])  # no model call at all: the procedure is code's, and so is a thank-you
    agent = agent_for("Pedro Alves", backend)
    steps = list(agent.run("How do I apply for parental leave?"))
    offered = [s for s in steps if isinstance(s, ProcedureOffered)]
    assert len(offered) == 1 and offered[0].walkthrough["position"] == 0 and len(offered[0].walkthrough["steps"]) == 6
    final = steps[-1]
    assert isinstance(final, FinalAnswer) and "It applies to you: at least 6 months of service" in final.answer
    assert "1. Tell your line manager" in final.answer
    trace = agent.last_trace
    assert trace.llm_calls == 0 and trace.procedure["applicability"]["verdict"] == "applies"
    # the turn stays in the conversation, and the next message is answered as usual
    assert agent.history[-2]["content"] == "How do I apply for parental leave?"
    assert "Apply for parental leave" in agent.history[-1]["content"]
    thanks = agent.ask("Thanks!")
    assert thanks.answer.startswith("You're welcome, Pedro!") and thanks.llm_calls == 0
    assert agent.history[-2]["content"] == "Thanks!"


def test_a_procedure_that_does_not_apply_says_why_and_offers_no_walkthrough():
    agent = agent_for("Aisha Khan")  # on probation
    steps = list(agent.run("I want to request remote work"))
    offered = next(s for s in steps if isinstance(s, ProcedureOffered))
    assert offered.walkthrough is None and offered.applicability["verdict"] == "does_not_apply"
    assert "It does not apply to you: it needs employment status is not probation" in steps[-1].answer
    assert "Probation" in steps[-1].answer


def test_the_cli_walks_through_one_step_at_a_time(capsys):
    from engine.cli import _walk_through

    agent = agent_for("Pedro Alves")
    agent.ask("How do I apply for parental leave?")
    replies = iter(["", "s", "b", "x", "n", "n", "n", "n", "n"])
    _walk_through(agent, answer=lambda prompt: next(replies))
    out = capsys.readouterr().out
    assert "Step 1 of 6: Tell your line manager" in out and "Type n, s, b or c." in out
    assert out.strip().endswith("All 6 steps gone through. You can ask me about any step.")
    assert agent.last_trace.procedure["walkthrough"]["state"] == "finished"
    agent.ask("How do I apply for parental leave?")
    assert _walk_through(agent, answer=lambda prompt: (_ for _ in ()).throw(EOFError)) is None  # Ctrl+D cancels
    assert "Cancelled at step 1 of 6" in capsys.readouterr().out
    agent.ask("How do I apply for parental leave?")
    typed = "Which form do I need for step 4?"  # a question instead of a key: asked next, not lost
    assert _walk_through(agent, answer=lambda prompt: typed) == typed


def test_the_procedures_command_checks_each_for_the_user(tmp_path, capsys):
    from engine.cli import main

    assert main(["procedures", "--user", "Isabel Cruz", "--steps"]) == 0
    out = capsys.readouterr().out
    assert "Apply for parental leave  (procedures/parental-leave.md, 6 steps)" in out
    assert "for you: does not apply — ✗ at least 6 months of service" in out and "  6. Within four weeks" in out
    folder = tmp_path / "pol"
    shutil.copytree(SAMPLE, folder)
    (folder / "broken.md").write_text("---\nprocedure: Broken\napplies_to: x ?? 1\n---\n1. s\n", encoding="utf-8")
    assert main(["procedures", "--user", "Pedro Alves", "--policies", str(folder)]) == 1  # HR sees it failed
    assert "skipped: broken.md" in capsys.readouterr().out


def test_condition_values_parse_strictly():
    assert Condition.parse("tenure_years >= 1.5", "x").value == 1.5
    assert Condition.parse("Employment Status == 'Permanent'", "x").field == "employment_status"
    with pytest.raises(DataFileError, match="cannot read the value"):
        Condition.parse("contract == perm$anent", "x")
    with pytest.raises(DataFileError, match="needs a list"):
        Condition.parse("contract in permanent", "x")
