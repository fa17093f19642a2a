"""Shared fixtures: an isolated user directory, and a tiny real GGUF model made once per session."""

from __future__ import annotations

import os
import socket
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "tests" / "reference" / "autonomous-hr-chatbot"  # an unchanged copy (MIT); see its README
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


def release_append_only(root: Path) -> int:
    """Clear Linux's append-only flag (``chattr -a``) on every file under ``root``; returns how many.

    ``admin init-audit`` sets that flag on the audit logs tests make, and even root cannot delete
    such a file: left set, pytest cannot remove its old temporary folders, and a machine that runs
    the suite again and again fills its disk (CI failed on that: "No space left on device")."""
    import array
    import fcntl

    get_flags, set_flags, append_fl = 0x80086601, 0x40086602, 0x20
    cleared = 0
    for folder, _dirs, files in os.walk(root):
        for name in files:
            try:
                fd = os.open(os.path.join(folder, name), os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW)
            except OSError:
                continue
            try:
                flags = array.array("l", [0])
                fcntl.ioctl(fd, get_flags, flags, True)
                if flags[0] & append_fl:
                    flags[0] &= ~append_fl
                    fcntl.ioctl(fd, set_flags, flags, True)
                    cleared += 1
            except OSError:
                pass
            finally:
                os.close(fd)
    return cleared


@pytest.fixture(autouse=True)
def _isolated_user_dirs(tmp_path, monkeypatch):
    """Settings, data and logs of each test go to its own temporary folder (left removable)."""
    monkeypatch.setenv("HR_ASSISTANT_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("HR_ASSISTANT_DATA_DIR", str(tmp_path / "data"))
    for var in ("HR_ASSISTANT_MODEL", "HR_ASSISTANT_EMPLOYEES", "HR_ASSISTANT_POLICIES", "HR_ASSISTANT_SITE_FILE"):
        monkeypatch.delenv(var, raising=False)
    yield
    if sys.platform == "linux":
        release_append_only(tmp_path)


@pytest.fixture
def site_file(tmp_path, monkeypatch):
    """Write a site file (root-owned, as IT's would be: the tests run as root) and put it in force."""
    def write(text: str) -> Path:
        folder = tmp_path / "etc-hr-assistant"
        folder.mkdir(exist_ok=True)
        path = folder / "site.toml"
        path.write_text(text, encoding="utf-8")
        path.chmod(0o644)
        monkeypatch.setenv("HR_ASSISTANT_SITE_FILE", str(path))
        return path
    return write


@pytest.fixture(autouse=True)
def _no_model_packs(monkeypatch):
    """Tests see no installed model package unless they ask for one: "no model found" stays testable,
    and nothing assembles a 1 GB model into the checkout behind a test's back."""
    monkeypatch.setattr("engine.model.packs.PACKS", ())


@pytest.fixture(autouse=True)
def _no_network(monkeypatch):
    """No test may open a network connection (loopback socketpairs are fine)."""

    def guard(self, address, *args, **kwargs):
        host = address[0] if isinstance(address, tuple) else address
        if isinstance(host, str) and (host.startswith("127.") or host in ("localhost", "::1") or host.startswith("/")):
            return real_connect(self, address, *args, **kwargs)
        raise AssertionError(f"network access attempted: {address!r}")

    real_connect = socket.socket.connect
    monkeypatch.setattr(socket.socket, "connect", guard)


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory) -> Path:
    from tests.model_factory import write_tiny_gguf

    return write_tiny_gguf(tmp_path_factory.mktemp("models") / "tiny-random.gguf")


@pytest.fixture(scope="session")
def tiny_backend(tiny_model_path):
    """The real llama.cpp backend on the tiny model (loaded once: loading is the slow part)."""
    from engine.model.llama import LlamaBackend
    from engine.settings import Settings

    backend = LlamaBackend(tiny_model_path, Settings(n_ctx=8192, n_threads=2, temperature=0.8, seed=1))
    yield backend
    backend.close()


def real_model_path(pack_name: str) -> Path:
    """A real chat model from its installed chunk packages, assembled once into build/test-models/.

    Skips when the packages are not installed, except under CI, where README's test command
    installs them and a missing model must fail, not silently skip the real-model tier.
    """
    from engine.model import packs as model_packs

    pack = {p.id: p for p in (model_packs.QWEN_15B, model_packs.QWEN_05B)}[pack_name]
    folder = ROOT / "build" / "test-models"
    if model_packs.is_assembled(pack, folder):
        return folder / pack.filename
    if not model_packs.installed(pack):
        message = f"{pack.display_name} is not installed (pip install -e '.[{pack.extra}]')"
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    return model_packs.assemble(pack, folder)


def _build_script():
    """scripts/build_llama_server.py as a module (it is a script, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("build_llama_server", ROOT / "scripts" / "build_llama_server.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="session")
def server_binary():
    """llama.cpp's llama-server, built once from the pinned llama-cpp-python source (cached by version)."""
    build = _build_script()
    try:
        return build.ensure(jobs=None)
    except build.BuildError as exc:  # a missing compiler is a failed setup, not a skipped tier
        pytest.fail(f"llama-server could not be built: {exc}")


_TIERS = ("llamaserver", "realmodel", "packaging", "slow")


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    """What did not run, grouped by tier and reason, at the end of the log: a tier skipped for want of
    nginx or root must be seen in CI's summary, not pass for tested."""
    groups: dict[tuple[str, str], list[str]] = {}
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
        if hasattr(report, "keywords"):
            tier = next((t for t in _TIERS if t in report.keywords), "fast") + " tier"
        else:  # skipped while collecting (importorskip): the file's markers are not known yet
            tier = "a whole file"
        groups.setdefault((tier, reason.removeprefix("Skipped: ")), []).append(report.nodeid.split("::")[0])
    if not groups:
        return
    terminalreporter.section("skipped tiers and why", sep="=", bold=True)
    for (tier, reason), files in sorted(groups.items()):
        where = ", ".join(sorted(set(files)))
        terminalreporter.write_line(f"{tier}: {len(files)} skipped ({where}): {reason}")
