"""Each column's role in an employee export, decided from its header words in any language *and* its values.

A header says what a column is in the company's own language ("Personalnummer", "Vorgesetzter",
"Resturlaub (Tage)"); the values say it in every language: a column whose values are the ids of
another column is the manager reference, a column of "Aktiv" / "Elternzeit" is a status and not a
contract type, a column of "Teilzeit" / "Vollzeit" is. The words come from the language files
(:mod:`engine.data.vocab`); this module weighs them against the values and records, for every role
it filled, the evidence and a confidence that ``hr-assistant data --check`` prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from engine.data.vocab import fold, vocabulary

#: Every role the data layer knows, in the order ``data --check`` prints them, with what it is.
ROLES: dict[str, str] = {
    "employee_id": "the person's id",
    "name": "the person's full name",
    "first_name": "given name",
    "last_name": "family name",
    "preferred_name": "the name a person goes by",
    "manager": "the manager (by id, name or e-mail)",
    "department": "department",
    "job_title": "job title",
    "grade": "grade or level (of a pay scale)",
    "site": "site or location",
    "email": "e-mail",
    "username": "user name (sign-in)",
    "hire_date": "hire date",
    "contract_end": "end of a fixed term",
    "probation_end": "end of probation",
    "employment_type": "full- or part-time",
    "status": "status (active, on leave, inactive)",
    "weekly_hours": "hours per week",
    "days_per_week": "days worked per week",
    "fte": "full-time equivalent",
    "pay": "pay",
    "pay_basis": "hourly or salaried, per row",
    "vacation_balance": "vacation balance",
    "sick_balance": "sick leave balance",
    "overtime_balance": "hours banked to take off (time off in lieu, Zeitausgleich)",
    "cost_centre": "cost centre",
}
#: Roles a column can have only one of, and the kind of values each takes.
_KIND = {"employee_id": "id", "name": "text", "first_name": "text", "last_name": "text", "preferred_name": "text",
         "manager": "any", "department": "text", "job_title": "text", "grade": "any", "site": "text", "email": "text",
         "username": "text", "hire_date": "date", "contract_end": "date", "probation_end": "date",
         "employment_type": "text", "status": "text", "weekly_hours": "number", "days_per_week": "number",
         "fte": "number", "pay": "number", "pay_basis": "text", "vacation_balance": "number",
         "sick_balance": "number", "overtime_balance": "number", "cost_centre": "any"}
#: Roles whose columns everyone may read (the directory): a column only a header word or IT's map names.
PUBLIC_ROLES = ("employee_id", "name", "first_name", "last_name", "preferred_name", "manager", "department",
                "job_title", "email")
#: Roles that may name several columns (every pay column, every balance of a kind).
MULTI = ("pay", "vacation_balance", "sick_balance")
_CURRENCY = re.compile(r"\b(usd|eur|gbp|chf|sek|nok|dkk|pln|czk|huf|php|inr|cad|aud|brl|mxn)\b|[$€£₱₹]", re.I)
#: A leave figure per period is a rate of accrual, not a balance ("PTO Accrual Rate (hrs/pay period)").
_PER_PERIOD = re.compile(r"\brate\b|\baccrual\b|/\s*(pay\s*)?(period|week|month|year|wk|mo|yr)\b", re.I)
_NAME_WORD = re.compile(r"^[^\W\d_][\w'’.-]*$")
#: Lower-case words inside names (Portuguese, Spanish, Dutch, German, Italian, French).
_PARTICLES = {"da", "das", "de", "del", "della", "der", "di", "do", "dos", "du", "e", "la", "le", "van", "von", "y",
              "ten", "ter", "den", "zu", "dal", "d'"}


@dataclass
class Finding:
    """Why a column got a role: the evidence in words, and how sure (0 to 1)."""

    role: str
    column: str
    confidence: float
    evidence: list[str] = field(default_factory=list)
    language: str = ""  # the language of the header word that named it ("" where values did)
    suggested: bool = False  # found, but not used until IT's map says so (a manager known only by values)

    def line(self) -> str:
        return f"{self.role}: '{self.column}' ({self.confidence:.2f}; {'; '.join(self.evidence)})"


def _present(df, column: str) -> list[Any]:
    return [v for v in df[column] if v is not None and v == v and str(v).strip() != ""]


def _key(value: Any) -> str:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return fold(str(value))


def _fits(kind: str, col, values: list[Any]) -> bool:
    if kind == "number":
        return col.dtype in ("int", "float")
    if kind == "date":
        return col.dtype == "date"
    if kind == "text":
        return col.dtype == "text"
    if kind == "id":
        return col.dtype in ("text", "int") and len(values) > 0 and len({_key(v) for v in values}) == len(values)
    return True


def _person_names(values: list[Any], words: tuple[int, int]) -> float:
    """The share of values that look like a person's name of ``words`` (min, max) words; a particle inside a
    name ("Maria da Silva", "Jan van Dijk") is no word of its own."""
    if not values:
        return 0.0
    good = 0
    for v in values:
        parts = str(v).replace(",", " ").split()
        parts = parts[:1] + [p for p in parts[1:] if p not in _PARTICLES]
        if words[0] <= len(parts) <= words[1] and all(_NAME_WORD.match(p) and p[0].isupper() for p in parts):
            good += 1
    return good / len(values)


def _name_key(value: Any) -> str:
    """A name as "given family", also where the column writes it "Family, Given" (a manager column that
    names people the usual way refers to it)."""
    text = str(value)
    if text.count(",") == 1:
        family, given = (p.strip() for p in text.split(","))
        text = f"{given} {family}"
    return _key(text)


def _value_share(values: list[Any], kinds: tuple[str, ...]) -> tuple[float, str]:
    """The share of values that are words of ``kinds``, and the language they are in (the first found)."""
    vocab = vocabulary()
    hits = [v for v in values if vocab.value_kind(v, kinds)]
    lang = next((vocab.value_language(v, vocab.value_kind(v, kinds)) for v in hits), "")
    return (len(hits) / len(values) if values else 0.0), lang


def _references(values: dict, source: str, target: str) -> float:
    """The share of ``source``'s values that are values of ``target`` (a manager column's ids or names);
    ``values``: each column's present values, as ``infer_roles`` gathered them once."""
    if not values[source]:
        return 0.0
    keys = {_key(v) for v in values[target]} | {_name_key(v) for v in values[target]}
    # ("ROUSSET Bernard" for "Bernard Rousset": a two-word name family name first, as French exports write managers)
    keys |= {_key(" ".join(reversed(str(v).split()))) for v in values[target] if len(str(v).split()) == 2}
    return sum(_key(v) in keys for v in values[source]) / len(values[source])


