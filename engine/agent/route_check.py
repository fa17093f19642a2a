"""Code's word on a question's kind, over the router's vote and the model's, from the question's own words.

What a rule does to my balance (carry over, cash out) is a policy applied to me; how much of something I
have left is my record where it keeps it; a rate the record does not keep is the policy's definition applied
to my pay; a manager's "my team" is their reports. Each check is a rule with its words (the question's
language too, from the per-language files) and its tests in tests/test_rates_and_caps.py and test_routed.py.
"""

from __future__ import annotations

import functools
import re

from engine.agent import caps
from engine.agent.probation_end import asks_probation_end
from engine.agent.router import Route
from engine.agent.rules.words import in_any_language
from engine.policy.terms import named_concepts
from engine.agent.sentences import asked_aggregate, people_words, self_words, team_words

#: A later part that combines what the parts before it found ("what do they add up to?").
COMBINE = re.compile(r"\b(add(s|ed)? up|sum|total|combined|together|altogether|in all|difference|differ|"
                     r"(more|less|fewer) than|average|ratio)\b", re.I)
#: Money for a quantity the question states, and "how many … do I have (left)?" (engine/agent/rules/lang/en.toml).
_AMOUNT_FOR = in_any_language("asks.amount_for")
#: "Which team am I in?" names the asker's own group, not their reports.
_WHICH_TEAM = re.compile(r"\b(?:which|what)\s+team\b", re.I)
#: What a rule allows or the handbook says: a question with these asks the policy, even about my team.
_RULE_ASKED = in_any_language("asks.rule_asked")
_HAVE_LEFT = in_any_language("asks.have_left")  # (in the question's language too: "cuántos … me quedan")

#: What a policy does to someone's balance or pay: a question with it needs the rule, not only the record.
_POLICY_ACTION = re.compile(r"\bcarr(?:y|ied|ies)\b|\broll(?:ed|s)? over\b|\bforfeit|\blaps(?:e|es|ed)\b|\bexpire"
                            r"|\bcash(?:ed|ing)? (?:out|in)\b|\bencash|\bsell|\bsold\b|\bbuy[ -]?back|\bconvert"
                            r"|\bpay(?:s|ed)? out\b|\bpayout\b", re.I)
#: "What is my hourly rate?": a rate per period, which the record may not keep and a policy may define.
_ASKS_RATE = re.compile(r"\bwhat(?:'s| is| would be)\s+my\s+(?:\w+\s+)?(hourly|daily|weekly)\s+(?:rate|pay|wage)\b"
                        r"|\bmy\s+(?:\w+\s+)?rate\s+per\s+(hour|day|week)\b", re.I)
#: What I am paid or make (in the question's language too).
_MY_PAY = in_any_language("asks.pay")
#: An amount of money the question gives itself ("if I earn $50,000", "3.500 EUR"): arithmetic may need no rule.
_MONEY_GIVEN = re.compile(r"[$€£]\s?\d|\d\s?(?:[$€£]|eur|usd|gbp|dollars?|euros?|pounds?)\b|\b\d{1,3}(?:[,.]\d{3})+\b"
                          r"|\b\d{4,}\b", re.I)
#: What the policy gives (an entitlement), rather than what is left of it.
_ENTITLEMENT = re.compile(r"\b(per|a|each|every) (year|month|week)\b|\bannually\b|\bentitled\b|\bearn|\baccru"
                          r"|\bget\b|\ballowed\b|\bcan i\b|\bmaximum\b", re.I)


#: What the rules give a person in a year, asked for, in any language ("am I entitled to", "stehen mir zu").
_ENTITLED = in_any_language("asks.entitlement")
_MY_LENGTH = in_any_language("asks.my_length")


def _is_entitlement(label: str) -> bool:
    """Whether a record field is a year's entitlement ("Urlaubsanspruch", "Annual leave allowance")."""
    from engine.data.vocab import core, vocabulary

    words = core(label).split()
    return any(e.score(words) for e in vocabulary().headers.get("leave_entitlement", []))


