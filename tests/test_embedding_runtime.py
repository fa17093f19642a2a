"""The numpy BERT encoder against sentence-transformers on the real all-MiniLM-L6-v2."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

from engine.errors import SetupError
from engine.policy.bert_numpy import NumpyBertEncoder, _erf, read_safetensors
from engine.policy.embedder import Embedder, default_model_dir
from tests.conftest import REFERENCE, ROOT

TEXTS = [
    "How many sick days do I have left?",
    "Can I cash out unused vacation leave, and how much would I get for 10 days?",
    "",
    "Ünïcødé: Søren's naïve café résumé — 休暇 ✈️",
    "word " * 700,  # longer than the 256-token limit: truncated the same way
    (REFERENCE / "hr_policy.txt").read_text(encoding="utf-8", errors="replace")[:4000],
    (ROOT / "data" / "policies" / "leave-policy.md").read_text(encoding="utf-8")[:1500],
]


@pytest.fixture(scope="module")
def numpy_encoder():
    return NumpyBertEncoder(default_model_dir())


@pytest.fixture(scope="module")
def reference_model():
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(default_model_dir()), device="cpu", local_files_only=True)


def test_same_tokens_and_vectors_as_sentence_transformers(numpy_encoder, reference_model):
    expected_ids = reference_model.tokenizer(TEXTS, truncation=True, max_length=256)["input_ids"]
    assert numpy_encoder.token_ids(TEXTS) == expected_ids
    ours = numpy_encoder.encode(TEXTS, batch_size=3)  # several packed batches of mixed lengths
    theirs = reference_model.encode(TEXTS, normalize_embeddings=True, convert_to_numpy=True)
    assert ours.shape == theirs.shape == (len(TEXTS), 384) and ours.dtype == np.float32
    assert (ours * theirs).sum(1).min() > 0.99999
    assert np.abs(ours - theirs).max() < 1e-4
    np.testing.assert_allclose(np.linalg.norm(ours, axis=1), 1.0, atol=1e-5)


def test_a_vector_does_not_depend_on_its_batch(numpy_encoder):
    alone = numpy_encoder.encode([TEXTS[1]])
    together = numpy_encoder.encode(TEXTS, batch_size=len(TEXTS))[1:2]
    assert np.abs(alone - together).max() < 1e-5


def test_default_embedder_runs_without_torch(tmp_path):
    """Index and search the sample policies in a fresh process: torch must never be imported."""
    code = (
        "import sys\n"
        "from engine.policy.embedder import Embedder\n"
        "from engine.policy.index import PolicyIndex\n"
        "e = Embedder()\n"
        "assert e.runtime == 'numpy', e.runtime\n"
        f"idx = PolicyIndex({str(ROOT / 'data' / 'policies')!r}, e, store=__import__('pathlib').Path({str(tmp_path)!r}))\n"
        "idx.update()\n"
        "hits = idx.search('how many sick days', k=2)\n"
        "print(hits[0].source)\n"
        # (bm25s probes for scipy by itself; the bundle leaves scipy out and bm25s uses numpy.)
        "print(sorted(m for m in ('torch', 'transformers', 'sentence_transformers', 'sklearn') "
        "if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.strip().splitlines()
    assert "leave" in lines[0] and lines[-1] == "[]"


def _variant(tmp_path, pooling: dict):
    """A copy of the default model folder (weights linked, not copied) with another pooling config."""
    src = default_model_dir()
    dst = tmp_path / "variant"
    (dst / "1_Pooling").mkdir(parents=True)
    for f in src.iterdir():
        if f.is_file():
            (dst / f.name).symlink_to(f)
    (dst / "1_Pooling" / "config.json").write_text(json.dumps(pooling))
    return dst


def test_other_layouts_fall_back_to_sentence_transformers(tmp_path):
    folder = _variant(tmp_path, {"word_embedding_dimension": 384, "pooling_mode_cls_token": True,
                                 "pooling_mode_mean_tokens": False})
    auto = Embedder(folder)
    assert auto.runtime == "sentence-transformers" and auto.dim == 384
    vec = auto.encode_query("sick leave")
    assert vec.shape == (1, 384)
    with pytest.raises(SetupError, match="cannot run without torch"):
        Embedder(folder, runtime="numpy")
    with pytest.raises(SetupError, match="Unknown embedding runtime"):
        Embedder(folder, runtime="cuda")


def test_same_identity_for_both_runtimes():
    # An index built by one runtime is searched by the other without a rebuild.
    assert Embedder(runtime="numpy").identity == Embedder(runtime="sentence-transformers").identity


def test_safetensors_reader_all_float_formats(tmp_path):
    from safetensors.numpy import save_file

    rng = np.random.default_rng(1)
    data = {"a": rng.standard_normal((3, 5)).astype(np.float32), "b": rng.standard_normal(7).astype(np.float16),
            "c": np.arange(4, dtype=np.int64)}
    save_file(data, str(tmp_path / "t.safetensors"))
    got = read_safetensors(tmp_path / "t.safetensors")
    np.testing.assert_array_equal(got["a"], data["a"])
    np.testing.assert_array_equal(got["b"], data["b"].astype(np.float32))
    np.testing.assert_array_equal(got["c"], data["c"])
    # bfloat16 by hand: the top 16 bits of float32 values that bfloat16 represents exactly.
    exact = np.array([1.0, -2.5, 0.15625], dtype=np.float32)
    header = json.dumps({"x": {"dtype": "BF16", "shape": [3], "data_offsets": [0, 6]}}).encode()
    raw = (exact.view(np.uint32) >> 16).astype(np.uint16).tobytes()
    (tmp_path / "bf.safetensors").write_bytes(len(header).to_bytes(8, "little") + header + raw)
    np.testing.assert_array_equal(read_safetensors(tmp_path / "bf.safetensors")["x"], exact)


def test_erf_matches_math_erf():
    xs = np.linspace(-6, 6, 2001)
    expected = np.array([math.erf(v) for v in xs])
    assert np.abs(_erf(xs) - expected).max() < 2e-7


def test_broken_model_folder_is_a_setup_error(tmp_path):
    folder = _variant(tmp_path, {"pooling_mode_mean_tokens": True})
    (folder / "model.safetensors").unlink()
    (folder / "model.safetensors").write_bytes(b"\x10\x00\x00\x00\x00\x00\x00\x00{not json}")
    with pytest.raises(SetupError, match="cannot be loaded"):
        Embedder(folder)


@pytest.mark.skipif(os.environ.get("HR_ASSISTANT_EMBEDDING_RUNTIME") not in (None, "auto"),
                    reason="the runtime is forced by the environment")
def test_environment_chooses_the_runtime(monkeypatch):
    monkeypatch.setenv("HR_ASSISTANT_EMBEDDING_RUNTIME", "sentence-transformers")
    assert Embedder().runtime == "sentence-transformers"
    monkeypatch.delenv("HR_ASSISTANT_EMBEDDING_RUNTIME")
    assert Embedder().runtime == "numpy"


def test_without_torch_other_layouts_get_a_clear_message(tmp_path, monkeypatch):
    """What the bundle (no torch) says for a model the numpy encoder cannot run."""
    folder = _variant(tmp_path, {"pooling_mode_cls_token": True})
    monkeypatch.setitem(sys.modules, "sentence_transformers", None)  # import now raises ImportError
    with pytest.raises(SetupError, match="needs sentence-transformers and torch, which this installation does not"):
        Embedder(folder)
    assert Embedder().runtime == "numpy"  # the built-in model still works
