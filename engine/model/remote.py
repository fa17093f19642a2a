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

Every question carries the asker's record, so the connection is trusted before anything is sent:
plain ``http://`` only to this machine (or where ``allow_plain_http`` says the site accepts it),
TLS verified against the site's CA (``model_ca``) or the OS's store, never unverified, and where
the site file sets ``require_api_key``, a server that answers without asking for the key is refused.
"""

from __future__ import annotations

import hashlib
import ipaddress
import json
import logging
import os
import ssl
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generator, Iterable, Iterator, Sequence
from urllib.parse import urlsplit

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
    return _keyring_key(url)


def _keyring_key(url: str) -> str | None:
    try:
        import keyring

        return keyring.get_password("hr-assistant", url)
    except Exception:  # no keyring package or backend: no key
        return None


#: The header that names a request's conversation (see :meth:`RemoteBackend.set_conversation`).
CONVERSATION_HEADER = "X-HR-Conversation"

#: Asked without the key to learn whether the server asks for one: llama-server, vLLM and
#: llama-cpp-python's server all guard it when started with a key.
KEY_PROBE = "/v1/models"


def is_loopback(host: str | None) -> bool:
    """Whether ``host`` is this machine: localhost, 127.0.0.0/8 or ::1 (a name other than localhost is
    not resolved: what a name points at can change after this check)."""
    if not host:
        return False
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass
class ServerTrust:
    """How far the model server is trusted: from the site file where there is one (a user setting never
    loosens it), else from the user's own settings."""

    allow_plain_http: bool = False
    ca_file: str = ""
    require_api_key: bool = False
    where: str = ""  # where these are set, for messages: "the site file's [site] table (PATH)" or "settings.json"
    from_site: bool = False

    @classmethod
    def of(cls, settings: Settings, site=None) -> "ServerTrust":
        if site is None:
            from engine.site import load_site

            site = load_site()
        if site.active:
            return cls(site.allow_plain_http, site.model_ca, site.require_api_key,
                       f"the site file's [site] table ({site.path})", from_site=True)
        from engine.paths import settings_file

        return cls(settings.allow_plain_http, settings.model_ca, False, f"your settings ({settings_file()})")

    def check_url(self, url: str) -> None:
        """Refuse, before any connection, plain HTTP to another machine unless it is allowed."""
        parts = urlsplit(url)
        if parts.scheme == "http" and not is_loopback(parts.hostname) and not self.allow_plain_http:
            raise ServerError(
                f"The model server address {url} is plain http:// to another machine: every question, with the "
                "asker's record, would cross the network unencrypted, and anyone there could read it.",
                hint=f"Use the server's https:// address (see README, 'A site inference server'). Where the site "
                     f"accepts plain HTTP on its network, set allow_plain_http = true in {self.where}.")

    def tls_context(self) -> ssl.SSLContext:
        """Certificates are always verified: against ``ca_file`` alone where one is named, else the OS's store."""
        if not self.ca_file:
            return ssl.create_default_context()
        if self.from_site and os.path.exists(self.ca_file):  # one users could write would vouch for any server
            from engine.site import admin_only_problem

            problem = admin_only_problem(Path(self.ca_file))
            if problem:
                raise ServerError(f"The CA certificate {self.ca_file} (model_ca in {self.where}) is not trusted: "
                                  f"{problem}.", hint="It must be root's and writable by nobody else, as the site "
                                                      "file is. Ask IT to fix its permissions.")
        try:
            return ssl.create_default_context(cafile=self.ca_file)
        except (OSError, ssl.SSLError) as exc:
            reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
            raise ServerError(f"The CA certificate {self.ca_file} (model_ca in {self.where}) cannot be used: "
                              f"{reason}.", hint="model_ca must name the site's CA certificate, in PEM form, "
                                                 "readable by this account.") from None


