"""The site's shared audit log: created by IT, appended to without reading, its hashes in the OS log.

As root the tests also act as an unprivileged OS account (``nobody``), as people at a site would:
they append to the log but cannot read it, and the OS log's copy of each entry's hash shows a cut,
emptied, edited or replaced file to ``verify-audit --heads``.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from engine.cli import main
from engine.data.audit import AuditHead, AuditLog, _line_hash, init_audit_file, read_heads, verify_audit
from engine.errors import DataFileError
from tests.conftest import release_append_only
from tests.other_account import code_for_others, python_for_others, run_as_nobody

posix = pytest.mark.skipif(sys.platform == "win32", reason="POSIX accounts and syslog sockets")


class FakeSyslog:
    """A syslog datagram socket (what /dev/log is), keeping every message it receives."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        os.chmod(path, 0o666)
        self.messages: list[str] = []
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                self.messages.append(self.sock.recv(4096).decode())
            except OSError:
                return

    def export(self, path: Path) -> Path:
        """What IT would get from ``journalctl -t hr-assistant-audit -o cat`` (here: the raw lines)."""
        path.write_text("\n".join(self.messages) + "\n")
        return path

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def shared(tmp_path_factory):
    """A folder every account can enter (pytest's own tmp folders are root's only)."""
    folder = Path(tempfile.mkdtemp(prefix="hr-audit-"))
    folder.chmod(0o755)
    yield folder
    if sys.platform == "linux":
        release_append_only(folder)  # else even root cannot remove it
    shutil.rmtree(folder)


def _entries(log: AuditLog, n: int, start: int = 0) -> None:
    for i in range(start, start + n):
        log.record("Ana Cruz", "employee", f"query {i}", True, account="ana")


def _wait(sink: FakeSyslog, n: int) -> None:
    for _ in range(200):
        if len(sink.messages) >= n:
            return
        threading.Event().wait(0.01)
    raise AssertionError(f"{len(sink.messages)} of {n} hashes reached the OS log")


@posix
def test_init_audit_makes_a_log_people_append_to_and_only_its_owner_reads(shared):
    path = shared / "log" / "audit.log"
    done = init_audit_file(path)
    assert path.stat().st_mode & 0o777 == 0o622 and path.parent.stat().st_mode & 0o777 == 0o755
    assert any("mode 622" in line for line in done)
    assert any("append-only" in line for line in done)  # chattr +a, or why not (then audit_head matters)


@pytest.mark.skipif(sys.platform != "linux", reason="chattr is Linux's")
def test_the_tests_leave_an_append_only_log_removable(tmp_path):
    path = tmp_path / "log" / "audit.log"
    done = init_audit_file(path)
    if not any("chattr +a" in line for line in done):
        pytest.skip("this file system (or account) cannot set the append-only flag")
    with pytest.raises(PermissionError):
        path.unlink()  # what had filled CI's disk: pytest could not remove its old folders
    assert release_append_only(tmp_path) == 1
    path.unlink()
    assert release_append_only(tmp_path) == 0


@posix
def test_a_missing_site_log_fails_the_query_instead_of_being_created(shared):
    log = AuditLog(shared / "audit.log", shared=True)
    with pytest.raises(DataFileError, match="does not exist.*init-audit"):
        log.record("Ana Cruz", "employee", "q", True)
    assert not (shared / "audit.log").exists()


@posix
@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root to act as another account")
def test_another_account_appends_without_reading_and_cannot_read_anyones_entries(shared):
    path = shared / "audit.log"
    init_audit_file(path)
    _entries(AuditLog(path, shared=True), 1)  # the owner (IT, root here): chained
    sink = FakeSyslog(shared / "dev-log")
    python = python_for_others()
    if python is None:
        pytest.skip("no Python interpreter the account 'nobody' may run")
    code_dir = code_for_others(["engine/errors.py", "engine/data/audit.py"])
    code = ("from pathlib import Path; from engine.data.audit import AuditLog, AuditHead; "
            f"AuditLog(Path({str(path)!r}), shared=True, head=AuditHead({str(sink.path)!r}))"
            ".record('Li Wei', 'employee', 'my balance', True, account='nobody'); "
            f"open({str(path)!r}).read()")
    run = run_as_nobody(python, code_dir, code)
    assert "PermissionError" in run.stderr and run.stderr.rstrip().endswith(f"'{path}'")  # the read, not the append
    lines = path.read_text().splitlines()
    assert len(lines) == 2 and json.loads(lines[1])["prev"] is None and json.loads(lines[1])["user"] == "Li Wei"
    _wait(sink, 1)
    assert "sha256=" in sink.messages[0] and "account=nobody" in sink.messages[0]
    sink.close()


