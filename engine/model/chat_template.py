"""Render a conversation with the chat template stored in the GGUF file.

Templates are Jinja2 (the Hugging Face convention) and run in Jinja's immutable
sandbox: a model file is data from outside, and its template must not be able
to touch anything. Models without a template get ChatML, which most
instruction-tuned GGUF models of the last years understand.
"""

from __future__ import annotations

import datetime as _dt
from functools import lru_cache

from engine.errors import ModelFileError

CHATML_TEMPLATE = (
    "{% for message in messages %}"
    "{{ '<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n' }}"
    "{% endfor %}"
    "{% if add_generation_prompt %}{{ '<|im_start|>assistant\\n' }}{% endif %}"
)


class _TemplateRaised(Exception):
    pass


def _raise(message: str) -> None:
    raise _TemplateRaised(message)


@lru_cache(maxsize=8)
def _compile(source: str):
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = _raise
    env.globals["strftime_now"] = lambda fmt: _dt.datetime.now().strftime(fmt)
    return env.from_string(source)


class ChatTemplate:
    """A compiled chat template plus the special tokens it refers to."""

    def __init__(self, source: str | None, bos_token: str = "", eos_token: str = "", origin: str = "model") -> None:
        self.source = source or CHATML_TEMPLATE
        self.bos_token = bos_token
        self.eos_token = eos_token
        self.origin = origin
        try:
            self._template = _compile(self.source)
        except Exception as exc:
            raise ModelFileError(
                f"The chat template in the {origin} file cannot be read: {exc}.",
                hint="Use another GGUF file of this model; the file's metadata is damaged.",
            ) from exc

    @property
    def renders_tools(self) -> bool:
        """Does the template write tool definitions and tool results (the model knows native calls)?"""
        return all(word in self.source for word in ("tools", "tool_call", "tool_response"))

    def render(self, messages: list[dict[str, str]], add_generation_prompt: bool = True,
               tools: list[dict] | None = None) -> str:
        """Render ``messages``; merge the system message into the first user turn if the template rejects it."""
        try:
            return self._render(messages, add_generation_prompt, tools)
        except _TemplateRaised:
            if not messages or messages[0]["role"] != "system":
                raise
        system, rest = messages[0], list(messages[1:])
        if rest and rest[0]["role"] == "user":
            rest[0] = {"role": "user", "content": system["content"] + "\n\n" + rest[0]["content"]}
        else:
            rest.insert(0, {"role": "user", "content": system["content"]})
        return self._render(rest, add_generation_prompt, tools)

    def _render(self, messages: list[dict[str, str]], add_generation_prompt: bool, tools=None) -> str:
        text = self._template.render(
            messages=messages,
            add_generation_prompt=add_generation_prompt,
            bos_token=self.bos_token,
            eos_token=self.eos_token,
            tools=tools or None,
        )
        # llama.cpp adds BOS itself when the model asks for it; a template that
        # writes it too would give the model two.
        if self.bos_token and text.startswith(self.bos_token):
            text = text[len(self.bos_token):]
        return text
