"""Code's word on a route where the question names a group the data holds by one of its values: "Who is on
parental leave?" (a status), "What is the average monthly pay in Produktion?" (a department). Such a question
is about those people's data, whatever the nearest labelled questions were (the policy, or the asker's own
figures)."""

from __future__ import annotations

from typing import Callable

from engine.agent.router import Route
from engine.agent.sentences import asked_aggregate, people_words, team_words
from engine.agent.slots import mentioned

#: (the kinds a rule overrides, whether the question asks about a group, the roles whose values name the
#: group, why: the check's words)
_RULES: tuple[tuple[tuple[str, ...], Callable[[str], bool], tuple[str, ...], Callable[[str, str], str]], ...] = (
    # "Wie viele Mitarbeiter arbeiten in Teilzeit?": which people (or how many) have a status, contract or site
    (("policy", "policy_me"), lambda text: bool(people_words().search(text)), ("status", "employment_type", "site"),
     lambda text, value: f"asks which people are {value!r} (a value of the data)"),
    # an average over a department: not a calculation on the asker's own pay (3450 x 12 had been the answer)
    (("my_calc", "my_data", "calculation", "policy_calc"),
     lambda text: asked_aggregate(text) in ("average", "median"), ("department", "site"),
     lambda text, value: f"an {asked_aggregate(text)} over {value!r} (a group of the data)"),
)


def named_values(table, roles: tuple[str, ...], text: str) -> list[str]:
    """The values of the columns of ``roles`` that ``text`` mentions (see :func:`engine.agent.slots.mentioned`)."""
    columns = [c for role in roles for c in table.roles.get(role) or ()]
    return [v for c in columns for v in dict.fromkeys(table.df[c])
            if isinstance(v, str) and len(v) > 2 and mentioned(v, text)]


def group_route(route: Route, text: str, allowed: list[str], table) -> tuple[Route, str]:
    """The route, and the check that changed it ("" where none did): my team's data where the question says
    my team, else the company's (the access layer decides what the asker may read)."""
    for kinds, asks, roles, why in _RULES:
        if route.kind not in kinds or not asks(text):
            continue
        named = named_values(table, roles, text)
        kind = "my_team" if "my_team" in allowed and team_words().search(text) else "company"
        if named and kind in allowed:
            return Route(kind, "code", route.candidates, route.scores), f"route: {why(text, named[0])}: {kind}"
    return route, ""
