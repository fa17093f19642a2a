"""Column roles from header words in several languages and from the values; the file's number and date
conventions; the column map IT confirms (engine/data/columns.py, vocab.py, column_map.py)."""

from __future__ import annotations

import random
import tomllib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.data.access import AccessPolicy, find_user_row, make_viewer
from engine.data.column_map import write_map
from engine.data.columns import ROLES, header_candidates
from engine.data.employees import decimal_mark, load_employees, parse_number
from engine.data.schema import infer_schema, leave_columns, part_time_value
from engine.data.vocab import vocabulary
from engine.errors import AccessDenied, DataFileError

GERMAN = (
    "\ufeffPersonalnummer;Vorname;Name;Abteilung;Position;Vorgesetzter;Standort;Eintrittsdatum;Befristet bis;"
    "Beschäftigungsart;Status;Wochenstunden;Monatsgehalt (EUR);Resturlaub (Tage);Krankheitstage 2026;Benutzername;"
    "E-Mail\r\n"
    "1001;Jürgen;Weiß;Geschäftsführung;Geschäftsführer;;Stuttgart;01.04.2009;;Vollzeit;Aktiv;40;12.400,00;8;2;"
    "jweiss;j.weiss@bfm.example\r\n"
    "1002;Sabine;Krüger;Personal;Personalleiterin;1001;Stuttgart;15.01.2014;;Vollzeit;Aktiv;40;6.150,00;14,5;0;"
    "skrueger;s.krueger@bfm.example\r\n"
    "1003;Anna;Müller;Fertigung;Meisterin;1001;Chemnitz;03.09.2016;;Vollzeit;Aktiv;40;4.850,00;12,5;3;"
    "amueller;a.mueller@bfm.example\r\n"
    "1004;Anna;Muller;Vertrieb;Vertriebsassistentin;1002;Stuttgart;20.02.2021;;Teilzeit;Elternzeit;20;2.425,50;"
    "30;0;amuller;a.muller@bfm.example\r\n"
    "1005;Özlem;Yılmaz;Fertigung;Zerspanungsmechanikerin;1003;Chemnitz;01.07.2026;31.12.2027;Vollzeit;Probezeit;"
    "38,5;3.900,00;9;1;oyilmaz;o.yilmaz@bfm.example\r\n"
    "1006;Sören;Käßmann;Fertigung;Mechatroniker;1003;Chemnitz;14.11.2019;;Teilzeit;Aktiv;30;3.120,00;20;4;"
    "skaessmann;s.kaessmann@bfm.example\r\n"
)


@pytest.fixture
def german(tmp_path):
    path = tmp_path / "personal_export.csv"
    path.write_bytes(GERMAN.encode("utf-8"))
    return path


# -- the language files' corpora -----------------------------------------------------------------
def _corpus_lines():
    vocab = vocabulary()
    for lang, corpus in vocab.corpus.items():
        for key, headers in corpus.items():
            for header in headers:
                yield pytest.param(lang, key, header, id=f"{lang}-{key}-{header}")


def _best_role(header: str) -> str:
    found = header_candidates(header)
    return found[0][0] if found else ""


@pytest.mark.parametrize("lang,key,header", list(_corpus_lines()))
def test_every_corpus_line_of_every_language_gets_its_role_and_no_negative_line_does(lang, key, header):
    best = _best_role(header)
    if key.startswith("not_"):
        assert best != key[4:], f"{header!r} ({lang}) must not be {key[4:]}"
    else:
        assert best == key, f"{header!r} ({lang}) should be {key}, got {best or 'nothing'}"


def test_every_language_file_has_a_corpus_and_roles_the_data_layer_knows():
    vocab = vocabulary()
    assert {"en", "de", "fr", "es", "nl", "it", "pt"} <= set(vocab.languages)
    assert set(vocab.headers) <= set(ROLES) | {"leave_taken", "leave_entitlement"}
    for lang, corpus in vocab.corpus.items():
        assert sum(len(v) for k, v in corpus.items() if not k.startswith("not_")) >= 10, lang
        assert sum(len(v) for k, v in corpus.items() if k.startswith("not_")) >= 5, lang


