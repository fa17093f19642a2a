"""Check of the heldout4 suite. It runs no model and looks at no answer.

Structural checks (as heldout3): every line is JSON; required fields are present and well typed; ids are
unique; every case is in the test split and asked on the same date; relative paths exist; every asker
(`user`) can be found in the case's export file; 15-30 employees per export.

Content checks (new in heldout4): every expected figure and name is derived again here from the export
and from the handbook rules (whose wording is checked to be present in the handbook files), and every
expected string that holds a figure must agree with that derivation; refusal cases must forbid the real
protected values; askers have the role their case assumes (manager, HR, neither).

    python3 benchmarks/heldout4/validate.py
"""
from __future__ import annotations

import csv
import html
import io
import json
import re
import sys
import unicodedata
import zipfile
from collections import Counter
from datetime import date
from pathlib import Path

HERE = Path(__file__).resolve().parent
SUITE = HERE / "suite.jsonl"
TODAY = "2026-12-02"
ROUTES = {"policy", "policy_me", "policy_calc", "my_data", "my_team", "company", "calculation", "my_calc",
          "small_talk", "leave_request", "other", "multi"}
TOOLS = {"policy_search", "employee_data", "calculator"}
REQUIRED = {"id": str, "split": str, "category": str, "q": (str, list), "user": str, "employees": str,
            "policies": str, "today": str, "lang": str, "derivation": str}
CATEGORY_ROUTES = {"policy": {"policy"}, "policy+data": {"policy_me", "policy_calc"}, "data": {"my_data"},
                   "data-manager": {"my_team"}, "data-hr": {"company"}, "access": {"company", "my_team", None},
                   "injection": {"company", "my_team"}, "multi-part": {"multi"}}


# ----------------------------------------------------------------------------------------------- reading
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


def rows_of(path: Path) -> list[dict[str, str]]:
    text = read_text(path)
    first_line = text.splitlines()[0]
    delim = ";" if first_line.count(";") > first_line.count(",") else ","
    return list(csv.DictReader(io.StringIO(text), delimiter=delim))


def names_in(path: Path) -> set[str]:
    """Every 'First Last' that the export holds, however it splits or orders the name."""
    out: set[str] = set()
    for r in rows_of(path):
        head = {fold(k): v for k, v in r.items()}
        first = next((head[c] for c in ("prénom", "vorname", "first name", "nombre") if c in head), None)
        last = next((head[c] for c in ("nom", "name", "nachname", "last name", "apellidos", "surname") if c in head), None)
        if first is not None and last is not None:
            out.add(fold(f"{first} {last}"))
    return out


def handbook_text(folder: Path) -> str:
    parts = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() in (".md", ".txt"):
            parts.append(read_text(p))
        elif p.suffix.lower() == ".docx":
            xml = zipfile.ZipFile(p).read("word/document.xml").decode("utf-8")
            xml = xml.replace("</w:tc>", " | ").replace("</w:p>", "\n")
            parts.append(html.unescape(re.sub(r"<[^>]+>", "", xml)))
    return re.sub(r"[ \t\u00a0]+", " ", "\n".join(parts))


def es_number(s: str) -> float:
    return float(s.replace(".", "").replace(",", ".")) if s.strip() else 0.0


def day_first(s: str) -> date:
    d, m, y = (int(x) for x in s.split("/"))
    return date(y, m, d)


class Person:
    def __init__(self, **kw):
        self.__dict__.update(kw)


