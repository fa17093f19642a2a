"""Where a question's time goes, this working tree against a baseline revision, in one run.

Runs the same evaluation cases (``hr-assistant eval``) on the working tree and on a baseline
revision checked out into a temporary git worktree, with the same interpreter, model and machine,
one after the other, and prints them side by side: accuracy, median and p95 latency, the first
answer token, model calls and prompt tokens evaluated per question, and the per-stage breakdown
(routing, each look-up, each model call with its tokens, the calculator, the answer) of each tree
that records one. Quote ratios from one run only.

    python benchmarks/bench_stages.py 7d8de3e --model build/test-models/<model>.gguf --split test
    python benchmarks/bench_stages.py HEAD --model FILE.gguf --only pol-01,pol-02 --suite benchmarks/suite.jsonl

Both trees time each case cold (the person's instructions and record evaluated inside the first
question) unless ``--warm``, which starts each case as the window does and needs a baseline that can.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ROWS = [("single-part right", "single_part_right", "{}"), ("multi-part right", "multi_part_right", "{}"),
        ("refusal accuracy", "refusal_accuracy", "{:.3f}"), ("median s", "median_latency_s", "{:.2f}"),
        ("single-part median s", "single_part_median_latency_s", "{:.2f}"), ("p95 s", "p95_latency_s", "{:.2f}"),
        ("first answer token, median s", "median_first_token_s", "{:.2f}"),
        ("first words of the answer, median s", "median_first_words_s", "{:.2f}"),
        ("model calls per question", "llm_calls_per_case", "{:.2f}"),
        ("prompt tokens evaluated per question", "prompt_tokens_evaluated_per_case", "{:.0f}"),
        ("tokens generated per question", "completion_tokens_per_case", "{:.0f}")]


def run_eval(tree: Path, args: argparse.Namespace, out: Path) -> dict:
    """``hr-assistant eval`` of ``tree``'s engine on the cases asked for; its JSON report."""
    home = Path(tempfile.mkdtemp(prefix="hr-stages-home-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "HR_ASSISTANT_", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), HR_ASSISTANT_CONFIG_DIR=str(home / "config"), HR_ASSISTANT_DATA_DIR=str(home / "data"),
               PYTHONPATH=str(tree))
    suite = Path(args.suite).resolve()
    command = [sys.executable, "-m", "engine.cli", "eval", str(suite), "--split", args.split,
               "--model", str(Path(args.model).resolve()), "--json", str(out)]
    if args.only:
        command += ["--only", args.only]
    if supports_warm_up(tree) and not args.warm:
        command.append("--cold")  # like a tree whose evaluation times the instructions inside the first question
    subprocess.run(command, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    return json.loads(out.read_text(encoding="utf-8"))


def supports_warm_up(tree: Path) -> bool:
    """Whether ``tree``'s evaluation starts each case as the window does (instructions read, ``--cold``
    to time them inside the question); trees before it always timed them inside."""
    return "--cold" in (tree / "engine" / "cli.py").read_text(encoding="utf-8")


def stage_rows(summary: dict, questions: int) -> dict[str, float]:
    return {s["stage"]: s["seconds"] / max(questions, 1) for s in summary.get("stages") or []}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("baseline", help="git revision to compare with (e.g. 7d8de3e)")
    parser.add_argument("--model", required=True, help="GGUF chat model")
    parser.add_argument("--suite", default=str(ROOT / "benchmarks" / "suite.jsonl"))
    parser.add_argument("--split", default="test", choices=["dev", "test", "all"])
    parser.add_argument("--only", help="comma-separated case ids or categories")
    parser.add_argument("--json", help="write both reports to this file")
    parser.add_argument("--warm", action="store_true",
                        help="start each case as the window does, the person's instructions read before the clock "
                             "(both trees must support it); by default both time them inside the first question")
    args = parser.parse_args()
    worktree = Path(tempfile.mkdtemp(prefix="hr-baseline-"))
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(worktree), args.baseline], cwd=ROOT, check=True)
    if args.warm and not supports_warm_up(worktree):
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
        parser.error(f"{args.baseline} times every case cold; compare without --warm")
    reports: dict[str, dict] = {}
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for name, tree in ((f"baseline {args.baseline}", worktree), ("this tree", ROOT)):
                reports[name] = run_eval(tree, args, Path(tmp) / "report.json")
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=1), encoding="utf-8")
    names = list(reports)
    base, this = (reports[n]["summary"] for n in names)
    print(f"{len(reports[names[1]]['cases'])} questions ({args.split} split), model {Path(args.model).name}, "
          f"{os.cpu_count()} cores; the two trees one after the other on this machine")
    print(f"{'':40}{names[0]:>22}{names[1]:>14}{'ratio':>8}")
    for label, key, fmt in ROWS:
        a, b = base.get(key), this.get(key)
        ratio = f"{b / a:.2f}x" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a else ""
        print(f"{label:40}{fmt.format(a) if a is not None else '-':>22}{fmt.format(b) if b is not None else '-':>14}"
              f"{ratio:>8}")
    n = this.get("cases", 1)
    rows_a, rows_b = stage_rows(base, n), stage_rows(this, n)
    if rows_a or rows_b:
        print(f"\nseconds per question, by stage{'':10}{names[0]:>22}{names[1]:>14}")
        for stage in sorted(set(rows_a) | set(rows_b), key=lambda s: -max(rows_a.get(s, 0), rows_b.get(s, 0))):
            a = f"{rows_a[stage]:.2f}" if stage in rows_a else "-"
            b = f"{rows_b[stage]:.2f}" if stage in rows_b else "-"
            print(f"  {stage[:52]:<52}{a:>10}{b:>14}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
