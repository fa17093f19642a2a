"""Site settings that IT fixes and users cannot change: ``site.toml``.

The file lives where only administrators can write (``/etc/hr-assistant/site.toml``,
``%ProgramData%\\hr-assistant\\site.toml``, or the installed bundle's own folder).
Where it sets something, a user's settings, environment variables and command-line
options cannot override it. Without a site file the app runs in single-user mode.

A site file that users could have written is refused, not trusted: it could make
anyone HR. On POSIX that means it and every folder above it belong to root and are
writable by nobody else (as OpenSSH's StrictModes checks its files).

Example::

    [site]
    employees = "/srv/hr/employees.csv"      # or [database] below
    policies = "/srv/hr/policies"
    audit = "/var/log/hr-assistant/audit.log"  # IT creates it: hr-assistant admin init-audit
    audit_head = "/dev/log"                   # each entry's hash also to the OS log (verify-audit --heads)
    models = ["/opt/hr-assistant/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"]
    model_url = "https://gpu-host:8443"       # a site inference server instead of a local model
    model_ca = "/etc/hr-assistant/site-ca.pem"  # the CA its TLS certificate is checked against
    require_api_key = true                    # refuse a model server that answers without the key
    allow_plain_http = false                  # true: http:// to another machine is accepted
    identity_column = "username"             # or "email": matched to the OS account
    kiosk = false                            # true: anyone may pick a persona (shared terminals)

    [access]                                 # the access policy (never read from a user folder)
    hr_departments = ["People Operations"]
    hr_only_columns = ["disciplinary_notes"]
    min_group_size = 5

    [columns]                                # what the data's columns mean
    username = "login"

    [settings]                               # any setting, fixed for every user
    n_threads = 4
"""

from __future__ import annotations

import os
import stat
import sys
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from engine.errors import SiteFileError

#: Lets tests and IT staging point at another site file. It is honoured only when no
#: system-wide file exists (so nobody can switch the real one off with it) and only for a
#: file that passes the same administrators-only check.
SITE_ENV = "HR_ASSISTANT_SITE_FILE"

# Site keys that fix a user setting of the same meaning.
_SITE_TO_SETTING = {"employees": "employees_path", "policies": "policies_path", "model": "model_path",
                    "model_url": "model_url"}
# Site keys that, where a site file exists, replace the user setting of the same name even when the site
# leaves them unset: a user setting must never loosen how the site's model server is trusted.
_SITE_ONLY = ("allow_plain_http", "model_ca")


@dataclass
class Site:
    """What the site file fixes. ``path`` is None in single-user mode (no site file)."""

    path: Path | None = None
    employees: str = ""
    policies: str = ""
    audit: str = ""
    audit_head: str = ""  # a syslog socket, or "eventlog" (Windows), each audit entry's hash goes to ("" = none)
    model: str = ""
    model_url: str = ""  # the site's inference server
    model_ca: str = ""  # PEM file of the CA the server's TLS certificate must chain to ("" = the OS's store)
    require_api_key: bool = False  # a server that answers without asking for the API key is refused
    allow_plain_http: bool = False  # http:// to a server that is not this machine is allowed
    models: list[str] = field(default_factory=list)  # allowed model files; empty: any
    identity_column: str = ""  # "" = the user-name column, else the e-mail column
    kiosk: bool = False
    access: dict[str, Any] = field(default_factory=dict)
    columns: dict[str, Any] = field(default_factory=dict)
    settings: dict[str, Any] = field(default_factory=dict)
    database: dict[str, Any] = field(default_factory=dict)

    @property
    def active(self) -> bool:
        return self.path is not None

    def locked(self) -> set[str]:
        """Names of the user settings this site file fixes (the settings dialog shows them locked)."""
        out = {setting for key, setting in _SITE_TO_SETTING.items() if getattr(self, key)}
        if self.database:
            out.add("employees_path")
        if self.active:
            out |= set(_SITE_ONLY)
        return out | set(self.settings)

    def apply(self, settings):
        """``settings`` with every value the site fixes put back, whatever the user set."""
        changes = {setting: getattr(self, key) for key, setting in _SITE_TO_SETTING.items() if getattr(self, key)}
        if self.active:  # how the model server is trusted is the site file's alone, unset or not
            changes.update({name: getattr(self, name) for name in _SITE_ONLY})
        changes.update(self.settings)
        if not changes:
            return settings
        known = {f.name for f in fields(settings)}  # (the settings' own class: the site sits below it)
        unknown = sorted(set(changes) - known)
        if unknown:
            raise SiteFileError(f"The site file {self.path} sets unknown settings: {', '.join(unknown)}.",
                                hint=f"Known settings: {', '.join(sorted(known))}.")
        return settings.replace(**changes)

    def check_override(self, setting: str, value: str | None, option: str) -> None:
        """Refuse a command-line option that tries to change what the site file fixes."""
        if value and setting in self.locked():
            raise SiteFileError(f"{option} cannot be used here: your IT department fixes it in {self.path}.",
                                hint="Ask IT to change the site file if the setting is wrong.")