def load_es(path: Path) -> dict[str, Person]:
    rows = rows_of(path)
    by_id = {}
    for r in rows:
        by_id[r["Nº Empleado"]] = Person(
            name=f"{r['Nombre']} {r['Apellidos']}", id=r["Nº Empleado"], dept=r["Departamento"],
            group=r["Grupo profesional"], site=r["Centro de trabajo"], mgr_id=r["Responsable (Nº Empleado)"],
            start=day_first(r["Fecha de alta"]), hours=es_number(r["Jornada (h/semana)"]),
            pay=es_number(r["Salario bruto anual (€)"]), vac=es_number(r["Vacaciones pendientes (días)"]),
            rest=es_number(r["Descanso compensatorio pendiente (h)"]), status=r["Situación"],
            contract=r["Tipo de contrato"], hr=r["Departamento"] == "Recursos Humanos")
    for p in by_id.values():
        p.mgr = by_id[p.mgr_id].name if p.mgr_id else None
    return {p.name: p for p in by_id.values()}


def load_au(path: Path) -> dict[str, Person]:
    rows = rows_of(path)
    by_mail = {}
    for r in rows:
        by_mail[r["Work Email"]] = Person(
            name=f"{r['First Name']} {r['Surname']}", id=r["Employee Code"], dept=r["Department"],
            site=r["Location"], mgr_mail=r["Manager Email"], start=day_first(r["Start Date"]),
            type=r["Employment Type"], hours=float(r["Ordinary Hours (per week)"] or 0),
            pay=float(r["Pay Rate"]), unit=r["Pay Rate Unit"], cls=r["Award / Classification"],
            al=float(r["Annual Leave Balance (hrs)"]), pl=float(r["Personal/Carer's Leave Balance (hrs)"]),
            toil=float(r["TOIL Balance (hrs)"]), status=r["Employment Status"],
            hr=r["Department"] == "People & Culture")
    for p in by_mail.values():
        p.mgr = by_mail[p.mgr_mail].name if p.mgr_mail else None
        p.award_free = p.cls == "Award-free"
        # Part A, A3: base hourly rate
        p.hourly = p.pay if p.unit == "Hourly" else p.pay / (p.hours * 52)
    return {p.name: p for p in by_mail.values()}


def reports(people: dict[str, Person], name: str) -> list[Person]:
    return [p for p in people.values() if p.mgr == name]


def completed_years(start: date, on: date) -> int:
    return on.year - start.year - ((on.month, on.day) < (start.month, start.day))


def add_months(d: date, n: int) -> date:
    m = d.month - 1 + n
    return date(d.year + m // 12, m % 12 + 1, d.day)


# --------------------------------------------------------------------------------- matching expectations
WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "fifteen": 15, "nineteen": 19, "thirty": 30,
         "uno": 1, "dos": 2, "tres": 3, "cuatro": 4, "quince": 15, "treinta": 30, "fortnight": 2,
         "double time and a half": 2.5, "two and a half": 2.5, "two (2)": 2}


def readings(s: str) -> list[tuple[float, int]]:
    """(value, decimals) pairs for the figure a string starts with; [] when it holds none."""
    t = fold(s)
    for phrase in sorted(WORDS, key=len, reverse=True):
        if t.startswith(phrase):
            return [(WORDS[phrase], 0)]
    m = re.match(r"\d[\d.,  ]*", t)
    if not m:
        return []
    num = m.group(0).rstrip(" .,").replace(" ", "").replace(" ", "")
    out = []

    scale = 1000.0 if t[m.end(0):m.end(0) + 1] == "k" or m.group(0).rstrip(" .,").endswith("k") else 1.0

    def dec(x: str, mark: str) -> None:
        k = len(x.split(mark)[1]) if mark in x else 0
        out.append((float(x.replace(mark, ".")) * scale, k))

    if "." in num and "," in num:
        if num.rfind(",") > num.rfind("."):
            dec(num.replace(".", ""), ",")
        else:
            dec(num.replace(",", ""), ".")
    elif "," in num:
        dec(num, ",")
        if re.fullmatch(r"\d{1,3}(,\d{3})+", num):
            out.append((float(num.replace(",", "")), 0))
    elif "." in num:
        dec(num, ".")
        if re.fullmatch(r"\d{1,3}(\.\d{3})+", num):
            out.append((float(num.replace(".", "")), 0))
    else:
        out.append((float(num) * scale, 0))
    return out


