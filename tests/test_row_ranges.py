"""Bands of service a table row states, in each language the handbooks come in: the row applies to the years
inside the band and to no others (a lower and an upper bound in one cell are one band)."""

import pytest

from engine.agent.applies import Figure, judge

#: (row, years of service it applies to, years it does not)
ROWS = [
    ("Anzianità di servizio: oltre 5 anni e fino a 10 anni; Operai: 15 giorni", (7,), (11.3, 4)),
    ("Anzianità di servizio: oltre 10 anni; Operai: 20 giorni", (11.3,), (4, 7)),
    ("Anzianità di servizio: fino a 5 anni; Operai: 10 giorni", (4,), (7, 11.3)),
    ("Anzianità di servizio in azienda: 18 anni e oltre; Giorni di ferie all'anno: 25 giorni", (18.7,), (11,)),
    ("Anzianità di servizio in azienda: da 10 anni a meno di 18 anni; Giorni di ferie all'anno: 23 giorni", (11,), (18.7, 4)),
    ("Anzianità di servizio in azienda: meno di 10 anni; Giorni di ferie all'anno: 22 giorni", (4,), (11,)),
    ("Antigüedad: más de 5 años y hasta 10 años; Preaviso: 30 días", (7,), (11, 4)),
    ("Antigüedad: de 5 a 10 años; Preaviso: 30 días", (7,), (11, 4)),
    ("Antigüedad: 10 años o más; Preaviso: 45 días", (11,), (4,)),
    ("Tempo de casa: acima de 5 anos até 10 anos; Dias: 20", (7,), (11, 4)),
    ("Tempo de casa: mais de 10 anos; Dias: 25", (11,), (4,)),
    ("Tempo de casa: de 2 a menos de 5 anos; Dias: 15", (3,), (5.5, 1)),
    ("Ancienneté: plus de 5 ans et jusqu'à 10 ans; Préavis: 2 mois", (7,), (11, 4)),
    ("Ancienneté: de 2 à moins de 5 ans; Préavis: 1 mois", (3,), (5.5, 1)),
    ("Ancienneté: 10 ans et plus; Préavis: 3 mois", (11,), (4,)),
    ("Betriebszugehörigkeit: mehr als 5 Jahre bis 10 Jahre; Kündigungsfrist: 2 Monate", (7,), (11, 4)),
    ("Betriebszugehörigkeit: ab 10 Jahren; Kündigungsfrist: 4 Monate", (11,), (4,)),
    ("Betriebszugehörigkeit: weniger als 2 Jahre; Kündigungsfrist: 4 Wochen", (1,), (3,)),
    ("Diensttijd: meer dan 5 jaar tot 10 jaar; Opzegtermijn: 2 maanden", (7,), (11, 4)),
    ("Diensttijd: 10 jaar of meer; Opzegtermijn: 3 maanden", (11,), (4,)),
    ("Diensttijd: vanaf 5 jaar; Opzegtermijn: 2 maanden", (7,), (4,)),
    ("Staż pracy: powyżej 5 lat do 10 lat; Wypowiedzenie: 1 miesiąc", (7,), (11, 4)),
    ("Anciënniteit: Van 6 jaar tot minder dan 7 jaar; Opzegtermijn: 10 weken", (6.67,), (7.2, 5.9)),
    ("Anciënniteit: Van 1 jaar tot minder dan 18 maanden; Opzegtermijn: 4 weken", (1.2,), (0.4, 1.6)),
    ("Continuous service: more than 5 years and up to 10 years; Notice: 6 weeks", (7,), (11, 4)),
    ("Continuous service: 2 years but less than 12 years; Notice: one week per year", (7,), (12.5, 1)),
]


@pytest.mark.parametrize("row,inside,outside", ROWS)
def test_a_row_applies_inside_its_band_of_service_only(row, inside, outside):
    for years in inside:
        assert judge(row, "", [], Figure(years, "years", f"{years} years"))[0] == "applies", (row, years)
    for years in outside:
        assert judge(row, "", [], Figure(years, "years", f"{years} years"))[0] == "not", (row, years)


def test_running_text_with_two_bands_still_marks_the_one_that_holds():
    text = "Employees with less than 5 years of service get 20 days. Those with 5 years or more get 25 days."
    assert judge(text, "", [], Figure(7, "years", "7 years"))[0] == "applies"
    assert judge(text, "", [], Figure(3, "years", "3 years"))[0] == "applies"


def test_a_table_keyed_by_a_column_of_my_record_applies_its_row_of_my_value():
    from engine.agent.applies import mark_units
    from engine.agent.evidence import Unit

    rows = [Unit("1a", "Área: Financeiro e Recursos Humanos; Dias de home office por semana: até 2 dias", 1),
            Unit("1b", "Área: Comercial; Dias de home office por semana: até 3 dias", 1),
            Unit("1c", "Área: Produção; Dias de home office por semana: nenhum", 1)]
    applies, ruled_out = mark_units(rows, lambda u: "3.5 Home office", "Quantos dias posso trabalhar de casa?", None,
                                    record={"department": ("Área", "Comercial")})
    assert set(applies) == {"1b"} and ruled_out == {"1a", "1c"}
    # (no record value of the key's column: nothing is marked)
    applies, ruled_out = mark_units(rows, lambda u: "", "Quantos dias posso trabalhar de casa?", None,
                                    record={"site": ("Unidade", "Curitiba")})
    assert not applies and not ruled_out


def test_a_band_of_years_beside_a_cap_of_days_is_still_the_band():
    """"5 or more years of service: up to 20 days": a band of service and a cap of another unit, not one band."""
    for text in ("- 5 or more years of service: up to 20 days of leave",
                 "After 5 years of service, employees receive up to 25 days of holiday."):
        assert judge(text, "Unpaid leave", [], Figure(7, "years", "7 years"))[0] == "applies", text
        assert judge(text, "Unpaid leave", [], Figure(3, "years", "3 years"))[0] != "applies", text


def test_a_grade_that_is_a_number_picks_no_column():
    from engine.agent.applies import person_cell

    row = "Level: Junior; Days 1-3: 10 days; Days 4-6: 12 days"
    assert person_cell(row, {"grade": ("Grade", "2")}) is None
    assert person_cell("Anzianità: oltre 10 anni; Operai: 20 giorni; Impiegati: 2 mesi; Quadri: 4 mesi",
                       {"grade": ("Qualifica", "Impiegato")}) == ("Anzianità: oltre 10 anni", "Impiegati: 2 mesi")
