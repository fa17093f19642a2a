"""The real llama.cpp path, on a tiny GGUF model the suite generates itself."""

from __future__ import annotations

import json
import threading

import pytest

from engine.agent.loop import Agent
from engine.assistant import build_data_tool
from engine.errors import ModelFileError, ToolInputError
from engine.model.llama import LlamaBackend, check_model_file
from engine.agent.parser import parse_turn
from engine.data.query import check_syntax
from engine.settings import Settings
from engine.agent.steps import ErrorStep, FinalAnswer
from engine.tools.base import ToolContext
from engine.tools.calculator import CalculatorTool, validate
from engine.tools.registry import TURN_PREFIX, ToolRegistry
from tests.conftest import ROOT
from tests.model_factory import write_tiny_gguf


@pytest.fixture(scope="module")
def registry():
    return ToolRegistry([build_data_tool(Settings()), CalculatorTool()])


def assert_input_parses(tool: str, text: str) -> None:
    """Grammar-made input passes the tool's syntax check (it may still fail a bound, such as a huge exponent)."""
    if tool == "calculator":
        try:
            validate(text)
        except ToolInputError as exc:
            assert "not valid arithmetic" not in exc.message, text
    elif tool == "employee_data":
        check_syntax(text)


def test_model_info_and_template(tiny_backend):
    assert tiny_backend.name == "tiny-random-test-model"
    prompt = tiny_backend.chat_prompt([{"role": "user", "content": "hi"}])
    assert prompt == "<|im_start|>user\nhi<|im_end|>\n<|im_start|>assistant\n"
    # special tokens in the template are parsed as single control tokens
    assert tiny_backend.count_tokens("<|im_start|>") == 1


def test_every_turn_parses_over_many_seeds(tiny_backend, registry):
    """Random weights still obey the grammar: each turn parses and names only registered tools,
    and each Action Input passes that tool's own syntax check."""
    grammar = registry.turn_grammar()
    prompt = tiny_backend.chat_prompt([{"role": "system", "content": "x"}, {"role": "user", "content": "q"}])
    prompt += TURN_PREFIX
    actions = finals = 0
    for seed in range(24):
        tiny_backend.reseed(seed)
        gen = tiny_backend.generate(prompt, grammar, max_tokens=3000)
        assert gen.stop_reason == "end", (seed, gen.text[-200:])
        turn = parse_turn(TURN_PREFIX + gen.text, registry.names)
        if turn.final is not None:
            finals += 1
            continue
        actions += 1
        assert turn.action in registry.names
        assert_input_parses(turn.action, turn.action_input)
    assert actions and finals  # both branches were exercised


def test_grammar_without_tools_forces_final_answer(tiny_backend, registry):
    prompt = tiny_backend.chat_prompt([{"role": "user", "content": "q"}]) + TURN_PREFIX
    for seed in range(4):
        tiny_backend.reseed(100 + seed)
        gen = tiny_backend.generate(prompt, registry.turn_grammar(allow_tools=False), max_tokens=3000)
        assert parse_turn(TURN_PREFIX + gen.text, registry.names).final is not None


def test_prefix_is_reused_and_only_new_tokens_evaluated(tiny_backend):
    base = tiny_backend.chat_prompt([{"role": "user", "content": "How many sick days do I have left?"}])
    first = tiny_backend.generate(base, None, max_tokens=5)
    follow = base + first.text + "\nObservation: 12 days\n"
    second = tiny_backend.generate(follow, None, max_tokens=5)
    new_tokens = second.stats.prompt_tokens - first.stats.prompt_tokens - first.stats.completion_tokens
    assert second.stats.prompt_reused >= first.stats.prompt_tokens
    assert second.stats.prompt_evaluated <= new_tokens + 16
    # an unrelated prompt cannot reuse the cache beyond a common prefix
    other = tiny_backend.generate("completely different text", None, max_tokens=2)
    assert other.stats.prompt_reused <= 1