# -- allowances, accrual rates, rate types ----------------------------------------------------------
IRISH = (
    "Emp No,Forename,Surname,Dept,Line Manager No,Pay Basis,Annual Salary,Hourly Rate,"
    "Annual Leave Entitlement (hrs),Annual Leave Taken (hrs),Sick Days (rolling 12 mths),Email\n"
    "1001,Niamh,Kelleher,Production,,Salaried,\"€52,000.00\",,195,40,0,nk@kb.example\n"
    "1015,Darragh,O'Brien,Production,1001,Hourly,,16.40,172.5,90,5,do@kb.example\n"
    "1016,Seán,Dineen,Production,1001,Hourly,,15.80,165,165,2,sd@kb.example\n"
)
US = (
    "Associate ID,Last Name,First Name,Reports To,FLSA Status,Base Rate,Rate Type,PTO Balance (hrs),"
    "PTO Accrual Rate (hrs/pay period),Work Email\n"
    "RH-0001,Greenberg,Rachel,,Exempt,\"$98,800.00\",Annual,80,6.15,rg@rh.example\n"
    "RH-0025,Carter,Jamal,rg@rh.example,Non-Exempt,\"$45,760.00\",Annual,57,4.616,jc@rh.example\n"
    "RH-0026,Tran,Ashley,rg@rh.example,Non-Exempt,41.00,Hourly,12,3.08,at@rh.example\n"
)


def test_an_allowance_beside_what_was_taken_of_it_gives_what_is_left(tmp_path):
    path = tmp_path / "hr_export.csv"
    path.write_text(IRISH, encoding="utf-8")
    table = load_employees(path)
    left = table.roles["vacation_balance"]
    assert left == ["Annual Leave Left (hrs)"]
    assert list(table.df[left[0]]) == [155, 82.5, 0]
    assert table.columns[left[0]].derived_from == ["Annual Leave Entitlement (hrs)", "Annual Leave Taken (hrs)"]
    # days off sick counted over a rolling year are what was taken, not a balance to book against
    assert not table.roles.get("sick_balance")
    assert set(table.roles["pay"]) == {"Annual Salary", "Hourly Rate"}


def test_a_rate_type_column_says_what_each_pay_figure_is_and_an_accrual_rate_is_no_pay(tmp_path):
    path = tmp_path / "roster.csv"
    path.write_text(US, encoding="utf-8")
    table = load_employees(path)
    assert table.roles["pay"] == ["Base Rate"]  # not "PTO Accrual Rate (hrs/pay period)"
    assert table.roles["pay_basis"] == ["Rate Type"]  # "Non-Exempt" on an annual salary is no hourly rate
    assert table.roles["vacation_balance"] == ["PTO Balance (hrs)"]
    assert "PTO Accrual Rate (hrs/pay period)" not in sum(table.roles.values(), [])


# -- a German export ---------------------------------------------------------------------------------
def test_a_german_excel_export_is_understood_from_its_headers_and_values(german):
    table = load_employees(german)
    roles = {r: c[0] for r, c in table.roles.items() if c}
    assert roles["employee_id"] == "Personalnummer"
    assert roles["first_name"] == "Vorname" and roles["last_name"] == "Name"  # "Name" beside "Vorname"
    assert table.df[roles["name"]].tolist()[:2] == ["Jürgen Weiß", "Sabine Krüger"]
    assert roles["manager"] == "Vorgesetzter"
    assert any("ids of 'Personalnummer'" in e for e in table.findings["manager"].evidence)
    assert roles["department"] == "Abteilung" and roles["site"] == "Standort" and roles["job_title"] == "Position"
    assert roles["hire_date"] == "Eintrittsdatum" and table.columns["Eintrittsdatum"].dtype == "date"
    assert str(table.df.at[0, "Eintrittsdatum"].date()) == "2009-04-01"  # day first
    assert roles["contract_end"] == "Befristet bis"
    assert roles["employment_type"] == "Beschäftigungsart" and roles["status"] == "Status"
    assert roles["weekly_hours"] == "Wochenstunden" and table.df.at[4, "Wochenstunden"] == 38.5
    assert table.pay_columns == ["Monatsgehalt (EUR)"]
    assert table.df["Monatsgehalt (EUR)"].tolist()[:4] == [12400.0, 6150.0, 4850.0, 2425.5]
    assert roles["username"] == "Benutzername" and roles["email"] == "E-Mail"
    assert table.conventions == {"decimal": ",", "dates": "day-first"}
    schema = infer_schema(table)
    assert schema.units["Monatsgehalt (EUR)"] == "EUR" and schema.pay_periods["Monatsgehalt (EUR)"] == "month"
    assert schema.units["Resturlaub (Tage)"] == "days" and table.df.at[2, "Resturlaub (Tage)"] == 12.5
    assert leave_columns(table) == {"vacation": "Resturlaub (Tage)", "sick": "Krankheitstage 2026"}
    assert part_time_value("Teilzeit") is True and part_time_value("Vollzeit") is False


