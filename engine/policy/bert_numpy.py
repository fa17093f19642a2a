"""A BERT sentence encoder in plain numpy, for sentence-transformers folders of the
Transformer(BertModel) + mean Pooling [+ Normalize] layout, such as all-MiniLM-L6-v2.

Why not torch: the desktop bundle would carry about 750 MB of torch (plus transformers,
scipy and scikit-learn) to run a 22 M-parameter model, and importing it costs seconds at
every start. The forward pass below is the same arithmetic as transformers' BertModel in
float32 (tests compare vectors with sentence-transformers: cosine > 0.99999), reads the
weights straight from ``model.safetensors`` and tokenises with the model's own
``tokenizer.json`` through the Rust ``tokenizers`` package.
"""

from __future__ import annotations

import json
import struct
from typing import Any
from pathlib import Path

import numpy as np

_DTYPES = {"F32": np.float32, "F16": np.float16, "BF16": None, "I64": np.int64, "I32": np.int32}


_ROWS = 512  # tokens per block of element-wise work: 128 x 1536 floats fit in L2


class UnsupportedModel(Exception):
    """The folder is not a layout this encoder runs; the caller falls back to sentence-transformers."""


def read_safetensors(path: Path) -> dict[str, np.ndarray]:
    """All tensors of a .safetensors file as float32/int arrays (the format: u64 header size, JSON, raw)."""
    with open(path, "rb") as f:
        (size,) = struct.unpack("<Q", f.read(8))
        if size > 100_000_000:
            raise ValueError("header too large")
        header = json.loads(f.read(size))
        base = 8 + size
    raw = np.memmap(path, dtype=np.uint8, mode="r")
    tensors = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        start, end = (base + int(x) for x in info["data_offsets"])
        dtype = info["dtype"]
        if dtype == "BF16":  # bfloat16 is the top half of a float32
            arr = (np.frombuffer(raw[start:end], dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)
        elif dtype in _DTYPES:
            arr = np.frombuffer(raw[start:end], dtype=_DTYPES[dtype])
        else:
            raise UnsupportedModel(f"tensor {name} has dtype {dtype}")
        arr = arr.reshape(info["shape"])
        tensors[name] = arr.astype(np.float32) if arr.dtype.kind == "f" else np.array(arr)
    return tensors


def _erf(x: np.ndarray) -> np.ndarray:
    """erf to within 1.2e-7 (Numerical Recipes' erfc Chebyshev fit); numpy has none and scipy is 100 MB."""
    z = np.abs(x)
    t = 1.0 / (1.0 + 0.5 * z)
    poly = -z * z - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    erfc = t * np.exp(poly)
    return np.where(x >= 0, 1.0 - erfc, erfc - 1.0)


def _gelu(x: np.ndarray) -> np.ndarray:
    # BERT's "gelu" is the exact erf form; the tanh approximation would move vectors by ~1e-3.
    return 0.5 * x * (1.0 + _erf(x * np.float32(0.7071067811865476)).astype(np.float32))


def _linear(x: np.ndarray, weight: np.ndarray, bias: np.ndarray) -> np.ndarray:
    """x @ weight.T + bias for a torch-layout (out x in) weight.

    For a few rows (a search query) OpenBLAS is about 30% faster computing weight @ x.T;
    for many rows the two orders cost the same.
    """
    if len(x) <= 32:
        return (weight @ x.T).T + bias
    return x @ weight.T + bias


def _layer_norm(x: np.ndarray, weight: np.ndarray, bias: np.ndarray, eps: float) -> np.ndarray:
    mean = x.mean(-1, keepdims=True)
    centred = x - mean
    var = (centred * centred).mean(-1, keepdims=True)
    return centred / np.sqrt(var + eps) * weight + bias


class NumpyBertEncoder:
    """Mean-pooled, L2-normalised sentence vectors from a BERT sentence-transformers folder."""

    def __init__(self, folder: str | Path) -> None:
        self.path = Path(folder)
        config = self._json("config.json")
        if config.get("model_type") != "bert" or config.get("hidden_act", "gelu") != "gelu" \
                or config.get("position_embedding_type", "absolute") != "absolute":
            raise UnsupportedModel("not an absolute-position BERT with erf GELU")
        modules = self._json("modules.json") if (self.path / "modules.json").exists() else []
        kinds = [m.get("type", "").rsplit(".", 1)[-1] for m in modules]
        if kinds[:2] != ["Transformer", "Pooling"] or not set(kinds[2:]) <= {"Normalize"}:
            raise UnsupportedModel(f"module layout {kinds} is not Transformer + Pooling [+ Normalize]")
        pooling = self._json(Path(modules[1].get("path", "1_Pooling")) / "config.json")
        other_modes = ("cls_token", "max_tokens", "mean_sqrt_len_tokens", "weightedmean_tokens", "lasttoken")
        if not pooling.get("pooling_mode_mean_tokens") or any(pooling.get(f"pooling_mode_{m}") for m in other_modes):
            raise UnsupportedModel("pooling is not plain mean pooling")
        # Normalize as a module or not, the index stores unit vectors either way (cosine space).
        weights = self.path / "model.safetensors"
        if not weights.exists():
            raise UnsupportedModel("no model.safetensors")
        tokenizer_file = self.path / "tokenizer.json"
        if not tokenizer_file.exists():
            raise UnsupportedModel("no tokenizer.json")
        st_config = self._json("sentence_bert_config.json") if (self.path / "sentence_bert_config.json").exists() else {}

        from tokenizers import Tokenizer

        self.max_length = int(st_config.get("max_seq_length") or config.get("max_position_embeddings", 512))
        self.tokenizer = Tokenizer.from_file(str(tokenizer_file))
        self.tokenizer.no_padding()
        self.tokenizer.enable_truncation(max_length=self.max_length)

        self.heads = int(config["num_attention_heads"])
        self.eps = float(config.get("layer_norm_eps", 1e-12))
        tensors = read_safetensors(weights)
        prefix = "bert." if "bert.embeddings.word_embeddings.weight" in tensors else ""

        def get(name: str) -> np.ndarray:
            try:
                return tensors[prefix + name]
            except KeyError:
                raise UnsupportedModel(f"weight {prefix + name} missing") from None

        self.word = get("embeddings.word_embeddings.weight")
        self.position = get("embeddings.position_embeddings.weight")
        self.token_type = get("embeddings.token_type_embeddings.weight")[0]
        self.emb_norm = (get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias"))
        self.dim = int(self.word.shape[1])
        self.layers = []
        for i in range(int(config["num_hidden_layers"])):
            p = f"encoder.layer.{i}."
            # q, k and v as one (dim x 3*dim) matrix: one matmul instead of three.
            qkv_w = np.concatenate([get(p + f"attention.self.{n}.weight") for n in ("query", "key", "value")])
            qkv_b = np.concatenate([get(p + f"attention.self.{n}.bias") for n in ("query", "key", "value")])
            self.layers.append((
                qkv_w, qkv_b,
                get(p + "attention.output.dense.weight"), get(p + "attention.output.dense.bias"),
                get(p + "attention.output.LayerNorm.weight"), get(p + "attention.output.LayerNorm.bias"),
                get(p + "intermediate.dense.weight"), get(p + "intermediate.dense.bias"),
                get(p + "output.dense.weight"), get(p + "output.dense.bias"),
                get(p + "output.LayerNorm.weight"), get(p + "output.LayerNorm.bias"),
            ))
        tensors.clear()  # the layers keep what they use

    def _json(self, name: str | Path) -> Any:
        try:
            return json.loads((self.path / name).read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise UnsupportedModel(f"{name}: {exc}") from None

    def token_ids(self, texts: list[str]) -> list[list[int]]:
        return [enc.ids for enc in self.tokenizer.encode_batch(texts)]

    def _forward(self, ids: list[list[int]]) -> np.ndarray:
        """Pooled, normalised vectors for a group of token id lists.

        The sequences are packed end to end, not padded: the matrix products run over all
        real tokens at once, attention runs per sequence on its own slice, and the
        element-wise work goes in row blocks small enough to stay in the CPU cache
        (whole-batch temporaries made GELU alone cost 2.6 s for 25 long chunks).
        """
        lengths = np.array([len(x) for x in ids])
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
        tokens = np.fromiter((t for seq in ids for t in seq), dtype=np.int64, count=int(lengths.sum()))
        positions = np.concatenate([np.arange(n) for n in lengths])
        x = _layer_norm(self.word[tokens] + self.position[positions] + self.token_type, *self.emb_norm, self.eps)
        heads, head_dim, dim = self.heads, self.dim // self.heads, self.dim
        scale = np.float32(1.0 / np.sqrt(head_dim))
        context = np.empty_like(x)
        for (qkv_w, qkv_b, out_w, out_b, ln1_w, ln1_b, in_w, in_b, ff_w, ff_b, ln2_w, ln2_b) in self.layers:
            qkv = _linear(x, qkv_w, qkv_b)
            for start, n in zip(starts, lengths):
                block = qkv[start:start + n].reshape(n, 3, heads, head_dim).transpose(1, 2, 0, 3)
                q, k, v = (np.ascontiguousarray(block[i]) for i in range(3))
                scores = q @ k.transpose(0, 2, 1)
                scores *= scale
                scores -= scores.max(-1, keepdims=True)
                np.exp(scores, out=scores)
                scores /= scores.sum(-1, keepdims=True)
                context[start:start + n] = (scores @ v).transpose(1, 0, 2).reshape(n, dim)
            out = np.empty_like(x)
            for r in range(0, len(x), _ROWS):
                rows = slice(r, r + _ROWS)
                h = _layer_norm(_linear(context[rows], out_w, out_b) + x[rows], ln1_w, ln1_b, self.eps)
                out[rows] = _layer_norm(_linear(_gelu(_linear(h, in_w, in_b)), ff_w, ff_b) + h, ln2_w, ln2_b, self.eps)
            x = out
        pooled = np.add.reduceat(x, starts, axis=0) / lengths[:, None].astype(np.float32)
        norms = np.linalg.norm(pooled, axis=1, keepdims=True)
        return (pooled / np.maximum(norms, 1e-12)).astype(np.float32)

    def encode(self, texts: list[str], batch_size: int = 32, progress=None) -> np.ndarray:
        """Vectors in input order, ``batch_size`` texts per packed forward pass."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        ids = self.token_ids(texts)
        out = np.empty((len(ids), self.dim), dtype=np.float32)
        for start in range(0, len(ids), batch_size):
            out[start:start + batch_size] = self._forward(ids[start:start + batch_size])
            if progress is not None:
                progress(min(start + batch_size, len(ids)), len(ids))
        return out
