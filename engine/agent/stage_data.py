"""The look-up stage of a question's pipeline: the person's own record, the employee data, a leave request.

The model fills slots under grammars (which fields of the record, the rows, filter and result of a data
query, the dates of a request); the access layer decides what may be read before any query runs, and code
writes short listings itself.
"""

from __future__ import annotations

import re
import time
from typing import TYPE_CHECKING, Iterator

from engine.agent.answer_text import _gbnf_string
from engine.agent.data_text import _ASKS_YES_NO, _figures, _listing, _shape, _summary
from engine.agent.stage import Stage
from engine.agent.rules.words import in_any_language
from engine.agent.sentences import asked_aggregate
from engine.agent.slots import SLOT_TOKENS, SlotGrammar, filter_text
from engine.agent.turn_format import format_observation
from engine.errors import AccessDenied, HRAssistantError
from engine.agent.steps import Step
from engine.tools.employee_data import EmployeeDataTool
from engine.tools.leave_request import LeaveRequestTool

if TYPE_CHECKING:
    from engine.agent.routed import Part

#: The kinds of question that query the employee data (their prompts carry the data's columns).
DATA_KINDS = ("my_team", "company")
#: A question that asks for figures per group ("per department", "by team", "each", "which department has").
_BREAKDOWN = re.compile(r"\b(per|each|every|by|breakdown|broken down|which (department|team|division|unit|location|"
                        r"group|site))\b", re.I)
#: Words of a field's name that say nothing about which field it is ("sick_days_remaining": only "sick" does).
_GENERIC_FIELD_WORDS = {"days", "day", "remaining", "left", "balance", "hrs", "hours", "hour", "h", "the", "of", "total",
                        "current", "available", "usd", "eur", "gbp", "amount", "number", "no", "count", "ytd",
                        "annual", "yearly", "monthly", "weekly"}


def _words(text: str) -> set[str]:
    return {w[:-1] if len(w) > 3 and w.endswith("s") else w for w in re.findall(r"[a-z0-9]+", text.lower())}


def narrow_fields(picked: list, question: str, facts: list | None = None) -> list:
    """Of the record fields the model picked, those the question names, where it names some: asked for sick
    days, a model that picked the vacation and the sick balance then read the first. Asked what was used
    ("How many hours of holiday have I used?"), the field of what was taken of that leave, not what is left
    (``facts``: the whole record, where the model picked only the balance)."""
    from engine.data.columns import taken_words

    if taken_words(question):
        kinds = {w for f in picked for w in _words(f.label) - _GENERIC_FIELD_WORDS}
        taken = [f for f in (picked if any(taken_words(f.label) for f in picked) else facts or [])
                 if taken_words(f.label) and (not kinds or kinds & _words(f.label))]
        if len(taken) == 1:
            return taken
    asked = _words(question)
    named = [f for f in picked if (_words(f.label) - _GENERIC_FIELD_WORDS) & asked]
    return named or picked


#: A question about what someone is paid, in the words of any language the data layer reads.
_ASKS_PAY = re.compile(r"\b(?:earns?|earning|makes?|salary|salaries|paid|pay|wages?|income|verdien\w*|salaris|loon|"
                       r"gehalt|lohn|verdient|gagne\w*|salaire|gana\w*|sueldo|salario|guadagna\w*|stipendio|"
                       r"retribuzione|ganha\w*|salário)\b", re.I)


def _named_field(question: str, facts: list):
    """The one fact of the record whose field the question names by its role and nothing else
    (:func:`engine.agent.route_check.asks_record_field`), or None."""
    from engine.agent.route_check import asks_record_field
    from engine.data.columns import header_candidates

    role = asks_record_field(question, [f.label for f in facts])
    if not role:
        return None
    having = [f for f in facts if role in {r for r, _, _ in header_candidates(f.label)}]
    return having[0] if len(having) == 1 else None


