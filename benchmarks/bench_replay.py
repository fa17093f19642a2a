"""A model host's load from the app's own requests: record them once, replay them on any host.

    python benchmarks/bench_replay.py record --out FILE [--split test] [--model FILE.gguf] [--binary llama-server]
    python benchmarks/bench_replay.py replay --recording FILE --binary llama-server --model FILE.gguf
           [--slots 1,4,16] [--clients 1,4,16] [--questions 32] [--gpu-layers 99] [--threads N] [--json OUT]

``record`` answers a split of the suite through a llama-server started here (4 slots) as the app
does (the evaluation harness, one conversation per case; greedy, a 4096-token context), and keeps
every completion request the app sent (prompt, grammar, stop, sampling) with the text that came back.

``replay`` starts llama-server with each number of ``--slots`` and has N simulated workstations
(threads) ask the recorded questions at once, ``--questions`` in all: each question's requests go
one after another, as its agent sent them, the next question starts when the last one ended. A
model host only ever sees these requests (tools run on the workstations), so this is the host's
load without the app, its data or its embedding model on the host: it runs wherever Python 3,
httpx and a llama-server are, a GPU host included. Reported per setting: questions per minute,
median and p95 seconds per question, median first-token time, the share of prompt tokens served
from the slots' caches (the server's own ``timings``), generated tokens per second, and the share
of replies identical to the recorded ones (greedy text moves with kernels and batch splits). The
first setting of the run is the baseline of the ratios.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.bench_server import percentile95  # noqa: E402


# -- record ---------------------------------------------------------------------------------------------
def _recording_transport(sink: list[dict]):
    """An httpx transport that keeps each completion request's body and the text streamed back."""
    import httpx

    class Tee(httpx.SyncByteStream):
        def __init__(self, stream, entry: dict) -> None:
            self.stream, self.entry, self.raw = stream, entry, []

        def __iter__(self):
            for chunk in self.stream:
                self.raw.append(chunk)
                yield chunk

        def close(self) -> None:
            # Decoded once at the end: a character split between two chunks stays whole.
            self.entry["text"] = sse_text(b"".join(self.raw).decode("utf-8", "replace"))
            self.stream.close()

    class Recorder(httpx.HTTPTransport):
        def handle_request(self, request):
            response = super().handle_request(request)
            if request.url.path.endswith("/v1/completions"):
                entry = {"body": json.loads(request.content)}
                sink.append(entry)
                response.stream = Tee(response.stream, entry)
            return response

    return Recorder()


def record(args) -> int:
    """Answer the split through a llama-server started here and write the app's requests as JSON."""
    from engine.evaluation import Evaluator, load_suite
    from engine.model.remote import RemoteBackend
    from engine.settings import Settings
    from tests.llama_server import CppLlamaServer

    model = _model(args.model)
    from tests.conftest import _build_script

    binary = Path(args.binary) if args.binary else _build_script().ensure()
    settings = Settings(n_ctx=4096, n_threads=args.threads, temperature=0.0)
    cases = [c for c in load_suite(args.suite) if c.split == args.split]
    if args.limit:
        cases = cases[: args.limit]
    server = CppLlamaServer(binary, model, Path(tempfile.mkdtemp()) / "server.log", slots=4, threads=args.threads)
    requests: list[dict] = []
    recorded: list[dict] = []
    try:
        backend = RemoteBackend(server.url, settings, transport=_recording_transport(requests))

        def backend_for(case):
            backend.set_conversation(case.id)
            recorded.append({"id": case.id, "first": len(requests)})
            return backend

        report = Evaluator(backend_for, settings).run(cases, lambda i, n, r: print(f"[{i}/{n}] {r['id']}",
                                                                                  file=sys.stderr))
    finally:
        server.stop()
    ends = [r["first"] for r in recorded[1:]] + [len(requests)]
    out = {"model": model.name, "split": args.split, "machine": machine(), "cases": [
        {"id": r["id"], "requests": requests[r["first"]:end]} for r, end in zip(recorded, ends)],
        "single_part_right": report["summary"].get("single_part_right"),
        "multi_part_right": report["summary"].get("multi_part_right")}
    Path(args.out).write_text(json.dumps(out) + "\n")
    n = sum(len(c["requests"]) for c in out["cases"])
    print(f"{len(out['cases'])} questions, {n} requests -> {args.out}")
    return 0


# -- replay ---------------------------------------------------------------------------------------------
def _chunks(raw: str):
    """The JSON objects of a server-sent event stream, in order."""
    for line in raw.splitlines():
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        try:
            chunk = json.loads(line[5:])
        except ValueError:
            continue
        if isinstance(chunk, dict):
            yield chunk


