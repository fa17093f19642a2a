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
        self._conn = None

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


def init_db(conn, employees: Path, database: dict[str, Any], policy, columns: dict[str, Any] | None = None) -> dict:
    """Create (or replace) the employee table, roles, policies and the audit table from an employee file.

    Runs in one transaction on ``conn`` (an administrator's connection). Returns counts for a report.
    """
    from psycopg import sql

    from engine.data.access import make_viewer
    from engine.data.employees import HR_DEPARTMENT, load_employees, normalise_name

    table = load_employees(employees, overrides=columns or None)
    df = table.df
    user_col = table.role("username")
    if not user_col:
        raise DataFileError(f"{employees.name} has no user-name column; each employee's database role comes from it.",
                            hint='Add one, or name it in the site file: [columns] username = "Login".')
    key_col = table.role("employee_id") or table.role("name")
    name_col, mgr_col, dept_col = table.role("name"), table.role("manager"), table.role("department")
    roles = {}
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
        for col in (name_col, key_col):
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
        conn.execute(query, params)

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
                 lookup.get(normalise_name(df.at[i, mgr_col])) if mgr_col and isinstance(df.at[i, mgr_col], str)
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
        _leave_table(run, schema, ident(name_col or key_col))
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


LEAVE_INSERT_COLUMNS = ("id", "employee", "leave_type", "start", "end", "day_count", "balance_before",
                        "balance_after", "days", "prepared_by", "prepared_at")


def _leave_table(run, schema, name_col) -> None:
    """Approved leave requests (site mode). Kept across reloads. Who approved it (``db_user``), when
    and the status are the database's own values; an employee inserts requests only for their own
    row and reads only their own; HR reads all and alone may change the status."""
    from psycopg import sql

    ident = sql.Identifier
    run(sql.SQL("CREATE TABLE IF NOT EXISTS {}.leave_requests (id text PRIMARY KEY, employee text NOT NULL, "
                "leave_type text NOT NULL, start date NOT NULL, \"end\" date NOT NULL, day_count numeric NOT NULL, "
                "balance_before numeric, balance_after numeric, days text NOT NULL, prepared_by text, "
                "prepared_at text, approved_at timestamptz NOT NULL DEFAULT now(), "
                "status text NOT NULL DEFAULT 'pending', db_user text NOT NULL DEFAULT session_user, "
                # What the app worked out is checked again here: a role that writes directly cannot
                # store a backwards range, a non-positive count, more days than the range, or a
                # balance that does not add up.
                "CHECK (\"end\" >= start AND \"end\" - start < 92), "
                "CHECK (day_count > 0 AND day_count <= \"end\" - start + 1), "
                "CHECK (balance_after IS NULL OR balance_before IS NULL OR balance_after = balance_before - day_count))"
                ).format(schema))
    # The database, not the client, says who filed a request and who decided it, and which changes are a
    # decision at all: pending -> approved or declined, once, by HR that is neither the requester nor the
    # employee. A status nobody defined cannot be stored (NOT VALID: rows from before stay readable).
    run(sql.SQL("ALTER TABLE {}.leave_requests ADD COLUMN IF NOT EXISTS decided_by text, "
                "ADD COLUMN IF NOT EXISTS decided_at timestamptz").format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests DROP CONSTRAINT IF EXISTS leave_status_known").format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests ADD CONSTRAINT leave_status_known CHECK (status IN ('pending', "
                "'approved', 'declined', 'cancelled')) NOT VALID").format(schema))
    # (search_path pinned: a caller's own schema must not supply the "=" or now() these checks use)
    run(sql.SQL("""CREATE OR REPLACE FUNCTION {s}.leave_rules() RETURNS trigger LANGUAGE plpgsql
SET search_path = pg_catalog, pg_temp AS $rules$
BEGIN
    IF TG_OP = 'INSERT' THEN
        NEW.db_user := session_user;
        NEW.prepared_by := session_user;
        NEW.status := 'pending';
        NEW.approved_at := now();
        NEW.decided_by := NULL;
        NEW.decided_at := NULL;
        RETURN NEW;
    END IF;
    IF (NEW.id, NEW.employee, NEW.leave_type, NEW.start, NEW."end", NEW.day_count, NEW.balance_before,
        NEW.balance_after, NEW.days, NEW.prepared_by, NEW.db_user)
       IS DISTINCT FROM (OLD.id, OLD.employee, OLD.leave_type, OLD.start, OLD."end", OLD.day_count,
        OLD.balance_before, OLD.balance_after, OLD.days, OLD.prepared_by, OLD.db_user) THEN
        RAISE EXCEPTION 'a leave request cannot be changed, only decided' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.status IS DISTINCT FROM 'pending' THEN
        RAISE EXCEPTION 'leave request % is % already', OLD.id, OLD.status USING ERRCODE = 'check_violation';
    END IF;
    IF NEW.status NOT IN ('approved', 'declined') THEN
        RAISE EXCEPTION 'a pending request can only be approved or declined' USING ERRCODE = 'check_violation';
    END IF;
    IF OLD.db_user = session_user OR OLD.employee IS NOT DISTINCT FROM
            (SELECT {name} FROM {s}.employees WHERE {role} = session_user) THEN
        RAISE EXCEPTION 'nobody decides their own leave request' USING ERRCODE = 'insufficient_privilege';
    END IF;
    NEW.decided_by := session_user;
    NEW.decided_at := now();
    RETURN NEW;
END
$rules$""").format(s=schema, name=name_col, role=sql.Identifier(ROLE_COL)))
    run(sql.SQL("DROP TRIGGER IF EXISTS leave_rules ON {}.leave_requests").format(schema))
    run(sql.SQL("CREATE TRIGGER leave_rules BEFORE INSERT OR UPDATE ON {s}.leave_requests "
                "FOR EACH ROW EXECUTE FUNCTION {s}.leave_rules()").format(s=schema))
    run(sql.SQL("REVOKE ALL ON FUNCTION {}.leave_rules() FROM PUBLIC").format(schema))
    run(sql.SQL("ALTER TABLE {}.leave_requests ENABLE ROW LEVEL SECURITY").format(schema))
    for name in ("leave_insert", "leave_read", "leave_hr_update"):
        run(sql.SQL("DROP POLICY IF EXISTS {} ON {}.leave_requests").format(ident(name), schema))
    hr = sql.SQL("pg_has_role(session_user, {}, 'MEMBER')").format(sql.Literal(HR_GROUP))
    run(sql.SQL("CREATE POLICY leave_insert ON {s}.leave_requests FOR INSERT WITH CHECK (db_user = session_user "
                "AND status = 'pending' AND ({hr} OR employee = (SELECT {name} FROM {s}.employees "
                "WHERE {role} = session_user)))").format(s=schema, hr=hr, name=name_col, role=ident(ROLE_COL)))
    run(sql.SQL("CREATE POLICY leave_read ON {}.leave_requests FOR SELECT USING (db_user = session_user OR {})"
                ).format(schema, hr))
    run(sql.SQL("CREATE POLICY leave_hr_update ON {}.leave_requests FOR UPDATE USING ({})").format(schema, hr))
    run(sql.SQL("REVOKE ALL ON {}.leave_requests FROM PUBLIC").format(schema))
    run(sql.SQL("GRANT SELECT, INSERT ({}) ON {}.leave_requests TO {}, {}").format(
        sql.SQL(", ").join(ident(c) for c in LEAVE_INSERT_COLUMNS), schema, ident(EMPLOYEE_GROUP), ident(HR_GROUP)))
    run(sql.SQL("GRANT UPDATE (status) ON {}.leave_requests TO {}").format(schema, ident(HR_GROUP)))


