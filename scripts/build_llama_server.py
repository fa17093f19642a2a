"""Build llama.cpp's own server, ``llama-server``, from the llama.cpp the app runs.

The pinned llama-cpp-python source distribution carries llama.cpp's whole tree (``vendor/llama.cpp``,
``tools/server`` included). This script takes exactly that tree, for the llama-cpp-python version
installed here (or, on a host without the app, the version ``--sdist FILE`` is named for), builds
``llama-server`` with CMake (CPU by default, ``--cuda`` for NVIDIA GPUs), keeps the binary in a
cache by version and options, and prints where it is. A second run finds it
in the cache and builds nothing.

Where the source distribution comes from, in order: ``--sdist FILE``; a wheelhouse folder
(``--wheelhouse``, default ``wheelhouse/``, which the offline kit fills); pip's own download of the
same version from the index pip is configured for (PyPI, or the site's mirror). Nothing else is
fetched: the build turns off llama.cpp's optional downloads (its web UI, KleidiAI, OpenMP for
Windows) and CMake's FetchContent. The server gets TLS (``--ssl-key-file``/``--ssl-cert-file``) from
the system's OpenSSL (``libssl-dev``); a build without it is refused.

Usage:
    python scripts/build_llama_server.py [--cuda] [--jobs N] [--sdist FILE] [--cache DIR] [--print-only]

Prints the binary's path on the last line of standard output; exit status 0 on success, 2 when
something is missing (CMake, a compiler, the source distribution) with what to do.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "llama-cpp-python"
#: CMake options for every build: the server only, static, no network at build time. OpenSSL (the
#: system's, found by CMake, never fetched) gives the server TLS: --ssl-key-file/--ssl-cert-file.
BASE_FLAGS = ["-DCMAKE_BUILD_TYPE=Release", "-DBUILD_SHARED_LIBS=OFF", "-DLLAMA_BUILD_SERVER=ON",
              "-DLLAMA_BUILD_TOOLS=ON", "-DLLAMA_BUILD_TESTS=OFF", "-DLLAMA_BUILD_EXAMPLES=OFF",
              "-DLLAMA_CURL=OFF", "-DLLAMA_OPENSSL=ON", "-DLLAMA_BUILD_UI=OFF", "-DLLAMA_USE_PREBUILT_UI=OFF",
              "-DGGML_CPU_KLEIDIAI=OFF", "-DFETCHCONTENT_FULLY_DISCONNECTED=ON"]
#: What llama-server says, and so carries, only when it was built without OpenSSL.
NO_TLS_MARK = b"the server is built without SSL support"
EXE = "llama-server.exe" if sys.platform == "win32" else "llama-server"


class BuildError(Exception):
    """Something the build needs is missing; the message says what to do."""


def installed_version(sdist: str | None = None) -> str:
    """The llama-cpp-python version to build: the installed one, else the one ``sdist`` is named for (a
    model host that runs only the server needs no app installed, only the source distribution)."""
    from importlib.metadata import PackageNotFoundError, version

    named = re.match(r"llama_cpp_python-(\d+(?:\.\d+)+)", Path(sdist).name) if sdist else None
    try:
        installed = version(PACKAGE)
    except PackageNotFoundError:
        if named:
            return named.group(1)
        raise BuildError(f"{PACKAGE} is not installed in this Python: install the app first (pip install -e .), "
                         "or pass the source distribution to build from with --sdist FILE.") from None
    if named and named.group(1) != installed:
        # The cache is keyed by version: a binary of another llama.cpp must not pass for the app's.
        raise BuildError(f"--sdist {Path(sdist).name} is llama-cpp-python {named.group(1)}, but {installed} is "
                         f"installed here: pass the source distribution of {installed}.")
    return installed


def default_cache() -> Path:
    if os.environ.get("HR_ASSISTANT_CACHE"):
        return Path(os.environ["HR_ASSISTANT_CACHE"]) / "llama-server"
    if sys.platform == "win32":
        return Path(os.environ.get("LOCALAPPDATA") or Path.home() / "AppData" / "Local") / "hr-assistant" / "llama-server"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "hr-assistant" / "llama-server"


def flags(cuda: bool, native: bool) -> list[str]:
    out = list(BASE_FLAGS)
    out.append("-DGGML_NATIVE=" + ("ON" if native else "OFF"))
    if cuda:
        out.append("-DGGML_CUDA=ON")
    return out


def cache_dir(cache: Path, version: str, build_flags: list[str]) -> Path:
    """One folder per llama-cpp-python version and set of options (a CPU and a CUDA build live side by side)."""
    # A native build runs on CPUs like this one only: the CPU is part of the key (a shared cache stays safe).
    cpu = _cpu_model() if "-DGGML_NATIVE=ON" in build_flags else ""
    key = hashlib.sha256("\n".join([*build_flags, cpu]).encode()).hexdigest()[:10]
    kind = "cuda" if "-DGGML_CUDA=ON" in build_flags else "cpu"
    return cache / f"{version}-{kind}-{key}"


def _cpu_model() -> str:
    import platform

    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.startswith(("model name", "flags")):
                    return platform.machine() + " " + line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine() + " " + platform.processor()


def find_sdist(version: str, given: str | None, wheelhouse: Path, work: Path) -> Path:
    if given:
        path = Path(given)
        if not path.is_file():
            raise BuildError(f"--sdist {given}: no such file.")
        return path
    name = f"llama_cpp_python-{version}.tar.gz"
    for folder in (wheelhouse, ROOT / "wheelhouse", ROOT / "build" / "wheelhouse"):
        if (folder / name).is_file():
            return folder / name
    # The same version from the index pip is configured for (PyPI, or the site's mirror / find-links).
    done = subprocess.run([sys.executable, "-m", "pip", "download", f"{PACKAGE}=={version}", "--no-binary", ":all:",
                           "--no-deps", "--no-build-isolation", "-d", str(work), "-q"],
                          capture_output=True, text=True)
    found = sorted(work.glob("llama_cpp_python-*.tar.gz"))
    if done.returncode != 0 or not found:
        raise BuildError(f"The source distribution {name} is not in {wheelhouse} and pip could not download it:\n"
                         f"{done.stderr.strip()[-800:]}\nPut it there (the offline kit does) or pass --sdist FILE.")
    return found[0]


def extract_llama_cpp(sdist: Path, into: Path) -> Path:
    """The sdist's vendor/llama.cpp, and nothing else, under ``into``."""
    with tarfile.open(sdist) as tar:
        # <name>-<version>/vendor/llama.cpp/… (not .git/modules/vendor/llama.cpp, nor vendor folders further down)
        members = [m for m in tar.getmembers() if re.match(r"[^/]+/vendor/llama\.cpp/", m.name)]
        if not members:
            raise BuildError(f"{sdist} has no vendor/llama.cpp tree.")
        top = members[0].name.split("/")[0] + "/vendor/llama.cpp"
        for m in members:  # (Pythons before 3.11.4 have no extraction filter: checked here as well)
            if m.name.startswith("/") or ".." in m.name.split("/") or not (m.isfile() or m.isdir()):
                raise BuildError(f"{sdist}: refusing the member {m.name!r} (a link or a path outside the tree).")
        kwargs = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
        tar.extractall(into, members=members, **kwargs)
    tree = into / top
    if not (tree / "tools" / "server").is_dir():
        raise BuildError(f"{sdist}: vendor/llama.cpp has no tools/server.")
    return tree


