"""The audit log of every data query and leave step: who, what, allowed or not, with what data.

A JSON-lines file. Where the person can read it (single-user mode, their own folder), each entry
carries the SHA-256 of the entry before it (``prev``), so an edited, inserted or deleted entry breaks
the chain at that point. A site's shared log is different: IT creates it (``admin init-audit``:
root's, mode 0622, append-only where the file system has it), so people append to it without
reading it, and nobody reads anyone else's entries. Those entries cannot link to the one before
(``prev`` is null); instead, with ``audit_head`` in the site file, every entry's hash also goes to
the OS log (syslog/journald), which the people it records cannot rewrite. ``verify-audit --heads``
compares the file with those hashes and names what was cut, emptied, inserted or replaced.
"""

from __future__ import annotations

import datetime as _dt
import errno
import hashlib
import json
import os
import re
import socket
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.errors import DataFileError

GENESIS = "0" * 64


def _line_hash(line: bytes) -> str:
    return hashlib.sha256(line.rstrip(b"\n")).hexdigest()


#: How long an entry waits for the log's lock before the query fails with a clear message.
LOCK_WAIT = 10

#: The longest audit entry written (a query is at most 600 characters; details are cut to fit). Finding the
#: last entry reads at most twice this from the end, however long a line someone appended by hand.
MAX_ENTRY_BYTES = 16384


def _last_line(fd: int) -> bytes:
    """The last complete line of an open file, from a bounded tail (a 48 MB line appended to the log must
    not make every query read it: the chain breaks there anyway, and verify-audit says so)."""
    end = os.lseek(fd, 0, os.SEEK_END)
    start = max(0, end - 2 * MAX_ENTRY_BYTES)
    os.lseek(fd, start, os.SEEK_SET)
    chunks, left = [], end - start
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    body = b"".join(chunks).rstrip(b"\n")
    cut = body.rfind(b"\n")
    return body[cut + 1:] if cut >= 0 or start == 0 else body


def _bounded(entry: dict) -> bytes:
    """The entry as one JSON line of at most :data:`MAX_ENTRY_BYTES`, its free-text fields cut to fit."""
    line = json.dumps(entry, ensure_ascii=False).encode("utf-8")
    for key in ("detail", "query"):
        if len(line) < MAX_ENTRY_BYTES:
            break
        if isinstance(entry.get(key), str):
            over = len(line) - MAX_ENTRY_BYTES + 64
            text = entry[key].encode("utf-8")[:max(0, len(entry[key].encode("utf-8")) - over)]
            entry[key] = text.decode("utf-8", errors="ignore") + " …(cut)"
            line = json.dumps(entry, ensure_ascii=False).encode("utf-8")
    return line + b"\n"


class _FileLock:
    """An exclusive lock on an open file, across processes (two windows, the CLI). Waited for at most
    ``LOCK_WAIT`` seconds: whoever holds it forever (anyone who may append to a shared log can take it)
    must not stop everyone's questions without a word."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __enter__(self):
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            os.lseek(self.fd, 0, os.SEEK_SET)
            msvcrt.locking(self.fd, msvcrt.LK_LOCK, 1)  # (retries for about 10 s, then raises OSError)
        else:
            import fcntl
            import time

            deadline = time.monotonic() + LOCK_WAIT
            while True:
                try:
                    fcntl.flock(self.fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except BlockingIOError:
                    if time.monotonic() > deadline:
                        raise DataFileError("The audit log is locked by another program and was not released in "
                                            f"{LOCK_WAIT} seconds.",
                                            hint="The query was not answered. Ask IT which process holds the "
                                                 "audit log (fuser or lsof on the file).") from None
                    time.sleep(0.05)
        return self

    def __exit__(self, *exc) -> None:
        if sys.platform == "win32":  # pragma: no cover
            import msvcrt

            os.lseek(self.fd, 0, os.SEEK_SET)
            msvcrt.locking(self.fd, msvcrt.LK_UNLCK, 1)
        else:
            import fcntl

            fcntl.flock(self.fd, fcntl.LOCK_UN)


class AuditHead:
    """Where each entry's hash also goes: the OS log, through a syslog datagram socket (``/dev/log``,
    which journald or rsyslog serve). The OS log keeps it out of reach of the people the audit
    records, so the file cannot be cut, emptied or replaced without ``verify-audit --heads`` seeing it."""

    TAG = "hr-assistant-audit"

    #: ``audit_head`` that names the Windows event log (the Application log, this tag as its source).
    EVENT_LOG = "eventlog"

    def __init__(self, socket_path: str) -> None:
        self.socket_path = socket_path

    @staticmethod
    def message(line_hash: str, account: str) -> str:
        """The message each entry's hash is logged as (what :func:`read_heads` reads back)."""
        return f"sha256={line_hash} account={_one_word(account)}"

    def send(self, line_hash: str, account: str) -> None:
        if self.socket_path == self.EVENT_LOG:
            return _report_event(self.TAG, self.message(line_hash, account))
        # <110>: facility "log audit" (13), severity info (6).
        message = f"<110>{self.TAG}[{os.getpid()}]: {self.message(line_hash, account)}".encode()
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
                sock.settimeout(5)
                sock.sendto(message, self.socket_path)
        except (OSError, AttributeError) as exc:  # AttributeError: no AF_UNIX (Windows)
            raise DataFileError(f"The audit entry's hash could not be sent to the OS log at {self.socket_path} "
                                f"({getattr(exc, 'strerror', None) or exc}).",
                                hint="The query was not answered. Ask IT to check the system log service "
                                     "(audit_head in the site file).") from None


