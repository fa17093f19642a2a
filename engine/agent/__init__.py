"""The agent: the ReAct loop (:mod:`.loop`), its typed steps, turn formats, plan mode, the output
parser and the grounding checks. ``from engine.agent import Agent`` is the loop's agent."""

from .loop import Agent, MODES  # noqa: F401