def build(version: str, sdist: Path, target: Path, build_flags: list[str], jobs: int) -> Path:
    if not shutil.which("cmake"):
        raise BuildError("CMake is not installed (apt install cmake build-essential; on Windows Visual Studio "
                         "Build Tools with CMake).")
    sdist_sha256 = _sha256(sdist)  # before the long build: the file may be gone by its end
    with tempfile.TemporaryDirectory(prefix="llama-server-") as tmp:
        tree = extract_llama_cpp(sdist, Path(tmp) / "src")
        out = Path(tmp) / "build"
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        for cmd in (["cmake", "-S", str(tree), "-B", str(out), *build_flags],
                    ["cmake", "--build", str(out), "--config", "Release", "--target", "llama-server", "-j", str(jobs)]):
            print("+", " ".join(cmd), file=sys.stderr, flush=True)
            done = subprocess.run(cmd, env=env, stdout=sys.stderr)
            if done.returncode != 0:
                raise BuildError(f"{cmd[0]} {cmd[1]} failed (exit {done.returncode}); its output is above.")
        binary = next((p for p in out.rglob(EXE) if p.is_file()), None)
        if binary is None:
            raise BuildError(f"The build finished but made no {EXE}.")
        if NO_TLS_MARK in binary.read_bytes():
            # CMake only warns when it finds no OpenSSL; a server without TLS would carry the site's
            # records in plain text, so such a build is refused, not cached.
            raise BuildError("The build found no OpenSSL, so llama-server would have no TLS: install its "
                             "development files (apt install libssl-dev; dnf install openssl-devel) and run "
                             "the build again.")
        staged = target.with_name(target.name + ".partial")
        shutil.rmtree(staged, ignore_errors=True)
        (staged / "bin").mkdir(parents=True)
        shutil.copy2(binary, staged / "bin" / EXE)
        license_file = tree / "LICENSE"
        if license_file.is_file():
            shutil.copy2(license_file, staged / "LICENSE-llama.cpp")
        stamp = {"llama_cpp_python": version, "sdist": sdist.name, "sdist_sha256": sdist_sha256,
                 "flags": build_flags}
        (staged / "build.json").write_text(json.dumps(stamp, indent=2) + "\n")
        shutil.rmtree(target, ignore_errors=True)
        staged.rename(target)  # a cache entry is whole or absent, never half-built
    return target / "bin" / EXE


