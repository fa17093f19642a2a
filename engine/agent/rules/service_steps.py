"""An amount that grows by a step for each year of service ("one week for each complete year of service, plus one
week", "aviso prévio de 30 dias, acrescidos de 3 dias por ano completo de serviço, até o máximo de 90 dias").

Asked how much or how many of something the person gets, where one offered sentence about what the question names
(its topic: notice, leave …) sets it as a base plus a step per complete year (or per so many years) of service, with
a cap where it states one: the base plus the steps the person's complete years have earned, by code. The years are
those the question states, else the record's. A step that is "extra" with no base of its own (an addition to an
entitlement stated elsewhere), a row for a band of service the person is not in, a sentence about another topic
or about the other side's notice (the employer's, asked what I must give when I resign), or two such sentences that
disagree, are the model's.
"""

from __future__ import annotations

import re

from engine.agent.applies import Figure, judge
from engine.agent.calc_slot import PLAIN_NUMBER, Variable
from engine.agent.rules.base import Reader, Settled, View, count_text, plain
from engine.agent.rules.words import to_english
from engine.agent.sides import side_of
from engine.policy.terms import named_concepts

_N = r"(\d{1,3}(?:\.\d+)?)"
_UNIT = r"(day|week|month)s?(?:['’]s?)?"
#: "3 days for each complete year of service", "one week's notice for every full year of continuous employment",
#: "1 day per 2 completed years of service".
_STEP = re.compile(rf"\b{_N}\s+(extra\s+|additional\s+|more\s+|further\s+)?{_UNIT}(?:\s+(?:of\s+)?(?:notice|leave|holiday|"
                   rf"holidays|vacation|pay|paid leave))?\s*,?\s+(?:for\s+each|for\s+every|per|by|a)\s+(?:{_N}\s+)?"
                   rf"(?:(full|complete|completed|whole)\s+)?years?\b(\s+of\s+(?:continuous\s+|unbroken\s+)?"
                   rf"(?:service|employment))?", re.I)
#: "30 days, plus 3 days …": the base, right before the step.
_BASE_BEFORE = re.compile(rf"\b{_N}\s+{_UNIT}(?:\s+(?:of\s+)?(?:notice|leave|holiday|vacation|pay))?\s*,?\s*"
                          rf"(?:plus|\+|and|increased by|increasing by|rising by|growing by|going up by|with)\s+(?:an?\s+)?"
                          rf"(?:additional\s+|further\s+)?$", re.I)
#: "…, plus one week": the base, right after it.
_BASE_AFTER = re.compile(rf"^\s*,?\s*(?:plus|\+|and)\s+(?:an?\s+)?(?:additional\s+|further\s+)?{_N}\s+{_UNIT}", re.I)
#: "up to a maximum of 90 days", "to a maximum of 12 weeks", "no more than 26 weeks", "capped at 20 days".
_CAP = re.compile(rf"\b(?:up\s+to|to|with|subject\s+to)\s+(?:a\s+|the\s+)?(?:maximum|max\.?|limit)\s+(?:of\s+)?{_N}\s+{_UNIT}"
                  rf"|\b(?:up\s+to|at\s+most|no\s+more\s+than|not\s+more\s+than|not\s+exceeding|capped\s+at|maximum(?:\s+of)?)\s+"
                  rf"{_N}\s+{_UNIT}", re.I)
#: Steps that start after some years ("… beyond five years", "… after the first 2 years").
_BEYOND = re.compile(r"\s*(?:,\s*)?(?:beyond|after|over|in excess of|above|from)\b", re.I)
#: A number of years the question states ("after 7 years", "with 12 years of service").
_YEARS_ASKED = re.compile(r"\b(\d{1,2})\s+(?:full\s+|complete\s+)?years?\b", re.I)


