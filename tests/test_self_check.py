"""`--self-check` with sockets blocked, and the `models` commands."""

from __future__ import annotations

import socket

import pytest

from engine.cli import main


def test_self_check_passes_without_any_network(tiny_model_path, capsys, monkeypatch):
    attempts = []
    real_connect = socket.socket.connect

    def record(self, address, *args, **kwargs):
        attempts.append(address)
        raise OSError("network blocked by the test")

    monkeypatch.setattr(socket.socket, "connect", record)
    monkeypatch.setattr(socket, "create_connection", lambda *a, **k: record(None, a[0] if a else None))
    code = main(["--self-check", "--model", str(tiny_model_path)])
    out = capsys.readouterr().out
    assert code == 0, out
    for line in ("ok    embedding model", "ok    policy index", "ok    policy search", "ok    employee data query",
                 "ok    calculator", "ok    agent question with the model", "ok    window libraries",
                 "ok    no network access", "self-check passed"):
        assert line in out
    assert attempts == []
    assert real_connect is not None


def test_self_check_reports_failures(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("HR_ASSISTANT_EMPLOYEES", str(tmp_path / "missing.csv"))
    code = main(["self-check"])
    out = capsys.readouterr().out
    assert code == 1 and "FAIL  employee data query" in out and "self-check FAILED: 1 check(s)" in out


def test_self_check_the_window_libraries(capsys, monkeypatch):
    """A terminal-only server without libGL is not broken; a window without its chart library is."""
    monkeypatch.setattr("desktop.app.window_unavailable",
                        lambda: "The window cannot open: the system library libGL.so.1 is missing.")
    assert main(["self-check"]) == 0
    out = capsys.readouterr().out
    assert "skip  window libraries (The window cannot open: the system library libGL.so.1 is missing." in out
    monkeypatch.setattr("desktop.app.window_unavailable", lambda: None)
    monkeypatch.setitem(__import__("sys").modules, "pyqtgraph", None)  # a bundle that lost it
    assert main(["self-check"]) == 1
    assert "FAIL  window libraries" in capsys.readouterr().out


def test_models_list_and_verify(tiny_model_path, tmp_path, capsys, monkeypatch):
    from engine.model.discovery import sha256_file

    folder = tmp_path / "models"
    folder.mkdir()
    (folder / "good.gguf").write_bytes(tiny_model_path.read_bytes())
    (folder / "broken.gguf").write_bytes(b"not a model")
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [folder])
    assert main(["models", "list"]) == 0
    out = capsys.readouterr().out
    assert "tiny-random-test-model: llama" in out and "broken.gguf\n    unusable:" in out
    digest = sha256_file(tiny_model_path)
    assert main(["models", "verify", str(tiny_model_path), "--sha256", digest.upper()]) == 0
    assert "matches the expected SHA-256" in capsys.readouterr().out
    assert main(["models", "verify", str(tiny_model_path), "--sha256", "0" * 64]) == 2
    assert "does not match" in capsys.readouterr().err


def test_self_check_fails_when_something_calls_out(capsys, monkeypatch):
    """The self-check's own network block catches a component that tries to call home."""
    import socket as socket_module

    import engine.cli as cli

    real_calculator_check = cli._self_check

    def calls_home(args, attempts):
        with pytest.raises(OSError):
            socket_module.create_connection(("telemetry.example.com", 443), timeout=1)
        return real_calculator_check(args, attempts)

    monkeypatch.setattr(cli, "_self_check", calls_home)
    before = socket_module.getaddrinfo
    assert main(["self-check"]) == 1
    out = capsys.readouterr().out
    assert "FAIL  no network access: 1 attempt(s) blocked: resolve 'telemetry.example.com'" in out
    assert socket_module.getaddrinfo is before  # restored afterwards