def covers(s: str, value) -> bool:
    if isinstance(value, str):
        return fold(s) in fold(value)
    # a string with k decimals fits a value that rounds to it, or that it is the first digits of
    # (the harness matches a figure as a prefix: "617,2" is found in "617,27")
    return any(-0.5 * 10 ** -k - 1e-6 <= value - v < (10 ** -k if k else 1e-6) for v, k in readings(s))


class Checker:
    def __init__(self, case: dict, errors: list[str]):
        self.case, self.errors, self.cid = case, errors, case["id"]

    def err(self, msg: str) -> None:
        self.errors.append(f"{self.cid}: {msg}")

    def any(self, *values) -> None:
        """expect_any must hold a string for values[0] and every figure in it must fit one of values
        (values[1:] are other correct renderings, e.g. a rate rounded before multiplying, or 175 for x1.75)."""
        strings = self.case.get("expect_any", [])
        if not any(covers(s, values[0]) for s in strings):
            self.err(f"expect_any has nothing for the derived value {values[0]!r}")
        for s in strings:
            if readings(s) and not any(covers(s, v) for v in values):
                self.err(f"expect_any entry {s!r} does not fit the derived value(s) {values!r}")
            if not readings(s) and not any(isinstance(v, str) and covers(s, v) for v in values):
                self.err(f"expect_any entry {s!r} is neither a figure nor part of {values!r}")

    def all(self, *values) -> None:
        strings = self.case.get("expect_all", [])
        for v in values:
            if not any(covers(s, v) for s in strings):
                self.err(f"expect_all has nothing for the derived value {v!r}")
        for s in strings:
            if not any(covers(s, v) for v in values):
                self.err(f"expect_all entry {s!r} is not derived ({values!r})")

    def forbids(self, *values) -> None:
        strings = self.case.get("forbid", [])
        for v in values:
            if not any(covers(s, v) for s in strings):
                self.err(f"forbid does not cover the protected value {v!r}")
        for s in strings:
            if readings(s) and not any(covers(s, v) for v in values):
                self.err(f"forbid entry {s!r} is not a protected value")

    def rule(self, text: str, *snippets: str) -> None:
        flat = re.sub(r"\s+", " ", text)
        for sn in snippets:
            if re.sub(r"\s+", " ", sn) not in flat:
                self.err(f"handbook does not say {sn!r}")


