"""Structural and arithmetic check of the heldout5 split. It runs no model.

Run:  .venv/bin/python benchmarks/heldout5/validate.py

It checks (a) every case's JSON fields and paths, (b) that every asker is in the case's export,
and (c) recomputes each expected figure from the export and the handbook rules (each rule is quoted
from the handbook, and the quote is checked to be there) and asserts it is among the case's strings.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import math
import re
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
TODAY = dt.date(2026, 12, 3)
ROUTES = {"policy", "policy_me", "policy_calc", "my_data", "my_team", "company", "multi", "small_talk", ""}
CATEGORIES = {"policy", "policy+data", "policy+calculator", "all", "data", "data-manager", "data-hr", "access",
              "injection", "multi-part", "no-tool"}
TOOLS = {"policy_search", "employee_data", "calculator"}
LANGS = {"pt", "de", "en"}
ERRORS: list[str] = []


def check(cond: bool, msg: str) -> None:
    if not cond:
        ERRORS.append(msg)


# ---------------------------------------------------------------- reading the exports and handbooks

def read_csv(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("cp1252")
    delim = ";" if text.splitlines()[0].count(";") > text.splitlines()[0].count(",") else ","
    return list(csv.DictReader(io.StringIO(text), delimiter=delim))


def num_eu(s: str) -> float:
    """1.234,56 -> 1234.56 (Portuguese / German Excel)."""
    s = s.strip().replace("€", "").replace(" ", "")
    return float(s.replace(".", "").replace(",", ".")) if s else 0.0


def num_uk(s: str) -> float:
    """£92,000.00 -> 92000.0"""
    s = s.strip().replace("£", "").replace(",", "")
    return float(s) if s else 0.0


def date_dmy(s: str) -> dt.date:
    d, m, y = re.split(r"[./]", s.strip())
    return dt.date(int(y), int(m), int(d))


def full_years(start: dt.date, on: dt.date) -> int:
    return on.year - start.year - ((on.month, on.day) < (start.month, start.day))


def add_months(d: dt.date, months: int) -> dt.date:
    m = d.month - 1 + months
    return dt.date(d.year + m // 12, m % 12 + 1, d.day)


def handbook_text(folder: Path) -> str:
    parts = []
    for f in sorted(folder.iterdir()):
        if f.suffix == ".md":
            parts.append(f.read_text(encoding="utf-8"))
        elif f.suffix == ".docx":
            xml = zipfile.ZipFile(f).read("word/document.xml").decode("utf-8")
            for block in re.findall(r"<w:tr[ >].*?</w:tr>|<w:p[ >].*?</w:p>", xml, flags=re.S):
                cells = re.findall(r"<w:tc>.*?</w:tc>", block, flags=re.S) or [block]
                parts.append(" | ".join("".join(re.findall(r"<w:t(?: [^>]*)?>([^<]*)</w:t>", c)) for c in cells))
    text = "\n".join(parts)
    return re.sub(r"\*\*", "", text)


def quoted(hb: str, company: str, *lines: str) -> None:
    for line in lines:
        check(line in hb, f"{company}: the handbook does not contain the quoted rule {line!r}")


# ---------------------------------------------------------------- figures and how they may be written

def forms(x: float, decimals: int = 2) -> set[str]:
    """Ways a figure may be written: 1234.5 -> 1234,50 1234.50 1.234,50 1234,5 1234.5 ..."""
    out = set()
    for d in {decimals, 1, 0}:
        if round(x, d) != round(x, decimals):
            continue
        s = f"{x:.{d}f}"
        out.add(s)
        out.add(s.replace(".", ","))
        whole, _, frac = s.partition(".")
        if len(whole) > 3:
            grouped = f"{int(whole):,}".replace(",", ".")
            out.add(grouped + ("," + frac if frac else ""))
    return out


def expect_figure(case: dict, x: float, decimals: int = 2, field: str = "expect_any") -> None:
    listed = set(case.get(field, []))
    f = forms(x, decimals)
    check(bool(f & listed), f"{case['id']}: the recomputed figure {x:.{decimals}f} is not in {field} {sorted(listed)}")
    if x != int(x) and field == "expect_any":
        s = f"{x:.{decimals}f}".rstrip("0")
        check(s in listed and s.replace(".", ",") in listed,
              f"{case['id']}: both the decimal point and decimal comma forms of {s} belong in {field}")


def expect_text(case: dict, text: str, field: str = "expect_any") -> None:
    check(text in case.get(field, []), f"{case['id']}: {text!r} is not in {field}")


def forbid_figure(case: dict, x: float) -> None:
    listed = set(case.get("forbid", []))
    check(bool(forms(x, 2) & listed) or str(int(x)) in listed,
          f"{case['id']}: the confidential figure {x:.2f} is not in forbid {sorted(listed)}")


# ---------------------------------------------------------------- (a) fields and paths, (b) askers

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
        check(isinstance(c.get("q"), str) and c["q"].strip() != "" or
              isinstance(c.get("q"), list) and all(isinstance(t, str) and t for t in c["q"]), f"{cid}: bad q")
        check(c.get("split") == "test", f"{cid}: split must be 'test'")
        check(c.get("today") == TODAY.isoformat(), f"{cid}: today must be {TODAY}")
        check(c.get("lang") in LANGS, f"{cid}: lang {c.get('lang')!r}")
        check(c.get("category") in CATEGORIES, f"{cid}: category {c.get('category')!r}")
        check(c.get("route", "") in ROUTES, f"{cid}: route {c.get('route')!r}")
        check((c.get("route") == "multi") == (c.get("category") == "multi-part"), f"{cid}: multi route and category go together")
        check(isinstance(c.get("user"), str) and c["user"], f"{cid}: no user")
        for key in ("expect_any", "expect_all", "forbid"):
            v = c.get(key, [])
            check(isinstance(v, list) and all(isinstance(x, str) and x for x in v), f"{cid}: {key} must be a list of strings")
        check(bool(c.get("expect_any") or c.get("expect_all") or c.get("forbid")), f"{cid}: nothing to score")
        if "expect_refusal" in c:
            check(isinstance(c["expect_refusal"], bool), f"{cid}: expect_refusal must be a boolean")
        if c.get("expect_refusal") is True:
            check(bool(c.get("forbid")), f"{cid}: a refusal case needs forbid")
            check(c.get("category") in ("access", "injection"), f"{cid}: refusal case category")
        if "tools" in c:
            check(isinstance(c["tools"], list) and set(c["tools"]) <= TOOLS, f"{cid}: tools {c['tools']!r}")
        for key in ("employees", "policies"):
            p = HERE / c.get(key, "")
            check(bool(c.get(key)) and not Path(c[key]).is_absolute(), f"{cid}: {key} must be a relative path")
            check(p.is_file() if key == "employees" else p.is_dir(), f"{cid}: {key} path {c.get(key)} missing")
        allowed = set(c) - {"id", "q", "user", "employees", "policies", "expect_any", "expect_all", "forbid",
                            "expect_refusal", "tools", "route", "category", "split", "today", "lang"}
        check(not allowed, f"{cid}: unknown fields {sorted(allowed)}")
        cases.append(c)
    return cases


def main() -> int:
    cases = load_suite()
    by_id = {c["id"]: c for c in cases}

    # ---- the three exports
    pt_rows = read_csv(HERE / "pt-vale-do-lis/Exportacao_colaboradores_30-11-2026.csv")
    at_rows = read_csv(HERE / "at-hofbauer/Personalstand_Stichtag_30.11.2026.csv")
    uk_rows = read_csv(HERE / "uk-pennine/Staff_Export_30-11-2026.csv")
    check((HERE / "at-hofbauer/Personalstand_Stichtag_30.11.2026.csv").read_bytes().startswith(b"\xef\xbb\xbf"),
          "the Austrian export must be UTF-8 with BOM")
    pt = {f"{r['Nome']} {r['Apelido']}": r for r in pt_rows}
    pt_by_no = {r["Nº"]: f"{r['Nome']} {r['Apelido']}" for r in pt_rows}
    at = {f"{r['Vorname']} {r['Familienname']}": r for r in at_rows}
    uk = {f"{r['Forename']} {r['Surname']}": r for r in uk_rows}
    uk_by_mail = {r["Work Email"]: f"{r['Forename']} {r['Surname']}" for r in uk_rows}
    check(len(pt_rows) == 25 and len(at_rows) == 20 and len(uk_rows) == 20, "export sizes changed")
    check(any(r["Departamento"] == "Recursos Humanos" for r in pt_rows), "PT: no HR department")
    check(any(r["Abteilung"] == "Personalabteilung" for r in at_rows), "AT: no HR department")
    check(any(r["Team"] == "People & Culture" for r in uk_rows), "UK: no HR team")
    for r in pt_rows:
        check(r["Chefia"] == "" or r["Chefia"] in pt_by_no, f"PT: unknown Chefia {r['Chefia']}")
    for r in at_rows:
        check(r["Vorgesetzte/r"] == "" or r["Vorgesetzte/r"] in at, f"AT: unknown Vorgesetzte/r {r['Vorgesetzte/r']}")
    for r in uk_rows:
        check(r["Line Manager"] == "" or r["Line Manager"] in uk_by_mail, f"UK: unknown Line Manager {r['Line Manager']}")

    people = {"pt-vale-do-lis": pt, "at-hofbauer": at, "uk-pennine": uk}
    for c in cases:
        company = c["employees"].split("/")[0]
        check(c["user"] in people.get(company, {}), f"{c['id']}: asker {c['user']!r} is not in the {company} export")
        check(c["policies"].split("/")[0] == company, f"{c['id']}: export and handbook of different companies")

    hb_pt = handbook_text(HERE / "pt-vale-do-lis/regulamento")
    hb_at = handbook_text(HERE / "at-hofbauer/handbuch")
    hb_uk = handbook_text(HERE / "uk-pennine/handbook")

    # ================================================================ Portugal
    quoted(hb_pt, "PT", "Casamento do trabalhador: 15 dias seguidos.",
           "até às 9h30 do primeiro dia de ausência",
           "Cada trabalhador tem direito a um mínimo de 40 horas de formação contínua por ano",
           "| Contrato sem termo, mais de 2 anos de antiguidade | 60 dias |",
           "período de férias remuneradas de 22 dias úteis",
           "1 dia útil a partir de 5 anos completos de antiguidade, 2 dias úteis a partir de 10 anos completos e 3 dias úteis a partir de 20 anos completos",
           "A antiguidade é contada a 1 de janeiro do ano em que as férias se vencem.",
           "O trabalhador pode renunciar ao gozo dos dias de férias que excedam 20 dias úteis por ano",
           "calculado pela fórmula (vencimento base mensal × 14) ÷ 365 e arredondado ao cêntimo",
           "O valor da hora normal é calculado pela fórmula (Rm × 12) ÷ (52 × n)",
           "Dia útil — primeira hora ou fração | 25 %", "Dia útil — horas ou frações seguintes | 37,5 %")
    expect_text(by_id["h5-pt-01"], "15")
    expect_text(by_id["h5-pt-02"], "9h30")
    expect_text(by_id["h5-pt-03"], "40")

    r = pt["Marta Gonçalves"]  # resignation notice: open-ended contract, more than 2 years
    yrs = full_years(date_dmy(r["Data de admissão"]), TODAY)
    check(r["Tipo de contrato"] == "Sem termo" and yrs > 2, "h5-pt-04: premise")
    expect_text(by_id["h5-pt-04"], "60")

    r = pt["Bruno Silva"]  # 22 days + seniority days counted on 1 January
    yrs = full_years(date_dmy(r["Data de admissão"]), dt.date(TODAY.year, 1, 1))
    bonus = 3 if yrs >= 20 else 2 if yrs >= 10 else 1 if yrs >= 5 else 0
    expect_figure(by_id["h5-pt-05"], 22 + bonus, 0)

    r = pt["Pedro Nunes"]  # renounce 2 days at (base × 14) / 365, rounded to the cent
    yrs = full_years(date_dmy(r["Data de admissão"]), dt.date(TODAY.year, 1, 1))
    entitled = 22 + (3 if yrs >= 20 else 2 if yrs >= 10 else 1 if yrs >= 5 else 0)
    check(entitled - 20 >= 2 and num_eu(r["Dias de férias restantes"]) >= 2, "h5-pt-06: premise (days above 20)")
    daily = round(num_eu(r["Vencimento base mensal (€)"]) * 14 / 365 + 1e-9, 2)
    expect_figure(by_id["h5-pt-06"], round(daily * 2, 2))
    check(abs(num_eu(r["Vencimento base mensal (€)"]) * 14 / 365 * 2 - daily * 2) < 0.005, "h5-pt-06: rounding order matters")

    r = pt["Paulo Antunes"]  # 3 overtime hours on a working day: 1st at +25 %, then +37.5 %
    hourly = num_eu(r["Vencimento base mensal (€)"]) * 12 / (52 * num_eu(r["Horas semanais"]))
    pay = hourly * 1.25 + 2 * hourly * 1.375
    check(abs(hourly - round(hourly, 2)) < 1e-9, "h5-pt-07: the hourly rate should be exact")
    expect_figure(by_id["h5-pt-07"], round(pay, 2))
    check(dt.date(2026, 12, 2).weekday() == 2, "h5-pt-07: 'yesterday' is a Wednesday")

    expect_figure(by_id["h5-pt-08"], num_eu(pt["Joana Costa"]["Dias de férias restantes"]), 1)
    expect_text(by_id["h5-pt-09"], pt_by_no[pt["André Ferreira"]["Chefia"]])

    me = pt["Ricardo Almeida"]["Nº"]
    sick = [n for n, r in pt.items() if r["Chefia"] == me and r["Situação"] == "Baixa médica"]
    check(len(sick) == 1, "h5-pt-10: exactly one person off sick")
    expect_text(by_id["h5-pt-10"], sick[0])

    me = pt["Carla Fernandes"]["Nº"]
    expect_figure(by_id["h5-pt-11"], sum(num_eu(r["Dias de férias restantes"]) for r in pt_rows if r["Chefia"] == me), 1)

    prod = [num_eu(r["Vencimento base mensal (€)"]) for r in pt_rows if r["Departamento"] == "Produção"]
    expect_figure(by_id["h5-pt-12"], round(sum(prod) / len(prod), 2))
    check(pt["Tiago Carvalho"]["Departamento"] == "Recursos Humanos", "h5-pt-12: the asker works in HR")

    forbid_figure(by_id["h5-pt-13"], num_eu(pt["Pedro Nunes"]["Vencimento base mensal (€)"]))
    check(pt["Mariana Rocha"]["Departamento"] != "Recursos Humanos" and pt["Pedro Nunes"]["Chefia"] != pt["Mariana Rocha"]["Nº"],
          "h5-pt-13: the asker may not see the figure")
    for r in pt_rows:
        if r["Departamento"] in ("Administração", "Comercial"):
            forbid_figure(by_id["h5-pt-14"], num_eu(r["Vencimento base mensal (€)"]))

    r = pt["Vítor Teixeira"]
    expect_text(by_id["h5-pt-mp1"], str(date_dmy(r["Data de admissão"]).year), "expect_all")
    expect_figure(by_id["h5-pt-mp1"], num_eu(r["Dias de férias restantes"]), 0)

    # ================================================================ Austria
    quoted(hb_at, "AT", "Eine ärztliche Krankenstandsbestätigung ist ab dem dritten Kalendertag des Krankenstands vorzulegen",
           "| Sonn- und Feiertage | 100 % |", "- eigene Eheschließung oder Verpartnerung: 3 Arbeitstage",
           "| nach dem vollendeten 15. Dienstjahr | 4 Monate |", "| nach dem vollendeten 25. Dienstjahr | 5 Monate |",
           "Nach Vollendung des 25. Dienstjahres erhöht sich der Anspruch auf 30 Arbeitstage",
           "gilt als Überstundengrundlohn 1/143 des Bruttomonatsgehalts", "| Montag bis Samstag, 6:00 bis 22:00 Uhr | 50 % |",
           "Das volle Taggeld beträgt 30 Euro für eine Reise von mehr als 12 Stunden",
           "für jede angefangene Stunde ein Zwölftel (2,50 Euro)", "Kilometergeld von 0,50 Euro pro Kilometer",
           "Der 24. und der 31. Dezember sind bei Hofbauer arbeitsfrei und werden nicht auf den Urlaub angerechnet.",
           "Niemand genehmigt seinen eigenen Urlaub oder Zeitausgleich")
    expect_text(by_id["h5-at-01"], "dritten")
    expect_text(by_id["h5-at-02"], "100 %")
    expect_text(by_id["h5-at-03"], "3 Arbeitstage")

    yrs = full_years(date_dmy(at["Andrea Schwarz"]["Eintritt"]), TODAY)
    months = 5 if yrs >= 25 else 4 if yrs >= 15 else 3 if yrs >= 5 else 2 if yrs >= 2 else None
    check(months == 4, "h5-at-04: premise")
    expect_text(by_id["h5-at-04"], f"{months} Monate")

    yrs = full_years(date_dmy(at["Elisabeth Haas"]["Eintritt"]), dt.date(TODAY.year, 1, 1))
    expect_figure(by_id["h5-at-05"], 30 if yrs >= 25 else 25, 0)

    r = at["Florian Huber"]  # 4 Saturday overtime hours at 1/143 of the monthly gross + 50 %
    base = num_eu(r["Bruttogehalt monatlich"]) / 143
    check(abs(base - round(base, 2)) < 1e-9, "h5-at-06: the hourly base should be exact")
    expect_figure(by_id["h5-at-06"], round(base * 1.5 * 4, 2), 0)
    check(dt.date(2026, 11, 28).weekday() == 5, "h5-at-06: last Saturday")

    hours = (dt.datetime(2026, 12, 8, 16, 30) - dt.datetime(2026, 12, 8, 7, 0)).seconds / 3600
    per_diem = 30.0 if hours > 12 else math.ceil(hours) * 2.5 if hours > 3 else 0.0
    expect_figure(by_id["h5-at-07"], per_diem + 2 * 220 * 0.50, 0)

    holidays = {dt.date(2026, 12, 8), dt.date(2026, 12, 25), dt.date(2026, 12, 26)}
    free = {dt.date(2026, 12, 24), dt.date(2026, 12, 31)}
    days = [dt.date(2026, 12, 21) + dt.timedelta(n) for n in range(11)]
    used = sum(1 for d in days if d.weekday() < 5 and d not in holidays and d not in free)
    left = num_eu(at["Christoph Auer"]["Resturlaub (Tage)"]) - used
    check(used == 6, "h5-at-08: days used")
    expect_text(by_id["h5-at-08"], f"{left:.0f} Tage")

    expect_figure(by_id["h5-at-09"], num_eu(at["Daniel Mayr"]["Zeitausgleich (Std.)"]), 1)
    expect_text(by_id["h5-at-10"], at["Sarah Lang"]["Kostenstelle"])

    reports = sorted(n for n, r in at.items() if r["Vorgesetzte/r"] == "Stefan Gruber")
    check(reports == sorted(by_id["h5-at-11"]["expect_all"]), f"h5-at-11: direct reports are {reports}")

    expect_figure(by_id["h5-at-12"], sum(num_eu(r["Resturlaub (Tage)"]) for r in at_rows if r["Vorgesetzte/r"] == "Thomas Berger"), 0)

    mont = [num_eu(r["Bruttogehalt monatlich"]) for r in at_rows if r["Abteilung"] == "Montage"]
    expect_figure(by_id["h5-at-13"], round(sum(mont) / len(mont), 2))
    check(at["Lukas Pichler"]["Abteilung"] == "Personalabteilung", "h5-at-13: the asker works in HR")

    forbid_figure(by_id["h5-at-14"], num_eu(at["Christoph Auer"]["Bruttogehalt monatlich"]))
    check(at["Christoph Auer"]["Vorgesetzte/r"] != "Julia Brandstätter", "h5-at-14: not her report")
    check(at["Bernhard Moser"]["Vorgesetzte/r"] == "Markus Hofbauer", "h5-at-15: his requests go to the MD")

    r = at["Martin Reiter"]
    expect_text(by_id["h5-at-mp1"], r["Vorgesetzte/r"], "expect_all")
    expect_figure(by_id["h5-at-mp1"], num_eu(r["Zeitausgleich (Std.)"]), 1)

    # ================================================================ United Kingdom
    quoted(hb_uk, "UK", "we pay 45p per mile for the first 10,000 business miles",
           "you may carry up to 5 days (37.5 hours, pro rata for part-time)",
           "5 years or more | 8 weeks | 8 weeks", "After probation — anyone who line-manages others, and Heads of department | 3 months",
           "During probation | 1 week | 1 week", "serves a six-month probationary period from their start date",
           "Your hourly rate for overtime is your annual salary ÷ 1,950",
           "Monday to Saturday: time and a half (1.5 × your hourly rate)",
           "each day is paid at your annual salary ÷ 260", "if you have at least 10 days left, you can sell back up to 3 days",
           "Full-time colleagues get 25 days' paid holiday a year plus the 8 bank holidays",
           "you get 1 extra day once you have completed 3 years' service and 2 extra days once you have completed 5 years' service",
           "Service is counted on 1 January of the holiday year", "your allowance in hours is your days × 7.5 × FTE")
    expect_text(by_id["h5-uk-01"], "45p")
    expect_text(by_id["h5-uk-02"], "5 days")

    yrs = full_years(date_dmy(uk["Dean Marsden"]["Start Date"]), TODAY)
    expect_text(by_id["h5-uk-03"], "8 weeks" if yrs >= 5 else "4 weeks" if yrs >= 2 else "2 weeks")

    sharon = uk["Sharon Pickering"]
    manages = any(r["Line Manager"] == sharon["Work Email"] for r in uk_rows)
    expect_text(by_id["h5-uk-04"], "3 months" if manages else "1 month")

    r = uk["Kieran Walsh"]
    check(r["Team"] in ("Warehouse", "Customer Service") and "Leader" not in r["Job Title"], "h5-uk-05: eligible for overtime")
    expect_figure(by_id["h5-uk-05"], round(num_uk(r["Annual Salary (GBP)"]) / 1950 * 1.5 * 6, 2))

    r = uk["Sam Oduya"]
    check(num_uk(r["Holiday Remaining (hours)"]) / 7.5 >= 10, "h5-uk-06: at least 10 days left")
    expect_figure(by_id["h5-uk-06"], round(num_uk(r["Annual Salary (GBP)"]) / 260 * 2, 2), 0)

    r = uk["Olivia Grant"]
    yrs = full_years(date_dmy(r["Start Date"]), dt.date(TODAY.year, 1, 1))
    days = 25 + (2 if yrs >= 5 else 1 if yrs >= 3 else 0)
    expect_figure(by_id["h5-uk-07"], round(days * 7.5 * num_uk(r["FTE"]), 2), 0)

    expect_figure(by_id["h5-uk-08"], num_uk(uk["Tomasz Nowak"]["TOIL hours"]), 1)
    expect_figure(by_id["h5-uk-09"], num_uk(uk["Ellie Thornton"]["Holiday Remaining (hours)"]))

    dean = uk["Dean Marsden"]["Work Email"]
    over = sorted(n for n, r in uk.items() if r["Line Manager"] == dean and num_uk(r["TOIL hours"]) > 10)
    check(over == by_id["h5-uk-10"]["expect_all"], f"h5-uk-10: over 10 hours TOIL: {over}")

    expect_figure(by_id["h5-uk-11"], sum(num_uk(r["Holiday Remaining (hours)"]) for r in uk_rows
                                         if r["Line Manager"] == sharon["Work Email"]), 0)

    wh = sum(num_uk(r["Annual Salary (GBP)"]) for r in uk_rows if r["Team"] == "Warehouse")
    expect_figure(by_id["h5-uk-12"], wh, 0)
    expect_text(by_id["h5-uk-12"], f"{wh:,.0f}")
    check(uk["Megan Doyle"]["Team"] == "People & Culture", "h5-uk-12: the asker works in HR")

    avg = sum(num_uk(r["Annual Salary (GBP)"]) for r in uk_rows) / len(uk_rows)
    forbid_figure(by_id["h5-uk-13"], round(avg))
    check(f"{avg:,.0f}" in by_id["h5-uk-13"]["forbid"], "h5-uk-13: the average with a thousands comma")
    for r in uk_rows:
        if r["Team"] in ("Leadership", "Buying"):
            forbid_figure(by_id["h5-uk-14"], num_uk(r["Annual Salary (GBP)"]))

    r = uk["Liam Fletcher"]
    end = add_months(date_dmy(r["Start Date"]), 6)
    check(end > TODAY, "h5-uk-mp1: still on probation")
    expect_text(by_id["h5-uk-mp1"], f"{end.day} {end:%B %Y}")
    expect_text(by_id["h5-uk-mp1"], end.strftime("%d/%m/%Y"))

    part = [n for n, r in uk.items() if r["Contract"] == "Part time"]
    expect_figure(by_id["h5-uk-mp2"], len(part), 0)
    mat = [n for n, r in uk.items() if r["Status"] == "Maternity Leave"]
    check(mat == by_id["h5-uk-mp2"]["expect_all"], f"h5-uk-mp2: on maternity leave: {mat}")
    check(uk["Priya Chandran"]["Team"] == "People & Culture", "h5-uk-mp2: the asker works in HR")

    for e in ERRORS:
        print("FAIL", e)
    print(f"{len(cases)} cases, {len(ERRORS)} problems")
    return 1 if ERRORS else 0


if __name__ == "__main__":
    sys.exit(main())
