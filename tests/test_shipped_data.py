"""Every per-language data folder of the engine ships: in the wheel (pyproject's package-data) and in the
bundle (build.spec's datas). A folder left out is no error anywhere: the words are silently missing."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def lang_folders() -> list[Path]:
    return sorted({p.parent for p in (ROOT / "engine").rglob("lang/*.toml")})


def test_there_are_language_folders():
    assert {f.relative_to(ROOT).as_posix() for f in lang_folders()} >= {
        "engine/agent/lang", "engine/agent/rules/lang", "engine/data/lang", "engine/policy/lang"}


def test_every_language_folder_is_in_the_wheel_and_the_bundle():
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    spec = (ROOT / "build.spec").read_text()
    for folder in lang_folders():
        package = ".".join(folder.parent.relative_to(ROOT).parts)
        assert "lang/*.toml" in package_data.get(package, []), f"{package}: lang/*.toml not in package-data"
        parts = " / ".join(f'"{p}"' for p in folder.relative_to(ROOT).parts)
        assert f"ROOT / {parts})" in spec, f"{folder.relative_to(ROOT)} not in build.spec's datas"
