"""Every rule reader against its corpus (engine/agent/rules/corpus/<reader>.toml): the parts it must settle,
with the figure the calculator gets, and the parts it must leave to the model."""

from __future__ import annotations

import math
import re
import tomllib
from pathlib import Path

import pytest

from engine.agent.calc_slot import Variable, variable_name
from engine.agent.evidence import Unit
from engine.agent.rules.base import PAY_NAMES, View
from engine.agent.rules.catalog import KINDS, readers
from engine.errors import SetupError

CORPUS = Path(__file__).resolve().parents[1] / "engine" / "agent" / "rules" / "corpus"


def _lines(kind: str):
    for name in KINDS:
        path = CORPUS / f"{name}.toml"
        for i, line in enumerate(tomllib.loads(path.read_text(encoding="utf-8")).get(kind, []) if path.is_file() else []):
            yield pytest.param(name, line, id=f"{name}-{kind}-{i}")


def view_of(line: dict) -> View:
    """A corpus line as a reader sees it."""
    rules = line.get("rules") or ([line["rule"]] if "rule" in line else [])
    units = tuple(Unit(f"1{chr(97 + i)}", text, 1) for i, text in enumerate(rules))
    others = tuple(Unit(f"2{chr(97 + i)}", text, 1 if line.get("same_passage") else 2)
                   for i, text in enumerate(line.get("others", [])))
    pay, period = None, ""
    if "pay" in line:
        value, period = line["pay"]
        pay = Variable(PAY_NAMES[period], float(value), f"Pay, USD per {period}")
    balances = tuple(Variable(variable_name(label), float(v), f"{label}, {unit}")
                     for label, (v, unit) in line.get("balances", {}).items())
    job = frozenset(w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]{4,}", line.get("job", "")))
    return View(line["question"], line.get("whole", ""), line.get("before", ""), units, units + others, pay, period,
                balances, job, line.get("exempt"), tuple(line.get("documents", ())), line.get("prorated", False),
                weekly_hours=line.get("weekly_hours"), language=line.get("language", "en"),
                part_time=line.get("part_time", False), service_years=line.get("service_years"),
                today=line.get("today", ""),
                group_words=frozenset(w.lower().rstrip("s") for w in line.get("group", "").split()))


def worked_out(code: str, variables: list[Variable]) -> float:
    scope = {v.name: v.value for v in variables}
    for line in code.strip().splitlines():
        name, _, expression = line.partition(" = ")
        scope[name.strip()] = eval(expression, {"__builtins__": {}, "min": min, "max": max}, scope)  # noqa: S307
    return scope["answer"]


@pytest.mark.parametrize("name, line", list(_lines("settle")))
def test_a_reader_settles_its_corpus_lines_with_the_right_figure(name, line):
    view = view_of(line)
    settled = KINDS[name]().read(view)
    assert settled is not None, line["question"]
    if "answer" in line:
        value = worked_out(settled.code, settled.variables)
        assert math.isclose(value, line["answer"], rel_tol=1e-4), (value, settled.code)
        sentence = settled.sentence(view, f"{value:g}")
    else:  # a rule that answers by itself: nothing to work out
        assert not settled.code and not settled.variables
        sentence = settled.sentence(view, "")
    assert line.get("says", "") in sentence, sentence
    assert "{" not in sentence, sentence


@pytest.mark.parametrize("name, line", list(_lines("leave")))
def test_a_reader_leaves_its_negative_lines_to_the_model(name, line):
    assert KINDS[name]().read(view_of(line)) is None, line["why"]


@pytest.mark.parametrize("name", list(KINDS))
def test_every_reader_has_a_corpus_of_ten_and_five(name):
    corpus = tomllib.loads((CORPUS / f"{name}.toml").read_text(encoding="utf-8"))
    assert len(corpus.get("settle", [])) >= 10 and len(corpus.get("leave", [])) >= 5


def test_a_holiday_shift_is_paid_by_the_holiday_rule_not_the_night_differential():
    """An 8-hour day shift on Thanksgiving: the holiday rule's multiple settles it, the shift differential
    (for nights, and added on top) does not."""
    line = next(p.values[1] for p in _lines("leave") if "Thanksgiving" in p.values[1]["question"])
    view = view_of({**line, "pay": [20, "hour"], "exempt": False})
    settled = {r.name: s for r in readers() if (s := r.read(view)) is not None}
    assert list(settled) == ["multiple"]
    assert worked_out(settled["multiple"].code, settled["multiple"].variables) == 240
    assert "Thanksgiving" not in settled["multiple"].rule.text and "holidays" in settled["multiple"].rule.text


def test_the_order_of_readers_comes_from_settings_and_a_wrong_name_is_a_clear_error():
    assert [r.name for r in readers("per_unit, cap")] == ["per_unit", "cap"]
    assert [r.name for r in readers("")] == list(KINDS)
    with pytest.raises(SetupError, match="rule_readers names nonsense"):
        readers("cap,nonsense")


def test_every_language_file_has_every_answer_sentence_with_the_same_blanks():
    """A question in German gets code's sentences in German: each language's answers have English's keys,
    with the same blanks, so no sentence falls back or breaks."""
    import string

    from engine.agent.rules.words import _table, languages

    english = _table("en")["answers"]
    for code in languages():
        answers = _table(code).get("answers", {})
        assert set(answers) == set(english), code
        for key, text in answers.items():
            blanks = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            assert blanks == {f for _, f, _, _ in string.Formatter().parse(english[key]) if f}, (code, key)


def test_a_german_question_gets_code_s_sentence_in_german():
    line = next(p.values[1] for p in _lines("settle") if p.values[0] == "cap")
    view = view_of(line)
    german = View(**{**view.__dict__, "language": "de"})
    settled = KINDS["cap"]().read(german)
    assert settled.sentence(german, "48").startswith("Von Ihren 88 Stunden werden 40 übertragen")


def test_every_language_has_every_sentence_code_writes_with_the_same_blanks():
    import string

    from engine.agent.sentences import languages, table

    english = table("en")
    for code in languages():
        assert set(table(code)) == set(english), code
        for key, text in table(code).items():
            blanks = {f for _, f, _, _ in string.Formatter().parse(text) if f}
            assert blanks == {f for _, f, _, _ in string.Formatter().parse(english[key]) if f}, (code, key)
