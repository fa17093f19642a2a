"""Hybrid policy index: hnswlib (cosine) + BM25, fused by reciprocal-rank fusion.

Persisted in the user data directory with a manifest (embedding model identity
and dimension, chunker version, a hash per source file and per data file).
Saving is atomic: data files are written under temporary names and moved into
place, and the manifest, written last, is the commit point. Loading verifies
the manifest and the data files and rebuilds (never crashes) when anything is
damaged or stale. Re-indexing is incremental: only added or changed files are
re-embedded, removed files leave the index.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Generator

from engine.errors import DataFileError
from engine.paths import atomic_write_text, data_dir, sha256_file
from engine.policy.chunker import CHUNKER_VERSION, Chunk, chunk_lines
from engine.policy.embedder import Embedder
from engine.policy.loaders import load_lines, policy_files
from engine.policy.terms import other_languages

INDEX_VERSION = 2
# Reciprocal-rank fusion: score = 1/(RRF_K + dense rank) + LEXICAL_WEIGHT/(RRF_K + BM25 rank).
# Dense retrieval carries the meaning ("my mother is seriously ill" ~ "serious illness of a
# family member"); BM25 adds exact terms (names of leave types, numbers). Chosen on the
# labelled sets in benchmarks/ (see bench_policy.py), where dense-only and equal weights
# each missed the 0.95 recall target on one of the two sets.
RRF_K = 10
LEXICAL_WEIGHT = 0.3
CANDIDATES = 40
# Passages embedded per step of an update: a step is the longest a question waits behind indexing.
EMBED_BATCH = 32
# The question an agent's search was written for is fused in at this weight (see search()):
# equal, as measured on the suite (dev single-part 0.679 -> 0.714; test unchanged).
HINT_WEIGHT = 1.0
# A question's topic in the handbook's other language (engine/policy/terms.py): its lexical ranks are fused
# in at this weight, as much as the question's own dense ranks (which say little across languages).
TERMS_WEIGHT = 1.0
Progress = Callable[[str, int, int], None]  # (stage, done, total)

_STOP = frozenset("""a an the and or of to in on for is are be can i my me do does what how when which who will
with at by from as it this that if not no may your you our we their there any all have has about""".split())


# Everyday words for the terms policies use (query side of BM25 only).
SYNONYMS = {
    "mother": "parent", "father": "parent", "mom": "parent", "dad": "parent", "mum": "parent",
    "wife": "spouse", "husband": "spouse", "partner": "spouse", "son": "child", "daughter": "child",
    "kid": "child", "baby": "child", "brother": "sibling", "sister": "sibling", "ill": "illness",
    "sick": "sickness", "cash": "encash", "payout": "encash", "money": "pay", "salary": "pay",
    "holiday": "vacation", "pto": "vacation", "wfh": "home", "remote": "home", "died": "death",
    "passed": "death", "funeral": "bereavement", "wedding": "marriage", "married": "marriage",
    "late": "tardiness", "overtime": "overtime", "rollover": "carry", "roll": "carry", "transfer": "carry",
}
_SUFFIXES = ("ingly", "ness", "ment", "ing", "ed", "ly", "es", "s")


def stem(word: str) -> str:
    """A deliberately light suffix stripper: serious/seriously, illness/ill, days/day."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4 and not word.endswith("ss"):
            return word[: -len(suffix)]
    return word


def _fold(text: str) -> str:
    """Lower case without accents, so "Kündigung" is one word "kundigung" (not "k" and "ndigung") and
    matches "Kundigung"; letters of any script stay letters."""
    import unicodedata

    text = unicodedata.normalize("NFKD", text.lower().replace("ß", "ss"))
    return "".join(c for c in text if not unicodedata.combining(c))


