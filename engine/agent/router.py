"""Which kind a question is, so a fixed pipeline can answer it.

Code narrows the choice, the model makes it. The question's nearest labelled examples (by
embedding, from ``data/routes.jsonl``: the development split and questions written for the
router, never the test split) vote for kinds; kinds the person cannot use are struck out (a team
needs direct reports, a leave request needs the leave tool, anything about data needs a row in
it). When the vote is clear the router decides with no model call; otherwise the model picks
among the few kinds left, under a grammar that offers only those, with the neighbours shown as
examples. Each kind has its pipeline (:mod:`engine.agent.routed`).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

#: The kinds, with the words the model reads for each (its grammar offers exactly these).
KINDS: dict[str, str] = {
    "small_talk": "small talk, or nothing about HR",
    "policy": "what a company policy says",
    "policy_me": "a policy applied to me",
    "policy_calc": "a policy applied to my figures, with a calculation",
    "my_data": "a fact in my own record (my pay, leave balance, dates, manager)",
    "my_calc": "a calculation on my own figures",
    "my_team": "my direct reports",
    "company": "other employees or company-wide figures",
    "calculation": "arithmetic on the numbers I give",
    "leave_request": "booking leave for me",
    "other": "something else",
}
BANK = Path(__file__).with_name("data") / "routes.jsonl"
NEIGHBOURS = 8
SHOWN = 4  # neighbours shown to the model as examples
#: The vote is clear: the best kind has this share of the neighbours' weight and a close neighbour.
CLEAR_SHARE = 0.75
CLEAR_SIMILARITY = 0.72
MAX_CANDIDATES = 3
TEMPERATURE = 0.05  # similarity points per factor e of weight between neighbours
_WORD = re.compile(r"[A-Za-z']+")


@dataclass
class Example:
    question: str
    kind: str


@dataclass
class RouteVote:
    """What the neighbours say: each kind's weight, the neighbours, and the kinds left to choose from."""

    scores: dict[str, float]
    neighbours: list[tuple[Example, float]]
    candidates: list[str]
    decided: str = ""  # set when code decides without the model

    def heaviest(self, text: str) -> str:
        """The kind this vote settles ``text`` on with no model call: its heaviest candidate, but arithmetic on
        the numbers I give only where a number is given ("How many would lapse?" is no sum). On the splits the
        model's pick was more often the better pipeline, though as often the labelled kind (stop 56)."""
        from engine.agent.rules.words import written_figures

        return next((k for k in self.candidates if k != "calculation" or re.search(r"\d", text)
                     or written_figures(text)), self.candidates[0])

    def examples_text(self) -> str:
        lines = [f'- "{e.question}": {KINDS[e.kind]}' for e, _ in self.neighbours[:SHOWN]]
        return "\n".join(lines)


@dataclass
class Route:
    """The router's decision for one question (or one part of it)."""

    kind: str
    by: str  # "code" (a clear vote or the only kind left), "vote" (an unclear vote's heaviest kind) or "model"
    candidates: list[str] = field(default_factory=list)
    scores: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict:
        return {"kind": self.kind, "by": self.by, "candidates": self.candidates,
                "scores": {k: round(v, 3) for k, v in self.scores.items()}}


def read_bank(path: Path) -> str:
    """A bank file's text; a missing or unreadable one is a broken installation, said as such."""
    from engine.errors import SetupError

    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SetupError(f"The assistant's file {path.name} is missing or unreadable ({exc.__class__.__name__}).",
                         hint="The installation is incomplete: reinstall the app (pip install, the bundle or "
                              "the wheelhouse).") from None


def load_bank(path: Path = BANK) -> list[Example]:
    """The labelled questions: ``routes.jsonl`` and, beside the default bank, every language's own
    ``routes.<language>.jsonl`` (a question in German finds its neighbours among German ones)."""
    out = []
    paths = [path, *sorted(path.parent.glob(f"{path.stem}.*{path.suffix}"))] if path == BANK else [path]
    for p in paths:
        for line in read_bank(p).splitlines():
            if line.strip() and not line.lstrip().startswith("#"):
                raw = json.loads(line)
                if raw["kind"] in KINDS:
                    out.append(Example(raw["q"], raw["kind"]))
    return out


class Router:
    """Routes questions by their nearest labelled examples; the model settles what is unclear."""

    def __init__(self, embedder, bank: list[Example] | None = None) -> None:
        self.embedder = embedder
        self.bank = bank if bank is not None else load_bank()
        self._vectors = None

    def _matrix(self):
        if self._vectors is None:
            self._vectors = self.embedder.encode([e.question for e in self.bank])
        return self._vectors

    def vote(self, question: str, allowed: list[str]) -> RouteVote:
        """The neighbours' vote over the ``allowed`` kinds."""
        import numpy as np

        allowed = [k for k in KINDS if k in allowed]
        vec = self.embedder.encode([question])[0]
        sims = self._matrix() @ vec
        order = np.argsort(-sims)
        neighbours: list[tuple[Example, float]] = []
        for i in order:
            example = self.bank[int(i)]
            if example.kind in allowed:
                neighbours.append((example, float(sims[i])))
            if len(neighbours) >= NEIGHBOURS:
                break
        scores: dict[str, float] = {}
        top = neighbours[0][1] if neighbours else 0.0
        for example, sim in neighbours:
            # A neighbour much closer than the rest outweighs them (an example asked almost word for word).
            scores[example.kind] = scores.get(example.kind, 0.0) + math.exp((sim - top) / TEMPERATURE)
        ranked = sorted(scores, key=lambda k: -scores[k])
        total = sum(scores.values()) or 1.0
        best = ranked[0] if ranked else (allowed[0] if allowed else "other")
        candidates = [k for k in ranked if scores[k] >= 0.2 * scores[best]][:MAX_CANDIDATES] or [best]
        vote = RouteVote(scores, neighbours, candidates)
        top_sim = max((s for e, s in neighbours if e.kind == best), default=0.0)
        if len(candidates) == 1 or (scores.get(best, 0) / total >= CLEAR_SHARE and top_sim >= CLEAR_SIMILARITY):
            vote.decided = best
        return vote

    @staticmethod
    def choices(candidates: list[str]) -> dict[str, str]:
        """Each candidate kind's words up to the first word that no other candidate has at that place ("what",
        "a policy applied to me", "a policy applied to my"). Under a grammar the model's choice is made at that
        word, and the forced words after it cost a decode each (and a long kind's words ran past the tokens
        allowed, which read as no choice)."""
        out = {}
        for kind in candidates:
            words = KINDS[kind].split(" ")
            others = [KINDS[o].split(" ") for o in candidates if o != kind]
            n = 1
            while n < len(words) and any(o[:n] == words[:n] for o in others):
                n += 1
            out[kind] = " ".join(words[:n])
        return out

    @classmethod
    def grammar(cls, candidates: list[str]) -> str:
        """GBNF of the model's choice: one of the candidate kinds (its first words, :meth:`choices`), then a
        line end."""
        options = " | ".join(f'"{words}"' for words in cls.choices(candidates).values())
        return f'root ::= ({options}) "\\n"\n'

    @classmethod
    def parse(cls, text: str, candidates: list[str]) -> str:
        words = text.strip()
        for kind, first in cls.choices(candidates).items():
            if words in (first, KINDS[kind]):
                return kind
        return candidates[0]
