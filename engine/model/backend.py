"""The one narrow interface between the agent and a language model.

A backend turns a prompt into text: ``generate(prompt, grammar, stop, on_token)``.
The real backend (:mod:`engine.model.llama`, the only module that imports
``llama_cpp``) and the scripted backend (:mod:`engine.model.scripted`) both
implement it, so the agent loop, the CLI, the evaluation harness and the desktop
app never care which one runs.
"""

from __future__ import annotations

import threading
from dataclasses import asdict, dataclass, field
from typing import Callable, Generator, Iterator, Protocol, Sequence, runtime_checkable

TokenCallback = Callable[[str], None]


@dataclass
class GenerationStats:
    """Token accounting of one model call."""

    prompt_tokens: int = 0  # length of the whole prompt
    prompt_evaluated: int = 0  # prompt tokens the model actually computed
    prompt_reused: int = 0  # prompt tokens served from the KV cache
    completion_tokens: int = 0
    prompt_seconds: float = 0.0
    generation_seconds: float = 0.0
    grammar_seconds: float = 0.0  # part of generation spent enforcing the grammar
    draft_tokens: int = 0  # tokens proposed by prompt-lookup drafting
    draft_accepted: int = 0  # of them, kept (each saved a forward pass)

    def add(self, other: "GenerationStats") -> None:
        for name, value in asdict(other).items():
            setattr(self, name, getattr(self, name) + value)

    def to_dict(self) -> dict:
        return asdict(self)


@dataclass
class Generation:
    """The result of one model call."""

    text: str
    stop_reason: str  # "end" (grammar complete / end token), "stop" (stop string), "length", "cancelled"
    stats: GenerationStats = field(default_factory=GenerationStats)


@runtime_checkable
class ModelBackend(Protocol):
    """What the agent needs from a model."""

    name: str
    n_ctx: int

    def generate(
        self,
        prompt: str,
        grammar: str | None = None,
        stop: Sequence[str] = (),
        on_token: TokenCallback | None = None,
        *,
        max_tokens: int = 512,
        cancel: threading.Event | None = None,
    ) -> Generation:
        """Continue ``prompt``; constrain the output by the GBNF ``grammar`` if given.

        ``on_token`` receives each piece of text as it is produced. Setting
        ``cancel`` from another thread stops generation before the next token
        (``stop_reason == "cancelled"``).
        """
        ...

    # Backends may also offer ``stream(prompt, grammar, stop, *, max_tokens, cancel)``: the same
    # call as an iterator of text pieces that returns the Generation, so a caller can stream in
    # its own thread. ``generate`` is then ``drain(stream(...), on_token)``.

    def count_tokens(self, text: str) -> int:
        """Number of tokens of ``text`` (for the context budget)."""
        ...

    def chat_prompt(self, messages: list[dict[str, str]], tools: list[dict] | None = None) -> str:
        """Render messages with the model's own chat template, ready for the assistant's turn
        (``tools``: JSON schemas, for a template that writes native tool definitions)."""
        ...


def drain(pieces: Iterator[str], on_token: TokenCallback | None) -> Generation:
    """Run a ``stream()`` to its end, passing each piece to ``on_token``; return its Generation."""
    while True:
        try:
            piece = next(pieces)
        except StopIteration as done:
            return done.value
        if on_token is not None:
            on_token(piece)


class StreamingBackend:
    """Base for backends that implement ``stream()``: ``generate()`` is the same call, drained."""

    def generate(
        self,
        prompt: str,
        grammar: str | None = None,
        stop: Sequence[str] = (),
        on_token: TokenCallback | None = None,
        *,
        max_tokens: int = 512,
        cancel: threading.Event | None = None,
    ) -> Generation:
        return drain(self.stream(prompt, grammar, stop, max_tokens=max_tokens, cancel=cancel), on_token)

    def stream(self, prompt: str, grammar: str | None = None, stop: Sequence[str] = (), *, max_tokens: int = 512,
               cancel: threading.Event | None = None) -> Generator[str, None, Generation]:  # pragma: no cover - abstract
        raise NotImplementedError