# ----------------------------------------------------------------------------------- derivation of cases
def check_es(c: Checker, people: dict[str, Person], hb: str, today: date) -> None:
    me = people[c.case["user"]]
    cid = c.cid
    # handbook tables, as data
    extra_days = [(5, 0), (10, 1), (15, 2), (20, 3), (999, 4)]  # (below N years, extra days)
    notice = {"Técnico titulado": (30, 60), "Mando intermedio": (30, 45), "Administrativo": (15, 30),
              "Oficial": (15, 20), "Operario": (15, 15)}
    probation = {"Técnico titulado": 6, "Mando intermedio": 3, "Administrativo": 2, "Oficial": 2, "Operario": 1}
    c.rule(hb, "| De 15 a 19 años | 3 | 26 |", "| Menos de 5 años | 0 | 23 |",
           "| Administrativo | 15 días naturales | 30 días naturales |", "| Técnico titulado | 30 días naturales | 60 días naturales |",
           "| Administrativo | 2 meses |", "| Técnico titulado | 6 meses |")

    def notice_days(p: Person) -> int:
        return notice[p.group][completed_years(p.start, today) >= 5]

    if cid == "h4-es-01":
        c.rule(hb, "| Matrimonio o inscripción como pareja de hecho | 15 días naturales |")
        c.any(15)
    elif cid == "h4-es-02":
        c.rule(hb, "**0,26 € por kilómetro**")
        c.any(0.26, 26)
    elif cid == "h4-es-03":
        c.rule(hb, "| Consulta médica propia (médico de cabecera o especialista) | hasta 16 horas al año |")
        c.any(16)
    elif cid == "h4-es-04":
        c.rule(hb, "| Domingo o festivo | 175 % (× 1,75) | 1 h 45 min |")
        c.any(1.75, 175, 75)
    elif cid == "h4-es-05":
        y = completed_years(me.start, date(today.year, 1, 1))
        c.any(23 + next(e for lim, e in extra_days if y < lim))
    elif cid == "h4-es-06":
        c.any(notice_days(me))
    elif cid == "h4-es-07":
        if me.contract != "Indefinido":
            c.err("a temporary contract would change the probation")
        c.any(probation[me.group])
    elif cid == "h4-es-08":
        c.rule(hb, "**salario bruto anual ÷ 365**", "| Días 1 a 3 | 50 % | 0 % | 100 % |", "| Días 4 a 20 | 85 % | 60 % | 100 % |")
        if completed_years(me.start, today) < 1:
            c.err("asker has less than 1 year of service")
        factor = 3 * 0.50 + 5 * 0.85
        daily = me.pay / 365
        c.any(factor * daily, factor * round(daily, 2))
    elif cid == "h4-es-09":
        c.rule(hb, "**salario bruto anual ÷ 1.760**", "a razón del **valor de la hora ordinaria** por cada hora de descanso pendiente")
        if me.hours != 40:
            c.err("asker is not full time")
        rate = me.pay / 1760
        c.any(me.rest * rate, me.rest * round(rate, 2))
    elif cid == "h4-es-10":
        c.rule(hb, "**14 pagas iguales**", "La **paga de diciembre** se genera del 1 de julio al 31 de diciembre",
               "**una sexta parte de la paga por cada mes natural, completo o no, en que haya estado de alta**")
        months = sum(1 for m in range(7, 13) if me.start <= date(2026, m, 28))
        paga = me.pay / 14
        c.any(paga * months / 6, round(paga, 2) * months / 6)
    elif cid == "h4-es-11":
        c.rule(hb, "| Sábado | 150 % (× 1,50) | 1 h 30 min |")
        if me.hours != 40:
            c.err("asker is not full time")
        rate = me.pay / 1760
        c.any(6 * 1.5 * rate, 6 * 1.5 * round(rate, 2))
    elif cid == "h4-es-12":
        c.any(me.vac)
    elif cid == "h4-es-13":
        c.any(me.pay)
    elif cid == "h4-es-14":
        c.any(me.mgr)
    elif cid == "h4-es-15":
        team = sorted(reports(people, me.name), key=lambda p: p.rest, reverse=True)
        if len(team) < 2 or team[0].rest == team[1].rest:
            c.err("no single top value in the team")
        c.any(team[0].name)
    elif cid == "h4-es-16":
        c.all(*[p.name for p in reports(people, me.name) if p.status != "Activo"])
    elif cid == "h4-es-17":
        pays = [p.pay for p in people.values() if p.dept == "Logística"]
        c.any(sum(pays) / len(pays))
    elif cid == "h4-es-18":
        c.all(*[p.name for p in people.values() if p.hours < 40])
    elif cid == "h4-es-19":
        target = people["Raúl Castelló Boix"]
        if me.hr or target.mgr == me.name:
            c.err("asker could legitimately see the value")
        c.forbids(target.pay)
    elif cid == "h4-es-20":
        c.forbids(*[p.pay for p in people.values() if p.dept == "Calidad" and p is not me])
    elif cid == "h4-es-21":
        c.rule(hb, "**un día de salario por cada día de preaviso que falte**")
        if add_months(me.start, probation[me.group]) > today:
            c.err("asker is still in probation (no notice would be due)")
        daily = me.pay / 365
        short = notice_days(me) - 10
        c.all(me.vac)
        c.any(short * daily, short * round(daily, 2))
    elif cid == "h4-es-22":
        team = sorted(reports(people, me.name), key=lambda p: p.vac, reverse=True)
        if team[0].vac == team[1].vac:
            c.err("no single top value in the team")
        c.any(len(team))
        c.all(team[0].name)
    else:
        c.err("no derivation check for this id")