def _asks_rate_in_any_language(text: str) -> str:
    """"hourly", "daily" or "weekly" where a question in any language's words asks for the person's rate
    ("¿Cuánto cobro por hora?", "Wie hoch ist mein Stundenlohn?"); "" else, and for a question with a figure
    ("… for 6 hours")."""
    if re.search(r"\d", text) or not in_any_language("asks.what_is").search(text):
        return ""
    return next((adjective for per, adjective in (("hour", "hourly"), ("day", "daily"), ("week", "weekly"))
                 if in_any_language(f"rate_terms.{per}").search(text)), "")


def _asks_own_manager(text: str, record: list[str]) -> bool:
    """Whether a question asks who the asker's manager is ("Who is my manager?", "Quem é o meu gestor?") and the
    record has a manager field: who is asked, the asker is spoken of, and the only role the words name is the
    manager's."""
    from engine.agent.sentences import asked_aggregate
    from engine.data.columns import header_candidates

    # (a short question: "Who should I tell if my manager is away?" asks the policy who else)
    if re.search(r"\d", text) or len(re.findall(r"\w+", text)) > 7 or asked_aggregate(text) != "names" \
            or not self_words().search(text):
        return False
    if {r for r, _, _ in header_candidates(text)} != {"manager"}:
        return False
    return any(any(r == "manager" for r, _, _ in header_candidates(label)) for label in record)


#: Fields of a record a question may ask for by name alone (pay, balances of leave and the manager have rules
#: of their own: what I am paid or have left is asked in ways a name alone does not settle).
_RECORD_ROLES = ("cost_centre", "overtime_balance", "site", "department", "job_title", "grade", "hire_date",
                 "contract_end", "probation_end", "employment_type", "weekly_hours", "days_per_week", "fte",
                 "employee_id", "email", "status")


@functools.lru_cache(maxsize=None)
def _record_filler(code: str) -> frozenset[str]:
    """The filler words of language ``code`` (with English's: a question mixes them), never another language's:
    Dutch "over" (left) is an English question's subject ("Which department am I over?")."""
    from engine.agent.rules.words import words as words_of

    return frozenset(_fold_word(w) for w in words_of(code).families.get("asks.record_filler", ()))


def _names_stem(word: str, stems: tuple[str, ...]) -> bool:
    """Whether a question's word is one of a header entry's words: whole, or its start or end where the entry
    says so ("zeitausgleich*"); never a part of another word ("grade" in "upgrade")."""
    for stem in stems:
        body = stem.strip("*")
        if body and (word == body or stem.endswith("*") and len(body) >= 4 and word.startswith(body)
                     or stem.startswith("*") and len(body) >= 4 and word.endswith(body)):
            return True
    return False


def _fold_word(word: str) -> str:
    from engine.data.vocab import fold

    return fold(word).replace(" ", "")


