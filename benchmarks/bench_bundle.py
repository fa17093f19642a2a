"""The PyInstaller bundle: build time, size on disk, start-up to a visible window, time to a
ready engine, and the self-check, with the source install (`python -m desktop` in this
virtual environment) measured in the same run as the baseline.

Usage: python benchmarks/bench_bundle.py [--build] [--dist DIR] [--runs N] [--model GGUF]
  --build   build first with `pyinstaller build.spec` and time it (else use DIR as built)

Start-up figures come from the app's own log lines (``-v``): "window visible after X s" once
the event loop has painted the window, "engine ready after X s" once the employee data, the
policy index and the model (or the lack of one) are settled. Both count from process creation.
"Cold" runs drop the OS page cache first when this process may (root on Linux); otherwise
every run is warm and the output says so.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def drop_caches() -> bool:
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def folder_size(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file() and not f.is_symlink())


def start_up(cmd: list[str], env: dict, timeout: float = 300) -> tuple[float, float]:
    """(window visible, engine ready) in seconds from the app's log; the app is then closed."""
    proc = subprocess.Popen(cmd, env=env, cwd=env["HOME"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    window = ready = float("nan")
    deadline = time.monotonic() + timeout
    try:
        for line in proc.stderr:  # type: ignore[union-attr]
            if m := re.search(r"window visible after ([\d.]+) s", line):
                window = float(m.group(1))
            if m := re.search(r"engine ready after ([\d.]+) s", line):
                ready = float(m.group(1))
                break
            if time.monotonic() > deadline:
                break
    finally:
        proc.kill()
        proc.wait()
    return window, ready


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", action="store_true")
    parser.add_argument("--dist", default=str(ROOT / "dist"))
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--model", help="GGUF model to load at start-up (default: none, the first-run screen)")
    args = parser.parse_args()
    dist = Path(args.dist)
    if args.build:
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--distpath", str(dist),
                        "--workpath", str(ROOT / "build"), str(ROOT / "build.spec")], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print(f"build: {time.perf_counter() - t0:.0f} s (pyinstaller build.spec, {os.cpu_count()} cores)")
    bundle = dist / "hr-assistant"
    exe = bundle / ("hr-assistant.exe" if sys.platform == "win32" else "hr-assistant")
    if not exe.exists():
        print(f"no bundle at {bundle}: run with --build, or `pyinstaller build.spec` first", file=sys.stderr)
        return 2
    size = folder_size(bundle)
    print(f"bundle size: {size / 1e6:.0f} MB on disk, {sum(1 for _ in bundle.rglob('*'))} files (target <= 800 MB)")
    largest = sorted(((folder_size(p) if p.is_dir() else p.stat().st_size, p.name)
                      for p in (bundle / "_internal").iterdir()), reverse=True)[:6]
    print("  largest parts: " + ", ".join(f"{name} {n / 1e6:.0f} MB" for n, name in largest))

    home = Path(tempfile.mkdtemp(prefix="hr-bench-home-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "HR_ASSISTANT_", "VIRTUAL_ENV"))}
    env.update(HOME=str(home), HR_ASSISTANT_CONFIG_DIR=str(home / "config"), HR_ASSISTANT_DATA_DIR=str(home / "data"))
    env.setdefault("QT_QPA_PLATFORM", "offscreen" if not env.get("DISPLAY") else env.get("QT_QPA_PLATFORM", "xcb"))
    if args.model:
        env["HR_ASSISTANT_MODEL"] = args.model
    designs = {"bundle": [str(exe), "-v"], "source install (baseline)": [sys.executable, "-m", "desktop", "-v"]}
    cold = drop_caches()
    print(f"start-up, {args.runs} runs each, first run {'cold (page cache dropped)' if cold else 'warm (cannot drop caches)'}"
          f", QT_QPA_PLATFORM={env['QT_QPA_PLATFORM']}, model: {args.model or 'none'}")
    results: dict[str, list[tuple[float, float]]] = {name: [] for name in designs}
    for run in range(args.runs):
        for name, cmd in designs.items():  # interleaved, so machine noise hits both alike
            if run == 0:
                drop_caches()
            # The first start also builds the policy index in the user folder; keep the index
            # between runs (as on a real workstation) but start from none in run 0.
            if run == 0:
                shutil.rmtree(home / "data", ignore_errors=True)
            results[name].append(start_up(cmd, env))
    print(f"{'design':28} {'window 1st':>10} {'window best':>11} {'engine 1st':>10} {'engine best':>11}")
    for name, runs in results.items():
        windows, readies = [w for w, _ in runs], [r for _, r in runs]
        print(f"{name:28} {windows[0]:9.2f}s {min(windows):10.2f}s {readies[0]:9.2f}s {min(readies):10.2f}s")
    b, s = results["bundle"], results["source install (baseline)"]
    print(f"ratio bundle / source, best window: {min(w for w, _ in b) / min(w for w, _ in s):.2f}x, "
          f"best engine ready: {min(r for _, r in b) / min(r for _, r in s):.2f}x")

    t0 = time.perf_counter()
    check = subprocess.run([str(exe), "--self-check"] + (["--model", args.model] if args.model else []),
                           env=env, capture_output=True, text=True)
    print(f"self-check: exit {check.returncode} in {time.perf_counter() - t0:.1f} s")
    if check.returncode:
        print(check.stdout[-2000:], check.stderr[-2000:])
    shutil.rmtree(home, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