def test_who_is_hr_and_who_manages_whom_in_a_german_export(german):
    table = load_employees(german)
    assert make_viewer(table, "Sabine Krüger").role == "hr"  # Abteilung "Personal"
    boss = make_viewer(table, "Anna Müller")
    assert boss.role == "manager" and sorted(boss.reports) == ["Sören Käßmann", "Özlem Yılmaz"]
    # The personnel number signs in as well as the name; umlauts make different people.
    assert find_user_row(table, "1004") == 3
    assert find_user_row(table, "Anna Müller") == 2 and find_user_row(table, "Anna Muller") == 3
    assert find_user_row(table, "soren kassmann") == 5  # no exact spelling given: the folded one is unique


def test_the_site_can_say_who_is_hr_and_then_nobody_else_is(german, tmp_path):
    table = load_employees(german, overrides={"hr": {"departments": ["Vertrieb"]}})
    assert make_viewer(table, "Anna Muller").role == "hr"
    assert make_viewer(table, "Sabine Krüger").role == "manager"  # Personal, but the site says Vertrieb is HR
    assert make_viewer(table, "Sören Käßmann", AccessPolicy(hr_departments=["Fertigung"])).role == "employee"


def test_the_record_says_in_english_what_a_german_column_is(german):
    from engine.data.profile import build_profile
    from engine.tools.employee_data import EmployeeDataTool

    tool = EmployeeDataTool(load_employees(german))
    text = build_profile(tool, "Anna Müller", "2026-11-25").render()
    assert "Resturlaub (Tage): 12.5 (vacation balance, days)" in text
    assert "Monatsgehalt (EUR): 4850 (pay, EUR per month)" in text
    assert "Vorgesetzter: Jürgen Weiß" in text
    assert "Abteilung: Fertigung (department: production)" in text


# -- conventions -----------------------------------------------------------------------------------
@pytest.mark.parametrize("text,mark,value", [
    ("4.850,00", ",", 4850.0), ("4.850", ",", 4850.0), ("12,5", ",", 12.5), ("3 250,00", ",", 3250.0),
    ("3\u202f250,00", ",", 3250.0), ("4,850.00", ".", 4850.0), ("4,850", ".", 4850.0), ("12.5", ".", 12.5),
    ("1.2.3", ",", None), ("12,5", ".", None)])
def test_numbers_are_read_with_the_files_decimal_mark(text, mark, value):
    assert parse_number(text, mark) == value


def test_the_decimal_mark_is_decided_from_the_whole_file():
    assert decimal_mark([["h"], ["4.850"], ["12,5"]]) == ","
    assert decimal_mark([["h"], ["4,850"], ["12.5"]]) == "."
    assert decimal_mark([["h"], ["4850"], ["01.02.2020"]]) == ""
    assert decimal_mark([["h"], ["12,5"], ["12.5"]]) == ""  # both: each value decides


def test_dates_that_cannot_tell_their_order_are_not_guessed(tmp_path):
    path = tmp_path / "staff.csv"
    path.write_text("Name,Start Date,Leave Days\nAna Cruz,03/04/2020,5\nBo Li,11/12/2019,7\n", encoding="utf-8")
    table = load_employees(path)
    assert table.columns["Start Date"].dtype == "text"
    assert any("day-first" in p and "Start Date" in p for p in table.problems())
    # The map says which, and then they are dates.
    confirmed = load_employees(path, overrides={"format": {"dates": "day-first"}})
    assert str(confirmed.df.at[0, "Start Date"].date()) == "2020-04-03"
    # Another date column of the file that can tell decides for it.
    path.write_text("Name,Start Date,Born\nAna Cruz,03/04/2020,25/12/1990\nBo Li,11/12/2019,01/02/1985\n",
                    encoding="utf-8")
    assert str(load_employees(path).df.at[0, "Start Date"].date()) == "2020-04-03"


# -- the column map ------------------------------------------------------------------------------------
def test_the_written_map_reads_back_as_the_same_roles_and_is_checked_against_the_file(german, tmp_path):
    table = load_employees(german)
    text = write_map(table)
    conf = tomllib.loads(text)["columns"]
    assert conf["confirmed"] is False and conf["manager"] == "Vorgesetzter"
    assert conf["format"] == {"decimal": ",", "dates": "day-first"}
    assert conf["money"]["Monatsgehalt (EUR)"] == {"period": "month", "currency": "EUR"}
    conf["confirmed"] = True
    again = load_employees(german, overrides=conf)
    for role in ROLES:
        assert again.roles.get(role, [])[:1] == table.roles.get(role, [])[:1] or role == "name", role
    assert all(f.confidence == 1.0 for f in again.findings.values())
    renamed = dict(conf, units={"Urlaub (Tage)": "days"})
    with pytest.raises(DataFileError, match="Urlaub \\(Tage\\)"):
        load_employees(german, overrides=renamed)
    with pytest.raises(DataFileError, match="decimal"):
        load_employees(german, overrides={"format": {"decimal": ";"}})


