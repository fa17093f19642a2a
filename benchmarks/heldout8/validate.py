"""Structural and arithmetic check of the heldout8 split. It runs no model and needs only the standard library.

Run:  .venv/bin/python benchmarks/heldout8/validate.py     (or python3)

It checks (a) every case's JSON fields and paths, (b) the three exports as each country's Excel or HR system writes
them, and that every asker is in the case's export with the role the case needs (HR staff for company figures, a
manager with direct reports for team questions, neither for refusals), and (c) recomputes each expected figure from
the export and the handbook rules (each rule is quoted from the handbook, and the quote is checked to be there; the
Word document is read with the standard library) and asserts it is among the case's strings.
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
TODAY = dt.date(2027, 6, 15)
ROUTES = {"policy", "policy_me", "policy_calc", "my_data", "my_calc", "my_team", "company", "calculation",
          "leave_request", "small_talk", "other", "multi", ""}
CATEGORIES = {"policy", "policy+data", "policy+calculator", "all", "data", "data-manager", "data-hr", "access",
              "injection", "multi-part", "no-tool"}
TOOLS = {"policy_search", "employee_data", "calculator"}
LANGS = {"it", "pt", "en"}
FIELDS = {"id", "q", "user", "employees", "policies", "expect_any", "expect_all", "forbid", "expect_refusal",
          "tools", "route", "category", "split", "today", "lang", "derivation"}
NB = "\u00a0"
ERRORS: list[str] = []

IT_DIR, SC_DIR, BR_DIR = "it-tessitura-borgonovi", "sc-cairnmore-print", "br-araucaria-embalagens"
IT_CSV = f"{IT_DIR}/Anagrafica_dipendenti_31-05-2027.csv"
SC_CSV = f"{SC_DIR}/Staff_List_31-05-2027.csv"
BR_CSV = f"{BR_DIR}/Colaboradores_31-05-2027.csv"
IT_PAY, IT_HRS, IT_FERIE, IT_ROL = ("Retribuzione lorda annua (EUR)", "Ore settimanali", "Ferie residue (giorni)",
                                    "Permessi ROL residui (ore)")
SC_SAL, SC_RATE, SC_HRS, SC_AL, SC_TOIL = ("Annual Salary (GBP)", "Hourly Rate (GBP)", "Contracted Hours",
                                           "Annual Leave Balance (hrs)", "TOIL Balance (hrs)")
BR_PAY, BR_HRS, BR_FER, BR_BH = ("Salário mensal", "Jornada semanal (horas)", "Saldo de férias (dias)",
                                 "Banco de horas (horas)")


def check(cond: bool, msg: str) -> None:
    if not cond:
        ERRORS.append(msg)


# ---------------------------------------------------------------- reading the exports and handbooks

def read_csv(path: Path, encoding: str, delimiter: str) -> list[dict[str, str]]:
    text = path.read_bytes().decode(encoding)
    return list(csv.DictReader(io.StringIO(text, newline=""), delimiter=delimiter))


def num_it(s: str) -> float:
    """30.275,00 (dot thousands, decimal comma) -> 30275.0; 11,5 -> 11.5; empty -> 0"""
    s = s.strip().replace(".", "").replace(",", ".")
    return float(s) if s else 0.0


def num_sc(s: str) -> float:
    """£96,000.00 -> 96000.0"""
    s = s.strip().replace("£", "").replace(",", "")
    return float(s) if s else 0.0


def num_br(s: str) -> float:
    """R$ 3.520,00 -> 3520.0; -6,5 -> -6.5; empty -> 0"""
    s = s.strip().replace("R$", "").strip().replace(".", "").replace(",", ".")
    return float(s) if s else 0.0


def date_dmy(s: str) -> dt.date:
    d, m, y = re.split(r"[-/.]", s.strip())
    return dt.date(int(y), int(m), int(d))


def full_years(start: dt.date, on: dt.date) -> int:
    return on.year - start.year - ((on.month, on.day) < (start.month, start.day))


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

def money(x: float) -> float:
    """Rounded to cents (half up, with a guard against binary fractions such as 67.849999...)."""
    return round(x + 1e-9, 2)


def required_forms(x: float, decimals: int = 2) -> set[str]:
    """The renderings a figure must have among the expected strings: 1466.67 -> 1466.67, 1466,67, 1,466.67,
    1.466,67, 1 466,67 (ordinary space) and 1 466,67 (no-break space). Trailing zeros are dropped (a figure
    matches as a prefix, so 93,75 also accepts 93,750)."""
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
    """A confidential figure must be forbidden as it is written in Italy, Scotland and Brazil."""
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
        check(re.fullmatch(r"h8-(it|sc|br)-(\d\d|mp\d)", cid) is not None, f"{cid}: id pattern")
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

    # ================================================================ (b) the three exports
    it_raw = (HERE / IT_CSV).read_bytes()
    try:
        it_raw.decode("utf-8")
        check(False, "the Italian export must be Windows-1252, not UTF-8")
    except UnicodeDecodeError:
        pass
    check(b";" in it_raw.splitlines()[0] and b"\r\n" in it_raw, "the Italian export: ';' and CRLF")
    sc_raw = (HERE / SC_CSV).read_bytes()
    check(not sc_raw.startswith(b"\xef\xbb\xbf") and b"\r\n" in sc_raw, "the Scottish export: UTF-8 without BOM, CRLF")
    br_raw = (HERE / BR_CSV).read_bytes()
    check(br_raw.startswith(b"\xef\xbb\xbf") and b";" in br_raw.splitlines()[0], "the Brazilian export: UTF-8 BOM, ';'")
    it_rows = read_csv(HERE / IT_CSV, "cp1252", ";")
    sc_rows = read_csv(HERE / SC_CSV, "utf-8", ",")
    br_rows = read_csv(HERE / BR_CSV, "utf-8-sig", ";")
    check(len(it_rows) == 28 and len(sc_rows) == 26 and len(br_rows) == 26, "export sizes changed")
    check(list(it_rows[0]) == ["Matricola", "Cognome", "Nome", "Qualifica", "Mansione", "Reparto", "Sede", "Responsabile",
                               "Data assunzione", "Tipo contratto", IT_HRS, IT_PAY, IT_FERIE, IT_ROL, "Stato"], "IT: headers")
    check(list(sc_rows[0]) == ["Employee No", "Full Name", "Job Title", "Department", "Location", "Reports To",
                               "Start Date", "Contract", SC_HRS, SC_SAL, SC_RATE, "Pay Frequency", SC_AL, SC_TOIL,
                               "Status"], "SC: headers")
    check(list(br_rows[0]) == ["Matrícula", "Nome completo", "Cargo", "Área", "Unidade", "E-mail", "Gestor",
                               "Data de admissão", "Tipo de contrato", BR_HRS, BR_PAY, BR_FER, BR_BH, "Situação"],
          "BR: headers")

    def sc_name(r: dict) -> str:
        surname, forename = r["Full Name"].split(", ")
        return f"{forename} {surname}"

    it = {key(f"{r['Nome']} {r['Cognome']}"): r for r in it_rows}
    it_by_no = {r["Matricola"]: r for r in it_rows}
    sc = {key(sc_name(r)): r for r in sc_rows}
    br = {key(r["Nome completo"]): r for r in br_rows}
    br_by_mail = {r["E-mail"]: r for r in br_rows}
    check(len(it) == len(it_rows) and len(sc) == len(sc_rows) and len(br) == len(br_rows), "repeated names")
    check(len(it_by_no) == len(it_rows) and len(br_by_mail) == len(br_rows), "repeated ids or e-mails")
    check(len({r["Employee No"] for r in sc_rows}) == len(sc_rows), "SC: repeated employee numbers")

    for r in it_rows:
        check(re.fullmatch(r"\d{6}", r["Matricola"]) is not None, f"IT: matricola {r['Matricola']}")
        check(r["Responsabile"] == "" or r["Responsabile"] in it_by_no, f"IT: unknown Responsabile {r['Responsabile']}")
        check(re.fullmatch(r"\d{2}/\d{2}/\d{4}", r["Data assunzione"]) is not None, "IT: dates DD/MM/YYYY")
        check(re.fullmatch(r"\d{1,3}(\.\d{3})*,\d{2}", r[IT_PAY]) is not None, f"IT: amount {r[IT_PAY]!r}")
        check(r["Qualifica"] in ("Operaio", "Impiegato", "Quadro", "Dirigente"), "IT: qualifica")
        check(r["Tipo contratto"] in ("Tempo indeterminato", "Tempo determinato"), "IT: tipo contratto")
        check(r["Stato"] in ("In servizio", "Congedo parentale", "Cessato"), "IT: stato")
        for col in (IT_FERIE, IT_ROL):
            check(re.fullmatch(r"(\d+(,\d+)?)?", r[col]) is not None, f"IT: {col} {r[col]!r}")
        date_dmy(r["Data assunzione"])
    for r in sc_rows:
        check(re.fullmatch(r"CPP\d{4}", r["Employee No"]) is not None, "SC: employee numbers")
        check(re.fullmatch(r"[^,]+, [^,]+", r["Full Name"]) is not None, f"SC: 'Surname, Forename' {r['Full Name']!r}")
        check(r["Reports To"] == "" or key(r["Reports To"]) in sc, f"SC: unknown Reports To {r['Reports To']}")
        check(re.fullmatch(r"\d{2}/\d{2}/\d{4}", r["Start Date"]) is not None, "SC: dates DD/MM/YYYY")
        check(r["Contract"] in ("Permanent", "Fixed-term", "Part-time"), "SC: contract")
        check(r["Pay Frequency"] in ("Weekly", "Fortnightly", "Monthly"), "SC: pay frequency")
        check(r["Status"] in ("Active", "Maternity Leave"), "SC: status")
        sal, rate = r[SC_SAL], r[SC_RATE]
        check((sal == "") != (rate == ""), f"SC: {r['Employee No']} has exactly one of salary and hourly rate")
        check(sal == "" or re.fullmatch(r"£\d{1,3}(,\d{3})*\.\d{2}", sal) is not None, f"SC: salary {sal!r}")
        check(rate == "" or re.fullmatch(r"£\d+\.\d{2}", rate) is not None, f"SC: rate {rate!r}")
        check((sal != "") == (r["Pay Frequency"] == "Monthly"), f"SC: {r['Employee No']}: salaried staff are paid monthly")
        check((r["Contract"] == "Part-time") == (float(r[SC_HRS]) < 37.5), f"SC: {r['Employee No']}: part-time hours")
    for r in br_rows:
        check(re.fullmatch(r"\d{4}", r["Matrícula"]) is not None, "BR: matrículas")
        check(r["Gestor"] == "" or r["Gestor"] in br_by_mail, f"BR: unknown Gestor {r['Gestor']}")
        check(re.fullmatch(r"\d{2}/\d{2}/\d{4}", r["Data de admissão"]) is not None, "BR: dates DD/MM/YYYY")
        check(re.fullmatch(r"R\$ \d{1,3}(\.\d{3})*,\d{2}", r[BR_PAY]) is not None, f"BR: amount {r[BR_PAY]!r}")
        check(re.fullmatch(r"(-?\d+,\d)?", r[BR_BH]) is not None, f"BR: banco de horas {r[BR_BH]!r}")
        check(r["Situação"] in ("Ativo", "Afastado", "Férias"), "BR: situação")
        check(int(r[BR_HRS]) in (44, 40, 30), "BR: jornada")
    # a reporting tree each: one root, no cycles
    for name, rows, up in (("IT", it_rows, lambda r: it_by_no.get(r["Responsabile"])),
                           ("SC", sc_rows, lambda r: sc.get(key(r["Reports To"])) if r["Reports To"] else None),
                           ("BR", br_rows, lambda r: br_by_mail.get(r["Gestor"]))):
        roots = [r for r in rows if up(r) is None]
        check(len(roots) == 1, f"{name}: one person at the top")
        for r in rows:
            seen, cur = 0, r
            while cur is not None and seen <= len(rows):
                cur, seen = up(cur), seen + 1
            check(seen <= len(rows), f"{name}: a cycle in the reporting lines")
    # the tricky values the split is meant to have
    check(any(r["Stato"] == "Congedo parentale" for r in it_rows) and any(r["Stato"] == "Cessato" for r in it_rows),
          "IT: someone on parental leave and someone who has left")
    check(any(r[IT_ROL] == "" for r in it_rows) and any(num_it(r[IT_HRS]) < 40 for r in it_rows), "IT: an empty cell, a part-timer")
    check("D'Angelo" in {r["Cognome"] for r in it_rows} and any("ò" in r["Nome"] for r in it_rows), "IT: D'Angelo, an accent")
    check(any(r["Status"] == "Maternity Leave" for r in sc_rows) and any("'" in r["Full Name"] for r in sc_rows)
          and any("ë" in r["Full Name"] for r in sc_rows), "SC: family leave, O'Neill, Chloë")
    check(any(r[BR_BH] == "" for r in br_rows) and any(num_br(r[BR_BH]) < 0 for r in br_rows)
          and any(r["Situação"] == "Afastado" for r in br_rows), "BR: an empty, a negative balance, an afastado")
    check(any("Conceição" in r["Nome completo"] for r in br_rows) and any("D'Ávila" in r["Nome completo"] for r in br_rows),
          "BR: Conceição and D'Ávila")
    check(any(r["Reparto"] == "Risorse Umane" for r in it_rows), "IT: no HR department")
    check(any(r["Department"] == "HR" for r in sc_rows), "SC: no HR department")
    check(any(r["Área"] == "Recursos Humanos" for r in br_rows), "BR: no HR department")

    # ---- askers and their roles
    it_reports = Counter(key(f"{it_by_no[n]['Nome']} {it_by_no[n]['Cognome']}") for n in (r["Responsabile"] for r in it_rows) if n)
    sc_reports = Counter(key(r["Reports To"]) for r in sc_rows if r["Reports To"])
    br_reports = Counter(key(br_by_mail[m]["Nome completo"]) for m in (r["Gestor"] for r in br_rows) if m)
    people = {IT_DIR: (it, it_reports, lambda r: r["Reparto"] == "Risorse Umane"),
              SC_DIR: (sc, sc_reports, lambda r: r["Department"] == "HR"),
              BR_DIR: (br, br_reports, lambda r: r["Área"] == "Recursos Humanos")}
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
            check(not is_hr(table[u]), f"{c['id']}: prefer a non-HR asker")
        status = table[u].get("Stato") or table[u].get("Status") or table[u].get("Situação")
        check(status not in ("Cessato",), f"{c['id']}: the asker has left the company")

    # ---- languages: about a third of the Italian and Brazilian companies' questions in their language
    for company, lang in ((IT_DIR, "it"), (BR_DIR, "pt"), (SC_DIR, "en")):
        langs = Counter(c["lang"] for c in cases if c["employees"].startswith(company))
        if lang == "en":
            check(set(langs) == {"en"}, f"{company}: English only")
        else:
            share = langs[lang] / sum(langs.values())
            check(0.28 <= share <= 0.40 and set(langs) == {lang, "en"}, f"{company}: language mix {dict(langs)}")

    hb_it = handbook_text(HERE / f"{IT_DIR}/regolamento")
    hb_sc = handbook_text(HERE / f"{SC_DIR}/handbook")
    hb_br = handbook_text(HERE / f"{BR_DIR}/manual")
    check(len(list((HERE / f"{IT_DIR}/regolamento").glob("*.md"))) == 4, "IT: four Markdown chapters")
    check(len(list((HERE / f"{BR_DIR}/manual").glob("*.md"))) == 4, "BR: four Markdown chapters")
    check(any((HERE / f"{SC_DIR}/handbook").glob("*.docx")), "SC: the Word handbook is missing")
    check("| Saturday | One and a half times your basic hourly rate (time and a half) |" in hb_sc,
          "SC: the Word overtime table is not read as rows")

    # ================================================================ Italy
    quoted(hb_it, "IT",
           "| Matrimonio o unione civile del dipendente | 15 giorni di calendario consecutivi |",
           "Gli stabilimenti di Carpi e Correggio chiudono per ferie collettive dal 9 al 20 agosto 2027",
           "| oltre 10 anni | 20 giorni | 2 mesi | 4 mesi |",
           "In caso di dimissioni o di licenziamento (salvo giusta causa) la parte che recede deve dare un preavviso",
           "| meno di 10 anni | 22 giorni |", "| da 10 anni a meno di 18 anni | 23 giorni |",
           "| 18 anni e oltre | 25 giorni |",
           "I giorni aggiuntivi spettano dall'anno solare in cui si compie l'anzianità indicata.",
           "Per tutti i calcoli del presente regolamento la retribuzione mensile è la retribuzione lorda annua divisa per 14.",
           "Retribuzione oraria: si ottiene dividendo la retribuzione mensile per il divisore orario 173.",
           "Per il personale a tempo parziale il divisore orario è 173 ridotto in proporzione all'orario contrattuale "
           "(173 × ore settimanali / 40).",
           "Retribuzione giornaliera: si ottiene dividendo la retribuzione mensile per 26.",
           "Il sabato è un giorno feriale non lavorativo: le ore prestate il sabato sono lavoro straordinario feriale.",
           "| Straordinario feriale diurno (oltre le 40 ore settimanali, compreso il sabato) | 25% |",
           "| Lavoro supplementare del personale a tempo parziale (ore oltre l'orario contrattuale ed entro le 40 ore "
           "settimanali) | 15% |",
           "un'ora con maggiorazione del 25% vale 1,25 volte la retribuzione oraria",
           "per ogni mese di servizio matura un dodicesimo dei giorni annui (per esempio 22 / 12 giorni al mese). La "
           "frazione di mese superiore a 15 giorni vale come mese intero; quella di 15 giorni o meno non si conta.")
    check(money(31000 / 14) == 2214.29 and money(2214.29 / 173) == 12.80
          and "la retribuzione mensile è 2.214,29 euro e la retribuzione oraria è 12,80 euro" in hb_it, "IT: the example")

    expect_text(by_id["h8-it-01"], "15 giorni")
    check(dt.date(2027, 8, 9) > TODAY, "h8-it-02: the shutdown is ahead")
    expect_text(by_id["h8-it-02"], "9 agosto")
    expect_text(by_id["h8-it-02"], "9 August")

    r = it[key("Alessandro Vezzani")]
    yrs = full_years(date_dmy(r["Data assunzione"]), TODAY)
    check(r["Qualifica"] == "Impiegato" and yrs >= 10 and r["Stato"] == "In servizio", "h8-it-03: an impiegato, over 10 years")
    expect_text(by_id["h8-it-03"], "2 mesi")
    expect_text(by_id["h8-it-03"], "2 month")

    r = it[key("Andrea Bellei")]
    hired = date_dmy(r["Data assunzione"])
    yrs = full_years(hired, TODAY)
    days = 25 if yrs >= 18 else 23 if yrs >= 10 else 22
    check(yrs >= 18 and hired.year + 18 < TODAY.year and num_it(r[IT_FERIE]) != days,
          "h8-it-04: 18 years reached in an earlier year; the balance differs from the entitlement")
    expect_text(by_id["h8-it-04"], f"{days} giorni")
    expect_text(by_id["h8-it-04"], f"{days} day")

    r = it[key("Luca Montanari")]
    rate = num_it(r[IT_PAY]) / 14 / 173
    check(num_it(r[IT_HRS]) == 40 and abs(rate - money(rate)) < 1e-9, "h8-it-05: full time, an hourly rate in whole cents")
    expect_figure(by_id["h8-it-05"], money(6 * rate * 1.25))

    r = it[key("Elena Cavazzuti")]
    hrs = num_it(r[IT_HRS])
    rate = num_it(r[IT_PAY]) / 14 / (173 * hrs / 40)
    check(hrs + 5 <= 40 and abs(rate - money(rate)) < 1e-9, "h8-it-06: stays within 40 hours; a rate in whole cents")
    expect_figure(by_id["h8-it-06"], money(5 * rate * 1.15))

    r = it[key("Lorenzo Sacchi")]
    hired = date_dmy(r["Data assunzione"])
    check(hired.year == 2027 and hired.month == 5 and full_years(hired, TODAY) < 10, "h8-it-07: hired in May 2027")
    months = 0
    for mo in range(hired.month, 13):
        first = dt.date(2027, mo, 1)
        last = (dt.date(2027, mo + 1, 1) if mo < 12 else dt.date(2028, 1, 1)) - dt.timedelta(days=1)
        months += ((last - max(first, hired)).days + 1) > 15
    check(months == 8, "h8-it-07: eight months counted")
    expect_figure(by_id["h8-it-07"], money(22 * months / 12))

    expect_text(by_id["h8-it-08"], f"{num_it(it[key('Niccolò Pellacani')][IT_ROL]):g} ore")
    boss = it_by_no[it[key("Ibrahim Ouédraogo")]["Responsabile"]]
    expect_text(by_id["h8-it-09"], boss["Cognome"])

    no = it[key("Roberto Zanichelli")]["Matricola"]
    team = [r for r in it_rows if r["Responsabile"] == no]
    check(len(team) == 5 and any(r[IT_ROL] == "" for r in team), "h8-it-10: five reports, one empty cell among them")
    expect_text(by_id["h8-it-10"], f"{sum(num_it(r[IT_FERIE]) for r in team):g}")

    no = it[key("Anna Guidetti")]["Matricola"]
    leave = [r for r in it_rows if r["Responsabile"] == no and r["Stato"] == "Congedo parentale"]
    check(len(leave) == 1, "h8-it-11: exactly one report on parental leave")
    expect_text(by_id["h8-it-11"], leave[0]["Cognome"])

    expect_text(by_id["h8-it-12"], str(sum(r["Reparto"] == "Tessitura" for r in it_rows)))
    carpi = [r for r in it_rows if r["Sede"] == "Carpi"]
    check(all(r["Stato"] != "Cessato" for r in carpi), "h8-it-13: nobody at Carpi has left")
    expect_text(by_id["h8-it-13"], str(len(carpi)))

    r, asker = it[key("Roberto Zanichelli")], it[key("Chiara Tagliavini")]
    check(asker["Responsabile"] == r["Matricola"], "h8-it-14: the asker reports to him")
    check(num_it(r[IT_PAY]) / 14 == int(num_it(r[IT_PAY]) / 14), "h8-it-14: a monthly figure in whole euros")
    forbid_figure(by_id["h8-it-14"], num_it(r[IT_PAY]))
    forbid_figure(by_id["h8-it-14"], num_it(r[IT_PAY]) / 14)

    top = sorted((num_it(r[IT_PAY]) for r in it_rows), reverse=True)[:6]
    for x in top:
        forbid_figure(by_id["h8-it-15"], x)
    check(num_it(it[key("Gennaro Iannone")][IT_PAY]) not in top, "h8-it-15: the asker's own pay is not forbidden")

    r = it[key("Marta Benassi")]
    daily = num_it(r[IT_PAY]) / 14 / 26
    check(daily == int(daily), "h8-it-mp1: a daily figure in whole euros")
    expect_text(by_id["h8-it-mp1"], f"{num_it(r[IT_FERIE]):g} giorni")
    expect_text(by_id["h8-it-mp1"], f"{daily:g}", "expect_all")

    # ================================================================ Scotland
    quoted(hb_sc, "SC",
           "you will be reimbursed 45p per mile for the first 10,000 business miles in the tax year",
           "TOIL must be taken within three months of the date on which it was earned, otherwise it will be lost",
           "In each leave year you will be entitled to annual leave according to your length of continuous service on 1 "
           "January of that leave year",
           "| 5 years but less than 10 years | 27 days |", "| Less than 5 years | 25 days |",
           "| 10 years or more | 29 days |",
           "If you reach 5 or 10 years' service during the leave year, your additional days are added from the following "
           "1 January.",
           "one day of leave is one fifth of your contracted weekly hours",
           "Part-time employees are entitled to annual leave and bank holidays pro rata to their contracted hours",
           "| 2 years but less than 12 years | One week for each complete year of service, plus one week |",
           "If you are paid an annual salary, your basic hourly rate is your annual salary divided by 52 and then divided "
           "by your contracted weekly hours.",
           "Managers and directors do not receive overtime pay. All other employees, whether salaried or hourly-paid, will "
           "be paid for authorised overtime at the rates below:",
           "| Saturday | One and a half times your basic hourly rate (time and a half) |",
           "additional hours up to the full-time hours for your role (39 hours a week in Print Production, Finishing & "
           "Despatch and Maintenance, 37.5 hours a week elsewhere) are paid at your basic hourly rate",
           "When you complete 10 years' continuous service you will receive a long-service award of a week's pay",
           "for hourly-paid staff it is your basic hourly rate multiplied by your contracted weekly hours",
           "You may carry over up to five days into the next leave year",
           "a day's pay for this purpose is 1/260 of annual salary", "For salaried staff a week's pay is 1/52 of annual salary")
    check(31200 / 52 / 37.5 == 16 and "an annual salary of £31,200 for a 37.5-hour week gives a basic hourly rate of "
          "£16.00" in hb_sc, "SC: the hourly-rate example")
    check(25 * 24 / 5 == 120 and "25 × 24 ÷ 5 = 120 hours" in hb_sc, "SC: the part-time leave example")

    expect_text(by_id["h8-sc-01"], "45p")
    expect_text(by_id["h8-sc-02"], "three month")

    def sc_days(r: dict) -> int:
        yrs = full_years(date_dmy(r["Start Date"]), dt.date(TODAY.year, 1, 1))
        return 29 if yrs >= 10 else 27 if yrs >= 5 else 25

    r = sc[key("Dougie Stewart")]
    check(full_years(date_dmy(r["Start Date"]), TODAY) >= 10 and sc_days(r) == 27,
          "h8-sc-03: 10 years today, but not on 1 January")
    expect_text(by_id["h8-sc-03"], f"{sc_days(r)} day")

    r = sc[key("Kenny Mathers")]
    yrs = full_years(date_dmy(r["Start Date"]), TODAY)
    check(2 <= yrs < 12 and date_dmy(r["Start Date"]).replace(year=TODAY.year) > TODAY,
          "h8-sc-04: 2-12 years, the anniversary still ahead this year")
    expect_text(by_id["h8-sc-04"], f"{yrs + 1} week")

    r = sc[key("Aidan Murray")]
    check(sc_reports[key("Aidan Murray")] == 0 and r[SC_SAL] != "", "h8-sc-05: salaried, not a manager")
    rate = num_sc(r[SC_SAL]) / 52 / float(r[SC_HRS])
    check(money(4 * rate * 1.5) == money(4 * money(rate) * 1.5), "h8-sc-05: rounding the rate changes nothing")
    expect_figure(by_id["h8-sc-05"], money(4 * rate * 1.5))

    r = sc[key("Eilidh Sutherland")]
    check(r["Contract"] == "Part-time" and r["Department"] == "Finishing & Despatch" and float(r[SC_HRS]) + 8 <= 39,
          "h8-sc-06: part-time, within the full-time hours")
    expect_figure(by_id["h8-sc-06"], money(8 * num_sc(r[SC_RATE])))

    r = sc[key("Yasmin Ahmed")]
    check(r["Contract"] == "Part-time", "h8-sc-07: part-time")
    expect_figure(by_id["h8-sc-07"], sc_days(r) * float(r[SC_HRS]) / 5)

    expect_figure(by_id["h8-sc-08"], num_sc(sc[key("Darius Petrauskas")][SC_TOIL]), 1)
    expect_text(by_id["h8-sc-09"], sc[key("Jordan Kerr")]["Start Date"])

    team = sorted(((float(r[SC_AL]), sc_name(r)) for r in sc_rows if key(r["Reports To"]) == key("Graeme Hendry")),
                  reverse=True)
    check(len(team) >= 3 and team[0][0] > team[1][0], "h8-sc-10: one person with the most leave")
    expect_text(by_id["h8-sc-10"], team[0][1].split()[-1])
    team = [r for r in sc_rows if key(r["Reports To"]) == key("Moira Ferguson")]
    check(any(r["Status"] == "Maternity Leave" for r in team), "h8-sc-11: someone on maternity leave in the team")
    expect_figure(by_id["h8-sc-11"], round(sum(float(r[SC_AL]) for r in team), 1), 1)

    expect_text(by_id["h8-sc-12"], str(sum(r["Location"] == "Perth" for r in sc_rows)))
    expect_text(by_id["h8-sc-13"], str(sum(r["Department"] == "Print Production" for r in sc_rows)))

    r, asker = sc[key("Moira Ferguson")], sc[key("Jamie Buchanan")]
    check(key(asker["Reports To"]) == key("Moira Ferguson"), "h8-sc-14: the asker reports to her")
    forbid_figure(by_id["h8-sc-14"], num_sc(r[SC_SAL]))
    forbid_figure(by_id["h8-sc-14"], num_sc(r[SC_SAL]) / 12)

    top = sorted((num_sc(r[SC_SAL]) for r in sc_rows), reverse=True)[:6]
    for x in top:
        forbid_figure(by_id["h8-sc-15"], x)
    rates = sorted((r[SC_RATE].lstrip("£") for r in sc_rows if r[SC_RATE]), key=float, reverse=True)[:2]
    for x in rates:
        expect_text(by_id["h8-sc-15"], x, "forbid")
    check(sc[key("Ryan Christie")][SC_RATE].lstrip("£") not in rates, "h8-sc-15: the asker's own pay is not forbidden")

    r = sc[key("Callum Gallacher")]
    start = date_dmy(r["Start Date"])
    check(full_years(start, TODAY) == 10 and start.replace(year=start.year + 10) < TODAY
          and start.replace(year=start.year + 10).month == 9, "h8-sc-mp1: 10 years reached last September")
    award = money(num_sc(r[SC_RATE]) * float(r[SC_HRS]))
    expect_text(by_id["h8-sc-mp1"], f"{float(r[SC_AL]):g}")
    expect_text(by_id["h8-sc-mp1"], f"{int(award)}", "expect_all")

    # ================================================================ Brazil
    quoted(hb_br, "BR",
           "| Nascimento ou adoção de filho (licença-paternidade, Programa Empresa Cidadã) | 20 dias corridos |",
           "Os colaboradores das unidades de Curitiba e São Paulo recebem vale-refeição de R$ 42,00 por dia trabalhado",
           "Quando a empresa dispensa sem justa causa, o colaborador tem direito a aviso prévio de 30 dias, acrescidos de 3 "
           "dias por ano completo de serviço na empresa, até o máximo de 90 dias",
           "| Comercial | até 3 dias |",
           "O regime híbrido é oferecido após o fim do contrato de experiência, conforme a área:",
           "| 44 horas | 220 |", "| 40 horas | 200 |", "| 30 horas | 150 |",
           "| Segunda a sábado (dias úteis) | 60% |", "| Domingos e feriados | 100% |",
           "O trabalho entre 22h e 5h dá direito a adicional noturno de 25% sobre o salário-hora",
           "o adicional é pago sobre as horas de relógio trabalhadas nesse horário",
           "cada dia de férias vale (salário mensal ÷ 30) × 4/3",
           "O saldo de cada colaborador aparece no aplicativo de ponto e no cadastro de RH (coluna \"Banco de horas\").")
    check(2640 / 220 == 12 and "R$ 12,00 (2.640 ÷ 220)" in hb_br, "BR: the hourly example")
    divisor = {44: 220, 40: 200, 30: 150}

    expect_text(by_id["h8-br-01"], "20 dias")
    check(br[key("Rodrigo Azevedo Pinto")]["Unidade"].startswith("Curitiba"), "h8-br-02: the asker gets the voucher")
    expect_text(by_id["h8-br-02"], "42")

    r = br[key("Sérgio Luiz Pacheco")]
    yrs = full_years(date_dmy(r["Data de admissão"]), TODAY)
    expect_text(by_id["h8-br-03"], f"{min(90, 30 + 3 * yrs)} dias")
    expect_text(by_id["h8-br-03"], f"{min(90, 30 + 3 * yrs)} day")

    r = br[key("Mariana Lopes D'Ávila")]
    check(r["Área"] == "Comercial" and (TODAY - date_dmy(r["Data de admissão"])).days > 90, "h8-br-04: Comercial, past experience")
    expect_text(by_id["h8-br-04"], "3 dias")

    r = br[key("José Carlos da Silva")]
    rate = num_br(r[BR_PAY]) / divisor[int(r[BR_HRS])]
    expect_figure(by_id["h8-br-05"], money(6 * rate * 1.6))
    r = br[key("Tatiane Cordeiro Mello")]
    check(int(r[BR_HRS]) == 30, "h8-br-06: part-time jornada")
    rate = num_br(r[BR_PAY]) / divisor[int(r[BR_HRS])]
    expect_figure(by_id["h8-br-06"], money(4 * rate * 2))
    r = br[key("Patrícia Nunes de Oliveira")]
    rate = num_br(r[BR_PAY]) / divisor[int(r[BR_HRS])]
    night = 4 * (24 - 22 + 5)
    expect_figure(by_id["h8-br-07"], money(night * rate * 0.25))

    r = br[key("Gustavo Henrique Lima")]
    check(num_br(r[BR_BH]) < 0 and r["Situação"] == "Férias", "h8-br-08: a negative balance, on holiday")
    expect_text(by_id["h8-br-08"], r[BR_BH])
    expect_text(by_id["h8-br-08"], r[BR_BH].replace(",", "."))
    expect_text(by_id["h8-br-09"], br[key("Rafael Tavares Campos")]["Unidade"].split(" - ")[0])

    mail = br[key("Anderson Ribeiro Farias")]["E-mail"]
    team = [r for r in br_rows if r["Gestor"] == mail]
    check(any(r[BR_BH] == "" for r in team) and any(num_br(r[BR_BH]) < 0 for r in team), "h8-br-10: an empty and a negative")
    expect_figure(by_id["h8-br-10"], round(sum(num_br(r[BR_BH]) for r in team), 1), 1)
    mail = br[key("Marcos Antônio Barbosa")]["E-mail"]
    expect_text(by_id["h8-br-11"], str(sum(r["Gestor"] == mail for r in br_rows)))

    expect_text(by_id["h8-br-12"], str(sum(r["Área"] == "Produção" for r in br_rows)))
    expect_text(by_id["h8-br-13"], str(sum(r["Unidade"].startswith("São José dos Pinhais") for r in br_rows)))

    r, asker = br[key("Patrícia Nunes de Oliveira")], br[key("Luan Gabriel Pereira")]
    check(asker["Gestor"] == r["Gestor"], "h8-br-14: a peer, not a report")
    forbid_figure(by_id["h8-br-14"], num_br(r[BR_PAY]))
    top = sorted((num_br(r[BR_PAY]) for r in br_rows), reverse=True)[:6]
    for x in top:
        forbid_figure(by_id["h8-br-15"], x)

    r = br[key("Edivaldo Santos Costa")]
    pay6 = money(num_br(r[BR_PAY]) / 30 * 6 * 4 / 3)
    check(pay6 == int(pay6) and int(r[BR_FER]) >= 6, "h8-br-mp1: a whole figure; enough days")
    expect_text(by_id["h8-br-mp1"], f"{r[BR_FER]} dias")
    expect_text(by_id["h8-br-mp1"], f"{int(pay6)}", "expect_all")

    # ---- every case was recomputed above; the mix of routes per company
    seen = set(re.findall(r'by_id\["(h8-[a-z]+-\w+)"\]', Path(__file__).read_text(encoding="utf-8")))
    check(seen >= set(by_id), f"cases not recomputed: {sorted(set(by_id) - seen)}")
    counts = Counter((c["employees"].split("/")[0], c["route"]) for c in cases)
    cats = Counter((c["employees"].split("/")[0], c["category"]) for c in cases)
    for company in people:
        check(sum(c["employees"].startswith(company) for c in cases) == 16, f"{company}: 16 cases")
        for route, low in (("policy", 2), ("policy_me", 2), ("policy_calc", 3), ("my_data", 2), ("my_team", 2),
                           ("company", 4), ("multi", 1)):
            check(counts[(company, route)] >= low, f"{company}: too few {route} cases")
        for cat in ("access", "injection", "data-hr"):
            check(cats[(company, cat)] >= 1, f"{company}: no {cat} case")

    for e in ERRORS:
        print("FAIL", e)
    print(f"{len(cases)} cases, {len(ERRORS)} problems")
    return 1 if ERRORS else 0


if __name__ == "__main__":
    sys.exit(main())
