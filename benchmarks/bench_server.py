"""Many workstations, one inference server: throughput, latency and the server's prefix-cache hits.

    python benchmarks/bench_server.py [--model FILE.gguf] [--clients 1,4,16] [--questions 16] [--slots 1,2,4]

Starts ``python -m engine.model.serve_llama`` (llama_cpp.server) with the model on 127.0.0.1, then
llama.cpp's own ``llama-server`` (built by scripts/build_llama_server.py from the pinned source) with
each number of ``--slots`` (``--slots 0`` leaves it out), and for each N simulates N
workstations (threads, each with its own RemoteBackend and agent, as separate machines would
have) asking development-split questions concurrently, ``--questions`` in all. The baseline is
the in-process backend on the same model in the same run, answering the same questions one
after another (one workstation). Reported per setting: questions per minute, median and p95
latency per question, the share of prompt tokens the server served from its prefix cache
(from its own log), and the ratio of throughput to the in-process baseline.

``--load mixed`` (the default) hands each next question to whichever workstation is free, so one
workstation asks for many people; ``--load person`` makes each workstation one person (employees
spread evenly over the sample's data/employees.csv) who asks the questions in turn, as at a site:
that person's record heads every prompt of theirs, which a server can keep cached for the
conversation. The people differ from the questions' own askers (a manager's "direct reports", an
HR officer's "Ivan Petrov's salary"), so the two loads are different work: compare servers within
one load.

Default model: Qwen2.5-Coder-0.5B-Instruct Q4_K_M (``model-small``), the fastest real model.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

QUESTIONS = [  # development split only
    ("Pedro Alves", "How many sick days do I have left?"),
    ("Mei Lin", "When do I need a doctor's note for sick leave?"),
    ("Pedro Alves", "What is 15% of 1500?"),
    ("Liam Walsh", "My mother is seriously ill and needs my care. Is there leave for that?"),
    ("Søren Dahl", "Who are my direct reports?"),
    ("Pedro Alves", "What is Ivan Petrov's salary?"),
    ("Mei Lin", "How many vacation days do I have left?"),
    ("Priya Raman", "How many people work in Finance?"),
]


TOKENS = {"reused": 0, "evaluated": 0}  # prompt tokens per the server's own timings (llama-server)


def ask(backend, tools, settings, user, question) -> float:
    from engine.assistant import build_context, make_agent

    agent = make_agent(backend, tools, build_context(user, tools), settings)
    t0 = time.perf_counter()
    trace = agent.ask(question)
    seconds = time.perf_counter() - t0
    TOKENS["reused"] += trace.prompt_tokens_reused
    TOKENS["evaluated"] += trace.prompt_tokens_evaluated
    return seconds


def workloads(load: str, n_people: int, n_questions: int) -> list[list[tuple[str, str]]]:
    """The questions asked, as queues: one shared queue (``mixed``), or one queue per person
    (``person``: ``n_people`` employees spread evenly over the sample's file, each asking the
    questions in turn from a different starting point)."""
    if load == "mixed":
        return [[QUESTIONS[i % len(QUESTIONS)] for i in range(n_questions)]]
    import csv

    with open(ROOT / "data" / "employees.csv", newline="", encoding="utf-8") as f:
        staff = [row["full_name"] for row in csv.DictReader(f)]
    askers = [staff[i * len(staff) // n_people] for i in range(n_people)]  # not only the file's first rows
    queues: list[list[tuple[str, str]]] = [[] for _ in range(n_people)]
    for i in range(n_questions):  # round robin, so every person asks their share
        k = i % n_people
        queues[k].append((askers[k], QUESTIONS[(k + len(queues[k])) % len(QUESTIONS)][1]))
    return queues


def percentile95(values: list[float]) -> float:
    """The 95th percentile (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(0.95 * len(ordered)) - 1)]