class RemoteBackend(StreamingBackend):
    """An OpenAI-compatible inference server (llama.cpp's server, llama-cpp-python's, or vLLM)."""

    RETRIES = 3  # connection attempts before a request is given up (back-off 0.5 s, 1 s, 2 s)

    def __init__(self, url: str, settings: Settings | None = None, *, kind: str = "", transport=None,
                 site=None) -> None:
        import httpx

        self.settings = settings or Settings()
        self.url = url.strip().rstrip("/")
        if not self.url.startswith(("http://", "https://")):
            raise ServerError(f"The model server address {url!r} is not an http:// or https:// URL.",
                              hint="Set model_url like https://gpu-host:8443.")
        if self.url.endswith("/v1"):  # the form OpenAI clients take; the endpoints below carry /v1 themselves
            self.url = self.url[:-3]
        self.trust = ServerTrust.of(self.settings, site)
        self.trust.check_url(self.url)  # before any connection: nothing is sent where it should not go
        headers = {}
        key = api_key(self.url) or api_key(url.strip().rstrip("/"))
        if key:
            headers["Authorization"] = f"Bearer {key}"
        elif self.trust.require_api_key:
            raise ServerError(f"The site requires an API key for the model server at {self.url}, and this "
                              "workstation has none.", hint=self._key_hint())
        timeout = httpx.Timeout(connect=5.0, read=float(self.settings.server_timeout), write=30.0, pool=5.0)
        tls = self.trust.tls_context() if self.url.startswith("https://") else True
        self._client = httpx.Client(base_url=self.url, headers=headers, timeout=timeout, transport=transport,
                                    verify=tls, trust_env=False)  # no proxy variables: only the configured URL
        self._lock = threading.Lock()
        # Which conversation a request belongs to, for a balancer in front of several hosts to keep each
        # conversation on one host (its slot cache); random per workstation, so it says nothing about anyone.
        self._workstation = uuid.uuid4().hex
        self.conversation = self._workstation[:16]
        self.kind = kind or self.settings.model_server
        self.key_asked = self._probe_key(bool(key))
        self.model_id, self.n_ctx, template = self._describe()
        self.template = ChatTemplate(template, origin="server" if template else "ChatML default")
        self.name = f"{self.model_id} on {self.url}"

    def set_conversation(self, key: str) -> None:
        """Requests from now on belong to conversation ``key`` (sent as the ``X-HR-Conversation`` header,
        hashed with this workstation's random id, so a balancer can be sticky without learning anything)."""
        self.conversation = hashlib.sha256(f"{self._workstation}:{key}".encode()).hexdigest()[:16]

    # -- who may use the server -----------------------------------------------------------------------
    def _key_hint(self) -> str:
        return (f"Set {API_KEY_ENV} to the key, or keep it in the OS keyring (service hr-assistant, user "
                f"{self.url}: keyring set hr-assistant {self.url}).")

    def _probe_key(self, have_key: bool) -> bool:
        """Whether the server asks for an API key: one request without it (nothing of anyone's in it)."""
        status = self._request("GET", KEY_PROBE, key=False).status_code
        asked = status in (401, 403)
        if asked and not have_key:
            raise ServerError(f"The model server at {self.url} asks for an API key, and this workstation has none.",
                              hint=self._key_hint())
        if not asked and self.trust.require_api_key:
            raise ServerError(f"The model server at {self.url} answered without asking for the API key (GET "
                              f"{KEY_PROBE} without it: HTTP {status}), but the site file requires one: anyone on "
                              "the network could use it.",
                              hint="IT starts it with the key (llama-server --api-key-file, vLLM --api-key), or "
                                   "puts a balancer in front that checks it; until then no question is sent there.")
        return asked

    # -- what the server is ---------------------------------------------------------------------------
    def _get(self, path: str) -> dict | None:
        r = self._request("GET", path)
        if r.status_code in (401, 403):
            raise ServerError(f"The model server at {self.url} refused this workstation's API key (HTTP "
                              f"{r.status_code}).", hint="The key must be one of the server's; " + self._key_hint())
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
        tls = ("TLS verified against " + (self.trust.ca_file or "the OS's certificates")
               if self.url.startswith("https://") else "plain HTTP")
        key = "the host asked for the key" if self.key_asked else "the host answered without a key"
        return (f"{self.model_id} on a {self.kind} server at {self.url}, context {self.n_ctx:,} tokens{slots}, "
                f"chat template: {self.template.origin}, {health}, {tls}, {key}")

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
    def _request(self, method: str, path: str, *, key: bool = True, **kwargs):
        import httpx

        for attempt in range(self.RETRIES):
            try:
                request = self._client.build_request(method, path, **kwargs)
                if not key:
                    request.headers.pop("Authorization", None)
                return self._client.send(request)
            except (httpx.ConnectError, httpx.ConnectTimeout, httpx.RemoteProtocolError) as exc:
                if attempt == self.RETRIES - 1 or self._tls_failure(exc):
                    raise self._tls_failure(exc) or self._unreachable(exc) from None
                time.sleep(0.5 * 2 ** attempt)
            except httpx.TimeoutException as exc:
                raise ServerError(f"The model server at {self.url} did not answer in time ({type(exc).__name__}).",
                                  hint="The server may be overloaded; ask again, or raise server_timeout.") from None

    def _tls_failure(self, exc: Exception) -> ServerError | None:
        """The clear message for a connection that failed in its TLS handshake (trying again cannot help)."""
        cause: BaseException | None = exc
        for _ in range(8):  # httpx -> httpcore -> ssl
            if cause is None or isinstance(cause, ssl.SSLError):
                break
            cause = cause.__cause__ or cause.__context__
        if isinstance(cause, ssl.SSLCertVerificationError):
            return ServerError(f"The model server at {self.url} showed a TLS certificate this workstation does not "
                               f"trust ({cause.verify_message}).",
                               hint="Its certificate must be signed by the site's CA, named by model_ca in the site "
                                    "file, and be for the name or address in model_url.")
        if isinstance(cause, ssl.SSLError):
            return ServerError(f"The TLS connection to the model server at {self.url} failed "
                               f"({cause.reason or cause}).",
                               hint="Check that the server runs with TLS (llama-server --ssl-key-file and "
                                    "--ssl-cert-file) and that model_url is its https:// address.")
        return None

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
                        for line in sse_lines(r.iter_bytes()):
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
                    if pieces or attempt == self.RETRIES - 1 or self._tls_failure(exc):
                        raise self._tls_failure(exc) or self._unreachable(exc) from None
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


def sse_lines(chunks: Iterable[bytes]) -> Iterator[str]:
    """The lines of a server-sent event stream, split at line feeds only. (httpx's ``iter_lines`` also splits
    at U+2028, U+0085 and other characters that JSON leaves unescaped, so a model that writes one of them cut
    an event in two: "sent something that is not an answer".)"""
    buffer = b""
    for chunk in chunks:
        buffer += chunk
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            yield line.rstrip(b"\r").decode("utf-8", "replace")
    if buffer:
        yield buffer.rstrip(b"\r").decode("utf-8", "replace")