class DatabaseRequestStore:
    """Approved leave requests in the site database (``<schema>.leave_requests``); the same methods
    as :class:`engine.workflows.leave.RequestStore`, with the database deciding who may write and read what."""

    def __init__(self, database: dict[str, Any], user: str) -> None:
        self.database = database
        self.user = user
        self.path = f"postgresql ({database.get('dsn', '')}) {database.get('schema', 'hr')}.leave_requests"

    def submit(self, request) -> None:
        from psycopg import sql

        from engine.errors import AccessDenied

        psycopg = _psycopg()
        insert = sql.SQL("INSERT INTO {}.leave_requests ({}) VALUES ({})").format(
            _schema(self.database), sql.SQL(", ").join(sql.Identifier(c) for c in LEAVE_INSERT_COLUMNS),
            sql.SQL(", ").join(sql.Placeholder() * len(LEAVE_INSERT_COLUMNS)))
        values = (request.id, request.employee, request.leave_type, request.start, request.end, request.day_count,
                  request.balance_before, request.balance_after, " ".join(request.days), request.prepared_by,
                  request.prepared_at)
        with connect(self.database, self.user) as conn:
            try:
                conn.execute(insert, values)
            except psycopg.errors.InsufficientPrivilege:
                raise AccessDenied(f"The database refused to store a leave request for {request.employee} "
                                   f"from the role '{self.user}'.") from None
            except psycopg.Error as exc:
                raise DataFileError(f"The leave request could not be stored: {str(exc).strip().splitlines()[0]}.",
                                    hint="Nothing was submitted. Ask IT to run 'hr-assistant admin init-db'.") from None
        request.status = "pending"

    def list(self, status: str | None = "pending") -> list[dict]:
        from psycopg import sql

        psycopg = _psycopg()
        query = sql.SQL("SELECT id, employee, leave_type, start::text, \"end\"::text, day_count::float8, "
                        "balance_before::float8, balance_after::float8, days, prepared_by, prepared_at, "
                        "to_char(approved_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"'), status, db_user "
                        "FROM {}.leave_requests" + (" WHERE status = %s" if status else "")
                        + " ORDER BY approved_at, id").format(_schema(self.database))
        names = ("id", "employee", "leave_type", "start", "end", "day_count", "balance_before", "balance_after",
                 "days", "prepared_by", "prepared_at", "approved_at", "status", "db_user")
        with connect(self.database, self.user) as conn:
            try:
                rows = conn.execute(query, (status,) if status else None).fetchall()
            except psycopg.Error as exc:
                raise DataFileError(f"The leave requests cannot be read: {str(exc).strip().splitlines()[0]}.",
                                    hint="Ask IT to run 'hr-assistant admin init-db'.") from None
        return [dict(zip(names, row)) for row in rows]


def _text_rows(path: Path, columns: list[str]) -> list[list[str | None]]:
    """The file's cells as written (the database keeps the text; the app infers types as for a file)."""
    from engine.data.employees import _read_csv_rows, _read_xlsx_rows

    rows = _read_xlsx_rows(path) if path.suffix.lower() in (".xlsx", ".xlsm") else _read_csv_rows(path)
    out = []
    for r in rows[1:]:
        cells = [r[i] if i < len(r) else "" for i in range(len(columns))]
        out.append([c if c != "" else None for c in cells])
    return out