def test_a_side_file_someone_else_could_write_cannot_say_who_is_hr(german, tmp_path):
    side = german.with_suffix(".csv.toml")
    side.write_text('[columns]\n[columns.hr]\ndepartments = ["Fertigung"]\n', encoding="utf-8")
    side.chmod(0o666)  # anyone could have written it (the tests run as root, whose own file IT's would be)
    table = load_employees(german)
    assert make_viewer(table, "Anna Müller").role == "manager"  # not HR: a user's file raises no rights
    assert any("who is HR" in p for p in table.problems())


def test_data_check_prints_every_role_with_evidence_and_the_roles_not_found(german, tmp_path, capsys):
    from engine.cli import _check_data

    out_map = tmp_path / "map.toml"
    _check_data(load_employees(german), str(out_map))
    out = capsys.readouterr().out
    assert "manager: 'Vorgesetzter' (" in out and "of its values are" in out
    assert "decimal mark ," in out and "day-first" in out
    assert "Not found:" in out and "pay_basis" in out
    assert "Column map: none confirmed" in out
    assert tomllib.loads(out_map.read_text(encoding="utf-8"))["columns"]["employee_id"] == "Personalnummer"


# -- property: the map does not depend on column order, header synonyms or the decimal mark ----------------
_SYNONYMS = {
    "employee_id": ["Personalnummer", "Matricule", "Employee ID", "Personeelsnummer", "Número de empleado"],
    "first_name": ["Vorname", "Prénom", "First Name", "Voornaam"],
    "last_name": ["Nachname", "Nom de famille", "Last Name", "Achternaam"],
    "manager": ["Vorgesetzter", "Responsable", "Line Manager", "Leidinggevende", "Jefe directo"],
    "department": ["Abteilung", "Service", "Department", "Afdeling", "Departamento"],
    "hire_date": ["Eintrittsdatum", "Date d'entrée", "Hire Date", "Datum in dienst", "Fecha de alta"],
    "pay": ["Monatsgehalt (EUR)", "Salaire mensuel (EUR)", "Monthly Salary (EUR)", "Maandsalaris (EUR)"],
    "vacation_balance": ["Resturlaub (Tage)", "Solde congés (jours)", "Vacation Days Left", "Verlofdagen",
                         "Vacaciones pendientes (días)"],
}
_FIRST = ["Ana", "Jörg", "Léa", "Pieter", "Søren", "Maria", "Tomasz", "Ines"]
_LAST = ["Berg", "Müller", "Dubois", "de Vries", "García", "Kowalski", "Rossi", "Silva"]


def _export(rng: random.Random, headers: dict[str, str], order: list[str], comma: bool) -> str:
    rows = []
    for i in range(8):
        pay = 3000 + 137.5 * i
        pay_text = f"{pay:,.2f}".replace(",", "X").replace(".", ",").replace("X", ".") if comma else f"{pay:,.2f}"
        bal = f"{5 + i},5" if comma else f"{5 + i}.5"
        cells = {"employee_id": str(100 + i), "first_name": _FIRST[i], "last_name": _LAST[i],
                 "manager": "" if i == 0 else str(100 + (i - 1) // 3), "department": ["Ops", "Sales"][i % 2],
                 "hire_date": f"{13 + i:02d}.0{1 + i % 9}.20{10 + i}", "pay": pay_text, "vacation_balance": bal}
        rows.append(";".join(cells[r] for r in order))
    return ";".join(headers[r] for r in order) + "\n" + "\n".join(rows) + "\n"


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), comma=st.booleans())
def test_the_map_stays_the_same_under_shuffled_columns_renamed_headers_and_either_decimal_mark(tmp_path, seed, comma):
    rng = random.Random(seed)
    headers = {role: rng.choice(names) for role, names in _SYNONYMS.items()}
    order = list(_SYNONYMS)
    rng.shuffle(order)
    path = tmp_path / f"export-{seed}-{comma}.csv"
    path.write_text(_export(rng, headers, order, comma), encoding="utf-8")
    table = load_employees(path)
    for role, header in headers.items():
        assert table.roles.get(role, [None])[0] == header, (role, header, table.roles)
    assert table.df[headers["pay"]].tolist()[1] == 3137.5
    assert table.df[headers["vacation_balance"]].tolist()[0] == 5.5
    assert infer_schema(table).pay_periods[headers["pay"]] == "month"


