"""Extra hours that are not paid for the person's group ("Exempt associates are not eligible for overtime pay",
"The management grade isn't paid for additional hours", the grade being "anyone whose job title includes
the word 'Manager', 'Head' or 'Director'").

Asked, yes or no, whether they get paid for extra hours, where an offered sentence says a group is not, and
code knows the person is in it (the record says exempt; their job title has one of the words the passage
lists for the group), or says only the non-exempt are and the record says exempt: no, by code. Unsure (a
group code cannot place them in) leaves it to the model.
"""

from __future__ import annotations

import re

from engine.agent.rules.base import Reader, Settled, View
from engine.agent.rules.prohibition import said_no

#: The words a passage lists for a group by job title ("job title includes the word 'Manager', 'Head' or 'Director'").
_TITLE_WORDS = re.compile(r"job titles?\b[^.]{0,60}?\b(?:includ\w*|contain\w*|with)\b(?P<words>[^.]{0,80})", re.I)
#: Overtime granted to the non-exempt only.
_NON_EXEMPT_ONLY = re.compile(r"^\W*non-?exempt\b[^.]{0,40}?\b(?:get|receive|earn|are paid|are eligible for|qualify for)\s+"
                              r"overtime\b", re.I)
_QUOTED = re.compile(r"[\"'“‘]([A-Z][\w-]+)[\"'”’]")


class OvertimeExemption(Reader):
    name = "exempt"
    order = 55
    kinds = ("policy", "policy_me")

    def read(self, view: View) -> Settled | None:
        q, w = view.words, view.rule_words
        if not q.has("asks.yes_no", view.text) or not q.has("asks.extra_paid", view.text):
            return None
        found = []
        for u in view.everything():  # (a group's exclusion is specific enough to read wherever it stands)
            if view.exempt and _NON_EXEMPT_ONLY.search(u.text):
                found.append(u)  # ("Non-exempt associates get overtime at 1.5×…", to someone exempt)
                continue
            if not w.has("rule.unpaid_extra", u.text):
                continue
            if w.has("rule.exempt", u.text) and view.exempt:
                found.append(u)
                continue
            passage = " ".join(x.text for x in view.everything() if x.passage == u.passage)
            listed = {x.group(1).lower().rstrip("s") for m in _TITLE_WORDS.finditer(passage)
                      for x in _QUOTED.finditer(m.group("words"))}
            if listed & view.job_words:
                found.append(u)
        return said_no(self.name, view, found, "the person's group is not paid for extra hours")