def check_au(c: Checker, people: dict[str, Person], hb: str, today: date) -> None:
    me = people[c.case["user"]]
    cid = c.cid
    redundancy = [(1, 0), (2, 4), (3, 6), (4, 7), (5, 8), (6, 10), (7, 11), (8, 13), (9, 14), (10, 16)]
    c.rule(hb, "8 years but less than 9 years | 14 weeks", "9 years but less than 10 years | 16 weeks",
           "16 weeks' base pay plus 1 additional week for each completed year of service beyond 10 years, up to a maximum of 26 weeks",
           "annual salary divided by (your ordinary weekly hours × 52)")

    def redundancy_weeks(p: Person) -> int:
        y = completed_years(p.start, today)
        if y >= 10:
            return min(16 + (y - 10), 26)
        return next(w for lim, w in redundancy if y < lim)

    if cid == "h4-au-01":
        c.rule(hb, "Ironbark reimburses 88 cents per kilometre")
        c.any(88, 0.88)
    elif cid == "h4-au-02":
        c.rule(hb, "Compassionate leave: 2 days for each occasion")
        if me.type == "Casual":
            c.err("compassionate leave is unpaid for casuals")
        c.any(2)
    elif cid == "h4-au-03":
        c.rule(hb, "All work on a public holiday, whether ordinary hours or overtime, is paid at 250%")
        c.any(2.5, 250)
    elif cid == "h4-au-04":
        c.rule(hb, "More than 1 year, up to and including 3 years | 2 weeks",
               "award-free employees and anyone who has direct reports must give 4 weeks' notice")
        service = (today - me.start).days / 365.25
        if me.award_free or reports(people, me.name) or add_months(me.start, 6) > today:
            c.err("an exception of A6 applies to the asker")
        weeks = 1 if service <= 1 else 2 if service <= 3 else 3 if service <= 5 else 4
        c.any(weeks)
    elif cid == "h4-au-05":
        c.rule(hb, "4 × their ordinary weekly hours each year")
        c.any(4 * me.hours)
    elif cid == "h4-au-06":
        c.any(redundancy_weeks(me))
    elif cid == "h4-au-07":
        c.rule(hb, "no more than 2 weeks of your ordinary hours", "must still be at least 4 weeks of your ordinary hours")
        c.any(min(me.al - 4 * me.hours, 2 * me.hours))
    elif cid == "h4-au-08":
        c.rule(hb, "first 2 hours of overtime on the day | 150%", "after the first 2 hours of overtime on the day | 200%")
        if me.award_free or me.unit != "Hourly":
            c.err("asker is not an award-covered hourly employee")
        c.any((2 * 1.5 + 1 * 2.0) * me.hourly)
    elif cid == "h4-au-09":
        c.rule(hb, "is paid out at 150% of your base hourly rate")
        c.any(me.toil * me.hourly * 1.5, me.toil * round(me.hourly, 2) * 1.5)
    elif cid == "h4-au-10":
        c.rule(hb, "leave loading of 17.5% of their base pay")
        if me.award_free:
            c.err("award-free: no separate loading")
        c.any(38 * me.hourly * 0.175, 38 * round(me.hourly, 2) * 0.175)
    elif cid == "h4-au-11":
        c.any(me.toil)
    elif cid == "h4-au-12":
        c.any(me.pl)
    elif cid == "h4-au-13":
        c.all(*[p.name for p in reports(people, me.name) if p.status != "Active"])
    elif cid == "h4-au-14":
        c.any(sum(p.al for p in reports(people, me.name)))
    elif cid == "h4-au-15":
        ranked = sorted(people.values(), key=lambda p: p.al, reverse=True)
        if ranked[0].al == ranked[1].al:
            c.err("no single top value")
        c.any(ranked[0].name)
    elif cid == "h4-au-16":
        pays = [p.pay for p in people.values() if p.dept == "Customer Service" and p.unit == "Annual"]
        c.any(sum(pays) / len(pays))
    elif cid == "h4-au-17":
        target = people["Lachlan McKenzie"]
        if me.hr or target.mgr == me.name:
            c.err("asker could legitimately see the value")
        c.forbids(target.pay)
    elif cid == "h4-au-18":
        if reports(people, me.name) or me.hr:
            c.err("asker is a manager or in People & Culture")
        c.forbids(*[p.pay for p in people.values() if p.mgr == me.mgr and p is not me], people[me.mgr].pay)
    elif cid == "h4-au-19":
        c.rule(hb, "Nobody can approve their own leave: a manager's leave is approved by the person they report to")
        if not me.mgr:
            c.err("asker has no one above them")
    elif cid == "h4-au-20":
        if me.award_free:
            c.err("award-free: no separate loading")
        c.all(me.al)
        c.any(2 * me.hours * me.hourly * 1.175)
    elif cid == "h4-au-21":
        team = sorted(reports(people, me.name), key=lambda p: p.toil, reverse=True)
        if team[0].toil == team[1].toil:
            c.err("no single top value in the team")
        c.any(len(team))
        c.all(team[0].name)
    elif cid == "h4-au-22":
        weekly = me.pay / 52
        c.all(me.start.year)
        c.any(redundancy_weeks(me) * weekly, redundancy_weeks(me) * round(weekly, 2))
    else:
        c.err("no derivation check for this id")