@pytest.mark.parametrize("question,lang", [
    ("Wie viele Urlaubstage habe ich noch?", "de"), ("Wer ist mein Vorgesetzter?", "de"),
    ("Wie lange ist die Probezeit?", "de"), ("Combien de jours de congés me reste-t-il ?", "fr"),
    ("Qui est mon responsable ?", "fr"), ("¿Cuántos días de vacaciones me quedan?", "es"),
    ("Hoeveel verlofdagen heb ik nog?", "nl"), ("Quanti giorni di ferie mi restano?", "it"),
    ("Quantos dias de férias me restam?", "pt"), ("¿Cuánto cobro por hora?", "es"),
    ("¿Cuánto es la dieta diaria en un viaje al extranjero?", "es"),
    ("How many vacation days do I have left?", "en"), ("Who is my manager?", "en"),
    ("How many Urlaubstage do I have left?", "en"), ("Is Jürgen Weiß in Stuttgart?", "en"), ("Hello", "en")])
def test_the_language_of_a_question_is_read_from_its_common_words(question, lang):
    vocab = vocabulary()
    assert vocab.question_language(question) == lang
    assert lang == "en" or lang in vocab.answer_in


# -- what a review found: rights from values, pay made public, HR names, conventions, crashes ----------
def _table(header: list[str], rows: list[list[str]], **kw):
    from engine.data.employees import table_from_rows

    return table_from_rows([header, *rows], "t.csv", "t.csv", **kw)


def test_a_column_of_ids_no_header_calls_manager_is_only_suggested_and_grants_nothing():
    rows = [[str(i), f"Person {chr(64 + i)} Test", "Ops", g, str(40000 + i)] for i, g in
            zip(range(1, 7), ["3", "3", "2", "4", "3", "2"])]
    table = _table(["ID", "Full Name", "Department", "Code", "Salary"], rows)
    assert not table.roles.get("manager") and table.findings["manager"].suggested
    viewer = make_viewer(table, "Person C Test")
    assert viewer.role == "employee" and viewer.visible_rows == {2} and "Code" not in viewer.public_columns
    assert '# manager = "Code"   # suggested, not used' in write_map(table)


def test_a_header_that_says_pay_is_never_a_public_column():
    rows = [["1", "Ana Cruz", "RH", "", "40000", "38000"], ["2", "Bo Li", "Atelier", "1", "30000", "29000"]]
    table = _table(["Matricule", "Nom complet", "Service", "Responsable", "Salaire annuel", "Salaire N-1"], rows)
    assert table.roles["manager"] == ["Responsable"]
    assert "Salaire N-1" in table.pay_columns and "Salaire N-1" not in make_viewer(table, "Bo Li").public_columns


@pytest.mark.parametrize("department", ["Personnel", "P&O", "Personal", "DRH", "Pessoal"])
def test_another_languages_name_for_hr_makes_nobody_hr_in_an_english_export(department):
    rows = [["1", "Ana Cruz", department], ["2", "Bo Li", "Sales"]]
    assert make_viewer(_table(["Employee ID", "Name", "Department"], rows), "Ana Cruz").role == "employee"


def test_the_files_decimal_mark_reads_every_number_and_text_columns_do_not_decide_it():
    table = _table(["Personalnummer", "Name", "Monatsgehalt"], [["1", "Ana Cruz", "4.850,00"], ["2", "Bo Li", "1.234"],
                                                              ["3", "Cy Do", "2.100,50"]])
    assert table.df["Monatsgehalt"].tolist() == [4850.0, 1234.0, 2100.5]
    assert decimal_mark([["Room", "Salary"], ["B 2,3", "85,000"], ["A 1,1", "90,000"]]) == ""
    text_only = _table(["Name", "Room", "Salary"], [["Ana Cruz", "B 2,3", "85,000"], ["Bo Li", "A 1,1", "90,000"]])
    assert text_only.df["Salary"].tolist() == [85000, 90000]
    ambiguous = _table(["Name", "Salary"], [["Ana Cruz", "48.000"], ["Bo Li", "52.000"]])
    assert any("48.000" in p and "Salary" in p for p in ambiguous.problems())