def steps_of(text: str) -> tuple[float, float, int, str, float | None] | None:
    """(base, step, every how many years, unit, cap) the sentence states, or None (none, several, an "extra" step
    without a base of its own, or units that differ)."""
    found = list(_STEP.finditer(text))
    if len(found) != 1:
        return None
    m = found[0]
    step, extra, unit = float(m.group(1)), bool(m.group(2)), m.group(3).lower()
    every = int(float(m.group(4))) if m.group(4) else 1
    if not (m.group(5) or m.group(6)) or every < 1:
        return None  # ("25 days per year" is a year's entitlement, no step by service)
    before, after = _BASE_BEFORE.search(text[:m.start()]), _BASE_AFTER.match(text[m.end():])
    base_match = before or after
    if base_match is None and extra:
        return None  # (an addition to an entitlement another sentence states)
    if _BEYOND.match(text[m.end():]):
        return None  # ("for each complete year of service beyond five years": the steps start later)
    if base_match is None:
        # (an amount of the unit elsewhere in the sentence is a base code did not read: "20 days, rising each year by …")
        rest = text[:m.start()] + " " + _CAP.sub(" ", text[m.end():])
        if re.search(rf"\b\d+(?:\.\d+)?\s+{unit}s?\b", rest, re.I):
            return None
    base, base_unit = (float(base_match.group(1)), base_match.group(2).lower()) if base_match else (0.0, unit)
    cap_match = _CAP.search(text, m.end())
    cap, cap_unit = None, unit
    if cap_match:
        groups = [g for g in cap_match.groups() if g]
        cap, cap_unit = float(groups[0]), groups[1].lower()
    if base_unit != unit or cap_unit != unit:
        return None
    return base, step, every, unit, cap


class ServiceSteps(Reader):
    name = "service_steps"
    order = 58
    kinds = ("policy_me", "policy_calc", "policy")

    def read(self, view: View) -> Settled | None:
        q = view.words
        if not (q.has("asks.how_much", view.text) or q.has("asks.my_length", view.text)):
            return None
        stated = [int(n) for n in _YEARS_ASKED.findall(view.text)]
        if len(stated) > 1 or not stated and view.service_years is None:
            return None
        years = stated[0] if stated else int(view.service_years or 0)
        service = Figure(float(stated[0]) if stated else float(view.service_years or 0), "years", "your service")
        asked, side = named_concepts(view.text), side_of(view.text)
        found = []
        for unit in view.offered():
            english = view.rule_words.plain_figures(to_english(unit.text))
            steps = steps_of(english)
            if steps is None:
                continue
            # ("years of service" names seniority, which every such rule does: the topic is the rest)
            said = (named_concepts(unit.text) | named_concepts(english)) - {"seniority"}
            if asked and said and not asked & said:
                continue  # (a rule about holiday that grows with service says nothing of notice)
            ended_by = side_of(unit.text) or side_of(english)
            if side and ended_by != side and (ended_by or side == "employee"):
                continue  # (the employer's notice, asked what notice I must give; a step by service is seldom mine)
            if judge(_CAP.sub(" ", english), "length of service", [], service)[0] == "not":
                continue  # (the row of another band of service)
            found.append((unit, steps))
        if len({s for _, s in found}) != 1:
            return None
        rule, (base, step, every, per, cap) = found[0]
        earned = years // every
        units = f"{per}s"
        variables = [Variable("base", base, f"{PLAIN_NUMBER}: {units}, from the policy"),
                     Variable("step", step, f"{PLAIN_NUMBER}: {units} per step, from the policy"),
                     Variable("steps", float(earned), f"{PLAIN_NUMBER}: {years} complete years of service"
                              + (f" in steps of {every}" if every > 1 else ""))]
        code = "answer = base + step * steps\n"
        total = base + step * earned
        if cap is not None:
            variables.append(Variable("cap", cap, f"{PLAIN_NUMBER}: the most, from the policy"))
            code = "answer = min(base + step * steps, cap)\n"
            total = min(total, cap)
        w = view.words
        each = w.answer("steps_each_year", step=count_text(view, step, units)) if every == 1 else \
            w.answer("steps_each_years", step=count_text(view, step, units), n=every)
        formula = w.answer("steps_plus_base", base=count_text(view, base, units), steps=each) if base else each
        if cap is not None:
            formula = w.answer("steps_cap", formula=formula, cap=count_text(view, cap, units))
        return Settled(self.name, rule, variables, code, "service_steps",
                       {"years": str(years), "formula": formula, "total": count_text(view, total, units)},
                       check=f"{plain(base)} + {plain(step)} × {earned} ({years} complete years of service)"
                             + (f", at most {plain(cap)}" if cap is not None else "") + f" {units}")