def test_a_kept_prompt_state_is_restored_after_other_prompts(tiny_backend):
    """keep(): a prompt's KV state outlives other prompts; a prompt that starts with it evaluates only
    the rest, and writes what it writes when evaluated from scratch."""
    kept = tiny_backend.chat_prompt([{"role": "system", "content": "You are the HR assistant. " * 12},
                                     {"role": "user", "content": ""}])
    question = kept.rsplit("<|im_start|>user", 1)[0] + "<|im_start|>user\nHow many sick days?<|im_end|>\n"
    other = tiny_backend.chat_prompt([{"role": "user", "content": "completely different text " * 8}])
    try:
        tiny_backend.keep(kept)
        tiny_backend.generate(other, None, max_tokens=3)  # the cache now holds another prompt
        tiny_backend.reseed(7)
        restored = tiny_backend.generate(question, None, max_tokens=12)
        shared = tiny_backend.count_tokens(kept.rsplit("<|im_start|>user", 1)[0])
        assert restored.stats.prompt_reused >= shared
        assert restored.stats.prompt_evaluated <= restored.stats.prompt_tokens - shared
        tiny_backend._kept.clear()
        tiny_backend.generate(other, None, max_tokens=3)
        tiny_backend.reseed(7)
        fresh = tiny_backend.generate(question, None, max_tokens=12)
        assert fresh.stats.prompt_reused <= 1
        assert fresh.text == restored.text
    finally:
        tiny_backend._kept.clear()


def test_streaming_and_cancellation_from_another_thread(tiny_backend):
    prompt = tiny_backend.chat_prompt([{"role": "user", "content": "write"}])
    pieces: list[str] = []
    cancel = threading.Event()

    def on_token(piece):
        pieces.append(piece)
        if len(pieces) == 5:
            threading.Thread(target=cancel.set).start()

    gen = tiny_backend.generate(prompt, None, on_token=on_token, max_tokens=2000, cancel=cancel)
    assert gen.stop_reason == "cancelled"
    assert 5 <= gen.stats.completion_tokens < 50
    assert "".join(pieces) == gen.text


def test_stop_strings(tiny_backend):
    prompt = tiny_backend.chat_prompt([{"role": "user", "content": "write"}])
    tiny_backend.reseed(3)
    full = tiny_backend.generate(prompt, None, max_tokens=60)
    stop = full.text[10:12]
    if stop.strip():
        tiny_backend.reseed(3)
        cut = tiny_backend.generate(prompt, None, stop=[stop], max_tokens=60)
        assert cut.stop_reason == "stop" and stop not in cut.text


def test_agent_end_to_end_on_real_llama(tiny_backend, registry):
    agent = Agent(tiny_backend, registry, ToolContext(user="Pedro Alves", role="employee", today="2026-11-22"),
                  max_steps=3, max_tokens=3000)
    tiny_backend.reseed(5)
    steps = list(agent.run("How many sick days do I have left?"))
    assert isinstance(steps[-1], FinalAnswer), steps[-1]
    trace = agent.last_trace
    assert trace.llm_calls == len(trace.steps) <= 4
    for call in trace.per_call[1:]:
        assert call["prompt_reused"] > 0
    data = json.loads(json.dumps(trace.to_dict()))
    assert data["answer"] and data["tools"] == ["employee_data", "calculator"]
    # a second question in the same chat reuses the first one's prompt (a short step, so the random
    # model's long first turn still fits beside it); at least up to the first bytes the random model
    # wrote that are not valid UTF-8 (they do not survive the round trip through text)
    agent.max_steps, agent.max_tokens = 0, 256
    trace2 = agent.ask("And vacation?")
    assert trace2.per_call[0]["prompt_reused"] > trace.per_call[0]["prompt_tokens"]


