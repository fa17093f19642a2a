"""Replies to greetings, thanks and "what can you do?", written by code.

A small model asked to "reply in one or two friendly sentences" copies what is in front of it: a
tool card's worked example ("Alexander Verdad can bring his dog to the office [1]"), or the system
prompt's own line about what the assistant does ("You can help with what the policies say…"), or
says only "I can help with HR questions." What a friendly reply needs is known to code: which
courtesies the message makes, and what this installation can do for this person (its tools, their
role). So code writes it; a message with none of these (off-topic chat) is left to the model.
"""

from __future__ import annotations

import re

_GREETING = re.compile(r"\b(hi|hello|hey|hiya|howdy|greetings|good\s+(morning|afternoon|evening|day))\b", re.I)
_HOW_ARE_YOU = re.compile(r"\bhow\s+(are\s+you|are\s+things|is\s+it\s+going|'?s\s+it\s+going)\b|\bhow\s+r\s+u\b", re.I)
_THANKS = re.compile(r"\b(thanks?|thank\s+you|thx|ty|cheers|much\s+appreciated|appreciate\s+(it|that|the|your))\b", re.I)
_BYE = re.compile(r"\b(bye|goodbye|see\s+you|that'?s\s+(all|it)|that\s+is\s+all|have\s+a\s+(good|nice|great)|"
                  r"nothing\s+else)\b", re.I)
_CAPABILITIES = re.compile(r"\bwhat\s+(can|could|do|else\s+can)\s+(you|i)\s+(do|help|ask|answer)|\bwho\s+are\s+you\b|"
                           r"\bwhat\s+are\s+you\b|\bhow\s+(can|could|do)\s+you\s+help\b|\bhelp\s+me\s+with\s+what\b|"
                           r"\bwhat\s+(kind|sort)s?\s+of\s+(questions|things)\b|\bwhat\s+do\s+you\s+know\b", re.I)


def capabilities(tools: set[str], role: str, in_data: bool, procedures: bool) -> list[str]:
    """What this installation can do for this person, as short phrases, in the order people need them."""
    out = []
    if "policy_search" in tools:
        out.append("what the company's policies say (leave, pay, benefits, working time, remote work)")
    if "employee_data" in tools and in_data:
        out.append("your own record (leave balances, pay, dates, manager)")
    if "employee_data" in tools and role == "manager":
        out.append("your team")
    if "employee_data" in tools and role == "hr":
        out.append("company figures across the employee data")
    if "calculator" in tools and out:
        out.append("working out amounts from those, such as a payout for leave days")
    if "leave_request" in tools and in_data:
        out.append("preparing a leave request for you to approve")
    if procedures:
        out.append("step-by-step procedures")
    return out


def _listed(items: list[str]) -> str:
    return items[0] if len(items) == 1 else "; ".join(items[:-1]) + "; and " + items[-1]


def reply(message: str, name: str, offers: list[str], *, part_of_more: bool = False) -> str | None:
    """The reply to a message of courtesies, or None when it makes none (the model replies then).

    ``offers``: :func:`capabilities`. ``part_of_more``: the message is one part of a question with
    others, which are answered after it, so only the courtesy is returned."""
    first = name.split()[0] if name and name.strip() else ""
    greeting = _GREETING.search(message)
    asked = _CAPABILITIES.search(message)
    how = _HOW_ARE_YOU.search(message)
    thanks = _THANKS.search(message)
    bye = _BYE.search(message)
    if not (greeting or asked or how or thanks or bye):
        return None
    sentences = []
    if greeting:
        word = greeting.group(0)
        opening = word[0].upper() + " ".join(word[1:].split()) if word.lower().startswith("good") else "Hello"
        sentences.append(f"{opening}{', ' + first if first else ''}!")
    if how:
        sentences.append("I'm doing well, thank you.")
    if thanks:
        sentences.append("You're welcome" + ("" if greeting or not first else f", {first}") + "!")
    if part_of_more:
        return " ".join(sentences) or None
    if asked or (greeting and not (thanks or bye)):
        if offers:
            sentences.append(f"I can help you with {_listed(offers)}.")
            sentences.append("What would you like to know?")
        else:
            sentences.append("I answer questions about HR, but nothing is loaded for me to answer from yet: "
                             "ask your HR team or IT to set up the policies and the employee data.")
    elif bye:
        sentences.append("Glad I could help. Ask me anytime.")
    elif thanks:
        sentences.append("Is there anything else I can help you with?")
    return " ".join(sentences)
