"""The text of an answer: the figures a model may write, and the grammar it writes them under."""

from __future__ import annotations

import re

from engine.agent.grounding import number_spans

ANSWER_LINE_CHARS = 400


_OUTLINE_NUMBER = re.compile(r"^\s*(?:\d{1,2}(?:\.\d{1,2})+|\d{1,2}[.)])\s+(?=[A-Z])")


def figure_text(text: str) -> str:
    """A policy sentence as a source of figures: without the outline number it starts with ("1.4 Payment
    in lieu: …"), which is a section's number, not a figure (a payout came out as 1.4 * rate * days)."""
    return _OUTLINE_NUMBER.sub("", text, count=1)


def _without_figures(text: str, figures: set[str]) -> str:
    """``text`` with the numbers among ``figures`` (normalised) blanked out, so no grammar offers them."""
    for start, end, number in reversed(number_spans(text) if figures else []):
        if number in figures:
            text = text[:start] + " " + text[end:]
    return text


#: A whole number written with ".00" where it is no amount of money ("paid at 2.00 times the hourly rate").
_PADDED_WHOLE = re.compile(r"(?<![$€£₱\d,.])(\d+)\.00\b(?!\s*(?:USD|EUR|GBP|PHP|CAD|AUD|dollars?|euros?|pounds?)\b)")


def _plain_wholes(text: str) -> str:
    """The answer with a multiplier or count written as the policy wrote it: the grammar admits "2.00" for
    a source's 2 so that money can be written as money, and a model writes it for a rate too."""
    return _PADDED_WHOLE.sub(r"\1", text)


def _unrepeated(text: str) -> str:
    """The answer without lines it already wrote (a small model can loop on a line)."""
    seen: set[str] = set()
    out = []
    for line in text.splitlines():
        key = " ".join(line.split()).casefold()
        if key and key in seen:
            continue
        seen.add(key)
        sentences = re.split(r"(?<=[.!?])\s+", line.strip())
        said: set[str] = set()
        kept = []
        for sentence in sentences:  # a sentence said again (a model going round in circles) is dropped
            k = " ".join(sentence.split()).casefold()
            if k not in said:
                said.add(k)
                kept.append(sentence)
        out.append(" ".join(kept))
    return "\n".join(out).strip()


def _gbnf_string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _answer_grammar(forms: set[str], citations: int, lines: int) -> str:
    """The answer's grammar: numbers only from the sources; ``[`` only in a citation of a passage shown."""
    from engine.tools.answer_grammar import grounded_answer_rules

    text_char = "[^\\x00-\\x1f\\x7f\\[]"
    rules = grounded_answer_rules(forms, line_chars=ANSWER_LINE_CHARS, max_lines=lines, text_char=text_char,
                                  citations=min(citations, 9))
    # An answer opens with words, not with a citation (a small model copies the sources' "[1] …" layout).
    rules = [re.sub(r' \| "\[" \[1-\d\] "\]"', "", r) if r.startswith("afirst ::=") else r for r in rules]
    return "root ::= answer\n" + "\n".join(rules) + "\n"
