"""Employee data from PostgreSQL, where the database itself decides what each person reads.

The only module that imports psycopg. Each person connects as themselves (their OS
account is their database role: peer or GSSAPI authentication, or a password libpq
finds in ``~/.pgpass``/``PGPASSWORD``, or one in the OS keyring). ``admin init-db``
creates, from an employee file:

* ``<schema>.employees``: every column, as text, plus each row's database role and its
  manager's; row-level security lets a role read its own row, a manager their direct
  reports' rows and members of ``hr_staff`` every row. Column privileges keep
  ``hr_only_columns`` to ``hr_staff``.
* ``<schema>.directory``: a view of the directory columns (name, department, title,
  manager, e-mail…) of every row, which everyone may read.
* ``<schema>.audit``: insert-only for employees; who inserted (``session_user``) and when
  are filled in by the database, so they cannot be faked.

The app reads the directory and the rows the database gives it, and its own access
layer checks every query again (a second wall).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from engine.errors import DataFileError, SetupError

ROLE_COL, MANAGER_ROLE_COL, KEY_COL = "_db_role", "_db_manager_role", "_key"
EMPLOYEE_GROUP, HR_GROUP = "hr_employee", "hr_staff"
_HINT = "Check the [database] table of the site file, that the server runs, and that your account has a role there."


def _psycopg():
    try:
        import psycopg
    except ImportError:  # pragma: no cover - the postgres extra is part of the dev install
        raise SetupError("The site file names a PostgreSQL database, but psycopg is not installed.",
                         hint='Install it: pip install "hr-assistant[postgres]".') from None
    return psycopg


def role_name(account: str) -> str:
    """The database role of an account or a user-name cell: ``CORP\\Ana`` -> ``ana``."""
    return account.strip().rsplit("\\", 1)[-1].split("@", 1)[0].lower()


def _password(conninfo: str, user: str) -> str | None:
    """A password from the OS keyring (service ``hr-assistant``), if the keyring package is there."""
    try:
        import keyring
    except ImportError:
        return None
    try:
        return keyring.get_password("hr-assistant", f"{user}@{conninfo}") or keyring.get_password("hr-assistant", user)
    except Exception:  # no keyring backend on this machine: libpq's own ways still apply
        return None


def connect(database: dict[str, Any], user: str, *, autocommit: bool = True):
    """A connection as ``user`` to the site's database; a clear error when it cannot be made."""
    psycopg = _psycopg()
    conninfo = str(database.get("dsn", ""))
    kwargs: dict[str, Any] = {"user": user, "connect_timeout": int(database.get("connect_timeout", 10)),
                              "application_name": "hr-assistant", "autocommit": autocommit}
    password = _password(conninfo, user)
    if password:
        kwargs["password"] = password
    try:
        return psycopg.connect(conninfo, **kwargs)
    except psycopg.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise DataFileError(f"The employee database cannot be reached as '{user}': {first}.", hint=_HINT) from None


def _schema(database: dict[str, Any]):
    from psycopg import sql

    return sql.Identifier(str(database.get("schema", "hr")))


def load_from_database(database: dict[str, Any], user: str, overrides: dict[str, Any] | None = None):
    """The employee table as ``user`` may read it: every row's directory columns, and every other
    column only where the database returns it (other cells stay empty)."""
    from psycopg import sql

    from engine.data.employees import table_from_rows

    psycopg = _psycopg()
    schema = _schema(database)
    with connect(database, user) as conn:
        try:
            cur = conn.execute(sql.SQL("SELECT * FROM {}.directory").format(schema))
            dir_cols = [d.name for d in cur.description]
            directory = cur.fetchall()
            # Only the columns this role may select: hr_only columns are kept from non-HR by privileges.
            cur = conn.execute(
                "SELECT attname FROM pg_attribute WHERE attrelid = %s::regclass AND attnum > 0 AND NOT attisdropped "
                "AND has_column_privilege(attrelid, attnum, 'SELECT') ORDER BY attnum",
                (f"{database.get('schema', 'hr')}.employees",))
            readable = [r[0] for r in cur.fetchall() if r[0] not in (ROLE_COL, MANAGER_ROLE_COL)]
            order = json.loads(conn.execute(sql.SQL("SELECT obj_description(%s::regclass)"),
                                            (f"{database.get('schema', 'hr')}.employees",)).fetchone()[0] or "[]")
            full = conn.execute(sql.SQL("SELECT {} FROM {}.employees").format(
                sql.SQL(", ").join(sql.Identifier(c) for c in readable), schema)).fetchall()
        except psycopg.Error as exc:
            raise DataFileError(f"The employee database refused the employee tables: "
                                f"{str(exc).strip().splitlines()[0]}.",
                                hint="Ask IT to run 'hr-assistant admin init-db' and to give your role access.") from None
    columns = [c for c in order if c in set(dir_cols) | set(readable)] or [c for c in readable if c != KEY_COL]
    columns = [c for c in columns if c != KEY_COL]
    by_key = {row[readable.index(KEY_COL)]: dict(zip(readable, row)) for row in full} if KEY_COL in readable else {}
    rows = [columns]
    for drow in directory:
        cells = dict(zip(dir_cols, drow))
        cells.update(by_key.get(cells.get(KEY_COL), {}))
        rows.append(["" if cells.get(c) is None else str(cells.get(c)) for c in columns])
    if len(rows) < 2:
        raise DataFileError("The employee database returned no employees.",
                            hint="Ask IT to run 'hr-assistant admin init-db' with the employee file.")
    source = f"postgresql ({database.get('dsn', '')}) as {user}"
    # The fingerprint is of the rows this user received.
    digest = hashlib.sha256(json.dumps(rows, ensure_ascii=False).encode("utf-8")).hexdigest()
    return table_from_rows(rows, source, "the employee database", overrides, sha256=digest)


