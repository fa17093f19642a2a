"""Offline install kit: collect every wheel the app needs on a connected machine, check it on
the air-gapped one.

  python scripts/offline_kit.py collect [--dest wheelhouse]   # connected machine, once
  python scripts/offline_kit.py verify  [--dest wheelhouse]   # air-gapped machine, after copying

then, on the air-gapped machine (no index, no network; see README "Air-gapped install"):

  python3 -m venv hr-assistant-env
  hr-assistant-env/bin/pip install --no-index --find-links wheelhouse "hr-assistant[model]"

`collect` runs `pip wheel` for this project, so the wheelhouse holds a wheel for the app and
for every dependency, built for this machine's platform and Python. llama-cpp-python has no
binary wheel on PyPI: pip builds it from source once (10+ minutes on 2 cores) and takes it
from its wheel cache afterwards. Collect on a machine like the targets (same OS, CPU family,
Python minor version). It also writes requirements.txt (exact versions) and SHA256SUMS, which
`verify` checks so a damaged copy is caught before installing.
"""

from __future__ import annotations

import argparse
import hashlib
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(1 << 20):
            digest.update(block)
    return digest.hexdigest()


def wheel_name_version(path: Path) -> tuple[str, str]:
    name, version = path.name.split("-")[:2]
    return name.replace("_", "-").lower(), version


def collect(dest: Path, extras: str = "model,postgres") -> int:
    dest.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    # pip wheel resolves the project's dependencies as `pip install .` would (same index, same
    # find-links, so torch stays the pinned CPU build), builds what has no wheel, and copies the rest.
    # The default chat model's chunk packages come too (the `model` extra): the air-gapped site
    # has no other way to get it.
    target = f"{ROOT}[{extras}]" if extras else str(ROOT)
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--wheel-dir", str(dest), target])
    if result.returncode:
        print("collect failed: pip could not fetch or build every wheel (see above)", file=sys.stderr)
        return result.returncode
    wheels = sorted(dest.glob("*.whl"))
    # llama-cpp-python's source too: the site's model host builds llama-server from exactly this llama.cpp
    # (scripts/build_llama_server.py finds it in the wheelhouse; no other download).
    llama = [v for n, v in (wheel_name_version(w) for w in wheels) if n == "llama-cpp-python"]
    sources: list[Path] = []
    if llama:
        got = subprocess.run([sys.executable, "-m", "pip", "download", f"llama-cpp-python=={llama[0]}", "--no-binary",
                              ":all:", "--no-deps", "-d", str(dest), "-q"])
        sources = sorted(dest.glob(f"llama_cpp_python-{llama[0]}.tar.gz"))
        if got.returncode or not sources:
            print("collect: llama-cpp-python's source distribution could not be fetched; the wheelhouse can "
                  "install the app, but build_llama_server.py will need --sdist on the model host", file=sys.stderr)
    (dest / "requirements.txt").write_text(
        "".join(f"{n}=={v}\n" for n, v in sorted(wheel_name_version(w) for w in wheels)), encoding="utf-8")
    (dest / "SHA256SUMS").write_text("".join(f"{sha256(w)}  {w.name}\n" for w in wheels + sources), encoding="utf-8")
    size = sum(w.stat().st_size for w in wheels)
    print(f"wheelhouse {dest}: {len(wheels)} wheels, {size / 1e6:.0f} MB, in {time.perf_counter() - t0:.0f} s")
    print(f'install offline with: pip install --no-index --find-links {dest} "hr-assistant[{extras}]"'
          if extras else f"install offline with: pip install --no-index --find-links {dest} hr-assistant")
    return 0


def verify(dest: Path) -> int:
    sums = dest / "SHA256SUMS"
    if not sums.exists():
        print(f"{sums} is missing: copy the whole wheelhouse folder, or collect it again", file=sys.stderr)
        return 2
    bad = []
    listed = set()
    for line in sums.read_text(encoding="utf-8").splitlines():
        digest, name = line.split(maxsplit=1)
        listed.add(name)
        path = dest / name
        if not path.exists():
            bad.append(f"missing: {name}")
        elif sha256(path) != digest:
            bad.append(f"damaged (SHA-256 differs): {name}")
    extra = sorted(p.name for p in [*dest.glob("*.whl"), *dest.glob("*.tar.gz")] if p.name not in listed)
    bad += [f"not in SHA256SUMS: {name}" for name in extra]
    for line in bad:
        print(line, file=sys.stderr)
    print(f"{len(listed)} files checked: " + ("all match" if not bad else f"{len(bad)} problem(s)"))
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Offline install kit (wheelhouse) for the HR assistant.")
    parser.add_argument("command", choices=("collect", "verify"))
    parser.add_argument("--dest", default="wheelhouse", help="wheelhouse folder (default: ./wheelhouse)")
    parser.add_argument("--extras", default="model,postgres",
                        help="extras to include: model,postgres (default: the 1.1 GB default chat model and "
                        "the PostgreSQL client for site mode), model,model-small,postgres, or '' for none")
    args = parser.parse_args(argv)
    dest = Path(args.dest).resolve()
    return collect(dest, args.extras) if args.command == "collect" else verify(dest)


if __name__ == "__main__":
    sys.exit(main())
