"""A question's topic in another language's words (engine/policy/terms.py, engine/policy/lang/*.toml), and
rule sentences of other languages in the English words the rule readers know (rules/lang [to_english])."""

from __future__ import annotations

import pytest

from engine.agent.rates import rate_definitions
from engine.agent.rules.words import english_figures, to_english
from engine.policy.terms import concepts, other_languages


@pytest.mark.parametrize("question, found, not_found", [
    ("Wie viele Urlaubstage habe ich noch?", "annual leave", "urlaubstage"),  # a compound: "urlaub*"
    ("What is my hourly rate?", "taux horaire", "hourly rate"),
    ("Combien d'heures supplémentaires ai-je faites ?", "overtime", "heures supplémentaires"),
    ("¿Cuánto es la dieta diaria?", "per diem", "dieta"),
    ("Wann endet meine Probezeit?", "probation", "probezeit"),
    ("Hoeveel extra vakantiedagen krijg ik na tien dienstjaren?", "years of service", "dienstjaren"),
    ("Combien de jours en plus pour mon ancienneté ?", "length of service", "ancienneté"),
    ("How much meal voucher do we get for each day worked?", "vale-refeição", "meal voucher"),
    ("If the company dismissed me, how many days of notice would I get?", "aviso prévio", "days of notice"),
])
def test_a_topic_named_in_one_language_brings_the_other_languages_words(question, found, not_found):
    # (never a word the question already has)
    words = other_languages(question)
    assert found in words and not_found not in words


@pytest.mark.parametrize("question", ["Who reports to me?", "How do I report sick?", "Hello!", "What is 2 + 2?",
                                      "Who is my manager?"])
def test_a_question_naming_no_topic_of_the_files_brings_nothing(question):
    assert other_languages(question) == []


def test_every_language_file_names_concepts_english_has():
    english = {c for c, by in concepts().items() if "en" in by}
    assert all("en" in by for by in concepts().values()) and len(english) >= 15


@pytest.mark.parametrize("sentence, per, base, steps", [
    ("6.3 Le taux horaire de base est égal au salaire brut mensuel divisé par 151,67 heures.", "hour", "month",
     [("/", 151.67)]),
    ("Der Stundenlohn ist das Monatsgehalt geteilt durch 173,2.", "hour", "month", [("/", 173.2)]),
    ("El salario por hora es el salario bruto anual dividido entre 1.760 horas.", "hour", "year", [("/", 1760.0)]),
    ("Retribuzione oraria: si ottiene dividendo la retribuzione mensile per il divisore orario 173.", "hour", "month",
     [("/", 173.0)]),
    ("Le taux horaire s'obtient en divisant le salaire mensuel par 151,67.", "hour", "month", [("/", 151.67)]),
    ("Le salaire journalier correspond au salaire mensuel divisé par 21,67 jours ouvrés.", "day", "month",
     [("/", 21.67)]),
    # Portuguese shares "dividido por" and "horas" with Spanish: the language with most phrases is read.
    ("O salário-hora é o salário mensal dividido por 220 horas.", "hour", "month", [("/", 220.0)]),
    ("Het uurloon is het bruto maandsalaris gedeeld door 173,33 uur.", "hour", "month", [("/", 173.33)]),
])
def test_a_rate_defined_in_another_language_is_read(sentence, per, base, steps):
    (d,) = rate_definitions(sentence)
    assert (d.per, d.base, d.steps) == (per, base, steps)


@pytest.mark.parametrize("sentence", [
    "The hourly rate is the annual salary divided by 2,080 hours.",  # English: 2,080 is two thousand and eighty
    "Les salariés à temps partiel ne bénéficient pas de jours de RTT.",  # one glossary word: not read as French
    "3.1 L'horaire de 39 heures est compensé par 10 jours de RTT par an.",
])
def test_a_sentence_with_no_rule_of_another_language_keeps_its_figures(sentence):
    assert english_figures(sentence) == sentence
    assert sentence == to_english(sentence) or not rate_definitions(sentence)


def test_a_question_in_another_language_than_english_brings_its_own_languages_words_for_the_topic():
    # The embedder reads English: "morrer" finds a Portuguese handbook's "falecimento" only by the word.
    words = other_languages("Quantos dias posso faltar se morrer o meu avô?")
    assert "falecimento" in words and "nojo" in words and "bereavement" in words
    # An English question gets the other languages' words only (the embedder reads its synonyms).
    english = other_languages("My father passed away. How many days off can I take?")
    assert "falecimento" in english and "bereavement" not in english and "compassionate leave" not in english


@pytest.mark.parametrize("question, english", [
    ("Krijg ik extra verlofuren vanwege mijn aantal dienstjaren?", ["vacation", "years of service"]),
    ("Wie viele Urlaubstage habe ich noch?", ["vacation"]),
    ("Combien de jours de télétravail par semaine ?", ["remote work"]),
    ("How many vacation days do I have left?", []),  # (named in English: the embedder reads it as it is)
    ("Wer ist mein Vorgesetzter?", []),  # (no topic of the files)
])
def test_a_question_in_another_language_carries_the_english_words_of_its_topics(question, english):
    from engine.policy.terms import english_topics

    assert english_topics(question) == english
