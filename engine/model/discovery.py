"""Where chat models are found, and what to tell a person when there is none."""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from engine.errors import ModelFileError, NoModelFound
from engine.paths import app_root, data_dir, resource_root, sha256_file  # noqa: F401 - re-exported
from engine.model.packs import Progress
from engine.settings import Settings
from engine.site import Site

log = logging.getLogger(__name__)

RECOMMENDED = (
    "Qwen2.5-Coder-1.5B-Instruct Q4_K_M (the default, about 1.1 GB) or Qwen2.5-3B-Instruct Q4_K_M "
    "(about 2 GB, needs 4 GB of memory)"
)


def model_dirs() -> list[Path]:
    """Folders searched for ``*.gguf`` files, in order."""
    return [app_root() / "models", data_dir() / "models"]


def find_models() -> list[Path]:
    """Every GGUF file in the model folders, in the order they are chosen.

    A file someone copied in comes first (IT or the user chose it on purpose), then the
    models assembled from the installed packages, best first.
    """
    from engine.model.packs import PACKS

    rank = {pack.filename: n for n, pack in enumerate(PACKS, start=1)}
    found: list[Path] = []
    for folder in model_dirs():
        if folder.is_dir():
            # A broken link is listed too, so that it is reported rather than silently ignored.
            found += sorted(p for p in folder.glob("*.gguf") if p.is_file() or p.is_symlink())
    return sorted(found, key=lambda p: rank.get(p.name, 0))  # stable: folder order within a rank


def assembly_dirs() -> list[Path]:
    """Where a packaged model is assembled on first use: beside the app when that is the
    checkout or the bundle (and writable), else the user's data folder."""
    root = app_root()
    beside = [root / "models"] if getattr(sys, "frozen", False) or (root / "pyproject.toml").is_file() else []
    return beside + [data_dir() / "models"]


def no_model_message() -> str:
    dirs = " or ".join(str(d) for d in model_dirs())
    return (
        "No chat model is set up yet. The assistant needs a GGUF chat model file (a language model "
        "packed for llama.cpp, 1-5 GB). Install the default one with pip install \"hr-assistant[model]\" "
        "(README's install command does), or copy one into "
        f"{dirs}, choose it in Settings, pass --model FILE, or set HR_ASSISTANT_MODEL=FILE. "
        f"Models known to work well: {RECOMMENDED}; see models/README.md."
    )


def resolve_model_path(explicit: str | None, settings: Settings, progress: Progress | None = None) -> Path:
    """The model to load: ``--model``, then settings/environment, then the model folders, then the
    installed model package (assembled on first use; ``progress(done, total, what)`` reports it)."""
    from engine.site import load_site

    site = load_site()
    if site.models:
        return _allowed_model(site, explicit or settings.model_path)
    for candidate in (explicit, settings.model_path):
        if candidate:
            path = Path(candidate).expanduser()
            if not path.exists():
                raise ModelFileError(f"The model file {path} does not exist.", hint=no_model_message())
            return path
    from engine.model.gguf_info import read_gguf_info

    unusable: list[ModelFileError] = []
    for path in find_models():
        try:
            read_gguf_info(path)  # a damaged file in the folder must not hide a good one after it
            return path
        except ModelFileError as exc:
            log.warning("skipping unusable model file %s: %s", path, exc.message)
            unusable.append(exc)
    from engine.model.packs import ensure_default_model

    assembled = ensure_default_model(assembly_dirs(), progress)
    if assembled is not None:
        return assembled
    if unusable:
        raise unusable[0]
    raise NoModelFound("No chat model found.", hint=no_model_message())


def _allowed_model(site: Site, chosen: str) -> Path:
    """With a site list of allowed models: the chosen one if it is on the list, else the first there."""
    from engine.errors import SiteFileError

    allowed = [Path(m).expanduser() for m in site.models]
    if chosen:
        path = Path(chosen).expanduser()
        if not any(_same_file(path, a) for a in allowed):
            raise SiteFileError(f"The model {path} is not one your IT department allows.",
                                hint="Allowed: " + ", ".join(str(a) for a in allowed) + f" (set in {site.path}).")
        if not path.exists():
            raise ModelFileError(f"The model file {path} does not exist.", hint="Ask IT to install it.")
        return path
    for path in allowed:
        if path.exists():
            return path
    raise ModelFileError("None of the models your IT department allows is installed: "
                         + ", ".join(str(a) for a in allowed) + ".", hint=f"Ask IT (site file {site.path}).")


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve()
    except OSError:
        return False