def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def ensure(cuda: bool = False, native: bool = True, jobs: int | None = None, sdist: str | None = None,
           cache: Path | None = None, wheelhouse: Path | None = None) -> Path:
    """The path of a llama-server binary for the installed llama-cpp-python (on a host without it, for the
    version ``sdist`` is named for), built if not cached."""
    version = installed_version(sdist)
    build_flags = flags(cuda, native)
    target = cache_dir(cache or default_cache(), version, build_flags)
    binary = target / "bin" / EXE
    if binary.is_file():
        return binary
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="llama-sdist-") as work:
        found = find_sdist(version, sdist, wheelhouse or ROOT / "wheelhouse", Path(work))
        return build(version, found, target, build_flags, jobs or os.cpu_count() or 2)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cuda", action="store_true", help="build for NVIDIA GPUs (needs the CUDA toolkit)")
    ap.add_argument("--portable", action="store_true",
                    help="build for any x86-64 CPU of the same family, not only this one (slower)")
    ap.add_argument("--jobs", type=int, default=0, help="parallel compile jobs (default: all cores)")
    ap.add_argument("--sdist", help="the llama-cpp-python source distribution (.tar.gz) to build from")
    ap.add_argument("--wheelhouse", type=Path, help="a folder holding it (default: wheelhouse/)")
    ap.add_argument("--cache", type=Path, help=f"where built binaries are kept (default: {default_cache()})")
    ap.add_argument("--print-only", action="store_true", help="print the cached binary's path; build nothing")
    args = ap.parse_args(argv)
    try:
        if args.print_only:
            target = cache_dir(args.cache or default_cache(), installed_version(args.sdist),
                               flags(args.cuda, not args.portable))
            binary = target / "bin" / EXE
            if not binary.is_file():
                raise BuildError(f"No llama-server is built yet for these options (looked in {target}).")
        else:
            binary = ensure(args.cuda, not args.portable, args.jobs or None, args.sdist, args.cache, args.wheelhouse)
    except BuildError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