def infer_roles(columns: dict, df, guessed: dict[str, list[str]]) -> tuple[dict[str, list[str]], dict[str, Finding]]:
    """Roles for a table's columns, starting from ``guessed`` (the English header patterns), with a
    :class:`Finding` for each role filled. Header words in every language fill what is left; values
    correct what the headers got wrong and fill what no header names."""
    roles = {r: list(c) for r, c in guessed.items()}
    findings: dict[str, Finding] = {}
    values = {name: _present(df, name) for name in columns}
    taken = {c for r, cols in roles.items() if r not in ("sorted_name",) for c in cols}

    # The English patterns match parts of words ("pay" in "Solde congés payés"): where another language's
    # words name another role for the header and none of theirs is the pattern's, those words are right.
    for role, cols in list(roles.items()):
        for c in list(cols):
            # (and "Pay Grade", "Salary Band": a grade of a pay scale, which the English patterns read as pay)
            named = [r for r, _, e in header_candidates(c) if (e.language != "en" or r == "grade")
                     and _fits(_KIND[r], columns[c], values[c])]
            if role in _KIND and named and role not in named:
                cols.remove(c)
                taken.discard(c)
        if not cols:
            roles.pop(role)
    # A "name" the English guess took from the first capitalised text ("Directrice générale") must hold names.
    # And a column of names that repeat is whose names others give (a manager, "Chef"), not the rows' own: taken
    # for the name, it made a manager of three people sign in as none of them.
    name = next(iter(roles.get("name") or []), None)
    if name and not columns[name].derived_from and (
            _person_names(values[name], (1, 4)) < 0.5
            or len(values[name]) >= 5 and len({_key(v) for v in values[name]}) < 0.8 * len(values[name])):
        roles.pop("name")
        taken.discard(name)
    for role, cols in roles.items():
        for c in cols[:1]:
            findings[role] = Finding(role, c, 0.85, [f"header '{c}' (English pattern)"])
    _status_or_contract(columns, roles, findings, values, taken)

    # 1. Header words of every language, best match first; a manager's id is a manager, not an id.
    candidates = []
    for name, col in columns.items():
        for role, score, entry in header_candidates(name):
            if role == "employment_type" and header_unit(name) == "hours" and _fits("number", col, values[name]):
                role = "weekly_hours"  # ("Temps de travail (h/sem)": working time, in hours a week)
            if not _fits(_KIND[role], col, values[name]):
                continue
            candidates.append((score, role, name, entry))
    for score, role, name, entry in sorted(candidates, key=lambda t: -t[0]):
        if role in MULTI:
            if name in taken and name not in roles.get(role, []):
                continue
            if name not in roles.setdefault(role, []):
                roles[role].append(name)
                taken.add(name)
            findings.setdefault(role, _header_finding(role, name, score, entry))
            continue
        if name in taken:
            if roles.get(role) == [name] and role in findings and "English" in findings[role].evidence[0]:
                findings[role] = _header_finding(role, name, score, entry)
            continue
        if roles.get(role):
            continue
        roles[role] = [name]
        taken.add(name)
        findings[role] = _header_finding(role, name, score, entry)

    _by_values(columns, df, roles, findings, values, taken)
    # A cost centre written as words ("1000 Administration") is the department where no column names one.
    # (it keeps its role of cost centre too: a cost centre's name never makes anyone HR, see make_viewer; a trainee
    # booked to the "Personal" cost centre is no HR)
    cost = next(iter(roles.get("cost_centre") or []), None)
    if cost and not roles.get("department") and columns[cost].dtype == "text":
        roles["department"] = [cost]
        findings["department"] = Finding("department", cost, 0.7, [
            *(findings["cost_centre"].evidence if "cost_centre" in findings else []),
            "a cost centre in words, and no column names the department"])
    return roles, findings


