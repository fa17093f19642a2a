"""Run a little of the engine as another OS account (``nobody``), as a person at a site would.

The tests run as root; the checkout and the virtual environment may sit in folders other accounts
cannot enter (``/root``, ``mktemp -d``). So the few standard-library-only modules a check needs are
copied to a folder everyone can read, and run with a system Python the other account may execute.
"""

from __future__ import annotations

import atexit
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
NOBODY = 65534


def python_for_others() -> str | None:
    """A Python interpreter the account ``nobody`` may run (None when not root, or there is none)."""
    if not hasattr(os, "geteuid") or os.geteuid() != 0 or sys.platform == "win32":
        return None
    for candidate in (sys.executable, "/usr/bin/python3.11", "/usr/bin/python3", "/usr/local/bin/python3"):
        if not os.path.exists(candidate):
            continue
        try:
            if subprocess.run([candidate, "-c", "import sys; assert sys.version_info >= (3, 11)"], user=NOBODY,
                              capture_output=True, timeout=60).returncode == 0:
                return candidate
        except OSError:
            continue
    return None


def code_for_others(modules: list[str]) -> Path:
    """A folder everyone can read with copies of ``modules`` (paths under the checkout) and their packages."""
    folder = Path(tempfile.mkdtemp(prefix="hr-code-"))
    atexit.register(shutil.rmtree, folder, True)
    for rel in modules:
        parts = Path(rel).parts
        for i in range(1, len(parts)):  # each package's __init__
            init = ROOT.joinpath(*parts[:i], "__init__.py")
            if init.exists():
                (folder.joinpath(*parts[:i])).mkdir(parents=True, exist_ok=True)
                shutil.copy(init, folder.joinpath(*parts[:i], "__init__.py"))
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(ROOT / rel, folder / rel)
    for path in [folder, *folder.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    return folder


def run_as_nobody(python: str, code_dir: Path, script: str, env: dict | None = None,
                  cwd: str = "/") -> subprocess.CompletedProcess:
    prelude = f"import sys; sys.path.insert(0, {str(code_dir)!r})\n"
    return subprocess.run([python, "-c", prelude + script], user=NOBODY, capture_output=True, text=True,
                          timeout=120, env=env, cwd=cwd)