class DatabaseAudit:
    """Audit entries as rows of the insert-only ``<schema>.audit`` table."""

    def __init__(self, database: dict[str, Any], user: str, *, data_hash: str = "", policy_hash: str = "") -> None:
        self.database, self.user = database, user
        self.data_hash, self.policy_hash = data_hash, policy_hash
        self._conn: Any = None  # a psycopg connection, opened on the first entry

    def record(self, user: str, role: str, query: str, allowed: bool, detail: str = "", rows: int | None = None,
               *, account: str = "", view_as: str = "") -> None:
        from psycopg import sql

        psycopg = _psycopg()
        values = (account, user, view_as or None, role, query, allowed, detail or None, rows, self.data_hash or None,
                  self.policy_hash or None)
        statement = sql.SQL("INSERT INTO {}.audit (account, employee, view_as, role, query, allowed, detail, rows, "
                            "data_sha256, policy_sha256) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
                            ).format(_schema(self.database))
        for attempt in (1, 2):  # one reconnect: a server restart must not lose the entry
            try:
                if self._conn is None or self._conn.closed:
                    self._conn = connect(self.database, self.user)
                self._conn.execute(statement, values)
                return
            except psycopg.OperationalError:
                self._conn = None
                if attempt == 2:
                    break
            except psycopg.Error as exc:
                raise DataFileError(f"The audit entry could not be written: {str(exc).strip().splitlines()[0]}.",
                                    hint="The query was not answered. " + _HINT) from None
        # Fail closed: a query whose audit entry cannot be written is not answered.
        raise DataFileError("The audit entry could not be written: the database connection was lost.",
                            hint="The query was not answered. " + _HINT)