def header_candidates(header: str) -> list:
    """(role, score, entry) for the roles a header's words name in any language, best first, with the
    rules words alone settle: a manager's number is a manager reference, not the row's id, and a
    header with a currency ("Urlaubsgeld (EUR)") is money, not a balance of days."""
    matches = vocabulary().header_roles(header)
    roles_here = {r for r, _, _ in matches} | taken_words(header)
    return [(role, score, entry) for role, score, entry in matches
            if role in _KIND
            and not (role == "employee_id" and "manager" in roles_here)
            # "Vacation Used", "Urlaub genommen": what was used, not what is left (never booked against)
            and not (role in ("vacation_balance", "sick_balance", "overtime_balance") and ("leave_taken" in roles_here
                                                                        or _CURRENCY.search(header)
                                                                        or _PER_PERIOD.search(header)))
            # a header that says pay never gets a role everyone may read ("Salaire N-1" is no manager)
            and not (role in PUBLIC_ROLES and "pay" in roles_here)]


def taken_words(header: str) -> set[str]:
    """{"leave_taken"} where a header's words, brackets included, say it counts what was used ("Sick Days
    (rolling 12 mths)", "Urlaub (genommen)"), else an empty set."""
    words = fold(header).split()
    return {"leave_taken"} if any(e.score(words) for e in vocabulary().headers.get("leave_taken", [])) else set()


def _header_finding(role: str, name: str, score: float, entry) -> Finding:
    confidence = min(0.95, 0.7 + 0.15 * score)  # the values already fit the role (checked above)
    return Finding(role, name, round(confidence, 2), [f"header word '{entry.text.strip('=')}' ({entry.language})"],
                   entry.language)


def _move(roles: dict, findings: dict, taken: set, role: str, column: str, finding: Finding) -> None:
    for r in [r for r, cols in roles.items() if column in cols and r != role and r not in MULTI]:
        roles.pop(r)
        findings.pop(r, None)
    roles[role] = [column]
    findings[role] = finding
    taken.add(column)


