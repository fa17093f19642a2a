"""Who is asking: the operating-system account, never a name the user types.

The signed-in person is the OS account the app runs as (on Windows the domain
account), matched to an employee row by the user-name column or by the e-mail
column (the site file's ``identity_column`` chooses). Environment variables such
as ``USER`` are never consulted: anyone can set them.

Acting as another employee (a *persona*) is allowed only

* on the bundled sample company, which is a demo;
* on a site whose site file enables ``kiosk`` mode (shared terminals);
* for HR staff, as "view as" (shown in the window and recorded in the audit log);
* for the evaluation harness in single-user mode (no site file), which plays the
  personas of its test suite over files the user can read anyway.

Everyone else is who the OS says they are, whatever ``--user`` or settings.json claim.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from engine.errors import DataFileError, HRAssistantError, IdentityError
from engine.data.employees import EmployeeTable, normalise_name

if TYPE_CHECKING:
    from engine.data.access import AccessPolicy
    from engine.site import Site


class EmployeeSource(Protocol):
    """What identity needs of the employee-data tool (engine.tools.employee_data, a layer above)."""

    table: EmployeeTable
    policy: AccessPolicy
    demo: bool


def os_account() -> str:
    """The account this process runs as, from the OS itself (``DOMAIN\\user`` on a Windows domain)."""
    if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
        import ctypes

        size = ctypes.c_ulong(0)
        secur32 = ctypes.WinDLL("secur32")
        name_sam_compatible = 2
        secur32.GetUserNameExW(name_sam_compatible, None, ctypes.byref(size))
        if size.value:
            buf = ctypes.create_unicode_buffer(size.value)
            if secur32.GetUserNameExW(name_sam_compatible, buf, ctypes.byref(size)):
                return buf.value
        size = ctypes.c_ulong(257)
        buf = ctypes.create_unicode_buffer(size.value)
        if ctypes.windll.advapi32.GetUserNameW(buf, ctypes.byref(size)):
            return buf.value
        raise IdentityError("Windows did not say which account is signed in.",
                            hint="Sign in to Windows with your own account and start the app again.")
    import pwd

    uid = os.geteuid()
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:  # an account with no passwd entry (some containers): its number is still unique
        return f"uid{uid}"


def account_keys(account: str) -> set[str]:
    """Ways the account may be written in the data: ``CORP\\ana``, ``ana``, ``ana@corp.example``."""
    account = account.strip()
    keys = {normalise_name(account)}
    short = account.rsplit("\\", 1)[-1]
    keys.add(normalise_name(short))
    keys.add(normalise_name(short.split("@", 1)[0]))
    keys.discard("")
    return keys


def find_account_row(table: EmployeeTable, account: str, identity_column: str = "") -> int | None:
    """The row of the OS account: by the user-name column, or by the e-mail column (its local part)."""
    role = identity_column or ("username" if table.role("username") else "email")
    col = table.role(role)
    if not col:
        return None
    keys = account_keys(account)
    matches = []
    for idx, value in table.df[col].items():
        if not isinstance(value, str) or not value.strip():
            continue
        cell = normalise_name(value)
        if role == "email":
            # The whole address (a UPN sign-in) or its part before the @ (the short login).
            hit = cell in keys or cell.split("@", 1)[0] in keys and "@" not in account
        else:
            hit = cell in keys or normalise_name(value.rsplit("\\", 1)[-1]) in keys
        if hit:
            matches.append(int(idx))
    if len(matches) > 1:
        lines = ", ".join(f"line {m + 2}" for m in matches)
        raise DataFileError(f"{len(matches)} employees have the account '{account}' in the column '{col}' ({lines}).",
                            hint="Each account must belong to one employee: ask HR to correct the data.")
    return matches[0] if matches else None


@dataclass(frozen=True)
class Identity:
    """The person the app acts for, and how that was decided."""

    account: str  # the OS account: always the real one
    user: str  # key of the employee row whose view applies ("" = no row: policies and calculator only)
    name: str = ""  # that employee's name, for display
    how: str = "os"  # "os", "demo", "kiosk", "view-as" or "eval"
    view_as: str = ""  # the persona, when someone acts as another employee
    notice: str = ""  # said to the person (e.g. why employee data is unavailable)
    can_choose: bool = False  # may this account pick a persona (demo, kiosk, HR's "view as")?


def _row_key(table: EmployeeTable, row: int) -> str:
    """A key that finds exactly this row again, whatever the other rows hold."""
    from engine.data.access import ROW_KEY

    return f"{ROW_KEY}{row}"


def resolve_identity(data_tool: EmployeeSource, requested: str = "", *, site: Site | None = None,
                     personas: bool = False,
                     account: str | None = None) -> Identity:
    """Decide whose view of the employee data applies.

    ``requested`` is a persona asked for (``--user``, the sign-in picker); ``personas``
    is the evaluation harness's request to play its suite's personas. Raises
    :class:`IdentityError` when this account may not act as someone else.
    """
    from engine.data.access import find_user_row, make_viewer
    from engine.site import Site

    site = site or Site()
    account = account or os_account()
    table = data_tool.table
    own = find_account_row(table, account, site.identity_column)
    own_key = _row_key(table, own) if own is not None else ""
    name_col = table.role("name")
    own_name = str(table.df.at[own, name_col]) if own is not None and name_col else own_key
    own_is_hr = own is not None and make_viewer(table, own_key, data_tool.policy).role == "hr"
    choose = bool(data_tool.demo or site.kiosk or own_is_hr or (personas and not site.active))
    requested = (requested or "").strip()
    row, unclear = None, None
    if requested:
        try:
            row = find_user_row(table, requested)
        except HRAssistantError as exc:  # two people of that name: said below, to those who may choose
            unclear = exc
        if own is not None and row == own:
            requested = ""  # asking to be yourself
    if requested:
        how = ""
        if data_tool.demo:
            how = "demo"
        elif site.kiosk:
            how = "kiosk"
        elif personas and not site.active:
            how = "eval"
        elif own_is_hr:
            how = "view-as"
        if not how:
            raise IdentityError(
                f"You are signed in as {own_name or account}; only HR staff can view the assistant as another "
                "employee.", hint="The assistant always answers as the account you signed in to the computer with.")
        # Only now, to someone who may choose, whether the name exists: anyone else gets the same answer for a
        # colleague's name and a made-up one, so --user is no way to find out who works here.
        if unclear is not None:
            raise unclear
        if row is None and how == "view-as":
            raise IdentityError(f"There is no employee '{requested}' in the employee data.",
                                hint="Check the spelling; the employee id or e-mail address also works.")
        viewer = make_viewer(table, requested, data_tool.policy)
        return Identity(account=account, user=requested, name=viewer.name, how=how,
                        view_as=viewer.name if how == "view-as" else "", can_choose=True)
    if own is not None:
        return Identity(account=account, user=own_key, name=own_name, how="os", can_choose=choose)
    column = site.identity_column or ("username" if table.role("username") else "email")
    notice = (f"Your account '{account}' is not in the employee data (matched by its {column} column), so the "
              "assistant answers from the policies and the calculator only. Ask HR to add your account.")
    if not table.role(column):
        notice = (f"The employee data has no {column} column to match your account '{account}' with, so the "
                  "assistant answers from the policies and the calculator only.")
    return Identity(account=account, user="", name=account, how="demo" if data_tool.demo else "os", notice=notice,
                    can_choose=choose)
