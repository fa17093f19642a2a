"""Leave requests: the calendar, preparing, the approval gate, the store, the audit, the CLI and the window."""

from __future__ import annotations

import csv
import os
import io

import datetime as dt
import json

import pytest

from engine.data.access import AuditLog
from engine.agent.loop import Agent
from engine.assistant import Sources, build_data_tool, build_leave_tool
from engine.errors import AccessDenied, DataFileError, ToolInputError
from engine.workflows.leave import Calendar, LeaveDesk, RequestStore, prepare
from engine.model.scripted import ScriptedBackend
from engine.settings import Settings
from engine.tools.base import ToolContext
from engine.tools.leave_request import LeaveRequestTool
from engine.tools.registry import ToolRegistry
from tests.conftest import ROOT

D = dt.date


@pytest.fixture
def calendar(tmp_path):
    path = tmp_path / "holidays.csv"
    path.write_text("date,name\n# comment\n2027-07-15,Founders' Day\n", encoding="utf-8")
    return Calendar.load(path)


@pytest.fixture
def tool(tmp_path, calendar):
    data = build_data_tool(Settings(), Sources(employees=str(ROOT / "data" / "employees.csv")))
    audit = AuditLog(tmp_path / "audit.log")
    return LeaveRequestTool(data, calendar, LeaveDesk(RequestStore(tmp_path / "requests.sqlite"), audit))


def me(name="Pedro Alves", role="employee", account="palves"):
    return ToolContext(user=name, role=role, account=account, name=name, today="2026-11-23")


def audit_lines(tool):
    return [json.loads(line) for line in tool.desk.audit.path.read_text().splitlines()]


def test_working_days_leave_out_weekends_and_holidays(calendar):
    days, skipped = calendar.working_days(D(2027, 7, 14), D(2027, 7, 20))  # Wed .. Tue
    assert [d.isoformat() for d in days] == ["2027-07-14", "2027-07-16", "2027-07-19", "2027-07-20"]
    assert skipped == ["2027-07-15 (Founders' Day)"]


def test_a_bad_calendar_line_is_named_and_a_missing_file_means_no_holidays(tmp_path):
    bad = tmp_path / "h.csv"
    bad.write_text("2027-01-01,New Year\n14/07/2027,Oops\n", encoding="utf-8")
    with pytest.raises(DataFileError, match="Line 2 .* '14/07/2027'"):
        Calendar.load(bad)
    assert Calendar.load(tmp_path / "none.csv").holidays == {}


def test_prepare_counts_half_days_and_refuses_what_does_not_fit(calendar):
    request = prepare("Ana", "vacation", "vacation_days_remaining", 8, D(2027, 7, 14), D(2027, 7, 19), calendar,
                      half_start=True)
    assert request.days == ["2027-07-14", "2027-07-16", "2027-07-19"] and request.day_count == 2.5
    assert request.balance_after == 5.5
    with pytest.raises(ValueError, match="takes 4 days, but Ana has 3"):
        prepare("Ana", "vacation", "vacation_days_remaining", 3, D(2027, 7, 14), D(2027, 7, 20), calendar)
    with pytest.raises(ValueError, match="ends .* before it starts"):
        prepare("Ana", "vacation", "x", 8, D(2027, 7, 14), D(2027, 7, 13), calendar)
    with pytest.raises(ValueError, match="no working day"):
        prepare("Ana", "vacation", "x", 8, D(2027, 7, 17), D(2027, 7, 18), calendar)


def test_nothing_is_stored_until_approved_and_a_rejection_stores_nothing(tool):
    result = tool.run("vacation from 2027-07-14 to 2027-07-16", me())
    assert result.kind == "leave_request" and "NOT submitted" in result.text
    request = result.data
    assert request["employee"] == "Pedro Alves" and request["day_count"] == 2  # the 15th is a holiday
    assert request["balance_before"] == 8 and request["balance_after"] == 6
    assert tool.desk.store.list(None) == []  # prepared is not stored
    tool.desk.decide(request["id"], True, me())
    stored = tool.desk.store.list()
    assert [(r["id"], r["employee"], r["day_count"], r["status"]) for r in stored] == \
        [(request["id"], "Pedro Alves", 2, "pending")]
    second = tool.run("sick from 2027-07-19 to 2027-07-19", me()).data
    tool.desk.decide(second["id"], False, me())
    assert len(tool.desk.store.list(None)) == 1  # the rejected one is not there
    with pytest.raises(AccessDenied):
        tool.desk.decide(second["id"], True, me())  # decided once: gone
    what = [e["query"].split(":")[0] for e in audit_lines(tool)]
    assert what == ["leave request prepared", "leave request approved", "leave request prepared",
                    "leave request rejected"]
    assert all(e["account"] == "palves" for e in audit_lines(tool))


