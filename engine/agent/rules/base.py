"""What a rule reader is given and what it gives back.

A reader looks at one part of a question, the policy sentences offered for it and the person's
figures, and either settles the part (the rule sentence it rests on, the figures, the calculator's
lines and the answer sentence to write) or gives way to the model by returning None. It never calls
the model, never looks anything up and never changes what it is given.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from engine.agent.applies import question_figures
from engine.agent.calc_slot import Variable, plain_number
from engine.agent.evidence import Unit
from engine.agent.rates import RateDefinition, applies_to, for_pay, rate_definitions, with_divisor
from engine.agent.rules.words import Words, english_figures, words

#: The names a person's pay figure is declared under, by its period.
PAY_NAMES = {"hour": "hourly_rate", "year": "annual_salary", "month": "monthly_salary", "week": "weekly_pay",
             "day": "daily_wage"}


@dataclass(frozen=True)
class View:
    """One part of a question as a reader sees it (read-only)."""

    text: str  # the part
    question: str = ""  # the whole question ("" = the part)
    before: str = ""  # the question asked before this one in the conversation
    units: tuple[Unit, ...] = ()  # the sentences offered, most relevant first
    passage_units: tuple[Unit, ...] = ()  # every sentence of the part's passages
    pay: Variable | None = None  # the person's pay figure, named by its period (PAY_NAMES)
    pay_period: str = ""  # "hour", "day", "week", "month", "year" or ""
    balances: tuple[Variable, ...] = ()  # the record's leave balances; note "<label>, <unit>"
    job_words: frozenset[str] = frozenset()  # words of the person's job title ("manager" where they have reports)
    exempt: bool | None = None  # the record says exempt from overtime pay (True), paid for it (False), or nothing
    documents: tuple[str, ...] = ()  # whole texts of the documents the passages come from
    prorated: bool = False  # the part is a part-timer's pro-rata amount (another pipeline's)
    language: str = "en"  # the question's language: the answer's words
    weekly_hours: float | None = None  # the person's contractual hours a week, where the record has them
    part_time: bool = False  # the record says the person works part-time
    service_years: float | None = None  # the person's years of service, where the record has a start date
    today: str = ""  # the day the question is asked (YYYY-MM-DD)
    group_words: frozenset[str] = frozenset()  # words of the person's department and job title

    @property
    def asked(self) -> str:
        return self.question or self.text

    @property
    def words(self) -> Words:
        """The answer's words (the question's language)."""
        return words(self.language)

    @property
    def rule_words(self) -> Words:
        """The handbook's words."""
        return words("en")

    def plain(self, unit: Unit) -> Unit:
        """``unit`` with its figures written as figures ("five days" -> "5 days") and without a document's
        emphasis marks ("paid at **1.5 times**": the words as a person reads them)."""
        text = english_figures(self.rule_words.plain_figures(_EMPHASIS.sub("", unit.text)))
        return unit if text == unit.text else Unit(unit.label, text, unit.passage)

    def offered(self) -> list[Unit]:
        return list(self._offered)

    def everything(self) -> list[Unit]:
        """The offered sentences, then the rest of the passages'."""
        return list(self._everything)

    # (each reader asks for them: the sentences' figures are rewritten once per part, not once per reader)
    @functools.cached_property
    def _offered(self) -> tuple[Unit, ...]:
        return tuple(self.plain(u) for u in self.units)

    @functools.cached_property
    def _everything(self) -> tuple[Unit, ...]:
        seen = {u.label for u in self.units}
        return (*self._offered, *(self.plain(u) for u in self.passage_units if u.label not in seen))

    def figures(self, units: tuple[str, ...] = ("hours", "days", "weeks", "months")) -> list:
        """The quantities the part states in ``units`` ("10 hours", "a 4-day request")."""
        return [f for f in question_figures(self.text) if f.unit in units]

    def definitions(self) -> list[RateDefinition]:
        """The rates the sentences define from pay of the person's kind (engine.agent.rates). For a part-timer
        where the sentences make the rate another way for part-time staff ("for part-time colleagues the divisor
        is their own weekly hours multiplied by 44"), only a rate made over their own weekly hours: which other
        way applies is the model's reading."""
        every = [(u, d) for u in self.everything() for d in rate_definitions(self._divided(u.text), self.weekly_hours)]
        # (a month's pay made from a year's is a step of the chain, not itself a rate: see rates.for_pay)
        months = [d for _, d in every if d.per == "month" and d.base == "year"]
        pairs = [(u, d) for u, d in every if d not in months and (applies_to(d, self.pay_period)
                                                                  or for_pay([*months, d], self.pay_period))]
        part_time = [self.rule_words.has("rule.part_time", u.text) for u, _ in pairs]
        if self.part_time and any(self.rule_words.has("rule.part_time", u.text)
                                  and self.rule_words.has("rule.rate_making", u.text) for u in self.everything()):
            # (a rate made over the person's own weekly hours is already a part-timer's)
            pairs = [(u, d) for u, d in pairs if d.over_hours is not None]
        elif not self.part_time and not all(part_time):
            # (a full-timer's rate is not the one the handbook makes for part-time staff)
            pairs = [p for p, part in zip(pairs, part_time) if not part]
        found = for_pay([*months, *(d for _, d in pairs)], self.pay_period)
        return list({d.name: d for d in reversed(found)}.values())

    def _divided(self, text: str) -> str:
        """``text`` with the divisor of the person's schedule written in, where a table of the passages gives one
        per weekly hours (:func:`engine.agent.rates.with_divisor`)."""
        from engine.agent.applies import _cells

        return with_divisor(text, [_cells(u.text) for u in self.passage_units], self.weekly_hours)

    def defining(self, names: list[str]) -> list[Unit]:
        """The sentences that define the rates named ``names`` (those :meth:`rates` made)."""
        made = [d for d in self.definitions() if d.name in set(names)]
        wanted = {d.name for d in made}
        via = [d.via for d in made if d.via]  # (and the month's pay a chained rate is made from)
        return [u for u in self.everything()
                if any(d.name in wanted or d.per == "month" and d.base == "year" and d.steps in via
                       for d in rate_definitions(u.text, self.weekly_hours))]

    def rates(self) -> list[tuple[Variable, str, str]]:
        """(the rate, what it is, per what) the person is paid at: their hourly rate where they are paid by the
        hour, and each rate the sentences define from their pay."""
        if self.pay is None:
            return []
        out = [(self.pay, "hourly rate", "hour")] if self.pay_period == "hour" else []
        for d in self.definitions():
            out.append((Variable(d.name, round(d.apply(self.pay.value), 4),
                                 f"your {d.term} as the policy defines it: {d.expression(self.pay.value)}"), d.term, d.per))
        return out


