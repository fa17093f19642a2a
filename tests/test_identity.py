"""Who is asking comes from the OS; what IT fixes in the site file no user file can change.

Each test is one move of the red-team pass of issue 14, tried as an ordinary employee
would. The tests run as root, so "the OS account" is ``root``; the employee files below
put that account in the role each test needs.
"""

from __future__ import annotations

import json
import os
import pwd
import subprocess
import sys

import pytest

from engine.data.access import AuditLog, verify_audit
from engine.assistant import Sources, build_data_tool, build_tools, make_agent, sign_in, context_for
from engine.cli import main
from engine.errors import AccessDenied, DataFileError, IdentityError, SiteFileError
from engine.identity import account_keys, find_account_row, os_account
from engine.data.query import run_query
from engine.model.scripted import ScriptedBackend
from engine.settings import Settings, load_settings, save_settings
from engine.site import find_site_file, load_site

from tests.conftest import REFERENCE, ROOT

ME = pwd.getpwuid(os.geteuid()).pw_name
TODAY = "2026-11-23"
HEADER = "employee_id,full_name,username,email,department,manager,annual_salary_usd,sick_days_remaining\n"


def company(tmp_path, my_department="Operations", my_manager="Olu Bello", name="staff.csv"):
    """A foreign company where this OS account is Ana Cruz; Olu Bello manages six people."""
    rows = [f"E1,Ana Cruz,{ME},ana@corp.example,{my_department},{my_manager},61000,7",
            "E2,Olu Bello,obello,olu@corp.example,Operations,Priya Raman,99000,3",
            "E3,Priya Raman,praman,priya@corp.example,Human Resources,,120000,9",
            "E4,Li Wei,lwei,li@corp.example,Operations,Olu Bello,58000,4",
            "E5,Sara Kim,skim,sara@corp.example,Operations,Olu Bello,57000,2",
            "E6,Tom Berg,tberg,tom@corp.example,Finance,Priya Raman,70000,6",
            "E7,Ines Duarte,iduarte,ines@corp.example,Operations,Olu Bello,64000,5",
            "E8,Kofi Mensah,kmensah,kofi@corp.example,Operations,Olu Bello,66000,1"]
    path = tmp_path / name
    path.write_text(HEADER + "\n".join(rows) + "\n", encoding="utf-8")
    return path


def as_user(path, uid=None):
    """Make a file look written by an ordinary user (the tests run as root)."""
    os.chown(path, uid if uid is not None else pwd.getpwnam("postgres").pw_uid, -1)


# -- identity from the operating system ----------------------------------------------------------------
def test_the_os_account_comes_from_the_os_not_from_environment_variables(monkeypatch):
    for var in ("USER", "LOGNAME", "USERNAME"):
        monkeypatch.setenv(var, "praman")
    assert os_account() == ME


def test_the_os_account_is_the_processes_real_one_after_dropping_privileges():
    """A process that runs as another OS user is that user, whatever it was started with."""
    pw = pwd.getpwnam("postgres")
    code = ("import os, sys; sys.path.insert(0, %r); from engine.identity import os_account; "
            "os.setgid(%d); os.setuid(%d); print(os_account())" % (str(ROOT), pw.pw_gid, pw.pw_uid))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "USER": "root", "LOGNAME": "root"})
    assert out.stdout.strip() == "postgres", out.stderr


@pytest.mark.parametrize("written", [ME, ME.upper(), f"CORP\\{ME}"])
def test_an_account_matches_its_user_name_in_any_usual_spelling(tmp_path, written):
    path = company(tmp_path)
    path.write_text(path.read_text().replace(f",{ME},", f",{written},", 1))
    tool = build_data_tool(Settings(), Sources(employees=str(path)))
    identity = sign_in(tool)
    assert identity.name == "Ana Cruz" and identity.account == ME and identity.how == "os"


def test_an_account_matches_by_email_when_the_site_says_so(tmp_path, site_file):
    path = company(tmp_path)
    path.write_text(path.read_text().replace("ana@corp.example", f"{ME}@corp.example").replace(f",{ME},", ",ana,"))
    site_file(f'[site]\nemployees = "{path}"\nidentity_column = "email"\n')
    assert sign_in(build_data_tool(load_settings())).name == "Ana Cruz"
    assert find_account_row(build_data_tool(load_settings()).table, "CORP\\" + ME, "email") == 0
    assert {"corp\\ana", "ana"} <= account_keys("CORP\\ana")


