"""A rate the handbook defines from pay, worked out by code for the person asking.

Handbooks say how a payout's rate is made from a salary: "For salaried employees, the base hourly rate is
the annual salary divided by 2,080 hours", "the base hourly rate is the monthly base rate multiplied by 12
and divided by 2,080", "Each day is paid at 1/260 of your annual salary". A small model shown such a
sentence applies it to anyone (an hourly worker's 19.50 divided by 2,080) or to the wrong figure (a monthly
salary times the hours). Code reads the definition, checks that it is about the kind of pay the person has
(a definition from a monthly salary says nothing to someone paid by the hour), and works the rate out, so
the calculation only has to use it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_PERIOD_WORD = {"annual": "year", "yearly": "year", "year's": "year", "monthly": "month", "month's": "month",
                "weekly": "week", "week's": "week", "hourly": "hour", "daily": "day", "day's": "day"}
_PER_WORD = {"hourly": "hour", "daily": "day", "weekly": "week", "monthly": "month", "day": "day", "hour": "hour"}
_NUMBER = r"(\d[\d,]*(?:\.\d+)?)"
#: Words between a period and its pay ("the annual gross salary", "the monthly base fixed pay").
_PAY_WORDS = r"(?: (?:base|basic|gross|fixed|contractual|agreed))*"
#: Words before a rate's name ("the ordinary hourly rate"); a gloss after it is an aside (_ASIDE).
_TERM_WORDS = r"(?:base |basic |regular |normal |standard |ordinary |gross )?"
#: "the base hourly rate is the annual salary divided by 2,080 hours",
#: "the daily rate is the monthly base rate multiplied by 12 and divided by 260",
#: "the daily rate, which is the annual base salary divided by 260 working days".
_TERM_IS = re.compile(
    r"\b(?:the|your) (" + _TERM_WORDS + r"(hourly|daily|weekly|monthly) (?:rate|pay|wage)(?: of pay)?)" +
    r"(?: used)?(?: (?:for|of) [a-z -]{1,30}?)?,? (?:which |that )?"
    r"(?:is|equals|shall be|will be|is calculated as|is worked out as) "
    r"(?:the |your |their |an? )?(?:employee'?s'? |associate'?s'? |person'?s'? |staff member'?s'? )?"
    r"(annual|yearly|monthly|weekly|daily)" + _PAY_WORDS + r" (?:salary|base rate|pay rate|rate|pay|wage)"
    r"((?:,? (?:and )?(?:then )?(?:multiplied by|times|divided by) " + _NUMBER + r"(?: [a-z]+)?)+)", re.I)
#: "Each day is paid at 1/260 of your annual salary", "one day's pay is 1/21.75 of the monthly salary".
_FRACTION_OF = re.compile(
    r"\b(day|hour|week)s?(?:'s pay)?(?:\s+(?:of|unused|leave|vacation|pto|annual|sold|back|cashed|out|encashed|paid|taken"
    r"|accrued|holiday leave)){0,4}?\s+(?:(?:is|are|will be|shall be)\s+(?:paid(?:\s+out)?\s+at"
    r"|paid|worth|compensated at|valued at)|is|equals)\s+(?:a rate of\s+)?1\s?/\s?" + _NUMBER
    + r"(?:st|nd|rd|th)? of (?:your |the |their |an? )?(?:employee'?s'? )?(annual|yearly|monthly|weekly)"
    + _PAY_WORDS + r" (?:salary|pay|base rate|rate|wage)", re.I)
#: "their pay is reduced by 1/260th of their annual salary for each full day missed", "1/2080 of the annual salary
#: per hour": a fraction of pay for each day (or hour) it names after it.
_FRACTION_EACH = re.compile(
    r"\b1\s?/\s?" + _NUMBER + r"(?:st|nd|rd|th)? of (?:your |the |their |his or her |an? )?(?:employee'?s'? )?"
    r"(annual|yearly|monthly|weekly)(?: base| gross)? (?:salary|pay|base rate|rate|wage) (?:for each|for every|per|a|each)"
    r" (?:full |whole |working |work |missed |unpaid |calendar )*(day|hour|week)s?\b", re.I)
#: "Hourly rate = annual salary / 2,080", "daily rate = monthly salary x 12 / 260".
_TERM_EQUALS = re.compile(
    r"(?<![\w-])(" + _TERM_WORDS + r"(hourly|daily|weekly|monthly) (?:rate|pay|wage))\s*=\s*"
    r"(?:the |your )?(annual|yearly|monthly|weekly|daily)" + _PAY_WORDS + r" (?:salary|base rate|pay rate|rate|pay|wage)"
    r"((?:\s*[/÷x×*]\s*" + _NUMBER + r"(?: [a-z]+)?)+)", re.I)
#: "The hourly rate for overtime is 1/143 of the monthly gross salary": a rate named, then a fraction of pay.
_TERM_FRACTION = re.compile(
    r"\b(?:the|your) (" + _TERM_WORDS + r"(hourly|daily|weekly) (?:rate|pay|wage))(?: (?:for|of) [a-z -]{1,30}?)?,? "
    r"(?:is|equals|shall be|will be) 1\s?/\s?" + _NUMBER + r"(?:st|nd|rd|th)? of (?:your |the |their |an? )?"
    r"(?:employee'?s'? )?(annual|yearly|monthly|weekly)" + _PAY_WORDS + r" (?:salary|pay|base rate|rate|wage)\b", re.I)
#: "To find your hourly rate, divide your annual salary by 2,080", "divide the annual salary by 260 to get the
#: daily rate": the term from the same sentence, else from the divisor's unit ("by 2,080 hours").
_DIVIDE = re.compile(
    r"\bdivid(?:e|ing|ed) (?:the |your |their |an? )?(?:employee'?s'? )?(annual|yearly|monthly|weekly|daily)" + _PAY_WORDS + r" "
    r"(?:salary|base rate|pay rate|rate|pay|wage) by " + _NUMBER + r"(?![\d.,]*\d)(?: (hours|working days|work days|days|weeks))?"
    r"(?!,? (?:and )?(?:then )?(?:by|divided by|multiplied by|times)\b)", re.I)
#: The rate a division is for, said as its purpose ("to find your hourly rate", "to get the daily rate").
_TERM_NEAR = re.compile(r"\bto (?:get|find|obtain|calculate|work out|arrive at|determine) (?:the |your |an? )?"
                        r"(" + _TERM_WORDS + r"(?<![\w-])(hourly|daily|weekly) (?:rate|pay|wage))\b",
                        re.I)
#: ... or as what the division finds ("Your hourly rate is found by dividing …", "the daily rate is worked out by").
_TERM_FOUND = re.compile(r"\b(" + _TERM_WORDS + r"(?<![\w-])(hourly|daily|weekly) (?:rate|pay|wage))(?: of pay)? "
                         r"(?:is|will be|shall be) (?:found|worked out|calculated|obtained|arrived at|got|determined)"
                         r" by divid", re.I)
_DIVISOR_UNIT = {"hours": "hour", "working days": "day", "work days": "day", "days": "day", "weeks": "week"}
_OP = re.compile(r"(multiplied by|times|divided by) " + _NUMBER, re.I)
_OP_ANY = re.compile(r"\b(?:multiplied by|divided by|divid(?:e|ing)\b[^.;]{1,80}?\bby)\b|\s[/÷×]\s"
                     r"|\b1\s?/\s?\d[\d.,]* of\b", re.I)


#: "The monthly gross salary is the annual salary divided by 14", "paid in 13 equal monthly instalments": a month's
#: pay made from a year's, where the year is paid in more (or fewer) than twelve parts.
_MONTH_IS = re.compile(
    r"\b(?:the|your|a|one) (?:(?:base|basic|gross|fixed|ordinary) )*monthly(?: (?:base|basic|gross|fixed))* (?:salary|pay)"
    r" (?:is|equals|shall be|will be)(?: therefore| thus| then| so)? (?:the |your |their |one |an? )?"
    r"(?:annual|yearly)" + _PAY_WORDS + r" (?:salary|pay|amount) divided by " + _NUMBER + r"(?![\d.,]*\d)", re.I)
_MONTHS_OF_YEAR = re.compile(
    r"\b(?:paid|payable|split|spread|divided)(?: out)? (?:in|into|over|across) " + _NUMBER
    + r" (?:equal )?(?:monthly (?:instalments|installments|payments|salaries|amounts|parts)|monthly salaries"
    r"|months' salaries)", re.I)


@dataclass
class RateDefinition:
    """A rate per ``per`` ("hour", "day") made from pay per ``base`` ("year", "month") by ``steps``."""

    term: str  # "base hourly rate"
    per: str
    base: str
    steps: list[tuple[str, float]] = field(default_factory=list)  # ("*", 12), ("/", 2080)
    over_hours: float | None = None  # the person's weekly hours, where the last step divides by them
    via: list[tuple[str, float]] | None = None  # the steps that made the month's pay it is made from (see for_pay)

    @property
    def name(self) -> str:
        """A Python name for the rate ("base_hourly_rate")."""
        return re.sub(r"[^a-z0-9]+", "_", self.term.lower()).strip("_")

    def expression(self, pay: float) -> str:
        text = _plain(pay)
        for op, value in self.steps:
            text = f"{text} {op} {_plain(value)}"
        return text

    def apply(self, pay: float) -> float:
        value = pay
        for op, figure in self.steps:
            value = value * figure if op == "*" else value / figure
        return value


def _plain(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _figure(text: str) -> float:
    return float(text.replace(",", ""))


#: "The hourly rate (Stundenlohn) is the monthly salary divided by 4.33 times the contractual weekly hours",
#: "Hourly rate = monthly base salary × 12 ÷ (52 × contractual weekly hours)": a definition over the person's own
#: weekly hours (an optional multiplier, then a divisor times the hours, or a divisor and then the hours: "your annual
#: salary divided by 52 and then divided by your contracted weekly hours").
_BY_WEEKLY_HOURS = re.compile(
    r"\b(?:the )?((?:base |basic |regular |normal |standard )?(hourly) (?:rate|pay|wage|figure))(?: \([^)]{1,40}\))?"
    r"(?:\s*=\s*|,? (?:which |that )?(?:is|equals|shall be|will be|is calculated as) )"
    r"(?:the |your |their |an? )?(?:employee'?s'? )?"
    r"(annual|yearly|monthly|weekly)(?: (?:base|basic|gross|fixed))* (?:salary|base rate|pay rate|rate|pay|wage)"
    r"(?:\s*(?:×|x|\*|multiplied by|times)\s*" + _NUMBER + r")?,?\s*(?:and )?(?:÷|/|divided by)\s*\(?\s*" + _NUMBER
    # ("× the weekly hours", or a second division: "divided by 52 and then divided by your contracted weekly hours")
    + r"(?:\s*(?:times|multiplied by|x|×|\*)|,?\s*(?:and\s+)?(?:then\s+)?(?:÷|/|divided by)) (?:the |your |their )?"
    r"(?:(?:contractual |scheduled |agreed |regular )?"
    r"weekly|(?:contractual|contracted|scheduled|standard|std|ordinary|normal)(?: weekly)?) hours\b", re.I)


#: "Your ordinary hourly rate is your weekly wage divided by your contracted weekly hours": a week's pay over the
#: person's own weekly hours, with no figure of its own.
_WEEK_OVER_HOURS = re.compile(
    r"\b(?:the |your |their )?((?:base |basic |regular |normal |standard |ordinary )?(hourly) (?:rate|pay|wage))"
    r"(?: \([^)]{1,40}\))?(?:\s*=\s*|,? (?:which |that )?(?:is|equals|shall be|will be|is calculated as) )"
    r"(?:the |your |their |an? )?(?:employee'?s'? )?weekly(?: (?:base|basic|gross|fixed))* (?:salary|pay|wage|earnings)"
    r"\s*(?:÷|/|divided by)\s*(?:the |your |their )?(?:(?:contractual|contracted|scheduled|agreed|regular|standard|"
    r"ordinary|normal) )?(?:weekly )?hours(?: (?:per|a) week)?\b", re.I)


#: "Hourly rate = monthly salary × 3 ÷ 13 ÷ contractual weekly hours": a rate's name, "=", then a formula in symbols.
_FORMULA = re.compile(
    r"(?<![\w-])(" + _TERM_WORDS + r"(hourly|daily|weekly|monthly) (?:rate|pay|wage|figure))(?: \([^)]{1,40}\))?"
    r"\s*=\s*(.+?)\s*(?:$|;|[.,:](?=\s|$))", re.I)
_FORMULA_OP = re.compile(r"(\s[x×*÷/]\s|[×÷*/()])")
_PAY_OPERAND = re.compile(
    r"(?:the |your |their )?(?:(?:base|basic|gross|fixed) )*(annual|yearly|monthly|weekly)" + _PAY_WORDS
    + r" (?:salary|base rate|pay rate|rate|pay|wage)", re.I)
_HOURS_OPERAND = re.compile(
    r"(?:the |your |their )?(?:(?:contractual|contracted|contract|scheduled|agreed|regular|normal|standard|ordinary|std)"
    r" )*(?:weekly (?:working )?hours|(?:working )?hours (?:per|a) week)", re.I)


def _formula(sentence: str, weekly_hours: float | None) -> RateDefinition | None:
    """A rate defined by a formula in symbols of the person's pay, figures and weekly hours, multiplied and
    divided in any order and grouping; None where any operand is something else (never a formula cut short:
    "× 3 ÷ 13" without its "÷ weekly hours" is a week's pay, no hourly rate)."""
    m = _FORMULA.search(sentence)
    if not m:
        return None
    tokens = [t.strip() for t in _FORMULA_OP.split(m.group(3)) if t.strip()]
    steps: list[tuple[str, float]] = []
    base, hours, sign, stack, expect_operand = "", False, 1, [], True
    pending = 1  # the sign the next operand takes: the group's sign, flipped after a division
    for token in tokens:
        if token == "(":
            stack.append(sign)
            sign = pending
            continue
        if token == ")":
            if not stack or expect_operand:
                return None
            sign = stack.pop()
            pending = sign
            continue
        if token in ("x", "×", "*", "÷", "/"):
            if expect_operand:
                return None
            pending = sign if token in ("x", "×", "*") else -sign
            expect_operand = True
            continue
        if not expect_operand:
            return None
        expect_operand = False
        if number := re.fullmatch(_NUMBER + r"(?: (?:working |work |calendar )?(?:hours|days|weeks|months))?", token):
            value = _figure(number.group(1))
            if value <= 0:
                return None
            steps.append(("*" if pending > 0 else "/", value))
        elif (p := _PAY_OPERAND.fullmatch(token)) and not base and pending > 0:
            base = _PERIOD_WORD[p.group(1).lower()]
        elif _HOURS_OPERAND.fullmatch(token) and weekly_hours and not hours:
            hours = True
            steps.append(("*" if pending > 0 else "/", float(weekly_hours)))
        else:
            return None
    if not base or stack or expect_operand or not steps:
        return None
    return RateDefinition(" ".join(m.group(1).lower().split()), _PER_WORD[m.group(2).lower()], base, steps,
                          over_hours=float(weekly_hours) if hours and weekly_hours else None)


def rate_definitions(text: str, weekly_hours: float | None = None) -> list[RateDefinition]:
    """Every rate a text defines from pay, one per sentence ("Hourly rate = annual salary / 2,080. A day of
    leave is paid at 1/260 of the annual salary." defines two). With the person's ``weekly_hours``, also a
    rate defined over them ("the monthly salary divided by 4.33 times the contractual weekly hours")."""
    from engine.agent.rules.words import to_english

    found, before = [], ""
    for sentence in re.split(r"(?<=[.;])\s+(?=[A-Z])", text):
        # "… need an hourly figure for an annual-rate associate. That figure is the annual base rate divided by …":
        # the figure the sentence before names is the one defined
        named = _NAMED_RATE.search(before)
        before_sentence, before = before, sentence
        if named and (m := _THAT_FIGURE.match(sentence)):
            sentence = f"The {named.group(1)} {sentence[m.end():]}"
        # (a handbook in another language: its rule in the English words read here, by its language file)
        sentence = english if _OP_ANY.search(english := to_english(sentence)) else sentence
        # ("Hourly rate: is found by dividing …", a term and its definition after a colon: "The hourly rate is …")
        sentence = _COLON_TERM.sub(lambda m: f"The {m.group(1)} is ", sentence)
        if "=" in sentence and _FORMULA.search(sentence):
            # (a formula read whole or not at all: _TERM_EQUALS below would stop at its first word)
            if (d := _formula(sentence, weekly_hours)) is not None:
                found.append(d)
            continue
        m = _MONTH_IS.search(sentence) or _MONTHS_OF_YEAR.search(sentence)
        if m and 1 <= _figure(m.group(1)) <= 16:
            # (a year's pay in 12, 13 or 14 parts: a month's pay, the step a rate made from it needs)
            found.append(RateDefinition("monthly salary", "month", "year", [("/", _figure(m.group(1)))]))
            continue
        m = _DIVIDE_BY_HOURS.search(sentence)
        if m and weekly_hours and _figure(m.group(2)) > 0:
            # "Take your annual salary and divide it by your contracted hours per week multiplied by 52"
            term = (_NAMED_RATE.search(sentence) or _NAMED_RATE.search(before_sentence))
            found.append(RateDefinition(term.group(1).lower() if term else "hourly rate", "hour",
                                        _PERIOD_WORD[m.group(1).lower()], [("/", _figure(m.group(2))),
                                                                           ("/", float(weekly_hours))],
                                        over_hours=float(weekly_hours)))
            continue
        m = _WEEK_OVER_HOURS.search(sentence)
        if m:
            if weekly_hours:
                found.append(RateDefinition(" ".join(m.group(1).lower().split()), "hour", "week",
                                            [("/", float(weekly_hours))], over_hours=float(weekly_hours)))
            continue
        m = _BY_WEEKLY_HOURS.search(sentence)
        if m:  # (without the person's hours, nothing: the rule's first figure alone is no hourly rate)
            if weekly_hours and _figure(m.group(5)) > 0 and (not m.group(4) or _figure(m.group(4)) > 0):
                steps = ([("*", _figure(m.group(4)))] if m.group(4) else []) + [("/", _figure(m.group(5))),
                                                                                ("/", float(weekly_hours))]
                found.append(RateDefinition(" ".join(m.group(1).lower().split()), _PER_WORD[m.group(2).lower()],
                                            _PERIOD_WORD[m.group(3).lower()], steps, over_hours=float(weekly_hours)))
        elif (d := _definition(sentence)) is not None:
            found.append(d)
    return list({(d.per, d.base): d for d in found}.values())


def for_pay(definitions: list[RateDefinition], period: str) -> list[RateDefinition]:
    """The definitions that make a rate from pay of ``period``: those made from it, and those made from a month's
    pay where another definition makes the month's pay from it ("the monthly salary is the annual salary divided
    by 14"; "the hourly rate is the monthly salary divided by 173": from a year's pay, / 14 / 173). Two ways to
    make one month's pay leave the chain unmade."""
    months = {tuple(d.steps) for d in definitions if d.per == "month" and d.base == period and period != "month"}
    out = [d for d in definitions if applies_to(d, period)]
    if len(months) == 1:
        steps = list(next(iter(months)))
        out += [RateDefinition(d.term, d.per, period, steps + d.steps, d.over_hours, via=steps)
                for d in definitions if d.base == "month" and d.per != "month" and applies_to(d, "month")]
    return out


def rate_definition(text: str) -> RateDefinition | None:
    """The (first) rate a text defines from pay, or None."""
    found = rate_definitions(text)
    return found[0] if found else None


#: A rate's name and its definition after a colon ("Hourly rate: is found by dividing the monthly salary by 173").
_COLON_TERM = re.compile(r"^\W*((?:base |basic |regular |normal |standard |ordinary |gross )?(?:hourly|daily|weekly) "
                         r"(?:rate|pay|wage))\W*:\s*(?:is\s+)?(?=(?:found|obtained|calculated|worked out)\b)", re.I)
#: "Take your annual salary and divide it by your contracted hours per week multiplied by 52": an hourly rate over
#: the person's own weekly hours.
_DIVIDE_BY_HOURS = re.compile(
    r"\b(?:take|divide)\s+(?:the |your |their )?(annual|yearly|monthly)" + _PAY_WORDS + r" (?:salary|pay|base rate|rate)"
    r"(?:,? and divide it)? by (?:the |your |their )?(?:(?:contracted|contractual|scheduled|standard|weekly|agreed) )*"
    r"hours(?: (?:per|a) week)? (?:multiplied by|times|x|×)\s*" + _NUMBER, re.I)
#: A rate a sentence names ("an hourly figure", "the daily rate"), and a sentence defining it by pronoun.
_NAMED_RATE = re.compile(r"\b(?:an?|the) ((?:hourly|daily|weekly) (?:rate|pay|wage|figure))\b", re.I)
_THAT_FIGURE = re.compile(r"\s*(?:that|this|the) (?:figure|rate|amount) (?=is\b|equals\b)", re.I)


#: A division by a figure times someone's hours ("divided by 4.33 times the weekly hours"): not the figure alone.
_TIMES_HOURS = re.compile(r"(?:\bdivided by|[÷/])\s*\(?\s*\d[\d,.]*\s*(?:times|multiplied by|x|×|\*)\s*(?:the |your |their )?"
                          r"(?:[a-z-]+ ){0,3}hours\b", re.I)


#: An aside in brackets with no figure in it ("(salario bruto anual, which includes the extra payments)").
_ASIDE = re.compile(r" \([^()\d]{1,120}\)")


def _definition(text: str) -> RateDefinition | None:
    if _TIMES_HOURS.search(text):
        return None
    text = _ASIDE.sub("", text)  # (the definition reads on around a gloss or an aside)
    m = _TERM_IS.search(text)
    if m:
        steps = [("*" if op.lower() in ("multiplied by", "times") else "/", _figure(n)) for op, n in _OP.findall(m.group(4))]
        if steps and all(v > 0 for _, v in steps):
            term = " ".join(m.group(1).lower().split())
            return RateDefinition(term, _PER_WORD[m.group(2).lower()], _PERIOD_WORD[m.group(3).lower()], steps)
    m = _TERM_EQUALS.search(text)
    if m:
        steps = [("/" if op in "/÷" else "*", _figure(n)) for op, n in re.findall(r"([/÷x×*])\s*" + _NUMBER, m.group(4))]
        if steps and all(v > 0 for _, v in steps):
            return RateDefinition(" ".join(m.group(1).lower().split()), _PER_WORD[m.group(2).lower()],
                                  _PERIOD_WORD[m.group(3).lower()], steps)
    m = _TERM_FRACTION.search(text)
    if m and _figure(m.group(3)) > 0:
        return RateDefinition(" ".join(m.group(1).lower().split()), _PER_WORD[m.group(2).lower()],
                              _PERIOD_WORD[m.group(4).lower()], [("/", _figure(m.group(3)))])
    m = _DIVIDE.search(text)
    if m and _figure(m.group(2)) > 0:
        near = _TERM_NEAR.search(text) or _TERM_FOUND.search(text)
        per = _PER_WORD[near.group(2).lower()] if near else _DIVISOR_UNIT.get((m.group(3) or "").lower(), "")
        if per:
            adjective = {"hour": "hourly", "day": "daily", "week": "weekly"}[per]
            term = " ".join(near.group(1).lower().split()) if near else f"{adjective} rate"
            return RateDefinition(term, per, _PERIOD_WORD[m.group(1).lower()], [("/", _figure(m.group(2)))])
    m = _FRACTION_EACH.search(text)
    if m and _figure(m.group(1)) > 0:
        per = m.group(3).lower()
        return RateDefinition(f"{ {'day': 'daily', 'hour': 'hourly', 'week': 'weekly'}[per]} rate", per,
                              _PERIOD_WORD[m.group(2).lower()], [("/", _figure(m.group(1)))])
    m = _FRACTION_OF.search(text)
    if m and _figure(m.group(2)) > 0:
        per = m.group(1).lower()
        return RateDefinition(f"{ {'day': 'daily', 'hour': 'hourly', 'week': 'weekly'}[per]} rate", per,
                              _PERIOD_WORD[m.group(3).lower()], [("/", _figure(m.group(2)))])
    return None


def pay_period_of(note: str) -> str:
    """The period of the person's pay figure from its note in the record ("USD per month, because …")."""
    m = re.search(r"\bper (hour|day|week|month|year)\b", note)
    return m.group(1) if m else ""


def applies_to(definition: RateDefinition, period: str) -> bool:
    """Whether a definition is about the kind of pay the person has: made from a monthly salary, it says
    nothing to someone paid by the year or by the hour."""
    return bool(period) and definition.base == period


#: Currency codes an amount may be written with (ISO 4217, those of the exports people here keep).
CURRENCY_CODES = "USD|EUR|GBP|CHF|CAD|AUD|NZD|PLN|MXN|ARS|BRL|CLP|COP|SEK|NOK|DKK|CZK|HUF|RON|INR|PHP|ZAR|SGD|JPY"
#: An amount of money the policy pays per hour, day, week or month ("a meal allowance of $55 per day", "an extra
#: $2.25 for each hour worked in that window", "reimbursed up to 40 EUR a day").
_PER_UNIT = re.compile(
    r"(?P<upto>\b(?:up to|a maximum of|at most|no more than)\s+)?"
    rf"(?:(?P<cur>R\$|[$€£]|\b(?:{CURRENCY_CODES})\b)\s?(?P<n>\d[\d,]*(?:\.\d+)?)"
    rf"|(?P<m>\d[\d,]*(?:\.\d+)?)\s?(?P<code>(?:{CURRENCY_CODES}|dollars|euros|pounds|pesos|reais|kronor|kroner|złotych|zł|kr)\b|€))"
    r"\s+(?:(?:gross|net|extra|more)\s+)?(?:per|for each|for every|each|every|a|an)\s+(?:[a-z]+\s+){0,2}?"
    r"(?P<unit>hour|day|week|month)s?\b", re.I)
#: Words of a sentence that caps or scales the amount some other way ("up to $200 per trip", "pro rata").
_OTHER_LIMIT = re.compile(r"\b(?:maximum|max\.?|cap|capped|limit(?:ed)?|not exceed|no more than|at most|up to"
                          r"|pro[ -]?rata|prorat\w*|in proportion)\b"
                          # a threshold ("from the fourth day", "after the first 3 days", "waiting days")
                          r"|\b(?:after|from|beyond|starting(?: with| from)?)(?: the)? (?:first |second |third |fourth "
                          r"|fifth |\d+(?:st|nd|rd|th)? )(?:\w+ )?(?:days?|hours?|weeks?|months?)\b|\bwaiting (?:days?|period)\b",
                          re.I)


@dataclass
class PerUnit:
    """An amount the policy pays per ``unit`` ("hour", "day"), as the sentence writes it."""

    amount: float
    unit: str
    currency: str  # "$", "EUR", … as written, "" for none
    up_to: bool  # "up to $55 per day": the amount for N units is at most N times it


def per_unit_amounts(text: str) -> list[PerUnit]:
    """The amounts ``text`` states per hour, day, week or month; none where the sentence caps or scales them
    some other way as well ("$55 per day, up to $200 per trip"), since the product is then not the answer."""
    found = list(_PER_UNIT.finditer(text))
    if not found:
        return []
    rest = text
    for m in reversed(found):
        rest = rest[:m.start()] + rest[m.end():]
    if _OTHER_LIMIT.search(rest):
        return []
    out = []
    for m in found:
        value = _figure(m.group("n") or m.group("m"))
        if value > 0:
            out.append(PerUnit(value, m.group("unit").lower(), m.group("cur") or m.group("code") or "",
                               bool(m.group("upto"))))
    return out


#: A multiple of the person's rate a rule pays at: "1.5 times the hourly rate", "125 percent of the hourly rate",
#: "time and a half", "double time", "paid at 150 percent" (in a sentence that names the rate elsewhere).
_MULTIPLE_OF_RATE = re.compile(
    r"\b(?:(?P<times>\d+(?:\.\d+)?)\s*(?:times|x)\b|(?P<pct>\d+(?:\.\d+)?)\s*(?:%|percent|per cent)"
    r"|(?P<half>time and a half|time-and-a-half)|(?P<double>double(?: time)?|twice)|(?P<triple>triple(?: time)?))",
    re.I)
#: The sentence pays at a multiple of the person's own rate per hour.
_OF_HOURLY = re.compile(r"\b(?:base |basic |regular |normal |standard |ordinary )?hourly (?:rate|pay|wage)\b"
                        r"|\b(?:regular|normal|ordinary|base|basic|standard) (?:rate|pay|wage)s?\b", re.I)
#: Multiples said by their names alone, always of the person's own rate ("paid at time and a half").
_IDIOM = re.compile(r"\b(?:time[- ]and[- ]a[- ]half|double[- ]time|triple[- ]time)\b"
                    r"|\b(?:paid|compensated|remunerated) at \d+(?:\.\d+)? times\b(?!\s+(?:the|your|their|an?|his|her)\b)",
                    re.I)
#: A multiple added on top of the rate rather than paid at ("a 10% night differential on top of the hourly rate").
_ADDED = re.compile(r"\b(?:on top of|in addition to|an? (?:extra|additional)|(?:extra|additional) [$€£\d]|premium of"
                    r"|differential|supplement|uplift)\b", re.I)
#: Kinds of day a clause or a question names, each as one word.
def _day_kinds():
    """Kinds of day a clause or a question names, each as one word: the rule words' families (holiday names,
    night shifts, rest days) and the working days."""
    from engine.agent.rules.words import words

    w = words("en")
    return (
        ("rest", re.compile(r"\b(?:sundays?|saturdays?|weekends?|rest days?|days? off|non-working days?)\b|"
                            + w.family("rest").pattern, re.I)),
        # (which rest day, where one is named: a Saturday's rate is not a Sunday's)
        ("saturday", re.compile(r"\bsaturdays?\b|\bweekends?\b", re.I)),
        ("sunday", re.compile(r"\bsundays?\b|\bweekends?\b", re.I)),
        ("holiday", re.compile(r"\b(?:public|bank|national|statutory|federal|official) holidays?\b|\bholidays?\b|"
                               + w.family("holiday").pattern, re.I)),
        ("night", re.compile(r"\bnights?\b|\bnight[- ]shifts?\b|\b(?:2[0-3]|1[89]):00\b|" + w.family("night").pattern,
                             re.I)),
        ("work", re.compile(r"\b(?:working|work|week|business|regular|normal|ordinary) ?days?\b|\bweekdays?\b"
                            r"|\bmonday|\btuesday|\bwednesday|\bthursday|\bfriday", re.I)),
    )


_DAY_KINDS = _day_kinds()


@dataclass
class RateMultiple:
    """A multiple of the person's hourly rate a rule pays at, and the kinds of day it is for."""

    factor: float  # 1.5
    written: str  # "1.5 times", "125 percent"
    days: frozenset[str]  # {"rest", "holiday"}; empty: the rule's ordinary case


def day_kinds(text: str) -> frozenset[str]:
    """The kinds of day ``text`` names: "rest" (Sundays, weekends, rest days), "holiday", "night", "work"."""
    from engine.agent.rules.words import to_english

    def kinds(english: str) -> frozenset[str]:
        english = _NOT_DAY.sub(" ", english)  # ("w dzień, nie w nocy": by day, not at night)
        return frozenset(kind for kind, pattern in _DAY_KINDS if pattern.search(english))

    # (a handbook's or a question's own language: "Zaterdag", "dimanche"; a short question names its day in one
    # word of its language: "no domingo")
    return kinds(to_english(text)) or kinds(to_english(text, least=1))


#: A kind of day said not to be the one ("not at night", "nie w nocy", "nicht am Sonntag", "pas la nuit").
#: (Spanish "no" only before a preposition or article: Portuguese "no domingo" is "on Sunday")
_NOT_DAY = re.compile(r"(?:\b(?:not|nie|nicht|pas|non|niet|não)\s+"
                      r"(?:(?:at|on|in|during|w|we|am|an|in der|la|le|de|di|op|em|a|the|en|el|los|las)\s+){0,2}"
                      r"|\bno\s+(?:(?:en|el|la|los|las|de|a|por|durante)\s+){1,2})"
                      r"(?:night|nights|nocy|noc|nachts?|nacht|nuit|notte|noche|nacht|noite|sundays?|saturdays?|weekends?|"
                      r"niedziel\w*|sobot\w*|sonntags?|samstags?|dimanche|samedi|domenica|sabato|domingos?|s[áa]bados?|zondag|zaterdag)\b",
                      re.I)


#: A percentage said as a surcharge on hours ("Overtime hours are paid with a 25% premium", "majorées de 25 %",
#: "Zuschlag von 25 %"): paid at the rate plus it.
_SURCHARGE = re.compile(
    r"\b(?P<pct>\d+(?:\.\d+)?)\s*(?:%|percent|per cent) (?:premium|surcharge|supplement|uplift)\b"
    r"|\b(?:premium|surcharge|supplement|uplift) of (?P<pct2>\d+(?:\.\d+)?)\s*(?:%|percent|per cent)"
    r"|\bincreased by (?P<pct3>\d+(?:\.\d+)?)\s*(?:%|percent|per cent)"
    # (a table's cell: "When: Saturday; Surcharge: 50 %")
    r"|\b(?:premium|surcharge|supplement|uplift)(?: [^:;%\d]{1,40})?: (?P<pct4>\d+(?:\.\d+)?)\s*(?:%|percent|per cent)", re.I)
#: ... said of hours worked (not a raise of salary) ...
_HOURS_WORDS = re.compile(r"\b(?:hours?|overtime|shifts?|night|nights|sundays?|saturdays?|holidays?|weekends?)\b", re.I)
#: ... with no amount of money or differential beside it ("a premium of $2 an hour", "a 10% night differential").
_NOT_A_SHARE = re.compile(r"[$€£]|\b(?:usd|eur|gbp|chf|cad)\b|\bdifferential\b|\bon top of\b|\bin addition to\b", re.I)


def _surcharges(text: str) -> list[RateMultiple]:
    """Multiples said as percentages added to the hourly rate for hours of some kind ("overtime hours are
    increased by 25 % for the first 8 hours and by 50 % beyond" gives 1.25 and 1.5); none where the sentence
    is not about hours, or names money or a differential added on top."""
    if not _HOURS_WORDS.search(text) or _NOT_A_SHARE.search(text):
        return []
    found = list(_SURCHARGE.finditer(text))
    if len(re.findall(r"\d\s*(?:%|percent|per cent)", text, re.I)) != len(found):
        return []  # ("increased by 25 % for the first 8 hours and by 50 % beyond": tiers, not read here)
    out = []
    for i, m in enumerate(found):
        pct = float(m.group("pct") or m.group("pct2") or m.group("pct3") or m.group("pct4"))
        # (a table's row is one clause: "When: overtime on Saturday; Surcharge: 50 %")
        clause = text if _TABLE_ROW.fullmatch(text.strip()) else re.split(r"[,;.]\s", text[:m.start()])[-1]
        if not 0 < pct <= 200 or not _HOURS_WORDS.search(clause + m.group(0)):
            return []  # ("Salaries are increased by 3 %": the surcharge's own clause says what it is on)
        before = text[found[i - 1].end() if i else 0:m.start()]
        after = text[m.end():found[i + 1].start() if i + 1 < len(found) else len(text)]
        out.append(RateMultiple(1 + pct / 100, f"the rate plus {_plain(pct)}%", _days_of_clause(f"{before} {after}")))
    return out


def rate_multiples(text: str) -> list[RateMultiple]:
    """The multiples of the hourly rate ``text`` pays at, each with the kinds of day its clause names ("paid at
    1.5 times the hourly rate on working days and at 2 times the hourly rate on rest days"); none where the
    sentence does not pay at the person's hourly rate, or adds an amount on top of it instead. A surcharge on
    hours ("a 25% premium", "majorées de 25 %") is the rate plus it."""
    from engine.agent.rules.words import to_english

    text = to_english(text)
    if _IDIOM.search(text) and not _ADDED.search(text):
        text = f"{text} (of the hourly rate)"  # ("paid at time and a half": of the person's own rate, unsaid)
    # (a table's cell "Surcharge on the hourly rate: 100%" is the rate plus it, not 100% of it)
    surcharges = _surcharges(text)
    if surcharges and _SURCHARGE.search(text):
        return surcharges
    return _paid_at(text) or surcharges


def _paid_at(text: str) -> list[RateMultiple]:
    if not _OF_HOURLY.search(text) or _ADDED.search(text):
        return []
    found = list(_MULTIPLE_OF_RATE.finditer(text))
    factors = [_factor(m) for m in found]
    # "the hourly rate plus a surcharge of 25 %, that is 125 % of the hourly rate": the surcharge restated as
    # the multiple is one multiple; "the hourly rate plus 25 %" alone is 1.25 times it.
    kept = [(m, f) for m, f in zip(found, factors)
            if not (f < 1 and any(abs(g - (1 + f)) < 1e-9 for g in factors))]
    found, factors = [m for m, _ in kept], [f for _, f in kept]
    out = []
    for i, (m, factor) in enumerate(zip(found, factors)):
        written = m.group(0)
        if factor < 1 and m.group("pct") and _PLUS.search(text[:m.start()].rsplit(".", 1)[-1][-60:]):
            factor, written = 1 + factor, f"the rate plus {written}"
        # not a multiple one is paid at ("10% of the hours", "0.5 times"), unless a share of the rate itself
        # ("cashed out at 75% of your base rate")
        if not (1 <= factor <= 5 or 0.2 <= factor < 1 and m.group("pct") and _OF_RATE.match(text[m.end():])):
            return []
        # The days of this multiple: what follows it up to the next multiple or the clause's end ("1.5 times the
        # hourly rate on working days and at"), and what opens its own clause before it ("overtime on Sundays is
        # paid at 150 percent"); text before it that no clause boundary separates belongs to the previous one.
        before = text[found[i - 1].end() if i else 0:m.start()]
        # (a table's row, "When: Saturday; Paid at: 150% of the hourly rate", is one clause: its cells' "; ")
        boundary = re.compile(r"[.]\s" if _TABLE_ROW.fullmatch(text.strip()) else r"[;.]\s")
        before = boundary.split(before)[-1] if not i or boundary.search(before) else ""
        after = boundary.split(text[m.end():found[i + 1].start() if i + 1 < len(found) else len(text)])[0]
        out.append(RateMultiple(factor, written, _days_of_clause(f"{before} {after}")))
    return out


#: A table's row as the handbook loader writes it: "Header: value; Header: value".
_TABLE_ROW = re.compile(r"[^:;.]{1,60}: [^;]{1,120}(?:; [^:;.]{1,60}: [^;]{1,120})+")


#: A share said as a share of the rate ("75% of your base rate", "50 percent of the regular hourly rate").
_OF_RATE = re.compile(r"\s*of (?:the |your |their |an? )?(?:employee'?s'? )?(?:(?:base|basic|regular|normal|ordinary|standard|"
                      r"hourly|current) ){1,2}(?:rate|pay|wage)\b", re.I)


#: What adds a percentage to the rate itself, right before it ("the hourly rate plus 25 %", "plus a surcharge of").
_PLUS = re.compile(r"\b(?:hourly|regular|normal|base|basic) (?:rate|pay|wage) plus\b(?: an?)?(?: \w+)?(?: of)?\s*$", re.I)


def _factor(m: re.Match) -> float:
    if m.group("times"):
        return float(m.group("times"))
    if m.group("pct"):
        return float(m.group("pct")) / 100
    return 1.5 if m.group("half") else 2.0 if m.group("double") else 3.0


def _days_of_clause(clause: str) -> frozenset[str]:
    """The kinds of day a clause pays for; days it leaves out ("any day other than a Sunday or public holiday")
    are not its days, and what is left of a week is its working days."""
    from engine.agent.rules.words import words

    parts = words("en").family("rule.excluding").split(clause, maxsplit=1)
    if len(parts) == 1:
        return day_kinds(clause)
    named, left_out = day_kinds(parts[0]), day_kinds(parts[-1])
    return frozenset((named - left_out) or {"work"})


#: Kinds of day that name one day of the week: a row for one of them is not for another.
_ONE_DAY = frozenset({"saturday", "sunday"})


def most_specific(pairs: list, asked: frozenset[str]) -> list:
    """Of (item, multiple) pairs, those whose multiple names most of the kinds of day ``asked`` ("Saturday" asked:
    the Saturday row over "Sundays and public holidays", though both are rest days). A row that names another
    day of the week and not the asked one is never for it, even alone (the Sunday row, for a Saturday)."""
    if asked & _ONE_DAY:
        pairs = [(item, m) for item, m in pairs if not (m.days & _ONE_DAY) or m.days & asked & _ONE_DAY]
    best = max((len(m.days & asked) for _, m in pairs), default=0)
    return [(item, m) for item, m in pairs if len(m.days & asked) == best]


def multiple_for(multiples: list[RateMultiple], question: str) -> RateMultiple | None:
    """The one multiple that is for the kind of day the question names (its ordinary one where it names
    none, or a working day); None where none or several fit."""
    asked = day_kinds(question) - {"work"}
    if asked:
        fits = most_specific([(m, m) for m in multiples if m.days & asked], asked)
        fits = [m for m, _ in fits]
    else:
        fits = [m for m in multiples if not (m.days - {"work"})]
    factors = {m.factor for m in fits}
    return fits[0] if len(factors) == 1 else None


#: "the divisor of your schedule" named without a figure ("pelo divisor da sua jornada", "per il divisore orario").
_DIVISOR = re.compile(r"\b(?:divisor|divisore|diviseur|deler|teiler|dzielnik)\b", re.I)


def table_rows(text: str) -> list[list[tuple[str, str]]]:
    """The rows of the Markdown tables in ``text``, each as (header, cell) pairs."""
    rows: list[list[tuple[str, str]]] = []
    header: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("|"):
            header = []
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue
        if not header:
            header = cells
        elif len(cells) == len(header):
            rows.append(list(zip(header, cells)))
    return rows


def with_divisor(text: str, rows: list[list[tuple[str, str]]], weekly_hours: float | None) -> str:
    """``text`` with the divisor of the person's schedule written in, where it divides by "the divisor of your
    working week" with no figure and one of ``rows`` (a table's, as (header, cell) pairs) gives the divisor for the
    person's weekly hours ("Jornada semanal: 44 horas; Divisor mensal: 220"): "… dividindo o salário mensal pelo
    divisor da sua jornada" -> "… pelo divisor 220."; ``text`` itself else."""
    m = _DIVISOR.search(text)
    if m is None or weekly_hours is None or re.search(r"\d", text[m.end():].split("\n")[0]):
        return text
    found = set()
    for cells in rows:
        hours = [float(n.replace(",", ".")) for _, v in cells[:1] for n in re.findall(r"\d+(?:[.,]\d+)?", v)]
        if hours[:1] == [float(weekly_hours)]:
            found |= {v.strip() for h, v in cells[1:] if _DIVISOR.search(h) and re.fullmatch(r"\d+(?:[.,]\d+)?", v.strip())}
    if len(found) != 1:
        return text
    end = re.search(r"[.:;](?:\s|$)|$", text[m.end():])
    rest = text[m.end() + end.end():] if end else ""
    return f"{text[:m.end()]} {found.pop()}. {rest}".strip()