def asks_record_field(text: str, record: list[str]) -> str:
    """The role of the one record field a question asks for by its name and nothing else ("Which cost centre am
    I booked to?", "Wie viele Stunden Zeitausgleich habe ich offen?": ``cost_centre``, ``overtime_balance``),
    where a field of ``record`` (its labels) has that role; "" else. Every other word of the question must be
    a filler of some language's ``asks.record_filler``, a unit or a question word: "What is the dress code at
    my site?" names the site and asks about the dress code."""
    from engine.data.columns import header_candidates
    from engine.data.vocab import vocabulary

    if re.search(r"(?<!\d):(?!\d)", text.rstrip(": ")) and (asked := re.split(r"(?<!\d):(?!\d)", text.rstrip(": "))[-1].strip()) \
            and re.search(r"\w", asked):
        # ("Estou de férias, mas queria saber: qual é o meu saldo no banco de horas?": what is asked follows the colon)
        text = asked
    if re.search(r"\d", text) or not self_words().search(text) or _POLICY_ACTION.search(text) \
            or _ENTITLED.search(text) or COMBINE.search(text):
        return ""
    named = {r: e for r, _, e in header_candidates(text)}
    roles = [r for r in named if r in _RECORD_ROLES]
    if len(roles) != 1 or set(named) - {roles[0], "leave_taken"}:
        return ""
    role = roles[0]
    if not any(role in {r for r, _, _ in header_candidates(label)} for label in record):
        return ""
    stems = named[role].words
    units = {w.strip("*") for entries in vocabulary().units.values() for e in entries for w in e.words}
    filler = _record_filler(vocabulary().question_language(text))
    tokens = re.findall(r"[^\W\d_]+(?:'[^\W\d_]+)?", text)
    for i, token in enumerate(tokens):
        word = _fold_word(token)
        if not word or word in filler or word in units or _names_stem(word, stems):
            continue
        if 0 < i < len(tokens) - 1 and token[0].isupper() and _names_stem(_fold_word(tokens[i + 1]), stems):
            continue  # (a name right before the field's word, the company's: "Which Cairnmore site am I based at?")
        return ""
    return role


#: A question about what comes on top of pay, not the pay itself.
_EXTRA = in_any_language("asks.extra_pay")


def _asks_kept_pay(text: str, record: list[str]) -> bool:
    """Whether a question with no figure of its own asks for the person's pay at one period (monthly, yearly,
    hourly, in any language's words) and a pay field of the record is kept at that period."""
    from engine.data.columns import header_candidates, header_period

    if re.search(r"\d", text):
        return False
    asked = [per for per in ("hour", "week", "month", "year") if in_any_language(f"rate_terms.{per}").search(text)]
    # (pay itself named: "What extra do I get per hour on nights?" asks a premium, not the pay the record keeps)
    if len(asked) != 1 or not any(r == "pay" for r, _, _ in header_candidates(text)) or _EXTRA.search(text):
        return False
    return any(header_period(label) == asked[0] and any(r == "pay" for r, _, _ in header_candidates(label))
               for label in record)


_OTHERS = in_any_language("asks.others")


def not_about_others(route: Route, text: str, allowed: list[str]) -> Route:
    """A company question (other people's data) that speaks only of the asker and asks nothing over people
    ("How much does the company put into my KiwiSaver each payday?": no count, no average, nobody else) is
    the best-voted kind about the asker instead; the route is unchanged where none was voted."""
    if route.kind != "company" or not self_words().search(text) or asked_aggregate(text) \
            or people_words().search(text) or team_words().search(text) or _OTHERS.search(text) \
            or _EVERYONE.search(text):
        return route
    scores = route.scores if isinstance(route.scores, dict) else {}
    own = [k for k in ("policy_calc", "policy_me", "policy", "my_data", "my_calc") if k in allowed and k in scores]
    if not own:
        return route
    return Route(max(own, key=lambda k: scores[k]), "code", route.candidates, route.scores)


