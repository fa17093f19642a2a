"""Look up first: what the loader concludes about a company's columns, and the person's own record.

Three exports of different shapes, as real HR systems write them: a name split over first and last
name with the manager given by employee number, hourly and salaried pay in one column with the
basis in another, balances in hours (a US clinic); forename/surname, FTE and a line manager by name
(a UK studio); and the sample company.
"""

from __future__ import annotations

import json

import pytest

from engine.data.access import AccessPolicy, AuditLog, make_viewer
from engine.data.employees import load_employees
from engine.data.profile import build_profile, service
from engine.data.schema import infer_schema
from engine.tools.employee_data import EmployeeDataTool
from tests.conftest import ROOT

CLINIC = ROOT / "benchmarks" / "synthetic" / "juniper-ridge" / "employees.csv"
STUDIO = ROOT / "benchmarks" / "synthetic" / "fjordline" / "staff.csv"
SAMPLE = ROOT / "data" / "employees.csv"
TODAY = "2026-11-25"


@pytest.fixture(scope="module")
def clinic():
    return load_employees(CLINIC)


def test_a_name_split_over_two_columns_becomes_one_the_app_can_match(clinic):
    assert clinic.role("name") == "Name" and clinic.columns["Name"].derived_from == ["First Name", "Last Name"]
    assert list(clinic.df["Name"][:2]) == ["Dolores Whitfield", "Marcus Oyelaran"]
    # A job title that looks like a name ("Chief Executive Officer") is not taken for the name.
    assert clinic.role("name") != "Job Title"
    viewer = make_viewer(clinic, "Hyun-woo Park")
    assert viewer.row is not None and viewer.name == "Hyun-woo Park"


def test_a_manager_given_by_employee_number_still_has_their_reports(clinic):
    assert clinic.role("manager") == "Supervisor Emp #"  # a number column, by its header
    viewer = make_viewer(clinic, "Bradley Nguyen")
    assert viewer.role == "manager"
    assert viewer.reports == ["Aaliyah Thompson", "Joaquin Ferreira", "Hyun-woo Park", "Imani Brooks", "Nadia Petrov"]


def test_the_derived_name_is_as_public_as_its_parts(clinic):
    viewer = make_viewer(clinic, "Santiago Rivera")
    assert {"Name", "First Name", "Last Name"} <= viewer.public_columns
    policy = AccessPolicy(public_columns=["Department"])  # a site that keeps names private
    assert "Name" not in make_viewer(clinic, "Santiago Rivera", policy).public_columns


def test_units_and_pay_basis_are_read_from_headers_and_said(clinic):
    schema = infer_schema(clinic)
    assert schema.units["PTO Balance (hrs)"] == "hours" and schema.units["Scheduled Hours/Week"] == "hours a week"
    assert schema.pay_basis == "Pay Type"
    lines = "\n".join(schema.lines(clinic))
    assert "name: 'Name' (made of First Name + Last Name)" in lines
    assert "'Pay Rate' is an hourly rate or an annual amount, as 'Pay Type' says per row" in lines
    studio = load_employees(STUDIO)
    assert infer_schema(studio).units["Annual Salary (GBP)"] == "GBP"
    assert infer_schema(studio).units["Holiday Remaining (days)"] == "days"


def test_whoami_says_what_the_loader_concluded(capsys):
    from engine.cli import main

    assert main(["whoami", "--employees", str(CLINIC)]) == 0
    out = capsys.readouterr().out
    assert "name: 'Name' (made of First Name + Last Name)" in out and "'PTO Balance (hrs)' counts hours" in out


def test_service_is_counted_in_whole_years_and_months():
    import datetime as dt

    assert service(dt.date(2021, 4, 12), dt.date(2026, 11, 25)) == (5, 7, 2053)
    assert service(dt.date(2026, 9, 2), dt.date(2026, 11, 25))[:2] == (0, 2)
    assert service(dt.date(2020, 11, 26), dt.date(2026, 11, 25))[:2] == (5, 11)  # the day before the anniversary


def test_the_own_record_states_units_pay_basis_and_service(clinic, tmp_path):
    tool = EmployeeDataTool(clinic, audit=AuditLog(tmp_path / "audit.log"))
    profile = build_profile(tool, "Aaliyah Thompson", TODAY, account="athompson")
    text = profile.render()
    assert "- Pay Rate: 41.25 (per hour, because Pay Type is Hourly)" in text
    assert "- PTO Balance (hrs): 88 (hours)" in text
    assert "- Supervisor Emp #: Bradley Nguyen (Employee # 3004)" in text  # the id read as the person
    assert "Length of service: 7 full years and 2 months" in text and profile.service_years == pytest.approx(7.18, 0.01)
    assert "Works: full-time" in text
    # The look-up is a data access like any other: it is in the audit log, under the OS account.
    [entry] = [json.loads(line) for line in (tmp_path / "audit.log").read_text().splitlines()]
    assert entry["account"] == "athompson" and entry["allowed"] and "own record" in entry["query"]


def test_a_manager_gets_their_reports_and_only_what_they_may_read(clinic):
    profile = build_profile(EmployeeDataTool(clinic), "Bradley Nguyen", TODAY)
    assert profile.reports_total == 5 and [r[0] for r in profile.reports][:2] == ["Aaliyah Thompson", "Joaquin Ferreira"]
    assert "PTO Balance (hrs)" in profile.report_columns and "Work Email" not in profile.report_columns
    employee = build_profile(EmployeeDataTool(clinic), "Santiago Rivera", TODAY)
    assert employee.reports_total == 0 and "direct reports" not in employee.render()


def test_hr_only_columns_stay_out_of_the_own_record():
    table = load_employees(SAMPLE)
    tool = EmployeeDataTool(table, AccessPolicy(hr_only_columns=["annual_salary_usd"]))
    text = build_profile(tool, "Pedro Alves", TODAY).render()
    assert "annual_salary_usd" not in text and "vacation_days_remaining: 8" in text


def test_someone_not_in_the_data_has_no_record(clinic):
    profile = build_profile(EmployeeDataTool(clinic), "Nobody Known", TODAY)
    assert not profile.found and "not in the employee data" in profile.render()


def test_ids_are_no_source_of_figures(clinic):
    """An employee number is in the record, but no answer may take it for a figure."""
    profile = build_profile(EmployeeDataTool(clinic), "Imani Brooks", TODAY)
    assert "3008" in profile.render() and "3008" not in profile.source_text()
