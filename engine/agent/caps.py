"""A carry-over cap applied to a balance, by code.

"Up to 40 hours of unused PTO carry over into the next calendar year. Any hours above 40 are forfeited."
Asked "I have 88 PTO hours; how many will I lose?", a small model wrote lines like ``40 / min(88, 40)``.
The rule is one of the commonest in a handbook and its arithmetic is fixed: of a balance B under a cap C,
min(B, C) carries over and B - min(B, C) is lost. Code finds the cap in the offered sentences and the
balance in the question or the person's record, and the calculator works it out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.agent.rules.words import words

_NUM = r"(\d+(?:\.\d+)?)"
_UNIT = r"(hours?|days?|weeks?)"
#: A question about what happens to a balance at a carry-over cap.
ASKS_CARRY = re.compile(r"\bcarr(?:y|ied|ies)\b|\broll(?:ed|s)? over\b", re.I)
ASKS_LOSS = re.compile(r"\b(forfeit\w*|lose|lost|losing|laps\w*|expire\w*|wasted?|use it or lose it)\b", re.I)
_RULE_WORDS = words("en")
_CARRIES = _RULE_WORDS.family("carry")
#: A limit a rule sets ("up to 60 hours", "a maximum of 10 days"): the figure and its unit.
LIMIT = re.compile(rf"(?:{_RULE_WORDS.family('limit').pattern})\s+{_NUM}\s+(?:[a-z]+\s+){{0,2}}?{_UNIT}\b", re.I)
#: A limit said as what is lost beyond it ("more than 40 hours will not roll over", "any days above 5 lapse").
_OVER = re.compile(rf"(?:{_RULE_WORDS.family('over').pattern})\s+(?:the\s+)?{_NUM}\s+(?:[a-z]+\s+){{0,2}}?{_UNIT}\b", re.I)
_UNIT_OVER = re.compile(rf"\b{_UNIT}\s+(?:[a-z]+\s+){{0,2}}?(?:{_RULE_WORDS.family('over').pattern})\s+(?:the\s+)?"
                        rf"{_NUM}\b(?![\s-]*(?:%|percent|years?))", re.I)
_LOSS_WORD = _RULE_WORDS.family("loss")


@dataclass
class Cap:
    """The most of a balance that carries over, and the sentence that says so."""

    amount: float
    unit: str  # "hours", "days", "weeks"
    label: str  # the offered unit's label
    passage: int


#: The kinds of leave a cap may be about; a question naming one takes only a cap about it.
_KINDS = re.compile(r"\b(sick|annual|vacation|pto|holiday|personal|paid time off|comp(?:ensatory)? time|toil)\b", re.I)


#: Names of the same kind of leave ("vacation" in the question, "annual leave" in the handbook).
_GROUP = {"annual": "time off", "vacation": "time off", "pto": "time off", "holiday": "time off",
          "paid time off": "time off", "personal": "time off", "compensatory time": "comp", "comp time": "comp",
          "toil": "comp"}


def find_cap(units, question: str = "") -> Cap | None:
    """The carry-over cap the offered sentences state ("up to 60 hours … carry forward"), or None. Where the
    question names a kind of leave, only a sentence about that kind; more than one cap left (vacation and
    sick leave side by side), and code cannot tell which: None."""
    kinds = _kinds(question)
    found: dict[tuple[float, str], Cap] = {}
    for u in units:
        if not _CARRIES.search(u.text):
            continue
        if kinds and not kinds & _kinds(u.text):  # (a sentence naming no kind is no cap for a named one)
            continue
        for amount, unit in limits(u.text):
            found.setdefault((amount, unit), Cap(amount, unit, u.label, u.passage))
    return next(iter(found.values())) if len(found) == 1 else None


def limits(text: str) -> list[tuple[float, str]]:
    """The limits a carry-over sentence sets, as (figure, unit): "up to 40 hours", and, where it says what is
    lost, "more than 40 hours will not roll over" or "any days above 5 lapse"."""
    out = [(float(m.group(1)), m.group(2).lower().rstrip("s") + "s") for m in LIMIT.finditer(text)]
    if out:
        return list(dict.fromkeys(out))
    # Said as what is lost: only in the clause that says it is lost, and not a figure of work ("who work more
    # than 20 hours a week", "hours over 40 in a workweek").
    for clause in re.split(r"[;,.]\s+|\s+(?:and|but|while)\s+", text):
        if not _RULE_WORDS.has("loss", clause):
            continue
        for m in [*_OVER.finditer(clause), *_UNIT_OVER.finditer(clause)]:
            after, before = clause[m.end():], clause[:m.start()]
            if _OF_WORK_AFTER.match(after) or _OF_WORK_BEFORE.search(before):
                continue
            figure, unit = (m.group(1), m.group(2)) if m.re is _OVER else (m.group(2), m.group(1))
            out.append((float(figure), unit.lower().rstrip("s") + "s"))
    return list(dict.fromkeys(out))


_OF_WORK_AFTER = re.compile(r"\s*(?:a|per|each|every|in an?|in the)\s+(?:work\s*)?(?:week|day|month|shift)\b", re.I)
_OF_WORK_BEFORE = re.compile(r"\bwork(?:s|ed|ing)?\s*$|\bwork(?:s|ed|ing)?\s+(?:\w+\s+){0,2}$", re.I)


def loss_word(units) -> str:
    """How the handbook says the rest goes ("are forfeited", "lapse"), for code's sentence."""
    for u in units:
        m = _LOSS_WORD.search(u.text)
        if m:
            word = m.group(0).lower()
            for stem, said in (("forfeit", "are forfeited"), ("laps", "lapse"), ("expir", "expire"), ("lost", "are lost"),
                               ("cancel", "are cancelled")):
                if word.startswith(stem):
                    return said
    return "do not carry over"


