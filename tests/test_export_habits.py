"""Exports as people's spreadsheets write them: a name with a comma in every row of a semicolon file, a
title above the header, a totals line, ids with leading zeros, thousands dots without cents, currencies
beside the amount, HR named twice. Each case was found by a red-team pass over exports nobody here wrote."""

from __future__ import annotations

import tomllib

import pytest

from engine.data.access import find_user_row, make_viewer
from engine.data.column_map import write_map
from engine.data.columns import is_hr_department
from engine.data.employees import load_employees, parse_number

SWISS = ("Pers.-Nr.;Name, Vorname;Vorgesetzte/r;Abteilung;Eintritt;Jahreslohn brutto CHF\n"
         "00017;Gaßner, Ursula;;Geschäftsleitung;01.03.2009;185'000.00\n"
         "00018;Brändli, Jörg;Gaßner, Ursula;Produktion;15.06.2012;98'500.00\n"
         "00019;Keller, Sandra;Gaßner, Ursula;HR - Personal;02.01.2014;104'250.50\n"
         "00020;Hofmann, Céline;Keller, Sandra;HR - Personal;01.09.2020;76'000.00\n"
         "00021;Stöckli, Reto;Gaßner, Ursula;Produktion;01.02.2018;88'400.00\n")


def _write(tmp_path, name: str, text: str, encoding: str = "utf-8"):
    path = tmp_path / name
    path.write_text(text, encoding=encoding)
    return path


def test_a_semicolon_file_whose_names_hold_a_comma_in_every_row_keeps_its_columns(tmp_path):
    # csv.Sniffer took the comma of "Gaßner, Ursula" for the separator: two columns, and "No problems found".
    table = load_employees(_write(tmp_path, "personal.csv", SWISS))
    assert {"Pers.-Nr.", "Name, Vorname", "Vorgesetzte/r", "Abteilung", "Eintritt"} <= set(table.df.columns)
    assert table.role("manager") == "Vorgesetzte/r" and table.role("department") == "Abteilung"
    assert table.df["Jahreslohn brutto CHF"].tolist()[:3] == [185000.0, 98500.0, 104250.5]


def test_a_title_above_the_header_and_a_totals_line_below_the_people_are_no_rows(tmp_path):
    lines = SWISS.splitlines()
    text = "\n".join(["Personalliste Alpentech AG – Stand 30.09.2026", "", *lines,
                      "Total;;;;;551'650.50", ""])
    table = load_employees(_write(tmp_path, "personal.csv", text))
    assert len(table.df) == 5 and table.role("employee_id") == "Pers.-Nr."
    assert find_user_row(table, "Total") is None
    assert table.df["Jahreslohn brutto CHF"].sum() == pytest.approx(552150.5)
    # A first cell that is a person's is kept, whatever it reads like.
    people = load_employees(_write(tmp_path, "staff.csv", "Name,Dept\nAna Cruz,Sales\nTotal Mensah,Sales\n"))
    assert len(people.df) == 2


def test_an_id_written_with_leading_zeros_or_a_hyphen_signs_its_owner_in(tmp_path):
    table = load_employees(_write(tmp_path, "personal.csv", SWISS))
    ursula = find_user_row(table, "Ursula Gaßner")
    assert ursula is not None
    assert find_user_row(table, "00017") == ursula == find_user_row(table, "17")
    assert find_user_row(table, "00099") is None
    us = load_employees(_write(tmp_path, "hris.csv", "Employee ID,Name\nE-100,Dolores Reyes\nE-104,Pat Oh\n"))
    assert find_user_row(us, "E100") == 0 and find_user_row(us, "e-104") == 1


def test_hr_named_twice_is_hr_and_hr_beside_another_department_is_not():
    assert is_hr_department("HR - Personal", {"de"}) and is_hr_department("Personal (HR)", {"de"})
    assert not is_hr_department("HR & Admin", {"de"}) and not is_hr_department("Personal Verkauf", {"de"})
    assert not is_hr_department("Personal", {"en"})  # (an English export's "Personal" is nobody's HR)


