"""A chat model on a site's inference server, behind the same narrow interface.

The only module that speaks HTTP (httpx), and only ever to the configured URL. It sends
the prompt the agent already rendered with the model's chat template to the server's
OpenAI-compatible *completions* endpoint, so the server's prefix cache reuses the shared
system prompt as the local backend's KV cache does, and it sends the turn's GBNF grammar
with every request in the form the server understands:

* llama.cpp's ``llama-server`` and ``python -m llama_cpp.server``: a ``grammar`` field;
* vLLM: structured outputs with a grammar (``structured_outputs.grammar``; older vLLM
  ``guided_grammar``), run by xgrammar.

Which server it is comes from its ``/props`` (llama-server) or ``/v1/models`` answer, or
the ``model_server`` setting. Tokens stream as server-sent events; a cancel closes the
stream (the server stops generating when the client goes away).
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import threading
import time
import uuid
from typing import Any, Generator, Sequence

from engine.model.chat_template import ChatTemplate
from engine.errors import SetupError
from engine.model.backend import Generation, GenerationStats, StreamingBackend
from engine.settings import Settings

log = logging.getLogger(__name__)

API_KEY_ENV = "HR_ASSISTANT_MODEL_API_KEY"


class ServerError(SetupError):
    """The inference server cannot be reached or answered with an error."""


def api_key(url: str) -> str | None:
    """The server's API key: the environment, else the OS keyring (never a settings file)."""
    if os.environ.get(API_KEY_ENV):
        return os.environ[API_KEY_ENV]
    try:
        import keyring

        return keyring.get_password("hr-assistant", url)
    except Exception:  # no keyring package or backend: no key
        return None


#: The header that names a request's conversation (see :meth:`RemoteBackend.set_conversation`).
CONVERSATION_HEADER = "X-HR-Conversation"


