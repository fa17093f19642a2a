"""Site mode with a real PostgreSQL server: the database itself withholds other people's data.

The server is started by the tests (tests/pg_server.py). Every role's view is read through
the app's own loader, and then checked with the app's access layer switched off (an HR
viewer over what the database returned): whatever the database did not return cannot leak.
"""

from __future__ import annotations

import json
import os
import pwd

import pytest

psycopg = pytest.importorskip("psycopg")

from engine.data.access import AccessPolicy, make_viewer  # noqa: E402
from engine.assistant import build_data_tool, sign_in  # noqa: E402
from engine.cli import main  # noqa: E402
from engine.data.database import DatabaseAudit, connect, init_db, load_from_database  # noqa: E402
from engine.errors import AccessDenied, DataFileError  # noqa: E402
from engine.data.query import run_query  # noqa: E402
from engine.settings import load_settings  # noqa: E402
from tests import pg_server  # noqa: E402
from tests.conftest import REFERENCE  # noqa: E402

ME = pwd.getpwuid(os.geteuid()).pw_name
TODAY = "2026-11-23"
PASSWORD = "correct horse battery"
SALARIES = {"Ana Cruz": 61000, "Olu Bello": 99000, "Priya Raman": 120000, "Li Wei": 58000, "Sara Kim": 57000,
            "Tom Berg": 70000, "Ines Duarte": 64000, "Kofi Mensah": 66000}


