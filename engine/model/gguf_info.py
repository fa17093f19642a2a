"""Read a GGUF file's header and metadata without loading the model.

Used to validate a model file before llama.cpp sees it (so a wrong file gets a
clear message instead of a crash), to show a model's name, size, context length
and architecture in the app, and to fetch its chat template. Large arrays (the
vocabulary) are skipped, not decoded, so this takes milliseconds even for
multi-gigabyte files.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

from engine.errors import ModelFileError

GGUF_MAGIC = b"GGUF"
_SCALARS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 6: "<f", 7: "<?", 10: "<Q", 11: "<q", 12: "<d"}
_STRING, _ARRAY = 8, 9
_MAX_KV = 100_000
_MAX_STRING = 64 * 1024 * 1024
_MAX_NESTING = 4

@dataclass
class GGUFInfo:
    """What the app needs to know about a model file."""

    path: Path
    version: int
    tensor_count: int
    metadata: dict[str, Any] = field(repr=False)

    @property
    def architecture(self) -> str:
        return str(self.metadata.get("general.architecture", ""))

    @property
    def name(self) -> str:
        return str(self.metadata.get("general.name") or self.path.stem)

    def arch_value(self, key: str, default: Any = None) -> Any:
        return self.metadata.get(f"{self.architecture}.{key}", default)

    @property
    def context_length(self) -> int:
        return int(self.arch_value("context_length", 0) or 0)

    @property
    def n_layer(self) -> int:
        return int(self.arch_value("block_count", 0) or 0)

    @property
    def n_embd(self) -> int:
        return int(self.arch_value("embedding_length", 0) or 0)

    @property
    def chat_template(self) -> str | None:
        value = self.metadata.get("tokenizer.chat_template")
        return value if isinstance(value, str) and value.strip() else None

    @property
    def vocab_size(self) -> int:
        return int(self.metadata.get("tokenizer.ggml.tokens", 0) or 0)

    @property
    def size_bytes(self) -> int:
        return self.path.stat().st_size

    def kv_cache_bytes(self, n_ctx: int) -> int:
        """Memory of an f16 KV cache of ``n_ctx`` tokens (an estimate for the memory check)."""
        n_head = _first_int(self.arch_value("attention.head_count", 0))
        n_head_kv = _first_int(self.arch_value("attention.head_count_kv", n_head)) or n_head
        if not (n_head and self.n_embd and self.n_layer):
            return 0
        head_dim_k = int(self.arch_value("attention.key_length", self.n_embd // n_head))
        head_dim_v = int(self.arch_value("attention.value_length", self.n_embd // n_head))
        return n_ctx * self.n_layer * n_head_kv * (head_dim_k + head_dim_v) * 2

    def summary(self) -> dict[str, Any]:
        return {
            "file": str(self.path),
            "name": self.name,
            "architecture": self.architecture,
            "size_bytes": self.size_bytes,
            "context_length": self.context_length,
            "layers": self.n_layer,
            "vocab_size": self.vocab_size,
            "has_chat_template": self.chat_template is not None,
        }


def _first_int(value: Any) -> int:
    # Some models store per-layer head counts as arrays; here arrays are lengths,
    # so fall back to 0 and let the caller guess.
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


class _Reader:
    def __init__(self, fh: BinaryIO, path: Path) -> None:
        self.fh = fh
        self.path = path

    def read(self, n: int) -> bytes:
        data = self.fh.read(n)
        if len(data) != n:
            raise ModelFileError(
                f"The model file {self.path} is truncated (it ends inside its header).",
                hint="The download or copy was probably interrupted: copy the file again and compare its SHA-256.",
            )
        return data

    def scalar(self, vtype: int) -> Any:
        fmt = _SCALARS[vtype]
        return struct.unpack(fmt, self.read(struct.calcsize(fmt)))[0]

    def string(self) -> str:
        (n,) = struct.unpack("<Q", self.read(8))
        if n > _MAX_STRING:
            raise self.corrupt(f"a string of {n} bytes")
        return self.read(n).decode("utf-8", errors="replace")

    def skip_string(self) -> None:
        (n,) = struct.unpack("<Q", self.read(8))
        if n > _MAX_STRING:
            raise self.corrupt(f"a string of {n} bytes")
        self.fh.seek(n, 1)

    def value(self, vtype: int, depth: int = 0) -> Any:
        """A scalar or string; for an array (the vocabulary, merges) only its length: arrays are skipped.
        Arrays nest at most a few levels (llama.cpp writes none nested at all): deeper is damage, not
        a reason to exhaust Python's stack."""
        if vtype in _SCALARS:
            return self.scalar(vtype)
        if vtype == _STRING:
            return self.string()
        if vtype == _ARRAY:
            (etype,) = struct.unpack("<I", self.read(4))
            (count,) = struct.unpack("<Q", self.read(8))
            if count > 50_000_000:
                raise self.corrupt(f"an array of {count} items")
            if etype in _SCALARS:
                self.fh.seek(struct.calcsize(_SCALARS[etype]) * count, 1)
            elif etype == _STRING:
                for _ in range(count):
                    self.skip_string()
            elif depth >= _MAX_NESTING:
                raise self.corrupt(f"arrays nested more than {_MAX_NESTING} deep")
            else:
                for _ in range(count):
                    self.value(etype, depth + 1)
            return count
        raise self.corrupt(f"an unknown value type {vtype}")

    def corrupt(self, what: str) -> ModelFileError:
        return ModelFileError(
            f"The model file {self.path} is damaged: its header contains {what}.",
            hint="Copy the file again, or download it again from its publisher, and check its SHA-256.",
        )