def test_only_the_account_that_prepared_a_request_can_decide_it(tool):
    request = tool.run("vacation from 2027-07-14 to 2027-07-14", me()).data
    with pytest.raises(AccessDenied):
        tool.desk.decide(request["id"], True, me("Ivan Petrov", account="ipetrov"))
    assert tool.desk.store.list(None) == []


def test_a_request_for_someone_else_needs_hr(tool):
    with pytest.raises(AccessDenied, match="only for yourself"):
        tool.run('vacation from 2027-07-14 to 2027-07-14 for "Ivan Petrov"', me())
    hr = me("Priya Raman", role="hr", account="praman")
    request = tool.run('vacation from 2027-07-14 to 2027-07-14 for "Ivan Petrov"', hr).data
    assert request["employee"] == "Ivan Petrov" and request["prepared_by"] == "praman"


def test_bad_requests_are_clear_errors(tool):
    with pytest.raises(ToolInputError, match="Write the request as"):
        tool.run("three days off in July", me())
    with pytest.raises(ToolInputError, match="not a date"):
        tool.run("vacation from 2027-02-30 to 2027-03-02", me())
    with pytest.raises(ToolInputError, match="but Pedro Alves has 8"):
        tool.run("vacation from 2027-08-02 to 2027-08-31", me())
    assert tool.desk.pending() == []


def test_export_is_csv_that_no_spreadsheet_runs(tool, tmp_path):
    data = build_data_tool(Settings(), Sources(employees=str(ROOT / "data" / "employees.csv")))
    request = prepare("=HYPERLINK(1)", "vacation", "v", 5, D(2027, 7, 14), D(2027, 7, 14), Calendar())
    tool.desk.store.submit(request)
    text = tool.desk.store.export_csv()
    assert text.splitlines()[0].startswith("id,employee,leave_type,start,end,day_count")
    assert "'=HYPERLINK(1)" in text and data is not None
    rows = list(csv.DictReader(io.StringIO(text)))
    empty = [k for k, v in rows[0].items() if v in ("", "'")]
    assert empty and all(rows[0][k] == "" for k in empty)  # an empty cell stays empty, not "'"


def test_the_agent_prepares_but_cannot_submit(tool):
    backend = ScriptedBackend([" Book it.\nAction: leave_request\nAction Input: vacation from 2027-07-14 to 2027-07-16\n",
                               " Done.\nFinal Answer: I prepared the request: 2 working days. Please approve it."])
    agent = Agent(backend, ToolRegistry([tool.data, tool]), me())
    trace = agent.ask("Book me 3 days off from 14 July")
    assert [s.action for s in trace.steps if s.action] == ["leave_request"]
    assert len(tool.desk.pending()) == 1 and tool.desk.store.list(None) == []
    assert 'leave_request ::= ' not in backend.grammars[0] and '"leave_request\\nAction Input: "' in backend.grammars[0]


def test_cli_chat_asks_before_submitting(tool, capsys):
    from engine.cli import _decide_leave_requests

    agent = Agent(ScriptedBackend([]), ToolRegistry([tool.data, tool]), me())
    tool.run("vacation from 2027-07-14 to 2027-07-14", me())
    _decide_leave_requests(agent, answer=lambda prompt: "n")
    assert tool.desk.store.list(None) == [] and "Rejected" in capsys.readouterr().out
    tool.run("vacation from 2027-07-14 to 2027-07-14", me())
    _decide_leave_requests(agent, answer=lambda prompt: "y")
    assert len(tool.desk.store.list()) == 1 and "Submitted" in capsys.readouterr().out


def test_hr_lists_and_exports_every_request_others_see_their_own(tool, tmp_path, capsys, monkeypatch):
    from engine.cli import main

    store = RequestStore.default()
    store.submit(prepare("Pedro Alves", "vacation", "v", 5, D(2027, 7, 14), D(2027, 7, 14), Calendar()))
    assert main(["requests", "--user", "Pedro Alves"]) == 0
    assert "Pedro Alves: vacation 2027-07-14" in capsys.readouterr().out
    assert main(["requests", "--user", "Oliver Grant"]) == 0
    assert "No pending leave requests you can see." in capsys.readouterr().out
    assert main(["requests", "--user", "Priya Raman"]) == 0
    assert "Pedro Alves: vacation 2027-07-14 to 2027-07-14, 1 days" in capsys.readouterr().out
    out = tmp_path / "pending.csv"
    assert main(["requests", "--user", "Priya Raman", "--csv", str(out)]) == 0
    assert out.read_text().count("\n") == 2


