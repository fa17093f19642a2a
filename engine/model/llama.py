"""The llama.cpp backend: the only module that imports ``llama_cpp``.

What it adds to llama-cpp-python:

* **Validation before loading**: missing file, not a GGUF, damaged header,
  unknown architecture and not enough memory are each a :class:`ModelFileError`
  naming the file and what to do, instead of a crash or a C-level abort.
* **Prefix reuse**: the backend remembers the text and tokens in the KV cache.
  A prompt that extends them (the next ReAct step, the next question of a chat)
  tokenizes and evaluates only the new text. ``keep(prompt)`` also keeps a copy of
  a prompt's KV state (llama.cpp's per-sequence state, the cache without logits), so
  a later prompt that starts the same way begins from it even after other prompts.
* **Cheap grammar sampling**: llama-cpp-python runs the grammar over the whole
  vocabulary before every sample. Like llama.cpp's own ``common_sampler``, this
  backend samples first and checks only the chosen token against the grammar;
  only when that token is rejected is the grammar applied to the whole
  vocabulary and the token sampled again. Same distribution, a fraction of the cost.
* **Streaming with cancellation** between tokens and **token accounting**.
"""

from __future__ import annotations

import codecs
import collections
import ctypes
import logging
import os
import threading
import time
from pathlib import Path
from typing import Any, Generator, Iterator, Sequence

from engine.model.chat_template import ChatTemplate
from engine.errors import ModelFileError, SetupError
from engine.model.gguf_info import GGUFInfo, known_architectures, read_gguf_info
from engine.model.backend import Generation, GenerationStats, StreamingBackend
from engine.settings import Settings

log = logging.getLogger(__name__)

_LOG_LINES: collections.deque[str] = collections.deque(maxlen=60)
_LOG_CALLBACK = None  # keep the ctypes callback alive for the life of the process
_LOCK = threading.Lock()
_OVERHEAD_BYTES = 300 * 1024**2  # compute buffers, tokenizer, Python


def _llama_cpp():
    """Import llama_cpp lazily (it loads a large shared library) and route its log to ours."""
    global _LOG_CALLBACK
    try:
        import llama_cpp
    except ImportError as exc:  # pragma: no cover - a broken install
        raise SetupError(
            f"The llama.cpp runtime cannot be loaded ({exc}).",
            hint="Reinstall the app with the README's install command (it builds llama-cpp-python).",
        ) from exc
    with _LOCK:
        if _LOG_CALLBACK is None:

            @llama_cpp.llama_log_callback
            def _on_log(level: int, text: bytes, user_data) -> None:
                line = text.decode("utf-8", errors="replace")
                _LOG_LINES.append(line)
                if level in (2, 3):
                    log.debug("llama.cpp: %s", line.rstrip())

            _LOG_CALLBACK = _on_log
            llama_cpp.llama_log_set(_LOG_CALLBACK, ctypes.c_void_p(0))
    return llama_cpp


#: Set to 1 to let llama.cpp put weights in its AMX buffers (see :func:`_extra_buffers_off`).
AMX_ENV = "HR_ASSISTANT_LLAMA_AMX"


def _extra_buffers_off(llama_cpp) -> bool:
    """Whether to load weights without llama.cpp's extra buffer types (AMX, repacking).

    pip builds llama.cpp for the CPU it is built on. On a CPU with AMX the library then puts weights in
    AMX buffers, and on virtual machines that report AMX without fully supporting it the first batch of
    a prompt dies with a general protection fault (the whole app with it; seen on 2-core Sapphire Rapids
    VMs). The plain CPU kernels (AVX-512 there) are safe everywhere; AMX is for those who opt in.
    """
    if os.environ.get(AMX_ENV, "").strip() == "1":
        return False
    try:
        info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    except Exception:  # noqa: BLE001 - an old library without it: nothing to turn off
        return False
    return "AMX_INT8 = 1" in info