def tokenize(text: str, expand: bool = False) -> list[str]:
    """Lower-case, stemmed word tokens without stop words (for BM25); ``expand`` adds synonyms (queries)."""
    words = [w for w in re.findall(r"[^\W_]+", _fold(text)) if w not in _STOP]
    if expand:
        words += [SYNONYMS[w] for w in words if w in SYNONYMS]
    return [stem(w) for w in words]


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class Hit:
    text: str
    source: str
    section: str
    location: str
    score: float
    line_start: int
    line_end: int
    page: int | None = None

    @property
    def withheld(self) -> bool:
        """Whether the passage speaks to an AI assistant: no model is shown it (the policy search
        gives a note in its place); the person may read it, and the window says why it was held back."""
        return addresses_assistant(self)

    def to_dict(self) -> dict:
        out = {"text": self.text, "source": self.source, "section": self.section, "location": self.location,
               "score": round(self.score, 6), "line_start": self.line_start, "line_end": self.line_end,
               "page": self.page}
        if self.withheld:
            out["withheld"] = True
        return out


@dataclass
class IndexReport:
    added: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    chunks: int = 0
    embedded_chunks: int = 0
    seconds: float = 0.0
    rebuilt_reason: str = ""
    finished_at: float = 0.0  # time.time() when the index matched the files
    #: Passages that address the assistant ("ignore previous instructions…"): file -> locations.
    #: They stay searchable (they are data to the model) but HR should look at them.
    flagged: dict[str, list[str]] = field(default_factory=dict)

    def summary(self) -> str:
        parts = [f"{self.chunks} passages from {len(self.added) + len(self.changed) + len(self.unchanged)} files"]
        for name in ("added", "changed", "removed", "unchanged"):
            if getattr(self, name):
                parts.append(f"{len(getattr(self, name))} {name}")
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.flagged:
            parts.append(f"{sum(map(len, self.flagged.values()))} passages addressed to the assistant")
        return ", ".join(parts) + f" in {self.seconds:.2f}s"


#: Text that speaks to an AI assistant rather than to employees: a sign of prompt injection.
INSTRUCTION = re.compile(
    r"\b(ignore|disregard|forget)\b[^.\n]{0,40}\b(previous|prior|above|earlier|all)\b[^.\n]{0,20}"
    r"\b(instructions?|rules|prompts?)\b|\byou are now\b|\bsystem prompt\b|\b(dear|attention|note to)\s+"
    r"(the\s+)?(ai|assistant|chatbot|language model|llm)\b|\bai assistant(s)?\s*(must|should|shall|will)\b",
    re.I)  # not "HR assistant will …": that is a job title


def addresses_assistant(chunk) -> bool:
    """Whether a passage (its heading or its text) speaks to an AI assistant."""
    return bool(INSTRUCTION.search(f"{chunk.section}\n{chunk.text}"))


def flag_instructions(chunks) -> dict[str, list[str]]:
    """Passages that address the assistant, by file: ``{"notice.md": ["line 3"]}``."""
    out: dict[str, list[str]] = {}
    for chunk in chunks:
        if addresses_assistant(chunk):
            out.setdefault(chunk.source, []).append(chunk.location())
    return out


def store_dir_for(root: Path) -> Path:
    key = hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:16]
    return data_dir() / "index" / key


