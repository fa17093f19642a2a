"""llama.cpp's own server (``llama-server``), built from the pinned llama-cpp-python source by
scripts/build_llama_server.py, started here on 127.0.0.1 with 4 parallel slots and continuous
batching: the tiny random model for grammar and protocol properties, the 0.5B real model for
answers. Marker ``llamaserver`` (the first run builds the binary: minutes; later runs take it
from the cache)."""

from __future__ import annotations

import threading
import time

import pytest

httpx = pytest.importorskip("httpx")

from engine.agent.steps import ErrorStep  # noqa: E402
from engine.assistant import build_context, build_tools, load_backend  # noqa: E402
from engine.model.remote import RemoteBackend, ServerError  # noqa: E402
from engine.settings import Settings  # noqa: E402
from tests.conftest import _build_script  # noqa: E402
from tests.llama_server import CppLlamaServer, make_site_certificates  # noqa: E402

pytestmark = [pytest.mark.llamaserver, pytest.mark.slow]
SETTINGS = Settings(n_ctx=4096, temperature=0.0, max_steps=3, max_answer_tokens=64)


@pytest.fixture(scope="module")
def server(server_binary, tiny_model_path, tmp_path_factory):
    srv = CppLlamaServer(server_binary, tiny_model_path, tmp_path_factory.mktemp("cpp") / "server.log")
    yield srv
    srv.stop()


@pytest.fixture(scope="module")
def tools():
    return build_tools(Settings())


def test_the_build_is_cached_by_version_and_made_from_the_installed_llama_cpp(server_binary, monkeypatch):
    import json
    from importlib.metadata import version

    stamp = json.loads((server_binary.parent.parent / "build.json").read_text())
    assert stamp["llama_cpp_python"] == version("llama-cpp-python")
    assert stamp["sdist"] == f"llama_cpp_python-{stamp['llama_cpp_python']}.tar.gz"
    assert "-DLLAMA_USE_PREBUILT_UI=OFF" in stamp["flags"] and "-DLLAMA_CURL=OFF" in stamp["flags"]
    assert "-DLLAMA_OPENSSL=ON" in stamp["flags"]  # the system's OpenSSL, for the server's TLS
    build = _build_script()
    assert build.NO_TLS_MARK not in server_binary.read_bytes()

    def no_build(*a, **k):
        raise AssertionError("a cached binary was built again")

    monkeypatch.setattr(build, "build", no_build)
    assert build.ensure() == server_binary
    assert build.main(["--print-only"]) == 0


def test_the_server_is_recognised_with_its_slots(server):
    backend = RemoteBackend(server.url, SETTINGS)
    assert backend.kind == "llama.cpp" and backend.n_ctx >= 4096
    assert backend.count_tokens("How many sick days do I have left?") > 3
    assert len(server.get("/slots")) == 4
    assert "llamacpp:prompt_tokens_total" in httpx.get(server.url + "/metrics", timeout=10).text


def test_it_names_the_server_its_model_and_slots(server, monkeypatch, capsys):
    from engine.cli import main

    monkeypatch.setenv("HR_ASSISTANT_MODEL_URL", server.url + "/v1")
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [])
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "on a llama.cpp server at" in out and "4 parallel slots" in out and "healthy" in out
    assert main(["self-check"]) == 0
    out = capsys.readouterr().out
    assert "ok    model server (model_url)" in out and "4 parallel slots" in out
    assert "plain HTTP, the host answered without a key" in out
    assert "warn  model server: the host answered without a key" in out
    assert "ok    agent question with the model" in out


def test_a_site_that_requires_the_key_refuses_a_host_that_answers_without_it(server, site_file, monkeypatch):
    monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", "a-key-nobody-asked-for")
    site_file(f'[site]\nmodel_url = "{server.url}"\nrequire_api_key = true\n')
    with pytest.raises(ServerError, match="answered without asking for the API key .*HTTP 200"):
        RemoteBackend(server.url, SETTINGS)


KEY = "hr-assistant-test-key-7d1c0b"


@pytest.fixture(scope="module")
def closed_host(server_binary, tiny_model_path, tmp_path_factory):
    """llama-server as README starts a site's model host: the API key from a file, TLS with a certificate the
    site's CA signed (both made here)."""
    folder = tmp_path_factory.mktemp("closed-host")
    certificates = make_site_certificates(folder / "tls")
    keys = folder / "model-keys"
    keys.write_text(f"# the site's key for hr-assistant\n{KEY}\n")
    keys.chmod(0o600)
    srv = CppLlamaServer(server_binary, tiny_model_path, folder / "server.log", slots=2, tls=certificates,
                         api_key_file=keys)
    srv.certificates = certificates
    yield srv
    srv.stop()


