"""Where the app's files are, and how they are written: the bottom of the engine's configuration.

Everything above imports from here, nothing here imports the engine (the import contracts in
``pyproject.toml`` hold it): ``engine.model`` → ``engine.settings`` → ``engine.site`` → ``engine.paths``.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
from pathlib import Path

APP_NAME = "hr-assistant"
_CHECKOUT = Path(__file__).resolve().parents[1]  # engine/paths.py -> the checkout (or site-packages)


def app_root() -> Path:
    """The folder of the executable (PyInstaller bundle) or of the source checkout."""
    if getattr(sys, "frozen", False):
        return Path(sys.executable).resolve().parent
    return _CHECKOUT


def resource_root() -> Path:
    """Read-only files shipped with the app (the sample company): inside the bundle, or the checkout."""
    if getattr(sys, "frozen", False):
        return Path(getattr(sys, "_MEIPASS", Path(sys.executable).resolve().parent))
    return _CHECKOUT


def config_dir() -> Path:
    """Per-user configuration directory (created on demand)."""
    override = os.environ.get("HR_ASSISTANT_CONFIG_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False))


def data_dir() -> Path:
    """Per-user data directory: conversations, indexes, audit log, models."""
    override = os.environ.get("HR_ASSISTANT_DATA_DIR")
    if override:
        return Path(override)
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME, appauthor=False))


def settings_file() -> Path:
    return config_dir() / "settings.json"


def atomic_write_text(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so readers see the old or the new file, never half of one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def keep_aside(path: Path) -> Path:
    """Move a damaged file out of the way as ``<name>.bad`` (``.bad.1``, ``.bad.2``… when one
    is there already: every damaged copy is kept for whoever wants to repair it)."""
    target = path.with_name(path.name + ".bad")
    n = 0
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.bad.{n}")
    os.replace(path, target)
    return target


def sha256_file(path: Path, chunk: int = 8 * 1024 * 1024) -> str:
    """The SHA-256 of a file, read in chunks (model files are gigabytes)."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        while block := fh.read(chunk):
            digest.update(block)
    return digest.hexdigest()
