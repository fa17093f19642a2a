"""An export that is not UTF-8 is read in the code page its text reads best in."""

import pytest

from engine.codepage import decode_legacy, oddity
from engine.data.employees import load_employees
from engine.policy.loaders import decode_text

SAMPLES = [
    ("cp1250", "Nazwisko;Imię;Lokalizacja;Urlop zaległy (dni)\nKowalski;Łukasz;Łódź;3\nWoźniak;Michał;Poznań;2,5"),
    ("cp1250", "Příjmení;Jméno;Středisko\nNovák;Jiří;Plzeň"),
    ("cp1252", "Name;Vorname;Straße;Größe\nMüller;Jürgen;Köln;Résumé"),
    ("cp1252", "Nom;Prénom;Ville\nLefèvre;Hélène;Besançon à côté; Noël"),
    ("cp1252", "Apellido;Nombre\nMuñoz;José;¿Cuánto? Peña"),
    ("cp1252", "Name,Salary\nSmith,£25,000\nO'Brien,€30.000"),
    ("cp1252", "Navn;By\nSørensen;Århus;Bjørk"),
    ("cp1252", "Nome;Città\nD'Angelo;Forlì;Perché"),
    ("cp1252", "Nome completo;Função\nMaria da Conceição;São Paulo"),
    ("cp1251", "Фамилия;Имя;Отдел\nИванов;Пётр;Продажи"),
]


@pytest.mark.parametrize("page,text", SAMPLES)
def test_a_legacy_export_is_read_in_its_own_code_page(page, text):
    decoded, found = decode_legacy(text.encode(page))
    assert decoded == text
    # Western European text reads the same in several pages; it must come back unchanged either way.
    assert found == page or page == "cp1252"


def test_the_words_no_language_writes_are_what_decides():
    assert oddity("zaleg³y £ódŸ") == 2
    assert oddity("Pøíjmení") == 1  # Danish ø beside Czech í
    assert oddity("Łódź zaległy Müller Peña Sørensen") == 0


def test_a_polish_excel_export_finds_its_people_and_headers(tmp_path):
    text = ("Nr ewid.;Nazwisko;Imię;Lokalizacja;Przełożony (nr ewid.);Urlop zaległy (dni)\r\n"
            "1;Wiśniewski;Tomasz;Gdańsk;;4\r\n2;Zielińska;Agnieszka;Łódź;1;2\r\n3;Woźniak;Łukasz;Łódź;1;3\r\n")
    path = tmp_path / "lista.csv"
    path.write_bytes(text.encode("cp1250"))
    table = load_employees(path)
    assert list(table.df["Lokalizacja"]) == ["Gdańsk", "Łódź", "Łódź"]
    assert "Urlop zaległy (dni)" in table.df.columns
    assert table.roles["site"] == ["Lokalizacja"]


def test_a_handbook_in_a_central_european_code_page_reads_as_written():
    text = "Urlop zaległy należy wykorzystać do 30 września."
    assert decode_text(text.encode("cp1250")) == text
    assert decode_text("Überstunden werden mit 25 % vergütet.".encode("cp1252")) == "Überstunden werden mit 25 % vergütet."
