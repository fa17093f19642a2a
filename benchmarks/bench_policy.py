"""Policy search quality and speed.

* Recall@4 and MRR of the answering passage on our labelled set (sample company)
  and on a labelled set for the reference manual, for the hybrid search and, as
  baselines measured in the same run, dense-only and fixed-size chunks without
  heading paths (the naive design).
* Query latency (embedding plus search) p50/p95 with the models loaded.
* Index build: chunks per second and seconds for the reference manual after model
  load; an unchanged re-index.
Usage: python benchmarks/bench_policy.py
"""

from __future__ import annotations

import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.policy.chunker import Chunk  # noqa: E402
from engine.policy.embedder import Embedder  # noqa: E402
from engine.policy.index import PolicyIndex  # noqa: E402

REFERENCE = ROOT / "tests" / "reference" / "autonomous-hr-chatbot" / "hr_policy.txt"
K = 4


def load_set(name: str) -> list[dict]:
    return [json.loads(line) for line in (ROOT / "benchmarks" / name).read_text(encoding="utf-8").splitlines() if line]


def answers(hit, q: dict) -> bool:
    """The hit is the answering passage: it covers the labelled line, or sits under the labelled heading."""
    if Path(hit.source).name != q["source"]:
        return False
    if "line" in q:
        return hit.line_start <= q["line"] <= hit.line_end
    return q["section"] in hit.section


def evaluate(search, questions) -> tuple[float, float, list[str]]:
    found, rr, misses = 0, 0.0, []
    for q in questions:
        hits = search(q["q"])
        rank = next((i for i, h in enumerate(hits[:K], start=1) if answers(h, q)), None)
        if rank:
            found += 1
            rr += 1 / rank
        else:
            misses.append(q["q"])
    return found / len(questions), rr / len(questions), misses


def dense_only(index: PolicyIndex):
    def search(query):
        vec = index.embedder.encode([query])
        labels, _ = index._hnsw.knn_query(vec, k=min(K, len(index.chunks)))
        return [_hit(index.chunks[i]) for i in labels[0]]
    return search


def _hit(c: Chunk):
    from engine.policy.index import Hit

    return Hit(c.text, c.source, c.section, c.location(), 0.0, c.line_start, c.line_end, c.page)


def naive_index(path: Path, embedder: Embedder):
    """Fixed 100-word windows without headings: what the old app's text splitter did."""
    import hnswlib

    from engine.policy.loaders import load_lines

    words: list[tuple[str, int]] = [(w, line.number) for line in load_lines(path) for w in line.text.split()]
    chunks = []
    for i in range(0, len(words), 80):
        window = words[i:i + 100]
        chunks.append(Chunk(path.name, "", " ".join(w for w, _ in window), window[0][1], window[-1][1]))
    vecs = embedder.encode([c.text for c in chunks])
    index = hnswlib.Index(space="cosine", dim=embedder.dim)
    index.init_index(max_elements=len(chunks), ef_construction=200, M=16)
    index.add_items(vecs, list(range(len(chunks))))

    def search(query):
        labels, _ = index.knn_query(embedder.encode([query]), k=K)
        return [_hit(chunks[i]) for i in labels[0]]
    return search


def main() -> None:
    t0 = time.perf_counter()
    embedder = Embedder()
    load_s = time.perf_counter() - t0
    print(f"machine: {platform.machine()} {platform.system()}, 2 cores; embedding model {embedder.name} "
          f"({embedder.dim} dims) loaded in {load_s:.1f}s")
    with tempfile.TemporaryDirectory() as tmp:
        ours = PolicyIndex(ROOT / "data" / "policies", embedder, store=Path(tmp) / "ours")
        r = ours.update()
        ref = PolicyIndex(REFERENCE, embedder, store=Path(tmp) / "ref")
        t = time.perf_counter()
        rr = ref.update()
        build_s = time.perf_counter() - t
        t = time.perf_counter()
        again = PolicyIndex(REFERENCE, embedder, store=Path(tmp) / "ref").update()
        reload_s = time.perf_counter() - t
        t = time.perf_counter()
        ref.update()
        unchanged_s = time.perf_counter() - t
        print(f"index build, reference manual: {rr.chunks} chunks in {build_s:.2f}s "
              f"({rr.chunks / build_s:.0f} chunks/s; target <= 5 s); sample company: {r.chunks} chunks "
              f"from {len(r.added)} files in {r.seconds:.2f}s")
        print(f"unchanged re-index: {unchanged_s * 1000:.1f} ms in memory, {reload_s * 1000:.0f} ms from disk "
              f"({again.chunks} chunks, nothing embedded: {again.embedded_chunks == 0})")
        sets = [("our sample company", ours, load_set("policy_questions.jsonl")),
                ("reference manual", ref, load_set("reference_questions.jsonl"))]
        print(f"\n{'set':<22}{'questions':>10}{'design':>30}{'recall@4':>10}{'MRR':>7}")
        for name, index, questions in sets:
            recall, mrr, misses = evaluate(index.search, questions)
            print(f"{name:<22}{len(questions):>10}{'hybrid + heading paths (ours)':>30}{recall:>10.3f}{mrr:>7.3f}")
            d_recall, d_mrr, _ = evaluate(dense_only(index), questions)
            print(f"{'':<22}{'':>10}{'dense only, heading paths':>30}{d_recall:>10.3f}{d_mrr:>7.3f}")
            if index is ref:
                n_recall, n_mrr, _ = evaluate(naive_index(REFERENCE, embedder), questions)
                print(f"{'':<22}{'':>10}{'fixed-size chunks, dense':>30}{n_recall:>10.3f}{n_mrr:>7.3f}")
            for m in misses:
                print(f"    missed: {m}")
        questions = sets[0][2] + sets[1][2]
        uncached, cached = [], []
        fresh_ours = PolicyIndex(ROOT / "data" / "policies", embedder, store=Path(tmp) / "ours")
        fresh_ref = PolicyIndex(REFERENCE, embedder, store=Path(tmp) / "ref")
        fresh_ours.update(), fresh_ref.update()
        for round_, times in ((0, uncached), (1, cached)):
            for q in questions:
                index = fresh_ours if q["source"] != "hr_policy.txt" else fresh_ref
                t = time.perf_counter()
                index.search(q["q"])
                times.append((time.perf_counter() - t) * 1000)
        for name, times in (("first time (embedding + hnsw + BM25 + fusion)", uncached),
                            ("repeated query (vector cached)", cached)):
            times.sort()
            p50, p95 = statistics.median(times), times[int(0.95 * (len(times) - 1))]
            print(f"query latency, {name}, {len(times)} queries: p50 {p50:.1f} ms, p95 {p95:.1f} ms")
        print("target: p95 <= 15 ms")


if __name__ == "__main__":
    main()
