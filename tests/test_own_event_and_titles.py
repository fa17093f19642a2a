"""Whose event a row of a leave table is, job titles named as common nouns, "combined" after "who", "anyone"."""

from __future__ import annotations

import pytest

from engine.agent.applies import mark_units, question_relative
from engine.agent.sentences import asked_aggregate
from engine.agent.slots import SlotGrammar, names_own_word
from engine.data.access import make_viewer
from engine.data.columns import is_hr_department
from engine.data.employees import load_employees
from engine.policy.terms import relatives_named


class _Unit:
    def __init__(self, label: str, text: str, passage: int = 0) -> None:
        self.label, self.text, self.passage = label, text, passage


FR_ROWS = [
    _Unit("own", "Événement: Mariage ou conclusion d'un PACS du salarié; Durée du congé rémunéré: 5 jours ouvrables"),
    _Unit("child", "Événement: Mariage d'un enfant; Durée du congé rémunéré: 1 jour ouvrable"),
    _Unit("birth", "Événement: Naissance ou adoption d'un enfant; Durée du congé rémunéré: 3 jours ouvrables"),
]
NL_ROWS = [
    _Unit("own", "Gebeurtenis: Huwelijk van de werknemer; Klein verlet: 2 dagen"),
    _Unit("kin", "Gebeurtenis: Huwelijk van een kind, broer, zus, vader of moeder; Klein verlet: de dag van het huwelijk"),
    # (every row names "klein verlet", a topic of the question too: it tells no row apart)
    _Unit("move", "Gebeurtenis: Verhuis (één keer per kalenderjaar); Klein verlet: 1 dag"),
]


def _marks(rows, question):
    return mark_units(rows, lambda u: "", question, None)


ES_ROWS = [
    _Unit("own", "Causa: Matrimonio o inscripción como pareja de hecho; Duración del permiso: 15 días naturales"),
    _Unit("kin", "Causa: Fallecimiento de cónyuge, pareja de hecho o hijo; Duración del permiso: 5 días naturales"),
    _Unit("move", "Causa: Traslado del domicilio habitual dentro de la misma localidad; Duración del permiso: 1 día"),
]


@pytest.mark.parametrize("rows,question", [
    # (the couple registered is the event itself, not a relative: "pareja de hecho" in the asker's own row)
    (ES_ROWS, "Hola! Me caso en mayo del año que viene, ¿cuántos días de permiso me dan por la boda?"),
    (FR_ROWS, "Bonjour, je me marie le 9 octobre. J'ai droit à combien de jours de congé pour mon mariage ?"),
    (NL_ROWS, "Ik ga in oktober trouwen. Hoeveel dagen klein verlet krijg ik daarvoor?"),
])
def test_my_own_event_is_the_row_of_no_relative(rows, question):
    applies, ruled_out = _marks(rows, question)
    assert list(applies) == ["own"]
    assert "own" not in ruled_out and (ruled_out & {"child", "kin"})


def test_a_relative_named_picks_that_relative_s_rows():
    applies, ruled_out = _marks(FR_ROWS, "Mon fils se marie en juin : combien de jours de congé ?")
    assert "child" in applies and "own" in ruled_out


def test_a_question_not_in_the_first_person_chooses_no_row():
    assert _marks(FR_ROWS, "Combien de jours de congé pour un mariage ?") == ({}, set())


def test_two_rows_of_nobody_in_particular_leave_the_choice_open():
    rows = [_Unit("a", "Event: Wedding; Leave: 3 days"), _Unit("b", "Event: Wedding (civil ceremony); Leave: 1 day"),
            _Unit("c", "Event: Wedding of a child; Leave: 1 day")]
    assert _marks(rows, "I'm getting married in May, how many days do I get?")[0] == {}


@pytest.mark.parametrize("text,languages,kinds", [
    ("Décès d'un grand-parent ou d'un petit-enfant", {"fr"}, ["grandparent", "grandchild"]),
    ("Can I take leave for my mother-in-law's funeral?", {"en"}, ["in-law"]),
    ("Huwelijk van een kind, broer, zus, vader of moeder", {"nl"}, ["child", "sibling", "parent"]),
    ("Tod der Schwiegermutter oder des Ehegatten", {"de"}, ["in-law", "spouse"]),
    ("What kind of leave do I get?", {"en"}, []),  # a Dutch or German "kind" is no English one
    ("Mariage ou conclusion d'un PACS du salarié", {"fr"}, []),
])
def test_relatives_are_named_in_each_language_s_words(text, languages, kinds):
    assert relatives_named(text, languages) == kinds


def test_a_question_s_relative_in_its_own_language():
    assert question_relative("Mi abuela ha fallecido, ¿cuántos días tengo?") == "grandparent"
    assert question_relative("What kind of leave can I take?") == ""


