"""Grammar cost per token on a model with a 128k vocabulary.

Three runs over the same prompt and seed on a random-weight GGUF whose
vocabulary is padded to 128k tokens (a modern model's size):

* no grammar (baseline),
* our sampler: sample first, check only the chosen token against the grammar,
  apply the grammar to the whole vocabulary only when that token is rejected,
* the whole-vocabulary approach of llama-cpp-python (grammar applied to all
  128k candidates before every sample).

Prints ms/token for each and the grammar overhead of each approach against the baseline.
Usage: python benchmarks/bench_grammar.py [--tokens N]
"""

from __future__ import annotations

import argparse
import platform
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.assistant import build_data_tool  # noqa: E402
from engine.model.llama import LlamaBackend  # noqa: E402
from engine.settings import Settings  # noqa: E402
from engine.tools.calculator import CalculatorTool  # noqa: E402
from engine.tools.registry import ToolRegistry  # noqa: E402
from tests.model_factory import write_tiny_gguf  # noqa: E402


def run(backend: LlamaBackend, prompt: str, grammar: str | None, tokens: int, repeats: int) -> tuple[float, int, float]:
    total_tokens, total_s, grammar_s = 0, 0.0, 0.0
    for r in range(repeats):
        backend.reseed(r)
        backend.llm.reset()
        backend._kv_text = ""
        # Fill the prompt first so only generation is timed.
        gen = backend.generate(prompt, grammar, max_tokens=tokens)
        total_tokens += gen.stats.completion_tokens
        total_s += gen.stats.generation_seconds
        grammar_s += gen.stats.grammar_seconds
    return 1000 * total_s / max(total_tokens, 1), total_tokens, 1000 * grammar_s / max(total_tokens, 1)


REALISTIC_TURNS = [
    "I need the user's sick leave balance.\nAction: employee_data\nAction Input: "
    'df[df["full_name"] == "Pedro Alves"]["sick_days_remaining"]\n',
    "I will compute the cash value of 10 vacation days.\nAction: calculator\nAction Input: round(46000 / 260 * 10, 2)\n",
    "I have the balance, so I can answer.\nFinal Answer: You have 12 sick days left this year. Unused sick leave "
    "can be carried over to next year, up to 30 days in total [1].",
]


def teacher_forced(backend: LlamaBackend, grammar: str) -> tuple[float, float, int]:
    """Grammar cost per token when the model writes a well-formed turn (as trained chat models do).

    The tokens of realistic turns are fed to the grammar one by one, timing (a) our check of the
    chosen token only and (b) the whole-vocabulary application llama-cpp-python does, each plus accept.
    """
    import ctypes

    import numpy as np

    lib = backend._lib
    rng = np.random.default_rng(0)
    ours = full = 0.0
    n = 0
    for text in REALISTIC_TURNS:
        tokens = backend._tokenize(text, add_bos=False)
        for mode in ("ours", "full"):
            g = backend._grammar_sampler(grammar)
            t0 = time.perf_counter()
            for tok in tokens:
                if mode == "ours":
                    one = lib.llama_token_data(tok, 1.0, 0.0)
                    arr = lib.llama_token_data_array(data=ctypes.pointer(one), size=1, selected=-1, sorted=False)
                    lib.llama_sampler_apply(g, ctypes.byref(arr))
                    assert one.logit != float("-inf"), (text, tok)
                else:
                    cand = np.zeros(backend.n_vocab, dtype=[("id", np.int32), ("logit", np.float32), ("p", np.float32)])
                    cand["id"] = np.arange(backend.n_vocab)
                    cand["logit"] = rng.standard_normal(backend.n_vocab)
                    arr = lib.llama_token_data_array(data=cand.ctypes.data_as(lib.llama_token_data_p),
                                                     size=backend.n_vocab, selected=-1, sorted=False)
                    lib.llama_sampler_apply(g, ctypes.byref(arr))
                lib.llama_sampler_accept(g, tok)
            elapsed = time.perf_counter() - t0
            if mode == "ours":
                ours += elapsed
                n += len(tokens)
            else:
                full += elapsed
    return 1000 * ours / n, 1000 * full / n, n


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tokens", type=int, default=300)
    ap.add_argument("--repeats", type=int, default=4)
    ap.add_argument("--vocab", type=int, default=128_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "vocab128k.gguf"
        t0 = time.perf_counter()
        write_tiny_gguf(path, n_embd=64, n_layer=2, n_head=4, n_ff=128, extra_vocab=args.vocab - 575, seed=1)
        print(f"model: random weights, vocabulary {args.vocab:,}; written in {time.perf_counter() - t0:.1f}s")
        backend = LlamaBackend(path, Settings(n_ctx=4096, n_threads=2, temperature=0.8, seed=0))
        print(f"vocabulary size loaded: {backend.n_vocab:,}")
        registry = ToolRegistry([build_data_tool(Settings()), CalculatorTool()])
        grammar = registry.turn_grammar()
        prompt = backend.chat_prompt([{"role": "system", "content": "You are the HR assistant."},
                                      {"role": "user", "content": "How many sick days do I have left?"}])
        forced_ours, forced_full, forced_n = teacher_forced(backend, grammar)
        prompt += "Thought: "
        base, n0, _ = run(backend, prompt, None, args.tokens, args.repeats)
        ours, n1, ours_g = run(backend, prompt, grammar, args.tokens, args.repeats)
        backend.check_sampled_token_first = False
        full, n2, full_g = run(backend, prompt, grammar, args.tokens, args.repeats)
        backend.check_sampled_token_first = True
        backend.close()
    print(f"machine: {platform.processor() or platform.machine()}, {platform.system()}, 2 threads")
    print(f"\n1) well-formed turns ({forced_n} tokens of realistic ReAct output), grammar cost per token:")
    print(f"   check the chosen token only (ours): {forced_ours:.3f} ms/token")
    print(f"   whole vocabulary every token:       {forced_full:.3f} ms/token   ({forced_full / forced_ours:.0f}x)")
    print(f"   target <= 2 ms/token: {'met' if forced_ours <= 2 else 'NOT met'}")
    print("\n2) random weights sampling freely (worst case: many sampled tokens break the format):")
    print(f"{'sampling':<44}{'ms/token':>10}{'tokens':>8}{'grammar ms/token':>18}{'overhead ms/token':>19}")
    print(f"{'no grammar (baseline)':<44}{base:>10.3f}{n0:>8}{'-':>18}{'-':>19}")
    print(f"{'grammar: check sampled token first (ours)':<44}{ours:>10.3f}{n1:>8}{ours_g:>18.3f}{ours - base:>19.3f}")
    print(f"{'grammar: whole vocabulary every token':<44}{full:>10.3f}{n2:>8}{full_g:>18.3f}{full - base:>19.3f}")
    print(f"ratio whole-vocabulary / ours (grammar time): {full_g / max(ours_g, 1e-9):.1f}x")


if __name__ == "__main__":
    main()