def _report_event(source: str, message: str) -> None:
    """Write ``message`` to the Windows Application event log as ``source`` (advapi32's ReportEventW). A
    standard user can write there and cannot clear it or edit an event (that takes an administrator)."""
    try:
        import ctypes
        from ctypes import wintypes

        advapi32 = ctypes.WinDLL("advapi32", use_last_error=True)  # type: ignore[attr-defined]
        advapi32.RegisterEventSourceW.restype = wintypes.HANDLE
        advapi32.RegisterEventSourceW.argtypes = [wintypes.LPCWSTR, wintypes.LPCWSTR]
        advapi32.ReportEventW.restype = wintypes.BOOL
        advapi32.ReportEventW.argtypes = [wintypes.HANDLE, wintypes.WORD, wintypes.WORD, wintypes.DWORD, ctypes.c_void_p,
                                          wintypes.WORD, wintypes.DWORD, ctypes.POINTER(wintypes.LPCWSTR),
                                          ctypes.c_void_p]
        advapi32.DeregisterEventSource.argtypes = [wintypes.HANDLE]
        handle = advapi32.RegisterEventSourceW(None, source)
        if not handle:
            raise OSError(ctypes.get_last_error(), "RegisterEventSourceW failed")  # type: ignore[attr-defined]
        try:
            strings = (wintypes.LPCWSTR * 1)(message)
            # EVENTLOG_INFORMATION_TYPE (4), category 0, event 1000, no SID (the log's own record of the
            # process says who), one string, no binary data.
            if not advapi32.ReportEventW(handle, 4, 0, 1000, None, 1, 0, strings, None):
                raise OSError(ctypes.get_last_error(), "ReportEventW failed")  # type: ignore[attr-defined]
        finally:
            advapi32.DeregisterEventSource(handle)
    except (OSError, AttributeError, ImportError) as exc:  # AttributeError / ImportError: not Windows
        raise DataFileError(f"The audit entry's hash could not be written to the Windows event log "
                            f"({getattr(exc, 'strerror', None) or exc}).",
                            hint="The query was not answered. audit_head = \"eventlog\" works on Windows only; "
                                 "elsewhere name the syslog socket (\"/dev/log\").") from None


def _one_word(text: str) -> str:
    return re.sub(r"\s+", "_", text or "-")[:100]


class AuditSink(Protocol):
    """Where data queries are recorded: the site's or the user's log file (:class:`AuditLog`), or the
    site database (``engine.data.database.DatabaseAudit``)."""

    def record(self, user: str, role: str, query: str, allowed: bool, detail: str = "", rows: int | None = None,
               *, account: str = "", view_as: str = "") -> None: ...