def test_two_digit_years_follow_the_files_day_first_order():
    table = _table(["Name", "Born", "Start"], [["Ana Cruz", "25/12/1990", "03/04/19"], ["Bo Li", "01/02/1985", "11/12/20"]])
    assert str(table.df.at[0, "Start"].date()) == "2019-04-03"


@pytest.mark.parametrize("conf", [{"units": "days"}, {"money": "year"}, {"format": ["x"]}, {"hr": "Personal"},
                                  {"hr": ["HR"]}, {"confirmed": "yes"}])
def test_a_malformed_column_map_is_a_clear_error(german, conf):
    with pytest.raises(DataFileError):
        load_employees(german, overrides=conf)


def test_an_empty_pay_list_in_a_map_is_no_crash(german):
    assert load_employees(german, overrides={"pay": []}).pay_columns == []


def test_the_written_map_reads_back_whatever_the_headers_hold():
    table = _table(["Name", 'Pay "\x01" (EUR)', "Cruz, Ana"], [["Ana Cruz", "1", "x"], ["Bo Li", "2", "y"]])
    assert tomllib.loads(write_map(table))["columns"]["confirmed"] is False
    names = _table(["Employee", "Dept"], [["Cruz, Ana", "Ops"], ["Li, Bo", "Ops"], ["Do, Cy", "HR"]])
    conf = tomllib.loads(write_map(names))["columns"]
    assert conf["name"] == "Employee"
    conf["confirmed"] = True
    assert find_user_row(_table(["Employee", "Dept"], [["Cruz, Ana", "Ops"], ["Li, Bo", "Ops"]], overrides=conf),
                         "Bo Li") == 1


def test_a_name_written_with_umlauts_never_finds_someone_written_without_them():
    table = _table(["Name", "Department"], [["Jurgen Muller", "Ops"], ["Ana Cruz", "Ops"]])
    assert find_user_row(table, "Jürgen Müller") is None
    assert find_user_row(table, "jurgen muller") == 0


def test_a_header_english_shares_with_another_language_gets_no_gloss():
    from engine.data.columns import gloss

    table = _table(["Name", "Position", "Abteilung"], [["Ana Cruz", "Clerk", "Ops"], ["Bo Li", "Lead", "Ops"]])
    assert gloss(table, "Position") == "" and gloss(table, "Abteilung") == "department"


def test_a_given_name_header_over_whole_names_is_the_full_name_and_e_mails_name_the_manager():
    # Portuguese "Nome" (Italian's word for the given name) over whole names, the manager by e-mail.
    rows = [["1001", "Rui Manuel Ferreira Lopes", "", "Administração", "rui.lopes@x.example"],
            ["1002", "Maria de Fátima Gonçalves Reis", "rui.lopes@x.example", "Produção", "maria.reis@x.example"],
            ["1003", "Tiago Filipe Nunes Correia", "rui.lopes@x.example", "Produção", "tiago.correia@x.example"],
            ["1004", "Inês Batista Moura", "maria.reis@x.example", "Produção", "ines.moura@x.example"]]
    table = _table(["N.º Mecanográfico", "Nome", "Chefia Direta (e-mail)", "Departamento", "E-mail"], rows)
    assert table.roles["name"] == ["Nome"] and not table.roles.get("first_name")
    assert table.roles["employee_id"] == ["N.º Mecanográfico"]
    assert "whole names" in " ".join(table.findings["name"].evidence)
    assert find_user_row(table, "Maria de Fátima Gonçalves Reis") == 1
    boss = make_viewer(table, "rui.lopes@x.example")
    assert boss.role == "manager" and sorted(boss.reports) == ["Maria de Fátima Gonçalves Reis",
                                                                "Tiago Filipe Nunes Correia"]
    assert make_viewer(table, "Tiago Filipe Nunes Correia").role == "employee"
    # A given-name column beside a family-name column stays the given name.
    split = _table(["ID", "Nome", "Apelido"], [["1", "Rui", "Lopes"], ["2", "Ana Sofia", "Marques"]])
    assert split.roles["first_name"] == ["Nome"] and split.roles["last_name"] == ["Apelido"]


def test_a_manager_named_the_usual_way_refers_to_names_written_family_name_first():
    rows = [["WC1", "Fairweather, Graham", ""], ["WC2", "Hohaia, Tama", "Graham Fairweather"],
            ["WC3", "Nguyen, Linh", "Tama Hohaia"], ["WC4", "Okonkwo, Chidi Emmanuel", "Tama Hohaia"]]
    table = _table(["Employee No", "Surname, Given Names", "Supervisor"], rows)
    assert "100% of its values are names" in " ".join(table.findings["manager"].evidence)
    tama = make_viewer(table, "Tama Hohaia")
    assert tama.role == "manager" and len(tama.reports) == 2


