"""Yes or no, by code, where the rule that applies to the person settles it.

A small model reading "this applies to you" beside "cannot … until the 90 days are completed" still
answered yes. Where one rule code found to apply denies or grants what a yes/no question about the asker
asks, or the rules about probation and the record settle it, code says so (the model writes the rest, or
nothing).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from engine.agent.applies import probation_length
from engine.agent.evidence import Unit, heading_of
from engine.agent.sentences import say

if TYPE_CHECKING:
    from engine.agent.routed import Part


#: A question about the asker that a yes or a no answers ("Can I use my PTO now?", "Am I eligible for …?").
_YES_NO = re.compile(r"^\s*(can|may|could|am|is|are)\b(?=.*\b(i|my|me)\b)", re.I)
#: Questions whose yes is a duty or a need ("Do I need…", "Must I…") or that are negated: a rule's "may not"
#: answers them the other way round, so code leaves them to the model.
_NOT_SETTLED = re.compile(r"n't\b|\b(not|need|needs|must|have to|has to|required|require|should)\b", re.I)
_DENIES = re.compile(r"\b(cannot|can ?not|can't|may not|must not|not (be )?(eligible|allowed|permitted|entitled)|"
                     r"ineligible|no longer (eligible|allowed|permitted))\b", re.I)
_GRANTS = re.compile(r"\b(may|can|is eligible|are eligible|is entitled|are entitled|qualif(y|ies)|is allowed|"
                     r"are allowed|is permitted|are permitted)\b", re.I)



#: The record's length of service as the profile writes it (engine.data.profile).
_SERVICE_TEXT = re.compile(r"(\d+) full years? and (\d+) months? of service")
#: A section's numbering in front of a heading or a row ("2.1", "3.", "B)", "IV.").
_NUMBERING = re.compile(r"^\s*(?:[0-9]{1,2}(?:\.[0-9]{1,2})*[.)]?|(?:[A-Z]|[IVX]{1,4})[.)])\s+")
#: ... in front of a row, where a bare figure is the row's own ("5 years or more: 3 months"): dotted or bracketed only.
_ROW_NUMBER = re.compile(r"^\s*(?:[0-9]{1,2}(?:\.[0-9]{1,2})+\.?|[0-9]{1,2}[.)]|(?:[A-Z]|[IVX]{1,4})[.)])\s+")


def applying_row(part: Part, language: str = "en", record: dict[str, tuple[str, str]] | None = None) -> str:
    """The sentence stating the one row of a list that code found to apply, where it is also the unit
    nearest the question ("For you (4 full years and 5 months of service), the policy says: 2 to 5
    years of service: 2 months [1]."), else "". A small model given the marked row still wrote the
    row's range as the answer ("a notice period of 2 to 5 years of service"). Of a row with a column per kind
    of person, only the cell the person's record names (``record``: role -> (label, value)) is stated."""
    from engine.agent.applies import OWN_EVENT, is_row, person_cell, two_way_row
    from engine.policy.terms import relative_kinds

    rows = [u for u in part.picked if u.label in part.applies and is_row(u.text)]
    if len(rows) > 1:
        # (rows of two tables that each apply, by job and by service: the one about what the question names, as
        # "How long is my trial period (periodo de prueba)?" names the trial table's "Periodo de prueba", not the
        # resignation table's)
        from engine.agent.slots import distinctive_words

        asked = {w[:5] for w in distinctive_words(part.text) if len(w) >= 4}
        shared = {u.label: len(asked & {w[:5] for w in distinctive_words(u.text) if len(w) >= 4}) for u in rows}
        most = max(shared.values())
        # (the row sharing most: "giorni di ferie" is the holiday table's, not the notice table's "20 giorni")
        about = [u for u in rows if most and shared[u.label] == most]
        rows = about if len(about) == 1 else rows
    if len(rows) != 1 or not part.picked or part.picked[0] is not rows[0]:
        return ""
    if two_way_row(rows[0].text):
        # (a row by grade with a cell per range of service: the cell is one figure of several, and a sentence
        # beside the table may change it, "half of the period in the table" for a resignation: the model's)
        return ""
    unit, why = rows[0], part.applies[rows[0].label]
    if why in relative_kinds():
        key = "row_for_relative"
    elif why == OWN_EVENT:  # ("Je me marie": the row of nobody's event but the employee's)
        key = "row_for_own"
    elif re.search(r"\bservice\b", why):
        key = "row_for_you"
        # (the record's length of service in the answer's language: "16 volle dienstjaren en 6 maanden")
        length = _SERVICE_TEXT.fullmatch(why) if language != "en" else None
        if length:
            why = say("service", language, years=length.group(1), months=length.group(2))
    elif why.startswith("your "):  # ("your Área: Comercial", a row of the person's own value: in their language)
        key, why = "row_for_you", why[len("your "):]
    else:
        key = "row_for"
    # (the heading without its numbering: "2.1 PTO accrual" -> "PTO accrual"; a section number is no figure)
    heading = _NUMBERING.sub("", heading_of(part.passages, unit))
    # (the row without its own numbering either: "3.1 Parental leave: …")
    text = _ROW_NUMBER.sub("", re.sub(r"^\s*[-*•–]\s*", "", unit.text)).strip().rstrip(".;")
    mine = person_cell(text, record)
    if mine:  # ("Anzianità: oltre 10 anni; Impiegati: 2 mesi" for an Impiegato, not the Operai's and Quadri's)
        text = "; ".join(mine)
    if " – " in heading:  # a window over several items ("2.1 Earning leave – 2.3 Asking for leave") names none
        heading = ""
    shown = f"{heading}: {text}" if heading and heading.lower() not in text.lower() else text
    return say(key, language, why=why, rule=shown, cite=unit.passage)


def decided_reply(question: str, applying: list[str]) -> str:
    """"Yes" or "No" where a yes/no question about the asker is settled by the one rule code found to
    apply to them (a rule that says "cannot … until the 90 days are completed" to someone at day 84
    is a no), else "". A small model reads "this applies to you" and still answers yes."""
    if not _YES_NO.search(question) or _NOT_SETTLED.search(question) or len(applying) != 1:
        return ""
    rule = applying[0]
    if _DENIES.search(rule):
        return "No"
    if _GRANTS.search(rule):
        return "Yes"
    return ""


#: A rule for those past probation ("who have completed probation", "until the introductory period ends") ...
_AFTER_PROBATION = re.compile(r"\b(completed|completion of|after|passed|passing|end of|ended|finish(ed)?)\s+"
                              r"(the |their |your |his |her |an? )?(probation|introductory|trial)"
                              r"|\buntil\b[^.;]{0,50}\b(probation|introductory|trial)", re.I)
#: ... and for those in it ("during the first 90 days of probation", "employees on probation").
_IN_PROBATION = re.compile(r"\b(during|within)\b[^.;]{0,40}?\b(probation|introductory|trial)"
                           r"|\b(on|in)\s+(the |their |your |his |her |an? )?(probation|introductory|trial)", re.I)


def probation_reply(question: str, noted: list[tuple[str, str]]) -> str:
    """"Yes" or "No" where a yes/no question about the asker is settled by the rules about probation
    among the offered sentences (all that settle it the same way), and what code knows of the
    person's probation (``noted``: each rule's text and code's note on it, see
    :func:`engine.agent.applies.probation_note`), else "".
    "Employees who have completed probation may work remotely" to someone on probation is a no."""
    if not _YES_NO.search(question) or _NOT_SETTLED.search(question):
        return ""
    replies = {r for r in (_probation_rule(rule, note) for rule, note in noted) if r}
    return replies.pop() if len(replies) == 1 else ""


def handbook_probation(index) -> int | None:
    """The length of probation in days as the first passage of the policies that states it says
    (passages that address the assistant are not read), or None. (A regular expression over the
    chunks, asked only for a rule about probation that states no length of its own.)"""
    from engine.policy.index import addresses_assistant

    chunks = getattr(index, "chunks", None) or []
    return next((n for c in chunks if not addresses_assistant(c) and (n := probation_length(c.text))), None)


def probation_sentence(reply: str, rule: Unit, note: str, language: str = "en") -> str:
    """Code's whole answer where a probation rule and the record settle a yes/no question: the reply,
    where the person stands (from the record or their days of service) and the rule in its words.
    ("No: you are on probation now (employment_status: Probation), and the policy says: Employees on
    probation … may not take it until probation ends [1].") A model going on from "No, " wrote about
    something else."""
    state, _, source = note.partition("; ")
    if state.startswith(("probation ends", "probation ended")):
        where = f"your {state}"
    elif state.startswith(("on probation", "not on probation")):
        where = f"you are {state}"
    else:
        where = state
    where += f" ({source})" if source else ""
    text = re.sub(r"^\s*(?:[-*•–]|[0-9]{1,2}(?:\.[0-9]{1,2})*[.)]?|(?:[A-Z]|[IVX]{1,4})[.)])\s+", "",
                  rule.text).strip().rstrip(".;")
    return say("probation", language, reply=say(reply.lower(), language), where=where, rule=text, cite=rule.passage)


def _probation_rule(rule: str, note: str) -> str:
    if re.search(r"^on probation now|still in it|^probation ends on", note):
        on = True
    elif re.search(r"^not on probation|completed it|^probation ended on", note):
        on = False
    else:
        return ""
    denies, grants = bool(_DENIES.search(rule)), bool(_GRANTS.search(rule))
    if _AFTER_PROBATION.search(rule) and not _IN_PROBATION.search(rule):
        if grants and not denies:
            return "No" if on else "Yes"
        if denies and on:  # "cannot … until probation is completed": while in it, a no
            return "No"
    elif _IN_PROBATION.search(rule) and on:  # a rule for people in probation, and the person is
        if denies:
            return "No"
        if grants:
            return "Yes"
    return ""