class AuditLog:
    """Append-only JSON-lines log of every data query: who (the OS account, and the persona
    viewed as), what, allowed or not, and the data and access policy in force.

    ``shared``: a site's log, which IT creates (never the first person to ask) and which may be
    write-only for the people it records; ``head``: an :class:`AuditHead` each entry's hash also
    goes to. An entry that cannot be written (or its hash sent) fails its query: it is not answered.
    """

    _lock = threading.Lock()

    def __init__(self, path: Path, *, data_hash: str = "", policy_hash: str = "", shared: bool = False,
                 head: AuditHead | None = None) -> None:
        self.path = path
        self.data_hash = data_hash
        self.policy_hash = policy_hash
        self.shared = shared
        self.head = head

    def record(self, user: str, role: str, query: str, allowed: bool, detail: str = "", rows: int | None = None,
               *, account: str = "", view_as: str = "") -> None:
        entry: dict[str, Any] = {
            "time": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
            "account": account,
            "user": user,
            "role": role,
        }
        if view_as:
            entry["view_as"] = view_as
        entry.update(query=query, allowed=allowed)
        if detail:
            entry["detail"] = detail
        if rows is not None:
            entry["rows"] = rows
        if self.data_hash:
            entry["data_sha256"] = self.data_hash
        if self.policy_hash:
            entry["policy_sha256"] = self.policy_hash
        with self._lock:
            fd, readable = self._open()
            try:
                if readable:
                    with _FileLock(fd):
                        last = _last_line(fd)
                        entry["prev"] = _line_hash(last) if last else GENESIS
                        line = _bounded(entry)
                        os.write(fd, line)
                else:
                    # Write-only: nothing to read, so no lock to wait for (one O_APPEND write of a bounded
                    # line lands whole); the link to the entry before is the OS log's to keep (AuditHead).
                    entry["prev"] = None
                    line = _bounded(entry)
                    os.write(fd, line)
                if self.head is not None:
                    self.head.send(_line_hash(line), account)
            except OSError as exc:
                raise self._failed(exc) from None
            finally:
                os.close(fd)

    def _open(self) -> tuple[int, bool]:
        """The log opened for appending, and whether it could be read too (for the chain)."""
        try:
            if not self.shared:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            flags = os.O_APPEND | (0 if self.shared else os.O_CREAT)
            try:
                return os.open(self.path, os.O_RDWR | flags, 0o600), True
            except PermissionError:
                return os.open(self.path, os.O_WRONLY | flags, 0o600), False
        except FileNotFoundError:
            raise DataFileError(f"The site's audit log {self.path} does not exist.",
                                hint="The query was not answered. IT creates it: 'hr-assistant admin "
                                     "init-audit' (as an administrator).") from None
        except OSError as exc:
            raise self._failed(exc) from None

    def _failed(self, exc: OSError) -> DataFileError:
        why = "this account may not append to it" if exc.errno in (errno.EACCES, errno.EPERM) else \
            (exc.strerror or str(exc))
        return DataFileError(f"The audit entry could not be written to {self.path}: {why}.",
                             hint="The query was not answered. Ask IT to check the audit log ('hr-assistant "
                                  "self-check' names what is wrong).")


def init_audit_file(path: Path) -> list[str]:
    """Create a site's shared audit log as IT should have it: owned by the account running this
    (an administrator), mode 0622 (everyone appends, only its owner reads), in a folder others can
    enter but not write, and append-only where the file system supports it. Returns what was done."""
    done = []
    folder = path.parent
    if not folder.exists():
        folder.mkdir(parents=True, mode=0o755)
        done.append(f"created {folder} (mode 755)")
    if not path.exists():
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY | os.O_APPEND, 0o622))
        done.append(f"created {path}")
    if sys.platform != "win32":
        os.chmod(path, 0o622)
        done.append(f"{path}: mode 622 (append by anyone, read by its owner only)")
        if _set_append_only(path):
            done.append(f"{path}: append-only (chattr +a)")
        else:
            done.append(f"{path}: the file system cannot make it append-only: keep audit_head in the site file, "
                        "so a cut or rewrite is still found")
    return done


FS_IOC_GETFLAGS, FS_IOC_SETFLAGS, FS_APPEND_FL = 0x80086601, 0x40086602, 0x20  # Linux (chattr)


def _append_flag(path: Path, open_flags: int, *, set_it: bool = False) -> bool | None:
    """Whether the file has Linux's append-only flag (set first with ``set_it``, which needs
    CAP_LINUX_IMMUTABLE); False where the ioctl fails, None where the file cannot be opened."""
    try:
        import array
        import fcntl

        fd = os.open(path, open_flags | getattr(os, "O_NONBLOCK", 0))
    except (ImportError, OSError):
        return None
    try:
        flags = array.array("l", [0])
        fcntl.ioctl(fd, FS_IOC_GETFLAGS, flags, True)
        if set_it:
            flags[0] |= FS_APPEND_FL
            fcntl.ioctl(fd, FS_IOC_SETFLAGS, flags, True)
        return bool(flags[0] & FS_APPEND_FL)
    except OSError:
        return False
    finally:
        os.close(fd)


def _set_append_only(path: Path) -> bool:
    """``chattr +a``; False where that is not possible."""
    return bool(_append_flag(path, os.O_RDONLY, set_it=True))