def checked_route(route: Route, text: str, allowed: list[str], record: list[str] | None = None,
                  own: str = "") -> Route:
    """Code's word on two kinds it can tell from the question's own words, over the vote and the model:
    what a rule does to my balance (carry over, cash out, forfeit) is a policy applied to me, and how
    much of something I have left is my record, where the record (``record``: its field labels, when
    known) keeps a balance of the kind of leave the question names ("how many days of bereavement leave
    do I have?" is the policy's, where only vacation and sick days are kept)."""
    if route.kind in ("my_data", "company") and "my_team" in allowed and team_words().search(text) \
            and not _WHICH_TEAM.search(text):
        # "¿Quién de mi equipo tiene más días pendientes?": a manager's own team, whatever the vote said.
        return Route("my_team", "code", route.candidates, route.scores)
    if route.kind in ("policy", "policy_me", "policy_calc") and "my_team" in allowed and team_words().search(text) \
            and not _WHICH_TEAM.search(text) and not _RULE_ASKED.search(text) \
            and (asked_aggregate(text) or people_words().search(text) or _HAVE_LEFT.search(text)):
        # "Ile łącznie dni urlopu zostało moim ludziom?", "the total leave balance across my team": a sum or a
        # which-of over my team's figures is their data; "Can my team …?", "What does the policy say …" stay.
        return Route("my_team", "code", route.candidates, route.scores)
    # (``own``: the part's own words, where ``text`` has the part before it too: "…, and how much is that per
    # month?" read with "What is my annual salary?" asks no pay at the period the record keeps)
    own = own or text
    if route.kind in ("policy", "policy_me") and "my_data" in allowed and record and _asks_own_manager(own, record):
        # "Wer ist mein Vorgesetzter?": the handbook says "Vorgesetzter" too, and the vote leaned to it; who my
        # manager is, is my record's (a policy answer had named the asker as their own manager).
        return Route("my_data", "code", route.candidates, route.scores)
    if route.kind in ("policy", "policy_me", "policy_calc", "my_calc", "calculation", "company", "small_talk") \
            and "my_data" in allowed and record and asks_record_field(own, record):
        # "Which cost centre am I booked to?", "How much TOIL have I got banked?": a field of my record, named
        # (in any language: the field's role is read from its header words) and nothing else asked.
        return Route("my_data", "code", route.candidates, route.scores)
    if route.kind in ("my_calc", "calculation", "policy_calc") and "my_data" in allowed and record \
            and _asks_kept_pay(own, record):
        # "What is my monthly gross pay?" of someone paid by the month: the record's figure, nothing to work out
        # (the nearest labelled questions were of people paid by the year, and the model wrote 2850 x 12).
        return Route("my_data", "code", route.candidates, route.scores)
    if route.kind in ("my_data", "my_calc") and _POLICY_ACTION.search(text) and "policy_calc" in allowed:
        return Route("policy_calc", "code", route.candidates, route.scores)
    rate = _ASKS_RATE.search(text)
    per = (rate.group(1) or rate.group(2)).lower() if rate else _asks_rate_in_any_language(text)
    if route.kind in ("my_data", "policy", "policy_me", "calculation", "my_calc") and per and record is not None \
            and "policy_calc" in allowed:
        # A rate the record does not keep ("hourly" in no field of a salaried person's) is the policy's
        # definition applied to their pay (engine.agent.rules.rate), or else the model's reading of it.
        unit = {"hourly": "hour", "daily": "day", "weekly": "week"}.get(per, per)
        kept = re.compile(rf"\b(?:{per}|{unit}ly|per {unit}|{unit} rate|rate per {unit})\b", re.I)
        if not any(kept.search(label) for label in record):
            return Route("policy_calc", "code", route.candidates, route.scores)
    if route.kind == "calculation" and self_words().search(text) and _MY_PAY.search(text) \
            and not _MONEY_GIVEN.search(text) and "policy_calc" in allowed:
        # "What should I get paid for the 4 hours over 40?": my pay for hours is a rule applied to my rate, not
        # arithmetic on the question's figures alone (which give no money)
        return Route("policy_calc", "code", route.candidates, route.scores)
    if route.kind in ("policy", "policy_me") and _AMOUNT_FOR.search(text) and "policy_calc" in allowed:
        # "What meal allowance would I get for a 4-day trip?": a rate of the policy times the question's figure.
        return Route("policy_calc", "code", route.candidates, route.scores)
    if route.kind == "policy" and "policy_me" in allowed and record and (_ENTITLED.search(own) and self_words().search(own)
                                                                          or _MY_LENGTH.search(own)):
        # "¿Cuántos días de vacaciones me corresponden?": what the rules give me, by my service or my contract, is
        # the policy applied to me (a table by years of service picked its row from my record only there)
        return Route("policy_me", "code", route.candidates, route.scores)
    if route.kind == "my_data" and _ENTITLED.search(text) and not _HAVE_LEFT.search(text) \
            and "policy_me" in allowed and record is not None and not any(_is_entitlement(label) for label in record):
        # "How many hours of ROL am I entitled to each year?": what the rules give me, where the record keeps only
        # what is left ("ROL residui"), is the policy applied to me, not the balance.
        return Route("policy_me", "code", route.candidates, route.scores)
    if route.kind in ("policy", "policy_me", "policy_calc", "my_calc") and _HAVE_LEFT.search(text) \
            and not _POLICY_ACTION.search(text) and not _ENTITLEMENT.search(text) and not COMBINE.search(text) \
            and "my_data" in allowed and (record is None or caps.kept_in(text, record)):
        return Route("my_data", "code", route.candidates, route.scores)
    if route.kind == "company" and _HAVE_LEFT.search(text) and self_words().search(text) \
            and not people_words().search(text) and not team_words().search(text) and "my_data" in allowed \
            and (record is None or caps.kept_in(text, record)):
        # "Quantos dias de férias ainda tenho por gozar?": what I have left is my record, not everyone's.
        return Route("my_data", "code", route.candidates, route.scores)
    if route.kind in ("calculation", "my_calc") and "policy_me" in allowed and record is not None \
            and asks_probation_end(own):
        # "When does my 90-day introductory period end?": the handbook's length from my start date (code counts
        # the days), not arithmetic on the question's 90
        return Route("policy_me", "code", route.candidates, route.scores)
    if route.kind == "my_data" and "policy_me" in allowed and record and _RULE_ASKED.search(_REQUEST.sub(" ", own)) \
            and named_concepts(own) and not _HAVE_LEFT.search(own) and not _BALANCE_WORDS.search(own) \
            and not _ENTITLED.search(own) \
            and not asks_record_field(own, record) and not _asks_own_manager(own, record):
        # "Quantos dias por semana eu posso trabalhar de home office?": what a rule lets me do on a topic of the
        # handbook (remote work) is the policy applied to me, not a field of my record
        return Route("policy_me", "code", route.candidates, route.scores)
    if route.kind in ("policy", "policy_me", "policy_calc", "small_talk") and "company" in allowed and record \
            and _EVERYONE.search(text) and _LISTING.search(text) and any(_names_label(label, text) for label in record):
        # "List the Comp Rate for everyone in Sales": a field of the data over other people is a data question
        # (and the access layer's to answer or refuse), whatever a planted preamble made the vote say.
        return Route("company", "code", route.candidates, route.scores)
    return route