def sse_text(raw: str) -> str:
    """The text of a server-sent completion stream."""
    return "".join(c.get("text") or "" for chunk in _chunks(raw) for c in chunk.get("choices") or [])


def ask(client, case: dict) -> dict:
    """One recorded question, its requests one after another; what the server did for it."""
    out = {"first_token": [], "cached": 0, "evaluated": 0, "generated": 0, "same": 0, "requests": 0,
           "gen_seconds": 0.0}
    t0 = time.perf_counter()
    for req in case["requests"]:
        sent = time.perf_counter()
        first = None
        pieces: list[str] = []
        timings: dict = {}
        with client.stream("POST", "/v1/completions", json=req["body"],
                           headers={"X-HR-Conversation": case["id"]}) as r:
            r.raise_for_status()
            for line in r.iter_lines():
                if line.startswith("data:") and line[5:].strip() == "[DONE]":
                    break  # as the app does: the connection is closed, not reused (the server ends it)
                for chunk in _chunks(line):  # each line parsed once, as it comes
                    timings = chunk.get("timings") or timings
                    for choice in chunk.get("choices") or []:
                        if choice.get("text") and first is None:
                            first = time.perf_counter()
                        pieces.append(choice.get("text") or "")
        done = time.perf_counter()
        out["first_token"].append((first or done) - sent)
        out["gen_seconds"] += done - (first or done)
        out["cached"] += int(timings.get("cache_n") or 0)
        out["evaluated"] += int(timings.get("prompt_n") or 0)
        # Tokens after the first, over the time after the first: the streaming rate, not the prompt's.
        out["generated"] += max(0, int(timings.get("predicted_n") or 0) - 1)
        out["same"] += "".join(pieces) == req.get("text")
        out["requests"] += 1
    out["seconds"] = time.perf_counter() - t0
    return out


