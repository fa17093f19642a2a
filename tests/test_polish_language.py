"""Polish as a question-and-answer language: its words are data files (engine/data/lang/pl.toml [question],
engine/agent/lang/pl.toml, engine/agent/rules/lang/pl.toml, engine/policy/lang/pl.toml,
engine/agent/data/routes.pl.jsonl), and the mechanism reads them as it reads Dutch and German."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.agent.rates import rate_definitions
from engine.agent.rules.words import to_english, words
from engine.agent.sentences import asked_aggregate, asked_tenure, say, team_words
from engine.agent.sides import side_of
from engine.data.vocab import vocabulary
from engine.policy.terms import english_topics

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("question, lang", [
    ("Ile dni urlopu mi zostało?", "pl"),
    ("Kto jest moim przełożonym?", "pl"),
    ("Jaki mam okres wypowiedzenia?", "pl"),
    ("Ile zarabiam rocznie?", "pl"),
    ("Dzięki za pomoc!", "pl"),
    # (the others keep theirs)
    ("How many vacation days do I have left?", "en"),
    ("Who is my manager?", "en"),
    ("Hoeveel verlofdagen heb ik nog?", "nl"),
    ("Wie viele Urlaubstage habe ich noch?", "de"),
])
def test_a_polish_question_is_read_as_polish_and_answered_in_it(question, lang):
    vocab = vocabulary()
    assert vocab.question_language(question) == lang
    assert "Polish" in vocab.answer_in["pl"]


@pytest.mark.parametrize("question, asked", [
    ("Jaka jest średnia pensja w dziale sprzedaży?", "average"),
    ("Ile wynosi przeciętne wynagrodzenie w produkcji?", "average"),  # ("ile" alone asks no count)
    ("Ile nadgodzin ma mój zespół łącznie?", "total"),
    ("Kto z mojego zespołu pracuje na pół etatu?", "names"),
    ("Którzy pracownicy są na urlopie rodzicielskim?", "names"),
    ("Ile dni urlopu zostało łącznie mojemu zespołowi?", "total"),  # days added up: a unit is named
    ("Ile osób pracuje w dziale sprzedaży?", "count"),  # people counted
    ("Jaka jest średnia pensja osób, które pracują w Gdańsku?", "average"),  # ("które" of a clause)
])
def test_a_polish_data_question_asks_for_its_aggregate(question, asked):
    assert asked_aggregate(question) == asked


def test_polish_team_and_tenure_words_are_read():
    assert team_words().search("Kto z mojego zespołu ma jeszcze urlop?")
    assert asked_tenure("Kto w moim zespole pracuje najdłużej?") == "earliest"
    assert asked_tenure("Kto jest najnowszym pracownikiem?") == "latest"


@pytest.mark.parametrize("question, english", [
    ("Ile dni urlopu wypoczynkowego mi przysługuje za staż pracy?", ["vacation", "years of service"]),
    ("Czy mogę pracować zdalnie dwa dni w tygodniu?", ["remote work"]),
    ("Jak długi jest okres wypowiedzenia?", ["notice period"]),
])
def test_a_polish_question_carries_the_english_words_of_its_topics(question, english):
    assert english_topics(question) == english


@pytest.mark.parametrize("sentence, per, base, steps", [
    ("Stawka godzinowa to wynagrodzenie miesięczne podzielone przez 168 godzin.", "hour", "month", [("/", 168.0)]),
    ("Stawka godzinowa wynosi 1/168 wynagrodzenia miesięcznego.", "hour", "month", [("/", 168.0)]),
    ("Stawka dzienna to wynagrodzenie miesięczne podzielone przez 21 dni roboczych.", "day", "month", [("/", 21.0)]),
    # (a thousand written with a space, as Polish writes it)
    ("Stawka godzinowa to roczne wynagrodzenie brutto podzielone przez 2 016 godzin.", "hour", "year",
     [("/", 2016.0)]),
])
def test_a_rate_defined_in_polish_is_read(sentence, per, base, steps):
    assert "divided by" in to_english(sentence) or "1/168 of the monthly salary" in to_english(sentence)
    (d,) = rate_definitions(sentence)
    assert (d.per, d.base, d.steps) == (per, base, steps)


def test_polish_ranges_of_service_read_in_english_words():
    text = to_english("20 dni, jeżeli pracownik jest zatrudniony krócej niż 10 lat; 26 dni, jeżeli pracownik "
                      "jest zatrudniony co najmniej 10 lat.")
    assert "less than 10 years" in text and "at least 10 years" in text and "20 days" in text


@pytest.mark.parametrize("text, side", [
    ("Jaki mam okres wypowiedzenia, jeśli firma mnie zwolni?", "employer"),
    ("W przypadku wypowiedzenia umowy przez pracodawcę okres wypowiedzenia wynosi 3 miesiące.", "employer"),
    ("Jaki okres wypowiedzenia obowiązuje, gdy złożę wypowiedzenie?", "employee"),
    ("Chcę odejść z firmy. Ile wynosi mój okres wypowiedzenia?", "employee"),
])
def test_the_side_a_polish_text_speaks_of(text, side):
    assert side_of(text) == side


def test_code_s_sentences_are_written_in_polish():
    sentence = say("row_for_you", "pl", why="4 full years of service", rule="2 to 5 years: 2 months", cite=1)
    assert sentence == "W Twoim przypadku (4 full years of service) regulamin stanowi: 2 to 5 years: 2 months [1]."
    assert say("yes", "pl") == "Tak"
    polish = words("pl")
    assert polish.count(3, "days") == "3 dni"
    assert polish.answer("prohibited", rule="Urlop nie jest udzielany w grudniu.", cite=2).startswith("Nie. Regulamin")


def test_the_polish_route_bank_covers_every_kind_the_dutch_one_does():
    def bank(name: str) -> list[dict]:
        path = ROOT / "engine" / "agent" / "data" / name
        return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.startswith("{")]

    polish = bank("routes.pl.jsonl")
    assert {b["kind"] for b in polish} >= {b["kind"] for b in bank("routes.nl.jsonl")}
    vocab = vocabulary()
    # (a greeting of one word is too short to tell its language)
    assert all(vocab.question_language(b["q"]) == "pl" for b in polish if len(b["q"].split()) > 1)