def test_a_host_with_a_key_and_tls_serves_the_site_and_strangers_get_nothing(closed_host, site_file, monkeypatch,
                                                                             capsys):
    from engine.cli import main

    url, ca = closed_host.url, closed_host.certificates.ca
    assert url.startswith("https://127.0.0.1:")
    site_file(f'[site]\nmodel_url = "{url}"\nmodel_ca = "{ca}"\nrequire_api_key = true\n')
    monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", KEY)
    backend = RemoteBackend(url, SETTINGS)
    assert backend.kind == "llama.cpp" and backend.slots == 2 and backend.key_asked
    assert backend.generate("Hello", grammar='root ::= "ok"', max_tokens=4).text == "ok"
    assert "the host asked for the key" in backend.describe() and f"TLS verified against {ca}" in backend.describe()
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [])
    assert main(["self-check"]) == 0
    out = capsys.readouterr().out
    assert "ok    model server (model_url)" in out and "the host asked for the key" in out
    assert "warn  model server" not in out and "ok    agent question with the model" in out

    # Someone on the network without the key: nothing but /health, not the model, its metrics or its slots.
    for path in ("/v1/models", "/props", "/slots", "/metrics"):
        assert httpx.get(url + path, verify=closed_host.verify, timeout=10).status_code == 401, path
    assert httpx.post(url + "/v1/completions", json={"prompt": "x", "max_tokens": 1}, verify=closed_host.verify,
                      timeout=10).status_code == 401
    assert httpx.get(url + "/slots", verify=closed_host.verify, timeout=10,
                     headers={"Authorization": f"Bearer {KEY}"}).status_code == 200
    with pytest.raises(httpx.HTTPError):  # and nothing in plain text on that port
        httpx.get(url.replace("https://", "http://") + "/health", timeout=10)


def test_a_workstation_without_the_key_or_the_sites_ca_is_told_clearly(closed_host, site_file, monkeypatch):
    url, ca = closed_host.url, closed_host.certificates.ca
    site_file(f'[site]\nmodel_url = "{url}"\nmodel_ca = "{ca}"\nrequire_api_key = true\n')
    with monkeypatch.context() as m:
        m.delenv("HR_ASSISTANT_MODEL_API_KEY", raising=False)
        m.setattr("engine.model.remote.api_key", lambda url: None)  # (nor in this machine's keyring)
        with pytest.raises(ServerError, match="requires an API key .* this workstation has none"):
            RemoteBackend(url, SETTINGS)
    monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", "not-the-key")
    with pytest.raises(ServerError, match="refused this workstation's API key"):
        RemoteBackend(url, SETTINGS)
    monkeypatch.setenv("HR_ASSISTANT_MODEL_API_KEY", KEY)
    site_file(f'[site]\nmodel_url = "{url}"\n')  # no model_ca: the OS's store does not know the site's CA
    with pytest.raises(ServerError, match="TLS certificate this workstation does not trust"):
        RemoteBackend(url, SETTINGS)