def audit_file_problems(path: Path) -> list[str]:
    """What about a shared audit file lets the people it records read or rewrite it (POSIX; [] if nothing).

    An audit log others can read shows everyone's leave dates and balances; one they can write but
    that is not append-only (``chattr +a``) can be rewritten whole, which its hash chain cannot stop."""
    import stat

    if sys.platform == "win32":
        return []
    try:
        info = path.stat()
    except FileNotFoundError:
        return [f"{path} does not exist yet, so no data question is answered: IT creates it with "
                "'sudo hr-assistant admin init-audit' (root's, mode 0622, chattr +a)"]
    except OSError as exc:
        return [f"{path} cannot be checked ({exc.strerror})"]
    out = []
    if info.st_mode & (stat.S_IRGRP | stat.S_IROTH):
        out.append(f"{path} can be read by other accounts (mode {stat.S_IMODE(info.st_mode):o}): everyone's "
                   "entries are visible; make it 0622 or 0620")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH) and not _append_only(path):
        out.append(f"{path} can be written by other accounts and is not append-only: an entry can be "
                   "rewritten or cut; run 'chattr +a' on it (Linux) or use the database mode")
    return out


def _append_only(path: Path) -> bool:
    """Whether the file has the append-only attribute (Linux ``chattr +a``; BSD/macOS ``uappnd``)."""
    # Write-only is enough for the ioctl, and is what an account has on the recommended 0622 file.
    flag = _append_flag(path, os.O_WRONLY | os.O_APPEND)
    if flag is None:
        return bool(getattr(path.stat(), "st_flags", 0) & 0x00040004)  # BSD/macOS: UF_APPEND | SF_APPEND
    return flag


def verify_audit(path: Path, heads: list[Head] | None = None) -> tuple[int, str]:
    """Check an audit log: (entries checked, '' or what is wrong).

    Entries written by someone who could read the file link to the one before (``prev``); the first
    broken link is named. Entries appended without reading (a site's write-only log) carry no link:
    with ``heads`` (the entry hashes the OS log kept, in order) every entry must be there, in order,
    and every head must have its entry, so a cut tail, an emptied file, and inserted, edited or
    replaced entries are named with the range that is missing."""
    try:
        raw = path.read_bytes()
    except OSError as exc:
        return 0, f"{path} cannot be read: {exc.strerror}"
    lines = raw.splitlines()
    prev, n = GENESIS, 0
    for n, line in enumerate(lines, 1):
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict):
                raise ValueError
        except ValueError:
            return n - 1, f"line {n} is not an audit entry (damaged or edited)"
        if "prev" not in entry:
            if prev == GENESIS and n == 1:
                return 0, "line 1 has no chain (written before audit chaining; start a new log)"
            return n - 1, f"line {n} has no link to the entry before it (inserted or edited)"
        if entry["prev"] is not None and entry["prev"] != prev and heads is None:
            what = "the first entry does not start the chain (entries before it were removed)" if n == 1 else \
                f"line {n} does not follow line {n - 1} (line {n - 1} was edited, or entries between were removed)"
            return n - 1, what
        prev = _line_hash(line)
    if heads is None:
        return n, ""
    return _against_heads(lines, heads)


@dataclass
class Head:
    """One entry's hash as the OS log kept it: who said they sent it, and who did (journald's ``_UID``)."""

    sha256: str
    claimed: str  # the account= of the message
    sender: str | None = None  # the OS account journald saw send it; None where the export does not say


_MESSAGE = re.compile(r"sha256=([0-9a-f]{64}) account=(\S{1,100})")
#: A syslog line whose tag field (after the time and the host, RFC 3164 or ISO time) is the app's.
_SYSLOG_LINE = re.compile(r"(?:<\d{1,3}>)?(?:(?:[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d|\d{4}-\d\d-\d\dT\S+) \S+ )?"
                          + re.escape(AuditHead.TAG) + r"(?:\[\d+\])?: (sha256=[0-9a-f]{64} account=\S{1,100})")


