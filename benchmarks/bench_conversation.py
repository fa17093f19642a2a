"""Drawing the conversation while an answer streams: message cards against one big document.

    QT_QPA_PLATFORM=offscreen python benchmarks/bench_conversation.py [--turns 20] [--ticks 60]

A chat of ``--turns`` earlier questions and answers (Markdown with a table, citations and
figures, as the assistant writes them), then a new answer that grows by a few words per tick,
as the window draws it (at most every 40 ms). Baseline, in the same run: the window before
message cards, which set the whole chat as one Markdown document into a QTextBrowser on every
tick. Prints the milliseconds per tick of each and the ratio, and the time to open the chat:
until its newest messages are on screen (cards draw the older ones in later passes of the event
loop, so the window takes clicks meanwhile) and until all are drawn.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ANSWER = ("Yes — once a year you can encash up to 10 days [1]. For 10 days you would get **$1,769.23** "
          "(46,000 / 260 × 10 = 1,769.23).\n\n| item | days |\n| --- | --- |\n| vacation left | 12 |\n"
          "| sick left | 7 |\n\n- Ask in December [1].\n- Not on probation [2].")


def trace() -> dict:
    return {"steps": [{"thought": "t", "action": "calculator", "action_input": "round(46000 / 260 * 10, 2)",
                       "observation": "round(46000 / 260 * 10, 2) = 1769.23", "ok": True},
                      {"thought": "t", "action": "employee_data", "action_input": "df",
                       "observation": "| annual_salary_usd | vacation | sick |\n| 46,000 | 12 | 7 |", "ok": True}],
            "citations": [{"n": 1, "source": "leave-policy.md", "section": "Leave › 1.5 Encashment",
                           "location": "line 20", "text": "Up to 10 days; the daily rate is salary / 260."},
                          {"n": 2, "source": "leave-policy.md", "section": "Leave › 1.2 Probation",
                           "location": "line 12", "text": "No encashment on probation."}],
            "ungrounded": [], "llm_calls": 3, "seconds": 12.3}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--ticks", type=int, default=60)
    args = parser.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication, QTextBrowser

    from desktop.ui.conversation import ConversationView

    app = QApplication.instance() or QApplication([])
    history = []
    for i in range(args.turns):
        history += [{"role": "user", "content": f"Question {i}: can I cash out 10 days?"},
                    {"role": "assistant", "content": ANSWER, "trace": trace()}]
    words = ANSWER.split(" ")

    def baseline_markdown(messages) -> str:  # what the window drew before message cards
        parts = []
        for m in messages:
            who = "You" if m["role"] == "user" else "HR assistant"
            parts.append(f"**{who}**\n\n{m['content']}")
        return "\n\n---\n\n".join(parts)

    results = {}
    for name in ("baseline: one document", "message cards"):
        if name.startswith("baseline"):
            widget = QTextBrowser()
            draw = lambda msgs: widget.setMarkdown(baseline_markdown(msgs))  # noqa: E731
        else:
            widget = ConversationView()
            draw = lambda msgs: widget.show_messages(msgs, lambda m: "*Working on it — 3 s*")  # noqa: E731
        widget.resize(700, 800)
        widget.show()
        messages = [dict(m) for m in history]
        t0 = time.perf_counter()
        draw(messages)
        app.processEvents()
        shown = time.perf_counter() - t0  # the end of the chat is on screen
        while getattr(widget, "_pending", None) is not None:  # cards: the older ones, in later passes
            app.processEvents()
        opened = time.perf_counter() - t0
        messages += [{"role": "user", "content": "And for 5 days?"},
                     {"role": "assistant", "content": "", "streaming": True}]
        ticks = []
        for t in range(args.ticks):
            messages[-1]["content"] = " ".join(words[: (t % len(words)) + 1])
            t0 = time.perf_counter()
            draw(messages)
            app.processEvents()
            ticks.append(time.perf_counter() - t0)
        results[name] = (shown, opened, statistics.median(ticks))
        widget.close()
    base_tick = results["baseline: one document"][2]
    print(f"chat of {args.turns} turns, {args.ticks} streaming ticks")
    print(f"{'':24} {'open: newest shown':>19} {'open: all drawn':>16} {'per tick (median)':>18} {'tick vs baseline':>17}")
    for name, (shown, opened, tick) in results.items():
        print(f"{name:24} {shown * 1000:16.1f} ms {opened * 1000:13.1f} ms {tick * 1000:15.2f} ms "
              f"{tick / base_tick:16.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
