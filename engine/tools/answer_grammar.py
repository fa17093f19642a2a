"""The grammar of a final answer: free text whose digits, when the sources are given, can only
spell a number that a source holds (see :func:`engine.agent.grounding.number_forms`)."""

from __future__ import annotations

MAX_FORMS = 4000  # a bound on the grammar's size; sources beyond it fall back to the check alone


def _gbnf_char(c: str) -> str:
    return '"' + c.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _trie_rule(forms: list[str]) -> str:
    """A GBNF expression matching exactly ``forms``, shaped as a trie (few parallel stacks)."""
    children: dict[str, list[str]] = {}
    ends = False
    for f in forms:
        if not f:
            ends = True
        else:
            children.setdefault(f[0], []).append(f[1:])
    alts = []
    for c in sorted(children):
        rest = children[c]
        sub = _trie_rule(rest)
        alts.append(_gbnf_char(c) + (" " + sub if sub else ""))
    if not alts:
        return ""
    body = alts[0] if len(alts) == 1 else "(" + " | ".join(alts) + ")"
    return f"({body})?" if ends else body


#: Arabic-Indic, Persian and NKo digits (GBNF ranges): the model must not write a figure as "۷۲" that the
#: sourced-number rule, written for 0-9, would let through. Only two-byte characters: llama.cpp refuses a
#: token that ends inside a UTF-8 character whose possible code points touch an excluded one, and the lead
#: byte of a three-byte digit (full-width ７, Devanagari ७) is shared with "€", "–" and every CJK comma.
#: Those are left to the grounding check, which reads digits of every script.
OTHER_DIGITS = "\\u0660-\\u0669\\u06f0-\\u06f9\\u07c0-\\u07c9"


def grounded_answer_rules(forms: set[str] | None, *, line_chars: int, max_lines: int, text_char: str,
                          first_exclude: str = "", citations: int = 9) -> list[str]:
    """GBNF rules ``answer ::= …``; with ``forms``, its digits can only spell a number of ``forms``.

    Text is any character but digits; a number is one of ``forms`` and cannot be glued to
    another (after it comes a non-digit, and a ``.``/``,`` after it is not followed by a digit),
    so ``7`` and ``5`` never make an unsourced ``7.5``. Citation markers ``[1]``..``[9]`` and list
    markers ``1.``..``9.`` at the start of a line are allowed as they are not claims.
    ``forms=None`` leaves numbers free. ``first_exclude``: characters the answer cannot start with.
    ``citations``: how many passages ``[1]``..``[n]`` can be cited (0: none).
    """
    lead = text_char[:-1] + "\\x20" + first_exclude + "]"  # no leading space either
    if forms is None:
        return [f'answer ::= {lead} {text_char}{{0,{line_chars - 1}}} ("\\n" aline?){{0,{max_lines - 1}}}',
                f"aline ::= {text_char}{{1,{line_chars}}}"]
    nondigit = text_char[:-1] + "0-9" + OTHER_DIGITS + "]"
    sep = text_char[:-1] + "0-9.,"  + OTHER_DIGITS + "]"
    num = _trie_rule(sorted(forms)[:MAX_FORMS]) if forms else ""
    cite = f' | "[" [1-{citations}] "]"' if citations > 0 else ""
    item = nondigit + cite + (" | num nsep" if num else "")
    first = f"{lead[:-1]}0-9{OTHER_DIGITS}]" + cite + (" | num nsep" if num else "")
    rules = [
        f'answer ::= ([1-9] ". ")? afirst aitem{{0,{line_chars - 1}}}' + (" num?" if num else "")
        + f' ("\\n" aline?){{0,{max_lines - 1}}}',
        f'aline ::= ([1-9] ". ")? aitem{{1,{line_chars}}}' + (" num?" if num else ""),
        f"afirst ::= {first}",
        f"aitem ::= {item}",
    ]
    if num:
        rules += [f"num ::= {num}", f'nsep ::= {sep} | [.,] {nondigit}']
    return rules