def read_heads(text: str) -> list[Head]:
    """The entry hashes of an export of the OS log, in order. Best, ``journalctl -t hr-assistant-audit -o
    json``: only records with that identifier count, and each one's sender is the account journald saw
    (``_UID``), which nobody can choose. ``-o cat`` (one message per line) and the tagged lines of a
    syslog file are read too, but do not say who sent a line: anyone can log a line with that tag. A
    line counts only when the whole message is exactly what the app sends."""
    if "<Event" in text and AuditHead.TAG in text:
        return _event_log_heads(text)
    heads: list[Head] = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("{"):
            try:
                record = json.loads(line)
            except ValueError:
                continue
            if not isinstance(record, dict) or record.get("SYSLOG_IDENTIFIER") != AuditHead.TAG:
                continue
            m = _MESSAGE.fullmatch(str(record.get("MESSAGE", "")).strip())
            if m:
                heads.append(Head(m.group(1), m.group(2), _account_of_uid(record.get("_UID"))))
            continue
        body = _SYSLOG_LINE.fullmatch(line)
        m = _MESSAGE.fullmatch(body.group(1) if body else line)
        if m:
            heads.append(Head(m.group(1), m.group(2)))
    return heads


#: One event of a ``wevtutil qe Application /f:xml`` export.
_EVENT = re.compile(r"<Event\b.*?</Event>", re.S)


def _event_log_heads(text: str) -> list[Head]:
    """The entry hashes of a Windows event log export (``wevtutil qe Application /q:"*[System[Provider
    [@Name='hr-assistant-audit']]]" /f:xml``, oldest first): only events of the app's source count. Like a
    syslog file, the Application log does not vouch for who wrote an event, so no sender is given."""
    import xml.etree.ElementTree as ET

    heads: list[Head] = []
    for m in _EVENT.finditer(text):
        try:
            event = ET.fromstring(m.group(0))
        except ET.ParseError:
            continue
        provider = next((e for e in event.iter() if e.tag.rsplit("}", 1)[-1] == "Provider"), None)
        if provider is None or provider.get("Name") != AuditHead.TAG:
            continue
        data = [e.text or "" for e in event.iter() if e.tag.rsplit("}", 1)[-1] == "Data"]
        found = _MESSAGE.fullmatch(data[0].strip()) if len(data) == 1 else None
        if found:
            heads.append(Head(found.group(1), found.group(2)))
    return heads


def _account_of_uid(uid) -> str:
    try:
        import pwd

        return pwd.getpwuid(int(uid)).pw_name
    except (ImportError, KeyError, TypeError, ValueError):
        return f"uid {uid}"


def _against_heads(lines: list[bytes], heads: list[Head]) -> tuple[int, str]:
    """The file's entries beside the OS log's hashes, in order: the first difference, said plainly."""
    import difflib

    found = [_line_hash(line) for line in lines]
    if not heads:
        return len(found), "the OS log holds no audit hashes (wrong export, or audit_head is not set)" if found else ""
    for k, head in enumerate(heads, 1):
        if head.sender is not None and head.sender != head.claimed:
            return 0, (f"hash {k} of the OS log says it is {head.claimed}'s but was sent by {head.sender} "
                       "(a forged hash)")
    hashes = [h.sha256 for h in heads]
    in_file, in_heads = set(found), set(hashes)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, found, hashes, autojunk=False).get_opcodes():
        if tag == "equal":
            continue
        if (tag in ("insert", "replace") and set(hashes[j1:j2]) & in_file) or \
                (tag in ("delete", "replace") and set(found[i1:i2]) & in_heads):
            return i1, f"line {i1 + 1} is out of order against the OS log (entries were moved)"
        if tag in ("delete", "replace"):
            return i1, f"line {i1 + 1} is not in the OS log (inserted, edited, or the file was replaced)"
        if i1 == len(found):
            if not found:
                return 0, f"the file is empty, but the OS log holds {len(hashes)} entries (the file was emptied)"
            return i1, f"entries {j1 + 1} to {j2} of the OS log are missing at the end ({j2 - j1} cut from the tail)"
        return i1, f"entries {j1 + 1} to {j2} of the OS log are missing before line {i1 + 1} ({j2 - j1} removed)"
    # Every entry is the OS log's: each must also be in the name of the account that sent its hash.
    by_hash = {h.sha256: h for h in heads}
    for i, line in enumerate(lines):
        sender = by_hash[found[i]].sender
        try:
            account = json.loads(line).get("account")
        except (ValueError, AttributeError):
            account = None
        if sender is not None and account != sender:
            return i, f"line {i + 1} is written in the name of {account!r}, but its hash was sent by {sender}"
    return len(found), ""


def unlinked_entries(path: Path) -> int:
    """How many entries of a log were appended without reading it (``prev`` null: only the OS log's
    hashes can vouch for them)."""
    count = 0
    for line in path.read_bytes().splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        count += isinstance(entry, dict) and "prev" in entry and entry["prev"] is None
    return count