def run_clients(url: str, tools, settings, n_clients: int, queues: list[list[tuple[str, str]]]) -> dict:
    """N workstations at once over the same queues (see :func:`workloads`); with fewer workstations
    than people, the people of a workstation take turns at it, so every N does the same work."""
    from engine.model.remote import RemoteBackend

    queues = [list(q) for q in queues]
    lock = threading.Lock()
    latencies: list[float] = []

    def workstation(k: int) -> None:
        backend = RemoteBackend(url, settings)
        backend.set_conversation(f"workstation {k}")
        mine = [queues[0]] if len(queues) == 1 else queues[k::n_clients]
        for jobs in mine:
            while True:
                with lock:
                    if not jobs:
                        break
                    user, question = jobs.pop(0)
                seconds = ask(backend, tools, settings, user, question)
                with lock:
                    latencies.append(seconds)

    t0 = time.perf_counter()
    threads = [threading.Thread(target=workstation, args=(k,)) for k in range(n_clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"qpm": 60 * len(latencies) / wall, "median": statistics.median(latencies),
            "p95": percentile95(latencies), "wall": wall}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--model", help="GGUF file (default: the packaged 0.5B model)")
    parser.add_argument("--clients", default="1,4,16")
    parser.add_argument("--questions", type=int, default=16, help="questions asked per setting (at least 1)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--slots", default="1,4", help="llama-server slot counts to run (0: none)")
    parser.add_argument("--load", choices=("mixed", "person"), default="mixed",
                        help="mixed: any workstation asks the next question; person: each workstation is one person")
    parser.add_argument("--no-python-server", action="store_true", help="leave llama-cpp-python's server out")
    args = parser.parse_args(argv)
    if args.questions < 1:
        parser.error("--questions must be at least 1")

    from engine.assistant import build_tools
    from engine.model.llama import LlamaBackend
    from engine.settings import Settings
    from tests.llama_server import LlamaServer

    if args.model:
        model = Path(args.model)
    else:
        from engine.model.packs import QWEN_05B
        from tests.conftest import real_model_path

        model = real_model_path(QWEN_05B.id)
    settings = Settings(n_ctx=4096, n_threads=args.threads, temperature=0.0)
    tools = build_tools(settings)

    local = LlamaBackend(model, settings)
    # One workload for every setting: the same questions, asked by the same people.
    queues = workloads(args.load, max(int(x) for x in args.clients.split(",")), args.questions)
    jobs = [job for queue in queues for job in queue]  # in-process: one after another
    t0 = time.perf_counter()
    base = [ask(local, tools, settings, u, q) for u, q in jobs]
    base_wall = time.perf_counter() - t0
    local.close()
    base_qpm = 60 * len(base) / base_wall
    rows = [("in-process, 1 workstation", base_qpm, statistics.median(base), percentile95(base), None)]

    log = Path(tempfile.mkdtemp()) / "server.log"
    server = None if args.no_python_server else LlamaServer(model, log, n_ctx=4096, threads=args.threads)
    try:
        for n in ([] if server is None else [int(x) for x in args.clients.split(",")]):
            before, before_eval = len(server.prefix_hits()), len(server.prompt_evaluated())
            result = run_clients(server.url, tools, settings, n, queues)
            reused = sum(r for r, _ in server.prefix_hits()[before:])
            evaluated = sum(server.prompt_evaluated()[before_eval:])
            rate = reused / (reused + evaluated) if reused + evaluated else 0.0
            rows.append((f"server, {n} workstation{'s' if n > 1 else ''}", result["qpm"], result["median"],
                         result["p95"], rate))
    finally:
        if server is not None:
            server.stop()

    slots = [int(x) for x in args.slots.split(",") if x.strip() and int(x) > 0]
    if slots:
        from tests.conftest import _build_script
        from tests.llama_server import CppLlamaServer

        binary = _build_script().ensure()
        for n_slots in slots:
            cpp = CppLlamaServer(binary, model, Path(tempfile.mkdtemp()) / "cpp.log", slots=n_slots,
                                 threads=args.threads)
            try:
                for n in (int(x) for x in args.clients.split(",")):
                    TOKENS.update(reused=0, evaluated=0)
                    result = run_clients(cpp.url, tools, settings, n, queues)
                    total = TOKENS["reused"] + TOKENS["evaluated"]
                    rows.append((f"llama-server {n_slots} slot{'s' if n_slots > 1 else ''}, {n} ws", result["qpm"],
                                 result["median"], result["p95"], TOKENS["reused"] / total if total else 0.0))
            finally:
                cpp.stop()

    print(f"model {model.name}, {args.questions} questions per setting, {args.threads} threads, "
          f"{args.load} load\n")
    print(f"{'setting':<32} {'questions/min':>13} {'vs in-process':>13} {'median s':>9} {'p95 s':>7} "
          f"{'prefix cache hits':>17}")
    for name, qpm, median, p95, rate in rows:
        print(f"{name:<32} {qpm:>13.2f} {qpm / base_qpm:>12.2f}x {median:>9.2f} {p95:>7.2f} "
              f"{'' if rate is None else f'{rate:.0%}':>17}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