def init_db(conn, employees: Path, database: dict[str, Any], policy, columns: dict[str, Any] | None = None,
            calendar=None) -> dict:
    """Create (or replace) the employee table, roles, policies and the audit table from an employee file.

    Runs in one transaction on ``conn`` (an administrator's connection). ``calendar``: the leave calendar
    (:class:`engine.workflows.leave.Calendar`; weekend and public holidays) the database counts a
    request's working days with. Returns counts for a report.
    """
    from psycopg import sql

    from engine.data.access import make_viewer
    from engine.data.employees import HR_DEPARTMENT, load_employees, normalise_name, unsort_name
    from engine.data.schema import leave_columns

    table = load_employees(employees, overrides=columns or None)
    df = table.df
    user_col = table.role("username")
    if not user_col:
        raise DataFileError(f"{employees.name} has no user-name column; each employee's database role comes from it.",
                            hint='Add one, or name it in the site file: [columns] username = "Login".')
    key_col = table.role("employee_id") or table.role("name")
    name_col, mgr_col, dept_col = table.role("name"), table.role("manager"), table.role("department")
    roles: dict[object, str] = {}
    for i, value in df[user_col].items():
        if not isinstance(value, str) or not value.strip():
            raise DataFileError(f"Line {i + 2} of {employees.name} has no user name, so it would have no database "
                                "role.", hint="Fill in every employee's user name.")
        role = role_name(value)
        if role in (EMPLOYEE_GROUP, HR_GROUP) or role.startswith("pg_"):
            raise DataFileError(f"The user name '{value}' (line {i + 2}) is a reserved database role name.",
                                hint="Rename that account or the user name.")
        if role in roles.values():
            raise DataFileError(f"The user name '{value}' (line {i + 2}) is used twice.",
                                hint="Each employee needs their own user name.")
        roles[i] = role
    lookup: dict[str, str | None] = {}
    for i in df.index:
        # (a manager column holds names, ids, e-mails or user names: each is a key to the manager's role)
        for col in (name_col, key_col, table.role("email"), user_col):
            if col == table.role("manager"):
                continue  # (a row's manager is no key of the row itself)
            if col and df.at[i, col] is not None and df.at[i, col] == df.at[i, col]:
                key = normalise_name(df.at[i, col])
                # A name two people share is nobody's: their reports get no manager rather than a wrong one.
                lookup[key] = None if key in lookup and lookup[key] != roles[i] else roles[i]
    extra_hr = {normalise_name(d) for d in policy.hr_departments}
    hr_roles = {roles[i] for i in df.index if dept_col and isinstance(df.at[i, dept_col], str)
                and (HR_DEPARTMENT.match(df.at[i, dept_col]) or normalise_name(df.at[i, dept_col]) in extra_hr)}
    cols = list(table.columns)
    public = sorted(make_viewer(table, "", policy).public_columns)
    hr_only = set(policy.hr_only_columns)
    schema = _schema(database)
    ident = sql.Identifier
    text_rows = _text_rows(employees, cols)

    def run(query, params=None):
        return conn.execute(query, params)

    with conn.transaction():
        run(sql.SQL("CREATE SCHEMA IF NOT EXISTS {}").format(schema))
        for group in (EMPLOYEE_GROUP, HR_GROUP):
            run(sql.SQL("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {lit}) THEN "
                        "CREATE ROLE {role} NOLOGIN; END IF; END $$").format(lit=sql.Literal(group), role=ident(group)))
        # Who this schema's last load gave a role: only they can have left (other schemas' people,
        # and roles the DBA granted the groups to, are not ours to touch).
        before: set[str] = set()
        employees_table = sql.SQL("{}.{}").format(schema, ident("employees")).as_string(conn)
        if conn.execute("SELECT to_regclass(%s)", (employees_table,)).fetchone()[0]:
            before = {r for (r,) in conn.execute(sql.SQL("SELECT {} FROM {}.employees").format(
                ident(ROLE_COL), schema)).fetchall()}
        leave_table = sql.SQL("{}.{}").format(schema, ident("leave_requests")).as_string(conn)
        if conn.execute("SELECT to_regclass(%s)", (leave_table,)).fetchone()[0]:
            # Its insert policy reads the employee table: it goes first and comes back below.
            run(sql.SQL("DROP POLICY IF EXISTS leave_insert ON {}.leave_requests").format(schema))
        run(sql.SQL("DROP VIEW IF EXISTS {}.directory").format(schema))
        run(sql.SQL("DROP TABLE IF EXISTS {}.employees").format(schema))
        run(sql.SQL("CREATE TABLE {}.employees ({}, {} text NOT NULL UNIQUE, {} text NOT NULL UNIQUE, {} text)").format(
            schema, sql.SQL(", ").join(sql.SQL("{} text").format(ident(c)) for c in cols), ident(KEY_COL),
            ident(ROLE_COL), ident(MANAGER_ROLE_COL)))
        # The column order of the file, for the app to rebuild the same table.
        run(sql.SQL("COMMENT ON TABLE {}.employees IS {}").format(schema, sql.Literal(json.dumps(cols))))
        insert = sql.SQL("INSERT INTO {}.employees ({}, {}, {}, {}) VALUES ({})").format(
            schema, sql.SQL(", ").join(ident(c) for c in cols), ident(KEY_COL), ident(ROLE_COL),
            ident(MANAGER_ROLE_COL), sql.SQL(", ").join(sql.Placeholder() * (len(cols) + 3)))
        with conn.cursor() as cur:
            cur.executemany(insert, [
                [*text_rows[i], f"{i}:{df.at[i, key_col]}" if key_col else str(i), roles[i],
                 lookup.get(normalise_name(unsort_name(df.at[i, mgr_col]))) if mgr_col and isinstance(df.at[i, mgr_col], str)
                 else None] for i in df.index])
        run(sql.SQL("ALTER TABLE {}.employees ENABLE ROW LEVEL SECURITY").format(schema))
        run(sql.SQL("CREATE POLICY own_row ON {}.employees FOR SELECT USING ({} = current_user)").format(
            schema, ident(ROLE_COL)))
        if policy.managers_see_reports:
            run(sql.SQL("CREATE POLICY direct_reports ON {}.employees FOR SELECT USING ({} = current_user)").format(
                schema, ident(MANAGER_ROLE_COL)))
        run(sql.SQL("CREATE POLICY hr_staff ON {}.employees FOR SELECT USING "
                    "(pg_has_role(current_user, {}, 'MEMBER'))").format(schema, sql.Literal(HR_GROUP)))
        # The directory view belongs to the administrator, so it shows every row, but only these columns.
        run(sql.SQL("CREATE VIEW {}.directory AS SELECT {} FROM {}.employees").format(
            schema, sql.SQL(", ").join(ident(c) for c in [KEY_COL, *public]), schema))
        run(sql.SQL("GRANT USAGE ON SCHEMA {} TO {}, {}").format(schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
        run(sql.SQL("REVOKE ALL ON {}.employees, {}.directory FROM PUBLIC").format(schema, schema))
        run(sql.SQL("GRANT SELECT ON {}.directory TO {}, {}").format(schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
        readable = [c for c in [*cols, KEY_COL, ROLE_COL, MANAGER_ROLE_COL] if c not in hr_only]
        run(sql.SQL("GRANT SELECT ({}) ON {}.employees TO {}").format(
            sql.SQL(", ").join(ident(c) for c in readable), schema, ident(EMPLOYEE_GROUP)))
        run(sql.SQL("GRANT SELECT ON {}.employees TO {}").format(schema, ident(HR_GROUP)))
        run(sql.SQL("CREATE TABLE IF NOT EXISTS {}.audit (id bigserial PRIMARY KEY, "
                    "at timestamptz NOT NULL DEFAULT now(), db_user text NOT NULL DEFAULT session_user, "
                    "account text, employee text, view_as text, role text, query text, allowed boolean, detail text, "
                    "rows integer, data_sha256 text, policy_sha256 text)").format(schema))
        run(sql.SQL("REVOKE ALL ON {}.audit FROM PUBLIC").format(schema))
        run(sql.SQL("GRANT INSERT (account, employee, view_as, role, query, allowed, detail, rows, data_sha256, "
                    "policy_sha256) ON {}.audit TO {}, {}").format(schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
        run(sql.SQL("GRANT USAGE ON SEQUENCE {} TO {}, {}").format(
            sql.Identifier(str(database.get("schema", "hr")), "audit_id_seq"), ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
        _audit_rules(run, schema)
        _leave_table(run, schema, ident(str(name_col or key_col)), leave_columns(table), str(database.get("schema", "hr")),
                     frozenset(hr_only & set(cols)))
        _leave_calendar(run, schema, calendar)
        powerful = [r for (r,) in conn.execute("SELECT rolname FROM pg_roles WHERE (rolsuper OR rolbypassrls) "
                                               "AND rolname = ANY(%s)", (list(roles.values()),)).fetchall()]
        if powerful:
            # Row-level security does not bind these roles: loading them as employees would be a lie.
            raise DataFileError(f"The user names {', '.join(powerful)} are database superusers or bypass row-level "
                                "security.", hint="Give those people ordinary database roles.")
        # People no longer in the export lose both groups and their login (their audit rows stay).
        departed = sorted(before - set(roles.values()))
        for role in departed:
            run(sql.SQL("REVOKE {}, {} FROM {}").format(ident(EMPLOYEE_GROUP), ident(HR_GROUP), ident(role)))
            run(sql.SQL("ALTER ROLE {} NOLOGIN").format(ident(role)))
        for role in roles.values():
            run(sql.SQL("DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = {lit}) THEN "
                        "CREATE ROLE {role} LOGIN; END IF; END $$").format(lit=sql.Literal(role), role=ident(role)))
            run(sql.SQL("ALTER ROLE {} LOGIN").format(ident(role)))
            run(sql.SQL("GRANT {} TO {}").format(ident(EMPLOYEE_GROUP), ident(role)))
            if role in hr_roles:
                run(sql.SQL("GRANT {} TO {}").format(ident(HR_GROUP), ident(role)))
            else:  # someone who left HR loses its rights at the next init-db
                run(sql.SQL("REVOKE {} FROM {}").format(ident(HR_GROUP), ident(role)))
    return {"employees": len(df), "roles": len(roles), "hr": len(hr_roles), "departed": departed,
            "directory_columns": public,
            "hr_only_columns": sorted(hr_only & set(cols))}


#: Every column of ``<schema>.leave_requests``.
LEAVE_COLUMNS = ("id", "employee", "leave_type", "start", "end", "day_count", "balance_before", "balance_after", "days",
                 "prepared_by", "prepared_at", "approved_at", "status", "db_user", "decided_by", "decided_at",
                 "decision_reason", "employee_role", "manager_role", "balance_column")
LEAVE_INSERT_COLUMNS = ("id", "employee", "leave_type", "start", "end", "day_count", "balance_before",
                        "balance_after", "days", "prepared_by", "prepared_at")
#: Longest decision reason the database keeps (a reason is a sentence, not a document).
MAX_REASON = 500
#: Why a request still pending from before the database's rules is declined when they are installed.
STALE_REASON = "filed before the database checked leave requests; please file it again"


def _audit_rules(run, schema) -> None:
    """Who wrote an audit row is the database's to say: ``db_user`` and ``at`` are its own values, and
    an ``account`` that is not the connected role's account is replaced by the role."""
    from psycopg import sql

    run(sql.SQL(r"""CREATE OR REPLACE FUNCTION {s}.audit_rules() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $rules$
BEGIN
    NEW.db_user := session_user;
    NEW.at := now();
    -- Rows the leave rules write run as the table's owner: a row an employee inserts by hand cannot pass for one.
    NEW.written_by := current_user;
    IF NEW.account IS NULL OR lower(split_part(regexp_replace(NEW.account, '^.*\\', ''), '@', 1)) <> session_user THEN
        NEW.account := session_user;
    END IF;
    RETURN NEW;
END
$rules$""").format(s=schema))
    run(sql.SQL("ALTER TABLE {}.audit ADD COLUMN IF NOT EXISTS written_by text").format(schema))
    run(sql.SQL("DROP TRIGGER IF EXISTS audit_rules ON {}.audit").format(schema))
    run(sql.SQL("CREATE TRIGGER audit_rules BEFORE INSERT ON {s}.audit FOR EACH ROW EXECUTE FUNCTION "
                "{s}.audit_rules()").format(s=schema))
    run(sql.SQL("REVOKE ALL ON FUNCTION {}.audit_rules() FROM PUBLIC").format(schema))


def _leave_calendar(run, schema, calendar) -> None:
    """The working-day calendar (weekend days, public holidays) and when the employee data was loaded:
    a request's days must be exactly the working days of its range, and the balance it books against
    is the loaded one less what was filed since."""
    from psycopg import sql

    weekend = list(getattr(calendar, "weekend", (5, 6)))
    holidays = sorted(getattr(calendar, "holidays", {}).items())
    run(sql.SQL("CREATE TABLE IF NOT EXISTS {}.leave_calendar (day date PRIMARY KEY, name text)").format(schema))
    run(sql.SQL("DELETE FROM {}.leave_calendar").format(schema))
    for day, name in holidays:
        run(sql.SQL("INSERT INTO {}.leave_calendar VALUES (%s, %s)").format(schema), (day, name))
    run(sql.SQL("CREATE TABLE IF NOT EXISTS {}.leave_load (weekend integer[] NOT NULL, loaded_at timestamptz NOT NULL)"
                ).format(schema))
    run(sql.SQL("DELETE FROM {}.leave_load").format(schema))
    run(sql.SQL("INSERT INTO {}.leave_load VALUES (%s, now())").format(schema), (weekend,))
    for table in ("leave_calendar", "leave_load"):
        run(sql.SQL("REVOKE ALL ON {}.{} FROM PUBLIC").format(schema, sql.Identifier(table)))
        run(sql.SQL("GRANT SELECT ON {}.{} TO {}, {}").format(schema, sql.Identifier(table),
                                                            sql.Identifier(EMPLOYEE_GROUP), sql.Identifier(HR_GROUP)))


def _leave_table(run, schema, name_col, leave_map: dict[str, str], schema_name: str,
                 hr_only: frozenset[str] = frozenset()) -> None:
    """Leave requests (site mode), kept across reloads, with their whole lifecycle enforced here.

    An employee files a request for their own row (HR may file for anyone); the database fills in who
    filed it, whose it is, their manager, the balance column and both balances from the employee row,
    and checks the day count against the listed days. Then, once: the employee cancels it while it is
    pending, or their manager (the reporting line of the data) or HR approves or declines it, never the
    requester or the person it is for; a decline needs a reason. Every step is an audit row the
    database writes itself."""
    from psycopg import sql

    ident = sql.Identifier
    run(sql.SQL("CREATE TABLE IF NOT EXISTS {}.leave_requests (id text PRIMARY KEY, employee text NOT NULL, "
                "leave_type text NOT NULL, start date NOT NULL, \"end\" date NOT NULL, day_count numeric NOT NULL, "
                "balance_before numeric, balance_after numeric, days text NOT NULL, prepared_by text, "
                "prepared_at text, approved_at timestamptz NOT NULL DEFAULT now(), "
                "status text NOT NULL DEFAULT 'pending', db_user text NOT NULL DEFAULT session_user, "
                "CHECK (\"end\" >= start AND \"end\" - start < 92), "
                "CHECK (day_count > 0 AND day_count <= \"end\" - start + 1), "
                "CHECK (balance_after IS NULL OR balance_before IS NULL OR balance_after = balance_before - day_count))"
                ).format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests ADD COLUMN IF NOT EXISTS decided_by text, "
                "ADD COLUMN IF NOT EXISTS decided_at timestamptz, ADD COLUMN IF NOT EXISTS decision_reason text, "
                "ADD COLUMN IF NOT EXISTS employee_role text, ADD COLUMN IF NOT EXISTS manager_role text, "
                "ADD COLUMN IF NOT EXISTS balance_column text").format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests DROP CONSTRAINT IF EXISTS leave_status_known").format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests ADD CONSTRAINT leave_status_known CHECK (status IN ('pending', "
                "'approved', 'declined', 'cancelled')) NOT VALID").format(schema))
    # Which employee column a leave type books against: the same map the app's leave tool uses.
    run(sql.SQL("CREATE TABLE IF NOT EXISTS {}.leave_balances (leave_type text PRIMARY KEY, "
                "balance_column text NOT NULL)").format(schema))
    run(sql.SQL("DELETE FROM {}.leave_balances").format(schema))
    for kind, column in leave_map.items():
        run(sql.SQL("INSERT INTO {}.leave_balances VALUES (%s, %s)").format(schema), (kind, column))
    run(sql.SQL("REVOKE ALL ON {}.leave_balances FROM PUBLIC").format(schema))
    run(sql.SQL("GRANT SELECT ON {}.leave_balances TO {}, {}").format(schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
    # SECURITY DEFINER: the rules read the employee's row and manager whatever the caller may read,
    # and write the audit row; session_user stays the person connected. search_path pinned, so a
    # caller's own schema cannot supply an operator or function these rules use.
    run(sql.SQL(r"""CREATE OR REPLACE FUNCTION {s}.leave_rules() RETURNS trigger LANGUAGE plpgsql
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $rules$
DECLARE
    is_hr boolean := pg_has_role(session_user, {hr_group}, 'MEMBER');
    emp_role text;
    mgr_role text;
    found_rows integer;
    col text;
    cell text;
    listed date[];
    expected date[];
    weekend integer[];
    booked numeric;
    n integer;
    clash text;
    what text;
BEGIN
    IF TG_OP = 'INSERT' THEN
        SELECT count(*) INTO found_rows FROM {s}.employees WHERE {name} = NEW.employee;
        IF found_rows <> 1 THEN
            RAISE EXCEPTION 'there is no single employee named %', NEW.employee USING ERRCODE = 'check_violation';
        END IF;
        SELECT {role}, {mgr} INTO emp_role, mgr_role FROM {s}.employees WHERE {name} = NEW.employee;
        IF emp_role IS DISTINCT FROM session_user AND NOT is_hr THEN
            RAISE EXCEPTION 'you can file leave requests only for yourself' USING ERRCODE = 'insufficient_privilege';
        END IF;
        SELECT balance_column INTO col FROM {s}.leave_balances WHERE leave_type = NEW.leave_type;
        IF col IS NULL THEN
            RAISE EXCEPTION 'the employee data keeps no balance for % leave', NEW.leave_type
                USING ERRCODE = 'check_violation';
        END IF;
        BEGIN
            listed := string_to_array(btrim(NEW.days), ' ')::date[];
        EXCEPTION WHEN others THEN
            RAISE EXCEPTION 'the days of a request are dates (YYYY-MM-DD) separated by spaces'
                USING ERRCODE = 'check_violation';
        END;
        n := coalesce(cardinality(listed), 0);
        IF n = 0 OR n <> (SELECT count(DISTINCT d) FROM unnest(listed) d)
           OR EXISTS (SELECT 1 FROM unnest(listed) d WHERE d < NEW.start OR d > NEW."end") THEN
            RAISE EXCEPTION 'the days of a request are distinct dates from its start to its end'
                USING ERRCODE = 'check_violation';
        END IF;
        -- The days are the working days of the range, all of them: the calendar is the database's.
        weekend := coalesce((SELECT w.weekend FROM {s}.leave_load w LIMIT 1), '{{5,6}}');
        SELECT coalesce(array_agg(d::date ORDER BY d), '{{}}') INTO expected
            FROM generate_series(NEW.start, NEW."end", interval '1 day') d
            WHERE NOT (extract(isodow FROM d)::integer - 1 = ANY (weekend))
              AND d::date NOT IN (SELECT day FROM {s}.leave_calendar);
        IF expected IS DISTINCT FROM (SELECT array_agg(d ORDER BY d) FROM unnest(listed) d) THEN
            RAISE EXCEPTION 'the working days from % to % are % (the database''s calendar), not the % listed',
                NEW.start, NEW."end", cardinality(expected), n USING ERRCODE = 'check_violation';
        END IF;
        -- Each listed day counts once, or a half where the request starts or ends with a half day.
        IF NEW.day_count NOT IN (n, n - 0.5, n - 1) OR NEW.day_count <= 0 THEN
            RAISE EXCEPTION '% days listed cannot make a day count of %', n, NEW.day_count
                USING ERRCODE = 'check_violation';
        END IF;
        EXECUTE format('SELECT %I FROM %I.employees WHERE %I = $1', col, {s_name}, {role_name}) INTO cell USING emp_role;
        IF cell IS NULL OR btrim(cell) !~ '^-?[0-9]+(\.[0-9]+)?$' THEN
            RAISE EXCEPTION 'the employee data has no % for %', col, NEW.employee USING ERRCODE = 'check_violation';
        END IF;
        -- One person's requests are filed one at a time, so two sessions cannot both spend the same balance.
        PERFORM pg_advisory_xact_lock(hashtext('hr-assistant leave ' || emp_role));
        -- The loaded balance less what was filed (and not declined or cancelled) since it was loaded.
        SELECT coalesce(sum(day_count), 0) INTO booked FROM {s}.leave_requests
            WHERE employee_role = emp_role AND balance_column = col AND status IN ('pending', 'approved')
              AND approved_at > (SELECT loaded_at FROM {s}.leave_load LIMIT 1);
        IF NEW.day_count > btrim(cell)::numeric - booked THEN
            RAISE EXCEPTION 'the request takes % days, but % has % % (% in the data, % already requested)',
                NEW.day_count, NEW.employee, btrim(cell)::numeric - booked, col, btrim(cell), booked
                USING ERRCODE = 'check_violation';
        END IF;
        SELECT id INTO clash FROM {s}.leave_requests WHERE employee_role = emp_role
            AND status IN ('pending', 'approved') AND start <= NEW."end" AND "end" >= NEW.start LIMIT 1;
        IF clash IS NOT NULL THEN
            RAISE EXCEPTION 'the dates overlap leave request %', clash USING ERRCODE = 'check_violation';
        END IF;
        NEW.balance_column := col;
        NEW.balance_before := btrim(cell)::numeric - booked;
        NEW.balance_after := NEW.balance_before - NEW.day_count;
        NEW.employee_role := emp_role;
        NEW.manager_role := mgr_role;
        NEW.db_user := session_user;
        NEW.prepared_by := session_user;
        NEW.status := 'pending';
        NEW.approved_at := now();
        NEW.decided_by := NULL;
        NEW.decided_at := NULL;
        NEW.decision_reason := NULL;
        what := 'filed';
    ELSE
        IF (NEW.id, NEW.employee, NEW.leave_type, NEW.start, NEW."end", NEW.day_count, NEW.balance_before,
            NEW.balance_after, NEW.days, NEW.prepared_by, NEW.db_user, NEW.employee_role, NEW.manager_role,
            NEW.balance_column, NEW.approved_at, NEW.prepared_at)
           IS DISTINCT FROM (OLD.id, OLD.employee, OLD.leave_type, OLD.start, OLD."end", OLD.day_count,
            OLD.balance_before, OLD.balance_after, OLD.days, OLD.prepared_by, OLD.db_user, OLD.employee_role,
            OLD.manager_role, OLD.balance_column, OLD.approved_at, OLD.prepared_at) THEN
            RAISE EXCEPTION 'a leave request cannot be changed, only decided or cancelled'
                USING ERRCODE = 'check_violation';
        END IF;
        IF OLD.status IS DISTINCT FROM 'pending' THEN
            RAISE EXCEPTION 'leave request % is % already', OLD.id, OLD.status USING ERRCODE = 'check_violation';
        END IF;
        -- Rows filed before these rules knew whose they were: the person is found by name.
        emp_role := coalesce(OLD.employee_role, (SELECT min({role}) FROM {s}.employees WHERE {name} = OLD.employee));
        mgr_role := (SELECT {mgr} FROM {s}.employees WHERE {role} = emp_role);
        NEW.decision_reason := nullif(btrim(left(NEW.decision_reason, {max_reason})), '');
        IF NEW.status = 'cancelled' THEN
            IF session_user IS DISTINCT FROM emp_role AND session_user IS DISTINCT FROM OLD.db_user THEN
                RAISE EXCEPTION 'only the person who filed a request can cancel it'
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
        ELSIF NEW.status IN ('approved', 'declined') THEN
            IF session_user = OLD.db_user OR session_user IS NOT DISTINCT FROM emp_role THEN
                RAISE EXCEPTION 'nobody decides their own leave request' USING ERRCODE = 'insufficient_privilege';
            END IF;
            -- the employee's manager now (a reorganisation moves their pending requests with them)
            IF NOT is_hr AND session_user IS DISTINCT FROM mgr_role THEN
                RAISE EXCEPTION 'only % manager or HR decides this request', OLD.employee
                    USING ERRCODE = 'insufficient_privilege';
            END IF;
            IF NEW.status = 'declined' AND NEW.decision_reason IS NULL THEN
                RAISE EXCEPTION 'a declined request needs a reason' USING ERRCODE = 'check_violation';
            END IF;
        ELSE
            RAISE EXCEPTION 'a pending request can only be approved, declined or cancelled'
                USING ERRCODE = 'check_violation';
        END IF;
        NEW.decided_by := session_user;
        NEW.decided_at := now();
        what := NEW.status;
    END IF;
    INSERT INTO {s}.audit (account, employee, role, query, allowed, detail)
        VALUES (session_user, NEW.employee,
                CASE WHEN is_hr THEN 'hr' WHEN session_user = NEW.manager_role THEN 'manager' ELSE 'employee' END,
                format('leave request %s: %s leave %s to %s, %s days', what, NEW.leave_type, NEW.start, NEW."end",
                       NEW.day_count),
                true, format('request %s%s', NEW.id, coalesce('; reason: ' || NEW.decision_reason, '')));
    RETURN NEW;
END
$rules$""").format(s=schema, name=name_col, role=ident(ROLE_COL), mgr=ident(MANAGER_ROLE_COL),
                   hr_group=sql.Literal(HR_GROUP), max_reason=sql.Literal(MAX_REASON),
                   s_name=sql.Literal(schema_name), role_name=sql.Literal(ROLE_COL)))
    run(sql.SQL("DROP TRIGGER IF EXISTS leave_rules ON {}.leave_requests").format(schema))
    # A request still pending from before these rules was filed with whatever balances, author and day count
    # its client wrote: none of it can be trusted, so it is declined (with the reason, and audited) and the
    # person files it again under the rules. Fail closed: approving it would spend a forged balance.
    stale = run(sql.SQL("UPDATE {}.leave_requests SET status = 'declined', decided_by = current_user, "
                        "decided_at = now(), decision_reason = %s WHERE status = 'pending' AND employee_role IS NULL "
                        "RETURNING id, employee").format(schema), (STALE_REASON,))
    for request_id, employee in stale.fetchall():
        run(sql.SQL("INSERT INTO {}.audit (account, employee, role, query, allowed, detail) VALUES "
                    "(current_user, %s, 'hr', %s, true, %s)").format(schema),
            (employee, f"leave request declined: {STALE_REASON}", f"request {request_id}"))
    run(sql.SQL("CREATE TRIGGER leave_rules BEFORE INSERT OR UPDATE ON {s}.leave_requests "
                "FOR EACH ROW EXECUTE FUNCTION {s}.leave_rules()").format(s=schema))
    run(sql.SQL("REVOKE ALL ON FUNCTION {}.leave_rules() FROM PUBLIC").format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests ENABLE ROW LEVEL SECURITY").format(schema))
    for name in ("leave_insert", "leave_read", "leave_hr_update", "leave_update"):
        run(sql.SQL("DROP POLICY IF EXISTS {} ON {}.leave_requests").format(ident(name), schema))
    hr = sql.SQL("pg_has_role(session_user, {}, 'MEMBER')").format(sql.Literal(HR_GROUP))
    # Who may see (and so act on) a row: who filed it, whose it is, their manager, HR. The trigger
    # decides which action each of them may take.
    # The manager is the employee's manager now (from the employee table, read by a definer function:
    # the policy must not depend on what the manager's own row-level rights let them read).
    run(sql.SQL("""CREATE OR REPLACE FUNCTION {s}.manages(emp_role text) RETURNS boolean LANGUAGE sql STABLE
SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS
$$ SELECT EXISTS (SELECT 1 FROM {s}.employees WHERE {role} = emp_role AND {mgr} = session_user) $$""").format(
        s=schema, role=ident(ROLE_COL), mgr=ident(MANAGER_ROLE_COL)))
    run(sql.SQL("REVOKE ALL ON FUNCTION {}.manages(text) FROM PUBLIC").format(schema))
    run(sql.SQL("GRANT EXECUTE ON FUNCTION {}.manages(text) TO {}, {}").format(
        schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
    party = sql.SQL("(db_user = session_user OR employee_role = session_user OR {s}.manages(employee_role) OR {hr})"
                    ).format(s=schema, hr=hr)
    run(sql.SQL("CREATE POLICY leave_insert ON {s}.leave_requests FOR INSERT WITH CHECK (db_user = session_user "
                "AND status = 'pending' AND ({hr} OR employee_role = session_user))").format(s=schema, hr=hr))
    run(sql.SQL("CREATE POLICY leave_read ON {}.leave_requests FOR SELECT USING {}").format(schema, party))
    run(sql.SQL("CREATE POLICY leave_update ON {}.leave_requests FOR UPDATE USING {}").format(schema, party))
    run(sql.SQL("REVOKE ALL ON {}.leave_requests FROM PUBLIC, {}, {}").format(
        schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
    # A balance is read through leave_request_balances (below), which withholds an HR-only balance column
    # from the manager: the request must not show what the employee table hides.
    run(sql.SQL("GRANT SELECT ({}) ON {}.leave_requests TO {}").format(
        sql.SQL(", ").join(ident(c) for c in LEAVE_COLUMNS if c not in ("balance_before", "balance_after")),
        schema, ident(EMPLOYEE_GROUP)))
    run(sql.SQL("GRANT SELECT ON {}.leave_requests TO {}").format(schema, ident(HR_GROUP)))
    run(sql.SQL("GRANT INSERT ({}) ON {}.leave_requests TO {}, {}").format(
        sql.SQL(", ").join(ident(c) for c in LEAVE_INSERT_COLUMNS), schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
    run(sql.SQL("""CREATE OR REPLACE VIEW {s}.leave_request_balances WITH (security_barrier) AS
SELECT id, balance_before, balance_after FROM {s}.leave_requests
WHERE db_user = session_user OR employee_role = session_user OR {hr}
   OR ({s}.manages(employee_role) AND balance_column IS NOT NULL AND NOT (balance_column = ANY ({hidden})))""").format(
        s=schema, hr=hr, hidden=sql.Literal(sorted(hr_only))))
    run(sql.SQL("REVOKE ALL ON {}.leave_request_balances FROM PUBLIC").format(schema))
    run(sql.SQL("GRANT SELECT ON {}.leave_request_balances TO {}, {}").format(
        schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
    run(sql.SQL("GRANT UPDATE (status, decision_reason) ON {}.leave_requests TO {}, {}").format(
        schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))


class DatabaseRequestStore:
    """Approved leave requests in the site database (``<schema>.leave_requests``); the same methods
    as :class:`engine.workflows.leave.RequestStore`, with the database deciding who may write and read what."""

    refuses = False
    reason = hint = ""  # (a store that refuses says why: see NoSharedStore)

    def __init__(self, database: dict[str, Any], user: str) -> None:
        self.database = database
        self.user = user
        self.path = f"postgresql ({database.get('dsn', '')}) {database.get('schema', 'hr')}.leave_requests"

    def submit(self, request) -> None:
        """File a request; the database fills in the balances (from the employee row) and who filed it."""
        from psycopg import sql

        schema = _schema(self.database)
        insert = sql.SQL("INSERT INTO {}.leave_requests ({}) VALUES ({})").format(
            schema, sql.SQL(", ").join(sql.Identifier(c) for c in LEAVE_INSERT_COLUMNS),
            sql.SQL(", ").join(sql.Placeholder() * len(LEAVE_INSERT_COLUMNS)))
        # (the balances the database wrote, read where this role may read them: the filer always may)
        balances = sql.SQL("SELECT balance_before::float8, balance_after::float8 FROM {}.leave_request_balances "
                           "WHERE id = %s").format(schema)
        values = (request.id, request.employee, request.leave_type, request.start, request.end, request.day_count,
                  request.balance_before, request.balance_after, " ".join(request.days), request.prepared_by,
                  request.prepared_at)
        with connect(self.database, self.user) as conn:
            self._run(conn, insert, values, f"store a leave request for {request.employee}")
            row = self._run(conn, balances, (request.id,), "read the request's balances back").fetchone()
        request.balance_before, request.balance_after = row if row else (None, None)
        request.status = "pending"

    def decide(self, request_id: str, status: str, reason: str = "") -> dict:
        """Approve, decline or cancel a pending request; the database checks who may (see :func:`_leave_table`)."""
        from psycopg import sql

        if status not in ("approved", "declined", "cancelled"):
            raise ValueError(status)
        update = sql.SQL("UPDATE {}.leave_requests SET status = %s, decision_reason = %s WHERE id = %s "
                         "RETURNING id").format(_schema(self.database))
        with connect(self.database, self.user) as conn:
            found = self._run(conn, update, (status, reason.strip() or None, request_id),
                              f"change leave request {request_id}").fetchone()
        if found is None:
            from engine.errors import RequestRefused

            raise RequestRefused(f"There is no leave request {request_id} that you can see.",
                                 hint="'hr-assistant requests --all' lists the ones you can.")
        return next(r for r in self.list(None) if r["id"] == request_id)

    def _run(self, conn, statement, values, doing: str):
        from engine.errors import AccessDenied, RequestRefused

        psycopg = _psycopg()
        try:
            return conn.execute(statement, values)
        except psycopg.errors.InsufficientPrivilege as exc:
            raise AccessDenied(f"The database refused to {doing} from the role '{self.user}': "
                               f"{_first_line(exc)}.") from None
        except (psycopg.errors.CheckViolation, psycopg.errors.RaiseException) as exc:
            raise RequestRefused(f"The database refused to {doing}: {_first_line(exc)}.") from None
        except psycopg.Error as exc:
            raise DataFileError(f"Could not {doing}: {_first_line(exc)}.",
                                hint="Nothing was changed. Ask IT to run 'hr-assistant admin init-db'.") from None

    def list(self, status: str | None = "pending") -> list[dict]:
        """The requests the database lets this role see: their own, their reports' (a manager), all (HR)."""
        from psycopg import sql

        psycopg = _psycopg()
        # Balances through the view that withholds an HR-only balance column from the manager (NULL there).
        query = sql.SQL("SELECT r.id, employee, leave_type, start::text, \"end\"::text, day_count::float8, "
                        "b.balance_before::float8, b.balance_after::float8, days, prepared_by, prepared_at, "
                        "to_char(approved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), status, db_user, "
                        "employee_role, manager_role, decided_by, "
                        "to_char(decided_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), decision_reason, "
                        "balance_column "
                        "FROM {s}.leave_requests r LEFT JOIN {s}.leave_request_balances b ON b.id = r.id"
                        + (" WHERE status = %s" if status else "")
                        + " ORDER BY approved_at, r.id").format(s=_schema(self.database))
        with connect(self.database, self.user) as conn:
            try:
                rows = conn.execute(query, (status,) if status else None).fetchall()
            except psycopg.Error as exc:
                raise DataFileError(f"The leave requests cannot be read: {_first_line(exc)}.",
                                    hint="Ask IT to run 'hr-assistant admin init-db'.") from None
        return [dict(zip(REQUEST_FIELDS, row)) for row in rows]


#: What :meth:`DatabaseRequestStore.list` returns per request.
REQUEST_FIELDS = ("id", "employee", "leave_type", "start", "end", "day_count", "balance_before", "balance_after",
                  "days", "prepared_by", "prepared_at", "approved_at", "status", "db_user", "employee_role",
                  "manager_role", "decided_by", "decided_at", "decision_reason", "balance_column")


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _text_rows(path: Path, columns: list[str]) -> list[list[str | None]]:
    """The file's cells as written (the database keeps the text; the app infers types as for a file)."""
    from engine.data.employees import _read_csv_rows, _read_xlsx_rows

    rows = _read_xlsx_rows(path) if path.suffix.lower() in (".xlsx", ".xlsm") else _read_csv_rows(path)
    out = []
    for r in rows[1:]:
        cells = [r[i] if i < len(r) else "" for i in range(len(columns))]
        out.append([c if c != "" else None for c in cells])
    return out