def test_the_head_of_hr_in_a_department_named_twice_reads_as_hr(tmp_path):
    table = load_employees(_write(tmp_path, "personal.csv", SWISS))
    assert make_viewer(table, "Sandra Keller").role == "hr"
    assert make_viewer(table, "Reto Stöckli").role == "employee"


def test_thousands_dots_without_cents_beside_dotted_dates_are_thousands(tmp_path):
    text = ("Personalnummer;Name;Eintrittsdatum;Monatsbezug brutto (EUR)\n1;Anna Gruber;01.03.2019;8.900\n"
            "2;Paul Huber;15.06.2020;4.250\n3;Eva Moser;02.01.2021;1.875\n4;Karl Bauer;01.02.2022;3.980\n")
    table = load_employees(_write(tmp_path, "personal.csv", text))
    assert table.conventions["decimal"] == ","
    assert table.df["Monatsbezug brutto (EUR)"].tolist() == [8900, 4250, 1875, 3980]
    assert "pay" in table.columns["Monatsbezug brutto (EUR)"].roles
    # A share written 0.875 is a decimal point: no group of thousands starts with a zero.
    fte = text.replace("Monatsbezug brutto (EUR)\n", "Monatsbezug brutto (EUR);Pensum\n").replace("8.900\n", "8.900;0.875\n")
    fte = fte.replace("4.250\n", "4.250;1.000\n").replace("1.875\n", "1.875;1.000\n").replace("3.980\n", "3.980;0.500\n")
    assert load_employees(_write(tmp_path, "pensum.csv", fte)).conventions["decimal"] != ","


@pytest.mark.parametrize("text, value", [
    ("R$ 4.850,00", 4850.0), ("CHF 12'500.00", 12500.0), ("Fr. 4'850.50", 4850.5), ("12’500.00", 12500.0),
    ("12 500 zł", 12500.0), ("SEK 35 000", 35000.0), ("35 000 kr", 35000.0), ("4850,-", 4850.0),
    ("EUR 3.900,50", 3900.5), ("£98,500.00", 98500.0),
])
def test_an_amount_with_its_currency_beside_it_is_a_number(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["12-5", "Room 4", "2024-01-01", "kr", "R$"])
def test_what_is_no_amount_stays_text(text):
    assert parse_number(text) is None


def test_a_column_of_names_that_repeat_is_no_ones_own_name(tmp_path):
    # "Chef" in a Swedish export: names, but each is a manager's, given by several people.
    text = ("Nr;Chef;Avdelning\n1;Åsa Lindqvist;Ekonomi\n2;Åsa Lindqvist;Ekonomi\n3;Åsa Lindqvist;Logistik\n"
            "4;Björn Öberg;Logistik\n5;Björn Öberg;Logistik\n6;Åsa Lindqvist;Ekonomi\n")
    table = load_employees(_write(tmp_path, "personal.csv", text))
    assert table.role("name") != "Chef"


def test_a_written_map_with_a_currency_on_a_column_no_role_names_reads_back(tmp_path):
    # --write-map had put "SEK" under [columns.units], which the app then refused to load.
    text = ("Employee ID;Name;Bonus pot (SEK)\n1;Ana Cruz;1 000\n2;Bo Li;2 000\n3;Cy Wu;3 000\n")
    path = _write(tmp_path, "staff.csv", text)
    table = load_employees(path)
    conf = tomllib.loads(write_map(table))["columns"]
    assert "Bonus pot (SEK)" not in conf.get("units", {})
    conf["confirmed"] = True
    assert load_employees(path, overrides=conf).role("employee_id") == "Employee ID"