def test_a_managers_reports_are_found_however_the_manager_column_writes_them():
    from engine.agent.slots import SlotGrammar
    from engine.data.query import run_query

    rows = [["1", "Ana Cruz", "", "ana@x.example"], ["2", "Bo Li", "Ana Cruz", "bo@x.example"],
            ["3", "Cy Dee", "1", "cy@x.example"], ["4", "Di Eng", "ana@x.example", "di@x.example"]]
    table = _table(["Employee ID", "Name", "Manager", "Email"], rows)
    boss = make_viewer(table, "Ana Cruz")
    assert sorted(boss.reports) == ["Bo Li", "Cy Dee", "Di Eng"]
    slots = SlotGrammar(table, boss)
    code = slots.compile(slots.parse("my direct reports\nFilter: none\nResult: names\n"))
    assert ".isin(" in code
    assert sorted(run_query(code, table, boss, None).value["Name"]) == ["Bo Li", "Cy Dee", "Di Eng"]


def test_without_an_employment_type_the_usual_week_says_who_is_part_time(tmp_path):
    from engine.data.profile import build_profile
    from engine.tools.employee_data import EmployeeDataTool

    rows = ["Emp Code,Name,Dept,Sched Hrs/Wk,Comp Rate (USD)"]
    hours = [40, 40, 40, 40, 24, 40, 32, 40]
    rows += [f"E{i},Person {chr(65 + i)},Ops,{h},{20 + i}" for i, h in enumerate(hours)]
    path = tmp_path / "roster.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    tool = EmployeeDataTool(load_employees(path))
    part = build_profile(tool, "Person E", "2026-11-25")
    assert part.part_time and part.full_time_week == 40
    assert "Works: part-time" in part.render()
    full = build_profile(tool, "Person A", "2026-11-25")
    assert not full.part_time and "Works: full-time" in full.render()
    # No usual week (most people on different hours): nobody is called part-time by a guess.
    mixed = [40, 24, 32, 20, 38, 40, 16, 30]
    rows = ["Emp Code,Name,Dept,Sched Hrs/Wk"] + [f"E{i},Person {chr(65 + i)},Ops,{h}" for i, h in enumerate(mixed)]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    tool = EmployeeDataTool(load_employees(path))
    assert not any(f.label == "Works" for f in build_profile(tool, "Person B", "2026-11-25").computed)


def test_a_managers_email_column_is_never_the_rows_own_email(tmp_path):
    """"Reports To (email)" before "Work Email": taking the first for each row's own address made everyone
    with one manager that manager, and a forklift driver read a colleague's pay."""
    from engine.data.access import make_viewer
    from engine.data.query import run_query

    rows = ["Emp Code,Given Name,Family Name,Reports To (email),Work Email,Comp Rate (USD)",
            "E1,Jorge,Villa,,jorge@example.com,29.50",
            "E2,DeShawn,Port,jorge@example.com,deshawn@example.com,21.00",
            "E3,Luis,Orte,jorge@example.com,luis@example.com,21.50",
            "E4,Emily,Nova,jorge@example.com,emily@example.com,19.25"]
    path = tmp_path / "roster.csv"
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    table = load_employees(path)
    assert table.role("email") == "Work Email" and table.role("manager") == "Reports To (email)"
    employee = make_viewer(table, "DeShawn Port")
    assert employee.role == "employee" and employee.reports == []
    with pytest.raises(AccessDenied):
        run_query('df[df["Name"] == "Luis Orte"]["Comp Rate (USD)"]', table, employee, "2026-11-25")
    manager = make_viewer(table, "Jorge Villa")
    assert manager.role == "manager" and sorted(manager.reports) == ["DeShawn Port", "Emily Nova", "Luis Orte"]



