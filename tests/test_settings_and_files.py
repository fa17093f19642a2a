"""Settings persistence, model-file validation, and the layering rule."""

from __future__ import annotations

import ast
import json
import os
import struct
from pathlib import Path

import pytest

from engine.errors import ModelFileError, SettingsError, SetupError
from engine.model.gguf_info import read_gguf_info
from engine.model.discovery import no_model_message, resolve_model_path
from engine.settings import Settings, load_settings, save_settings, settings_file

ROOT = Path(__file__).resolve().parent.parent


def test_settings_roundtrip_atomic(tmp_path):
    s = Settings(n_ctx=8192, temperature=0.0, user="Ana Cruz")
    path = save_settings(s)
    assert path == settings_file() and json.loads(path.read_text())["n_ctx"] == 8192
    assert load_settings() == s
    assert [p.name for p in path.parent.iterdir()] == ["settings.json"]  # no temp file left behind


@pytest.mark.parametrize("change", [{"n_ctx": 10}, {"temperature": 5.0}, {"n_threads": -1}, {"n_ctx": "big"},
                                    {"max_steps": 0}])
def test_out_of_bounds_settings_are_refused_with_reason(change):
    with pytest.raises(SettingsError) as info:
        Settings().replace(**change)
    assert list(change)[0] in str(info.value)


def test_damaged_settings_file_falls_back_to_defaults_and_is_kept():
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("{not json")
    assert load_settings() == Settings()
    assert path.with_suffix(".json.bad").read_text() == "{not json"


def test_every_damaged_settings_file_is_kept_and_deep_nesting_is_damage_too():
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text("{first")
    load_settings()
    path.write_text("[" * 100_000 + "]" * 100_000)  # json.loads hits the recursion limit
    assert load_settings() == Settings()
    assert path.with_suffix(".json.bad").read_text() == "{first"  # the first copy is not overwritten
    assert path.with_name("settings.json.bad.1").read_text().startswith("[[[")


def test_non_finite_numbers_are_refused():
    with pytest.raises(SettingsError, match="finite"):
        Settings().replace(temperature=float("nan"))
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text('{"temperature": NaN, "n_ctx": 2048}')
    s = load_settings()
    assert s.temperature == Settings().temperature and s.n_ctx == 2048


def test_invalid_value_in_file_keeps_the_valid_ones():
    path = settings_file()
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps({"n_ctx": 1, "temperature": 0.7, "unknown": 3}))
    s = load_settings()
    assert s.n_ctx == Settings().n_ctx and s.temperature == 0.7


def test_environment_overrides_model(monkeypatch, tmp_path):
    monkeypatch.setenv("HR_ASSISTANT_MODEL", str(tmp_path / "m.gguf"))
    assert load_settings().model_path == str(tmp_path / "m.gguf")


def test_missing_model_says_what_to_do(monkeypatch):
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [])
    with pytest.raises(SetupError) as info:
        resolve_model_path(None, Settings())
    assert "GGUF" in info.value.hint and "HR_ASSISTANT_MODEL" in info.value.hint
    assert "GGUF chat model" in no_model_message()


def test_model_found_in_models_folder(tmp_path, monkeypatch):
    (tmp_path / "b.gguf").write_bytes(_gguf_header())
    (tmp_path / "a.gguf").write_bytes(_gguf_header())
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [tmp_path])
    assert resolve_model_path(None, Settings()).name == "a.gguf"
    (tmp_path / "a.gguf").write_bytes(b"GGUF")  # truncated: skipped for the next good file
    assert resolve_model_path(None, Settings()).name == "b.gguf"


def _gguf_header(version=3, tensors=1, kvs=0) -> bytes:
    return b"GGUF" + struct.pack("<IQQ", version, tensors, kvs)


@pytest.mark.parametrize(
    "content, needle",
    [
        (b"", "empty file"),
        (b"PK\x03\x04 this is a zip", "not a GGUF"),
        (b"\x80\x02 pickle", "PyTorch"),
        (_gguf_header(version=9), "GGUF version 9"),
        (_gguf_header(kvs=3), "truncated"),
        (_gguf_header(tensors=0), "no model weights"),
        (_gguf_header(kvs=10**9), "damaged"),
    ],
)
def test_bad_model_files_get_clear_messages(tmp_path, content, needle):
    path = tmp_path / "model.gguf"
    path.write_bytes(content)
    with pytest.raises(ModelFileError) as info:
        read_gguf_info(path)
    assert needle in str(info.value)
    assert str(path) in info.value.message


def test_missing_and_folder_model(tmp_path):
    with pytest.raises(ModelFileError, match="does not exist"):
        read_gguf_info(tmp_path / "nope.gguf")
    with pytest.raises(ModelFileError, match="is a folder"):
        read_gguf_info(tmp_path)


def _lint_imports(cwd):
    import shutil
    import subprocess
    import sys

    exe = shutil.which("lint-imports", path=str(Path(sys.executable).parent)) or shutil.which("lint-imports")
    assert exe, "import-linter is a dev dependency: pip install -e '.[dev]'"
    env = {**os.environ, "PYTHONPATH": str(cwd)}
    return subprocess.run([exe], cwd=cwd, capture_output=True, text=True, env=env, timeout=300)


def test_the_import_contracts_hold():
    """The layers declared in pyproject.toml (engine: cli → … → model → settings → site → paths; the window
    above its worker above the engine; no Qt in the engine) hold, lazy imports included."""
    out = _lint_imports(ROOT)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-2000:]
    assert out.stdout.count("KEPT") == 3


def test_an_import_back_up_breaks_the_contracts(tmp_path):
    """The contracts are not decoration: the checkout with one lazy import from the bottom back up (paths
    importing settings, the circle there used to be) fails them."""
    import shutil

    for name in ("engine", "desktop"):
        shutil.copytree(ROOT / name, tmp_path / name, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    with open(tmp_path / "engine" / "paths.py", "a", encoding="utf-8") as fh:
        fh.write("\n\ndef _probe():\n    from engine.settings import Settings\n\n    return Settings\n")
    out = _lint_imports(tmp_path)
    assert out.returncode != 0 and "BROKEN" in out.stdout and "engine.paths -> engine.settings" in out.stdout


def test_engine_imports_without_qt_installed():
    """Importing the engine (CLI included) loads no Qt module."""
    import subprocess
    import sys

    code = ("import sys, engine.cli, engine.agent.loop, engine.assistant, engine.model.llama; "
            "print(sorted(m for m in sys.modules if m.startswith(('PySide6', 'desktop'))))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_only_one_module_imports_llama_cpp():
    users = set()
    for path in [*(ROOT / "engine").rglob("*.py"), *(ROOT / "desktop").rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "llama_cpp" for a in node.names):
                users.add(path.name)
            if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "llama_cpp":
                users.add(path.name)
    assert users == {"llama.py"}