def test_corrupt_and_foreign_model_files(tmp_path, tiny_model_path):
    truncated = tmp_path / "truncated.gguf"
    truncated.write_bytes(tiny_model_path.read_bytes()[:200])
    with pytest.raises(ModelFileError, match="truncated|damaged"):
        LlamaBackend(truncated, Settings(n_ctx=512))
    unknown = write_tiny_gguf(tmp_path / "alien.gguf", architecture="alien9000")
    with pytest.raises(ModelFileError, match="architecture 'alien9000'"):
        check_model_file(unknown)
    tensors_cut = tmp_path / "cut.gguf"
    data = tiny_model_path.read_bytes()
    tensors_cut.write_bytes(data[: len(data) // 2])
    with pytest.raises(ModelFileError) as info:
        LlamaBackend(tensors_cut, Settings(n_ctx=512))
    assert "cut.gguf" in str(info.value)


def test_not_enough_memory_is_a_clear_error(tiny_model_path, monkeypatch):
    monkeypatch.setattr("engine.model.llama.available_memory", lambda: 10 * 1024**2)
    with pytest.raises(ModelFileError, match="needs about .* GB of memory"):
        check_model_file(tiny_model_path, Settings(n_ctx=4096))


def test_model_without_chat_template_falls_back_to_chatml(tmp_path):
    path = write_tiny_gguf(tmp_path / "plain.gguf", chat_template=None)
    backend = LlamaBackend(path, Settings(n_ctx=512, n_threads=1))
    try:
        assert backend.chat_prompt([{"role": "user", "content": "hi"}]).startswith("<|im_start|>user")
    finally:
        backend.close()


def test_cli_ask_json_on_real_model(tiny_model_path, capsys):
    from engine.cli import main

    code = main(["ask", "How many sick days do I have left?", "--user", "Pedro Alves", "--model",
                 str(tiny_model_path), "--json", "--max-steps", "2", "--n-ctx", "4096", "--seed", "4"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    for key in ("answer", "tools", "steps", "llm_calls", "prompt_tokens_evaluated", "prompt_tokens_reused",
                "completion_tokens", "seconds"):
        assert key in out
    assert out["tools"] == ["policy_search", "employee_data", "calculator"]
    for step in out["steps"]:
        assert {"thought", "action", "action_input", "observation"} <= set(step)


def test_cli_without_model_says_what_to_do(capsys, monkeypatch):
    from engine.cli import main

    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [ROOT / "nonexistent"])
    code = main(["ask", "hi", "--user", "Pedro Alves"])
    err = capsys.readouterr().err
    assert code == 2 and "No chat model" in err and "GGUF" in err and "models/README.md" in err


def test_setup_error_step_from_agent_is_reported(tiny_backend):
    agent = Agent(tiny_backend, ToolRegistry([CalculatorTool()]), ToolContext(user="x"), max_tokens=100)
    tiny_backend_ctx = tiny_backend.n_ctx
    try:
        tiny_backend.n_ctx = 60
        steps = list(agent.run("q"))
    finally:
        tiny_backend.n_ctx = tiny_backend_ctx
    assert isinstance(steps[-1], ErrorStep)


@pytest.mark.parametrize("tool_index", [0, 1])
def test_tool_input_grammar_agrees_with_its_validator(tiny_backend, registry, tool_index):
    """Sample many inputs from each tool's own grammar: every one passes the tool's syntax check."""
    tool = list(registry)[tool_index]
    grammar = tool.grammar_rules("root") + "\n"
    prompt = tiny_backend.chat_prompt([{"role": "user", "content": "q"}]) + "Action Input: "
    for seed in range(40):
        tiny_backend.reseed(1000 + seed)
        gen = tiny_backend.generate(prompt, grammar, max_tokens=400)
        if gen.stop_reason != "end":
            continue
        assert_input_parses(tool.name, gen.text)


def test_prompt_lookup_decoding_writes_exactly_what_plain_greedy_decoding_writes(tiny_model_path):
    """Drafts copied from the prompt are only kept where the model would have written them itself."""
    backend = LlamaBackend(tiny_model_path, Settings(n_ctx=2048, n_threads=2, temperature=0.0))
    registry = ToolRegistry([CalculatorTool()])
    try:
        quote = "The daily rate is the annual salary divided by 260 working days. " * 3
        prompt = backend.chat_prompt([{"role": "user", "content": quote + "Repeat: " + quote}])
        outputs = {}
        for lookup in (False, True):
            backend.prompt_lookup = lookup
            for grammar in (None, registry.turn_grammar()):
                backend._kv_text, backend._tok_cache = "", ("", [])
                backend.llm.reset()
                gen = backend.generate(prompt, grammar, max_tokens=120)
                outputs[(lookup, grammar is None)] = (gen.text, gen.stats.completion_tokens, gen.stats.draft_tokens)
        assert outputs[(True, True)][:2] == outputs[(False, True)][:2]
        assert outputs[(True, False)][:2] == outputs[(False, False)][:2]
        assert outputs[(True, True)][2] > 0 and outputs[(False, True)][2] == 0  # drafts were tried
        # The cache holds exactly prompt + answer afterwards: the next call reuses it.
        follow = backend.generate(prompt + outputs[(True, False)][0], None, max_tokens=1)
        assert follow.stats.prompt_evaluated <= 1
    finally:
        backend.close()


def test_native_tool_call_turns_parse_over_many_seeds(tiny_backend, registry):
    """The tool-call format's grammar binds random weights too: a call is valid JSON naming a real
    tool, its input passes the tool's syntax check, and an answer and a call never mix."""
    from engine.agent.turn_format import ToolCallFormat

    fmt = ToolCallFormat().bind(ToolCallFormat.schemas(registry, ToolContext(user="Pedro Alves")))
    prompt = tiny_backend.chat_prompt([{"role": "system", "content": "x"}, {"role": "user", "content": "q"}])
    calls = answers = 0
    for seed in range(8):
        tiny_backend.reseed(200 + seed)
        grammar = fmt.grammar(registry, allow_tools=True, numbers={"46000", "7.5"}, citations=0)
        if seed % 2:  # random weights rarely start with "<": half the seeds may only call
            grammar = grammar.replace("root ::= call | answer", "root ::= call")
        gen = tiny_backend.generate(prompt, grammar, max_tokens=1500)
        assert gen.stop_reason == "end", (seed, gen.text[-200:])
        turn = fmt.parse(gen.text, registry, truncated=False)
        if turn.final is not None:
            answers += 1
            assert not turn.final.startswith("<")
            continue
        calls += 1
        assert_input_parses(turn.action, turn.action_input)
    assert calls and answers


def _nested_array_gguf(path, depth: int = 20_000):
    """A 60 KB-class GGUF whose one metadata value is an array of an array of … (a red-team find)."""
    import struct

    key = b"evil"
    body = struct.pack("<4sIQQ", b"GGUF", 3, 1, 1) + struct.pack("<Q", len(key)) + key + struct.pack("<I", 9)
    body += struct.pack("<IQ", 9, 1) * depth + struct.pack("<IQ", 0, 0)
    path.write_bytes(body)
    return path


def test_nested_arrays_and_link_loops_are_clear_errors_and_do_not_hide_a_good_model(tmp_path, monkeypatch,
                                                                                     tiny_model_path):
    from engine.model import discovery as models
    from engine.model.gguf_info import read_gguf_info
    from engine.settings import Settings

    bad = _nested_array_gguf(tmp_path / "a-nested.gguf")
    with pytest.raises(ModelFileError, match="nested"):
        read_gguf_info(bad)
    loop = tmp_path / "b-loop.gguf"
    loop.symlink_to(tmp_path / "b-loop.gguf")
    with pytest.raises(ModelFileError, match="link loop"):
        read_gguf_info(loop)
    monkeypatch.setattr(models, "model_dirs", lambda: [tmp_path])
    assert loop in models.find_models()  # listed, so `models list` reports it
    with pytest.raises(ModelFileError, match="nested"):  # nothing usable: the first file's own error
        models.resolve_model_path(None, Settings())
    good = tmp_path / "c-good.gguf"
    good.symlink_to(tiny_model_path)
    assert models.resolve_model_path(None, Settings()) == good  # the damaged ones before it are skipped


def test_amx_buffers_are_off_where_the_build_has_them_unless_asked_for(monkeypatch):
    """A llama.cpp built on a CPU with AMX puts weights in AMX buffers, which crash on VMs that report AMX
    without supporting it; the backend loads without extra buffers there (an environment switch opts in)."""
    from engine.model import llama as backend_module

    class Lib:
        def __init__(self, info: bytes):
            self.info = info

        def llama_print_system_info(self):
            return self.info

    amx = Lib(b"CPU : AVX2 = 1 | AVX512 = 1 | AMX_INT8 = 1 | REPACK = 1 |")
    plain = Lib(b"CPU : AVX2 = 1 | AVX512 = 1 | REPACK = 1 |")
    monkeypatch.delenv(backend_module.AMX_ENV, raising=False)
    assert backend_module._extra_buffers_off(amx) and not backend_module._extra_buffers_off(plain)
    monkeypatch.setenv(backend_module.AMX_ENV, "1")
    assert not backend_module._extra_buffers_off(amx)


def test_the_guard_turns_extra_buffers_off_in_the_parameters_llama_cpp_loads_with(monkeypatch):
    import llama_cpp.llama as llama_module

    from engine.model import llama as backend_module

    lowlevel = llama_module.llama_cpp
    current = lowlevel.llama_model_default_params
    monkeypatch.setattr(lowlevel, "llama_model_default_params", getattr(current, "_hr_original", current))
    monkeypatch.setattr(backend_module, "_extra_buffers_off", lambda lib: True)
    assert lowlevel.llama_model_default_params().use_extra_bufts
    assert backend_module.guard_extra_buffers(backend_module._llama_cpp())
    assert not lowlevel.llama_model_default_params().use_extra_bufts
    assert backend_module.guard_extra_buffers(backend_module._llama_cpp())  # idempotent