class LookingUp(Stage):
    """The turn's look-up stage (a mixin of engine.agent.routed._Turn)."""

    def _record_step(self, what: str) -> Iterator[Step]:
        """The record's use, as a data step of the trace (it was read before the question; this says it was used)."""
        profile = self.agent.profile
        if profile.found and not self.memory.record_shown:
            self.memory.record_shown = True
            shown = "\n".join(f.render() for f in profile.facts + profile.computed)
            yield from self.tool_step(EmployeeDataTool.name, what, shown)

    def _record(self, part: Part, several: bool) -> Iterator[Step]:
        """A fact of the person's own record: the model names the fields (the record is in the prompt),
        and the answer can state only their figures."""
        profile = self.agent.profile
        facts = profile.facts + profile.computed
        named = _named_field(part.text, facts)
        if named is not None:
            # ("qual é o meu saldo no banco de horas?": the one field the question names, and nothing else, by code;
            # a model shown "Estou de férias" first read the holiday balance)
            picked = [named]
        else:
            labels = " | ".join(_gbnf_string(f.label) for f in facts)
            grammar = f'root ::= field (", " field)? "\\n"\nfield ::= {labels}\n'
            self.tell(f"Which fields of my record (above) answer {self._which(part, several)}? Name them.")
            text = yield from self.call("Fields: ", grammar, SLOT_TOKENS, doing="Choosing what to read from your record")
            names = [n.strip() for n in text.strip().split(", ")]
            picked = narrow_fields([f for f in facts if f.label in names], part.text, facts)
        part.fields = [f.label for f in picked]
        part.used_record = True
        self.memory.record_shown = True
        shown = "\n".join(f.render() for f in picked) or "(no field chosen)"
        yield from self.tool_step(EmployeeDataTool.name, "(your own record)", shown)
        self.memory.results.append(shown)
        part.sources.append(shown)
        self.tell(format_observation(shown, source=EmployeeDataTool.name))
        if len(picked) == 1:
            part.data_value = picked[0].value.split(" (")[0]

    def _data(self, part: Part, several: bool) -> Iterator[Step]:
        a = self.agent
        data = a.tools.need(EmployeeDataTool)
        viewer = data.viewer(a.context.user)
        names = self._named_people(" ".join([*self._conversation()[-2:], part.text]))
        # Whose rows is code's choice: a question about the team is about the direct reports, any other about
        # everyone (the model, offered both, took "my direct reports" for company-wide questions).
        scope = "my direct reports" if part.kind == "my_team" else "everyone"
        before = self._referred_part(part)
        carried = list(before.query.filters) if before is not None and before.query is not None else []
        if carried:
            self.trace.checks.append(f"part {part.number}: the filter of part {before.number} carried: "
                                     + filter_text(carried))
        mentions = " ".join([*self._conversation()[-2:], *([before.text] if carried else []), part.text])
        slots = SlotGrammar(data.table, viewer, names=names, grouping=bool(_BREAKDOWN.search(part.text)), scope=scope,
                            question=part.text, mentions=mentions, carried=carried)
        bank = a.examples
        shown = bank.slots(part.text, data.table, viewer, manager=bool(viewer.reports)) if bank is not None else ""
        # (the columns are in the system prompt where the turn's parts query the data: engine.agent.routed)
        columns = "" if self.columns_above else f"The employee data has these columns:\n{slots.columns_text()}\n"
        on = "the employee data" if self.columns_above else "it"
        self.tell(columns + (f"Examples of queries on {on}:\n{shown}\n" if shown else "")
                  + f"Write the query for {self._which(part, several)} in the three slots Rows, Filter and Result.")
        for attempt in range(2):
            text = yield from self.call("Rows: ", slots.grammar(), SLOT_TOKENS,
                                        doing="Choosing what to look up in the employee data")
            query = slots.parse(text)
            dropped = slots.unasked(query)
            if dropped:
                query.filters = [f for f in query.filters if f not in dropped]
                self.trace.checks.append(f"part {part.number}: a filter the question does not ask for dropped: "
                                         + "; ".join(f'"{c}" {op} "{v}"' for c, op, v in dropped))
            t0 = time.perf_counter()
            try:
                withheld = self._withheld_column(part, query, slots, data, viewer)
                if withheld:
                    # The question asks for a column this person may not read on these rows, and the slots
                    # ask for something else ("List everyone's salaries" as a head count): the access layer
                    # decides on what was asked, audited as asked, not on what a small model wrote instead.
                    query = withheld
                result = data.run(slots.compile(query), a.context)
            except AccessDenied as exc:
                part.denied = str(exc)
                yield from self.tool_step(EmployeeDataTool.name, query.describe(),
                                          f"Error: {exc} This is not available to the user.", False,
                                          seconds=time.perf_counter() - t0)
                self.tell(format_observation(f"Not allowed: {exc}", source=EmployeeDataTool.name))
                return
            except HRAssistantError as exc:
                yield from self.tool_step(EmployeeDataTool.name, query.describe(), f"Error: {exc.message}", False,
                                          seconds=time.perf_counter() - t0)
                if attempt == 0:
                    self.tell(f"Error: {exc.message} {exc.hint}".strip() + "\nWrite the query again.")
                    continue
                self.tell("(The employee data gave no result.)")
                return
            text_out, value = _shape(result, query)
            part.data, part.data_value, part.query = text_out, value, query
            self.memory.data_values += _figures(result)
            yield from self.tool_step(EmployeeDataTool.name, query.describe(), text_out, data=result.data,
                                      seconds=time.perf_counter() - t0)
            self.memory.results.append(text_out)
            part.sources.append(text_out)
            part.summary = _summary(query, result, text_out, value)
            # (a yes/no question about the rows is the model's to answer from them, not a list)
            part.listing = "" if _ASKS_YES_NO.match(part.text) else \
                _listing(query, result, several, asked_aggregate(part.text) == "names")
            self.tell(format_observation(text_out, source=EmployeeDataTool.name))
            return

    def _referred_part(self, part: Part):
        """The part before this one, where this one refers back to its people ("how many people work in
        Produzione, and what is their average salary?", "… e qual è la loro retribuzione media?") and both
        query the same rows; else None."""
        if part.number < 2 or len(self.parts) < part.number - 1:
            return None
        before = self.parts[part.number - 2]
        if before.kind != part.kind or before.query is None or not before.query.filters:
            return None
        text = part.text
        if in_any_language("asks.of_them").search(text) or in_any_language("asks.them").search(text):
            return before
        # ("who is still in their introductory period?": their own, not the people of the part before)
        return before if in_any_language("asks.their").search(text) and asked_aggregate(text) != "names" else None

    def _withheld_column(self, part: Part, query, slots: SlotGrammar, data: EmployeeDataTool, viewer):
        """The query of the column the question names that the access layer would refuse on the slots' rows,
        where the slots leave that column out; None where there is none (the slots' query runs)."""
        from engine.agent.slots import SlotQuery, named_columns
        from engine.data.query import run_query

        if viewer.role == "hr":
            return None
        used = set(query.columns) | {c for c, _, _ in query.filters} | ({query.by} if query.by else set())
        named = named_columns(part.text, list(data.table.columns))
        if _ASKS_PAY.search(part.text) and self._named_people(part.text):
            # ("How much does Sanne Bakker earn?" names "Bruto maandsalaris" by its role)
            named += [c for c in data.table.pay_columns if c not in named]
        for column in named:
            if column in used or column in viewer.public_columns:
                continue
            asked = SlotQuery(rows=query.rows, filters=list(query.filters), result="list", columns=[column])
            try:
                run_query(slots.compile(asked), data.table, viewer, self.agent.context.today or None)
            except AccessDenied:
                return asked
            except HRAssistantError:
                continue
        return None

    def _leave(self, part: Part, several: bool) -> Iterator[Step]:
        a = self.agent
        tool = a.tools.need(LeaveRequestTool)
        grammar = 'root ::= in-leave "\\n"\n' + tool.grammar_rules("in-leave") + "\n"
        # Code reads the days off the question: the model copied today's date for a request "from 14 July".
        from engine.agent.dates import question_dates

        dates = question_dates(part.text, a.context.today)
        if dates:
            first = f'"{dates[0]}"'
            last = " | ".join(dict.fromkeys(f'"{d}"' for d in dates[1:])) if len(dates) > 1 else "in-leave-date"
            grammar = grammar.replace('" from " in-leave-date " to " in-leave-date',
                                      f'" from " {first} " to " ({last})')
        if not self._named_people(part.text):
            grammar = re.sub(r' \(" for .*?\)\?', "", grammar, count=1)  # for oneself unless someone is named
        told = f"the days are {' to '.join(dates[:2])}" if len(dates) > 1 else "the first and the last day as YYYY-MM-DD"
        self.tell(f"Prepare the leave request for {self._which(part, several)}: the type, then {told}.")
        text = yield from self.call("Leave request: ", grammar, SLOT_TOKENS, doing="Filling in the leave request")
        t0 = time.perf_counter()
        try:
            result = tool.run(text.strip(), a.context)
            observation, ok, data = result.text, True, result.data
        except HRAssistantError as exc:
            observation, ok, data = f"Error: {exc.message}", False, None
            if isinstance(exc, AccessDenied):
                part.denied = str(exc)
        yield from self.tool_step(LeaveRequestTool.name, text.strip(), observation, ok, data=data,
                                  seconds=time.perf_counter() - t0)
        self.memory.results.append(observation)
        part.sources.append(observation)
        self.tell(format_observation(observation, source=LeaveRequestTool.name if ok else ""))
