"""A scripted model: returns queued outputs and records every prompt.

It tests the agent loop deterministically (next to the real llama.cpp backend,
never instead of it), drives the evaluation harness in CI and lets the desktop
app be exercised without a model. It implements the same interface as the real
backend, streams word-sized pieces, honours cancellation and does the same
prefix accounting (a "token" here is a word, a space or a punctuation mark).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections import deque
from typing import Callable, Generator, Iterable, Sequence

from engine.model.chat_template import ChatTemplate
from engine.model.backend import Generation, GenerationStats, StreamingBackend

_PIECES = re.compile(r"\w+|\s|[^\w\s]")
Script = str | Callable[[str], str]


def pseudo_tokens(text: str) -> list[str]:
    return _PIECES.findall(text)


class ScriptedBackend(StreamingBackend):
    """Queued outputs in, the same :class:`Generation` objects out."""

    name = "scripted"

    def __init__(self, outputs: Iterable[Script] = (), *, n_ctx: int = 8192, token_delay: float = 0.0) -> None:
        self.outputs: deque[Script] = deque(outputs)
        self.n_ctx = n_ctx
        self.token_delay = token_delay
        self.prompts: list[str] = []
        self.grammars: list[str | None] = []
        self._template = ChatTemplate(None, origin="scripted model")
        self._cached_text = ""
        self._cached_tokens = 0

    def queue(self, *outputs: Script) -> None:
        self.outputs.extend(outputs)

    def chat_prompt(self, messages: list[dict[str, str]], tools: list[dict] | None = None) -> str:
        return self._template.render(messages, add_generation_prompt=True, tools=tools)

    def count_tokens(self, text: str) -> int:
        return len(pseudo_tokens(text))

    def stream(
        self,
        prompt: str,
        grammar: str | None = None,
        stop: Sequence[str] = (),
        *,
        max_tokens: int = 512,
        cancel: threading.Event | None = None,
    ) -> Generator[str, None, Generation]:
        if max_tokens <= 0:  # only fills the cache (a warm-up): no scripted output is used
            self._cached_text, self._cached_tokens = prompt, self.count_tokens(prompt)
            return Generation(text="", stop_reason="length", stats=GenerationStats(prompt_tokens=self._cached_tokens))
        self.prompts.append(prompt)
        self.grammars.append(grammar)
        if not self.outputs:
            raise RuntimeError("The scripted backend has no output left for this prompt.")
        script = self.outputs.popleft()
        output = script(prompt) if callable(script) else script
        stats = GenerationStats(prompt_tokens=self.count_tokens(prompt))
        if self._cached_text:  # like the real backend's KV cache: the common prefix is reused
            common = os.path.commonprefix([self._cached_text, prompt])
            stats.prompt_reused = self._cached_tokens if common == self._cached_text else self.count_tokens(common)
        stats.prompt_evaluated = stats.prompt_tokens - stats.prompt_reused
        t0 = time.perf_counter()
        text, reason = "", "end"
        for i, piece in enumerate(pseudo_tokens(output)):
            if cancel is not None and cancel.is_set():
                reason = "cancelled"
                break
            if i >= max_tokens:
                reason = "length"
                break
            if stop and any(s in text + piece for s in stop):
                reason = "stop"
                break
            if self.token_delay:
                time.sleep(self.token_delay)
            text += piece
            stats.completion_tokens += 1
            yield piece
        stats.generation_seconds = time.perf_counter() - t0
        self._cached_text = prompt + text
        self._cached_tokens = self.count_tokens(self._cached_text)
        return Generation(text=text, stop_reason=reason, stats=stats)