def guard_extra_buffers(llama_cpp) -> bool:
    """Turn llama.cpp's extra buffer types off for this process where :func:`_extra_buffers_off` says
    (``Llama()`` takes its model parameters from ``llama_model_default_params`` and has no argument for
    this one). Idempotent; returns whether they are off. ``tests/llama_server.py`` calls it in the server."""
    import llama_cpp.llama as llama_module

    lowlevel = llama_module.llama_cpp
    original = lowlevel.llama_model_default_params
    if getattr(original, "_hr_guarded", False):
        return True
    if not _extra_buffers_off(llama_cpp):
        return False

    def params():
        p = original()
        if hasattr(p, "use_extra_bufts"):
            p.use_extra_bufts = False
        return p

    params._hr_guarded = True  # type: ignore[attr-defined]
    params._hr_original = original  # type: ignore[attr-defined]
    lowlevel.llama_model_default_params = params
    log.info("llama.cpp: AMX buffers off (this build has AMX; set %s=1 to use them)", AMX_ENV)
    return True


def llama_log_tail(n: int = 10) -> str:
    return "".join(list(_LOG_LINES)[-n:]).strip()


def available_memory() -> int:
    import psutil

    return int(psutil.virtual_memory().available)


def check_model_file(path: str | Path, settings: Settings | None = None) -> GGUFInfo:
    """Validate a model file without loading it; return its metadata.

    Raises :class:`ModelFileError` for a missing, non-GGUF, damaged,
    unsupported or too-large file. Used by the settings dialog too.
    """
    settings = settings or Settings()
    info = read_gguf_info(path)
    arch = info.architecture
    if not arch:
        raise ModelFileError(f"The model file {info.path} does not say which architecture it has.",
                             hint="The file is incomplete or was not made for llama.cpp; use another GGUF file.")
    known = known_architectures()
    if known and arch not in known:
        raise ModelFileError(
            f"The model file {info.path} has the architecture '{arch}', which this version of llama.cpp does not support.",
            hint="Choose a model of a supported family (Qwen2.5, Llama 3, Mistral, Phi-3, Gemma 2); see models/README.md.",
        )
    if info.vocab_size == 0:
        raise ModelFileError(f"The model file {info.path} has no vocabulary (tokenizer).",
                             hint="Use the complete GGUF file of a chat model.")
    n_ctx = min(settings.n_ctx, info.context_length or settings.n_ctx)
    offloaded = 0.0
    if settings.n_gpu_layers and info.n_layer:
        layers = info.n_layer if settings.n_gpu_layers < 0 else min(settings.n_gpu_layers, info.n_layer)
        offloaded = layers / info.n_layer
    need = int(info.size_bytes * (1 - offloaded)) + int(info.kv_cache_bytes(n_ctx) * (1 - offloaded)) + _OVERHEAD_BYTES
    free = available_memory()
    if need > free:
        raise ModelFileError(
            f"The model {info.path.name} needs about {need / 1024**3:.1f} GB of memory with a context of {n_ctx} "
            f"tokens, but only {free / 1024**3:.1f} GB is free.",
            hint="Close other programs, lower the context size in Settings, or use a smaller model or "
            "quantization (for example Q4_K_M of a 1.5B-3B model).",
        )
    return info