def test_a_polish_and_a_swedish_export_are_read_from_their_language_files(tmp_path):
    # A language is a file (engine/data/lang/pl.toml, sv.toml): no code knows these words.
    polish = ("Nr ewid.;Imię;Nazwisko;Przełożony (nr ewid.);Dział;Data zatrudnienia;"
              "Wynagrodzenie zasadnicze brutto (PLN);Urlop pozostały (dni)\n"
              "0001;Krzysztof;Wójcik;;Zarząd;01.03.2009;28 500,00;26\n"
              "0002;Małgorzata;Kowalczyk;0001;Kadry i płace;15.06.2012;14 200,00;21,5\n"
              "0003;Łukasz;Zieliński;0001;Produkcja;02.01.2014;13 750,50;18\n"
              "0004;Paweł;Woźniak;0003;Produkcja;01.02.2018;8 400,00;12\n"
              "RAZEM;;;;;;64 850,50;77,5\n")
    table = load_employees(_write(tmp_path, "kadry.csv", polish))
    assert len(table.df) == 4 and table.role("employee_id") == "Nr ewid."
    assert table.role("manager") == "Przełożony (nr ewid.)" and table.role("vacation_balance") == "Urlop pozostały (dni)"
    assert table.df["Wynagrodzenie zasadnicze brutto (PLN)"].tolist()[:2] == [28500.0, 14200.0]
    assert make_viewer(table, "Lukasz Zielinski").reports == ["Paweł Woźniak"]
    assert make_viewer(table, "0002").role == "hr"
    swedish = ("Anställningsnummer;Förnamn;Efternamn;Chef;Avdelning;Månadslön (SEK);Semesterdagar kvar\n"
               "101;Åsa;Lindqvist;;Ledning;78 500;25\n102;Björn;Öberg;Åsa Lindqvist;Ekonomi;56 200;31\n"
               "103;Märta;Ångström;Björn Öberg;Ekonomi;38 400;18\n104;Karin;Lund;Björn Öberg;HR;41 000;20\n")
    table = load_employees(_write(tmp_path, "personal.csv", swedish))
    assert table.role("manager") == "Chef" and "pay" in table.columns["Månadslön (SEK)"].roles
    assert make_viewer(table, "Bjorn Oberg").reports == ["Märta Ångström", "Karin Lund"]


def test_a_workbook_with_a_title_row_and_one_date_typed_as_text(tmp_path):
    import datetime as dt

    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.append(["Personalliste Alpentech AG – Stand 30.09.2026"])
    sheet.append(["Pers.-Nr.", "Name", "Abteilung", "Eintritt"])
    sheet.append(["00017", "Ursula Gaßner", "Geschäftsleitung", dt.datetime(2009, 3, 1)])
    sheet.append(["00018", "Jörg Brändli", "Produktion", "01.03.2022"])  # typed, not a date cell
    sheet.append(["00019", "Sandra Keller", "Personal", dt.datetime(2014, 1, 2)])
    sheet.append(["00020", "Reto Stöckli", "Produktion", dt.datetime(2018, 2, 1)])
    sheet.append(["00021", "Céline Hofmann", "Personal", dt.datetime(2020, 9, 1)])
    path = tmp_path / "personal.xlsx"
    book.save(path)
    table = load_employees(path)
    assert len(table.df) == 5 and table.role("hire_date") == "Eintritt"
    assert str(table.df.at[1, "Eintritt"].date()) == "2022-03-01"


PORTUGUESE = ("Nº;Nome;Apelido;Departamento;Chefia;Dias de férias restantes;Situação;Centro de custo;Banco de horas\n"
              "101;Rui;Figueiredo;Administração;;11;Ativo;100;0\n"
              "102;Helena;Marques;Recursos Humanos;101;14;Ativo;110;2,5\n"
              "103;Luís;Pinto;Produção;104;20;Baixa médica;300;0\n"
              "104;Carla;Fernandes;Produção;101;9,5;Ativo;300;6\n"
              "105;Bruno;Silva;Produção;104;7;Ativo;300;1,5\n")


