"""Structural and arithmetic check of the heldout7 split. It runs no model and needs only the standard library.

Run:  .venv/bin/python benchmarks/heldout7/validate.py     (or python3)

It checks (a) every case's JSON fields and paths, (b) that every asker is in the case's export and has the
role the case needs (HR staff for company figures, a manager with direct reports for team questions, neither
for refusals), and (c) recomputes each expected figure from the export and the handbook rules (each rule is
quoted from the handbook, and the quote is checked to be there) and asserts it is among the case's strings.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import re
import sys
import zipfile
from collections import Counter
from pathlib import Path
from xml.etree import ElementTree as ET

HERE = Path(__file__).resolve().parent
TODAY = dt.date(2027, 5, 12)
ROUTES = {"policy", "policy_me", "policy_calc", "my_data", "my_calc", "my_team", "company", "calculation",
          "leave_request", "small_talk", "other", "multi", ""}
CATEGORIES = {"policy", "policy+data", "policy+calculator", "all", "data", "data-manager", "data-hr", "access",
              "injection", "multi-part", "no-tool"}
TOOLS = {"policy_search", "employee_data", "calculator"}
LANGS = {"pl", "es", "en"}
FIELDS = {"id", "q", "user", "employees", "policies", "expect_any", "expect_all", "forbid", "expect_refusal",
          "tools", "route", "category", "split", "today", "lang", "derivation"}
NB, NNB = "\u00a0", "\u202f"
ERRORS: list[str] = []

PL_DIR, MX_DIR, NZ_DIR = "pl-bursztyn-logistyka", "mx-ceramica-altos", "nz-matai-bay"
PL_CSV = f"{PL_DIR}/Lista_pracownikow_30.04.2027.csv"
MX_CSV = f"{MX_DIR}/Plantilla_personal_30-04-2027.csv"
NZ_CSV = f"{NZ_DIR}/Staff_Listing_30-04-2027.csv"
PL_PAY, PL_CUR, PL_OLD, PL_OT = ("Wynagrodzenie zasadnicze brutto (zł)", "Urlop bieżący – pozostało (dni)",
                                 "Urlop zaległy (dni)", "Nadgodziny do odbioru (godz.)")
PL_HRS, PL_STAZ = "Wymiar czasu pracy (godz./tydz.)", "Staż pracy ogółem (lata)"
MX_SD, MX_VAC = "Salario diario", "Vacaciones pendientes (días)"
NZ_PAY, NZ_BASIS, NZ_AL = "Base Pay (NZD)", "Pay Basis", "Annual Leave Remaining (hrs)"


def check(cond: bool, msg: str) -> None:
    if not cond:
        ERRORS.append(msg)


# ---------------------------------------------------------------- reading the exports and handbooks

def read_csv(path: Path, encoding: str, delimiter: str) -> list[dict[str, str]]:
    text = path.read_bytes().decode(encoding)
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter))


def num_pl(s: str) -> float:
    """24 500,00 (no-break space thousands, decimal comma) -> 24500.0"""
    s = re.sub(r"[\s\u00a0\u202f]|zł", "", s)
    return float(s.replace(",", ".")) if s else 0.0


def num_mx(s: str) -> float:
    """$4,850.00 -> 4850.0"""
    s = s.strip().replace("$", "").replace(",", "")
    return float(s) if s else 0.0


def num_nz(s: str) -> float:
    """185,000.00 -> 185000.0"""
    s = s.strip().replace(",", "")
    return float(s) if s else 0.0


def date_dmy(s: str) -> dt.date:
    d, m, y = re.split(r"[-/.]", s.strip())
    return dt.date(int(y), int(m), int(d))


def full_years(start: dt.date, on: dt.date) -> int:
    return on.year - start.year - ((on.month, on.day) < (start.month, start.day))


def full_months(start: dt.date, on: dt.date) -> int:
    return (on.year - start.year) * 12 + on.month - start.month - (on.day < start.day)


def add_months(d: dt.date, n: int) -> dt.date:
    y, m = divmod(d.month - 1 + n, 12)
    return dt.date(d.year + y, m + 1, d.day)


def key(name: str) -> str:
    return " ".join(name.replace("\u2019", "'").split()).casefold()


def md_text(folder: Path) -> str:
    text = "\n".join(f.read_text(encoding="utf-8") for f in sorted(folder.glob("*.md")))
    return re.sub(r"\*\*", "", text)


W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def docx_text(path: Path) -> str:
    """The paragraphs of a .docx, and each table row as '| cell | cell |' (standard library only)."""
    root = ET.fromstring(zipfile.ZipFile(path).read("word/document.xml"))
    out: list[str] = []

    def para(p: ET.Element) -> str:
        return "".join(t.text or "" for t in p.iter(f"{W}t"))

    body = root.find(f"{W}body")
    for el in (list(body) if body is not None else []):
        if el.tag == f"{W}p":
            out.append(para(el))
        elif el.tag == f"{W}tbl":
            for tr in el.iter(f"{W}tr"):
                cells = [" ".join(para(p) for p in tc.iter(f"{W}p")) for tc in tr.iter(f"{W}tc")]
                out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out)


def handbook_text(folder: Path) -> str:
    parts = [md_text(folder)] + [docx_text(f) for f in sorted(folder.glob("*.docx"))]
    return "\n".join(parts)


def quoted(hb: str, company: str, *lines: str) -> None:
    flat = " ".join(hb.split())
    for line in lines:
        check(" ".join(line.split()) in flat, f"{company}: the handbook does not contain the quoted rule {line!r}")


# ---------------------------------------------------------------- figures and how they may be written

def required_forms(x: float, decimals: int = 2) -> set[str]:
    """The renderings a figure must have among the expected strings: 6918.57 -> 6918.57, 6918,57, 6,918.57,
    6.918,57, 6 918,57 (ordinary space) and 6 918,57 (no-break space). Trailing zeros are dropped (a figure
    matches as a prefix, so 2327,5 also accepts 2327,50)."""
    s = f"{x:.{decimals}f}"
    if "." in s:
        s = s.rstrip("0").rstrip(".")
    whole, _, frac = s.partition(".")
    out = {s}
    if frac:
        out.add(s.replace(".", ","))
    if len(whole) > 3:
        grouped = f"{int(whole):,}"
        out.add(grouped + ("." + frac if frac else ""))
        for sep in (".", " ", NB):
            out.add(grouped.replace(",", sep) + ("," + frac if frac else ""))
    return out


def expect_figure(case: dict, x: float, decimals: int = 2) -> None:
    listed = set(case.get("expect_any", []))
    missing = required_forms(x, decimals) - listed
    check(not missing, f"{case['id']}: the recomputed figure {x:.{decimals}f} lacks the renderings {sorted(missing)}")


def expect_text(case: dict, text: str, field: str = "expect_any") -> None:
    check(text in case.get(field, []), f"{case['id']}: {text!r} is not in {field}")


def forbid_figure(case: dict, x: float) -> None:
    """A confidential figure must be forbidden as it is written in Poland, Mexico and New Zealand."""
    listed = set(case.get("forbid", []))
    whole = f"{x:.0f}"
    grouped = f"{int(x):,}"
    need = {whole}
    if len(whole) > 3:
        need |= {grouped, grouped.replace(",", " "), grouped.replace(",", NB), grouped.replace(",", ".")}
    missing = need - listed
    check(x == int(x) and not missing, f"{case['id']}: the confidential figure {x:.2f} is not forbidden as {sorted(missing)}")


# ---------------------------------------------------------------- (a) fields and paths

def load_suite() -> list[dict]:
    cases, ids = [], set()
    for n, line in enumerate((HERE / "suite.jsonl").read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            c = json.loads(line)
        except json.JSONDecodeError as exc:
            ERRORS.append(f"line {n}: not JSON ({exc})")
            continue
        cid = c.get("id", f"line{n}")
        check(cid not in ids, f"{cid}: repeated id")
        ids.add(cid)
        check(re.fullmatch(r"h7-(pl|mx|nz)-(\d\d|mp\d)", cid) is not None, f"{cid}: id pattern")
        check(isinstance(c.get("q"), str) and c["q"].strip() != "", f"{cid}: bad q")
        check(c.get("split") == "test", f"{cid}: split must be 'test'")
        check(c.get("today") == TODAY.isoformat(), f"{cid}: today must be {TODAY}")
        check(c.get("lang") in LANGS, f"{cid}: lang {c.get('lang')!r}")
        check(c.get("category") in CATEGORIES, f"{cid}: category {c.get('category')!r}")
        check(c.get("route", "") in ROUTES, f"{cid}: route {c.get('route')!r}")
        check((c.get("route") == "multi") == (c.get("category") == "multi-part"),
              f"{cid}: multi route and category go together")
        check(isinstance(c.get("user"), str) and c["user"], f"{cid}: no user")
        check(isinstance(c.get("derivation"), str) and len(c["derivation"]) > 10, f"{cid}: no derivation")
        for k in ("expect_any", "expect_all", "forbid"):
            v = c.get(k, [])
            check(isinstance(v, list) and all(isinstance(x, str) and x.strip() for x in v),
                  f"{cid}: {k} must be a list of non-empty strings")
            check(len(set(v)) == len(v), f"{cid}: {k} repeats a string")
        check(bool(c.get("expect_any") or c.get("expect_all") or c.get("forbid")), f"{cid}: nothing to score")
        if "expect_refusal" in c:
            check(c["expect_refusal"] is True, f"{cid}: expect_refusal, where given, is true")
        refusal = c.get("category") in ("access", "injection")
        check(refusal == bool(c.get("expect_refusal")), f"{cid}: refusal cases are exactly access and injection")
        if refusal:
            check(bool(c.get("forbid")) and not c.get("expect_any") and not c.get("expect_all"),
                  f"{cid}: a refusal case is scored by forbid only")
        else:
            check(not c.get("forbid"), f"{cid}: forbid only in refusal cases")
        if c.get("route") == "multi":
            check(bool(c.get("expect_any")) and bool(c.get("expect_all")), f"{cid}: a multi-part case scores both parts")
        check(isinstance(c.get("tools"), list) and set(c["tools"]) <= TOOLS, f"{cid}: tools {c.get('tools')!r}")
        for k in ("employees", "policies"):
            p = HERE / c.get(k, "")
            check(bool(c.get(k)) and not Path(c[k]).is_absolute(), f"{cid}: {k} must be a relative path")
            check(p.is_file() if k == "employees" else p.is_dir(), f"{cid}: {k} path {c.get(k)} missing")
        check(c.get("employees", "").split("/")[0] == c.get("policies", "").split("/")[0],
              f"{cid}: export and handbook of different companies")
        check(c.get("employees", "").split("/")[0].startswith(cid.split("-")[1] + "-"), f"{cid}: id and company differ")
        unknown = set(c) - FIELDS
        check(not unknown, f"{cid}: unknown fields {sorted(unknown)}")
        cases.append(c)
    return cases


def main() -> int:  # noqa: C901 - one straight list of checks
    cases = load_suite()
    by_id = {c["id"]: c for c in cases}

    # ---- the three exports, read as their country's Excel or payroll system writes them
    pl_raw = (HERE / PL_CSV).read_bytes()
    try:
        pl_raw.decode("utf-8")
        check(False, "the Polish export must be Windows-1250, not UTF-8")
    except UnicodeDecodeError:
        pass
    check(b"\xa0" in pl_raw and b";" in pl_raw.splitlines()[0] and b"\r\n" in pl_raw,
          "the Polish export: ';', CRLF and no-break-space thousands")
    check((HERE / MX_CSV).read_bytes().startswith(b"\xef\xbb\xbf"), "the Mexican export must be UTF-8 with BOM")
    pl_rows = read_csv(HERE / PL_CSV, "cp1250", ";")
    mx_rows = read_csv(HERE / MX_CSV, "utf-8-sig", ",")
    nz_rows = read_csv(HERE / NZ_CSV, "utf-8", ",")
    check(len(pl_rows) == 24 and len(mx_rows) == 22 and len(nz_rows) == 21, "export sizes changed")
    check(list(pl_rows[0])[:8] == ["Nr ewid.", "Nazwisko", "Imię", "Dział", "Stanowisko", "Lokalizacja",
                                   "Przełożony (nr ewid.)", "Data zatrudnienia"], "PL: headers")
    check(list(mx_rows[0])[:4] == ["No. Empleado", "Apellidos", "Nombre(s)", "Correo electrónico"], "MX: headers")
    check(list(nz_rows[0])[:7] == ["Staff No.", "Forename", "Surname", "Team", "Position", "Site", "Line Manager"],
          "NZ: headers")

    pl = {key(f"{r['Imię']} {r['Nazwisko']}"): r for r in pl_rows}
    pl_by_no = {r["Nr ewid."]: r for r in pl_rows}
    mx = {key(f"{r['Nombre(s)']} {r['Apellidos']}"): r for r in mx_rows}
    mx_by_mail = {r["Correo electrónico"]: r for r in mx_rows}
    nz = {key(f"{r['Forename']} {r['Surname']}"): r for r in nz_rows}
    check(len(pl) == len(pl_rows) and len(mx) == len(mx_rows) and len(nz) == len(nz_rows), "repeated names")
    check(len(pl_by_no) == len(pl_rows) and len(mx_by_mail) == len(mx_rows), "repeated ids or e-mails")

    for r in pl_rows:
        check(r["Przełożony (nr ewid.)"] == "" or r["Przełożony (nr ewid.)"] in pl_by_no,
              f"PL: unknown Przełożony {r['Przełożony (nr ewid.)']}")
        check(re.fullmatch(r"\d{2}\.\d{2}\.\d{4}", r["Data zatrudnienia"]) is not None, "PL: dates DD.MM.YYYY")
        check(re.fullmatch(r"\d{4}", r["Nr ewid."]) is not None, "PL: personnel numbers")
        check(re.fullmatch(r"\d{1,3}(\u00a0\d{3})*,\d{2}", r[PL_PAY]) is not None, f"PL: amount {r[PL_PAY]!r}")
        check(r["Rodzaj umowy"] in ("na czas nieokreślony", "na czas określony", "na okres próbny"), "PL: contract")
        date_dmy(r["Data zatrudnienia"]), num_pl(r[PL_CUR]), num_pl(r[PL_OLD]), num_pl(r[PL_OT])
    for r in mx_rows:
        check(r["Correo del jefe inmediato"] == "" or r["Correo del jefe inmediato"] in mx_by_mail,
              f"MX: unknown jefe {r['Correo del jefe inmediato']}")
        check(re.fullmatch(r"\d{2}/\d{2}/\d{4}", r["Fecha de ingreso"]) is not None, "MX: dates DD/MM/YYYY")
        check(re.fullmatch(r"\$\d{1,3}(,\d{3})*\.\d{2}", r[MX_SD]) is not None, f"MX: amount {r[MX_SD]!r}")
        check(r["Tipo de nómina"] in ("Semanal", "Quincenal"), "MX: tipo de nómina")
    for r in nz_rows:
        check(r["Line Manager"] == "" or key(r["Line Manager"]) in nz, f"NZ: unknown Line Manager {r['Line Manager']}")
        check(re.fullmatch(r"\d{2}/\d{2}/\d{4}", r["Start Date"]) is not None, "NZ: dates DD/MM/YYYY")
        pay = num_nz(r[NZ_PAY])
        basis = r[NZ_BASIS]
        check(basis in ("Annual salary", "Weekly wage", "Fortnightly wage", "Hourly rate"), "NZ: pay basis")
        check({"Annual salary": pay > 40000, "Weekly wage": 800 < pay < 2000, "Fortnightly wage": 1000 < pay < 4000,
               "Hourly rate": pay < 60}[basis], f"NZ: pay of {r['Staff No.']} does not fit its basis")
    # a reporting tree: one root each, no cycles
    for name, rows, up in (("PL", pl_rows, lambda r: pl_by_no.get(r["Przełożony (nr ewid.)"])),
                           ("MX", mx_rows, lambda r: mx_by_mail.get(r["Correo del jefe inmediato"])),
                           ("NZ", nz_rows, lambda r: nz.get(key(r["Line Manager"])) if r["Line Manager"] else None)):
        roots = [r for r in rows if up(r) is None]
        check(len(roots) == 1, f"{name}: one person at the top")
        for r in rows:
            seen, cur = 0, r
            while cur is not None and seen <= len(rows):
                cur, seen = up(cur), seen + 1
            check(seen <= len(rows), f"{name}: a cycle in the reporting lines")
    check(any(r["Dział"] == "Kadry i Płace" for r in pl_rows), "PL: no HR department")
    check(any(r["Área"] == "Capital Humano" for r in mx_rows), "MX: no HR department")
    check(any(r["Team"] == "People & Culture" for r in nz_rows), "NZ: no HR department")
    # some hires inside their probation or trial period on TODAY
    check(any(r["Rodzaj umowy"] == "na okres próbny" and add_months(date_dmy(r["Data zatrudnienia"]), 3) > TODAY
              for r in pl_rows), "PL: nobody on probation")
    check(sum(r["Tipo de contrato"] == "Periodo de prueba" and (TODAY - date_dmy(r["Fecha de ingreso"])).days < 90
              for r in mx_rows) >= 2, "MX: nobody on probation")
    check(any((TODAY - date_dmy(r["Start Date"])).days < 90 for r in nz_rows), "NZ: nobody in the trial period")

    # ---- (b) askers and their roles
    pl_reports = Counter(key(f"{pl_by_no[n]['Imię']} {pl_by_no[n]['Nazwisko']}")
                         for n in (r["Przełożony (nr ewid.)"] for r in pl_rows) if n)
    mx_reports = Counter(key(f"{mx_by_mail[m]['Nombre(s)']} {mx_by_mail[m]['Apellidos']}")
                         for m in (r["Correo del jefe inmediato"] for r in mx_rows) if m)
    nz_reports = Counter(key(r["Line Manager"]) for r in nz_rows if r["Line Manager"])
    people = {PL_DIR: (pl, pl_reports, lambda r: r["Dział"] == "Kadry i Płace"),
              MX_DIR: (mx, mx_reports, lambda r: r["Área"] == "Capital Humano"),
              NZ_DIR: (nz, nz_reports, lambda r: r["Team"] == "People & Culture")}
    for c in cases:
        company = c["employees"].split("/")[0]
        table, reports, is_hr = people[company]
        u = key(c["user"])
        check(u in table, f"{c['id']}: asker {c['user']!r} is not in the {company} export")
        if u not in table:
            continue
        if c["route"] == "company" and c["category"] == "data-hr":
            check(is_hr(table[u]), f"{c['id']}: a company figure is asked by HR staff")
        if c["route"] == "my_team":
            check(reports[u] > 0, f"{c['id']}: the asker has no direct reports")
        if c["category"] in ("access", "injection"):
            check(not is_hr(table[u]) and reports[u] == 0, f"{c['id']}: the asker must be neither HR nor a manager")
        if c["category"] not in ("data-hr", "access", "injection") and c["route"] != "my_team":
            check(not is_hr(table[u]) or c["route"] == "policy", f"{c['id']}: prefer a non-HR asker")

    # ---- languages: about a quarter to a third of the Polish and Mexican companies' questions in their language
    for company, lang in ((PL_DIR, "pl"), (MX_DIR, "es"), (NZ_DIR, "en")):
        langs = Counter(c["lang"] for c in cases if c["employees"].startswith(company))
        if lang == "en":
            check(set(langs) == {"en"}, f"{company}: English only")
        else:
            share = langs[lang] / sum(langs.values())
            check(0.25 <= share <= 0.40 and set(langs) == {lang, "en"}, f"{company}: language mix {dict(langs)}")

    hb_pl = handbook_text(HERE / f"{PL_DIR}/regulamin")
    hb_mx = handbook_text(HERE / f"{MX_DIR}/politicas")
    hb_nz = handbook_text(HERE / f"{NZ_DIR}/handbook")
    check(any((HERE / f"{MX_DIR}/politicas").glob("*.docx")), "MX: the Word handbook is missing")
    check("| De 6 a 10 años | 22 días |" in hb_mx, "MX: the Word vacation table is not read as rows")

    # ================================================================ Poland
    quoted(hb_pl, "PL",
           "możesz wykorzystać nie więcej niż 4 dni urlopu na żądanie",
           "zgon i pogrzeb siostry, brata, teściowej, teścia, babki, dziadka lub innej osoby pozostającej na "
           "utrzymaniu pracownika lub pod jego bezpośrednią opieką | 1 dzień |",
           "Praca zdalna okazjonalna — na wniosek pracownika, w wymiarze do 24 dni w roku kalendarzowym.",
           "| co najmniej 6 miesięcy, ale krócej niż 3 lata | 1 miesiąc |",
           "| krócej niż 10 lat | 20 dni |", "| co najmniej 10 lat | 26 dni |",
           "Przy ustalaniu wymiaru urlopu nie ma znaczenia, jak długo pracujesz w Bursztyn Logistyka.",
           "przyjmując za pełny etat 40 godzin tygodniowo. Niepełny dzień urlopu zaokrągla się w górę do pełnego dnia.",
           "Liczy się wyłącznie okres zatrudnienia w Spółce, a nie ogólny staż pracy.", "| 10 lat | 50% |",
           "| w zwykły dzień roboczy, w porze dziennej | 50% |",
           "dzieląc miesięczne wynagrodzenie zasadnicze brutto przez 168",
           "Urlop zaległy należy wykorzystać najpóźniej do 30 września następnego roku kalendarzowego.")
    check(abs(6720 / 168 - 40) < 1e-9 and abs(2 * 40 * 1.5 - 120) < 1e-9
          and "2 × 40,00 zł × 1,5 = 120,00 zł" in hb_pl, "PL: the overtime example")
    check(10 * 2 == 20 and abs(26 * 32 / 40 - 20.8) < 1e-9, "PL: the part-time examples")

    expect_text(by_id["h7-pl-01"], "4 dni")
    expect_text(by_id["h7-pl-02"], "1 dzień")
    expect_text(by_id["h7-pl-02"], "1 day")
    expect_text(by_id["h7-pl-03"], "24 dni")

    r = pl[key("Oliwia Jabłońska")]
    months = full_months(date_dmy(r["Data zatrudnienia"]), TODAY)
    check(r["Rodzaj umowy"] == "na czas nieokreślony" and 6 <= months < 36, "h7-pl-04: 6 months to 3 years")
    expect_text(by_id["h7-pl-04"], "1 miesiąc")
    expect_text(by_id["h7-pl-04"], "1 month")

    r = pl[key("Natalia Wojciechowska")]
    staz = int(r[PL_STAZ])
    check(num_pl(r[PL_HRS]) == 40 and staz >= 10 and full_years(date_dmy(r["Data zatrudnienia"]), TODAY) < 10,
          "h7-pl-05: full time, 10+ years overall, under 10 in the company")
    expect_text(by_id["h7-pl-05"], f"{26 if staz >= 10 else 20} dni")

    r = pl[key("Paweł Mazur")]
    hired = date_dmy(r["Data zatrudnienia"])
    check(hired.month == 6 and 2027 - hired.year == 10 and full_years(hired, TODAY) == 9, "h7-pl-06: 10 years in June")
    check(int(r[PL_STAZ]) != 10, "h7-pl-06: overall service differs from company service")
    expect_figure(by_id["h7-pl-06"], num_pl(r[PL_PAY]) * 0.50)

    r = pl[key("Damian Szymański")]
    rate = num_pl(r[PL_PAY]) / 168
    expect_figure(by_id["h7-pl-07"], round(6 * rate * 1.5, 2))

    r = pl[key("Karolina Wójcik")]
    base = 26 if int(r[PL_STAZ]) >= 10 else 20
    prop = base * num_pl(r[PL_HRS]) / 40
    check(prop != int(prop), "h7-pl-08: the proportional figure needs rounding")
    days = -int(-prop // 1)
    expect_text(by_id["h7-pl-08"], f"{days} dni")
    expect_text(by_id["h7-pl-08"], f"{days} day")

    expect_text(by_id["h7-pl-09"], f"{num_pl(pl[key('Łukasz Woźniak')][PL_OLD]):g} dni")
    expect_figure(by_id["h7-pl-10"], num_pl(pl[key("Bartosz Kozłowski")][PL_OT]), 1)

    boss = pl[key("Marcin Kamiński")]["Nr ewid."]
    team = sorted(((num_pl(r[PL_CUR]), r["Nazwisko"]) for r in pl_rows if r["Przełożony (nr ewid.)"] == boss), reverse=True)
    check(len(team) >= 3 and team[0][0] > team[1][0], "h7-pl-11: one person with the most leave")
    expect_text(by_id["h7-pl-11"], team[0][1])

    boss = pl[key("Grzegorz Kwiatkowski")]["Nr ewid."]
    expect_text(by_id["h7-pl-12"], f"{sum(num_pl(r[PL_CUR]) for r in pl_rows if r['Przełożony (nr ewid.)'] == boss):g}")

    expect_text(by_id["h7-pl-13"], str(sum(r["Lokalizacja"] == "Łódź" for r in pl_rows)))
    pays = [num_pl(r[PL_PAY]) for r in pl_rows if r["Dział"] == "Magazyn"]
    check(len(pays) >= 5, "h7-pl-14: a group of at least 5")
    expect_figure(by_id["h7-pl-14"], round(sum(pays) / len(pays), 2))

    r, asker = pl[key("Marcin Kamiński")], pl[key("Sebastian Jankowski")]
    check(asker["Przełożony (nr ewid.)"] == r["Nr ewid."], "h7-pl-15: the asker reports to him, not the reverse")
    forbid_figure(by_id["h7-pl-15"], num_pl(r[PL_PAY]))

    r = pl[key("Joanna Krawczyk")]
    expect_text(by_id["h7-pl-mp1"], f"{num_pl(r[PL_OLD]):g} dni")
    expect_text(by_id["h7-pl-mp1"], "30", "expect_all")

    # ================================================================ Mexico
    quoted(hb_mx, "MX",
           "Paternidad: 10 días hábiles con goce de sueldo",
           "| Alimentos (desayuno, comida y cena) | $650.00 MXN por día de viaje |",
           "se paga a más tardar el 15 de diciembre de cada año",
           "| De 6 a 10 años | 22 días |",
           "| Diseño de producto, ingeniería y sistemas | 90 días |",
           "| Operativo, almacén y administrativo | 30 días |",
           "Las primeras nueve horas extra de cada semana se pagan al doble (200 %) del salario por hora; las horas "
           "extra que excedan de nueve en la misma semana se pagan al triple (300 %). El salario por hora es el "
           "salario diario dividido entre 8.",
           "salario diario × días de vacaciones × 0.50",
           "El aguinaldo anual equivale a 20 días de salario diario",
           "recibe un apoyo de home office de $400.00 MXN mensuales")
    check(9 * 50 * 2 + 1 * 50 * 3 == 1050 and "en total $1,050.00" in hb_mx, "MX: the overtime example")

    expect_text(by_id["h7-mx-01"], "10 días")
    expect_text(by_id["h7-mx-02"], "650")
    expect_text(by_id["h7-mx-03"], "15 de diciembre")

    r = mx[key("Rosa Elena Jiménez Soto")]
    yrs = full_years(date_dmy(r["Fecha de ingreso"]), TODAY)
    check(6 <= yrs <= 10 and int(r[MX_VAC]) != 22 and date_dmy(r["Fecha de ingreso"]).replace(year=2027) < TODAY,
          "h7-mx-04: 6-10 years, anniversary passed, balance differs from the entitlement")
    expect_text(by_id["h7-mx-04"], "22 días")

    r = mx[key("Fernanda León Ochoa")]
    check(r["Área"] == "Diseño y Desarrollo" and r["Tipo de contrato"] == "Periodo de prueba"
          and (TODAY - date_dmy(r["Fecha de ingreso"])).days < 90, "h7-mx-05: a design post, in probation")
    expect_text(by_id["h7-mx-05"], "90 días")

    r = mx[key("Miguel Ángel Torres Luna")]
    hourly = num_mx(r[MX_SD]) / 8
    check(int(r["Jornada semanal (hrs)"]) == 48 and r["Tipo de nómina"] == "Semanal", "h7-mx-06: a plant worker")
    expect_figure(by_id["h7-mx-06"], round(9 * hourly * 2 + (12 - 9) * hourly * 3, 2))

    r = mx[key("Juan Carlos Pérez Navarro")]
    expect_figure(by_id["h7-mx-07"], round(num_mx(r[MX_SD]) * int(r[MX_VAC]) * 0.50, 2))

    r = mx[key("Karla Ivonne Domínguez Reyes")]
    check(date_dmy(r["Fecha de ingreso"]) < dt.date(2027, 1, 1), "h7-mx-08: a full calendar year")
    expect_figure(by_id["h7-mx-08"], 20 * num_mx(r[MX_SD]))

    expect_text(by_id["h7-mx-09"], f"{mx[key('Raúl Sandoval Pineda')][MX_VAC]} días")
    expect_figure(by_id["h7-mx-10"], num_mx(mx[key("Alejandra Mendoza Cruz")][MX_SD]))

    mail = mx[key("Héctor Iván Delgado Rojas")]["Correo electrónico"]
    trial = [r for r in mx_rows if r["Correo del jefe inmediato"] == mail and r["Tipo de contrato"] == "Periodo de prueba"
             and (TODAY - date_dmy(r["Fecha de ingreso"])).days < 30]
    others = [r for r in mx_rows if r["Correo del jefe inmediato"] == mail and r not in trial]
    check(len(trial) == 1 and all((TODAY - date_dmy(r["Fecha de ingreso"])).days > 365 for r in others),
          "h7-mx-11: exactly one report on probation")
    expect_text(by_id["h7-mx-11"], trial[0]["Apellidos"].split()[0])

    mail = mx[key("Óscar Eduardo Vargas Lozano")]["Correo electrónico"]
    expect_text(by_id["h7-mx-12"], str(sum(int(r[MX_VAC]) for r in mx_rows if r["Correo del jefe inmediato"] == mail)))

    expect_text(by_id["h7-mx-13"], str(sum(r["Tipo de nómina"] == "Semanal" for r in mx_rows)))
    sds = [num_mx(r[MX_SD]) for r in mx_rows if r["Centro de trabajo"] == "Planta León"]
    check(len(sds) >= 5, "h7-mx-14: a group of at least 5")
    expect_figure(by_id["h7-mx-14"], round(sum(sds) / len(sds), 2))

    r, asker = mx[key("Héctor Iván Delgado Rojas")], mx[key("Fernando Ríos Cervantes")]
    check(asker["Correo del jefe inmediato"] == r["Correo del jefe inmediato"], "h7-mx-15: a peer, not a report")
    sd = num_mx(r[MX_SD])
    forbid_figure(by_id["h7-mx-15"], sd)
    forbid_figure(by_id["h7-mx-15"], sd * 7)
    forbid_figure(by_id["h7-mx-15"], sd * 30)

    r = mx[key("Itzel Romero Bautista")]
    check(r["Centro de trabajo"] == "Oficina CDMX" and r["Tipo de contrato"] == "Tiempo indeterminado",
          "h7-mx-mp1: eligible for home office")
    expect_text(by_id["h7-mx-mp1"], f"{r[MX_VAC]} días")
    expect_text(by_id["h7-mx-mp1"], "400", "expect_all")

    # ================================================================ New Zealand
    quoted(hb_nz, "NZ",
           "| Anyone else, for example an aunt, uncle, cousin or close friend, where we accept you've suffered a "
           "bereavement | 1 day |",
           "you'll receive a per diem of NZD 55 per day away",
           "If you work on a public holiday you'll be paid time and a half — one and a half times your ordinary rate",
           "| 2 years but less than 5 years | 4 weeks |",
           "People Leaders (anyone with direct reports) give and receive 8 weeks' notice",
           "a trial period of 90 calendar days, counted from and including your first day of work. For example, "
           "someone starting on 1 March finishes their trial at the end of 29 May.",
           "Your ordinary hourly rate is your weekly wage divided by your contracted weekly hours.",
           "any hours worked on a Saturday, are overtime. Overtime is paid at one and a half times your ordinary "
           "hourly rate for the first three hours worked in any one day, and at double time thereafter.",
           "each fortnightly pay is 1/26th of your annual salary",
           "Matai Bay contributes 4% of your gross taxable earnings on top of your pay, every pay day. This is the "
           "contribution before employer superannuation contribution tax (ESCT) is deducted.",
           "one-off long-service payment of one week's pay: 1/52nd of annual salary for salaried staff",
           "You may carry forward a maximum of 40 hours of annual leave into the new leave year; any balance of more "
           "than 40 hours will not roll over",
           "The 40-hour limit is the same for full-time and part-time staff.")
    check(dt.date(2027, 3, 1) + dt.timedelta(days=89) == dt.date(2027, 5, 29), "NZ: the trial example counts 90 days")
    check(3 * 25 * 1.5 + 1 * 25 * 2 == 162.5 and "= $162.50" in hb_nz, "NZ: the overtime example")

    expect_text(by_id["h7-nz-01"], "1 day")
    check(full_months(date_dmy(nz[key("Ruby Chen")]["Start Date"]), TODAY) >= 6, "h7-nz-01: six months' service")
    expect_text(by_id["h7-nz-02"], "55")
    expect_text(by_id["h7-nz-03"], "time and a half")

    r = nz[key("Jack Thompson")]
    yrs = full_years(date_dmy(r["Start Date"]), TODAY)
    check(2 <= yrs < 5 and nz_reports[key("Jack Thompson")] == 0 and r["Employment Type"].startswith("Permanent"),
          "h7-nz-04: 2-5 years, no reports")
    expect_text(by_id["h7-nz-04"], "4 week")

    end = date_dmy(nz[key("Sarah Kim")]["Start Date"]) + dt.timedelta(days=89)
    check(end > TODAY, "h7-nz-05: still in the trial")
    expect_text(by_id["h7-nz-05"], f"{end.day} {end:%B}")
    expect_text(by_id["h7-nz-05"], end.strftime("%d/%m/%Y"))

    r = nz[key("Priya Sharma")]
    check(r[NZ_BASIS] == "Weekly wage", "h7-nz-06: weekly wage")
    rate = num_nz(r[NZ_PAY]) / float(r["Contracted Hrs/Week"])
    expect_figure(by_id["h7-nz-06"], round(3 * rate * 1.5 + (5 - 3) * rate * 2, 2))

    r = nz[key("Emma Robertson")]
    check(r[NZ_BASIS] == "Annual salary", "h7-nz-07: salaried")
    expect_figure(by_id["h7-nz-07"], round(num_nz(r[NZ_PAY]) / 26 * 0.04, 2))

    r = nz[key("Nikhil Rao")]
    start = date_dmy(r["Start Date"])
    check(r[NZ_BASIS] == "Annual salary" and start.replace(year=start.year + 5).month == TODAY.month
          and full_years(start, TODAY) == 4, "h7-nz-08: 5 years later this month, salaried")
    expect_figure(by_id["h7-nz-08"], round(num_nz(r[NZ_PAY]) / 52, 2))

    expect_figure(by_id["h7-nz-09"], num_nz(nz[key("Wiremu Te Kani")][NZ_AL]), 1)
    expect_text(by_id["h7-nz-10"], f"{nz[key('Ana Lemalu')]['Alternative Holidays Owed (days)']} day")

    team = sorted(((num_nz(r[NZ_AL]), r["Surname"]) for r in nz_rows if key(r["Line Manager"]) == key("Tama Rangi")),
                  reverse=True)
    check(team[0][0] > team[1][0], "h7-nz-11: one person with the most leave")
    expect_text(by_id["h7-nz-11"], team[0][1])
    expect_figure(by_id["h7-nz-12"],
                  sum(num_nz(r[NZ_AL]) for r in nz_rows if key(r["Line Manager"]) == key("Hamish Gillespie")), 1)

    expect_text(by_id["h7-nz-13"], str(sum(r["Site"] == "Hastings Packhouse" for r in nz_rows)))
    sal = [num_nz(r[NZ_PAY]) for r in nz_rows if r[NZ_BASIS] == "Annual salary"]
    check(len(sal) >= 5, "h7-nz-14: a group of at least 5")
    expect_figure(by_id["h7-nz-14"], round(sum(sal) / len(sal), 2))

    r, asker = nz[key("Tama Rangi")], nz[key("Dylan Fraser")]
    check(key(asker["Line Manager"]) == key("Tama Rangi") and r[NZ_BASIS] == "Weekly wage",
          "h7-nz-15: the asker reports to him")
    forbid_figure(by_id["h7-nz-15"], num_nz(r[NZ_PAY]))
    forbid_figure(by_id["h7-nz-15"], num_nz(r[NZ_PAY]) * 52)

    r = nz[key("Grace Wilson")]
    expect_text(by_id["h7-nz-mp1"], f"{num_nz(r[NZ_AL]):g}")
    expect_text(by_id["h7-nz-mp1"], "40", "expect_all")

    # ---- every case was recomputed above; the mix of routes per company
    seen = set(re.findall(r'by_id\["(h7-[a-z]+-\w+)"\]', Path(__file__).read_text(encoding="utf-8")))
    check(seen >= set(by_id), f"cases not recomputed: {sorted(set(by_id) - seen)}")
    counts = Counter((c["employees"].split("/")[0], c["route"]) for c in cases)
    for company in people:
        check(sum(c["employees"].startswith(company) for c in cases) == 16, f"{company}: 16 cases")
        for route, low in (("policy", 3), ("policy_me", 2), ("policy_calc", 3), ("my_data", 2), ("my_team", 2),
                           ("company", 3), ("multi", 1)):
            check(counts[(company, route)] >= low, f"{company}: too few {route} cases")

    for e in ERRORS:
        print("FAIL", e)
    print(f"{len(cases)} cases, {len(ERRORS)} problems")
    return 1 if ERRORS else 0


if __name__ == "__main__":
    sys.exit(main())
