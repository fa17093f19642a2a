"""The window on the real default model: README's example question answered in full.

"Can I cash out unused vacation leave, and how much would I get for 10 days?" Part 1 is the model's
reading of the rule; part 2 is code's once it is routed (the handbook defines the daily rate, code
works it out from Pedro's salary and multiplies with the calculator), so its figures hold on any CPU.
Only what must hold everywhere is asserted of the model's part: an answer, grounded, with a citation.
"""

from __future__ import annotations

import re

import pytest

pytest.importorskip("PySide6")

from desktop.ui.main_window import MainWindow  # noqa: E402
from engine.model.packs import QWEN_15B  # noqa: E402
from engine.settings import Settings  # noqa: E402
from tests.conftest import real_model_path  # noqa: E402

pytestmark = [pytest.mark.realmodel, pytest.mark.slow]

QUESTION = "Can I cash out unused vacation leave, and how much would I get for 10 days?"


def test_the_window_answers_the_readme_example_with_the_rule_the_daily_rate_and_the_amount(qtbot):
    from engine.model.llama import LlamaBackend

    path = real_model_path(QWEN_15B.id)
    window = MainWindow(Settings(user="Pedro Alves", n_threads=2, temperature=0.0),
                        backend_factory=lambda s: LlamaBackend(path, s), ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.model_loaded and window.role != "", timeout=240000)
    window.send(QUESTION)
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    trace = window.worker.agent.last_trace
    assert trace.error is None and trace.ungrounded_numbers == []
    assert [r["part"] for r in trace.route] == [1, 2] and trace.route[1]["kind"] == "policy_calc"
    card = window.transcript.toPlainText()
    # Both parts answered, each its own line.
    assert re.search(r"^1\. \S", trace.answer, re.M) and re.search(r"^2\. \S", trace.answer, re.M)
    # The daily rate and the amount, worked out by the calculator, in the card; the rule quoted under it.
    assert "daily rate of 176.92 (46000 / 260)" in card and "1769.23" in card
    assert "divided by 260 working days" in card
    assert "Worked out (part 2): your daily rate of 176.92 (46000 / 260) × 10 days = 1769.23" in card
    calculations = [s.observation for s in trace.steps if s.action == "calculator" and s.ok]
    assert calculations and calculations[-1].endswith("= 1769.23")
    # The calculator's step is in the reasoning pane.
    rows = [window.trace_tree.topLevelItem(i).text(1) for i in range(window.trace_tree.topLevelItemCount())]
    assert any("calculator" in r.lower() or "176.9231 * 10" in r for r in rows), rows


def test_a_german_question_in_the_window_is_answered_in_german_with_its_sources(qtbot, tmp_path):
    """A German company's export and handbook: a German policy question is answered with its citation and
    the model is asked for German; a German question the access layer refuses gets code's German words."""
    import os
    import pwd
    from pathlib import Path

    from engine.model.llama import LlamaBackend

    company = Path(__file__).resolve().parents[1] / "benchmarks" / "synthetic" / "brueckner-feinmechanik"
    export = tmp_path / "personal_export.csv"  # (Elif Demir's account is the OS's: identity comes from the OS)
    me = pwd.getpwuid(os.geteuid()).pw_name
    export.write_bytes((company / "personal_export.csv").read_bytes().replace(b";edemir;", f";{me};".encode()))
    path = real_model_path(QWEN_15B.id)
    settings = Settings(n_threads=2, temperature=0.0, employees_path=str(export), policies_path=str(company / "policies"))
    window = MainWindow(settings, backend_factory=lambda s: LlamaBackend(path, s), ask_sign_in=False)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitUntil(lambda: window.model_loaded and window.role != "", timeout=240000)
    assert window.user == "Elif Demir" and window.role == "employee"
    window.send("Wie lange dauert die Probezeit?")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    trace = window.worker.agent.last_trace
    assert not trace.error and trace.answer and not trace.ungrounded_numbers
    assert re.search(r"\[\d\]", trace.answer)  # cited
    assert "Write the answer in German" in "\n".join(window.worker.agent.last_turn.scratch)
    window.send("Wie viel verdient Anna Müller?")
    qtbot.waitUntil(lambda: not window.busy, timeout=300000)
    refused = window.worker.agent.last_trace
    assert refused.answer.startswith("Das kann ich Ihnen nicht sagen.") and not refused.ungrounded_numbers
    assert "Das kann ich Ihnen nicht sagen." in window.transcript.toPlainText()
