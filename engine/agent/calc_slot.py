"""Arithmetic as a slot: a line of code over named figures already in the context.

A question that needs a figure (a daily rate, a payout, a difference) gets its calculation
written before the answer, by the model, as code over variables that code declared from the
context: the person's record (``annual_salary = 54000``, ``pto_balance_hrs = 88``), the figures of
the question (``asked_days = 3``) and earlier results. The default model is a coding model: it
picks the right figure by its name far more often than by its place in a sentence. Its grammar
admits only those variables, the numbers the context holds (the policy's 260 working days) and a
few universal constants, so the model can combine figures but never make one up. Code then puts
the values in, and the calculator works each line out before the answer is written::

    daily_rate = annual_salary / 260
    answer = daily_rate * asked_days
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from engine.agent.grounding import UNIVERSAL_CONSTANTS, number_forms
from engine.agent.rules.words import in_any_language, written_figures
from engine.tools.answer_grammar import _trie_rule
from engine.tools.calculator import CalculatorTool

MAX_LINES = 3
_NAME = re.compile(r"[^a-z0-9]+")


#: How a figure's note begins where it is a plain number (a multiple code read from the policy): the units
#: check and the provenance line read it so, whatever words ("the rate plus 17.5%") follow.
PLAIN_NUMBER = "a plain number"


@dataclass
class Variable:
    name: str
    value: float
    note: str = ""  # where it comes from, with its unit

    def render(self) -> str:
        return f"{self.name} = {plain_number(self.value)}" + (f"  # {self.note}" if self.note else "")


@dataclass
class Calculation:
    code: str  # the line as the model wrote it ("answer = annual_salary / 260 * asked_days")
    expression: str = ""  # with the figures put in ("54000 / 260 * 3")
    value: float | None = None
    text: str = ""  # the value as shown (rounded to cents)
    error: str = ""
    shown: str = ""  # the line with the declared figures put in and earlier results by name ("daily_rate * 10")
    implausible: bool = False  # worked out, but its units or its size make it no figure anyone asked for
    constant: bool = False  # a line of bare constants ("share = 1/2"): a figure nobody gave

    @property
    def name(self) -> str:
        return self.code.partition(" = ")[0].strip()

    def render(self) -> str:
        if self.error:
            return f"{self.code}: {self.error}"
        return f"{self.name} = {self.expression} = {self.text}"


def variable_name(label: str) -> str:
    """A column label as a Python name ("PTO Balance (hrs)" -> "pto_balance_hrs")."""
    name = _NAME.sub("_", label.lower()).strip("_") or "value"
    return ("v_" + name) if name[0].isdigit() else name[:40]


_PERCENT = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b)", re.I)


def percent_fractions(sources: list[str]) -> set[str]:
    """Each percentage the sources write ("150 percent", "10%") as the fraction a calculation uses (1.5, 0.1):
    a figure of the policy as much as the percentage itself."""
    out = set()
    for m in _PERCENT.finditer(" ".join(sources)):
        value = float(m.group(1))
        if 0 < value <= 1000:
            out.add(plain_number(value / 100))
    return out


#: A section's number where a heading or a list item starts ("4.3 Overtime rates.", "2.5. Ninguém pode …",
#: "› 4.2 Part-timers – 4.3 Overtime rates", "§ 7.1"): the handbook's numbering, no figure of a rule.
_SECTION_NUMBER = re.compile(r"(?:^|(?<=[›–—] )|(?<=^- )|(?<=\s- )|(?<=\] )|(?<=§ )|(?<=§))\s*\d{1,2}(?:\.\d{1,2})+\.?"
                             r"(?=\s+[^\W\d_a-z])", re.M)


def without_section_numbers(text: str) -> str:
    """``text`` without the numbers of its sections (:data:`_SECTION_NUMBER`) and of its cross-references
    (``section_reference`` words of every language: "under 4.3", "siehe Punkt 7.1"): a small model took
    "4.3 Overtime rates" for a rate and divided a salary by 4.3."""
    text = _SECTION_NUMBER.sub(" ", text)
    return _reference_number().sub(lambda m: m.group(0)[:m.start(1) - m.start(0)], text)


@functools.lru_cache(maxsize=1)
def _reference_number() -> re.Pattern:
    words = in_any_language("section_reference").pattern
    return re.compile(rf"(?i:{words})\s+§?\s*(\d{{1,2}}(?:\.\d{{1,2}})+)(?![\d.,]*\d)(?!\s*(?:%|[a-zß-ÿ]))")


def allowed_numbers(sources: list[str]) -> list[str]:
    """Plain numbers (no separators) a calculation may use: those of ``sources`` (not the numbers of their
    sections), each also as a fraction of 100 (a rate of 150 percent is 1.5), and the universal constants."""
    sources = [without_section_numbers(s) for s in sources]
    plain = {f for f in number_forms(sources) if "," not in f}
    # A figure the policy writes in words ("one and a half times", "cinq jours") is as much the policy's.
    plain |= {f for source in sources for f in written_figures(source)}
    # A percentage also as its fraction (a rate of 150 percent is 1.5), where a source writes it as one: every
    # number as a hundredth let a small model write "0.05 * pto_balance" out of a "5" in "2 to 5 years".
    plain |= percent_fractions(sources)
    # Zero only where a source has it: adding or multiplying by 0 never works anything out, and a small
    # model that is unsure writes "* 0" or "answer = 0".
    plain |= {plain_number(v) for v in UNIVERSAL_CONSTANTS if v or "0" in plain}
    return sorted(p for p in plain if re.fullmatch(r"(0|[1-9][0-9]{0,11})(\.[0-9]{1,6})?", p))


def plain_number(value: float) -> str:
    """A figure as Python and the calculator write it: no exponent, no trailing zeros."""
    text = f"{value:.6f}".rstrip("0").rstrip(".")
    return text or "0"


def _literal(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


#: Names a line may give an intermediate result (a free name would let the model write any word).
INTERMEDIATE = ("daily_rate", "hourly_rate", "overtime_rate", "weekly_pay", "monthly_pay", "annual_pay", "rate",
                "days", "hours", "weeks", "months", "years", "amount", "total", "entitlement", "extra", "base",
                "share", "difference", "per_day", "per_hour")


def code_grammar(variables: list[Variable], sources: list[str], name: str = "root",
                 refused: frozenset[str] = frozenset(), subtract: bool = True) -> str:
    """GBNF of up to 3 lines ``name = expression``, the last one ``answer = …``, each ending in a line
    end. An expression's names are the declared variables and, after the first line, the intermediate
    names (:data:`INTERMEDIATE`) but those in ``refused``: the first line has no earlier result to
    name ("answer = 40 * 2 + base" names nothing). Its numbers are those of ``sources``
    (:func:`allowed_numbers`). Without ``subtract``, no line subtracts or negates."""
    declared = [v.name for v in variables]
    temps = [n for n in INTERMEDIATE if n not in declared and n not in refused]
    number = _trie_rule(allowed_numbers(sources))

    def expression(rule: str, names: list[str]) -> list[str]:
        atoms = "".join(" | " + _literal(n) for n in names)
        lines = [f"{rule}-num ::= {number}{atoms}" if line.startswith(f"{rule}-num ::=") else line
                 for line in CalculatorTool().grammar_rules(rule).splitlines()]
        return lines if subtract else [line.replace(' | "-"', "").replace('"-"? ', "") for line in lines]

    first, later = f"{name}-cx0", f"{name}-cx"
    return "\n".join([
        f'{name} ::= "answer = " {first} "\\n" | {name}-tmp " = " {first} "\\n" '
        f'({name}-tmp " = " {later} "\\n")? "answer = " {later} "\\n"',
        f"{name}-tmp ::= " + " | ".join(_literal(n) for n in temps),
        *expression(first, declared),
        *expression(later, declared + temps),
    ]) + "\n"


def parse_code(text: str) -> list[Calculation]:
    """The lines of a calculation (``name = expression``), in order."""
    out = []
    for line in text.splitlines():
        line = line.strip()
        if " = " in line and not line.startswith("#"):
            out.append(Calculation(line))
    return out[:MAX_LINES]


def substitute(calc: Calculation, known: dict[str, float]) -> str:
    """The line's expression with every name replaced by its value; raises KeyError naming an unknown one."""
    expression = calc.code.partition(" = ")[2].strip()

    def put(m: re.Match) -> str:
        word = m.group(0)
        if word in ("round", "abs", "min", "max", "sqrt"):
            return word
        if word not in known:
            import difflib

            close = difflib.get_close_matches(word, list(known), n=2, cutoff=0.8)
            if len(close) != 1:  # a name nobody declared, or one that could be either of two
                raise KeyError(word)
            word = close[0]
        return plain_number(round(known[word], 6))

    return re.sub(r"\b[a-z][a-z0-9_]*\b", put, expression)


def shown_value(value: float) -> str:
    """A result as the answer may state it: whole numbers plain, others to the cent."""
    if abs(value - round(value)) < 1e-9:
        return str(int(round(value)))
    digits = 4 if abs(value) < 1 else 2  # a rate of 0.0625 keeps its digits; money is shown to the cent
    return f"{value:.{digits}f}".rstrip("0").rstrip(".")