def test_an_id_column_no_header_word_names_is_found_by_the_manager_numbers_that_point_at_it(tmp_path):
    # "Nº" is in no language file: the manager column's numbers are its values, so it is the id, and a manager
    # given by number has their reports (before, nobody had any, and a manager's team question was refused).
    table = load_employees(_write(tmp_path, "colaboradores.csv", PORTUGUESE))
    assert table.role("employee_id") == "Nº" and table.role("manager") == "Chefia"
    assert "Chefia" in table.findings["employee_id"].evidence[0]
    carla = make_viewer(table, "Carla Fernandes")
    assert carla.role == "manager" and sorted(carla.reports) == ["Bruno Silva", "Luís Pinto"]
    # Two unique number columns the manager's numbers could be: nothing says which, so neither.
    rows = [line.split(";") for line in PORTUGUESE.splitlines()]
    doubled = "\n".join(";".join([r[0], r[0] if i else "Cartão", *r[1:]]) for i, r in enumerate(rows)) + "\n"
    assert load_employees(_write(tmp_path, "dobro.csv", doubled)).role("employee_id") is None


def test_a_manager_named_by_a_name_split_over_two_columns_is_checked_against_the_joined_name(tmp_path):
    text = ("Vorname;Familienname;Vorgesetzte/r;Abteilung\nMarkus;Hofbauer;;Geschäftsführung\n"
            "Elisabeth;Haas;Markus Hofbauer;Rechnungswesen\nSarah;Lang;Elisabeth Haas;Rechnungswesen\n")
    table = load_employees(_write(tmp_path, "personalstand.csv", text))
    finding = table.findings["manager"]
    assert "match no" not in " ".join(finding.evidence) and finding.confidence > 0.9
    assert make_viewer(table, "Elisabeth Haas").reports == ["Sarah Lang"]


def test_a_cost_centre_and_banked_overtime_have_roles_and_a_cost_centre_in_words_is_the_department(tmp_path):
    table = load_employees(_write(tmp_path, "colaboradores.csv", PORTUGUESE))
    assert table.role("cost_centre") == "Centro de custo" and table.role("department") == "Departamento"
    assert table.role("overtime_balance") == "Banco de horas" and _unit(table, "Banco de horas") == "hours"
    uk = load_employees(_write(tmp_path, "staff.csv", "Name,Cost Center,TOIL\nAna Cruz,1000 Administration,3\n"
                                                      "Pat Oh,2000 Sales,1.5\n"))
    assert uk.role("department") == "Cost Center" and uk.role("overtime_balance") == "TOIL"
    assert _unit(uk, "TOIL") == "hours"  # (not the days a leave balance with no unit is kept in)


def _unit(table, column: str) -> str:
    from engine.data.schema import column_unit

    col = table.columns[column]
    return column_unit(column, col.dtype, col.roles)


def test_a_status_in_the_files_language_is_found_by_its_english_words(tmp_path):
    from engine.data.vocab import vocabulary

    table = load_employees(_write(tmp_path, "colaboradores.csv", PORTUGUESE))
    assert table.role("status") == "Situação"
    assert vocabulary().value_kind("Baixa médica", ("status_away",)) == "status_away"
    # ("Is anyone on my team off on sick leave?" finds the row by the gloss; without it, the filter was none)
    assert vocabulary().gloss("Baixa médica") == "sick leave" and vocabulary().gloss("Krankenstand") == "sick leave"


def test_an_id_found_only_by_values_is_not_used_where_the_reporting_lines_it_makes_are_broken(tmp_path):
    # A running number whose values overlap the managers' numbers: Dana her own manager, Ben and Cem each
    # other's. Used, it would have made the wrong people managers; it is a suggestion for IT's map only.
    text = "Lfd;Name;Vorgesetzter;Abteilung\n1;Anna Roth;3;Lager\n2;Ben Kurz;3;Lager\n3;Cem Aydin;2;Lager\n" \
           "4;Dana Wolf;4;Lager\n"
    table = load_employees(_write(tmp_path, "liste.csv", text))
    assert table.role("employee_id") is None and table.findings["employee_id"].suggested
    assert make_viewer(table, "Cem Aydin").role == "employee" and make_viewer(table, "Cem Aydin").reports == []