@posix
def test_the_os_log_names_a_cut_emptied_edited_or_replaced_log(shared, capsys):
    path = shared / "audit.log"
    path.touch(mode=0o622)  # (not init-audit: its append-only flag, where it sticks, would stop the damage below)
    sink = FakeSyslog(shared / "dev-log")
    log = AuditLog(path, shared=True, head=AuditHead(str(sink.path)))
    _entries(log, 6)
    _wait(sink, 6)
    heads = read_heads(sink.export(shared / "heads.txt").read_text())
    assert len(heads) == 6 and verify_audit(path, heads) == (6, "")
    assert main(["admin", "verify-audit", str(path), "--heads", str(shared / "heads.txt")]) == 0
    assert "every one in the OS log" in capsys.readouterr().out
    good = path.read_text().splitlines(keepends=True)

    def damaged(lines):
        path.write_text("".join(lines))
        return verify_audit(path, heads)

    assert damaged(good[:4]) == (4, "entries 5 to 6 of the OS log are missing at the end (2 cut from the tail)")
    assert damaged([]) == (0, "the file is empty, but the OS log holds 6 entries (the file was emptied)")
    assert damaged(good[:2] + good[3:]) == (2, "entries 3 to 3 of the OS log are missing before line 3 (1 removed)")
    edited = good[2].replace("query 2", "query two")
    assert damaged(good[:2] + [edited] + good[3:]) == (2, "line 3 is not in the OS log (inserted, edited, or the "
                                                          "file was replaced)")
    # a whole new chain, well formed (its own prev links hold), written by someone else: not the OS log's
    other = shared / "other.log"
    _entries(AuditLog(other), 6, start=100)
    path.write_bytes(other.read_bytes())
    count, broken = verify_audit(path, heads)
    assert count == 0 and "line 1 is not in the OS log" in broken
    assert verify_audit(path) == (6, "")  # without the OS log's hashes the substitute passes: hence audit_head
    assert damaged(good[1:2] + good[:1] + good[2:]) == (0, "line 1 is out of order against the OS log (entries were moved)")
    sink.close()


@posix
def test_an_os_log_that_cannot_be_reached_fails_the_query(shared):
    path = shared / "audit.log"
    path.touch(mode=0o622)
    log = AuditLog(path, shared=True, head=AuditHead(str(shared / "no-such-socket")))
    with pytest.raises(DataFileError, match="OS log"):
        log.record("Ana Cruz", "employee", "q", True)


def test_heads_are_read_from_journal_and_syslog_exports_and_nothing_else():
    h, g = "ab" * 32, "cd" * 32
    cat = f"sha256={h} account=ana\nsha256={g} account=ana and more\n"
    syslog = (f"Nov 26 04:30:01 host hr-assistant-audit[4242]: sha256={h} account=ana\n"
              f"Nov 26 04:30:02 host other[1]: sha256={g} account=ana\n"
              f"Nov 26 04:30:03 host other[1]: hr-assistant-audit: sha256={g} account=ana\n")
    journal = "\n".join(json.dumps(r) for r in (
        {"SYSLOG_IDENTIFIER": "hr-assistant-audit", "MESSAGE": f"sha256={h} account=root", "_UID": "0"},
        {"SYSLOG_IDENTIFIER": "logger", "MESSAGE": f"sha256={g} account=root", "_UID": "0"},
        {"SYSLOG_IDENTIFIER": "hr-assistant-audit", "MESSAGE": f"x sha256={g} account=root", "_UID": "0"}))
    assert [x.sha256 for x in read_heads(cat)] == [h]  # a message with more in it is not the app's
    assert [(x.sha256, x.claimed) for x in read_heads(syslog)] == [(h, "ana")]  # another program's line is not
    assert [(x.sha256, x.sender) for x in read_heads(journal)] == [(h, "root")]


