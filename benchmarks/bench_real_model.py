"""Speed on a real model: the same questions with and without each speed change, in one run.

    python benchmarks/bench_real_model.py [--model FILE.gguf] [--repeat 2]

Default model: the packaged default (Qwen2.5-Coder-1.5B-Instruct Q4_K_M), assembled if needed.
Variants, each run on every question in turn (interleaved, so machine noise hits all alike):

* ``greedy+lookup``: what ships: greedy decoding with prompt-lookup drafting;
* ``greedy``: the same without drafting (one token per forward pass);
* ``sampled``: temperature 0.2 (the old default), no drafting.

Reported per variant: median time per question, median time to the first answer token,
model calls and tokens generated per question, drafted tokens kept; ratios against ``greedy``.
Then the first answer token of a no-tool question on a cold cache, with and without
``Agent.warm_up()`` (the system prompt evaluated at start-up, as the desktop and chat do).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = [  # development-split questions (never the test split)
    ("Pedro Alves", "Hello!"),
    ("Pedro Alves", "How many sick days do I have left?"),
    ("Mei Lin", "When do I need a doctor's note for sick leave?"),
    ("Pedro Alves", "What is 46000 divided by 260, times 10?"),
    ("Liam Walsh", "My mother is seriously ill and needs my care. Is there leave for that?"),
    ("Pedro Alves", "What is Ivan Petrov's salary?"),
]


def run_question(backend, tools, settings, user, question):
    from engine.assistant import build_context, make_agent

    agent = make_agent(backend, tools, build_context(user, tools), settings)
    t0 = time.perf_counter()
    trace = agent.ask(question)
    drafted = sum(c.get("draft_accepted", 0) for c in trace.per_call)
    return {"seconds": time.perf_counter() - t0, "first": trace.first_token_seconds or trace.seconds,
            "calls": trace.llm_calls, "tokens": trace.completion_tokens, "kept": drafted, "answer": trace.answer}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="GGUF file (default: the packaged default model)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--threads", type=int, default=0)
    args = parser.parse_args(argv)

    from engine.assistant import build_context, build_tools, make_agent
    from engine.model.llama import LlamaBackend
    from engine.settings import Settings

    if args.model:
        model = Path(args.model)
    else:
        from engine.model.packs import DEFAULT_PACK, assemble, is_assembled

        folder = ROOT / "build" / "test-models"
        model = folder / DEFAULT_PACK.filename if is_assembled(DEFAULT_PACK, folder) else assemble(DEFAULT_PACK, folder)
    base = Settings(n_threads=args.threads, temperature=0.0)
    tools = build_tools(base)
    variants = {
        "greedy+lookup": (base, True),
        "greedy": (base, False),
        "sampled": (base.replace(temperature=0.2), False),
    }
    backends = {}
    results: dict[str, list[dict]] = {name: [] for name in variants}
    for name, (settings, lookup) in variants.items():
        backend = LlamaBackend(model, settings)
        backend.prompt_lookup = lookup
        backends[name] = backend
    print(f"model {model.name}, {len(QUESTIONS)} questions x {args.repeat}, variants interleaved", flush=True)
    for _ in range(args.repeat):
        for user, question in QUESTIONS:
            for name, (settings, _lookup) in variants.items():
                r = run_question(backends[name], tools, settings, user, question)
                results[name].append(r)
                print(f"  {name:<14} {r['seconds']:6.2f}s first {r['first']:5.2f}s calls {r['calls']} "
                      f"tokens {r['tokens']:3d} kept {r['kept']:3d}  {question[:40]}", flush=True)

    def med(rows, key):
        return statistics.median(r[key] for r in rows)

    ref = results["greedy"]
    print(f"\n{'variant':<15}{'median s':>10}{'ratio':>8}{'first tok s':>13}{'calls':>7}{'tokens':>8}{'kept':>7}")
    for name, rows in results.items():
        print(f"{name:<15}{med(rows, 'seconds'):>10.2f}{med(rows, 'seconds') / med(ref, 'seconds'):>8.2f}"
              f"{med(rows, 'first'):>13.2f}{statistics.fmean(r['calls'] for r in rows):>7.2f}"
              f"{statistics.fmean(r['tokens'] for r in rows):>8.1f}{statistics.fmean(r['kept'] for r in rows):>7.1f}")
    same = sum(a["answer"] == b["answer"] for a, b in zip(results["greedy+lookup"], ref))
    print(f"greedy+lookup answers identical to greedy: {same}/{len(ref)}")

    # First answer token of a no-tool question after start-up: cold cache vs warmed system prompt.
    backend = backends["greedy+lookup"]
    cold, warm = [], []
    for _ in range(max(2, args.repeat)):
        for target, prepare in ((cold, False), (warm, True)):
            backend.llm.reset()
            backend._kv_text, backend._tok_cache = "", ("", [])
            agent = make_agent(backend, tools, build_context("Pedro Alves", tools), base)
            if prepare:
                agent.warm_up()
            trace = agent.ask("Hello!")
            target.append(trace.first_token_seconds or trace.seconds)
    print(f"first answer token of 'Hello!' after start-up: cold {statistics.median(cold):.2f}s, "
          f"with warm_up() {statistics.median(warm):.2f}s (ratio {statistics.median(warm) / statistics.median(cold):.2f})")
    for b in backends.values():
        b.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
