"""The command line: data, calc and settings (ask/chat with a real model are in test_llama_backend)."""

from __future__ import annotations

import json

from engine.cli import main
from engine.model.scripted import ScriptedBackend


def test_calc(capsys):
    assert main(["calc", "round(46000 / 260 * 10, 2)"]) == 0
    assert capsys.readouterr().out.strip() == "1769.23"


def test_calc_refuses_code(capsys):
    assert main(["calc", "__import__('os').system('id')"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err


def test_data_query_as_user(capsys):
    code = main(["data", 'df[df["full_name"] == "Pedro Alves"]["sick_days_remaining"]', "--user", "Pedro Alves",
                 "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["role"] == "employee" and out["data"]["row_count"] == 1


def test_data_refusal_exits_non_zero_with_message(capsys):
    code = main(["data", 'df["annual_salary_usd"].max()', "--user", "Pedro Alves"])
    assert code == 1
    assert "only for yourself" in capsys.readouterr().err


def test_data_with_reference_file_needs_kiosk_to_act_as_someone(capsys, site_file):
    from tests.conftest import REFERENCE

    args = ["data", 'df[df["name"] == "Alexander Verdad"]["vacation_leave"]', "--user", "Alexander Verdad",
            "--employees", str(REFERENCE / "employee_data.csv")]
    # Foreign data is not the demo: nobody picks a persona there, unless IT enabled kiosk mode.
    assert main(args) == 1 and "only HR staff can view" in capsys.readouterr().err
    site_file("[site]\nkiosk = true\n")
    assert main(args) == 0 and "45" in capsys.readouterr().out


def test_data_with_malformed_file(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_text("name,dept\nAna,HR\nBo,Sales,extra\n")
    code = main(["data", "len(df)", "--user", "Ana", "--employees", str(bad)])
    assert code == 2 and "Line 3" in capsys.readouterr().err


def test_settings_lists_every_setting(capsys):
    assert main(["settings"]) == 0
    out = capsys.readouterr().out
    assert "n_ctx = 4096" in out and "settings.json" in out


def test_ask_streams_trace_with_scripted_model(monkeypatch, capsys):
    backend = ScriptedBackend([
        'I need the balance.\nAction: employee_data\nAction Input: df[df["full_name"] == "Pedro Alves"]'
        '["sick_days_remaining"]\n',
        "I have it.\nFinal Answer: You have 2 sick days left.",
    ])
    monkeypatch.setattr("engine.assistant.load_backend", lambda settings, model=None, progress=None: backend)
    code = main(["ask", "How many sick days do I have left?", "--user", "Pedro Alves", "--mode", "react"])
    out = capsys.readouterr().out
    assert code == 0
    assert "Action: employee_data" in out and "1 row:" in out
    assert out.rstrip().endswith("Answer: You have 2 sick days left.")


def test_no_display_falls_back_to_terminal_with_a_reason(monkeypatch, capsys):
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"):
        monkeypatch.delenv(var, raising=False)
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setattr("engine.model.discovery.model_dirs", lambda: [])
    assert main([]) == 2
    err = capsys.readouterr().err
    assert "No graphical display found" in err and "No chat model" in err