@pytest.mark.parametrize("question,asked", [
    ("What's the combined PTO balance of the hygienists who report to me?", "total"),
    ("What is the average salary of the nurses who joined in 2020?", "average"),
    ("Who has the highest total overtime?", "names"),
    ("Is anyone on my team out on leave at the moment?", "names"),
    ("Est-ce que quelqu'un de mon équipe a quitté l'entreprise ?", "names"),
    ("Who reports to me?", "names"),
    # (a bare "someone" is no question of who: "Wat verdient iemand gemiddeld?" asks an average)
    ("Wat verdient iemand gemiddeld in het magazijn?", "average"),
    ("Is er iemand in mijn team met ouderschapsverlof?", "names"),
])
def test_what_a_data_question_asks_for(question, asked):
    assert asked_aggregate(question) == asked


def test_a_status_named_by_a_word_of_five_letters_no_other_status_has():
    statuses = ["Active", "Leave of Absence", "Terminated"]
    assert names_own_word("Leave of Absence", statuses, "Is anyone on my team out on leave at the moment?")
    assert not names_own_word("Parental Leave", ["Parental Leave", "Sick Leave"], "Who is on leave?")


@pytest.fixture
def depot(tmp_path):
    path = tmp_path / "personeel.csv"
    rows = ["Personeelsnummer;Achternaam;Voornaam;Afdeling;Functie;Bruto uurloon;Leidinggevende",
            "1;Maes;Sofie;Personeelsdienst;Payroll-medewerker;;",
            "2;Claes;Jens;Magazijn;Orderpicker;16,85;1",
            "3;Peeters;An;Magazijn;Orderpicker;16,20;1",
            "4;Janssens;Tom;Magazijn;Manager;24,00;1",
            "5;Wouters;Lien;Transport;Chauffeur;18,00;4"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return load_employees(path)


def _named(table, question, viewer):
    grammar = SlotGrammar(table, make_viewer(table, viewer), question=question, grouping=False)
    grammar.grammar()
    return grammar.named


def test_a_job_title_is_named_in_the_plural_and_lower_case(depot):
    assert _named(depot, "What's the average gross hourly wage of our orderpickers?", "Sofie Maes") == \
        [("Functie", "Orderpicker")]


def test_my_own_manager_names_no_job_title(depot):
    assert _named(depot, "What is the hourly wage of my manager?", "Lien Wouters") == []


def test_a_dutch_personnel_service_is_hr():
    assert is_hr_department("Personeelsdienst", {"nl"}) and not is_hr_department("Magazijn", {"nl"})


def test_two_job_titles_named_are_either_of_them(depot):
    grammar = SlotGrammar(depot, make_viewer(depot, "Sofie Maes"), grouping=False,
                          question="What's the average hourly wage of our orderpickers and chauffeurs?")
    text = grammar.grammar()
    assert sorted(grammar.named) == [("Functie", "Chauffeur"), ("Functie", "Orderpicker")]
    assert "filter ::= namedcond" in text
    query = grammar.parse('everyone\nFilter: "Functie" is "Orderpicker" and "Functie" is "Chauffeur"\n'
                          'Result: average of "Bruto uurloon"\n')
    assert query.filters == [("Functie", "is one of", '"Orderpicker", "Chauffeur"')]


@pytest.mark.parametrize("title,question,others,named", [
    ("Recepcionista", "¿Cuántas personas trabajan en recepción?", [], False),  # a stem is no word
    ("Engineer", "How many people are in the Engineering team?", ["Engineering"], False),  # the department's word
    ("Camarero", "¿Cuál es el salario medio de los camareros?", [], True),
    ("Chauffeur", "Hoeveel verdienen onze chauffeurs gemiddeld?", [], True),
    ("Manager", "Who is my manager?", [], False),
])
def test_a_job_title_is_named_by_whole_words(title, question, others, named):
    from engine.agent.slots import names_title

    assert names_title(title, question, others) is named


def test_a_plain_text_sub_heading_heads_the_sentences_under_it():
    from engine.agent.evidence import Passage, Unit, inner_headings

    texts = ["9 ans, 12 % à partir de 12 ans.", "3.3 Titres-restaurant",
             "Chaque salarié reçoit un titre-restaurant par jour travaillé.",
             "L'entreprise en finance 60 %, soit 6,00 EUR par titre.", "Overtime", "Hours over 40 are paid at 1.5."]
    passage = Passage(1, "accord.txt", "CHAPITRE 3", "", [Unit(f"1{c}", t, 1) for c, t in zip("abcdef", texts)])
    assert inner_headings([passage]) == {"1c": "3.3 Titres-restaurant", "1d": "3.3 Titres-restaurant",
                                         "1f": "Overtime"}
    # rows of a table and sentences are no headings
    rows = Passage(2, "h.md", "Leave", "", [Unit("2a", "Event: Wedding; Leave: 3 days", 2),
                                            Unit("2b", "Annual leave: 25 days", 2)])
    assert inner_headings([rows]) == {}


def test_a_department_named_takes_no_job_title_by_its_first_letters(tmp_path):
    path = tmp_path / "plantilla.csv"
    rows = ["Nº empleado;Nombre;Departamento;Puesto;Salario bruto anual;Responsable",
            "1;Ana Ruiz;Dirección;Directora;50000;", "2;Luis Gil;Cocina;Cocinero;21000;1",
            "3;Eva Sanz;Cocina;Cocinera;19800;1", "4;Pablo Ortiz;Cocina;Ayudante de cocina;17640;1",
            "5;Marta León;Recepción;Recepcionista;20000;1"]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    table = load_employees(path)
    assert _named(table, "¿Cuál es el salario bruto anual medio del departamento de Cocina?", "Ana Ruiz") == \
        [("Departamento", "Cocina")]
    assert _named(table, "¿Cuál es el salario medio de los cocineros y cocineras?", "Ana Ruiz") == \
        [("Puesto", "Cocinera"), ("Puesto", "Cocinero")]


def test_a_flexitime_account_is_the_record_s_balance_of_hours():
    from engine.agent.route_check import asks_record_field

    record = ["Gleitzeitsaldo (Std.)", "Resturlaub (Tage)"]
    assert asks_record_field("how many hours have i got on my flexitime account right now?", record) == \
        "overtime_balance"
    assert asks_record_field("What are the core hours of flexitime?", record) == ""


@pytest.mark.parametrize("text,found", [
    ("How many hours of annual leave have my lads in maintenance got left between them?", "my lads"),
    ("Who in my maintenance team is off today?", "my maintenance team"),
])
def test_more_words_for_my_team(text, found):
    from engine.agent.sentences import team_words

    match = team_words().search(text)
    assert match and match.group() == found


@pytest.mark.parametrize("text,heading", [
    ("3.3 Titres-restaurant", True), ("Carrying Leave Over", True), ("Maximum 3 days per year", False),
    ("Overtime is paid at 150 %", False), ("Niet van toepassing op stagiairs", False), ("x y", False),
])
def test_what_is_a_sub_heading(text, heading):
    from engine.agent.evidence import Passage, Unit, inner_headings

    passage = Passage(1, "h.txt", "", "", [Unit("1a", text, 1), Unit("1b", "Something else is said here.", 1)])
    assert bool(inner_headings([passage])) is heading


@pytest.mark.parametrize("question,relative", [
    ("¿Cuántos días son por matrimonio?", ""),  # a Spanish "son" is "are"
    ("Combien de jours pour son mariage ?", ""),  # a French "son" is "his"
    ("My stepson is getting married in June", "child"),
])
def test_false_friends_name_no_relative(question, relative):
    assert question_relative(question) == relative


@pytest.mark.parametrize("question", [
    "My best friend is getting married, how many days do I get?",
    "How many days off do I get for my colleague's wedding?",
])
def test_someone_else_s_event_is_not_mine(question):
    rows = [_Unit("own", "Event: Wedding of the employee; Leave: 3 days"),
            _Unit("kin", "Event: Wedding of a child or sibling; Leave: 1 day")]
    assert _marks(rows, question) == ({}, set())


def test_a_short_question_s_relative_in_the_handbook_s_language():
    rows = [_Unit("kin", "Causa: Fallecimiento de padres, hermanos o abuelos; Duración del permiso: 3 días"),
            _Unit("other", "Causa: Fallecimiento de otros familiares; Duración del permiso: 1 día")]
    applies, ruled_out = _marks(rows, "Murió mi abuela")
    assert applies == {"kin": "grandparent"} and ruled_out == {"other"}


def test_leave_balances_are_no_status_of_leave():
    statuses = ["Active", "Leave of Absence", "Terminated"]
    assert not names_own_word("Leave of Absence", statuses, "How many days of annual leave does my team have left?")


@pytest.mark.parametrize("title,question,named", [
    ("Trainer", "Who on my team has overdue training?", False),
    ("Medewerker", "Wat is het gemiddelde uurloon van de medewerkers?", False),
    ("Cameriere", "Quanto guadagnano in media i camerieri?", True),
    ("Orderpicker", "How many of my orderpickers are on leave?", True),
])
def test_job_titles_by_their_forms_only(title, question, named):
    from engine.agent.slots import names_title

    assert names_title(title, question, []) is named