class LlamaBackend(StreamingBackend):
    """A GGUF chat model run by llama.cpp on the CPU (or partly on a GPU)."""

    #: Sample first and check only the chosen token against the grammar (llama.cpp's
    #: common_sampler strategy). False applies the grammar to the whole vocabulary for
    #: every token, as llama-cpp-python does; kept for the grammar benchmark.
    check_sampled_token_first = True
    #: Prompt-lookup drafting (greedy decoding only); LOOKUP_TOKENS drafted per forward pass at most.
    #: Off by default: on a 2-core CPU the batched check of the drafts cost more than the passes it
    #: saved (benchmarks/bench_real_model.py, 1.5B model: 1.1-1.35x slower per question).
    prompt_lookup = False
    LOOKUP_TOKENS = 8
    GRAMMAR_CACHE = 8  # compiled grammars kept (least recently used dropped)

    def __init__(self, path: str | Path, settings: Settings | None = None) -> None:
        self.settings = settings or Settings()
        self.info = check_model_file(path, self.settings)
        self.path = self.info.path
        self.name = self.info.name
        llama_cpp = _llama_cpp()
        self._lib = llama_cpp
        n_ctx = self.settings.n_ctx
        if self.info.context_length:
            n_ctx = min(n_ctx, self.info.context_length)
        threads = self.settings.n_threads or _physical_cores()
        _LOG_LINES.clear()
        try:
            guard_extra_buffers(llama_cpp)
            self.llm = llama_cpp.Llama(
                model_path=str(self.path),
                n_ctx=n_ctx,
                n_threads=threads,
                n_threads_batch=threads,
                n_gpu_layers=self.settings.n_gpu_layers,
                seed=self.settings.seed,
                n_batch=min(512, n_ctx),
                logits_all=False,
                verbose=False,
            )
        except (ValueError, RuntimeError, OSError) as exc:
            raise self._load_error(exc) from exc
        self.n_ctx = self.llm.n_ctx()
        self._vocab = llama_cpp.llama_model_get_vocab(self.llm.model)
        self.n_vocab = llama_cpp.llama_vocab_n_tokens(self._vocab)
        self._add_bos = bool(llama_cpp.llama_vocab_get_add_bos(self._vocab))
        self.template = ChatTemplate(
            self.info.chat_template,
            bos_token=self._special_piece(llama_cpp.llama_vocab_bos(self._vocab)),
            eos_token=self._special_piece(llama_cpp.llama_vocab_eos(self._vocab)),
            origin=f"model {self.path.name}",
        )
        self._pieces: dict[int, bytes] = {}
        self._grammars: dict[str, object] = {}
        self._chain = self._make_chain()
        # Token-level cache of what the KV cache holds, and the text it came from.
        self._kv_text = ""
        self._tok_cache: tuple[str, list[int]] = ("", [])
        # Full-vocabulary candidate buffer, allocated once (used only when the grammar rejects a token).
        self._cand_dtype: Any = None  # numpy structured dtype of the candidates (id, logit, p)
        self._cand: Any = None
        self._single = llama_cpp.llama_token_data()
        self._single_arr = llama_cpp.llama_token_data_array(data=ctypes.pointer(self._single), size=1, selected=-1,
                                                            sorted=False)
        self._grammar_seconds = 0.0
        # KV states of prompts kept with keep(): (tokens, state bytes), newest last.
        self._kept: list[tuple[Any, Any]] = []

    # -- loading ------------------------------------------------------------------------------------
    def _load_error(self, exc: Exception) -> ModelFileError:
        detail = llama_log_tail()
        low = detail.lower()
        if "unknown model architecture" in low or "unsupported" in low:
            hint = "This llama.cpp does not support the model's architecture; choose a supported model (models/README.md)."
        elif "alloc" in low or "memory" in low:
            hint = "Not enough memory: lower the context size or GPU layers in Settings, or use a smaller model."
        else:
            hint = "The file may be damaged or incomplete: copy it again and check its SHA-256 (hr-assistant models verify)."
        last = detail.splitlines()[-1] if detail else str(exc)
        return ModelFileError(f"llama.cpp could not load the model {self.path.name}: {last}", hint=hint)

    def _special_piece(self, token: int) -> str:
        if token < 0:
            return ""
        buf = ctypes.create_string_buffer(256)
        n = self._lib.llama_token_to_piece(self._vocab, token, buf, 256, 0, True)
        return buf.raw[: max(n, 0)].decode("utf-8", errors="replace")

    def _make_chain(self):
        lib = self._lib
        chain = lib.llama_sampler_chain_init(lib.llama_sampler_chain_default_params())
        temp = self.settings.temperature
        if temp <= 0:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_greedy())
        else:
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_k(40))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_top_p(0.95, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_min_p(0.05, 1))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_temp(temp))
            lib.llama_sampler_chain_add(chain, lib.llama_sampler_init_dist(self.settings.seed))
        return chain

    def reseed(self, seed: int) -> None:
        """Restart sampling with another seed (repeatable runs, evaluation over seeds)."""
        self._lib.llama_sampler_free(self._chain)
        self.settings = self.settings.replace(seed=seed)
        self._chain = self._make_chain()

    def _grammar_sampler(self, grammar: str):
        smpl = self._grammars.pop(grammar, None)
        if smpl is None:
            _LOG_LINES.clear()
            smpl = self._lib.llama_sampler_init_grammar(self._vocab, grammar.encode("utf-8"), b"root")
            if not smpl:
                raise SetupError(f"Internal error: the turn grammar was rejected by llama.cpp ({llama_log_tail(3)}).")
            # The answer grammar changes with every step (it admits the numbers seen so far): keep a few.
            while len(self._grammars) >= self.GRAMMAR_CACHE:
                self._lib.llama_sampler_free(self._grammars.pop(next(iter(self._grammars))))
        else:
            self._lib.llama_sampler_reset(smpl)
        self._grammars[grammar] = smpl  # most recently used last
        return smpl

    def close(self) -> None:
        lib = self._lib
        for smpl in self._grammars.values():
            lib.llama_sampler_free(smpl)
        self._grammars.clear()
        if self._chain is not None:
            lib.llama_sampler_free(self._chain)
            self._chain = None
        self.llm.close()

    # -- text and tokens ------------------------------------------------------------------------------
    def chat_prompt(self, messages: list[dict[str, str]], tools: list[dict] | None = None) -> str:
        return self.template.render(messages, add_generation_prompt=True, tools=tools)

    def _tokenize(self, text: str, add_bos: bool) -> list[int]:
        return self.llm.tokenize(text.encode("utf-8"), add_bos=add_bos, special=True)

    def tokens_for(self, prompt: str) -> list[int]:
        """Tokens of ``prompt``; a prompt that extends the text in the KV cache keeps its tokens."""
        cached_text, cached = self._tok_cache
        if cached_text and prompt == cached_text:
            return cached
        if self._kv_text and prompt.startswith(self._kv_text):
            n = self.llm.n_tokens
            tokens = list(self.llm.input_ids[:n]) + self._tokenize(prompt[len(self._kv_text):], add_bos=False)
        else:
            tokens = self._tokenize(prompt, add_bos=self._add_bos)
        self._tok_cache = (prompt, tokens)
        return tokens

    def count_tokens(self, text: str) -> int:
        return len(self.tokens_for(text))

    def _piece(self, token: int) -> bytes:
        piece = self._pieces.get(token)
        if piece is None:
            buf = ctypes.create_string_buffer(64)
            n = self._lib.llama_token_to_piece(self._vocab, token, buf, 64, 0, False)
            if n < 0:
                buf = ctypes.create_string_buffer(-n)
                n = self._lib.llama_token_to_piece(self._vocab, token, buf, -n, 0, False)
            piece = buf.raw[:n]
            self._pieces[token] = piece
        return piece

    # -- kept states ----------------------------------------------------------------------------------
    KEPT = 2  # prompt states kept (the oldest dropped); a 1.5B model's state is about 28 kB a token
    RESTORE_MIN = 16  # tokens a kept state must add to what the cache holds to be worth a copy

    def keep(self, prompt: str) -> None:
        """Evaluate ``prompt`` and keep a copy of its KV state: a later prompt that starts the same way
        begins from it, whatever was evaluated in between (two system prompts that take turns)."""
        self.generate(prompt, None, max_tokens=0)
        ctx, lib = self.llm._ctx.ctx, self._lib
        size = lib.llama_state_seq_get_size(ctx, 0)
        state = (ctypes.c_uint8 * size)()
        if lib.llama_state_seq_get_data(ctx, state, size, 0) != size:
            log.warning("could not copy the KV state of a prompt; it will be evaluated when needed")
            return
        tokens = self.llm.input_ids[:self.llm.n_tokens].copy()
        others = [k for k in self._kept if len(k[0]) != len(tokens) or (k[0] != tokens).any()]
        self._kept = [*others, (tokens, state)][-self.KEPT:]

    @staticmethod
    def _common(a, b) -> int:
        """Length of the common prefix of two token arrays (numpy: prompts are thousands of tokens)."""
        import numpy as np

        limit = min(len(a), len(b))
        if not limit:
            return 0
        diff = np.nonzero(np.asarray(a[:limit]) != np.asarray(b[:limit], dtype=np.asarray(a).dtype))[0]
        return int(diff[0]) if len(diff) else limit

    def _restore(self, tokens: list[int], prefix: int) -> int:
        """Restore the kept state that shares most of ``tokens`` where it beats the ``prefix`` the cache
        shares; the tokens now shared."""
        best, shared = None, prefix
        for kept in self._kept:
            n = self._common(kept[0], tokens)
            if n >= shared + self.RESTORE_MIN:
                best, shared = kept, n
        if best is None:
            return prefix
        llm, state = self.llm, best[1]
        llm._ctx.kv_cache_seq_rm(-1, 0, -1)
        if self._lib.llama_state_seq_set_data(llm._ctx.ctx, state, len(state), 0) != len(state):
            llm.reset()  # nothing restored: the prompt is evaluated from the start
            return 0
        llm.input_ids[:len(best[0])] = best[0]
        llm.n_tokens = len(best[0])
        return shared

    # -- generation -----------------------------------------------------------------------------------
    def _prepare(self, tokens: list[int], stats: GenerationStats) -> None:
        """Bring the KV cache to ``tokens``: keep the common prefix (or a kept state's), evaluate the rest."""
        llm = self.llm
        prefix = self._common(llm.input_ids[:llm.n_tokens], tokens)
        if self._kept:
            prefix = self._restore(tokens, prefix)
        n_cached = llm.n_tokens
        if prefix == len(tokens):
            prefix -= 1  # the last prompt token must be evaluated again to get its logits
        if prefix < n_cached and not llm._ctx.kv_cache_seq_rm(-1, prefix, -1):
            llm.reset()  # this model's cache cannot be cut (recurrent): start over
            prefix = 0
        llm.n_tokens = prefix
        stats.prompt_tokens = len(tokens)
        stats.prompt_reused = prefix
        stats.prompt_evaluated = len(tokens) - prefix
        t0 = time.perf_counter()
        llm.eval(tokens[prefix:])
        stats.prompt_seconds = time.perf_counter() - t0

    PREFILTER = 64  # candidates tried before the whole vocabulary when the sampled token is rejected

    def _constrained_sample(self, gsmpl, full: bool = False, idx: int = -1) -> int:
        """Sample a token the grammar accepts; -1 if it accepts none.

        Tries the PREFILTER most likely tokens first: the grammar check costs about a
        microsecond per candidate, so a 128k vocabulary would cost ~100 ms. Greedy
        sampling gives exactly the same token (the best valid token is among the top
        ones whenever any of them is valid); with temperature, the chain's top-k of 40
        is taken among them. Only when none of them fits is the whole vocabulary used.
        """
        import numpy as np

        lib = self._lib
        if self._cand is None:
            self._cand_dtype = np.dtype([("id", np.int32), ("logit", np.float32), ("p", np.float32)])
            self._cand = np.zeros(self.n_vocab, dtype=self._cand_dtype)
            self._ids = np.arange(self.n_vocab, dtype=np.int32)
        logits = np.ctypeslib.as_array(lib.llama_get_logits_ith(self.llm.ctx, idx), shape=(self.n_vocab,))
        stages = [] if full or self.n_vocab <= 4 * self.PREFILTER else [self.PREFILTER]
        for k in stages:
            top = np.argpartition(logits, -k)[-k:]
            small = np.zeros(k, dtype=self._cand_dtype)
            small["id"], small["logit"] = top, logits[top]
            token = self._apply(gsmpl, small)
            if token >= 0:
                return token
        # Samplers reorder the array in place, so ids are written afresh each time.
        self._cand["id"] = self._ids
        self._cand["logit"] = logits
        self._cand["p"] = 0.0
        return self._apply(gsmpl, self._cand)

    def _apply(self, gsmpl, cand) -> int:
        lib = self._lib
        arr = lib.llama_token_data_array(data=cand.ctypes.data_as(lib.llama_token_data_p), size=len(cand),
                                         selected=-1, sorted=False)
        lib.llama_sampler_apply(gsmpl, ctypes.byref(arr))
        if not np_isfinite_any(cand["logit"][: arr.size]):
            return -1
        lib.llama_sampler_apply(self._chain, ctypes.byref(arr))
        if arr.selected < 0:
            return -1
        # The samplers may sort or shrink the array in place; read the chosen entry through the pointer.
        return int(arr.data[arr.selected].id)

    # -- token loops: yield accepted token ids; -1 ends (end of turn / grammar complete), -2 cancels --------
    def _sample(self, gsmpl, idx: int = -1) -> int:
        """The next token from the logits of batch position ``idx``, one the grammar accepts (-1: none)."""
        lib = self._lib
        token = lib.llama_sampler_sample(self._chain, self.llm.ctx, idx)
        if gsmpl is None:
            return token
        tg = time.perf_counter()
        single = self._single
        single.id, single.logit, single.p = token, 1.0, 0.0
        self._single_arr.size, self._single_arr.selected = 1, -1
        if self.check_sampled_token_first:
            lib.llama_sampler_apply(gsmpl, ctypes.byref(self._single_arr))
        if not self.check_sampled_token_first or single.logit == float("-inf"):
            # Rejected: constrain the most likely tokens first (the sampler chain keeps
            # only its top 40 anyway), the whole vocabulary only if none of them fits.
            token = self._constrained_sample(gsmpl, full=not self.check_sampled_token_first, idx=idx)
        self._grammar_seconds += time.perf_counter() - tg
        return token

    def _accept(self, gsmpl, token: int) -> bool:
        """Advance the grammar by ``token``; False when the turn ends with it."""
        if token < 0:
            return False
        if gsmpl is not None:
            tg = time.perf_counter()
            self._lib.llama_sampler_accept(gsmpl, token)
            self._grammar_seconds += time.perf_counter() - tg
        return not self._lib.llama_vocab_is_eog(self._vocab, token)

    def _tokens_plain(self, gsmpl, max_tokens: int, cancel, stats: GenerationStats) -> Iterator[int]:
        """One token per forward pass."""
        for _ in range(max_tokens):
            if cancel is not None and cancel.is_set():
                yield -2
                return
            token = self._sample(gsmpl)
            if not self._accept(gsmpl, token):
                yield -1
                return
            self.llm.eval([token])
            stats.completion_tokens += 1
            yield token

    def _tokens_lookup(self, prompt: list[int], gsmpl, max_tokens: int, cancel,
                       stats: GenerationStats) -> Iterator[int]:
        """Prompt-lookup decoding: where the last tokens written also occur earlier in the context
        (an answer quoting an observation), the tokens that followed them there are checked in the
        same forward pass as the next token, and kept while they are what the model would have
        written itself. Greedy output is identical to one token per pass."""
        import numpy as np

        llm = self.llm
        if max_tokens <= 0:
            return
        context = np.asarray(prompt, dtype=np.int64)
        written: list[int] = []
        token = self._sample(gsmpl)
        while True:
            if cancel is not None and cancel.is_set():
                yield -2
                return
            if not self._accept(gsmpl, token):
                yield -1
                return
            written.append(token)
            stats.completion_tokens += 1
            yield token
            room = max_tokens - len(written)
            if room <= 0:
                llm.eval([token])
                return
            draft = _lookup(np.concatenate([context, np.asarray(written, dtype=np.int64)]),
                            min(self.LOOKUP_TOKENS, room - 1))
            batch = [token, *draft]
            n_past = llm.n_tokens
            llm._ctx.kv_cache_seq_rm(-1, n_past, -1)
            llm._batch.set_batch(batch=batch, n_past=n_past, logits_all=True)
            llm._ctx.decode(llm._batch)
            llm.input_ids[n_past:n_past + len(batch)] = batch
            kept = 0
            nxt = self._sample(gsmpl, 0)
            while kept < len(draft) and nxt == draft[kept]:
                if cancel is not None and cancel.is_set() or not self._accept(gsmpl, nxt):
                    llm.n_tokens = n_past + 1 + kept
                    yield -2 if cancel is not None and cancel.is_set() else -1
                    return
                written.append(nxt)
                stats.completion_tokens += 1
                stats.draft_accepted += 1
                yield nxt
                kept += 1
                if len(written) >= max_tokens:
                    llm.n_tokens = n_past + 1 + kept
                    return
                nxt = self._sample(gsmpl, kept)
            stats.draft_tokens += len(draft)
            llm.n_tokens = n_past + 1 + kept  # drafts after the first miss leave the cache
            token = nxt

    def stream(
        self,
        prompt: str,
        grammar: str | None = None,
        stop: Sequence[str] = (),
        *,
        max_tokens: int = 512,
        cancel: threading.Event | None = None,
    ) -> Generator[str, None, Generation]:
        """``generate`` as an iterator of text pieces, returning the :class:`Generation`.

        Streaming in the caller's thread: no hand-over to another thread per token, which on a
        2-core machine would compete with llama.cpp's own compute threads.
        """
        stats = GenerationStats()
        tokens = self.tokens_for(prompt)
        if len(tokens) >= self.n_ctx:
            raise SetupError(f"The prompt ({len(tokens)} tokens) does not fit the context of {self.n_ctx} tokens.",
                             hint="Increase the context size in Settings.")
        max_tokens = max(0, min(max_tokens, self.n_ctx - len(tokens)))
        self._kv_text = ""  # invalid while the cache is being changed
        self._prepare(tokens, stats)
        gsmpl = self._grammar_sampler(grammar) if grammar else None
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        text = ""
        reason = "length"
        t_gen = time.perf_counter()
        self._grammar_seconds = 0.0
        # Prompt-lookup drafting checks several tokens per forward pass; it needs greedy decoding
        # (the draft is verified against the model's own best token) and no stop strings.
        lookup = self.prompt_lookup and self.settings.temperature <= 0 and not stop
        produced = self._tokens_lookup(tokens, gsmpl, max_tokens, cancel, stats) if lookup else \
            self._tokens_plain(gsmpl, max_tokens, cancel, stats)
        for token in produced:
            if token < 0:
                reason = {-1: "end", -2: "cancelled"}[token]
                break
            piece = decoder.decode(self._piece(token))
            if stop:
                hit = min((i for i in ((text + piece).find(s) for s in stop) if i >= 0), default=-1)
                if hit >= 0:
                    piece = (text + piece)[len(text):hit] if hit > len(text) else ""
                    text = (text + piece)
                    if piece:
                        yield piece
                    reason = "stop"
                    break
            text += piece
            if piece:
                yield piece
        tail = decoder.decode(b"", final=True)
        if tail and reason != "stop":
            text += tail
            yield tail
        stats.generation_seconds = time.perf_counter() - t_gen
        stats.grammar_seconds = self._grammar_seconds
        # The KV cache now holds prompt + generated tokens. Their text is prompt + text
        # unless a stop string cut it (then the next prompt falls back to a token-prefix match).
        self._kv_text = prompt + text if reason != "stop" else ""
        self._tok_cache = ("", [])
        return Generation(text=text, stop_reason=reason, stats=stats)


def _lookup(context, n: int, ngram_max: int = 3) -> list[int]:
    """Up to ``n`` tokens that followed the latest earlier occurrence of the context's last
    ``ngram_max``..1 tokens (longest match first); [] when there is none."""
    import numpy as np

    if n <= 0:
        return []
    size = len(context)
    for g in range(min(ngram_max, size - 1), 0, -1):
        tail = context[size - g:]
        # Candidate starts where the first token matches, then check the rest of the n-gram.
        starts = np.flatnonzero(context[: size - g] == tail[0])
        for start in starts[::-1]:
            if start + g < size and np.array_equal(context[start:start + g], tail):
                follow = context[start + g: start + g + n]
                if len(follow):
                    return [int(t) for t in follow]
    return []


def np_isfinite_any(values) -> bool:
    import numpy as np

    return bool(np.isfinite(values).any())


def _physical_cores() -> int:
    try:
        import psutil

        return max(1, psutil.cpu_count(logical=False) or os.cpu_count() or 1)
    except Exception:  # pragma: no cover
        return max(1, os.cpu_count() or 1)