@dataclass
class Settled:
    """A part settled by a rule: what the calculator works out, and the sentence that says it."""

    reader: str
    rule: Unit | None  # the sentence it rests on (None: the record alone)
    variables: list[Variable]
    code: str  # the calculator's lines; the last is "answer = ..."
    answer: str  # the key of the answer sentence in the language file
    fields: dict[str, str] = field(default_factory=dict)  # the sentence's other blanks ({result} is the calculator's)
    also: list[Unit] = field(default_factory=list)  # other sentences the answer rests on (quoted under it)
    check: str = ""  # the trace's line: what was worked out by code
    money: str = "{}"  # how the result is written as money ("${}", "{} EUR"): the sentence's {money}

    def sentence(self, view: View, result: str) -> str:
        cite = self.rule.passage if self.rule is not None else ""
        return view.words.answer(self.answer, result=result, money=self.money.format(result), cite=cite, **self.fields)


class Reader:
    """A rule reader: one kind of rule a handbook states, settled by code where it is what the part asks."""

    name = ""
    order = 100  # the catalog's default order (settings may give another)
    kinds: tuple[str, ...] = ("policy_calc",)  # the routes it may settle

    def read(self, view: View) -> Settled | None:  # pragma: no cover - each reader has its own
        raise NotImplementedError


def count_text(view: View, value: float, unit: str) -> str:
    return view.words.count(value, unit)


def how_made(rate: Variable) -> str:
    """" (176000 / 2080)": how a defined rate was made, for the answer; "" for the record's own rate."""
    how = rate.note.partition(": ")[2]
    return f" ({how})" if how else ""


def words_of(text: str) -> set[str]:
    from engine.agent.slots import distinctive_words

    return distinctive_words(text)


def plain(value: float) -> str:
    return plain_number(value)


_SPLIT = re.compile(r"(?<=[.;])\s+")
#: A document's emphasis marks (Markdown's ** and __ around words).
_EMPHASIS = re.compile(r"\*\*|__")


def sentences(text: str) -> list[str]:
    return _SPLIT.split(text)