def test_one_account_on_two_rows_is_an_error_not_a_guess(tmp_path):
    path = company(tmp_path)
    path.write_text(path.read_text().replace(",obello,", f",{ME},"))
    with pytest.raises(DataFileError, match="2 employees have the account"):
        sign_in(build_data_tool(Settings(), Sources(str(path))))


def test_an_account_without_a_row_gets_policies_and_calculator_only(tmp_path):
    path = company(tmp_path)
    path.write_text(path.read_text().replace(f",{ME},", ",acruz,"))
    tools = build_tools(Settings(employees_path=str(path)))
    identity = sign_in(tools)
    assert identity.user == "" and "not in the employee data" in identity.notice
    agent = make_agent(ScriptedBackend(["Final Answer: ok"]), tools, context_for(identity, tools), Settings())
    assert agent.tools.names == ["policy_search", "calculator"]


# -- nobody becomes someone else -----------------------------------------------------------------------
def test_user_option_cannot_make_an_employee_someone_else(tmp_path, capsys):
    path = company(tmp_path)
    code = main(["data", 'df[df["full_name"] == "Tom Berg"]["annual_salary_usd"]', "--user", "Priya Raman",
                 "--employees", str(path)])
    err = capsys.readouterr().err
    assert code == 1 and "only HR staff can view the assistant as another employee" in err
    assert "70000" not in err


@pytest.mark.parametrize("name", ["Tom Berg", "Nobody Atall", "Priya"])
def test_user_option_says_the_same_for_a_colleague_and_a_made_up_name(tmp_path, capsys, name):
    """--user is no way for an employee to find out who works here (or that two people share a name)."""
    path = company(tmp_path)
    code = main(["data", "len(df)", "--user", "Priya Raman", "--employees", str(path)])
    reference = capsys.readouterr().err
    code2 = main(["data", "len(df)", "--user", name, "--employees", str(path)])
    assert code == code2 == 1 and capsys.readouterr().err == reference


def test_a_persona_in_settings_json_is_ignored_off_the_sample(tmp_path, capsys):
    path = company(tmp_path)
    save_settings(Settings(user="Priya Raman", employees_path=str(path)))
    assert main(["whoami"]) == 0
    out = capsys.readouterr().out
    assert "employee: Ana Cruz" in out and "role: employee" in out and "may pick a persona: no" in out
    assert main(["data", 'df["annual_salary_usd"].max()']) == 1
    assert "only for yourself" in capsys.readouterr().err


def test_on_the_sample_company_a_persona_can_be_picked(capsys):
    assert main(["whoami", "--user", "Priya Raman"]) == 0
    out = capsys.readouterr().out
    assert "employee: Priya Raman" in out and "how: demo" in out and "sample company" in out


