"""Structural check of the heldout3 suite. It runs no model and looks at no answer.

Checks: every line is JSON; required fields are present and well typed; ids are unique; every case is
in the test split; relative paths exist; every asker (`user`) can be found in the case's export file.

    python3 benchmarks/heldout3/validate.py
"""
from __future__ import annotations

import csv
import io
import json
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite.jsonl"
ROUTES = {"policy", "policy_me", "policy_calc", "my_data", "my_team", "company", "calculation", "my_calc",
          "small_talk", "multi"}
TOOLS = {"policy_search", "employee_data", "calculator"}
REQUIRED = {"id": str, "split": str, "category": str, "q": (str, list), "user": str, "employees": str,
            "policies": str, "route": str, "today": str}


def read_text(path: Path) -> str:
    raw = path.read_bytes()
    for enc in ("utf-8-sig", "cp1252"):
        try:
            return raw.decode(enc)
        except UnicodeDecodeError:
            continue
    raise ValueError(f"{path} is neither UTF-8 nor Windows-1252")


def fold(s: str) -> str:
    return unicodedata.normalize("NFC", s).casefold().strip()


def names_in(path: Path) -> set[str]:
    """Every 'First Last' that the export holds, however it splits or orders the name."""
    text = read_text(path)
    first_line = text.splitlines()[0]
    delim = ";" if first_line.count(";") > first_line.count(",") else ","
    rows = list(csv.reader(io.StringIO(text), delimiter=delim))
    head = [fold(h) for h in rows[0]]
    out: set[str] = set()

    def col(*cands: str) -> int | None:
        for c in cands:
            if c in head:
                return head.index(c)
        return None

    first = col("prénom", "vorname", "first name", "nombre")
    last = col("nom", "name", "nachname", "last name", "apellidos")
    full = col("employee name", "nom complet", "full name")
    for r in rows[1:]:
        if not r:
            continue
        if first is not None and last is not None:
            out.add(fold(f"{r[first]} {r[last]}"))
        if full is not None:
            v = r[full]
            if "," in v:
                last, f = (x.strip() for x in v.split(",", 1))
                out.add(fold(f"{f} {last}"))
            else:
                out.add(fold(v))
    return out


def main() -> int:
    errors: list[str] = []
    seen: set[str] = set()
    cache: dict[Path, set[str]] = {}
    n = 0
    for lineno, line in enumerate(SUITE.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        n += 1
        where = f"line {lineno}"
        try:
            case = json.loads(line)
        except json.JSONDecodeError as exc:
            errors.append(f"{where}: not JSON ({exc})")
            continue
        for key, typ in REQUIRED.items():
            if key not in case:
                errors.append(f"{where}: missing {key!r}")
            elif not isinstance(case[key], typ):
                errors.append(f"{where}: {key!r} has the wrong type")
        cid = case.get("id", where)
        if cid in seen:
            errors.append(f"{where}: repeated id {cid!r}")
        seen.add(cid)
        if case.get("split") != "test":
            errors.append(f"{cid}: split is not 'test'")
        if case.get("route") not in ROUTES:
            errors.append(f"{cid}: unknown route {case.get('route')!r}")
        if case.get("route") == "multi" and case.get("category") != "multi-part":
            errors.append(f"{cid}: a multi route needs category 'multi-part'")
        if case.get("today") != "2026-11-30":
            errors.append(f"{cid}: today is not 2026-11-30")
        for key in ("expect_any", "expect_all", "forbid"):
            v = case.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                errors.append(f"{cid}: {key!r} must be a list of non-empty strings")
        refusal = case.get("expect_refusal")
        if refusal not in (None, True, False):
            errors.append(f"{cid}: expect_refusal must be true, false or absent")
        if refusal is not True and not (case.get("expect_any") or case.get("expect_all")):
            errors.append(f"{cid}: a non-refusal case needs expect_any or expect_all")
        if refusal is True and not case.get("forbid"):
            errors.append(f"{cid}: a refusal case should forbid the protected value")
        tools = case.get("tools")
        if not isinstance(tools, list) or not set(tools) <= TOOLS:
            errors.append(f"{cid}: tools must be a list drawn from {sorted(TOOLS)}")
        emp = HERE / case.get("employees", "")
        pol = HERE / case.get("policies", "")
        if not emp.is_file():
            errors.append(f"{cid}: employees file {case.get('employees')!r} does not exist")
        if not pol.exists():
            errors.append(f"{cid}: policies path {case.get('policies')!r} does not exist")
        elif pol.is_dir() and not [p for p in pol.iterdir() if p.suffix.lower() in (".md", ".txt", ".docx", ".pdf")]:
            errors.append(f"{cid}: policies folder holds no handbook file")
        if emp.is_file():
            if emp not in cache:
                cache[emp] = names_in(emp)
            if fold(case.get("user", "")) not in cache[emp]:
                errors.append(f"{cid}: user {case.get('user')!r} is not in {case.get('employees')}")
    for emp, names in cache.items():
        if not 15 <= len(names) <= 30:
            errors.append(f"{emp.name}: {len(names)} employees (expected 15-30)")
    if errors:
        print("\n".join(errors))
        print(f"FAILED: {len(errors)} problem(s) in {n} cases")
        return 1
    print(f"OK: {n} cases, {len(cache)} exports, all askers found")
    return 0


if __name__ == "__main__":
    sys.exit(main())