#: Words of a sentence about what is left of a balance ("unused", "any hours above", "the excess").
_LEFTOVER = re.compile(r"\b(unused|carr\w+|balance|above|excess|beyond|remaining|over the)\b", re.I)


_ABOVE = re.compile(r"\b(above|beyond|excess|over the|more than|exceed\w*|in addition to)\b", re.I)


def loss_sentence(units, cap: Cap):
    """The offered sentence that says what happens above the cap, or None: one of the cap's own passage
    first, else one elsewhere about what is left of a balance; never one about another kind of leave
    ("unused sick leave is forfeited" is not what happens to annual leave above its cap)."""
    rule = next((u.text for u in units if u.label == cap.label), "")
    said = [u for u in units if u.label != cap.label and _LOSS_WORD.search(u.text) and same_kind(rule, u.text)
            and (u.passage == cap.passage or _LEFTOVER.search(u.text))]
    # (of "carried-over days not used by 31 March expire" and "days beyond the 5-day limit are forfeited",
    # the one about what is above the cap)
    return max(said, default=None, key=lambda u: (bool(_ABOVE.search(u.text)), u.passage == cap.passage))


def same_kind(question: str, text: str) -> bool:
    """Whether ``text`` is about the kind of leave the question names (or either names none)."""
    asked, said = _kinds(question), _kinds(text)
    return not asked or not said or bool(asked & said)


#: Kinds of leave a record might keep a balance of, beyond those a cap is about.
_ANY_KIND = re.compile(r"\b(bereavement|compassionate|funeral|jury|parental|maternity|paternity|family|military"
                       r"|study|volunteer\w*|floating|unpaid|sabbatical|wellness|carer'?s?)\b", re.I)


_BALANCE = re.compile(r"\b(balance|remaining|left|available|accrued|owed|entitlement|leave)\b", re.I)


def kept_in(question: str, labels: list[str]) -> bool:
    """Whether a record with fields ``labels`` keeps a balance of the kind of leave the question names
    (or it names none)."""
    asked = _named_kinds(question)
    if not asked:
        return True
    kept: set[str] = set()
    for label in labels:
        # Column names as exports write them: "sick_days_remaining", "PTOBalanceHrs".
        label = re.sub(r"(?<=[a-z])(?=[A-Z])", " ", label).replace("_", " ")
        named = _named_kinds(label)
        # A balance that names no kind ("Leave Balance", "Days Remaining") is the ordinary paid leave.
        kept |= named or ({"time off"} if _BALANCE.search(label) else set())
    return bool(asked & kept)


def _named_kinds(text: str) -> set[str]:
    """The kinds of leave ``text`` names: the known ones (synonyms as one) and any other "… leave"."""
    return _kinds(text) | {k.lower() for k in _ANY_KIND.findall(text)}


def _kinds(text: str) -> set[str]:
    """The kinds of leave ``text`` names, synonyms as one ("vacation" and "annual leave": "time off")."""
    return {_GROUP.get(k.lower(), k.lower()) for k in _KINDS.findall(text)}