def system_site_files() -> list[Path]:
    """Where a site file may be, in order (the first that exists wins)."""
    from engine.paths import app_root

    if sys.platform == "win32":
        # From the OS, not %PROGRAMDATA%: a user may set that variable to a folder of their own.
        first = _program_data() / "hr-assistant" / "site.toml"
    else:
        first = Path("/etc/hr-assistant/site.toml")
    out = [first]
    if getattr(sys, "frozen", False):  # the installed bundle's own folder (admin-owned on a managed install)
        out.append(app_root() / "site.toml")
    return out


def _program_data() -> Path:  # pragma: no cover - Windows only
    """%ProgramData% as the OS knows it (SHGetKnownFolderPath), never the environment variable."""
    import ctypes
    import uuid
    from ctypes import wintypes

    class GUID(ctypes.Structure):
        _fields_ = [("data", ctypes.c_byte * 16)]

    folder_id = GUID()
    ctypes.memmove(folder_id.data, uuid.UUID("{62AB5D82-FDC1-4DC3-A9DD-070D1D495D97}").bytes_le, 16)
    out = wintypes.LPWSTR()
    win_dll = getattr(ctypes, "WinDLL")  # (Windows only; looked up so the module type-checks on every OS)
    shell32 = win_dll("shell32")
    ole32 = win_dll("ole32")
    try:
        if shell32.SHGetKnownFolderPath(ctypes.byref(folder_id), 0, None, ctypes.byref(out)) == 0 and out.value:
            return Path(out.value)
    finally:
        ole32.CoTaskMemFree(out)
    return Path(r"C:\ProgramData")


def admin_only_problem(path: Path) -> str:
    """Why ``path`` could have been written by someone other than an administrator ('' if it could not):
    the file and every folder above it, by owner and mode (POSIX) or owner and DACL (Windows)."""
    try:
        target = path.resolve(strict=True)
    except (OSError, RuntimeError) as exc:
        return f"it cannot be resolved ({exc})"
    if sys.platform == "win32":
        # %ProgramData% lets standard users add files and folders: owner and DACL are checked instead.
        from engine.winacl import path_problem as judge
    else:
        judge = _posix_problem
    for p in [target, *target.parents]:
        problem = judge(p, folder=p != target)
        if problem:
            return problem
    return ""


def _posix_problem(p: Path, folder: bool) -> str:
    try:
        st = p.stat()
    except OSError as exc:
        return f"{p} cannot be checked ({exc.strerror})"
    if st.st_uid != 0:
        return f"{p} belongs to user id {st.st_uid}, not to root"
    writable_by_others = st.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    if writable_by_others and not (folder and st.st_mode & stat.S_ISVTX):
        return f"{p} can be written by users other than root"
    return ""


def find_site_file() -> Path | None:
    """The site file in force: the first system place where anything is, else ``$HR_ASSISTANT_SITE_FILE``.

    Fails closed: a dangling link, or a folder the account may not look into, counts as a site file
    (which :func:`load_site` then refuses, naming the path), never as "no site file"; once a system
    place has anything, no variable a user sets is read."""
    for path in system_site_files():
        try:
            os.lstat(path)  # (exists() follows links and says False for a dangling one, or on EACCES)
        except FileNotFoundError:
            continue
        except OSError:
            return path  # cannot look: something may be there
        return path
    override = os.environ.get(SITE_ENV)
    return Path(override) if override else None