#: A request's "can you", "could you tell me": politeness, not what a rule allows.
_REQUEST = re.compile(r"\b(?:can|could|would|will)\s+(?:you|u)\b", re.I)
#: A balance named: what I have, not what a rule lets me do ("Can you tell me my sick leave balance?").
_BALANCE_WORDS = re.compile(r"\b(?:balance|saldo|solde|stand|remaining|left|restant\w*|rest\w*|resid\w*|übrig|noch|over)\b",
                            re.I)


#: A question over other people at large.
_EVERYONE = re.compile(r"\b(?:everyone|everybody|all (?:the )?(?:employees|staff|people|colleagues|workers)|"
                       r"each (?:employee|person|colleague)|every (?:employee|person|colleague))\b", re.I)


#: ... asked for as a list of figures.
_LISTING = re.compile(r"\b(?:list|show|give me|tell me|send me|export|print)\b", re.I)


def _names_label(label: str, text: str) -> bool:
    """Whether ``text`` names the record's field ``label`` whole ("Comp Rate (USD)" in "the Comp Rate for …")."""
    words = re.sub(r"\([^)]*\)", " ", label).split()
    phrase = r"\s+".join(re.escape(w) for w in words if w)
    return len(" ".join(words)) >= 4 and bool(phrase) and bool(re.search(rf"(?<!\w){phrase}(?!\w)", text, re.I))
