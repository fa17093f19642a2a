"""The calculation stage of a question's pipeline: rules code settles, and calculations as code over
named figures.

A rule reader (engine.agent.rules) that settles a part gives the calculator its lines and the answer its
sentence; otherwise the model writes Python lines over the figures code declares (the record's, the
question's, earlier results'), under a grammar whose numbers are only those, and the calculator works
them out, line by line, with a units check on each.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Generator, Iterator

from engine.agent.applies import question_figures as question_figures_of
from engine.agent.calc_slot import (Calculation, Variable, code_grammar, parse_code, percent_fractions, plain_number,
                                    shown_value, substitute, variable_name)
from engine.agent.answer_text import _without_figures
from engine.agent.evidence import Unit
from engine.agent.grounding import normalise_number, number_forms, numbers_in
from engine.agent.stage import Stage
from engine.agent.slots import SLOT_TOKENS
from engine.agent.rates import applies_to, for_pay, pay_period_of, rate_definition, rate_definitions, table_rows, with_divisor
from engine.agent.rules.base import PAY_NAMES, Settled, View
from engine.agent.rules.words import in_any_language
from engine.agent.steps import Step
from engine.agent.units import RATE_BASED, answer_problem, culprits, line_problem, pay_ceiling, rate_problem, unit_of
from engine.errors import HRAssistantError, ToolInputError
from engine.tools.calculator import CalculatorTool
from engine.tools.employee_data import EmployeeDataTool
from engine.tools.policy_search import PolicySearchTool

if TYPE_CHECKING:
    from engine.agent.routed import Part

#: Why a line whose amount came out negative is refused (and the retry loses its minus).
NEGATIVE = "an amount asked about cannot be below zero"
#: One step of a calculation said three times in a row ("/ 2 / 2 / 2").
_LOOP = re.compile(r"([-+*/])\s*([\w.]+)(?:\s*\1\s*\2(?![\w.])){2,}")
#: A question or policy sentence that speaks of money (so the person's pay figure is declared for it).
_MONEY = re.compile(r"salar|\bpa(y|id)\b|payout|payment|\brate\b|wage|earn|worth|cash|encash|\bsell|money|"
                    r"\bhow much\b|\$|£|€|dollar|pound|euro", re.I)
#: ... or of length of service (so years of service are declared).
_SERVICE = re.compile(r"\bservice\b|\btenure\b|anniversar|senior|\baccru|years? (of|with)\b", re.I)
_NAMES = re.compile(r"\b(?!(?:round|abs|min|max|sqrt)\b)[a-z_][a-z0-9_]*\b")
_PAY_WORDS = re.compile(r"salar|\bpay\b|paid|earn|wage|compensation|income|rate|bonus", re.I)
#: A rule about turning leave into money.
_CONVERTS = re.compile(r"cash|encash|convert|sell|sold|buy[ -]?back|payout|paid out|pay out|\bbe paid for\b", re.I)


class Calculating(Stage):
    """The turn's calculation stage (a mixin of engine.agent.routed._Turn)."""

    # -- rules code settles (engine.agent.rules) ---------------------------------------------------------------
    def _by_rule(self, part: Part, sources: list[str], units: list[Unit] | None = None,
                 told: str = "") -> Generator[Step, None, bool]:
        """The first rule reader that settles this part, worked out and written by code; the passages are told
        to the model first (``told``) where one does. Returns whether they were told."""
        view = None
        for reader in self.agent.readers:
            if part.kind not in reader.kinds:
                continue
            view = view or self._view(part, units or [])
            settled = reader.read(view)
            if settled is None:
                continue
            if told:
                self.tell(told)
                told = ""
            yield from self._settle(part, settled, view, sources)
            if part.stated:
                break
        return not told

    def _settled_by(self, name: str, part: Part) -> bool:
        """Whether reader ``name`` (if the settings use it) would settle this part from its passages."""
        reader = next((r for r in self.agent.readers if r.name == name), None)
        return reader is not None and reader.read(self._view(part, [])) is not None

    def _settle(self, part: Part, settled: Settled, view: View, sources: list[str]) -> Iterator[Step]:
        """A reader's settlement: the calculator works its lines out, and its sentence is the part's answer."""
        rules = [u for u in (settled.rule, *settled.also) if u is not None]
        # (a rate the answer names rests on the sentence that defines it: "your hourly rate of 19.35 (34056 / 1760)")
        rules += [u for u in view.defining([v.name for v in settled.variables]) if u.label not in {r.label for r in rules}]
        original = {u.label: u for p in part.passages for u in p.units}
        # (a rule read from the passages beyond the offered sentences, the Saturday row of a table, is one of the
        # part's sentences: its figures are the answer's sources, and it is quoted)
        picked = {u.label for u in part.picked}
        part.picked += [original.get(u.label, u) for u in rules if u.label not in picked]
        if not settled.code:  # a rule that answers by itself (a window it forbids): no figure to work out
            self.trace.checks.append(f"part {part.number}: {settled.check}: said by code ({settled.reader})")
            part.decided_by = [original.get(u.label, u) for u in rules]
            part.stated = settled.sentence(view, "")
            return
        if part.kind == "policy_me":
            part.route.kind = "policy_calc"  # type: ignore[union-attr]
        self.trace.checks.append(f"part {part.number}: {settled.check}: worked out by code ({settled.reader})")
        self.memory.declared = settled.variables
        yield from self._run_code(part, parse_code(settled.code), settled.variables,
                                  [*sources, *(u.text for u in rules)])
        done = part.worked()
        if done:
            part.decided_by = [original.get(u.label, u) for u in rules]
            part.sources += [u.text for u in rules]  # (its figures as figures: "5 days" for "five days")
            part.stated = settled.sentence(view, done[-1].text)

    def _view(self, part: Part, units: list[Unit]) -> View:
        """What a rule reader sees of this part (engine.agent.rules.base.View)."""
        from engine.data.schema import leave_columns

        profile = self.agent.profile
        data = self.agent.tools.of(EmployeeDataTool)
        columns = data.table.columns if data is not None else {}
        pay, period = None, self._pay_period()
        balances, job, exempt = [], set(), None
        leave = set(leave_columns(data.table).values()) if data is not None else set()
        for f in profile.facts:
            if f.column in profile.id_columns:
                continue
            value = str(f.value).strip().lower()
            if re.fullmatch(r"non[ _-]?exempt|hourly", value):
                exempt = False
            elif value == "exempt" and exempt is None:
                exempt = True
            if re.search(r"title|position|role|job|grade|level|band|rank", f.label, re.I):
                job |= {w.lower().rstrip("s") for w in re.findall(r"[A-Za-z]{4,}", value)}
            try:
                number = float(f.value)
            except ValueError:
                continue
            if f.column in columns and "pay" in columns[f.column].roles and pay is None:
                pay = Variable(PAY_NAMES.get(period, variable_name(f.label)), number,
                               f"{f.label}" + (f", {f.note}" if f.note else ""))
            elif f.column in leave and f.note:
                balances.append(Variable(variable_name(f.label), number, f"{f.label}, {f.note}"))
        if profile.reports_total:
            job |= {"manager", "supervisor", "head", "lead"}
        department = data.table.role("department") if data is not None else None
        group = set(job) | {w.lower().rstrip("s") for f in profile.facts if department and f.column == department
                            for w in re.findall(r"[^\W\d_]{3,}", str(f.value))}
        weekly_hours = self._weekly_hours()
        search = self.agent.tools.of(PolicySearchTool)
        sources = {p.source for p in part.passages}
        documents = tuple(c.text for c in getattr(getattr(search, "index", None), "chunks", None) or []
                          if c.source in sources)
        # (the question before a part is the part before it: "…, and how much would I get for all of them?")
        before = self.memory.part_texts[part.number - 2] if part.number > 1 and len(self.memory.part_texts) >= \
            part.number else self._last_question()
        return View(part.text, self.question, before, tuple(units),
                    tuple(u for p in part.passages for u in p.units), pay, period, tuple(balances), frozenset(job),
                    exempt, documents, part.prorated, self.language, weekly_hours,
                    profile.part_time, profile.service_years, str(self.agent.context.today or ""),
                    frozenset(group))

    # -- calculations, as code over named figures --------------------------------------------------------------
    def _variables(self, part: Part, record: bool = True) -> list[Variable]:
        """The figures a calculation may name: the person's record, the question's, earlier results."""
        a = self.agent
        profile = a.profile
        data = a.tools.of(EmployeeDataTool)
        out: list[Variable] = []
        taken: set[str] = set()

        def add(name: str, value: float, note: str) -> None:
            base, n = name, 2
            while name in taken:
                name, n = f"{base}_{n}", n + 1
            taken.add(name)
            out.append(Variable(name, value, note))

        facts = [f for f in (profile.facts if record else []) if f.column not in profile.id_columns]
        facts = self._relevant_facts(part, facts)
        for f in facts:
            try:
                value = float(f.value)
            except ValueError:
                continue
            roles = data.table.columns[f.column].roles if data is not None and f.column in data.table.columns else []
            name = variable_name(f.label)
            if "pay" in roles:
                name = {"per hour": "hourly_rate", "per year": "annual_salary", "per month": "monthly_salary"}.get(
                    next((k for k in ("per hour", "per year", "per month") if k in f.note), ""), name)
            add(name, value, f"{f.label}" + (f", {f.note}" if f.note else ""))
            if "pay" in roles:
                # (a rate made from pay, for a question about pay: not for "what meal allowance for 4 days")
                for definition in (self._rate_definitions(part, pay_period_of(f.note))
                                   if _PAY_WORDS.search(part.text) or _CONVERTS.search(part.text)
                                   or _CONVERTS.search(self.question) else []):
                    rate = round(definition.apply(value), 4)
                    add(definition.name, rate, f"your {definition.term} as the policy defines it: "
                                               f"{definition.expression(value)}")
        if record and part.prorated and profile.full_time_week is not None:
            add("full_time_hours_per_week", profile.full_time_week,
                "hours a week, the scheduled hours of most full-time staff in the data")
        context = " ".join([part.text, *(u.text for u in part.picked)])
        # (a pro-rata share of the row that applies needs no years: code marked the row for them)
        if record and profile.service_years is not None and (_SERVICE.search(context) or not facts) \
                and not part.prorated:
            add("years_of_service", profile.service_years, profile.service_text)
        figures = question_figures_of(part.text)
        for fig in figures:
            add(f"asked_{fig.unit}", fig.value, "from the question")
        for number in numbers_in(re.sub(r"\d{4}-\d{2}-\d{2}", " ", part.text)):
            if not any(float(number) == f.value for f in figures):
                add("asked_number", float(number), "from the question")
        for p_number, value in self.memory.part_values:
            add(f"part{p_number}_answer", value, f"the answer to part {p_number}")
        for name, value, note in self.memory.data_values:
            add(name, value, note)
        return out

    @staticmethod
    def _rate_definitions(part: Part, period: str) -> list:
        """The rates the offered sentences define from pay of the person's kind (see engine.agent.rates): the
        picked ones and those of the passages offered (a handbook defines its daily rate once, in a sentence
        the model need not have picked for the rate to be what it is)."""
        offered = [*part.picked, *(u for p in part.passages for u in p.units)]
        found = for_pay([d for u in offered if (d := rate_definition(u.text)) is not None], period)
        return list({d.name: d for d in found}.values())

    def _definition_hits(self, part: "Part", search) -> list:
        """Where the passages found for a calculation name a rate ("125 % of the hourly rate") that none of
        them defines from the person's kind of pay, the handbook's passage that does ("The hourly rate is the
        monthly salary divided by 4.33 times the contractual weekly hours", in another section). A question
        about overtime pay finds the overtime section, and the rate's definition ranks below it."""
        period = self._pay_period()
        hours = self._weekly_hours()
        texts = [u.text for p in part.passages for u in p.units]
        said = [d for t in texts for d in rate_definitions(t, hours)]
        if not period or any(d.per != "month" for d in for_pay(said, period)):
            return []
        # (the rate the rule or the question names: "What is my hourly rate?" against a French handbook)
        named = next(((per, m.group(0)) for per in ("hour", "day", "week") for t in [*texts, part.text]
                      if (m := in_any_language(f"rate_terms.{per}").search(t))), None)
        if named is None:
            return []
        per, term = named
        # (a rate made from a month's pay, for someone paid by the year: made through the handbook's month)
        monthly = period == "year"
        found = [d for d in said if d.per == per and d.base == "month" and monthly]
        hits = [] if found else \
            [h for h in search.index.search(f"how the {term} is worked out from the salary", k=2 * search.k)
             if any(d.per == per and (applies_to(d, period) or monthly and d.base == "month")
                    for d in rate_definitions(with_divisor(h.text, table_rows(h.text), hours), hours))][:1]
        more = [d for h in hits for d in rate_definitions(h.text, hours)]
        if monthly and not any(d.per == per for d in for_pay(said + more, period)):
            # "paid in 14 equal monthly instalments", in the section on salary
            hits += [h for h in search.index.search("the annual salary is paid in monthly instalments; the monthly "
                                                    "salary is the annual salary divided by", k=2 * search.k)
                     if any(d.per == "month" and d.base == "year" for d in rate_definitions(h.text, hours))][:1]
        return hits

    def _record_keys(self) -> dict[str, tuple[str, str]]:
        """The person's own values of the record's columns a table's rows may be keyed by (role -> (label,
        value)): their grade, department, site, kind of contract and job."""
        return {role: (fact.label, fact.value) for role in ("grade", "department", "site", "employment_type", "job_title")
                if (fact := self._own_fact(role)) is not None and fact.value}

    def _own_fact(self, role: str):
        """The line of the person's record from the column with ``role``, or None."""
        data = self.agent.tools.of(EmployeeDataTool)
        column = data.table.role(role) if data is not None else None
        return next((f for f in self.agent.profile.facts if column and f.column == column), None)

    def _weekly_hours(self) -> float | None:
        """The person's contractual hours a week, where the record has them."""
        fact = self._own_fact("weekly_hours")
        try:
            return float(fact.value) if fact is not None else None
        except ValueError:
            return None

    def _pay_period(self) -> str:
        """The period of the person's pay figure in their record ("hour", "month", "year"), or ""."""
        data = self.agent.tools.of(EmployeeDataTool)
        for f in self.agent.profile.facts:
            if data is not None and f.column in data.table.columns and "pay" in data.table.columns[f.column].roles:
                return pay_period_of(f.note)
        return ""

    def _relevant_facts(self, part: Part, facts: list) -> list:
        """The record's figures a calculation for this part may need: those the question or the chosen
        policy sentences name by a distinctive word, and the pay figure where they speak of pay. A small
        model offered every figure of the record puts the wrong balance into the sum (vacation days for
        a sick-leave question); where none is named, all of them."""
        from engine.agent.slots import distinctive_words

        data = self.agent.tools.of(EmployeeDataTool)
        context = " ".join([part.text, *(u.text for u in part.picked)])
        words = distinctive_words(context)
        kept = []
        for f in facts:
            roles = data.table.columns[f.column].roles if data is not None and f.column in data.table.columns else []
            if distinctive_words(f.label) & words or ("pay" in roles and _MONEY.search(context)):
                kept.append(f)
        return kept or facts

    def _declare(self, part: Part, record: bool = True) -> str:
        """The figures a calculation may name, declared as Python variables for the model to read."""
        self.memory.declared = self._variables(part, record)
        declared = "\n".join(v.render() for v in self.memory.declared)
        return f"My figures, as Python variables:\n```python\n{declared}\n```\n" if declared else ""

    def _code_request(self, part: Part, several: bool, policy: bool = False, record: bool = True) -> str:
        figures = "the policy's figures and these variables" if policy else "these variables and the question's figures"
        return (self._declare(part, record) + f"Write the Python lines that work out {self._which(part, several)} "
                f"from {figures}; the last line is answer = ...")

    def _code(self, part: Part, sources: list[str], header: str = "```python\n") -> Iterator[Step]:
        variables = self.memory.declared
        refused: frozenset[str] = frozenset()
        banned: frozenset[str] = frozenset()
        subtract = True
        for attempt in range(2):
            text = yield from self.call(header, code_grammar(variables, sources, refused=refused, subtract=subtract),
                                        SLOT_TOKENS, doing="Writing the calculation")
            self.partial += "```\n"
            yield from self._run_code(part, parse_code(text), variables, sources, banned)
            if attempt or not part.calculations or not part.calculations[-1].error:
                return
            left_out = self._culprits(part, variables)
            # A name given to a line of bare constants ("share = 1/2") is not offered again either.
            refused = frozenset(c.name for c in part.calculations if c.constant)
            # ... nor its constants written inline ("answer = sick + vacation * 1/2"): an honest "could not
            # work it out" is better than a figure nobody gave.
            banned = frozenset("".join(c.code.partition(" = ")[2].split()) for c in part.calculations if c.constant)
            # An amount below zero came from a subtraction the wrong way round ("6 hours over my 40" as 6 - 40):
            # told "write it again" under the same grammar, a small model writes the same lines; without a minus
            # it must find another way, or give none.
            subtract = not any(c.implausible and NEGATIVE in (c.error or "") for c in part.calculations)
            if left_out:
                # The next attempt's grammar lacks them: told "write it again" alone, a small model writes
                # the same lines again. Their values go too, unless the question or the policy states them:
                # without its name, a model writes the same figure inline ("(110 - 40)").
                gone = {plain_number(v.value) for v in variables if v.name in left_out}
                gone -= {n for text in (part.text, *(u.text for u in part.picked)) for n in numbers_in(text)}
                sources = [_without_figures(text, gone) for text in sources]
                variables = [v for v in variables if v.name not in left_out]
                names = ", ".join(left_out)
                self.tell(f"{names} {'does' if len(left_out) == 1 else 'do'} not belong in this calculation. "
                          "Write the lines again without it, with the other variables and the figures of the "
                          "policy only.")
            elif not subtract:
                self.tell("The amount came out below zero. Write the lines again without subtracting, with the "
                          "variables above and the figures of the policy only.")
            else:
                self.tell("Write the lines again, with the variables above and the figures of the policy only.")

    @staticmethod
    def _culprits(part: Part, variables: list[Variable]) -> list[str]:
        """The figures a refused calculation's impossible line rests on that the question never asked about."""
        from engine.agent.slots import distinctive_words

        failed = next((i for i, c in enumerate(part.calculations) if c.implausible), None)
        if failed is None:
            return []
        return culprits([c.code for c in part.calculations], failed, {v.name: unit_of(v) for v in variables},
                        distinctive_words(part.text))

    def _calc_examples(self, part: Part) -> str:
        bank = self.agent.examples
        # The policy's own words find the right pattern (and a pro-rata rule, the pro-rata pattern).
        context = " ".join([*(u.text for u in part.picked[:2]),
                            *(u.text for u in part.picked if part.formula_rule(u))])
        shown = bank.calculations(part.text, context) if bank is not None else ""
        return f"Worked examples from other companies (made-up figures):\n```python\n{shown}\n```\n\n" if shown else ""

    def _run_code(self, part: Part, calculations: list[Calculation], variables: list[Variable],
                  sources: list[str], banned: frozenset[str] = frozenset()) -> Iterator[Step]:
        """Put the figures into each line and let the calculator work it out, in order."""
        from engine.agent.grounding import unsourced_numbers

        calculator = self.agent.tools.of(CalculatorTool)
        if not calculations or calculator is None:
            return
        known = {v.name: v.value for v in variables}
        units = {v.name: unit_of(v) for v in variables}
        # (a ceiling of the person's own pay is for figures about them, not for arithmetic over others' data)
        ceiling = pay_ceiling(variables) if part.kind in ("policy_calc", "my_calc") else None
        expressions: dict[str, str] = {}
        kept = (len(self.memory.results), len(part.sources))
        for calc in calculations:
            t0 = time.perf_counter()
            try:
                # An earlier line's name stands for its own expression, so the chain is worked out exactly.
                calc.expression = re.sub(r"\b[a-z][a-z0-9_]*\b", lambda m: f"({expressions[m.group(0)]})"
                                         if m.group(0) in expressions else m.group(0), calc.code.partition(" = ")[2])
                calc.expression = substitute(Calculation("x = " + calc.expression), known)
                written = calc.code.partition(" = ")[2]
                # (a percentage of the policy written as its fraction, 1.5 for "150 percent", is one of its figures)
                given = {normalise_number(f) for f in number_forms(sources) | percent_fractions(sources)}
                if not _NAMES.findall(written) and not set(numbers_in(written)) & given:
                    # "share = 0": a line of bare constants is a figure nobody gave (constants are there to
                    # combine figures, not to be one).
                    calc.constant = True
                    raise ToolInputError(f"{written.strip()} uses none of the figures.")
                if _LOOP.search(written):
                    # "38500 / 24 / 2 / 2 / 2 / 2": a small model going round one step, not a calculation
                    raise ToolInputError(f"{written.strip()} repeats one step over and over.")
                inline = next((b for b in banned if b and b in "".join(written.split())), None)
                if inline:
                    raise ToolInputError(f"{inline} is the figure refused above (none of the figures gives it).")
                missing = unsourced_numbers(calc.expression, sources + [v.render() for v in variables]
                                            + list(expressions.values()))
                if missing:  # the grammar admits only sourced numbers; this is a second line of defence
                    raise ToolInputError(f"{', '.join(missing)} is in no source.")
                result = calculator.run(calc.expression, self.agent.context)
                calc.shown = _NAMES.sub(lambda m: plain_number(known[m.group(0)]) if m.group(0) in known
                                        else m.group(0), " ".join(written.split()))
                calc.value = float(result.data["value"])
                problem, units[calc.name] = line_problem(calc.code, units, calc.value, ceiling)
                problem = problem or rate_problem(calc.name, calc.value, variables)
                if not problem and calc is calculations[-1] and part.kind != "calculation":
                    rate_based = any(RATE_BASED.search(u.text) for u in part.picked) and \
                        any(unit_of(v) == (1, 0) for v in variables)
                    problem = answer_problem(part.text, units[calc.name], rate_based)
                    if not problem and calc.value is not None and calc.value < 0:
                        # Nobody is paid, owed or left a negative amount ("-4040.16 if you converted …").
                        problem = NEGATIVE
                if problem:  # worked out faithfully, yet no figure the question could want: written again
                    calc.implausible = True
                    raise ToolInputError(f"{calc.name} = {calc.value:,.2f} cannot be right: {problem}.")
                calc.text = shown_value(calc.value)
                expressions[calc.name] = calc.expression
                observation, ok = f"{calc.expression} = {calc.text}", True
            except KeyError as exc:
                calc.error = f"the name {exc.args[0]} is not one of the figures"
                observation, ok = f"Error: {calc.error}", False
            except HRAssistantError as exc:
                calc.error = exc.message
                observation, ok = f"Error: {exc.message}", False
            yield from self.tool_step(CalculatorTool.name, calc.expression or calc.code, observation, ok,
                                      seconds=time.perf_counter() - t0)
            if ok:
                self.memory.results.append(f"{calc.name} = {observation}")
                part.sources.append(f"{calc.name} = {observation}")
        part.calculations, part.variables = calculations, list(variables)
        done = part.worked()
        if not done:  # a chain whose answer failed: its first steps are no figure the answer may state
            del self.memory.results[kept[0]:], part.sources[kept[1]:]
        if done and done[-1].value is not None:
            self.memory.part_values.append((part.number, done[-1].value))
            part.summary = f"The result is {done[-1].text}."
        self.tell("The calculator: " + "; ".join(c.render() for c in calculations))