def test_hr_can_view_as_someone_and_the_audit_log_says_so(tmp_path, capsys):
    path = company(tmp_path, my_department="Human Resources", my_manager="")
    code = main(["data", 'df[df["full_name"] == "Li Wei"]["sick_days_remaining"]', "--user", "Li Wei",
                 "--employees", str(path), "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["view_as"] == "Li Wei" and out["account"] == ME and out["role"] == "employee"
    # Viewing as Li Wei shows what Li Wei may see, not what HR may see.
    assert main(["data", 'df[df["full_name"] == "Tom Berg"]["annual_salary_usd"]', "--user", "Li Wei",
                 "--employees", str(path)]) == 1
    entries = [json.loads(line) for line in (tmp_path / "data" / "audit.log").read_text().splitlines()]
    assert [(e["account"], e["view_as"], e["user"], e["allowed"]) for e in entries] == [
        (ME, "Li Wei", "Li Wei", True), (ME, "Li Wei", "Li Wei", False)]
    assert all(len(e["data_sha256"]) == 64 and len(e["policy_sha256"]) == 64 for e in entries)


def test_a_manager_cannot_view_as_anyone(tmp_path):
    path = company(tmp_path)
    path.write_text(path.read_text().replace(",Operations,Olu Bello,", ",Operations,Ana Cruz,"))
    tool = build_data_tool(Settings(), Sources(str(path)))
    assert tool.viewer(sign_in(tool).user).role == "manager"
    with pytest.raises(IdentityError):
        sign_in(tool, "Li Wei")


def test_kiosk_mode_lets_anyone_pick_a_persona(tmp_path, site_file):
    path = company(tmp_path)
    site_file(f'[site]\nemployees = "{path}"\nkiosk = true\n')
    identity = sign_in(build_data_tool(load_settings()), "Olu Bello")
    assert identity.how == "kiosk" and identity.name == "Olu Bello" and identity.view_as == ""


def test_evaluation_personas_are_refused_when_a_site_file_is_in_force(tmp_path, site_file):
    path = company(tmp_path)
    tool = build_data_tool(Settings(), Sources(str(path)))
    assert sign_in(tool, "Olu Bello", personas=True).how == "eval"
    site_file(f'[site]\nemployees = "{path}"\n')
    with pytest.raises(IdentityError):
        sign_in(build_data_tool(load_settings()), "Olu Bello", personas=True)


# -- files the user can write never raise their rights -------------------------------------------------
def test_an_access_policy_in_the_users_folder_is_ignored(tmp_path, capsys):
    path = company(tmp_path)
    (tmp_path / "data").mkdir(exist_ok=True)
    (tmp_path / "data" / "access_policy.toml").write_text('[access]\nhr_departments = ["Operations"]\n')
    assert main(["data", 'df["annual_salary_usd"].max()', "--employees", str(path)]) == 1
    assert "only for yourself" in capsys.readouterr().err


def test_the_site_files_access_policy_applies(tmp_path, site_file, capsys):
    path = company(tmp_path)
    site_file(f'[site]\nemployees = "{path}"\n[access]\nhr_departments = ["Operations"]\n')
    assert main(["data", 'df["annual_salary_usd"].max()']) == 0
    assert "120000" in capsys.readouterr().out


def test_the_site_fixes_the_data_source_against_every_user_override(tmp_path, site_file, monkeypatch, capsys):
    real = company(tmp_path)
    doctored = company(tmp_path, my_department="Human Resources", name="doctored.csv")
    site_file(f'[site]\nemployees = "{real}"\n')
    # the command line
    assert main(["data", "len(df)", "--employees", str(doctored)]) == 2
    assert "--employees cannot be used here" in capsys.readouterr().err
    # the environment and settings.json
    monkeypatch.setenv("HR_ASSISTANT_EMPLOYEES", str(doctored))
    save_settings(Settings(employees_path=str(doctored)))
    assert load_settings().employees_path == str(real)
    assert main(["whoami"]) == 0
    assert "role: employee" in capsys.readouterr().out


def test_a_site_file_users_could_write_is_refused(tmp_path, site_file, capsys):
    path = site_file("[site]\nkiosk = true\n")
    as_user(path)
    with pytest.raises(SiteFileError, match="not trusted.*belongs to user id"):
        load_site()
    os.chown(path, 0, -1)
    path.chmod(0o666)
    with pytest.raises(SiteFileError, match="can be written by users other than root"):
        load_site()
    path.chmod(0o644)
    path.parent.chmod(0o777)
    with pytest.raises(SiteFileError, match="can be written by users other than root"):
        load_site()
    path.parent.chmod(0o755)
    assert load_site().kiosk
    assert main(["settings"]) == 0


@pytest.mark.parametrize("text, needle", [
    ("[site\n", "cannot be read"), ("[site]\nkiosk = 'yes'\n", "kiosk must be true or false"),
    ("[sites]\n", "unknown section"), ("[site]\nidentity_column = 'full_name'\n", "identity_column"),
    ("[settings]\nn_ctxx = 4\n", "unknown settings"),
])
def test_a_damaged_site_file_stops_the_app_with_a_clear_error(site_file, capsys, text, needle):
    site_file(text)
    assert main(["whoami"]) == 2
    assert needle in capsys.readouterr().err


def test_a_dangling_link_at_the_system_place_fails_closed(tmp_path, monkeypatch, site_file, capsys):
    """A link to nowhere where the site file belongs is no "no site file": the app stops, naming it,
    and a site file the user points the variable at is not read instead."""
    elsewhere = site_file("[site]\nkiosk = true\n")  # sets HR_ASSISTANT_SITE_FILE, as a user could
    system = tmp_path / "etc" / "site.toml"
    system.parent.mkdir()
    system.symlink_to(tmp_path / "gone.toml")
    monkeypatch.setattr("engine.site.system_site_files", lambda: [system])
    assert find_site_file() == system != elsewhere
    with pytest.raises(SiteFileError, match="not trusted: it cannot be resolved"):
        load_site()
    assert main(["whoami"]) == 2
    err = capsys.readouterr().err
    assert str(system) in err and "Traceback" not in err


def test_a_site_place_that_cannot_be_looked_at_counts_as_a_site_file(tmp_path, monkeypatch, site_file):
    site_file("[site]\nkiosk = true\n")  # the variable a user could set: never read once the system place is unclear
    system = tmp_path / "etc" / "site.toml"
    real_lstat = os.lstat

    def lstat(path, *a, **k):
        if str(path) == str(system):
            raise PermissionError(13, "Permission denied", str(path))
        return real_lstat(path, *a, **k)

    monkeypatch.setattr("engine.site.system_site_files", lambda: [system])
    monkeypatch.setattr(os, "lstat", lstat)
    assert find_site_file() == system
    with pytest.raises(SiteFileError, match="not trusted"):
        load_site()


@pytest.mark.skipif(sys.platform == "win32" or not hasattr(os, "geteuid") or os.geteuid() != 0,
                    reason="needs root to act as another account")
def test_a_site_folder_the_account_cannot_look_into_fails_closed(tmp_path):
    """IT made the site folder 0700: an employee's app stops with the path, it does not run single-user
    (nor trust a site file the employee points at)."""
    from tests.other_account import code_for_others, python_for_others, run_as_nobody

    python = python_for_others()
    if python is None:
        pytest.skip("no Python interpreter the account 'nobody' may run")
    folder = tmp_path / "etc-hr-assistant"
    folder.mkdir()
    (folder / "site.toml").write_text("[site]\nkiosk = false\n")
    folder.chmod(0o700)
    tmp_path.chmod(0o755)
    tmp_path.parent.chmod(0o755)  # (pytest's own folders are 0700; the test is about the site folder)
    mine = tmp_path / "mine.toml"  # what the employee would rather have trusted
    mine.write_text("[site]\nkiosk = true\n")
    code_dir = code_for_others(["engine/errors.py", "engine/site.py", "engine/paths.py", "engine/winacl.py"])
    script = (
        "from pathlib import Path\nimport engine.site as s\nfrom engine.errors import SiteFileError\n"
        f"s.system_site_files = lambda: [Path({str(folder / 'site.toml')!r})]\n"
        "try:\n    site = s.load_site()\n    print('LOADED', site.active, site.kiosk)\n"
        "except SiteFileError as exc:\n    print('REFUSED', exc)\n")
    env = {"HOME": str(tmp_path), "PATH": "/usr/bin:/bin", "HR_ASSISTANT_SITE_FILE": str(mine)}
    done = run_as_nobody(python, code_dir, script, env=env)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("REFUSED") and "etc-hr-assistant" in done.stdout, done.stdout


def test_the_env_var_cannot_switch_a_system_site_file_off(tmp_path, monkeypatch, site_file):
    system = site_file('[site]\nkiosk = false\n')
    other = tmp_path / "etc-hr-assistant" / "other.toml"
    other.write_text("[site]\nkiosk = true\n")
    monkeypatch.setattr("engine.site.system_site_files", lambda: [system])
    monkeypatch.setenv("HR_ASSISTANT_SITE_FILE", str(other))
    assert load_site().path == system and not load_site().kiosk


def test_a_column_meaning_file_the_user_wrote_cannot_make_pay_public(tmp_path):
    real = company(tmp_path)
    link = tmp_path / "mine" / "staff.csv"
    link.parent.mkdir()
    link.symlink_to(real)
    for text in ('[columns]\npay = []\n', '[columns]\ndepartment = "annual_salary_usd"\n'):
        side = link.with_suffix(".csv.toml")
        side.write_text(text)
        as_user(side)
        try:
            tool = build_data_tool(Settings(), Sources(str(link)))
        except DataFileError as exc:
            assert "readable by everyone" in exc.message
            continue
        assert "annual_salary_usd" in tool.table.pay_columns
        viewer = tool.viewer(sign_in(tool).user)
        with pytest.raises(AccessDenied):
            run_query('df[df["full_name"] == "Tom Berg"]["annual_salary_usd"]', tool.table, viewer, TODAY)
    # the same file placed by IT (root-owned) is honoured
    side = link.with_suffix(".csv.toml")
    side.write_text('[columns]\npay = ["annual_salary_usd", "sick_days_remaining"]\n')
    os.chown(side, 0, -1)
    assert build_data_tool(Settings(), Sources(str(link))).table.pay_columns == ["annual_salary_usd",
                                                                                  "sick_days_remaining"]


def test_the_site_fixes_settings_and_allowed_models(tmp_path, site_file, capsys):
    model = tmp_path / "allowed.gguf"
    model.write_bytes(b"x")
    site_file(f'[site]\nmodels = ["{model}"]\npolicies = "{REFERENCE}"\n[settings]\nn_threads = 3\n')
    save_settings(Settings(n_threads=1))
    assert load_settings().n_threads == 3
    assert main(["ask", "hi", "--threads", "2"]) == 2
    assert "--threads cannot be used here" in capsys.readouterr().err
    assert main(["search", "leave", "--policies", str(tmp_path)]) == 2
    assert "--policies cannot be used here" in capsys.readouterr().err
    assert main(["ask", "hi", "--model", str(tmp_path / "other.gguf")]) == 2
    assert "not one your IT department allows" in capsys.readouterr().err
    # (and, wherever a site file exists, how far the model server is trusted: its own, set or not)
    assert set(load_site().locked()) == {"policies_path", "n_threads", "allow_plain_http", "model_ca"}


# -- the inference channels ----------------------------------------------------------------------------
#: Query shapes that would reveal someone else's salary through a filter, sort, rank, group or
#: summary; an employee (Ana) and a manager (Olu, about people outside his team) must get none.
INFERENCE_SHAPES = [
    'df[df["annual_salary_usd"] > 90000]["full_name"]',
    'df[df["annual_salary_usd"] > 90000]',
    'len(df[df["annual_salary_usd"] > 90000])',
    '(df["annual_salary_usd"] > 90000).sum()',
    'df.sort_values(by="annual_salary_usd", ascending=False)["full_name"]',
    'df.sort_values(by="annual_salary_usd", ascending=False).head(1)',
    'df.nlargest(1, "annual_salary_usd")["full_name"]',
    'df["annual_salary_usd"].nlargest(1)',
    'df.groupby("department")["annual_salary_usd"].mean()',
    'df.groupby("annual_salary_usd").size()',
    'df[df["department"] == "Finance"]["annual_salary_usd"].mean()',
    'df[df["annual_salary_usd"].between(60000, 80000)]["full_name"]',
    'df[df["annual_salary_usd"] == 120000]["full_name"]',
    'df["annual_salary_usd"].value_counts()',
    'df[df["full_name"] == "Tom Berg"]["annual_salary_usd"] == "7"',
    'df["annual_salary_usd"].max()',
    'df[df["annual_salary_usd"].isin([70000, 120000])]["full_name"]',
]


@pytest.mark.parametrize("query", INFERENCE_SHAPES)
@pytest.mark.parametrize("who", ["Ana Cruz", "Olu Bello"])
def test_no_query_shape_infers_someone_elses_salary(tmp_path, query, who):
    tool = build_data_tool(Settings(), Sources(str(company(tmp_path))))
    viewer = tool.viewer(who)
    try:
        result = run_query(query, tool.table, viewer, TODAY)
    except AccessDenied:
        return
    text = json.dumps(result.value if not hasattr(result.value, "to_dict") else str(result.value)) + str(result.notes)
    for secret in ("120000", "70000"):  # Priya's and Tom's: outside both users' rights
        assert secret not in text


def test_a_summary_over_a_group_smaller_than_the_minimum_is_refused_even_for_managers(tmp_path, site_file):
    path = company(tmp_path)
    olu = build_data_tool(Settings(), Sources(str(path))).viewer("Olu Bello")
    table = build_data_tool(Settings(), Sources(str(path))).table
    team = 'df[df["manager"] == "Olu Bello"]'
    assert run_query(f'{team}["annual_salary_usd"].mean()', table, olu, TODAY).value == pytest.approx(61200)
    with pytest.raises(AccessDenied, match="fewer than 5 people"):
        run_query('df[df["full_name"].isin(["Olu Bello", "Li Wei"])]["annual_salary_usd"].mean()', table, olu,
                  TODAY)
    with pytest.raises(AccessDenied, match="fewer than 5 people"):
        run_query(f'{team}.groupby("employee_id")["annual_salary_usd"].max()', table, olu, TODAY)
    # counting people is not a summary of their pay; one's own value is one's own
    assert run_query(f'{team}["annual_salary_usd"].count()', table, olu, TODAY).value == 5
    assert run_query('df[df["full_name"] == "Olu Bello"]["annual_salary_usd"].sum()', table, olu, TODAY).value == 99000
    # the minimum is the site's to set
    site_file(f'[site]\nemployees = "{path}"\n[access]\nmin_group_size = 2\n')
    tool = build_data_tool(load_settings())
    assert run_query('df[df["full_name"].isin(["Olu Bello", "Li Wei"])]["annual_salary_usd"].mean()', tool.table,
                     tool.viewer("Olu Bello"), TODAY).value == 78500


def test_a_managers_total_of_their_own_reports_leave_is_shown_and_an_employees_is_not(tmp_path):
    # "What's the total leave left across my team?" of a manager with two reports: each balance is theirs to
    # read, so their sum gives nothing away (it had been refused as a summary of fewer than 5 people).
    table = build_data_tool(Settings(), Sources(str(company(tmp_path)))).table
    two = 'df[df["full_name"].isin(["Li Wei", "Sara Kim"])]["sick_days_remaining"].sum()'
    olu = build_data_tool(Settings(), Sources(str(company(tmp_path)))).viewer("Olu Bello")
    assert run_query(two, table, olu, TODAY).value == 6
    ana = build_data_tool(Settings(), Sources(str(company(tmp_path)))).viewer("Ana Cruz")
    with pytest.raises(AccessDenied):
        run_query(two, table, ana, TODAY)
    # pay keeps the minimum group for the manager too, though each figure is theirs to read
    with pytest.raises(AccessDenied, match="fewer than 5 people"):
        run_query(two.replace("sick_days_remaining", "annual_salary_usd"), table, olu, TODAY)
    # one row not theirs (Tom Berg reports to Priya Raman): refused for the manager too
    with pytest.raises(AccessDenied):
        run_query(two.replace("Sara Kim", "Tom Berg"), table, olu, TODAY)


# -- the audit trail -----------------------------------------------------------------------------------
def _write_entries(path, n=4):
    log = AuditLog(path, data_hash="d" * 64, policy_hash="p" * 64)
    for i in range(n):
        log.record("Ana Cruz", "employee", f"query {i}", True, account=ME)


def test_the_audit_chain_verifies_and_names_the_first_edited_entry(tmp_path, capsys):
    path = tmp_path / "audit.log"
    _write_entries(path)
    assert verify_audit(path) == (4, "")
    assert main(["admin", "verify-audit", str(path)]) == 0 and "4 entries, chain intact" in capsys.readouterr().out
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace('"allowed": true', '"allowed": false')
    path.write_text("\n".join(lines) + "\n")
    assert verify_audit(path) == (2, "line 3 does not follow line 2 (line 2 was edited, or entries between were "
                                     "removed)")
    assert main(["admin", "verify-audit", str(path)]) == 1 and "BROKEN after 2 good entries" in capsys.readouterr().out


@pytest.mark.parametrize("damage, first_bad", [
    (lambda lines: lines[:1] + lines[2:], 2),  # an entry deleted
    (lambda lines: lines[1:], 1),  # the first entry deleted
    (lambda lines: lines[:2] + ['{"user": "x"}'] + lines[2:], 3),  # an entry inserted
    (lambda lines: lines[:2] + ["not json"] + lines[3:], 3),
])
def test_deleted_or_inserted_audit_entries_break_the_chain(tmp_path, damage, first_bad):
    path = tmp_path / "audit.log"
    _write_entries(path)
    path.write_text("\n".join(damage(path.read_text().splitlines())) + "\n")
    count, broken = verify_audit(path)
    assert broken and count == first_bad - 1


def test_a_huge_line_in_the_log_costs_a_bounded_read_and_is_reported(tmp_path, monkeypatch):
    """One 8 MB line appended by hand: the next entry reads a bounded tail to find the last entry (not the
    line, let alone the file), verify-audit names the damage, and an over-long entry is cut to fit."""
    from engine.data import audit as access

    path = tmp_path / "audit.log"
    _write_entries(path, 2)
    with open(path, "ab") as f:
        f.write(b"x" * 8_000_000 + b"\n")
    read = []
    real_read = os.read
    monkeypatch.setattr(os, "read", lambda fd, n: read.append(n) or real_read(fd, n))
    AuditLog(path).record("Ana Cruz", "employee", "after", True, account=ME, detail="y" * 100_000)
    monkeypatch.setattr(os, "read", real_read)
    assert sum(read) <= 2 * access.MAX_ENTRY_BYTES
    last = path.read_bytes().splitlines()[-1]
    assert len(last) <= access.MAX_ENTRY_BYTES and json.loads(last)["detail"].endswith("…(cut)")
    count, broken = verify_audit(path)
    assert count == 2 and "line 3 is not an audit entry" in broken


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_a_shared_audit_file_others_can_read_or_rewrite_is_named(tmp_path):
    from engine.data.access import audit_file_problems

    path = tmp_path / "audit.log"
    assert "does not exist yet" in audit_file_problems(path)[0]
    path.write_text("")
    for mode, needles in ((0o600, []), (0o644, ["can be read"]), (0o622, ["not append-only"]),
                          (0o666, ["can be read", "not append-only"])):
        path.chmod(mode)
        problems = audit_file_problems(path)
        assert len(problems) == len(needles) and all(n in p for n, p in zip(needles, problems)), (mode, problems)


def test_audit_entries_from_two_processes_keep_one_chain(tmp_path):
    path = tmp_path / "audit.log"
    code = ("import sys; sys.path.insert(0, %r); from engine.data.access import AuditLog; "
            "log = AuditLog(__import__('pathlib').Path(%r)); "
            "[log.record('p', 'employee', f'q{i}', True) for i in range(150)]" % (str(ROOT), str(path)))
    procs = [subprocess.Popen([sys.executable, "-c", code]) for _ in range(3)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert verify_audit(path) == (450, "")


def test_the_audit_goes_where_the_site_says(tmp_path, site_file, capsys):
    path = company(tmp_path)
    audit = tmp_path / "var-log" / "audit.log"
    site_file(f'[site]\nemployees = "{path}"\naudit = "{audit}"\n')
    query = 'df[df["full_name"] == "Ana Cruz"]["sick_days_remaining"]'
    assert main(["data", query]) == 2  # the first person to ask does not create (and own) the site's log
    assert "does not exist" in capsys.readouterr().err and not audit.exists()
    assert main(["admin", "init-audit"]) == 0 and "mode 622" in capsys.readouterr().out
    assert main(["data", query]) == 0
    entry = json.loads(audit.read_text().splitlines()[0])
    assert entry["account"] == ME and entry["user"] == "Ana Cruz" and entry["prev"] == "0" * 64
    assert not (tmp_path / "data" / "audit.log").exists()
    capsys.readouterr()
    assert main(["admin", "verify-audit"]) == 0 and "1 entry, chain intact" in capsys.readouterr().out


# -- second red-team pass ----------------------------------------------------------------------------
def _side(link, text, owner="user"):
    side = link.with_suffix(".csv.toml")
    side.unlink(missing_ok=True)  # a new file: rewriting one keeps its old owner
    side.write_text(text)
    if owner == "user":
        as_user(side)
    return side


def test_with_a_site_file_a_users_side_file_sets_nothing_but_more_pay(tmp_path, site_file):
    real = company(tmp_path)
    folder = tmp_path / "share"
    folder.mkdir()
    data = folder / "staff.csv"
    data.write_text(real.read_text())
    _side(data, '[columns]\nname = "department"\nmanager = "department"\nemployee_id = "manager"\n'
                'email = "sick_days_remaining"\npay = ["sick_days_remaining"]\n')
    site_file(f'[site]\nemployees = "{data}"\n')
    tool = build_data_tool(load_settings())
    identity = sign_in(tool)
    viewer = tool.viewer(identity.user)
    assert identity.name == "Ana Cruz" and viewer.role == "employee" and viewer.visible_rows == {0}
    assert "sick_days_remaining" in tool.table.pay_columns  # more private: honoured
    assert any("were ignored" in p for p in tool.table.problems())


def test_without_a_site_file_a_users_side_file_cannot_widen_what_is_public(tmp_path):
    # The user's own data and side file. (The tests run as root, whose files count as IT's in an
    # admin-only folder; in a shared sticky folder they are just the user's own.)
    drop = tmp_path / "drop"
    drop.mkdir()
    drop.chmod(0o1777)
    path = company(drop)
    _side(path, '[columns]\nemail = ["email", "sick_days_remaining"]\n', owner="me")
    with pytest.raises(DataFileError, match="takes one column"):
        build_data_tool(Settings(), Sources(str(path)))
    _side(path, '[columns]\ndepartment = "sick_days_remaining"\n', owner="me")
    tool = build_data_tool(Settings(), Sources(str(path)))
    viewer = tool.viewer(sign_in(tool).user)
    assert "sick_days_remaining" not in viewer.public_columns
    with pytest.raises(AccessDenied):
        run_query('df[df["full_name"] == "Tom Berg"]["sick_days_remaining"]', tool.table, viewer, TODAY)


def test_beside_data_the_user_does_not_own_a_side_file_cannot_remap_roles(tmp_path):
    """(Data the user owns they could edit anyway: there a side file may set meanings.)"""
    path = company(tmp_path)
    as_user(path)  # e.g. HR's export, readable but not the user's
    _side(path, '[columns]\nemployee_id = "manager"\n', owner="root")
    as_user(path.with_suffix(".csv.toml"), uid=pwd.getpwnam("nobody").pw_uid)
    tool = build_data_tool(Settings(), Sources(str(path)))
    identity = sign_in(tool)
    assert tool.viewer(identity.user).row == 0 and tool.viewer(identity.user).role == "employee"
    assert tool.table.role("employee_id") == "employee_id"


def test_a_side_file_linked_from_a_root_owned_file_is_not_trusted(tmp_path):
    path = company(tmp_path)
    target = tmp_path / "it" / "columns.toml"
    target.parent.mkdir()
    target.write_text('[columns]\npay = []\nemail = "annual_salary_usd"\n')  # root-owned, as IT's would be
    path.with_suffix(".csv.toml").symlink_to(target)
    as_user(path)  # data the user does not own: a link to IT's file must not count as IT's
    table = build_data_tool(Settings(), Sources(str(path))).table
    assert table.role("email") == "email" and "annual_salary_usd" in table.pay_columns
    assert any("were ignored" in p for p in table.problems())


def test_a_shared_name_gives_nobody_the_managers_reports(tmp_path):
    path = company(tmp_path)
    path.write_text(path.read_text() + "E9,Olu Bello,obello2,olu2@corp.example,Sales,Priya Raman,40000,3\n")
    tool = build_data_tool(Settings(), Sources(str(path)))
    assert tool.viewer("obello2").role == "employee" and tool.viewer("obello2").visible_rows == {8}


def test_hr_only_columns_are_never_directory_columns(tmp_path, site_file):
    path = company(tmp_path)
    site_file(f'[site]\nemployees = "{path}"\n[access]\nhr_only_columns = ["email"]\n')
    tool = build_data_tool(load_settings())
    viewer = tool.viewer(sign_in(tool).user)
    assert "email" not in viewer.public_columns
    with pytest.raises(AccessDenied, match="Only HR"):
        run_query('df["email"]', tool.table, viewer, TODAY)


def test_someone_elses_side_file_beside_my_own_data_sets_nothing(tmp_path):
    """A shared drop folder: my export, and a side file another user put next to it."""
    drop = tmp_path / "drop"
    drop.mkdir()
    drop.chmod(0o1777)
    path = company(drop)  # mine (the tests run as root)
    _side(path, '[columns]\nname = "manager"\nmanager = "full_name"\n')  # another user's
    tool = build_data_tool(Settings(), Sources(str(path)))
    identity = sign_in(tool)
    assert tool.table.role("name") == "full_name" and tool.viewer(identity.user).role == "employee"
    assert any("were ignored" in p for p in tool.table.problems())
    # my own side file beside my own data sets meanings (I could edit the data itself)
    _side(path, '[columns]\nemail = "email"\n', owner="me")
    assert build_data_tool(Settings(), Sources(str(path))).table.problems() == []


@pytest.mark.parametrize("persona", ["#row:²", "#row:7", "#row:99999999999"])
def test_row_keys_are_no_way_around_the_persona_rules(tmp_path, persona):
    tool = build_data_tool(Settings(), Sources(str(company(tmp_path))))
    with pytest.raises(IdentityError):
        sign_in(tool, persona)