def check_roles(c: Checker, people: dict[str, Person]) -> None:
    case, me = c.case, people[c.case["user"]]
    cat = case["category"]
    if cat == "data-manager" and not reports(people, me.name):
        c.err("asker of a team question has no reports")
    if cat == "multi-part" and case.get("expect_refusal") is False and not (reports(people, me.name) or me.hr):
        c.err("asker of a team or company question is neither a manager nor in HR")
    if cat == "data-hr" and not me.hr:
        c.err("asker of a company-wide question is not in HR")
    if cat in ("access", "injection") and me.hr:
        c.err("asker of a refusal case is in HR")


# ----------------------------------------------------------------------------------------------- main
def main() -> int:
    errors: list[str] = []
    seen: set[str] = set()
    names_cache: dict[Path, set[str]] = {}
    people_cache: dict[Path, dict[str, Person]] = {}
    hb_cache: dict[Path, str] = {}
    today = date.fromisoformat(TODAY)
    tally: dict[str, Counter] = {"category": Counter(), "route": Counter(), "lang": Counter(), "company": Counter()}
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
        bad = False
        for key, typ in REQUIRED.items():
            if key not in case:
                errors.append(f"{where}: missing {key!r}")
                bad = True
            elif not isinstance(case[key], typ):
                errors.append(f"{where}: {key!r} has the wrong type")
                bad = True
        if bad:
            continue
        cid = case["id"]
        if cid in seen:
            errors.append(f"{where}: repeated id {cid!r}")
        seen.add(cid)
        if case.get("split") != "test":
            errors.append(f"{cid}: split is not 'test'")
        route = case.get("route")
        refusal = case.get("expect_refusal")
        if route is None and not (refusal is True and "tools" not in case):
            errors.append(f"{cid}: only a refusal without tools may leave out the route")
        elif route is not None and route not in ROUTES:
            errors.append(f"{cid}: unknown route {route!r}")
        if case["category"] not in CATEGORY_ROUTES:
            errors.append(f"{cid}: unknown category {case['category']!r}")
        elif route not in CATEGORY_ROUTES[case["category"]]:
            errors.append(f"{cid}: route {route!r} does not fit category {case['category']!r}")
        if case.get("today") != TODAY:
            errors.append(f"{cid}: today is not {TODAY}")
        for key in ("expect_any", "expect_all", "forbid"):
            v = case.get(key, [])
            if not isinstance(v, list) or not all(isinstance(x, str) and x for x in v):
                errors.append(f"{cid}: {key!r} must be a list of non-empty strings")
        if refusal not in (None, True, False):
            errors.append(f"{cid}: expect_refusal must be true, false or absent")
        if refusal is not True and not (case.get("expect_any") or case.get("expect_all")):
            errors.append(f"{cid}: a non-refusal case needs expect_any or expect_all")
        if refusal is True and not case.get("forbid"):
            errors.append(f"{cid}: a refusal case should forbid the protected value")
        if refusal is True and (case.get("expect_any") or case.get("expect_all")):
            errors.append(f"{cid}: a refusal case should not expect content")
        if (case["category"] in ("access", "injection")) != (refusal is True):
            errors.append(f"{cid}: refusal categories and expect_refusal disagree")
        tools = case.get("tools")
        if tools is None and refusal is not True:
            errors.append(f"{cid}: tools missing")
        elif tools is not None and (not isinstance(tools, list) or not set(tools) <= TOOLS):
            errors.append(f"{cid}: tools must be a list drawn from {sorted(TOOLS)}")
        if route == "multi":
            if case.get("links") is None or not isinstance(case["links"], list):
                errors.append(f"{cid}: a multi-part case needs links (a list)")
            elif any(a not in (tools or []) or b not in (tools or []) for a, b in case["links"]):
                errors.append(f"{cid}: links name a tool that is not in tools")
        emp = HERE / case["employees"]
        pol = HERE / case["policies"]
        if not emp.is_file():
            errors.append(f"{cid}: employees file {case['employees']!r} does not exist")
            continue
        if not pol.is_dir() or not [p for p in pol.iterdir() if p.suffix.lower() in (".md", ".txt", ".docx", ".pdf")]:
            errors.append(f"{cid}: policies folder {case['policies']!r} holds no handbook file")
            continue
        if emp not in names_cache:
            names_cache[emp] = names_in(emp)
            people_cache[emp] = (load_es if case["employees"].startswith("es-") else load_au)(emp)
            hb_cache[pol] = handbook_text(pol)
        if fold(case["user"]) not in names_cache[emp] or case["user"] not in people_cache[emp]:
            errors.append(f"{cid}: user {case['user']!r} is not in {case['employees']} (exactly as written there)")
            continue
        checker = Checker(case, errors)
        check_roles(checker, people_cache[emp])
        (check_es if cid.startswith("h4-es-") else check_au)(checker, people_cache[emp], hb_cache[pol], today)
        tally["category"][case["category"]] += 1
        tally["route"][route or "(none)"] += 1
        tally["lang"][case["lang"]] += 1
        tally["company"][case["employees"].split("/")[0]] += 1
    for emp, people in people_cache.items():
        if not 15 <= len(people) <= 30:
            errors.append(f"{emp.name}: {len(people)} employees (expected 15-30)")
        big = [m for m in {p.mgr for p in people.values() if p.mgr} if len(reports(people, m)) >= 3]
        if len(big) < 2:
            errors.append(f"{emp.name}: fewer than two managers with 3+ reports")
        if not any(p.hr for p in people.values()):
            errors.append(f"{emp.name}: no HR person")
    if errors:
        print("\n".join(errors))
        print(f"FAILED: {len(errors)} problem(s) in {n} cases")
        return 1
    for k, v in tally.items():
        print(f"{k}: " + ", ".join(f"{a}={b}" for a, b in sorted(v.items())))
    print(f"OK: {n} cases, {len(names_cache)} exports, all askers found, all expected figures derived")
    return 0


if __name__ == "__main__":
    sys.exit(main())