@posix
def test_with_the_journal_a_hash_counts_only_for_the_account_that_sent_it(shared):
    """Anyone may log a line with the app's tag (logger -t hr-assistant-audit): the journal says who did,
    so a forged entry (or a forged hash) in someone else's name is named."""
    path = shared / "audit.log"
    log = AuditLog(path)
    log.record("Ana Cruz", "employee", "q", True, account="root")
    good = path.read_bytes().splitlines()[0]
    own = _line_hash(good)

    def journal(*records):
        return read_heads("\n".join(json.dumps({"SYSLOG_IDENTIFIER": "hr-assistant-audit", "MESSAGE": m, "_UID": u})
                                     for m, u in records))

    assert verify_audit(path, journal((f"sha256={own} account=root", "0"))) == (1, "")
    count, broken = verify_audit(path, journal((f"sha256={own} account=root", str(65534))))
    assert count == 0 and "says it is root's but was sent by nobody" in broken
    # an entry appended in another's name, with a hash its writer sent under their own name
    path.write_bytes(good + b"\n" + good.replace(b'"account": "root"', b'"account": "nobody"') + b"\n")
    forged = _line_hash(path.read_bytes().splitlines()[1])
    count, broken = verify_audit(path, journal((f"sha256={own} account=root", "0"),
                                               (f"sha256={forged} account=root", "0")))
    assert count == 1 and "written in the name of 'nobody', but its hash was sent by root" in broken



def _wevtutil_export(messages: list[str], provider: str = "hr-assistant-audit") -> str:
    """What ``wevtutil qe Application /q:... /f:xml`` prints: one <Event> per line, oldest first."""
    ns = "http://schemas.microsoft.com/win/2004/08/events/event"
    return "\n".join(
        f"<Event xmlns='{ns}'><System><Provider Name='{provider}'/><EventID Qualifiers='0'>1000</EventID>"
        f"<Level>4</Level><TimeCreated SystemTime='2026-11-26T10:00:0{i % 10}.000Z'/><Computer>WS-17</Computer>"
        f"<Security/></System><EventData><Data>{m}</Data></EventData></Event>" for i, m in enumerate(messages))


@posix
def test_the_windows_event_log_export_is_read_as_the_os_log(shared):
    # (The event log itself exists on Windows only; its export, and what the app writes into it, are the
    # same messages the syslog socket gets, so the chain is checked against it the same way.)
    path = shared / "audit.log"
    path.touch(mode=0o622)
    sink = FakeSyslog(shared / "dev-log")
    _entries(AuditLog(path, shared=True, head=AuditHead(str(sink.path))), 5)
    _wait(sink, 5)
    sent = [m.split(": ", 1)[1] for m in sink.messages]
    assert sent[0] == AuditHead.message(_line_hash(path.read_bytes().splitlines()[0]), "ana")
    export = _wevtutil_export(sent) + "\n" + _wevtutil_export([sent[0]], provider="someone-else")
    heads = read_heads(export)
    assert [h.sha256 for h in heads] == [m.split()[0].removeprefix("sha256=") for m in sent]
    assert all(h.sender is None for h in heads)  # the Application log does not vouch for who wrote an event
    assert verify_audit(path, heads) == (5, "")
    path.write_text("".join(path.read_text().splitlines(keepends=True)[:3]))
    assert verify_audit(path, heads) == (3, "entries 4 to 5 of the OS log are missing at the end (2 cut from the tail)")
    sink.close()


@pytest.mark.skipif(sys.platform == "win32", reason="the event log is there on Windows")
def test_the_event_log_head_off_windows_is_a_clear_error_and_no_answer(shared):
    path = shared / "audit.log"
    path.touch(mode=0o622)
    log = AuditLog(path, shared=True, head=AuditHead(AuditHead.EVENT_LOG))
    with pytest.raises(DataFileError, match="Windows event log") as caught:
        log.record("Ana Cruz", "employee", "q", True)
    assert "Windows only" in caught.value.hint