def run_clients(url: str, cases: list[dict], n_clients: int, n_questions: int) -> dict:
    """``n_clients`` workstations at once ask ``n_questions`` recorded questions (cycling through
    them in order); the figures of the run."""
    import httpx

    jobs = [cases[i % len(cases)] for i in range(n_questions)]
    lock = threading.Lock()
    results: list[dict] = []
    errors: list[str] = []

    def workstation() -> None:
        with httpx.Client(base_url=url, timeout=httpx.Timeout(600.0, connect=10.0), trust_env=False) as client:
            while True:
                with lock:
                    if not jobs or errors:
                        return
                    case = jobs.pop(0)
                try:
                    result = ask(client, case)
                except Exception as exc:  # reported with the row, not a traceback per thread
                    with lock:
                        errors.append(f"{type(exc).__name__}: {exc}")
                    return
                with lock:
                    results.append(result)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=workstation) for _ in range(n_clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    if errors:
        raise RuntimeError(errors[0])
    seconds = [r["seconds"] for r in results]
    prompt = sum(r["cached"] + r["evaluated"] for r in results)
    gen_seconds = sum(r["gen_seconds"] for r in results)
    return {"questions": len(results), "wall_s": wall, "qpm": 60 * len(results) / wall,
            "median_s": statistics.median(seconds), "p95_s": percentile95(seconds),
            "first_token_s": statistics.median(x for r in results for x in r["first_token"]),
            "cache_hits": sum(r["cached"] for r in results) / prompt if prompt else 0.0,
            "prompt_evaluated_per_q": sum(r["evaluated"] for r in results) / len(results),
            "tokens_per_s_per_stream": sum(r["generated"] for r in results) / gen_seconds if gen_seconds else 0.0,
            "same_text": sum(r["same"] for r in results) / max(1, sum(r["requests"] for r in results))}


def replay(args) -> int:
    """Replay a recording against llama-server with each slot count; print (and write) the rows."""
    from tests.llama_server import CppLlamaServer

    recording = json.loads(Path(args.recording).read_text())
    cases = [c for c in recording["cases"] if c["requests"]]
    if not cases:
        raise SystemExit(f"{args.recording} holds no recorded requests.")
    if args.no_grammar:  # what the grammar costs the host: the same prompts, unconstrained
        cases = [{**c, "requests": [{**r, "body": {k: v for k, v in r["body"].items() if k != "grammar"}}
                                    for r in c["requests"]]} for c in cases]
    model = _model(args.model)
    binary = Path(args.binary)
    extra = ("-ngl", str(args.gpu_layers))
    threads = args.threads or os.cpu_count() or 2
    rows = []
    for n_slots in [int(x) for x in args.slots.split(",")]:
        log = Path(tempfile.mkdtemp()) / "server.log"
        server = CppLlamaServer(binary, model, log, slots=n_slots, threads=threads, extra=extra)
        try:
            run_clients(server.url, cases[:1], 1, 1)  # warm-up: weights paged in, kernels loaded
            for n in [int(x) for x in args.clients.split(",")]:
                row = {"label": args.label, "slots": n_slots, "clients": n,
                       **run_clients(server.url, cases, n, args.questions)}
                rows.append(row)
                print(_line(row, rows[0]), flush=True)
        finally:
            server.stop()
    result = {"machine": machine(), "binary": str(binary), "model": model.name, "gpu_layers": args.gpu_layers,
              "threads": threads, "recording": {"split": recording["split"], "machine": recording["machine"]},
              "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1) + "\n")
    print(f"\n{args.label}: {model.name}, {args.questions} questions per setting, {threads} threads, "
          f"gpu layers {args.gpu_layers}; {machine()}")
    print(HEADER)
    for row in rows:
        print(_line(row, rows[0]))
    return 0


HEADER = (f"{'setting':<28} {'q/min':>7} {'ratio':>6} {'median s':>8} {'p95 s':>6} {'1st tok s':>9} "
          f"{'cache':>5} {'eval/q':>6} {'tok/s':>6} {'same':>5}")


def _line(row: dict, base: dict) -> str:
    name = f"{row['label']} {row['slots']} slot{'s' if row['slots'] > 1 else ''}, {row['clients']} ws"
    return (f"{name:<28} {row['qpm']:>7.1f} {row['qpm'] / base['qpm']:>5.2f}x {row['median_s']:>8.2f} "
            f"{row['p95_s']:>6.2f} {row['first_token_s']:>9.3f} {row['cache_hits']:>5.0%} "
            f"{row['prompt_evaluated_per_q']:>6.0f} {row['tokens_per_s_per_stream']:>6.1f} {row['same_text']:>5.0%}")


# -- helpers --------------------------------------------------------------------------------------------
def machine() -> str:
    """This host in words: CPU model and count, and the GPU if nvidia-smi names one."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            cpu = next((ln.split(":", 1)[1].strip() for ln in f if ln.startswith("model name")), cpu)
    except OSError:
        pass
    import subprocess

    gpu = ""
    try:
        done = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                              text=True, timeout=20)
        gpu = ", " + done.stdout.strip().replace("\n", " + ") if done.returncode == 0 and done.stdout.strip() else ""
    except (OSError, subprocess.SubprocessError):
        pass
    return f"{cpu}, {os.cpu_count()} cores{gpu}"


def _model(given: str | None) -> Path:
    if given:
        return Path(given)
    from engine.model.packs import QWEN_05B
    from tests.conftest import real_model_path

    return real_model_path(QWEN_05B.id)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("record", help="answer a split through llama-server and keep the app's requests")
    rec.add_argument("--out", required=True)
    rec.add_argument("--suite", default=str(ROOT / "benchmarks" / "suite.jsonl"))
    rec.add_argument("--split", default="test")
    rec.add_argument("--limit", type=int, default=0, help="only the first N questions")
    rec.add_argument("--model", help="GGUF file (default: the packaged 0.5B model)")
    rec.add_argument("--binary", help="llama-server (default: the one scripts/build_llama_server.py built)")
    rec.add_argument("--threads", type=int, default=2)
    rep = sub.add_parser("replay", help="replay a recording against llama-server with several slot counts")
    rep.add_argument("--recording", required=True)
    rep.add_argument("--binary", required=True)
    rep.add_argument("--model", help="GGUF file (default: the packaged 0.5B model)")
    rep.add_argument("--label", default="llama-server")
    rep.add_argument("--slots", default="1,4,16")
    rep.add_argument("--clients", default="1,4,16")
    rep.add_argument("--questions", type=int, default=32, help="questions per setting")
    rep.add_argument("--gpu-layers", type=int, default=0, help="layers offloaded to the GPU (99: all)")
    rep.add_argument("--threads", type=int, default=0, help="CPU threads (default: all cores)")
    rep.add_argument("--json", help="write the rows here as JSON")
    rep.add_argument("--no-grammar", action="store_true", help="send the prompts without their grammars")
    args = parser.parse_args(argv)
    if args.command == "replay" and args.questions < 1:
        parser.error("--questions must be at least 1")
    return record(args) if args.command == "record" else replay(args)


if __name__ == "__main__":
    sys.exit(main())
