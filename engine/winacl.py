"""Who may write a file on Windows, read from its security descriptor (SDDL).

The site file decides who sees what, so on Windows it is trusted only when the file and every
folder above it are owned by administrators (or SYSTEM, or TrustedInstaller) and no access entry
lets anyone else write, add files, delete, or change the owner or the permissions. ``%ProgramData%``
itself lets standard users create files and folders (``(A;CI;DCLCRPCR;;;BU)``), so a user could
plant ``hr-assistant\\site.toml`` where IT has not made that folder: the check catches it.

The decision is a function of the SDDL string (:func:`sddl_problem`), tested on every OS; reading
the SDDL of a path (:func:`path_sddl`) needs Windows.
"""

from __future__ import annotations

import re
from pathlib import Path

#: Accounts that may own or write the site file: Administrators, SYSTEM, TrustedInstaller.
TRUSTED = {"BA", "SY", "S-1-5-32-544", "S-1-5-18",
           "S-1-5-80-956008885-3418522649-1831038044-1853292631-2271478464"}
_NAMES = {"BA": "Administrators", "SY": "SYSTEM", "BU": "Users", "AU": "Authenticated Users", "WD": "Everyone",
          "IU": "Interactive users", "CO": "CREATOR OWNER", "PU": "Power Users", "DU": "Domain Users"}
#: Rights letters (SDDL's short forms; file rights use the directory-service letters for the low bits).
_RIGHTS = {"GA": 0x10000000, "GW": 0x40000000, "GR": 0x80000000, "GX": 0x20000000,
           "FA": 0x1F01FF, "FW": 0x120116, "FR": 0x120089, "FX": 0x1200A0,
           "SD": 0x10000, "RC": 0x20000, "WD": 0x40000, "WO": 0x80000,
           "CC": 0x1, "DC": 0x2, "LC": 0x4, "SW": 0x8, "RP": 0x10, "WP": 0x20, "DT": 0x40, "LO": 0x80, "CR": 0x100,
           "KA": 0xF003F, "KW": 0x20006, "KR": 0x20019, "KX": 0x20019}
#: On the file: write data (0x2), append (0x4), delete a child (0x40), delete (0x10000), change the
#: permissions (0x40000) or the owner (0x80000), generic all or write.
WRITE_BITS = 0x2 | 0x4 | 0x40 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000
#: On a folder above it: what lets someone replace the next part of the path (delete a child, delete the
#: folder, change its permissions or owner, generic all/write). Adding files or folders does not: C:\
#: lets Authenticated Users add folders and %ProgramData% lets Users add files, as shipped.
REPLACE_BITS = 0x40 | 0x10000 | 0x40000 | 0x80000 | 0x10000000 | 0x40000000
_DENY_TYPES = {"D", "OD", "XD", "AU", "OU", "AL", "OL", "ML", "SP"}  # deny, audit, alarm, label, policy: grant nothing


def _who(sid: str) -> str:
    return _NAMES.get(sid, sid)


def rights_mask(text: str) -> int:
    """An SDDL rights field ("FA", "DCLCRPCR", "0x1200a9") as an access mask; unknown letters count as all."""
    text = text.strip()
    if text.lower().startswith("0x"):
        return int(text, 16)
    mask = 0
    for i in range(0, len(text), 2):
        mask |= _RIGHTS.get(text[i:i + 2], 0xFFFFFFFF)
    return mask


def _aces(dacl: str) -> list[str]:
    """The access entries of a DACL string, split at parentheses of depth 0 (a conditional entry holds
    parentheses of its own)."""
    out, depth, start = [], 0, -1
    for i, ch in enumerate(dacl):
        if ch == "(":
            depth += 1
            if depth == 1:
                start = i + 1
        elif ch == ")":
            depth -= 1
            if depth == 0 and start >= 0:
                out.append(dacl[start:i])
    return out


def sddl_problem(sddl: str, what: str = "it", folder: bool = False) -> str:
    """Why a file (or, with ``folder``, a folder above it) with this security descriptor could be written
    or replaced by a non-administrator ('' if it could not). Fails closed: no owner, no DACL (NULL DACL:
    everyone may write), an entry that cannot be read, or an entry type it does not know that grants."""
    owner = re.search(r"O:([A-Z]{2}|S-[0-9-]+)", sddl)
    if not owner:
        return f"{what} has no owner that can be read"
    if owner.group(1) not in TRUSTED:
        return f"{what} belongs to {_who(owner.group(1))}, not to the administrators"
    dacl = re.search(r"D:([A-Z]*)(.*?)(?:S:|$)", sddl)
    if not dacl or "NO_ACCESS_CONTROL" in sddl:  # (an empty DACL lets nobody in; a missing one, everybody)
        return f"{what} has no access list (everyone may write it)"
    mask = REPLACE_BITS if folder else WRITE_BITS
    for ace in _aces(dacl.group(2)):
        fields = ace.split(";")
        if len(fields) < 6:
            return f"{what} has an access entry that cannot be read ({ace})"
        kind, flags, rights, sid = fields[0], fields[1], fields[2], fields[5]
        if kind in _DENY_TYPES or "IO" in re.findall(r"..", flags):
            continue  # grants nothing, or applies only to what is created inside
        if sid in TRUSTED or (sid == "OW"):
            continue
        if rights_mask(rights) & mask:
            return f"{what} can be written by {_who(sid)} ({rights})"
    return ""


def path_sddl(path: Path) -> str:  # pragma: no cover - Windows only
    """The owner and DACL of ``path`` as an SDDL string (Windows)."""
    import ctypes
    from ctypes import wintypes

    # (ctypes' Windows names, looked up so that the module type-checks on every OS)
    win_dll, format_error, last_error = (getattr(ctypes, n) for n in ("WinDLL", "FormatError", "get_last_error"))
    advapi = win_dll("advapi32", use_last_error=True)
    kernel = win_dll("kernel32", use_last_error=True)
    OWNER, DACL, SE_FILE_OBJECT = 0x1, 0x4, 1
    sd = ctypes.c_void_p()
    err = advapi.GetNamedSecurityInfoW(ctypes.c_wchar_p(str(path)), SE_FILE_OBJECT, OWNER | DACL, None, None,
                                       None, None, ctypes.byref(sd))
    if err:
        raise OSError(err, format_error(err), str(path))
    text = wintypes.LPWSTR()
    try:
        if not advapi.ConvertSecurityDescriptorToStringSecurityDescriptorW(sd, 1, OWNER | DACL, ctypes.byref(text),
                                                                           None):
            code = last_error()
            raise OSError(code, format_error(code), str(path))
        value = text.value or ""
        kernel.LocalFree(text)
        return value
    finally:
        kernel.LocalFree(sd)


def path_problem(path: Path, folder: bool) -> str:  # pragma: no cover - Windows only
    """Why the file (or a folder above it) at ``path`` could be written or replaced by a non-administrator."""
    try:
        return sddl_problem(path_sddl(path), str(path), folder=folder)
    except OSError as exc:
        return f"{path} cannot be checked ({exc})"
