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
    assert "'Pay Rate' is an amount per hour, month or year, as 'Pay Type' says per row" in lines
    studio = load_employees(STUDIO)
    assert infer_schema(studio).units["Annual Salary (GBP)"] == "GBP"
    assert infer_schema(studio).units["Holiday Remaining (days)"] == "days"


SORTED = """Assoc ID,Associate Name,Reports To,Department,Pay Frequency,Base Rate,Status
H1,"Castellanos, Beatriz",,Executive Office,Monthly,9800,Full Time
H2,"Okafor, Daniel","Castellanos, Beatriz",Front Office,Hourly,21.00,Full Time
H3,"Ramírez Soto, Diego","Castellanos, Beatriz",Housekeeping,Annual,41000,Part Time
H4,"Smith, Jr.",H1,Housekeeping,Salaried,50000,Full Time
"""


@pytest.mark.parametrize("cell, shown", [("Okafor, Daniel", "Daniel Okafor"), ("Ramírez Soto, Diego", "Diego Ramírez Soto"),
                                         ("O'Neil , Mary-Kate", "Mary-Kate O'Neil"), ("Smith, Jr.", "Smith, Jr."),
                                         ("Daniel Okafor", "Daniel Okafor"), ("Okafor, CPA", "Okafor, CPA"),
                                         ("12,5", "12,5"), ("A, B, C", "A, B, C")])
def test_a_name_written_family_name_first_is_turned_round(cell, shown):
    from engine.data.employees import unsort_name

    assert unsort_name(cell) == shown


def test_a_name_column_written_family_name_first_gets_a_column_people_are_found_by(tmp_path):
    path = tmp_path / "associates.csv"
    path.write_text(SORTED, encoding="utf-8")
    table = load_employees(path)
    assert table.role("name") == "Name" and table.columns["Name"].derived_from == ["Associate Name"]
    assert list(table.df["Name"]) == ["Beatriz Castellanos", "Daniel Okafor", "Diego Ramírez Soto", "Smith, Jr."]
    assert table.role("employee_id") == "Assoc ID"  # "Assoc ID" names the person's id, as "Employee ID" does
    viewer = make_viewer(table, "Daniel Okafor")
    assert viewer.row == 1 and viewer.name == "Daniel Okafor"
    assert {"Name", "Associate Name", "Assoc ID"} <= viewer.public_columns
    # A manager written family name first is still the manager of the rows that name them so.
    boss = make_viewer(table, "Beatriz Castellanos")
    assert boss.role == "manager" and boss.reports == ["Daniel Okafor", "Diego Ramírez Soto", "Smith, Jr."]


@pytest.mark.parametrize("header", ["Tax ID", "National ID", "SSN", "Passport No", "Member ID", "Person Number"])
def test_an_id_the_state_gives_is_never_taken_for_the_public_employee_id(header, tmp_path):
    path = tmp_path / "staff.csv"
    path.write_text(f"Name,{header},Department\nAna Lima,X1,Sales\nBo Chen,X2,Sales\n", encoding="utf-8")
    table = load_employees(path)
    assert table.role("employee_id") != header
    assert header not in make_viewer(table, "Ana Lima").public_columns


def test_each_rows_pay_is_per_the_period_its_pay_basis_names(tmp_path):
    from engine.data.schema import basis_period

    assert [basis_period(v) for v in ("Hourly", "Monthly", "Annual", "Weekly", "Salaried", "Exempt", "", None)] == \
        ["hour", "month", "year", "week", "year", "year", "", ""]
    assert basis_period("Salaried", "month") == "month"  # "Monthly Salary" with "Salaried" rows
    assert basis_period(None, "month") == "month"
    path = tmp_path / "associates.csv"
    path.write_text(SORTED, encoding="utf-8")
    tool = EmployeeDataTool(load_employees(path))
    lines = {u: build_profile(tool, u, TODAY).render() for u in ("Beatriz Castellanos", "Daniel Okafor",
                                                                "Diego Ramírez Soto", "Smith, Jr.")}
    assert "Base Rate: 9800 (per month, because Pay Frequency is Monthly)" in lines["Beatriz Castellanos"]
    assert "Base Rate: 21 (per hour, because Pay Frequency is Hourly)" in lines["Daniel Okafor"]
    assert "Base Rate: 41000 (per year, because Pay Frequency is Annual)" in lines["Diego Ramírez Soto"]
    assert "Base Rate: 50000 (per year, because Pay Frequency is Salaried)" in lines["Smith, Jr."]
    # The same name twice in one record says nothing new.
    assert "Associate Name" not in lines["Daniel Okafor"]


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