def test_the_setting_adds_the_tool_with_the_sample_calendar():
    data = build_data_tool(Settings(), Sources())
    assert build_leave_tool(Settings(), data) is None  # off by default
    tool = build_leave_tool(Settings(leave_requests=True), data)
    assert tool is not None and D(2026, 12, 25) in tool.calendar.holidays
    assert set(tool.types) == {"vacation", "sick"}


@pytest.mark.skipif(os.name != "posix", reason="POSIX modes")
def test_the_request_store_is_readable_by_its_owner_only(tmp_path):
    from engine.workflows.leave import RequestStore

    path = tmp_path / "leave-requests.sqlite"
    RequestStore(path)
    assert path.stat().st_mode & 0o777 == 0o600
    path.chmod(0o644)  # made by an earlier version
    RequestStore(path)
    assert path.stat().st_mode & 0o777 == 0o600


def test_a_request_is_cancelled_by_its_owner_and_nobody_approves_in_single_user_mode(capsys):
    from engine.cli import main

    store = RequestStore.default()
    request = prepare("Pedro Alves", "vacation", "v", 5, D(2027, 7, 14), D(2027, 7, 14), Calendar())
    store.submit(request)
    assert main(["requests", "approve", request.id, "--user", "Priya Raman"]) == 1
    assert "nobody else sees your requests" in capsys.readouterr().err
    assert main(["requests", "decline", request.id, "--user", "Priya Raman"]) == 1
    assert "needs a reason" in capsys.readouterr().err
    assert main(["requests", "cancel", "--user", "Pedro Alves"]) == 1
    assert "say which request" in capsys.readouterr().err
    assert main(["requests", "cancel", request.id, "--user", "Pedro Alves"]) == 0
    assert f"{request.id}  Pedro Alves: cancelled" in capsys.readouterr().out
    assert main(["requests", "cancel", request.id, "--user", "Pedro Alves"]) == 1
    assert "no pending leave request" in capsys.readouterr().err
    assert [r["status"] for r in store.list(None)] == ["cancelled"]


def test_a_site_sharing_an_employee_file_without_a_database_refuses_requests(site_file, tool, capsys):
    from engine.cli import main
    from engine.workflows.leave import NoSharedStore

    site_file(f'[site]\nemployees = "{ROOT / "data" / "employees.csv"}"\n')
    store = RequestStore.default()
    assert isinstance(store, NoSharedStore) and store.list() == []
    with pytest.raises(Exception, match="need the site database"):
        store.submit(prepare("Pedro Alves", "vacation", "v", 5, D(2027, 7, 14), D(2027, 7, 14), Calendar()))
    refusing = LeaveRequestTool(tool.data, tool.calendar, LeaveDesk(store, None))
    with pytest.raises(AccessDenied, match="need the site database"):  # said before anything is prepared
        refusing.run("vacation from 2027-07-14 to 2027-07-14", me())
    assert main(["requests"]) == 1
    assert "need the site database" in capsys.readouterr().err


def test_a_manager_is_not_shown_a_reports_balance_in_an_hr_only_column():
    from types import SimpleNamespace

    from engine.workflows.leave import visible_to

    rows = [{"id": "a", "employee": "Li Wei", "balance_before": 4, "balance_after": 2, "balance_column": "sick"},
            {"id": "b", "employee": "Li Wei", "balance_before": 9, "balance_after": 8, "balance_column": "vacation"},
            {"id": "c", "employee": "Li Wei", "balance_before": 5, "balance_after": 4},  # which column: unknown
            {"id": "d", "employee": "Olu Bello", "balance_before": 3, "balance_after": 1, "balance_column": "sick"},
            {"id": "e", "employee": "Sara Kim", "balance_before": 1, "balance_after": 0, "balance_column": "sick"}]
    manager = SimpleNamespace(role="manager", name="Olu Bello", reports=["Li Wei"], hr_only_columns=frozenset({"sick"}))
    shown = {r["id"]: r["balance_after"] for r in visible_to(rows, manager)}
    assert shown == {"a": None, "b": 8, "c": None, "d": 1}  # not Sara Kim's at all; their own in full
    open_ = SimpleNamespace(role="manager", name="Olu Bello", reports=["Li Wei"], hr_only_columns=frozenset())
    assert {r["id"]: r["balance_after"] for r in visible_to(rows, open_)} == {"a": 2, "b": 8, "c": 4, "d": 1}
    hr = SimpleNamespace(role="hr", name="Priya Raman", reports=[], hr_only_columns=frozenset({"sick"}))
    assert visible_to(rows, hr) == rows