_CONVENTIONS = {
    "fr.csv": "\n".join([
        "Matricule;Nom;Prénom;Service;Poste;Responsable;Date d'entrée;Temps de travail (h/sem);"
        "Salaire brut mensuel (€);Congés payés restants (jours);RTT restants;Statut",
        '101;Durand;Hélène;Direction;Directrice générale;;03/09/2012;35;6 200,00;18,5;6;Actif',
        '102;Martin;Luc;Ressources humaines;Responsable RH;101;15/01/2018;35;3 450,00;12;4,5;Actif',
        '103;Bernard;Élodie;Production;Boulangère;101;01/06/2020;28;2 150,50;9;2;Actif',
        '104;Petit;Jérôme;Production;Boulanger;103;21/11/2022;35;2 050,00;20,5;3;Congé parental',
        '105;Roux;Zoé;Production;Apprentie;103;02/09/2025;35;1 150,00;5;0;Actif',
    ]) + "\n",
    "ch.csv": "\n".join([
        'Personalnummer;Name;Vorname;Abteilung;Funktion;Vorgesetzter;Eintritt;Pensum (%);Monatslohn (CHF);Ferienguthaben (Tage)',
        "1;Hofstetter;Urs;Geschäftsleitung;CEO;;01.04.2005;100;12'500.00;22",
        "2;Gysin;Anna;Personal;HR-Leiterin;1;15.08.2015;80;8'150.00;14.5",
        "3;Müller;Reto;Werkstatt;Mechaniker;1;01.02.2019;100;6'250.50;20",
        '4;Keller;Jürg;Werkstatt;Lernender;3;01.08.2024;100;950.00;25',
    ]) + "\n",
    "ca.csv": "\n".join([
        'Employee No,Employee Name,Province,Department,Position,Supervisor No,Hire Date,Hourly Wage,Annual Salary,'
        'Vacation Bank (hrs),Sick Bank (hrs)',
        '5001,"TREMBLAY, Marie",QC,Operations,Director,,2010/05/03,,98000,120,40',
        '5002,"SINGH, Arjun",ON,Operations,Dispatcher,5001,2019/11/18,24.50,,56.5,16',
        '5003,"O\'NEIL, Kate",ON,Operations,Driver,5001,2021/02/01,22.75,,30,8',
        '5004,"CÔTÉ, Luc",QC,People & Culture,HR Advisor,5001,2017/07/10,,68500,80,24',
    ]) + "\n",
}


@pytest.mark.parametrize("name, roles", [
    ("fr.csv", {"weekly_hours": "Temps de travail (h/sem)", "vacation_balance": "Congés payés restants (jours)",
                "manager": "Responsable", "pay": "Salaire brut mensuel (€)"}),
    ("ch.csv", {"fte": "Pensum (%)", "vacation_balance": "Ferienguthaben (Tage)", "pay": "Monatslohn (CHF)"}),
    ("ca.csv", {"sick_balance": "Sick Bank (hrs)", "vacation_balance": "Vacation Bank (hrs)",
                "manager": "Supervisor No"}),
])
def test_exports_in_other_conventions_fill_their_roles(tmp_path, name, roles):
    """Working time in hours under a contract word, RTT beside paid leave, a Swiss "Pensum (%)" and
    "Ferienguthaben", a Canadian "Sick Bank": each column takes its role."""
    path = tmp_path / name
    path.write_text(_CONVENTIONS[name], encoding="utf-8")
    table = load_employees(path)
    for role, column in roles.items():
        assert table.role(role) == column, (role, table.roles.get(role))
    if name == "fr.csv":
        assert table.roles["vacation_balance"] == ["Congés payés restants (jours)", "RTT restants"]
    if name == "ch.csv":
        assert list(table.df["Monatslohn (CHF)"]) == [12500.0, 8150.0, 6250.5, 950.0]  # 12'500.00


def test_an_fte_in_percent_makes_80_part_time(tmp_path):
    from engine.data.profile import build_profile
    from engine.tools.employee_data import EmployeeDataTool

    path = tmp_path / "ch.csv"
    path.write_text(_CONVENTIONS["ch.csv"], encoding="utf-8")
    tool = EmployeeDataTool(load_employees(path))
    assert build_profile(tool, "Anna Gysin", "2026-11-25").part_time
    assert not build_profile(tool, "Reto Müller", "2026-11-25").part_time


@pytest.mark.parametrize("header", ["Livello", "Pay Grade", "Entgeltgruppe", "Niveau", "Salarisschaal", "Nivel"])
def test_a_grade_column_is_the_grade_and_no_one_elses_to_read(header):
    rows = [[str(i), f"Person {chr(64 + i)} Test", "Ops", g, str(40000 + i)] for i, g in
            zip(range(1, 7), ["3", "3", "2", "4", "Q", "2"])]
    table = _table(["ID", "Full Name", "Department", header, "Salary"], rows)
    assert table.roles.get("grade") == [header]
    viewer = make_viewer(table, "Person C Test")
    assert header not in viewer.public_columns
