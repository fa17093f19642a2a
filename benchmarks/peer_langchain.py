"""Side by side: our design against the LangChain design of the app we replace, same model, same questions.

The old design, rebuilt with LangChain (a dev-only dependency, never shipped):
a zero-shot ReAct agent on the same GGUF through LangChain's ``LlamaCpp``
wrapper, with three tools: RetrievalQA over the same embeddings (fixed-size
chunks, a nested model call per policy question), a Python REPL on the same
data frame (``PythonAstREPLTool``, no access control), and ``LLMMathChain``
(another nested model call). Its free-text output is parsed by regex.

Both designs run the same suite cases on the same GGUF file, each case in a
fresh conversation, and one table compares accuracy, format errors, model
calls, prompt tokens evaluated and latency.

Usage: python benchmarks/peer_langchain.py --model FILE.gguf [--suite benchmarks/suite.jsonl]
       [--limit N] [--max-tokens 256]
Without --model it generates the tiny random test model (speed and call counts are
meaningful there even when answers are not).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from engine.evaluation import Case, Evaluator, load_suite, score_answer  # noqa: E402
from engine.settings import Settings  # noqa: E402

OLD_PREFIX = """You are a friendly HR assistant. You are tasked to assist the current user: {user} on questions
related to HR. You have access to the following tools:"""


class Counter:
    """Counts model calls, prompt tokens evaluated (with llama-cpp-python's own prefix reuse) and format errors."""

    def __init__(self, llama) -> None:
        self.llama = llama
        self.calls = self.evaluated = self.generated = self.format_errors = 0
        self._kv: list[int] = []

    def handler(self):
        from langchain_core.callbacks import BaseCallbackHandler

        counter = self

        class Handler(BaseCallbackHandler):
            def on_llm_start(self, serialized, prompts, **kwargs):
                for prompt in prompts:
                    tokens = counter.llama.tokenize(prompt.encode("utf-8"), add_bos=True)
                    common = 0
                    for a, b in zip(counter._kv, tokens):
                        if a != b:
                            break
                        common += 1
                    counter.calls += 1
                    counter.evaluated += len(tokens) - min(common, len(tokens) - 1)
                    counter._kv = tokens

            def on_llm_end(self, response, **kwargs):
                for gens in response.generations:
                    for g in gens:
                        out = counter.llama.tokenize(g.text.encode("utf-8"), add_bos=False)
                        counter.generated += len(out)
                        counter._kv = counter._kv + out

        return Handler()

    def parse_error(self, error) -> str:
        self.format_errors += 1
        return "Invalid or incomplete response. Use the format: Thought / Action / Action Input, or Final Answer."


class OldDesign:
    """The LangChain agent of the old app, on one GGUF model."""

    def __init__(self, model: str, n_ctx: int, max_tokens: int, temperature: float, seed: int) -> None:
        from langchain_community.llms import LlamaCpp

        # streaming=False: LangChain's default (True) goes through llama-cpp-python's streaming path, which
        # detokenizes the whole prompt again for every token; that would make the old design look far slower
        # than it needs to be. The comparison gives it the faster setting.
        self.llm = LlamaCpp(model_path=model, n_ctx=n_ctx, max_tokens=max_tokens, temperature=temperature,
                            seed=seed, n_threads=2, verbose=False, streaming=False)
        self.counter = Counter(self.llm.client)
        self._qa: dict[str, object] = {}

    def _retrieval_qa(self, policies: str):
        from langchain.chains import RetrievalQA
        from langchain_core.embeddings import Embeddings
        from langchain_core.vectorstores import InMemoryVectorStore
        from langchain_text_splitters import RecursiveCharacterTextSplitter

        from engine.assistant import get_embedder
        from engine.policy.loaders import load_lines, policy_files

        if policies in self._qa:
            return self._qa[policies]
        embedder = get_embedder(Settings())

        class SameEmbeddings(Embeddings):
            def embed_documents(self, texts):
                return embedder.encode(list(texts)).tolist()

            def embed_query(self, text):
                return embedder.encode_query(text)[0].tolist()

        text = "\n".join(line.text for p in policy_files(Path(policies)) for line in load_lines(p))
        splitter = RecursiveCharacterTextSplitter(chunk_size=1000, chunk_overlap=100)
        store = InMemoryVectorStore.from_texts(splitter.split_text(text), SameEmbeddings())
        qa = RetrievalQA.from_chain_type(llm=self.llm, chain_type="stuff", retriever=store.as_retriever())
        self._qa[policies] = qa
        return qa

    def agent(self, case: Case, employees: str, policies: str):
        import pandas as pd
        from langchain.agents import AgentType, Tool, initialize_agent
        from langchain.chains import LLMMathChain
        from langchain_experimental.tools import PythonAstREPLTool

        df = pd.read_csv(employees)
        qa = self._retrieval_qa(policies)
        math = LLMMathChain.from_llm(llm=self.llm)
        repl = PythonAstREPLTool(locals={"df": df})
        tools = [
            Tool(name="Timekeeping Policies", func=qa.run,
                 description="Useful for when you need to answer questions about employee timekeeping policies."),
            Tool(name="Employee Data", func=repl.run,
                 description="Useful for when you need to answer questions about employee data stored in pandas "
                 f"dataframe 'df'. Run python pandas operations on 'df' to help you get the right answer. "
                 f"'df' has the following columns: {list(df.columns)}"),
            Tool(name="Calculator", func=math.run,
                 description="Useful for when you need to do math operations or arithmetic."),
        ]
        return initialize_agent(tools, self.llm, agent=AgentType.ZERO_SHOT_REACT_DESCRIPTION, verbose=False,
                                handle_parsing_errors=self.counter.parse_error, max_iterations=6,
                                agent_kwargs={"prefix": OLD_PREFIX.format(user=case.user)})

    def run_case(self, case: Case, employees: str, policies: str) -> dict:
        agent = self.agent(case, employees, policies)
        before = (self.counter.calls, self.counter.evaluated, self.counter.generated, self.counter.format_errors)
        t0 = time.perf_counter()
        answer = ""
        for q in case.turns:
            try:
                answer = agent.invoke({"input": q}, config={"callbacks": [self.counter.handler()]})["output"]
            except Exception as exc:  # the old design fails in many ways; count, don't crash
                answer = f"(error: {type(exc).__name__})"
        seconds = time.perf_counter() - t0
        c = self.counter
        return {"answer": answer, "correct": score_answer(case, answer), "seconds": seconds,
                "calls": c.calls - before[0], "evaluated": c.evaluated - before[1], "generated": c.generated - before[2],
                "format_errors": c.format_errors - before[3]}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--model")
    ap.add_argument("--suite", default=str(ROOT / "benchmarks" / "suite.jsonl"))
    ap.add_argument("--limit", type=int, default=0, help="run only the first N cases")
    ap.add_argument("--ids", help="comma-separated case ids")
    ap.add_argument("--max-tokens", type=int, default=256)
    ap.add_argument("--n-ctx", type=int, default=8192)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--split", choices=("dev", "test", "all"), default="all",
                    help="suite split (report the held-out test split)")
    ap.add_argument("--temperature", type=float, default=0.0, help="both designs (0: greedy)")
    ap.add_argument("--json", help="write both designs' per-case results (ours with traces) here")
    args = ap.parse_args()
    tmp = tempfile.TemporaryDirectory()
    model = args.model
    if not model:
        from tests.model_factory import write_tiny_gguf

        model = str(write_tiny_gguf(Path(tmp.name) / "tiny-random.gguf"))
        label = "tiny random test model (answers meaningless; calls, tokens and time are real)"
    else:
        label = Path(model).name
    cases = load_suite(args.suite)
    if args.split != "all":
        cases = [c for c in cases if c.split == args.split]
    if args.ids:
        wanted = set(args.ids.split(","))
        cases = [c for c in cases if c.id in wanted]
    if args.limit:
        cases = cases[: args.limit]
    settings = Settings(n_ctx=args.n_ctx, n_threads=2, temperature=args.temperature, seed=args.seed, max_steps=6,
                        max_answer_tokens=args.max_tokens)
    default_emp, default_pol = str(ROOT / "data" / "employees.csv"), str(ROOT / "data" / "policies")

    from engine.model.llama import LlamaBackend

    backend = LlamaBackend(model, settings)
    ours = Evaluator(lambda case: backend, settings).run(cases)
    backend.close()
    old = OldDesign(model, args.n_ctx, args.max_tokens, args.temperature, args.seed)
    old_rows = []
    for c in cases:  # one line per case as it finishes, so a long run that is stopped still tells
        old_rows.append(old.run_case(c, c.employees or default_emp, c.policies or default_pol))
        r = old_rows[-1]
        print(f"langchain {c.id}: correct={r['correct']} calls={r['calls']} s={r['seconds']:.1f}", flush=True)

    def p95(xs):
        xs = sorted(xs)
        return xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]

    s = ours["summary"]
    counted = [r for r in old_rows if r["correct"] is not None]
    old_acc = sum(r["correct"] for r in counted) / len(counted) if counted else 0.0
    old_calls = sum(r["calls"] for r in old_rows)
    print(f"model: {label}; {len(cases)} cases ({args.split}); 2 CPU threads; temperature {args.temperature}; "
          f"max {args.max_tokens} tokens per call")
    print(f"{'design':<34}{'accuracy':>9}{'format errors':>15}{'calls/case':>11}{'prompt tok eval/case':>21}"
          f"{'gen tok/case':>13}{'mean s':>8}{'p95 s':>8}")
    fmt_err = sum(c["llm_calls"] - c["format_valid_turns"] for c in ours["cases"])
    print(f"{'ours (grammar, one call per step)':<34}{s['answer_accuracy']:>9.3f}{fmt_err:>15}"
          f"{s['llm_calls_per_case']:>11.2f}{s['prompt_tokens_evaluated_per_case']:>21.0f}"
          f"{s['completion_tokens_per_case']:>13.0f}{s['mean_latency_s']:>8.2f}{s['p95_latency_s']:>8.2f}")
    n = len(old_rows)
    print(f"{'LangChain ReAct (old app design)':<34}{old_acc:>9.3f}{sum(r['format_errors'] for r in old_rows):>15}"
          f"{old_calls / n:>11.2f}{sum(r['evaluated'] for r in old_rows) / n:>21.0f}"
          f"{sum(r['generated'] for r in old_rows) / n:>13.0f}{statistics.fmean(r['seconds'] for r in old_rows):>8.2f}"
          f"{p95([r['seconds'] for r in old_rows]):>8.2f}")
    print(f"format validity (ours): {s['format_validity']:.3f}; refusal accuracy (ours): {s['refusal_accuracy']:.3f}")
    if args.json:
        import json

        rows = [{"id": c.id, **r} for c, r in zip(cases, old_rows)]
        Path(args.json).write_text(json.dumps({"model": label, "split": args.split, "ours": ours, "langchain": rows},
                                              indent=1, default=str))
    tmp.cleanup()


if __name__ == "__main__":
    main()