def test_a_cost_centre_named_for_hr_makes_nobody_hr(tmp_path):
    # A trainee booked to the "Personal" cost centre, where no column names the department: no HR rights.
    text = "Personalnummer;Vorname;Nachname;Kostenstelle;Vorgesetzter;Resturlaub\n1;Eva;Lang;Geschäftsführung;;20\n" \
           "2;Ben;Kurz;Personal;1;12\n3;Ida;Berg;Lager;1;9\n4;Tom;Hahn;Lager;1;4\n"
    table = load_employees(_write(tmp_path, "liste.csv", text))
    assert table.role("department") == "Kostenstelle" == table.role("cost_centre")
    ben = make_viewer(table, "Ben Kurz")
    assert ben.role == "employee" and ben.visible_rows == frozenset({1})


DUTCH = ("\ufeffPersoneelsnummer;Naam;Afdeling;Indiensttreding;Uren per week;Bruto maandsalaris;Verlofuren saldo;"
         "Leidinggevende\n"
         "20001;Maarten de Wit;Directie;01-02-2008;40;8.950,00;112,0;\n"
         "20005;Johan Verbeek;Engineering;03-01-2011;40;6.150,00;143,5;Maarten de Wit\n"
         "20007;Sanne Bakker;Engineering;15-09-2019;32;4.200,00;80,5;Johan Verbeek\n"
         "20009;Eva Jansen;P&O;22-03-2021;36;4.600,00;96,0;Maarten de Wit\n")


def test_a_dutch_export_with_full_names_under_naam_and_dates_with_hyphens(tmp_path):
    # "Naam" (the family name in some files) holds whole names here: the full name, by which people sign in
    # and managers are named. Without it nobody was in the data. Dates 01-02-2008 are day-first dates; "Uren per
    # week" is hours a week and "Verlofuren saldo" a balance in hours.
    table = load_employees(_write(tmp_path, "medewerkers.csv", DUTCH))
    assert table.role("name") == "Naam" and table.role("last_name") is None
    assert table.role("hire_date") == "Indiensttreding" and table.columns["Indiensttreding"].dtype == "date"
    assert str(table.df["Indiensttreding"][0])[:10] == "2008-02-01"
    assert _unit(table, "Uren per week") == "hours a week" and _unit(table, "Verlofuren saldo") == "hours"
    johan = make_viewer(table, "Johan Verbeek")
    assert johan.role == "manager" and johan.reports == ["Sanne Bakker"]
    assert make_viewer(table, "Eva Jansen").role == "hr"  # ("P&O", Personeel & Organisatie, is HR in Dutch)


def test_leave_balances_with_no_unit_in_their_headers_are_hours_where_the_values_say_so(tmp_path):
    # "PTO Balance" 184.00 is hours (nobody has 184 days left), and "Sick Balance" beside it is kept in the same
    # unit; a file whose balances run to a few dozen keeps days, as before.
    from engine.data.schema import infer_schema

    text = ("Name,Pay Type,PTO Balance,Sick Balance\nDiane Kowalski,Salaried,184.00,40.00\n"
            "Marcus Bell,Salaried,121.50,32.00\nJasmine Ortiz,Salaried,66.25,24.00\n")
    units = infer_schema(load_employees(_write(tmp_path, "people.csv", text))).units
    assert units["PTO Balance"] == "hours" and units["Sick Balance"] == "hours"
    days = text.replace("184.00", "18").replace("121.50", "12.5").replace("66.25", "6")
    units = infer_schema(load_employees(_write(tmp_path, "people2.csv", days))).units
    assert units["PTO Balance"] == "days" and units["Sick Balance"] == "days"
    # a unit the header names is never overruled
    named = text.replace("PTO Balance", "PTO Balance (days)")
    assert infer_schema(load_employees(_write(tmp_path, "people3.csv", named))).units["PTO Balance (days)"] == "days"
