"""Inputs that used to hang or end in a traceback end in a clear message, quickly."""

from __future__ import annotations

import datetime
import os
import sys
import time

import pytest

from engine.data import employees
from engine.data.access import make_viewer
from engine.data.employees import load_employees
from engine.data.query import run_query
from engine.errors import DataFileError, ToolInputError
from engine.workflows.procedures import ProcedureBook
from tests.conftest import ROOT

SAMPLE = ROOT / "data" / "employees.csv"


TODAY = datetime.date(2026, 11, 25)


def _query(text: str):
    table = load_employees(SAMPLE)
    return run_query(text, table, make_viewer(table, "Priya Raman"), TODAY).value  # HR: may read every column


@pytest.mark.parametrize("digits", [-100000000, 100000000, 16, -16])
def test_round_has_bounded_digits(digits):
    t0 = time.perf_counter()
    with pytest.raises(ToolInputError, match="digits between -15 and 15"):
        _query(f"round(len(df), {digits})")
    with pytest.raises(ToolInputError, match="digits between -15 and 15"):
        _query(f'df["annual_salary_usd"].round({digits})')
    assert time.perf_counter() - t0 < 5


def test_round_within_bounds_still_works():
    assert _query("round(len(df), -1)") % 10 == 0
    assert _query('round(df["annual_salary_usd"].mean(), 2)') > 0


def test_a_list_inside_a_list_in_front_matter_is_a_clear_problem(tmp_path):
    depth = 1200
    (tmp_path / "deep.md").write_text("---\nprocedure: Deep\napplies_to: tenure_months in " + "[" * depth + "1"
                                      + "]" * depth + "\n---\n# Deep\n1. one\n")
    (tmp_path / "ok.md").write_text('---\nprocedure: Fine\napplies_to: contract in ["permanent", "fixed"]\n---\n'
                                    "# Fine\n1. one\n")
    book = ProcedureBook.load(tmp_path)
    assert [p.title for p in book.procedures] == ["Fine"]  # the other file is refused, not the whole book
    assert len(book.problems) == 1 and "a list inside a list" in book.problems[0]
    assert len(book.problems[0]) < 300


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this OS")
def test_a_device_is_refused_before_reading():
    t0 = time.perf_counter()
    with pytest.raises(DataFileError, match="is not a file"):
        load_employees("/dev/zero")
    assert time.perf_counter() - t0 < 2


@pytest.mark.skipif(sys.platform == "win32", reason="FIFOs are POSIX")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "employees.csv"
    os.mkfifo(fifo)
    with pytest.raises(DataFileError, match="is not a file"):
        load_employees(fifo)


def test_a_folder_is_refused(tmp_path):
    folder = tmp_path / "list.csv"
    folder.mkdir()
    with pytest.raises(DataFileError, match="is not a file"):
        load_employees(folder)


def test_an_over_long_path_gets_a_short_clear_message(tmp_path):
    path = tmp_path / ("x" * 5000 + ".csv")
    with pytest.raises(DataFileError) as info:
        load_employees(path)
    assert "too long" in info.value.message or "does not exist" in info.value.message
    assert len(info.value.message) < 400


def test_an_xlsx_has_the_row_limit_of_a_csv(tmp_path, monkeypatch):
    openpyxl = pytest.importorskip("openpyxl")
    wb = openpyxl.Workbook()
    ws = wb.active
    ws.append(["full_name", "annual_salary_usd"])
    for i in range(60):
        ws.append([f"Person {i}", 1000 + i])
    path = tmp_path / "big.xlsx"
    wb.save(path)
    monkeypatch.setattr(employees, "MAX_ROWS", 50)
    with pytest.raises(DataFileError, match="more than 50 rows"):
        load_employees(path)
    monkeypatch.setattr(employees, "MAX_ROWS", 60)
    assert len(load_employees(path).df) == 60


@pytest.mark.parametrize("query, header", [
    ('df.groupby("department")["department"].count()', "| department | department (value) |"),
    ('df.groupby(["department", "location"])["location"].count()', "| department | location | location (value) |"),
    ('df.groupby("department")[["department", "annual_salary_usd"]].max()',
     "| department (group) | department | annual_salary_usd |"),
])
def test_a_group_key_that_is_also_the_figure_is_shown_not_a_traceback(query, header):
    from engine.tools.employee_data import format_result

    table = load_employees(SAMPLE)
    result = format_result(run_query(query, table, make_viewer(table, "Priya Raman"), TODAY))
    assert result.text.splitlines()[1] == header
    assert result.data["row_count"] >= 6


def test_a_single_slow_operation_is_given_up_at_the_deadline(monkeypatch):
    """The deadline is checked between a query's operations; one operation that runs on (a slower
    machine, a pathological input) still ends the question with a clear message in time."""
    import time

    from engine.data import query as q
    from engine.data.access import AccessPolicy, make_viewer
    from engine.data.employees import load_employees
    from engine.errors import ToolInputError
    from tests.conftest import ROOT

    table = load_employees(ROOT / "data" / "employees.csv")
    viewer = make_viewer(table, "Priya Raman", AccessPolicy())
    real = q.Interpreter._Call

    def slow(self, node):
        time.sleep(8)  # one operation that takes far longer than the query's budget
        return real(self, node)

    monkeypatch.setattr(q.Interpreter, "_Call", slow)
    t0 = time.perf_counter()
    with pytest.raises(ToolInputError, match="given up"):
        q.run_query("len(df)", table, viewer, "2026-11-26")
    assert time.perf_counter() - t0 < q.MAX_SECONDS + q.GRACE_SECONDS + 1.5
    monkeypatch.setattr(q.Interpreter, "_Call", real)
    assert q.run_query("len(df)", table, viewer, "2026-11-26").value == len(table.df)  # the next one runs


# -- properties: whatever a file holds, the loaders end in a table or a clear message --------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

from engine.errors import HRAssistantError  # noqa: E402
from engine.workflows.procedures import parse_procedure  # noqa: E402

_CSV_PIECES = st.sampled_from(["full_name", "username", "department", "annual_salary_usd", "sick_days_remaining",
                               "manager", "Ana Cruz", "acruz", "Ops", "61000", "-3", "1e308", "nan", "", '"', '""',
                               ",", ";", "\t", "\n", "\r\n", "=cmd()", "é", "\x00", "2026-02-30", "  "])


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(_CSV_PIECES, max_size=40).map("".join), st.sampled_from(["utf-8", "utf-16", "latin-1"]))
def test_any_employee_file_loads_or_says_why(tmp_path, text, encoding):
    path = tmp_path / "staff.csv"
    path.write_bytes(text.encode(encoding, errors="replace"))
    try:
        table = load_employees(path)
    except HRAssistantError as exc:
        assert exc.message and len(exc.message) < 2000
    else:
        assert len(table.df.columns) >= 1


_FRONT = st.sampled_from(["---\n", "procedure: Parental leave\n", "applies_to: ", "tenure_months >= 6", " and ",
                          "contract in [\"permanent\"]", "[", "]", "{", "}", ":", "\n", "# Title\n", "1. step\n",
                          "role: hr\n", "unknown_key: x\n", "'", '"', "- ", "\t", ">= ", "notin "])


@settings(max_examples=200, deadline=None)
@given(st.lists(_FRONT, max_size=30).map("".join))
def test_any_procedure_document_parses_or_says_why(text):
    try:
        parse_procedure(text, "doc.md")
    except HRAssistantError as exc:
        assert exc.message and len(exc.message) < 2000