def read_gguf_info(path: str | Path) -> GGUFInfo:
    """Validate the header of a GGUF file and return its metadata.

    Raises :class:`ModelFileError` with a message for a person when the file is
    missing, unreadable, not a GGUF, or damaged.
    """
    path = Path(path).expanduser()
    if path.is_symlink() and not path.exists():
        try:
            path.resolve(strict=True)
            problem = "points nowhere"
        except RuntimeError:  # Python < 3.13 reports a loop as RuntimeError
            problem = "is a link loop"
        except OSError as exc:
            problem = "is a link loop" if exc.errno == 40 else "is a link to a file that does not exist"
        raise ModelFileError(f"The model file {path} {problem}.",
                             hint="Replace the link by the .gguf file itself, or point it at one that exists.")
    if not path.exists():
        raise ModelFileError(
            f"The model file {path} does not exist.",
            hint="Put a GGUF chat model in the models folder or choose the file in Settings (see models/README.md).",
        )
    if path.is_dir():
        raise ModelFileError(f"{path} is a folder, not a model file.", hint="Choose the .gguf file inside it.")
    try:
        fh = path.open("rb")
    except OSError as exc:
        raise ModelFileError(f"The model file {path} cannot be opened: {exc.strerror}.",
                             hint="Check that your account may read it.") from exc
    with fh:
        magic = fh.read(4)
        if magic != GGUF_MAGIC:
            kind = "an empty file" if not magic else f"a file that starts with {magic!r}"
            hint = "Use a .gguf file (for example Qwen2.5-1.5B-Instruct Q4_K_M); see models/README.md."
            if magic[:2] == b"PK" or magic.startswith(b"\x80"):
                hint = ("This looks like a PyTorch/safetensors checkpoint; the app needs the GGUF conversion "
                        "of the model. " + hint)
            raise ModelFileError(f"{path} is not a GGUF model: it is {kind}.", hint=hint)
        reader = _Reader(fh, path)
        (version,) = struct.unpack("<I", reader.read(4))
        if version not in (2, 3):
            raise ModelFileError(
                f"The model file {path} uses GGUF version {version}, which this app does not read.",
                hint="Use a file converted with a recent llama.cpp (GGUF version 3).",
            )
        tensor_count, kv_count = struct.unpack("<QQ", reader.read(16))
        if kv_count > _MAX_KV or tensor_count > 1_000_000:
            raise reader.corrupt(f"{kv_count} metadata entries and {tensor_count} tensors")
        metadata: dict[str, Any] = {}
        for _ in range(kv_count):
            key = reader.string()
            (vtype,) = struct.unpack("<I", reader.read(4))
            metadata[key] = reader.value(vtype)
    if tensor_count == 0:
        raise ModelFileError(f"The file {path} holds no model weights (it is a GGUF without tensors).",
                             hint="Choose the model file itself, not a vocabulary or adapter file.")
    return GGUFInfo(path=path, version=version, tensor_count=tensor_count, metadata=metadata)


def known_architectures() -> frozenset[str]:
    """Architectures llama.cpp knows, from the gguf package that ships with it."""
    try:
        from gguf.constants import MODEL_ARCH_NAMES
    except Exception:  # pragma: no cover - gguf is a declared dependency
        return frozenset()
    return frozenset(MODEL_ARCH_NAMES.values())