def load_site(path: Path | None = None) -> Site:
    """The site settings in force (an inactive :class:`Site` when there is no site file).

    Raises :class:`SiteFileError` when the file is damaged or could have been written by a
    non-administrator: running on guessed site settings could hand out rights.
    """
    path = path if path is not None else find_site_file()
    if path is None:
        return Site()
    problem = admin_only_problem(Path(path))
    if problem:
        raise SiteFileError(f"The site file {path} is not trusted: {problem}.",
                            hint="Only administrators may be able to write the site file and its folders "
                                 "(owner root, mode 644 or stricter). Ask IT to fix its permissions.")
    import copy
    import hashlib
    import tomllib

    try:
        raw = Path(path).read_bytes()
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SiteFileError(f"The site file {path} cannot be read: {exc}.",
                            hint="Ask IT to fix it (UTF-8 TOML). Until then the app does not start, "
                                 "because guessed site settings could show data to the wrong person.") from None
    # Parsed once per process while its bytes stay the same (its trust is checked above every time):
    # every part of the app works from the same site settings.
    key = (str(path), hashlib.sha256(raw).hexdigest())
    if _PARSED.get("key") == key:
        return copy.deepcopy(_PARSED["site"])
    try:
        data = tomllib.loads(text)
    except ValueError as exc:
        raise SiteFileError(f"The site file {path} cannot be read: {exc}.",
                            hint="Ask IT to fix it (UTF-8 TOML). Until then the app does not start, "
                                 "because guessed site settings could show data to the wrong person.") from None
    site = _parse(Path(path), data)
    _PARSED.update(key=key, site=copy.deepcopy(site))
    return site


_PARSED: dict[str, Any] = {}  # the last site file parsed: its stat key and the Site


def _parse(path: Path, data: dict[str, Any]) -> Site:
    def fail(what: str) -> SiteFileError:
        return SiteFileError(f"The site file {path}: {what}.", hint="Ask IT to correct the site file.")

    known_tables = {"site", "access", "columns", "settings", "database"}
    unknown = sorted(set(data) - known_tables)
    if unknown:
        raise fail(f"unknown section {unknown[0]!r} (known: {', '.join(sorted(known_tables))})")
    for table in known_tables:
        if not isinstance(data.get(table, {}), dict):
            raise fail(f"[{table}] must be a table")
    main = data.get("site", {})
    site = Site(path=path, access=data.get("access", {}), columns=data.get("columns", {}),
                settings=data.get("settings", {}), database=data.get("database", {}))
    for key in ("employees", "policies", "audit", "audit_head", "model", "model_url", "model_ca", "identity_column"):
        value = main.get(key, "")
        if not isinstance(value, str):
            raise fail(f"{key} must be a text")
        setattr(site, key, value)
    if site.model_ca and not Path(site.model_ca).is_absolute():
        raise fail(f"model_ca = {site.model_ca!r} must be an absolute path (the site's CA certificate, PEM)")
    for key in ("kiosk", "require_api_key", "allow_plain_http"):
        value = main.get(key, False)
        if not isinstance(value, bool):
            raise fail(f"{key} must be true or false")
        setattr(site, key, value)
    if site.identity_column not in ("", "username", "email"):
        raise fail(f"identity_column = {site.identity_column!r}; use \"username\" or \"email\"")
    models = main.get("models", [])
    if not (isinstance(models, list) and all(isinstance(m, str) for m in models)):
        raise fail("models must be a list of model file paths")
    site.models = models
    unknown_keys = sorted(set(main) - {"employees", "policies", "audit", "audit_head", "model", "model_url", "models",
                                       "model_ca", "require_api_key", "allow_plain_http", "identity_column",
                                       "kiosk"})
    if unknown_keys:
        raise fail(f"unknown key {unknown_keys[0]!r} in [site]")
    if site.database and site.employees:
        raise fail("set either employees or [database], not both")
    for key in _SITE_ONLY:  # one place for how the model server is trusted: the one the app reads
        if key in site.settings:
            raise fail(f"{key} belongs in [site], not in [settings]")
    return site