def test_every_turn_parses_with_four_answers_batched_at_once(server, tools):
    """Four requests at once, each with its own grammar state in its own slot: the random-weight model
    writes anything the grammar allows, and every complete turn parses and names a registered tool."""
    from engine.agent.parser import parse_turn
    from tests.test_llama_backend import TURN_PREFIX, assert_input_parses

    backend = RemoteBackend(server.url, SETTINGS)
    prompt = backend.chat_prompt([{"role": "system", "content": "x"}, {"role": "user", "content": "q"}]) + TURN_PREFIX
    results: dict[int, object] = {}
    spans: dict[int, tuple[float, float]] = {}
    errors: list[BaseException] = []

    def one(seed: int) -> None:
        try:
            t0 = time.perf_counter()
            results[seed] = RemoteBackend(server.url, SETTINGS.replace(seed=seed, temperature=1.0)).generate(
                prompt, tools.turn_grammar(), max_tokens=1500)
            spans[seed] = (t0, time.perf_counter())
        except BaseException as exc:  # noqa: BLE001 - reported below, with the others
            errors.append(exc)

    threads = [threading.Thread(target=one, args=(seed,)) for seed in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(300)
    assert not errors and sorted(results) == [0, 1, 2, 3], errors
    # They were answered at once, in four slots, not one after another.
    assert max(start for start, _ in spans.values()) < min(end for _, end in spans.values())
    assert all(gen.stop_reason == "end" for gen in results.values()) or \
        sum(gen.stop_reason == "end" for gen in results.values()) >= 2
    for seed, gen in results.items():
        assert gen.stop_reason in ("end", "length"), seed
        if gen.stop_reason == "end":
            turn = parse_turn(TURN_PREFIX + gen.text, tools.names)
            if turn.final is None:
                assert turn.action in tools.names
                assert_input_parses(turn.action, turn.action_input)


def test_a_conversations_prompt_is_served_from_its_slots_cache(server, tools):
    """The second turn of a conversation reuses the first's prompt from the slot's cache (the server's own
    timings say how much); the trace counts the reused tokens."""
    from engine.agent.loop import Agent

    backend = RemoteBackend(server.url, SETTINGS)
    agent = Agent(backend, tools, build_context("Pedro Alves", tools), max_steps=2, max_tokens=32)
    agent.ask("How many sick days do I have left?")
    second = agent.ask("And how many vacation days?")
    assert second.prompt_tokens_reused > 300
    assert second.prompt_tokens_evaluated < second.prompt_tokens_reused


def test_a_cancelled_answer_frees_its_slot(server):
    backend = RemoteBackend(server.url, SETTINGS)
    cancel = threading.Event()
    pieces: list[str] = []

    def on_token(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            cancel.set()

    result = backend.generate("Once upon a time", grammar='root ::= ("ab "){400}', max_tokens=3000,
                              on_token=on_token, cancel=cancel)
    assert result.stop_reason == "cancelled" and len(pieces) < 200
    deadline = time.time() + 30
    while time.time() < deadline and any(s.get("is_processing") for s in server.get("/slots")):
        time.sleep(0.2)
    assert not any(s.get("is_processing") for s in server.get("/slots")), "the cancelled answer kept its slot"


def test_a_server_killed_mid_answer_is_a_clear_error_and_works_again_after_a_restart(server_binary, tiny_model_path,
                                                                                      tmp_path, tools):
    srv = CppLlamaServer(server_binary, tiny_model_path, tmp_path / "server.log")
    port = srv.port
    try:
        backend = RemoteBackend(srv.url, SETTINGS)
        got_first = threading.Event()
        errors: list[ServerError] = []

        def run() -> None:
            try:
                backend.generate("Once upon a time", grammar='root ::= ("ab "){400}', max_tokens=3000,
                                 on_token=lambda p: got_first.set())
            except ServerError as exc:
                errors.append(exc)

        thread = threading.Thread(target=run)
        thread.start()
        assert got_first.wait(60)
        srv.kill()
        thread.join(60)
        assert errors and "stopped answering in the middle" in errors[0].message
        from engine.agent.loop import Agent

        agent = Agent(backend, tools, build_context("Pedro Alves", tools), max_steps=2)
        steps = list(agent.run("How many sick days do I have left?"))
        assert isinstance(steps[-1], ErrorStep) and "cannot be reached" in steps[-1].message
        srv.stop()
        srv = CppLlamaServer(server_binary, tiny_model_path, tmp_path / "server.log", port=port)
        follow = backend.generate("Hello", grammar='root ::= "ok"', max_tokens=4)  # the same backend, unchanged
        assert follow.text == "ok"
    finally:
        srv.stop()


@pytest.mark.realmodel
def test_a_real_model_through_four_slots_answers_like_in_process(server_binary, tmp_path):
    """Qwen2.5-Coder-0.5B in-process and through llama-server (4 slots, questions sent at once): the
    route of every question is the same, and the answers match in all but at most one: the same
    look-ups and the same figures stated. (Batches split the arithmetic differently from one
    sequence, which changes low bits and so, some tokens in, the wording of a greedy answer.)"""
    from engine.assistant import make_agent, sign_in, context_for
    from engine.model.packs import QWEN_05B
    from tests.conftest import real_model_path

    model = real_model_path(QWEN_05B.id)
    settings = Settings(n_ctx=4096, n_threads=2, temperature=0.0)
    tools = build_tools(settings)
    questions = ["How many sick days do I have left?", "What is 15% of 1500?",
                 "How much would I get if I cashed out 10 vacation days?", "Who is my manager?",
                 "What is the per diem for an international trip?", "Hi! What can you help me with?"]

    def answers(backend, at_once: bool):
        out: dict[int, object] = {}

        def one(i: int) -> None:
            agent = make_agent(backend, tools, context_for(sign_in(tools, "Pedro Alves", personas=True), tools),
                               settings)
            out[i] = agent.ask(questions[i])

        if at_once:
            threads = [threading.Thread(target=one, args=(i,)) for i in range(len(questions))]
            for t in threads:
                t.start()
            for t in threads:
                t.join(600)
        else:
            for i in range(len(questions)):
                one(i)
        return [out[i] for i in range(len(questions))]

    local = load_backend(settings, str(model))
    try:
        expected = answers(local, at_once=False)
    finally:
        local.close()
    srv = CppLlamaServer(server_binary, model, tmp_path / "server.log")
    try:
        got = answers(load_backend(settings.replace(model_url=srv.url)), at_once=True)
    finally:
        srv.stop()
    assert [t.route[0]["kind"] for t in got] == [t.route[0]["kind"] for t in expected]
    from engine.agent.grounding import numbers_in

    def gist(trace):  # what an answer says: the look-ups it rests on and the figures it states
        return [s.action for s in trace.steps if s.action], sorted(set(numbers_in(trace.answer)))

    same = sum(gist(g) == gist(e) for g, e in zip(got, expected))
    differ = [f"{q}\n  server: {g.answer[:160]!r}\n  local:  {e.answer[:160]!r}"
              for q, g, e in zip(questions, got, expected) if gist(g) != gist(e)]
    assert same >= len(questions) - 1, "\n".join(differ)
    # No figure through the server that in-process would not have (the 0.5B reads "1017 sick days" off
    # the employee ID E1017 either way: README's answer-quality notes).
    assert [t.ungrounded_numbers for t in got] == [t.ungrounded_numbers for t in expected] or \
        sum(map(len, (t.ungrounded_numbers for t in got))) < sum(map(len, (t.ungrounded_numbers for t in expected)))