class PolicyIndex:
    """The searchable index of one policy folder (or file)."""

    def __init__(self, root: str | Path, embedder: Embedder, store: Path | None = None) -> None:
        self.root = Path(root).expanduser()
        self.embedder = embedder
        self.store = store or store_dir_for(self.root)
        self.chunks: list[Chunk] = []
        self.embeddings: Any = None  # numpy (n, dim)
        self.files: dict[str, dict] = {}
        self.failed: dict[str, str] = {}
        #: Files that could not be read, by size/mtime/hash: not read again until they change
        #: (a zip bomb among the policies must not cost seconds on every start and search).
        self.failed_files: dict[str, dict] = {}
        self._hnsw: Any = None  # hnswlib.Index, built on the first search
        self._bm25: _BM25 | None = None
        self._cache = _QueryCache()
        self.last_report: IndexReport | None = None  # what the last update() did

    def outline(self) -> dict[str, list[dict]]:
        """Each file's passages in reading order (page, then line), for showing a cited passage in
        its place: a plain copy the window may keep while this index is searched or rebuilt."""
        out: dict[str, list[dict]] = {}
        for c in self.chunks:
            out.setdefault(c.source, []).append({"section": c.section, "text": c.text, "location": c.location(),
                                                 "line_start": c.line_start, "line_end": c.line_end, "page": c.page})
        for passages in out.values():
            passages.sort(key=lambda p: (p["page"] or 0, p["line_start"], p["line_end"]))
        return out

    # -- persistence ---------------------------------------------------------------------------------
    def _expected(self) -> dict:
        return {"version": INDEX_VERSION, "chunker": CHUNKER_VERSION, "model": self.embedder.identity,
                "dim": self.embedder.dim}

    def _load(self) -> str:
        """Load the stored index; return '' if it loaded, else why it cannot be used."""
        import numpy as np

        manifest_path = self.store / "manifest.json"
        if not manifest_path.exists():
            return "no index yet"
        try:
            manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
            for key, value in self._expected().items():
                if manifest.get(key) != value:
                    return f"{key} changed"
            data = manifest["data"]
            for name, digest in data.items():
                if sha256_file(self.store / name) != digest:
                    return f"{name} is damaged"
            chunks = [Chunk(**json.loads(line)) for line in
                      (self.store / "chunks.jsonl").read_text(encoding="utf-8").splitlines() if line.strip()]
            embeddings = np.load(self.store / "embeddings.npy", allow_pickle=False)
            if embeddings.shape != (len(chunks), self.embedder.dim):
                return "embeddings do not match the passages"
        except (OSError, ValueError, KeyError, TypeError) as exc:
            return f"unreadable ({type(exc).__name__})"
        self.chunks, self.embeddings = chunks, embeddings
        self.files, self.failed = manifest["files"], manifest.get("failed", {})
        self.failed_files = {rel: meta for rel, meta in manifest.get("failed_files", {}).items() if rel in self.failed}
        self._build_search()
        return ""

    def _save(self) -> None:
        import numpy as np

        self.store.mkdir(parents=True, exist_ok=True)
        data = {}
        payloads = {
            "chunks.jsonl": "".join(json.dumps(c.to_dict(), ensure_ascii=False) + "\n" for c in self.chunks).encode(),
        }
        for name, payload in payloads.items():
            tmp = self.store / f".{name}.tmp"
            tmp.write_bytes(payload)
            os.replace(tmp, self.store / name)
            data[name] = sha256_bytes(payload)
        tmp = self.store / ".embeddings.tmp.npy"
        np.save(tmp, self.embeddings, allow_pickle=False)
        os.replace(tmp, self.store / "embeddings.npy")
        data["embeddings.npy"] = sha256_file(self.store / "embeddings.npy")
        manifest = {**self._expected(), "root": str(self.root.resolve()), "files": self.files, "failed": self.failed,
                    "failed_files": self.failed_files, "data": data, "saved": time.strftime("%Y-%m-%dT%H:%M:%S")}
        atomic_write_text(self.store / "manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False))

    # -- building ------------------------------------------------------------------------------------
    def update(self, rebuild: bool = False, progress: Progress | None = None) -> IndexReport:
        """Bring the index up to date with the files; only new or changed files are embedded."""
        steps = self.update_steps(rebuild)
        while True:
            try:
                stage, done, total = next(steps)
            except StopIteration as end:
                return end.value
            if progress:
                progress(stage, done, total)

    def update_steps(self, rebuild: bool = False) -> Generator[tuple[str, int, int], None, IndexReport]:
        """:meth:`update` one step at a time: yields ``(stage, done, total)`` after each file checked
        or read and each batch embedded, and returns the :class:`IndexReport`. A caller that owns
        the embedder on one thread (the window's worker) runs other work between steps; dropping the
        generator part-way leaves the stored index as it was (it is saved only at the end)."""
        import numpy as np

        t0 = time.perf_counter()
        report = IndexReport()
        if rebuild:
            report.rebuilt_reason = "rebuild requested"
            self.chunks, self.embeddings, self.files, self.failed = [], None, {}, {}
            self.failed_files = {}
        elif self.embeddings is None:
            reason = self._load()
            if reason:
                report.rebuilt_reason = reason
                self.chunks, self.embeddings, self.files, self.failed = [], None, {}, {}
        paths = policy_files(self.root)
        base = self.root if self.root.is_dir() else self.root.parent
        current = {p.relative_to(base).as_posix(): p for p in paths}
        keep: set[str] = set()
        failed_files: dict[str, dict] = {}
        todo: list[tuple[str, Path, str, os.stat_result]] = []
        for i, (rel, path) in enumerate(current.items()):
            yield "checking", i + 1, len(current)
            try:
                st = path.stat()
            except OSError as exc:
                report.failed[rel] = f"cannot be read ({exc.strerror})"
                continue
            known = self.files.get(rel)
            if known and known["size"] == st.st_size and known["mtime_ns"] == st.st_mtime_ns:
                keep.add(rel)
                continue
            bad = self.failed_files.get(rel)
            if bad and bad["size"] == st.st_size and bad["mtime_ns"] == st.st_mtime_ns and rel in self.failed:
                report.failed[rel], failed_files[rel] = self.failed[rel], bad  # unchanged: still unreadable
                continue
            try:
                digest = sha256_file(path)
            except OSError as exc:
                report.failed[rel] = f"cannot be read ({exc.strerror})"
                continue
            if known and known["sha256"] == digest:
                known.update(size=st.st_size, mtime_ns=st.st_mtime_ns)
                keep.add(rel)
                continue
            if bad and bad["sha256"] == digest and rel in self.failed:
                report.failed[rel] = self.failed[rel]
                failed_files[rel] = {**bad, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
                continue
            todo.append((rel, path, digest, st))
        new_chunks: list[Chunk] = []
        new_files: dict[str, dict] = {}
        for i, (rel, path, digest, st) in enumerate(todo):
            yield "reading", i + 1, len(todo)
            try:
                chunks = chunk_lines(load_lines(path), rel)
            except DataFileError as exc:
                report.failed[rel] = str(exc)
                failed_files[rel] = {"sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns}
                continue
            (report.changed if rel in self.files else report.added).append(rel)
            new_files[rel] = {"sha256": digest, "size": st.st_size, "mtime_ns": st.st_mtime_ns, "chunks": len(chunks)}
            new_chunks += chunks
        report.removed = sorted(set(self.files) - set(current))
        report.unchanged = sorted(keep)
        rows = [i for i, c in enumerate(self.chunks) if c.source in keep]
        old = self.embeddings[rows] if self.embeddings is not None and rows else np.zeros((0, self.embedder.dim),
                                                                                          dtype=np.float32)
        texts = [c.embedding_text() for c in new_chunks]
        batches = []
        for start in range(0, len(texts), EMBED_BATCH):
            batches.append(self.embedder.encode(texts[start:start + EMBED_BATCH], batch_size=EMBED_BATCH))
            yield "embedding", min(start + EMBED_BATCH, len(texts)), len(texts)
        fresh = np.vstack(batches).astype(np.float32) if batches else np.zeros((0, self.embedder.dim), dtype=np.float32)
        dirty = bool(todo or report.removed or report.failed != self.failed or report.rebuilt_reason)
        self.chunks = [self.chunks[i] for i in rows] + new_chunks
        self.embeddings = np.vstack([old, fresh]).astype(np.float32) if len(fresh) else old
        self.files = {rel: meta for rel, meta in self.files.items() if rel in keep} | new_files
        self.failed = report.failed
        self.failed_files = failed_files
        if dirty or self._hnsw is None:
            self._build_search()
        if dirty:
            self._save()
        report.chunks = len(self.chunks)
        report.flagged = flag_instructions(self.chunks)
        report.embedded_chunks = len(new_chunks)
        report.seconds = time.perf_counter() - t0
        report.finished_at = time.time()
        return report

    def _build_search(self) -> None:
        import hnswlib

        n = len(self.chunks)
        index = hnswlib.Index(space="cosine", dim=self.embedder.dim)
        index.init_index(max_elements=max(n, 1), ef_construction=200, M=16, random_seed=0)
        if n:
            index.add_items(self.embeddings, list(range(n)), num_threads=1)
        index.set_ef(max(64, CANDIDATES))
        self._hnsw = index
        self._bm25 = _BM25([tokenize(c.embedding_text()) for c in self.chunks])

    # -- searching -----------------------------------------------------------------------------------
    def _query_vector(self, query: str):
        key = (self.embedder.identity, query.casefold())
        vec = self._cache.get(key)
        if vec is None:
            vec = self.embedder.encode_query(query)
            self._cache.put(key, vec)
        return vec

    def _fuse(self, query: str, weight: float, fused: dict[int, float]) -> None:
        """Add ``query``'s reciprocal-rank scores (dense and BM25), times ``weight``, to ``fused``."""
        m = min(CANDIDATES, len(self.chunks))
        labels, _distances = self._hnsw.knn_query(self._query_vector(query), k=m)
        for rank, idx in enumerate(labels[0]):
            fused[int(idx)] = fused.get(int(idx), 0.0) + weight / (RRF_K + rank + 1)
        assert self._bm25 is not None  # built with the vectors
        for rank, idx in enumerate(self._bm25.top(tokenize(query, expand=True), m)):
            fused[idx] = fused.get(idx, 0.0) + weight * LEXICAL_WEIGHT / (RRF_K + rank + 1)

    def search(self, query: str, k: int = 4, hint: str = "") -> list[Hit]:
        """The ``k`` best passages for ``query`` (dense and lexical ranks fused).

        ``hint``: the question the query was written for. Its ranks are fused in at
        ``HINT_WEIGHT``: a small model's query often drops the words that find the passage
        ("How many days a week can I work from home?" searched as "remote work")."""
        if self._hnsw is None:
            self.update()
        n = len(self.chunks)
        query = " ".join(query.split())
        if not n or not query:
            return []
        fused: dict[int, float] = {}
        self._fuse(query, 1.0, fused)
        hint = " ".join(hint.split())
        if hint and hint.casefold() != query.casefold():
            self._fuse(hint, HINT_WEIGHT, fused)
        # The question's topic in the handbook's language, where it is another ("Urlaubstage": "annual leave").
        assert self._bm25 is not None
        terms = [t for t in other_languages(f"{query} {hint}")
                 if (tokens := tokenize(t)) and all(w in self._bm25.vocab for w in tokens)]
        if terms:  # (exact words of the handbook: the lexical ranks alone, the embedder reads English)
            for rank, idx in enumerate(self._bm25.top(tokenize(" ".join(terms)), min(CANDIDATES, n))):
                fused[idx] = fused.get(idx, 0.0) + TERMS_WEIGHT / (RRF_K + rank + 1)
        best = sorted(fused.items(), key=lambda kv: -kv[1])[:k]
        hits = []
        for idx, score in best:
            c = self.chunks[idx]
            hits.append(Hit(text=c.text, source=c.source, section=c.section, location=c.location(), score=score,
                            line_start=c.line_start, line_end=c.line_end, page=c.page))
        return hits


class _QueryCache:
    """The last few query vectors: the agent and the app often repeat a search."""

    def __init__(self, size: int = 256) -> None:
        from collections import OrderedDict

        self.size = size
        self.items: OrderedDict = OrderedDict()

    def get(self, key):
        if key in self.items:
            self.items.move_to_end(key)
            return self.items[key]
        return None

    def put(self, key, value) -> None:
        self.items[key] = value
        if len(self.items) > self.size:
            self.items.popitem(last=False)


class _BM25:
    """Okapi BM25 over token lists, via the bm25s library (sparse, fast to build and query)."""

    def __init__(self, corpus: list[list[str]]) -> None:
        import logging

        import bm25s

        # bm25s sets its own logger to DEBUG on import, which would print to the user's terminal.
        logging.getLogger("bm25s").setLevel(logging.WARNING)
        self.n = len(corpus)
        self.vocab: dict[str, int] = {}
        ids = [[self.vocab.setdefault(t, len(self.vocab)) for t in doc] or [self.vocab.setdefault("", 0)]
               for doc in corpus]
        self.model = bm25s.BM25(k1=1.2, b=0.75)
        if self.n:
            self.model.index(bm25s.tokenization.Tokenized(ids=ids, vocab=self.vocab), show_progress=False)

    def top(self, tokens: list[str], k: int) -> list[int]:
        import numpy as np

        known = [t for t in tokens if t in self.vocab]
        if not self.n or not known:
            return []
        scores = self.model.get_scores(known)
        k = min(k, self.n)
        order = np.argpartition(-scores, k - 1)[:k]
        order = order[np.argsort(-scores[order])]
        return [int(i) for i in order if scores[i] > 0]
