"""Hours paid at a multiple of the person's hourly rate ("paid at 1.5 times the regular hourly rate").

Asked what a number of hours would pay, where the offered sentences about what the question names pay
one multiple of the person's hourly rate for the kind of day it names, and code knows that rate: the
rate times the multiple times the hours. A sentence that may exempt the person (their title, their
record) leaves it to the model.
"""

from __future__ import annotations

import re

from engine.agent import caps
from engine.agent.applies import question_figures
from engine.agent.calc_slot import PLAIN_NUMBER, Variable, shown_value
from engine.agent.rates import day_kinds, most_specific, multiple_for, rate_multiples
from engine.agent.rules.words import to_english
from engine.agent.rules.base import Reader, Settled, View, how_made, plain, sentences, words_of

#: Words of a question about pay that tell no rule from another.
GENERIC_PAY_WORDS = {"pay", "paid", "receive", "earn", "employee", "associate", "staff", "company", "work", "worked",
                     "policy", "rate", "amount", "money", "allowed"}


def asks_pay(view: View) -> bool:
    q = view.words  # (the question's language, with English's phrases)
    return q.has("asks.pay", view.text) or q.has("asks.amount_for", view.text)


def hours_asked(view: View):
    """The one number of hours a question about pay states ("What would 6 hours of overtime pay?"), or None."""
    if not asks_pay(view) or view.prorated:
        return None
    # ("6 hours of overtime on top of my normal 40-hour week": the week's hours are the person's schedule)
    text = view.words.family("asks.schedule_hours").sub(" ", view.text)
    figures = [f for f in question_figures(text) if f.unit in ("hours", "days", "weeks", "months")]
    return figures[0] if len(figures) == 1 and figures[0].unit == "hours" else None


#: The hours a week after which hours are overtime ("for all hours worked over 40 in a workweek", "more than 38 hours
#: per week").
_WEEKLY_THRESHOLD = re.compile(r"\b(?:over|above|more than|in excess of|beyond|exceeding)\s+(\d{1,2}(?:\.\d+)?)\s*"
                               r"(?:hours?\s*|hrs?\s*)?(?:in\s+a|a|per|each|in\s+the|in\s+any)\s+(?:work\s*|working\s+)?week",
                               re.I)
#: Hours the question itself calls overtime ("6 hours of overtime", "5 extra hours", "overtime hours: 4").
_OVERTIME_HOURS = re.compile(r"\d+(?:\.\d+)?\s*(?:hours?|hrs?|h)\s+(?:of\s+)?(?:overtime|extra|additional)\b"
                             r"|\b\d+(?:\.\d+)?\s+(?:overtime|extra|additional)\s+hours?\b", re.I)


def weekly_threshold(text: str) -> float | None:
    """The hours a week after which a rule pays overtime, where it states one, else None."""
    found = {float(m.group(1)) for m in _WEEKLY_THRESHOLD.finditer(text)}
    return found.pop() if len(found) == 1 else None


def _words(text: str) -> set[str]:
    return {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]{4,}", text)}


def may_be_exempt(view: View, sentence: str) -> bool:
    """Whether an exempting sentence may name the person: the record says they are exempt, or a word of their
    job title (or "manager", where they have reports) is one of its words. Unsure is yes."""
    if view.exempt is not None:
        return view.exempt
    return bool(view.job_words & _words(sentence) - {"exempt", "overtime", "employee"})


class RateMultipleReader(Reader):
    name = "multiple"
    order = 30

    def read(self, view: View) -> Settled | None:
        asked_hours = hours_asked(view)
        if asked_hours is None:
            return None
        asked = words_of(view.text) - GENERIC_PAY_WORDS
        # (the day a part names, else the whole question's: "What is the Sunday rate, and what would 5 hours pay?")
        day = view.text if day_kinds(view.text) else view.asked
        days = day_kinds(day) - {"work"}  # (a Sunday is a rest day: the kind of day is a word they share)
        w = view.rule_words
        converts = view.words.has("asks.converts", view.text)  # ("cashed out" asked, "cash out" in the rule)

        def fitting(units) -> list:
            found = [(u, m) for u in units
                     if (words_of(u.text) & asked or days & day_kinds(u.text)
                         or converts and view.words.has("asks.converts", u.text))
                     and not (w.has("pay_subjects", u.text) and not w.has("pay_subjects", view.text))
                     and caps.same_kind(view.text, u.text)
                     and (m := multiple_for(rate_multiples(u.text), day)) is not None]
            return most_specific(found, days) if days else found

        found = fitting(view.offered())
        if not found and days:
            # (the row of the day asked about, in a table whose other rows were offered: "Saturday | 150%")
            found = fitting(view.everything())
        if len({m.factor for _, m in found}) != 1:
            return None  # none, or rules that disagree: the model reads which
        rates = [(v, term) for v, term, per in view.rates() if per == "hour"]
        if not rates:
            return None
        (rule, multiple), (rate, term) = found[0], rates[0]
        # "Managers … are exempt from overtime pay", anywhere in the rule's document, and the person may be one:
        # whether they are paid at all is the model's reading of the rule.
        exempting = view.rule_words.family("rule.exempt")
        texts = [*(u.text for u in view.everything()), *view.documents]
        # (leave cashed out is paid to the exempt too: exemption is from overtime and premiums)
        # (a handbook in another language says it in its own words: read in English ones)
        if not converts and any(may_be_exempt(view, s) for text in texts for s in sentences(to_english(text))
                                if exempting.search(s)):
            return None
        hours = Variable("asked_hours", asked_hours.value, "from the question")
        code = f"answer = {rate.name} * multiple * asked_hours\n"
        extra: list[Variable] = []
        week = weekly_threshold(to_english(rule.text))
        if week is not None and asked_hours.value > week:
            # "I'll end up with 46 hours this week … what will I make for the overtime hours?" under "over 40 in a
            # workweek": 6 hours of overtime, not 46; hours the question itself calls overtime beyond the
            # threshold are no week's total, and which they are is the model's reading.
            if _OVERTIME_HOURS.search(to_english(view.text)) or not view.words.has("asks.overtime", view.text):
                return None
            threshold = Variable("weekly_threshold", week, f"{PLAIN_NUMBER}: hours a week before overtime, from the policy")
            total = Variable("week_hours", asked_hours.value, f"{PLAIN_NUMBER}: hours worked in the week, from the question")
            extra = [total, threshold]
            code = f"asked_hours = week_hours - weekly_threshold\nanswer = {rate.name} * multiple * asked_hours\n"
            hours = Variable("asked_hours", asked_hours.value - week, "")
        # (noted as a plain number: "rate" in its words would read as money to the units check)
        factor = Variable("multiple", multiple.factor, f"{PLAIN_NUMBER}: {multiple.written}, from the policy")
        times = view.words.answer("times", n=plain(multiple.factor))
        written = "" if multiple.written.lower() == times.lower() else f" ({multiple.written})"
        variables = [rate, factor, *extra] if extra else [rate, factor, hours]
        return Settled(self.name, rule, variables, code,
                       "multiple", {"times": times, "written": written, "term": term, "rate": shown_value(rate.value),
                                    "how": how_made(rate), "count": view.words.count(hours.value, "hours")},
                       check=f"{view.words.count(hours.value, 'hours')} at {multiple.written} the person's {term}")
