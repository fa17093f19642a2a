"""ReAct only, plan only and the combined mode on the multi-part questions, in one run.

    python benchmarks/bench_plan.py --model FILE.gguf [--split dev|test|all] [--only ids] [--json out.json]

Every case of the suite's ``multi-part`` category (or ``--category``) runs in each mode in turn
(interleaved, so machine noise hits all modes alike), on one loaded model. Reported per split
and mode: answer and refusal accuracy, tool (node) F1 and TaskBench's link F1, model calls per
question, how many were planned and fell back to ReAct, and the median and mean time per
question, with the ratio of calls and time against ReAct.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

MODES = ("react", "plan", "auto")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", required=True, help="GGUF chat model")
    parser.add_argument("--split", default="all", choices=["dev", "test", "all"])
    parser.add_argument("--category", default="multi-part")
    parser.add_argument("--only", help="comma-separated case ids")
    parser.add_argument("--threads", type=int, default=0)
    parser.add_argument("--json", help="write every case's result here")
    parser.add_argument("--modes", default=",".join(MODES), help="which of react,plan,auto (default: all three)")
    args = parser.parse_args(argv)
    modes = [m for m in MODES if m in args.modes.split(",")]

    from engine.evaluation import Evaluator, case_line, load_suite, summarise
    from engine.model.llama import LlamaBackend
    from engine.settings import Settings

    cases = [c for c in load_suite(ROOT / "benchmarks" / "suite.jsonl") if c.category == args.category
             and (args.split == "all" or c.split == args.split)
             and (not args.only or c.id in args.only.split(","))]
    base = Settings(n_threads=args.threads, temperature=0.0)
    backend = LlamaBackend(Path(args.model), base)
    evaluators = {m: Evaluator(lambda case: backend, base.replace(agent_mode=m)) for m in modes}
    results: dict[str, list[dict]] = {m: [] for m in modes}
    for i, case in enumerate(cases, start=1):
        for mode in modes:
            r = evaluators[mode].run_case(case)
            results[mode].append(r)
            print(f"{mode:>5} " + case_line(i, len(cases), r), flush=True)
    print(f"\nmodel {backend.name}, {len(cases)} cases, threads {base.n_threads or 'auto'}")
    splits = sorted({c.split for c in cases}) + (["all"] if len({c.split for c in cases}) > 1 else [])
    report = {}
    for split in splits:
        print(f"\n{split} split:")
        print(f"{'mode':<6}{'acc':>7}{'refusal':>9}{'tool F1':>9}{'link F1':>9}{'calls/q':>9}{'planned':>9}"
              f"{'fell back':>11}{'median s':>10}{'mean s':>9}{'calls×':>8}{'time×':>7}")
        base_summary = None
        for mode in modes:
            rows = [r for r in results[mode] if split == "all" or r["split"] == split]
            s = summarise(rows)
            report[f"{split}/{mode}"] = s
            base_summary = base_summary or s
            calls_x = s["llm_calls_per_case"] / base_summary["llm_calls_per_case"]
            time_x = statistics.fmean(r["latency_s"] for r in rows) / base_summary["mean_latency_s"]
            print(f"{mode:<6}{s['answer_accuracy']:>7.3f}{s['refusal_accuracy']:>9.3f}{s['tool_f1']:>9.3f}"
                  f"{s['link_f1']:>9.3f}{s['llm_calls_per_case']:>9.2f}{s['planned']:>9}{s['plan_fallbacks']:>11}"
                  f"{s['median_latency_s']:>10.1f}{s['mean_latency_s']:>9.1f}{calls_x:>8.2f}{time_x:>7.2f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"summary": report, "cases": results}, indent=1, default=str))
    backend.close()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