def _by_values(columns: dict, df, roles: dict, findings: dict, values: dict, taken: set) -> None:
    """What the values say: manager references, names, e-mails, status against contract type."""
    n = len(df)
    # A "Name" column of single words beside a given-name column is the family name (German "Name", French "Nom").
    name = (roles.get("name") or [None])[0]
    if name and roles.get("first_name") and not roles.get("last_name") and _person_names(values[name], (1, 1)) > 0.8:
        _move(roles, findings, taken, "last_name", name,
              Finding("last_name", name, 0.8, [f"single-word names beside the given names in "
                                               f"'{roles['first_name'][0]}'"]))
        roles.pop("name", None)
    # A given-name column with no family name beside it ("Nome": "Rui Manuel Ferreira Lopes"), or a family-name
    # column with no given name beside it ("Naam": "Maarten de Wit"), whose values are whole names is the full
    # name: the header word means either in some languages.
    for part, other, holds in (("first_name", "last_name", "family names"), ("last_name", "first_name", "given names")):
        column = (roles.get(part) or [None])[0]
        if not column or roles.get(other) or roles.get("name"):
            continue
        share = _person_names(values[column], (2, 6))
        if share >= 0.8 and len({_key(v) for v in values[column]}) >= 0.9 * len(values[column]):
            evidence = findings[part].evidence if part in findings else []
            _move(roles, findings, taken, "name", column,
                  Finding("name", column, round(0.5 + 0.4 * share, 2),
                          [*evidence, f"{share:.0%} of the values are whole names (given and family) and no "
                                      f"column holds {holds}"]))
    # E-mail: values with an @ and a domain, one per person. A column where several rows share an address is
    # not the rows' own ("Reports To (email)"): taking it would make everyone with one manager that manager.
    own = (roles.get("email") or [None])[0]
    if own and (own in (roles.get("manager") or []) or len({_key(v) for v in values[own]}) < len(values[own])):
        roles["email"] = [c for c in roles["email"] if c != own]
        if not roles["email"]:
            roles.pop("email")
        findings.pop("email", None)
    if not roles.get("email"):
        for c, col in columns.items():
            vs = values[c]
            if col.dtype == "text" and vs and c not in roles.get("manager", []) \
                    and (c not in taken or c in roles.get("email", [])) \
                    and len({_key(v) for v in vs}) == len(vs) \
                    and all(re.match(r"^[^@\s]+@[^@\s]+\.\w+$", str(v)) for v in vs):
                _move(roles, findings, taken, "email", c, Finding("email", c, 0.95, ["every value is an e-mail address"]))
                break
    # Names: a text column of unique "First Last" values.
    if not roles.get("name") and not (roles.get("first_name") and roles.get("last_name")):
        for c, col in columns.items():
            vs = values[c]
            if c in taken or col.dtype != "text" or len(vs) < max(2, n // 2):
                continue
            share = _person_names(vs, (2, 4))
            if share >= 0.9 and len({_key(v) for v in vs}) >= 0.9 * len(vs):
                _move(roles, findings, taken, "name", c,
                      Finding("name", c, round(0.5 + 0.4 * share, 2), [f"{share:.0%} of the values are person names"]))
                break
    else:
        for role in ("name", "first_name", "last_name"):
            c = (roles.get(role) or [None])[0]
            if c and role in findings:
                share = _person_names(values[c], (2, 4) if role == "name" else (1, 3))
                findings[role].evidence.append(f"{share:.0%} of the values look like names")
    # The id: the values must be unique; a column another column refers to is the id.
    ident = (roles.get("employee_id") or [None])[0]
    if ident and "employee_id" in findings:
        if len({_key(v) for v in values[ident]}) < len(values[ident]):
            findings["employee_id"].evidence.append("values are not unique")
            findings["employee_id"].confidence = min(findings["employee_id"].confidence, 0.4)
        else:
            findings["employee_id"].evidence.append("unique values")
    # A name split over two columns is matched whole ("Markus Hofbauer" in "Vorgesetzte/r"), as the loader joins it.
    if not roles.get("name") and roles.get("first_name") and roles.get("last_name"):
        joined = [" ".join(str(p).strip() for p in (a, b) if isinstance(p, str) and p.strip())
                  for a, b in zip(df[roles["first_name"][0]], df[roles["last_name"][0]])]
        values[_JOINED] = [v for v in joined if v]
    mgr = (roles.get("manager") or [None])[0]
    if mgr and not roles.get("employee_id"):
        _id_by_references(columns, df, roles, findings, values, taken, mgr)
    # The manager reference: a column whose values are the ids (or names, or e-mails) of others.
    keys = [r for r in ("employee_id", "name", "email") if roles.get(r)]
    if mgr:
        targets = [(r, roles[r][0]) for r in keys] + ([("name", _JOINED)] if _JOINED in values else [])
        for r, target in targets:
            share = _references(values, mgr, target)
            if share >= 0.5:
                shown = " + ".join(roles[p][0] for p in ("first_name", "last_name")) if target == _JOINED else target
                findings["manager"].evidence.append(f"{share:.0%} of its values are {r.replace('_', ' ')}s "
                                                    f"of '{shown}'")
                findings["manager"].confidence = round(min(0.99, findings["manager"].confidence + 0.1 * share), 2)
                break
        else:
            findings["manager"].evidence.append("its values match no id, name or e-mail of the file")
            findings["manager"].confidence = min(findings["manager"].confidence, 0.5)
    else:
        # A column whose values are the ids (or names) of others, with no header word saying manager, may be a
        # mentor, a grade or an approver: it is suggested for IT's map (data --check, --write-map), never used
        # for who may read whose record.
        for c, col in columns.items():
            vs = values[c]
            if c in taken or len(vs) < 2 or len({_key(v) for v in vs}) >= len(vs):
                continue  # a reference repeats (a manager has several reports)
            target = next((roles[r][0] for r in keys if _references(values, c, roles[r][0]) >= 0.9), None)
            if target:
                share = _references(values, c, target)
                findings["manager"] = Finding("manager", c, round(0.3 + 0.3 * share, 2),
                                              [f"{share:.0%} of its values are values of '{target}'",
                                               "no header word says manager: a suggestion for the column map, "
                                               "not used"], suggested=True)
                break
    _status_or_contract(columns, roles, findings, values, taken)
    # Text columns no header named: full/part-time, status, hourly/salaried by their values alone.
    for c, col in columns.items():
        if c in taken or col.dtype != "text" or not values[c]:
            continue
        for role, kinds in (("employment_type", ("full_time", "part_time")),
                            ("status", ("status_active", "status_away", "status_inactive")),
                            ("pay_basis", ("hourly", "salaried"))):
            share, lang = _value_share(values[c], kinds)
            if not roles.get(role) and share >= 0.8:
                _move(roles, findings, taken, role, c,
                      Finding(role, c, round(0.5 + 0.4 * share, 2),
                              [f"{share:.0%} of the values are {role.replace('_', ' ')} words ({lang})"]))
                break


#: The key of a split name's two parts joined, among ``infer_roles``'s values (no column is called that).
_JOINED = "\0name"


def _id_by_references(columns: dict, df, roles: dict, findings: dict, values: dict, taken: set, mgr: str) -> None:
    """The person's id where no header word names it: the one column of unique numbers or codes that the
    manager column's values are values of ("Nº": 101, 102 … where "Chefia" says 101). Without it a manager
    given by number had no reports at all."""
    found = []
    rows = len(df)
    for c, col in columns.items():
        vs = values[c]
        # (an id on every row, each a different one)
        if c == mgr or c in taken or col.dtype not in ("int", "text") or len(vs) < 2 or len(vs) < rows \
                or len({_key(v) for v in vs}) < len(vs):
            continue
        if col.dtype == "text" and not all(re.search(r"\d", str(v)) for v in vs):
            continue  # (a code has digits: "PN0101", "E-0042"; unique words are names or e-mails)
        share = _references(values, mgr, c)
        if share >= 0.9:
            found.append((share, c))
    if len(found) != 1:  # (two columns it could be, and nothing says which: none)
        return
    share, c = found[0]
    evidence = [f"unique values; {share:.0%} of the values of '{mgr}' (the manager) are values of it"]
    problem = _hierarchy_problem(df, c, mgr)
    if problem:
        # A running number whose range overlaps the managers' numbers would make the wrong people managers:
        # found by values alone, the id decides who reads whose record only where the hierarchy it makes is one.
        findings["employee_id"] = Finding("employee_id", c, 0.3, [*evidence, problem, "a suggestion for the column "
                                                                  "map, not used"], suggested=True)
        return
    _move(roles, findings, taken, "employee_id", c, Finding("employee_id", c, round(0.5 + 0.4 * share, 2), evidence))


def _hierarchy_problem(df, ident: str, mgr: str) -> str:
    """What is wrong with the reporting lines ``mgr`` makes over the ids of ``ident``: someone their own
    manager, or a circle of managers; "" where every line ends at the top."""
    boss = {}
    for own, ref in zip(df[ident], df[mgr]):
        if ref is None or ref != ref or str(ref).strip() == "":
            continue
        if _key(ref) == _key(own):
            return f"'{own}' is their own manager"
        boss[_key(own)] = _key(ref)
    for start in boss:
        seen, at = {start}, start
        while at in boss:
            at = boss[at]
            if at in seen:
                return f"the managers of '{start}' go round in a circle"
            seen.add(at)
    return ""


def _status_or_contract(columns: dict, roles: dict, findings: dict, values: dict, taken: set) -> None:
    """A "Status" column of "Aktiv" / "Elternzeit" is a status, one of "Full Time" / "Teilzeit" is the
    contract type: the values decide between the two, whatever the header says. A contract column of
    "CDI" / "CDD" says nothing of full- or part-time where another column of the file does."""
    kind = (roles.get("employment_type") or [None])[0]
    if kind and columns[kind].dtype == "text" and not _value_share(values[kind], ("full_time", "part_time"))[0]:
        for c, col in columns.items():
            share, lang = _value_share(values[c], ("full_time", "part_time")) if col.dtype == "text" else (0, "")
            if c != kind and c not in taken and share >= 0.8:
                taken.discard(kind)
                _move(roles, findings, taken, "employment_type", c,
                      Finding("employment_type", c, round(0.5 + 0.4 * share, 2),
                              [f"{share:.0%} of the values say full- or part-time ({lang}); '{kind}' says neither"]))
                break
    for role in ("employment_type", "status"):
        c = (roles.get(role) or [None])[0]
        if not c or columns[c].dtype != "text":
            continue
        contract, lang_c = _value_share(values[c], ("full_time", "part_time"))
        state, lang_s = _value_share(values[c], ("status_active", "status_away", "status_inactive", "probation"))
        # (the other role, the share of its words, what they say, their language)
        other, share, says, lang = (("status", state, "are status words", lang_s) if role == "employment_type" else
                                    ("employment_type", contract, "say full- or part-time", lang_c))
        if share >= 0.5 and share > (contract if role == "employment_type" else state):
            findings.pop(role, None)
            roles.pop(role)
            taken.discard(c)
            if not roles.get(other):
                _move(roles, findings, taken, other, c, Finding(other, c, 0.9, [f"{share:.0%} of the values {says} "
                                                                               f"({lang})"]))
        elif role in findings and not any("words" in e for e in findings[role].evidence):
            share, lang = (contract, lang_c) if role == "employment_type" else (state, lang_s)
            if share:
                findings[role].evidence.append(f"{share:.0%} of the values are {role.replace('_', ' ')} words ({lang})")


def gloss(table, column: str) -> str:
    """What a column is, in English, where its header is in another language ("Resturlaub (Tage)" ->
    "vacation balance"), so the record says it in the words a question uses; "" otherwise."""
    for role, finding in getattr(table, "findings", {}).items():
        if column in table.roles.get(role, []) and finding.language not in ("", "en") and not finding.suggested:
            # ("position" is German and English alike: an English reader needs no gloss of it)
            if any(r == role for r, _, _ in vocabulary().header_roles(column, "en")):
                return ""
            return ROLES[role]
    return ""


def table_languages(table) -> set[str]:
    """The languages other than English that the file's headers are written in (from the header words that
    named its columns)."""
    return {f.language for f in getattr(table, "findings", {}).values() if f.language not in ("", "en")
            and not f.suggested}


def unfilled(roles: dict[str, list[str]]) -> list[str]:
    """The roles of :data:`ROLES` that no column has (a name made of two columns fills "name")."""
    return [r for r in ROLES if not roles.get(r)]


def header_unit(header: str) -> str:
    """The unit a header names in any language ("Resturlaub (Tage)" -> "days"), or ""."""
    return vocabulary().unit(header)


def header_period(header: str) -> str:
    """The pay period a header names in any language ("Jahresgehalt" -> "year"), or ""."""
    return vocabulary().period(header)


def is_hr_department(value: Any, languages: set[str]) -> bool:
    """Whether a department's name is HR's in one of ``languages`` (those the file's headers are in):
    "Personal" is HR in a German export, and nobody's department in an English one."""
    return bool(languages) and vocabulary().value_of_words(value, "hr_departments", languages)