def _company(path):
    path.write_text(
        "employee_id,full_name,username,email,department,manager,annual_salary_usd,sick_days_remaining,notes\n"
        f"E1,Ana Cruz,{ME},ana@corp.example,Operations,Olu Bello,61000,7,\n"
        "E2,Olu Bello,obello,olu@corp.example,Operations,Priya Raman,99000,3,\n"
        "E3,Priya Raman,praman,priya@corp.example,Human Resources,,120000,9,\n"
        "E4,Li Wei,lwei,li@corp.example,Operations,Olu Bello,58000,4,under review\n"
        "E5,Sara Kim,skim,sara@corp.example,Operations,Olu Bello,57000,2,\n"
        "E6,Tom Berg,tberg,tom@corp.example,Finance,Priya Raman,70000,6,\n"
        "E7,Ines Duarte,iduarte,ines@corp.example,Operations,Olu Bello,64000,5,\n"
        "E8,Kofi Mensah,kmensah,kofi@corp.example,Operations,Olu Bello,66000,1,\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def server():
    srv = pg_server.start()
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def loaded(server, tmp_path_factory):
    """The company loaded by IT with ``admin init-db``; passwords set for the TCP logins."""
    csv = _company(tmp_path_factory.mktemp("hr") / "staff.csv")
    database = {"dsn": server.dsn(), "schema": "hr"}
    policy = AccessPolicy(hr_only_columns=["notes"])
    with connect(database, "postgres") as conn:
        report = init_db(conn, csv, database, policy)
        for role in ("obello", "praman", "lwei", "tberg"):
            conn.execute(f"ALTER ROLE {role} PASSWORD '{PASSWORD}'")
    return {"csv": csv, "report": report, "socket": database, "tcp": {"dsn": server.dsn(tcp=True), "schema": "hr"}}


def _as(loaded, role, monkeypatch):
    """The table the database gives ``role`` (over TCP with its password; the OS account over the socket)."""
    if role == ME:
        return load_from_database(loaded["socket"], ME)
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    return load_from_database(loaded["tcp"], role)


def _salaries(table):
    """Every salary the table holds, read with the app's checks switched off (an HR viewer)."""
    hr = make_viewer(table, "", AccessPolicy())
    hr.role = "hr"
    value = run_query('df[["full_name", "annual_salary_usd"]]', table, hr, TODAY).value
    return {n: int(v) for n, v in value.itertuples(index=False) if v == v}


def test_init_db_reports_roles_and_directory(loaded):
    report = loaded["report"]
    assert report["employees"] == 8 and report["roles"] == 8 and report["hr"] == 1
    assert "full_name" in report["directory_columns"] and "annual_salary_usd" not in report["directory_columns"]
    assert report["hr_only_columns"] == ["notes"]


@pytest.mark.parametrize("role, expected", [
    (ME, {"Ana Cruz"}),  # an employee (peer authentication as the OS account)
    ("obello", {"Olu Bello", "Ana Cruz", "Li Wei", "Sara Kim", "Ines Duarte", "Kofi Mensah"}),  # a manager
    ("lwei", {"Li Wei"}),
    ("praman", set(SALARIES)),  # HR
])
def test_the_database_alone_withholds_other_peoples_rows(loaded, monkeypatch, role, expected):
    table = _as(loaded, role, monkeypatch)
    assert len(table.df) == 8  # the directory: everyone's name, department, manager, e-mail
    assert set(table.df["full_name"]) == set(SALARIES)
    assert _salaries(table) == {n: SALARIES[n] for n in expected}
    # hr_only columns: withheld by column privileges from everyone but HR, even on their own row
    has_notes = "notes" in table.columns and table.df["notes"].notna().any()
    assert has_notes == (role == "praman")


def test_the_database_refuses_direct_reads_too(loaded, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    with connect(loaded["tcp"], "tberg") as conn:
        rows = conn.execute("SELECT full_name, annual_salary_usd FROM hr.employees").fetchall()
        assert rows == [("Tom Berg", "70000")]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT notes FROM hr.employees")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("UPDATE hr.employees SET department = 'Human Resources'")
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM hr.audit")


def test_the_audit_table_is_insert_only_and_records_the_real_db_user(loaded, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    audit = DatabaseAudit(loaded["tcp"], "lwei", data_hash="d" * 64, policy_hash="p" * 64)
    audit.record("Li Wei", "employee", 'df["sick_days_remaining"]', True, rows=1, account="lwei")
    with connect(loaded["tcp"], "lwei") as conn:
        for statement in ("UPDATE hr.audit SET allowed = false", "DELETE FROM hr.audit",
                          "INSERT INTO hr.audit (db_user, query) VALUES ('praman', 'x')",
                          "TRUNCATE hr.audit"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
    with connect(loaded["socket"], "postgres") as conn:
        row = conn.execute("SELECT db_user, account, employee, allowed, data_sha256 FROM hr.audit "
                           "WHERE employee = 'Li Wei'").fetchone()
    assert row == ("lwei", "lwei", "Li Wei", True, "d" * 64)


def test_site_mode_end_to_end_as_the_os_account(loaded, site_file, capsys):
    site_file(f'[database]\ndsn = "{loaded["socket"]["dsn"]}"\n[access]\nhr_only_columns = ["notes"]\n')
    assert main(["whoami"]) == 0
    out = capsys.readouterr().out
    assert "employee: Ana Cruz" in out and "role: employee" in out and "postgresql" in out
    assert main(["data", 'df[df["full_name"] == "Ana Cruz"]["annual_salary_usd"]']) == 0
    assert "61000" in capsys.readouterr().out
    assert main(["data", 'df["annual_salary_usd"].max()']) == 1
    assert "only for yourself" in capsys.readouterr().err
    # the doctored-file route is closed: the site fixes the data source
    assert main(["data", "len(df)", "--employees", str(REFERENCE / "employee_data.csv")]) == 2
    # every query went to the insert-only table, with the account the database authenticated
    with connect(loaded["socket"], "postgres") as conn:
        rows = conn.execute("SELECT db_user, account, employee, allowed FROM hr.audit WHERE db_user = %s "
                            "ORDER BY id", (ME,)).fetchall()
    assert rows[-2:] == [(ME, ME, "Ana Cruz", True), (ME, ME, "Ana Cruz", False)]


def test_site_mode_agent_tools_see_only_what_the_database_gave(loaded, site_file):
    site_file(f'[database]\ndsn = "{loaded["socket"]["dsn"]}"\n')
    tool = build_data_tool(load_settings())
    identity = sign_in(tool)
    assert identity.name == "Ana Cruz" and tool.viewer(identity.user).role == "employee"
    assert _salaries(tool.table) == {"Ana Cruz": 61000}
    with pytest.raises(AccessDenied):
        run_query('df[df["annual_salary_usd"] > 60000]["full_name"]', tool.table, tool.viewer(identity.user), TODAY)


def test_an_unreachable_database_is_a_clear_error(site_file, capsys):
    site_file('[database]\ndsn = "host=127.0.0.1 port=1 dbname=hr connect_timeout=2"\n')
    assert main(["whoami"]) == 2
    err = capsys.readouterr().err
    assert "The employee database cannot be reached" in err and "Traceback" not in err


def test_a_role_without_tables_is_told_to_ask_it(server, capsys, site_file):
    site_file(f'[database]\ndsn = "{server.dsn()}"\nschema = "nothing_here"\n')
    with pytest.raises(DataFileError, match="refused the employee tables"):
        build_data_tool(load_settings())


def test_init_db_from_the_command_line_and_rerun_revokes_hr(server, tmp_path, capsys, site_file):
    csv = _company(tmp_path / "staff.csv")
    site_file(f'[database]\ndsn = "{server.dsn()}"\nschema = "hr2"\n')
    assert main(["admin", "init-db", "--employees", str(csv), "--admin-user", "postgres"]) == 0
    assert "8 employees loaded into hr2.employees; 8 roles (1 in hr_staff)" in capsys.readouterr().out
    csv.write_text(csv.read_text().replace("Priya Raman,praman,priya@corp.example,Human Resources",
                                           "Priya Raman,praman,priya@corp.example,Finance"))
    assert main(["admin", "init-db", "--employees", str(csv), "--admin-user", "postgres"]) == 0
    with connect({"dsn": server.dsn()}, "postgres") as conn:
        assert conn.execute("SELECT pg_has_role('praman', 'hr_staff', 'MEMBER')").fetchone() == (False,)


def test_init_db_needs_a_user_name_column(server, capsys):
    assert main(["admin", "init-db", "--employees", str(REFERENCE / "employee_data.csv"), "--dsn", server.dsn(),
                 "--admin-user", "postgres"]) == 2
    assert "no user-name column" in capsys.readouterr().err


def test_json_report_never_carries_a_withheld_value(loaded, site_file, capsys):
    site_file(f'[database]\ndsn = "{loaded["socket"]["dsn"]}"\n')
    assert main(["data", 'df[["full_name", "department"]]', "--json"]) == 0
    text = json.dumps(json.loads(capsys.readouterr().out))
    assert all(str(v) not in text for n, v in SALARIES.items())


def test_people_who_left_lose_their_groups_and_login(server, tmp_path):
    csv = _company(tmp_path / "staff.csv")
    database = {"dsn": server.dsn(), "schema": "hr3"}
    with connect(database, "postgres") as conn:
        init_db(conn, csv, database, AccessPolicy())
        csv.write_text("\n".join(line for line in csv.read_text().splitlines() if "praman" not in line) + "\n")
        report = init_db(conn, csv, database, AccessPolicy())
        assert "praman" in report["departed"]
        assert conn.execute("SELECT pg_has_role('praman', 'hr_staff', 'MEMBER'), "
                            "pg_has_role('praman', 'hr_employee', 'MEMBER'), rolcanlogin FROM pg_roles "
                            "WHERE rolname = 'praman'").fetchone() == (False, False, False)


def test_init_db_refuses_superusers_as_employees(server, tmp_path):
    csv = _company(tmp_path / "staff.csv")
    csv.write_text(csv.read_text().replace(",tberg,", ",postgres,"))
    database = {"dsn": server.dsn(), "schema": "hr4"}
    with connect(database, "postgres") as conn:
        with pytest.raises(DataFileError, match="superusers or bypass row-level security"):
            init_db(conn, csv, database, AccessPolicy())


def test_loading_one_schema_leaves_another_schemas_people_alone(server, tmp_path):
    a = _company(tmp_path / "a.csv")
    b = tmp_path / "b.csv"
    b.write_text("employee_id,full_name,username,department,manager,annual_salary_usd\n"
                 "B1,Zoe Park,zpark,Human Resources,,90000\nB2,Max Roth,mroth,Sales,Zoe Park,50000\n")
    with connect({"dsn": server.dsn()}, "postgres") as conn:
        init_db(conn, a, {"dsn": server.dsn(), "schema": "co_a"}, AccessPolicy())
        report = init_db(conn, b, {"dsn": server.dsn(), "schema": "co_b"}, AccessPolicy())
        assert report["departed"] == []
        assert conn.execute("SELECT rolcanlogin, pg_has_role('praman', 'hr_staff', 'MEMBER') FROM pg_roles "
                            "WHERE rolname = 'praman'").fetchone() == (True, True)


def test_site_mode_leave_requests_are_kept_by_the_database_under_its_own_rules(loaded, monkeypatch):
    import datetime as dt

    from engine.data.database import DatabaseRequestStore
    from engine.workflows.leave import Calendar, prepare

    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    day = dt.date(2027, 7, 14)

    def request(who, account):
        return prepare(who, "sick", "sick_days_remaining", 4, day, day, Calendar(), account=account)

    lwei = DatabaseRequestStore(loaded["tcp"], "lwei")
    own = request("Li Wei", "lwei")
    lwei.submit(own)
    assert own.status == "pending"
    # a request for someone else from an employee's role: the database refuses it, whatever the app did
    with pytest.raises(AccessDenied, match="refused"):
        lwei.submit(request("Tom Berg", "lwei"))
    rows = lwei.list()
    assert [(r["employee"], r["db_user"], r["status"], r["start"]) for r in rows] == [
        ("Li Wei", "lwei", "pending", "2027-07-14")]
    assert DatabaseRequestStore(loaded["tcp"], "tberg").list(None) == []  # nobody else's requests
    with connect(loaded["tcp"], "lwei") as conn:
        for statement in ("UPDATE hr.leave_requests SET status = 'approved'", "DELETE FROM hr.leave_requests",
                          "INSERT INTO hr.leave_requests (id, employee, leave_type, start, \"end\", day_count, days, "
                          "db_user) VALUES ('x', 'Li Wei', 'sick', '2027-01-04', '2027-01-04', 1, '2027-01-04', "
                          "'praman')"):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(statement)
        # a role writing directly cannot store what the app would never have worked out
        for values in (("f1", "2027-07-14", "2027-07-14", 1, 0, 999), ("f2", "2027-07-16", "2027-07-14", -5, 4, 9),
                       ("f3", "2027-07-14", "2027-07-15", 5, 4, -1)):
            with pytest.raises(psycopg.errors.CheckViolation):
                conn.execute("INSERT INTO hr.leave_requests (id, employee, leave_type, start, \"end\", day_count, "
                             "balance_before, balance_after, days) VALUES (%s, 'Li Wei', 'sick', %s, %s, %s, %s, %s, "
                             "'x')", values)
    hr = DatabaseRequestStore(loaded["tcp"], "praman")
    hr.submit(request("Tom Berg", "praman"))  # HR may file for others
    assert {r["employee"] for r in hr.list()} == {"Li Wei", "Tom Berg"}
    from engine.workflows.leave import export_csv

    exported = export_csv(hr)
    assert "Li Wei" in exported and "Tom Berg" in exported
    assert exported.splitlines()[0].endswith(",db_user,decided_by,decided_at,decision_reason")
    assert ",lwei" in exported and ",praman" in exported  # who filed each: HR for Tom Berg
    # IT reloads the employees: the requests stay, and the rules come back with the new table
    with connect(loaded["socket"], "postgres") as conn:
        init_db(conn, loaded["csv"], loaded["socket"], AccessPolicy(hr_only_columns=["notes"]))
    assert len(hr.list()) == 2
    with pytest.raises(AccessDenied):
        lwei.submit(request("Sara Kim", "lwei"))


def test_the_database_fills_who_filed_and_decided_and_allows_only_real_decisions(loaded, monkeypatch, capsys):
    """psql as an employee or as HR: forged authors, free-text statuses, self-approval and second decisions
    are refused by the database itself; any row it holds is listed by the CLI without a traceback."""
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    insert = ("INSERT INTO hr.leave_requests (id, employee, leave_type, start, \"end\", day_count, balance_before, "
              "balance_after, days, prepared_by) VALUES (%s, %s, 'sick', '2027-03-01', '2027-03-02', 2, NULL, "
              "NULL, '2027-03-01 2027-03-02', %s)")
    with connect(loaded["tcp"], "lwei") as conn:
        conn.execute(insert, ("d1", "Li Wei", "praman"))  # "prepared by HR", a NULL balance
        row = conn.execute("SELECT prepared_by, db_user, status, decided_by, b.balance_before, b.balance_after, "
                           "employee_role, manager_role FROM hr.leave_requests r JOIN hr.leave_request_balances b "
                           "USING (id) WHERE id = 'd1'").fetchone()
        # the database's own values, not the client's: the balances come from Li Wei's row (4 sick days)
        assert row == ("lwei", "lwei", "pending", None, 4, 2, "lwei", "obello")
    with connect(loaded["tcp"], "praman") as conn:
        conn.execute(insert, ("d2", "Priya Raman", "praman"))  # HR's own leave
        for statement, error in (
                ("UPDATE hr.leave_requests SET status = 'approved' WHERE id = 'd2'", "InsufficientPrivilege"),
                ("UPDATE hr.leave_requests SET status = 'ok, fine' WHERE id = 'd1'", "CheckViolation"),
                ("UPDATE hr.leave_requests SET status = 'pending' WHERE id = 'd1'", "CheckViolation")):
            with pytest.raises(getattr(psycopg.errors, error)):
                with conn.transaction():
                    conn.execute(statement)
        with pytest.raises(psycopg.errors.CheckViolation, match="needs a reason"):
            with conn.transaction():
                conn.execute("UPDATE hr.leave_requests SET status = 'declined' WHERE id = 'd1'")
        conn.execute("UPDATE hr.leave_requests SET status = 'declined', decision_reason = ' month-end close ' "
                     "WHERE id = 'd1'")
        assert conn.execute("SELECT status, decided_by, decision_reason FROM hr.leave_requests WHERE id = 'd1'"
                            ).fetchone() == ("declined", "praman", "month-end close")
        with pytest.raises(psycopg.errors.CheckViolation, match="declined already"):
            with conn.transaction():
                conn.execute("UPDATE hr.leave_requests SET status = 'approved' WHERE id = 'd1'")
    with connect(loaded["tcp"], "lwei") as conn:
        with pytest.raises(psycopg.errors.CheckViolation, match="declined already"):
            conn.execute("UPDATE hr.leave_requests SET status = 'approved' WHERE id = 'd1'")
    from engine.cli import _cell

    assert _cell(None) == "?" and _cell(2.0) == "2" and _cell("a\nb") == "a b"


def test_init_db_runs_again_on_a_schema_name_in_capitals(server, tmp_path):
    csv = _company(tmp_path / "staff.csv")
    database = {"dsn": server.dsn(), "schema": "HR Site"}
    with connect(database, "postgres") as conn:
        init_db(conn, csv, database, AccessPolicy())
        init_db(conn, csv, database, AccessPolicy())  # the leave table's policy is dropped and made again
        assert conn.execute('SELECT count(*) FROM "HR Site".employees').fetchone()[0] == 8


def test_a_request_pending_from_before_the_rules_is_declined_when_they_are_installed(server, tmp_path):
    """A row filed when only db_user was checked carries the client's balances and author: installing the
    rules declines it, with the reason and an audit row, so nobody approves a forged balance."""
    from engine.data.database import STALE_REASON

    csv = _company(tmp_path / "staff.csv")
    database = {"dsn": server.dsn(), "schema": "hr_upgrade"}
    with connect(database, "postgres") as conn:
        init_db(conn, csv, database, AccessPolicy())
        conn.execute("DROP TRIGGER leave_rules ON hr_upgrade.leave_requests")  # the table as an older release left it
        conn.execute("INSERT INTO hr_upgrade.leave_requests (id, employee, leave_type, start, \"end\", day_count, "
                     "balance_before, balance_after, days, prepared_by, db_user) VALUES ('old1', 'Li Wei', 'sick', "
                     "'2027-03-01', '2027-03-02', 2, 900, 898, '2027-03-01 2027-03-02', 'praman', 'lwei')")
        conn.execute("INSERT INTO hr_upgrade.leave_requests (id, employee, leave_type, start, \"end\", day_count, "
                     "balance_before, balance_after, days, prepared_by, db_user, status) VALUES ('old2', 'Li Wei', "
                     "'sick', '2027-04-01', '2027-04-01', 1, 4, 3, '2027-04-01', 'lwei', 'lwei', 'approved')")
        init_db(conn, csv, database, AccessPolicy())
        rows = {r[0]: r[1:] for r in conn.execute("SELECT id, status, decision_reason, decided_by IS NOT NULL "
                                                  "FROM hr_upgrade.leave_requests").fetchall()}
        assert rows["old1"] == ("declined", STALE_REASON, True)
        assert rows["old2"][0] == "approved"  # a decision already made is history, not reopened
        audited = conn.execute("SELECT employee, query, detail FROM hr_upgrade.audit WHERE detail = 'request old1'"
                               ).fetchall()
        assert audited == [("Li Wei", f"leave request declined: {STALE_REASON}", "request old1")]
        # The rules are back: it cannot be approved now.
        with pytest.raises(psycopg.errors.CheckViolation, match="declined already"):
            conn.execute("UPDATE hr_upgrade.leave_requests SET status = 'approved' WHERE id = 'old1'")


def test_a_manager_sees_no_balance_the_employee_table_hides_from_them(loaded, server, tmp_path, monkeypatch):
    """With the sick-day column HR-only, a report's request shows the manager its dates, not the balance
    (in the app and with psql); the employee and HR see it."""
    from engine.data.database import DatabaseRequestStore

    csv = _company(tmp_path / "staff.csv")
    database = {"dsn": server.dsn(), "schema": "hr_hidden"}
    with connect(database, "postgres") as conn:
        init_db(conn, csv, database, AccessPolicy(hr_only_columns=["sick_days_remaining"]))
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    tcp = {"dsn": server.dsn(tcp=True), "schema": "hr_hidden"}
    with connect(tcp, "lwei") as conn:
        conn.execute("INSERT INTO hr_hidden.leave_requests (id, employee, leave_type, start, \"end\", day_count, "
                     "days) VALUES ('h1', 'Li Wei', 'sick', '2027-03-01', '2027-03-02', 2, '2027-03-01 2027-03-02')")
    seen = {role: next(r for r in DatabaseRequestStore(tcp, role).list() if r["id"] == "h1")
            for role in ("lwei", "obello", "praman")}
    assert (seen["lwei"]["balance_before"], seen["lwei"]["balance_after"]) == (4, 2)
    assert (seen["praman"]["balance_before"], seen["praman"]["balance_after"]) == (4, 2)
    assert (seen["obello"]["balance_before"], seen["obello"]["balance_after"]) == (None, None)
    assert seen["obello"]["start"] == "2027-03-01"  # the request itself is theirs to decide
    with connect(tcp, "obello") as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT balance_before FROM hr_hidden.leave_requests")
        assert conn.execute("SELECT count(*) FROM hr_hidden.leave_request_balances").fetchone()[0] == 0
        conn.execute("UPDATE hr_hidden.leave_requests SET status = 'approved' WHERE id = 'h1'")
    # Where the column is not HR-only, the manager reads the balance they could read in the employee table.
    with connect(loaded["tcp"], "lwei") as conn:
        conn.execute("INSERT INTO hr.leave_requests (id, employee, leave_type, start, \"end\", day_count, days) "
                     "VALUES ('h2', 'Li Wei', 'sick', '2027-05-03', '2027-05-03', 1, '2027-05-03')")
    mine = next(r for r in DatabaseRequestStore(loaded["tcp"], "obello").list() if r["id"] == "h2")
    assert mine["balance_before"] is not None
    DatabaseRequestStore(loaded["tcp"], "lwei").decide("h2", "cancelled")  # (the balance is the later tests' again)


def test_site_mode_approval_stores_the_request_in_the_database(loaded, site_file):
    from engine.assistant import build_leave_tool, context_for
    from engine.settings import Settings
    from engine.tools.registry import ToolRegistry

    site_file(f'[database]\ndsn = "{loaded["socket"]["dsn"]}"\n')
    data = build_data_tool(load_settings())
    tool = build_leave_tool(Settings(leave_requests=True), data)
    context = context_for(sign_in(data), ToolRegistry([data]))
    context.today = TODAY
    result = tool.run("sick from 2027-08-02 to 2027-08-03", context)
    assert result.data["day_count"] == 2
    with connect(loaded["socket"], "postgres") as conn:
        count = "SELECT count(*) FROM hr.leave_requests WHERE employee = 'Ana Cruz'"
        assert conn.execute(count).fetchone()[0] == 0  # prepared only: nothing stored
        tool.desk.decide(result.data["id"], True, context)
        row = conn.execute("SELECT db_user, day_count, status FROM hr.leave_requests WHERE employee = 'Ana Cruz'"
                           ).fetchone()
    assert row[0] == ME and float(row[1]) == 2 and row[2] == "pending"


def _filed(loaded, monkeypatch, role, who, first, last=None, kind="sick"):
    """A request ``role`` files for ``who`` through the app's store, as the database keeps it."""
    import datetime as dt

    from engine.data.database import DatabaseRequestStore
    from engine.workflows.leave import Calendar, prepare

    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    start = dt.date.fromisoformat(first)
    request = prepare(who, kind, "sick_days_remaining", 99, start, dt.date.fromisoformat(last or first), Calendar(),
                      account=role)
    DatabaseRequestStore(loaded["tcp"], role).submit(request)
    return request


def test_the_manager_decides_a_reports_request_and_nobody_else_but_hr(loaded, monkeypatch):
    """Employee files, their manager (the data's reporting line) approves or declines with a reason, the
    employee may cancel while it is pending; anyone else neither sees nor decides it."""
    from engine.data.database import DatabaseRequestStore
    from engine.errors import RequestRefused

    stores = {role: DatabaseRequestStore(loaded["tcp"], role) for role in ("lwei", "obello", "tberg", "praman")}
    first = _filed(loaded, monkeypatch, "lwei", "Li Wei", "2027-09-06")
    assert (first.balance_before, first.balance_after) == (4, 3)  # the row's balance, not the 99 the client sent
    ids = lambda role: {r["id"] for r in stores[role].list(None)}  # noqa: E731
    assert first.id in ids("obello") and first.id in ids("praman") and first.id not in ids("tberg")
    with pytest.raises(RequestRefused, match="no leave request"):  # not Tom's manager: the row is not there
        stores["tberg"].decide(first.id, "approved")
    with pytest.raises(AccessDenied, match="nobody decides their own"):
        stores["lwei"].decide(first.id, "approved")
    with pytest.raises(RequestRefused, match="needs a reason"):
        stores["obello"].decide(first.id, "declined", "   ")
    row = stores["obello"].decide(first.id, "approved", "enjoy")
    assert (row["status"], row["decided_by"], row["decision_reason"]) == ("approved", "obello", "enjoy")
    with pytest.raises(RequestRefused, match="approved already"):
        stores["praman"].decide(first.id, "declined", "too late")
    with pytest.raises(RequestRefused, match="overlap"):  # the same day again
        _filed(loaded, monkeypatch, "lwei", "Li Wei", "2027-09-06")
    with pytest.raises(RequestRefused, match="takes 5 days"):  # more than the 4 sick days in the data
        _filed(loaded, monkeypatch, "lwei", "Li Wei", "2027-10-04", "2027-10-08")

    second = _filed(loaded, monkeypatch, "lwei", "Li Wei", "2027-10-04")
    with pytest.raises(AccessDenied, match="only the person who filed"):
        stores["obello"].decide(second.id, "cancelled")
    assert stores["lwei"].decide(second.id, "cancelled")["status"] == "cancelled"
    # the manager's own request goes up the line: not to himself, but to his manager (HR here)
    own = _filed(loaded, monkeypatch, "obello", "Olu Bello", "2027-11-01")
    with pytest.raises(AccessDenied):
        stores["obello"].decide(own.id, "approved")
    assert own.id not in ids("lwei")
    assert stores["praman"].decide(own.id, "declined", "cover needed")["status"] == "declined"
    # every step is an audit row the database wrote, under the role that took it
    with connect(loaded["socket"], "postgres") as conn:
        audit = conn.execute("SELECT db_user, account, role, query, detail FROM hr.audit WHERE detail LIKE %s "
                             "ORDER BY id", (f"request {first.id}%",)).fetchall()
    assert [(a[0], a[1], a[2], a[3].split(":")[0]) for a in audit] == [
        ("lwei", "lwei", "employee", "leave request filed"), ("obello", "obello", "manager", "leave request approved")]
    assert audit[1][4].endswith("reason: enjoy")


def test_the_database_not_the_client_says_who_wrote_an_audit_row(loaded, monkeypatch):
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    with connect(loaded["tcp"], "lwei") as conn:
        conn.execute("INSERT INTO hr.audit (account, employee, query, allowed) VALUES ('CORP\\praman', "
                     "'Priya Raman', 'forged', true), ('CORP\\LWei', 'Li Wei', 'mine', true)")
    with connect(loaded["socket"], "postgres") as conn:
        rows = conn.execute("SELECT db_user, account, query FROM hr.audit WHERE query IN ('forged', 'mine') ORDER BY id"
                            ).fetchall()
    assert rows == [("lwei", "lwei", "forged"), ("lwei", "CORP\\LWei", "mine")]


def test_the_requests_command_walks_the_lifecycle_as_the_os_account(loaded, site_file, monkeypatch, capsys):
    site_file(f'[database]\ndsn = "{loaded["socket"]["dsn"]}"\n')
    from engine.data.database import DatabaseRequestStore
    import datetime as dt
    from engine.workflows.leave import Calendar, prepare

    mine = prepare("Ana Cruz", "sick", "sick_days_remaining", 7, dt.date(2027, 12, 6), dt.date(2027, 12, 7),
                   Calendar(), account=ME)
    DatabaseRequestStore(loaded["socket"], ME).submit(mine)
    assert main(["requests"]) == 0
    out = capsys.readouterr().out
    # 7 sick days in the data, 2 already requested since it was loaded (an earlier test's request): 5, then 3
    assert mine.id in out and "Ana Cruz: sick 2027-12-06 to 2027-12-07, 2 days (balance after 3)" in out
    assert "Li Wei" not in out  # only what the database lets this role see
    assert main(["requests", "approve", mine.id]) == 1
    assert "nobody decides their own" in capsys.readouterr().err
    assert main(["requests", "decline", mine.id]) == 1
    assert "needs a reason" in capsys.readouterr().err
    assert main(["requests", "cancel", mine.id]) == 0
    assert f"{mine.id}  Ana Cruz: cancelled by {ME}" in capsys.readouterr().out
    assert main(["requests", "cancel", mine.id]) == 1
    assert "cancelled already" in capsys.readouterr().err
    assert main(["requests", "--all", "--csv", "-"]) == 0
    assert f"{mine.id},Ana Cruz," in capsys.readouterr().out


def test_a_manager_decides_a_reports_request_in_the_window_and_the_database_records_it(loaded, server, site_file,
                                                                                       tmp_path, monkeypatch, qtbot):
    """The window in database mode, signed in by the OS as a manager: a report's request is listed (the
    database's rows), declined only with a reason, approved with a click, and the database says by whom."""
    pytest.importorskip("PySide6")
    from PySide6.QtCore import Qt

    from desktop.ui.main_window import MainWindow
    from engine.model.scripted import ScriptedBackend
    from engine.settings import Settings

    csv = tmp_path / "staff.csv"
    csv.write_text(_company(tmp_path / "base.csv").read_text().replace(f"Ana Cruz,{ME},", "Ana Cruz,acruz,")
                   .replace("Olu Bello,obello,", f"Olu Bello,{ME},"), encoding="utf-8")
    database = {"dsn": server.dsn(), "schema": "hr_window"}
    with connect(database, "postgres") as conn:
        init_db(conn, csv, database, AccessPolicy(hr_only_columns=["notes"]))
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    with connect({"dsn": server.dsn(tcp=True), "schema": "hr_window"}, "lwei") as conn:
        conn.execute("INSERT INTO hr_window.leave_requests (id, employee, leave_type, start, \"end\", day_count, "
                     "days) VALUES ('w1', 'Li Wei', 'sick', '2027-03-01', '2027-03-02', 2, '2027-03-01 2027-03-02')")
    site_file(f'[database]\ndsn = "{server.dsn()}"\nschema = "hr_window"\n[access]\nhr_only_columns = ["notes"]\n')
    window = MainWindow(Settings(agent_mode="react"), backend_factory=lambda s: ScriptedBackend([]), ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.role == "manager", timeout=60000)
    problems: list[str] = []
    window._problem = lambda title, message, hint="": problems.append(message)
    window.open_requests()
    dialog = window.requests_dialog
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 1, timeout=30000)
    assert [dialog.table.item(0, c).text() for c in (0, 1, 5, 6, 7)] == ["w1", "Li Wei", "2", "2", "pending"]
    dialog.table.selectRow(0)
    assert dialog.approve.isEnabled() and not dialog.decline.isEnabled() and not dialog.cancel_request.isEnabled()
    dialog.reason.setText("busy week")
    assert dialog.decline.isEnabled()
    dialog.reason.clear()
    qtbot.mouseClick(dialog.approve, Qt.LeftButton)
    qtbot.waitUntil(lambda: dialog.table.rowCount() == 0, timeout=30000)  # pending only: decided, it is gone
    with connect(database, "postgres") as conn:
        assert conn.execute("SELECT status, decided_by FROM hr_window.leave_requests WHERE id = 'w1'").fetchone() == (
            "approved", ME)
        # (the database's own row of the step, in the manager's name; the app adds its own beside it)
        assert conn.execute("SELECT count(*) FROM hr_window.audit WHERE detail = 'request w1' AND role = 'manager' "
                            "AND account = %s AND query = 'leave request approved: sick leave 2027-03-01 to "
                            "2027-03-02, 2 days'", (ME,)).fetchone()[0] == 1
    # A second decision of the same request, sent anyway, is the database's refusal, said in the window.
    window.request_act_on_request.emit("w1", "declined", "changed my mind")
    qtbot.waitUntil(lambda: bool(problems), timeout=30000)
    assert "approved already" in problems[0]


_MONDAYS = iter(range(10_000))


@pytest.mark.slow
def test_every_sequence_of_steps_with_psql_ends_where_the_rules_say(loaded):
    """Property (hypothesis): whoever tries whatever, in any order, straight in SQL, a request moves only
    pending -> approved/declined (its employee's manager or HR, a decline with a reason) or -> cancelled
    (its employee), once; a role that is not a party does not even see it."""
    import datetime as dt

    from hypothesis import given, settings as hsettings
    from hypothesis import strategies as st

    roles = ("lwei", "obello", "tberg", "praman")
    statuses = ("approved", "declined", "cancelled", "pending", "done", "")

    def allowed(role, status, reason):
        if status == "cancelled":
            return role == "lwei"
        if status == "approved":
            return role in ("obello", "praman")
        if status == "declined":
            return role in ("obello", "praman") and bool(reason.strip())
        return False

    @hsettings(max_examples=30, deadline=None)
    @given(st.lists(st.tuples(st.sampled_from(roles), st.sampled_from(statuses), st.sampled_from(["", " ", "ok"])),
                    min_size=1, max_size=4))
    def run(steps):
        day = dt.date(2031, 1, 6) + dt.timedelta(weeks=next(_MONDAYS))
        rid = f"h{day.isoformat()}"
        with connect(loaded["tcp"], "lwei") as conn:
            conn.execute("INSERT INTO hr.leave_requests (id, employee, leave_type, start, \"end\", day_count, days) "
                         "VALUES (%s, 'Li Wei', 'sick', %s, %s, 1, %s)", (rid, day, day, day.isoformat()))
        expected = "pending"
        for role, status, reason in steps:
            with connect(loaded["tcp"], role) as conn:
                try:
                    changed = conn.execute("UPDATE hr.leave_requests SET status = %s, decision_reason = %s "
                                           "WHERE id = %s", (status, reason or None, rid)).rowcount
                except (psycopg.errors.CheckViolation, psycopg.errors.InsufficientPrivilege):
                    changed = 0
            if role == "tberg":
                assert changed == 0
            ok = expected == "pending" and allowed(role, status, reason)
            assert bool(changed) == ok, (steps, role, status, reason)
            if ok:
                expected = status
        with connect(loaded["socket"], "postgres") as conn:
            row = conn.execute("SELECT status, decided_by FROM hr.leave_requests WHERE id = %s", (rid,)).fetchone()
            conn.execute("DELETE FROM hr.leave_requests WHERE id = %s", (rid,))  # (Li Wei's balance is 4 days)
        assert row[0] == expected and (row[1] is None) == (expected == "pending")

    old = os.environ.get("PGPASSWORD")
    os.environ["PGPASSWORD"] = PASSWORD
    try:
        run()
    finally:
        if old is None:
            os.environ.pop("PGPASSWORD", None)
        else:
            os.environ["PGPASSWORD"] = old


def test_the_database_counts_the_days_with_its_own_calendar_and_spends_a_balance_once(server, tmp_path, monkeypatch):
    """A range listed with fewer days than it has (a 91-day absence booked as 1 day), a public holiday listed
    as a working day, and a balance spent twice over (two requests, or two sessions at once) are refused."""
    import datetime as dt

    from engine.data.database import DatabaseRequestStore
    from engine.errors import RequestRefused
    from engine.workflows.leave import Calendar, prepare

    csv = _company(tmp_path / "staff.csv")
    database = {"dsn": server.dsn(), "schema": "cal"}
    calendar = Calendar(holidays={dt.date(2027, 5, 3): "May Day"})
    with connect(database, "postgres") as conn:
        init_db(conn, csv, database, AccessPolicy(), calendar=calendar)
        conn.execute("ALTER ROLE lwei PASSWORD %s" % ("'" + PASSWORD + "'"))
    monkeypatch.setenv("PGPASSWORD", PASSWORD)
    tcp = {"dsn": server.dsn(tcp=True), "schema": "cal"}
    insert = ("INSERT INTO cal.leave_requests (id, employee, leave_type, start, \"end\", day_count, days) "
              "VALUES (%s, 'Li Wei', 'sick', %s, %s, %s, %s)")
    with connect(tcp, "lwei") as conn:
        for values, needle in (
                (("a1", "2027-07-01", "2027-09-29", 1, "2027-07-15"), "working days from 2027-07-01 to 2027-09-29"),
                (("a2", "2027-05-03", "2027-05-04", 2, "2027-05-03 2027-05-04"), "are 1 "),  # May Day is no working day
                (("a3", "2027-05-08", "2027-05-08", 1, "2027-05-08"), "are 0 ")):  # a Saturday
            with pytest.raises(psycopg.errors.CheckViolation, match=needle):
                conn.execute(insert, values)
        conn.execute(insert, ("a4", "2027-05-03", "2027-05-04", 1, "2027-05-04"))  # the holiday left out: fine
    store = DatabaseRequestStore(tcp, "lwei")
    first = prepare("Li Wei", "sick", "sick_days_remaining", 4, dt.date(2027, 6, 7), dt.date(2027, 6, 8), calendar,
                    account="lwei")
    store.submit(first)
    assert (first.balance_before, first.balance_after) == (3, 1)  # 4 in the data, 1 already requested (a4)
    with pytest.raises(RequestRefused, match=r"takes 2 days, but Li Wei has 1 .*\(4 in the data, 3 already"):
        store.submit(prepare("Li Wei", "sick", "sick_days_remaining", 4, dt.date(2027, 6, 14), dt.date(2027, 6, 15),
                             calendar, account="lwei"))
    store.decide(first.id, "cancelled")  # a cancelled request gives its days back
    again = prepare("Li Wei", "sick", "sick_days_remaining", 4, dt.date(2027, 6, 14), dt.date(2027, 6, 15), calendar,
                    account="lwei")
    store.submit(again)
    assert again.balance_before == 3
