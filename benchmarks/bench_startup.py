"""Start-up of the window from source, this working tree against a baseline revision, in one run.

Times "engine ready" from the app's own log (``-v``): the employee data, the policy index and the
model are loaded and the model has read its instructions once. Each run starts on an empty data
folder (a first start: the sample's policies are indexed) and then once more on the same folder
(the usual start: the index is checked, not rebuilt). The baseline is checked out into a
temporary git worktree and run with the same interpreter; the two alternate run by run, so
machine noise hits both alike.

    python benchmarks/bench_startup.py --baseline HEAD~1 --model build/test-models/<model>.gguf
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_bundle import start_up  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", default="HEAD", help="git revision to compare with (default: HEAD)")
    parser.add_argument("--model", help="GGUF model to load (default: none, the first-run screen)")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    worktree = Path(tempfile.mkdtemp(prefix="hr-baseline-"))
    subprocess.run(["git", "worktree", "add", "--detach", "-q", str(worktree), args.baseline], cwd=ROOT, check=True)
    trees = {f"baseline ({args.baseline})": worktree, "this tree": ROOT}
    ready: dict[str, dict[str, list[float]]] = {name: {"first": [], "again": []} for name in trees}
    try:
        for _ in range(args.runs):
            for name, tree in trees.items():
                home = Path(tempfile.mkdtemp(prefix="hr-bench-home-"))
                env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "HR_ASSISTANT_", "VIRTUAL_ENV"))}
                env.update(HOME=str(home), HR_ASSISTANT_CONFIG_DIR=str(home / "config"),
                           HR_ASSISTANT_DATA_DIR=str(home / "data"), PYTHONPATH=str(tree),
                           QT_QPA_PLATFORM=env.get("QT_QPA_PLATFORM", "offscreen"))
                if args.model:
                    env["HR_ASSISTANT_MODEL"] = str(Path(args.model).resolve())
                for kind in ("first", "again"):
                    ready[name][kind].append(start_up([sys.executable, "-m", "desktop", "-v"], env)[1])
                shutil.rmtree(home, ignore_errors=True)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(worktree)], cwd=ROOT, check=False)
    print(f"engine ready after start-up, {args.runs} runs each, {os.cpu_count()} cores, model: {args.model or 'none'}")
    for name, runs in ready.items():
        print(f"  {name:24} first start median {statistics.median(runs['first']):6.2f} s, "
              f"again median {statistics.median(runs['again']):6.2f} s")
    base, this = ready[f"baseline ({args.baseline})"], ready["this tree"]
    for kind in ("first", "again"):
        print(f"ratio this tree / baseline, {kind} start: "
              f"{statistics.median(this[kind]) / statistics.median(base[kind]):.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