class RemoteBackend(StreamingBackend):
    """An OpenAI-compatible inference server (llama.cpp's server, llama-cpp-python's, or vLLM)."""

    RETRIES = 3  # connection attempts before a request is given up (back-off 0.5 s, 1 s, 2 s)

    def __init__(self, url: str, settings: Settings | None = None, *, kind: str = "", transport=None) -> None:
        import httpx

        self.settings = settings or Settings()
        self.url = url.strip().rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise ServerError(f"The model server address {url!r} is not an http:// or https:// URL.",
                              hint="Set model_url like http://gpu-host:8080.")
        if self.url.endswith("/v1"):  # the form OpenAI clients take; the endpoints below carry /v1 themselves
            self.url = self.url[:-3]
        headers = {}
        key = api_key(self.url) or api_key(url.strip().rstrip("/"))
        if key:
            headers["Authorization"] = f"Bearer {key}"
        timeout = httpx.Timeout(connect=5.0, read=float(self.settings.server_timeout), write=30.0, pool=5.0)
        self._client = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport,
                                    trust_env=False)  # no proxy variables: only the configured URL
        self._lock = threading.Lock()
        # Which conversation a request belongs to, for a balancer in front of several hosts to keep each
        # conversation on one host (its slot cache); random per workstation, so it says nothing about anyone.
        self._workstation = uuid.uuid4().hex
        self.conversation = self._workstation[:16]
        self.kind = kind or self.settings.model_server
        self.model_id, self.n_ctx, template = self._describe()
        self.template = ChatTemplate(template, origin="server" if template else "ChatML default")
        self.name = f"{self.model_id} on {self.url}"

    def set_conversation(self, key: str) -> None:
        """Requests from now on belong to conversation ``key`` (sent as the ``X-HR-Conversation`` header,
        hashed with this workstation's random id, so a balancer can be sticky without learning anything)."""
        self.conversation = hashlib.sha256(f"{self._workstation}:{key}".encode()).hexdigest()[:16]

    # -- what the server is ---------------------------------------------------------------------------
    def _get(self, path: str) -> dict | None:
        r = self._request("GET", path)
        if r.status_code >= 400:
            return None
        try:
            data = r.json()
        except ValueError:
            return None
        return data if isinstance(data, dict) else None

    def _describe(self) -> tuple[str, int, str | None]:
        props = self._get("/props") if self.kind in ("auto", "llama.cpp") else None
        models = self._get("/v1/models") or {}
        first = (models.get("data") or [{}])[0] if isinstance(models.get("data"), list) else {}
        if self.kind == "auto":
            if props and "default_generation_settings" in props:
                self.kind = "llama.cpp"
            elif first.get("owned_by") == "vllm" or "max_model_len" in first:
                self.kind = "vllm"
            elif models:
                self.kind = "llama-cpp-python"
            else:
                raise ServerError(f"{self.url} does not answer like an OpenAI-compatible model server "
                                  "(no /v1/models).", hint="Check model_url: the server's address and port.")
        self.slots = int((props or {}).get("total_slots") or 0) or None  # llama-server's parallel slots
        model_id = str(first.get("id") or (props or {}).get("model_path") or "remote model")
        n_ctx = int(first.get("max_model_len") or ((props or {}).get("default_generation_settings") or {}).get("n_ctx")
                    or self.settings.n_ctx)
        template = (props or {}).get("chat_template") or None
        return os.path.basename(model_id), n_ctx, template

    def describe(self) -> str:
        """One line for IT: the server, its model, context, slots and health (``/health`` where it has one)."""
        health = ""
        try:
            r = self._request("GET", "/health")
            health = "healthy" if r.status_code == 200 else f"health: HTTP {r.status_code}"
        except ServerError:
            health = "health: no answer"
        slots = f", {self.slots} parallel slots" if self.slots else ""
        return (f"{self.model_id} on a {self.kind} server at {self.url}, context {self.n_ctx:,} tokens{slots}, "
                f"chat template: {self.template.origin}, {health}")

    # -- text and tokens ------------------------------------------------------------------------------
    def chat_prompt(self, messages: list[dict[str, str]], tools: list[dict] | None = None) -> str:
        return self.template.render(messages, add_generation_prompt=True, tools=tools)

    def count_tokens(self, text: str) -> int:
        path, body, key = {"llama.cpp": ("/tokenize", {"content": text}, "tokens"),
                           "vllm": ("/tokenize", {"prompt": text}, "count"),
                           }.get(self.kind, ("/extras/tokenize/count", {"input": text}, "count"))
        r = self._request("POST", path, json=body)
        if r.status_code < 400:
            try:
                value = r.json().get(key)
                return len(value) if isinstance(value, list) else int(value or 0)
            except (ValueError, AttributeError, TypeError):
                pass
        return len(text) // 3 + 1  # a server without a tokenizer endpoint: a safe over-estimate

    # -- requests -------------------------------------------------------------------------------------
    def _request(self, method: str, path: str, **kwargs):
        import httpx

        for attempt in range(self.RETRIES):
            try:
                return self._client.request(method, path, **kwargs)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
                if attempt == self.RETRIES - 1:
                    raise self._unreachable(exc) from None
                time.sleep(0.5 * 2 ** attempt)
            except httpx.TimeoutException as exc:
                raise ServerError(f"The model server at {self.url} did not answer in time ({type(exc).__name__}).",
                                  hint="The server may be overloaded; ask again, or raise server_timeout.") from None

    def _unreachable(self, exc: Exception) -> ServerError:
        return ServerError(f"The model server at {self.url} cannot be reached ({type(exc).__name__}: {exc}).",
                           hint="Check that it runs and that this workstation may reach it; your question is "
                                "kept and can be sent again.")

    def _body(self, prompt: str, grammar: str | None, stop: Sequence[str], max_tokens: int) -> dict[str, Any]:
        body: dict[str, Any] = {"prompt": prompt, "max_tokens": max_tokens, "stream": True,
                                "temperature": self.settings.temperature, "seed": self.settings.seed,
                                "stop": list(stop) or None}
        if self.settings.temperature == 0:
            body["top_k"] = 1
        if self.kind == "llama.cpp":
            body.update(cache_prompt=True, n_probs=0)
        if self.kind == "vllm":
            body["stream_options"] = {"include_usage": True}
        if grammar:
            if self.kind == "vllm":
                body["structured_outputs"] = {"grammar": grammar}
            else:
                body["grammar"] = grammar
        return {k: v for k, v in body.items() if v is not None}

    def stream(self, prompt: str, grammar: str | None = None, stop: Sequence[str] = (), *, max_tokens: int = 512,
               cancel: threading.Event | None = None) -> Generator[str, None, Generation]:
        import httpx

        stats = GenerationStats()
        body = self._body(prompt, grammar, stop, max_tokens)
        pieces: list[str] = []
        reason = ""
        t0 = time.perf_counter()
        first_token_at = None
        with self._lock:  # one request at a time per backend (one workstation asks one thing at a time)
            for attempt in range(self.RETRIES):
                try:
                    with self._client.stream("POST", "/v1/completions", json=body,
                                             headers={CONVERSATION_HEADER: self.conversation}) as r:
                        if r.status_code >= 400:
                            detail = r.read().decode("utf-8", "replace")[:300]
                            if self.kind == "vllm" and "structured_outputs" in body and r.status_code == 400:
                                body["guided_grammar"] = body.pop("structured_outputs")["grammar"]  # older vLLM
                                continue
                            raise ServerError(f"The model server at {self.url} answered {r.status_code}: {detail}",
                                              hint="See the server's log; your question is kept and can be sent "
                                                   "again.")
                        for line in r.iter_lines():
                            if cancel is not None and cancel.is_set():
                                reason = "cancelled"
                                break  # leaving the block closes the connection: the server stops
                            if not line.startswith("data:"):
                                continue
                            data = line[5:].strip()
                            if data == "[DONE]":
                                break
                            try:
                                chunk = json.loads(data)
                                if not isinstance(chunk, dict):
                                    raise ValueError("not an object")
                            except ValueError:
                                raise ServerError(f"The model server at {self.url} sent something that is not an "
                                                  f"answer: {data[:120]!r}.",
                                                  hint="Check that model_url points at an OpenAI-compatible "
                                                       "server.") from None
                            self._read_usage(chunk, stats)
                            for choice in chunk.get("choices") or []:
                                text = choice.get("text") or ""
                                if text:
                                    if first_token_at is None:
                                        first_token_at = time.perf_counter()
                                    pieces.append(text)
                                    stats.completion_tokens += 0 if chunk.get("usage") else 1
                                    yield text
                                if choice.get("finish_reason"):
                                    reason = {"stop": "end", "length": "length"}.get(choice["finish_reason"], "end")
                    break
                except (httpx.ConnectError, httpx.ConnectTimeout) as exc:
                    if pieces or attempt == self.RETRIES - 1:
                        raise self._unreachable(exc) from None
                    time.sleep(0.5 * 2 ** attempt)
                except (httpx.RemoteProtocolError, httpx.ReadError, httpx.ReadTimeout) as exc:
                    # The answer broke off half-way: what was written is not an answer.
                    raise ServerError(f"The model server at {self.url} stopped answering in the middle "
                                      f"({type(exc).__name__}).",
                                      hint="It may have been restarted; your question is kept and can be sent "
                                           "again.") from None
        if cancel is not None and cancel.is_set():
            reason = "cancelled"
        elif not reason:
            # The stream ended without saying why: the server cut this answer off (llama-cpp-python
            # does so for a newer request unless started with --interrupt_requests false).
            raise ServerError(f"The model server at {self.url} ended the answer before it was complete.",
                              hint="If several people share it, start it so that it queues requests (llama.cpp "
                                   "server: --parallel N; llama_cpp.server: --interrupt_requests false); your "
                                   "question is kept and can be sent again.")
        end = time.perf_counter()
        stats.prompt_seconds = (first_token_at or end) - t0
        stats.generation_seconds = end - (first_token_at or end)
        return Generation(text="".join(pieces), stop_reason=reason, stats=stats)

    @staticmethod
    def _read_usage(chunk: dict, stats: GenerationStats) -> None:
        """Token figures as the server reports them (OpenAI usage; llama-server's timings)."""
        usage = chunk.get("usage") or {}
        if usage:
            stats.prompt_tokens = int(usage.get("prompt_tokens") or stats.prompt_tokens)
            stats.completion_tokens = int(usage.get("completion_tokens") or stats.completion_tokens)
            cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
            if cached is not None:
                stats.prompt_reused = int(cached)
                stats.prompt_evaluated = stats.prompt_tokens - stats.prompt_reused
        timings = chunk.get("timings") or {}
        if timings:  # llama-server: prompt_n evaluated now, cache_n served from its prefix cache
            stats.prompt_evaluated = int(timings.get("prompt_n") or 0)
            stats.prompt_reused = int(timings.get("cache_n") or 0)
            stats.prompt_tokens = stats.prompt_evaluated + stats.prompt_reused
            stats.completion_tokens = int(timings.get("predicted_n") or stats.completion_tokens)

    def close(self) -> None:
        self._client.close()
