"""Asking in the main window: sending a question, its answer streaming into the card step by step,
stop, copy, regenerate and edit."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QTreeWidgetItem

from engine.agent.steps import (ActionStep, AnswerRetracted, AnswerToken, ErrorStep, FinalAnswer, ModelCallStep,
                                ObservationStep, PlanMade, ProcedureOffered, StageStarted, ThoughtStep)
from engine.tools.catalog import describe_call


def _close_stage(progress: list[dict]) -> None:
    """A stage line (writing the calculation, the answer) ends where the next step starts."""
    if progress and progress[-1].get("stage") and progress[-1]["done"] is None:
        progress[-1]["done"] = True


class AskingPart:
    """Asking, a part of :class:`~desktop.ui.main_window.MainWindow`."""

    # -- asking ------------------------------------------------------------------------------------
    def send(self, text: str | None = None) -> None:
        question = (text if isinstance(text, str) else self.input.toPlainText()).strip()
        if not question or self.busy:
            return
        if not self.model_loaded:
            self._problem("No chat model", "The assistant needs a GGUF chat model to answer.",
                          "Choose one in Settings; meanwhile you can search the policies.")
            return
        history = self.chat.history()
        if self.chat.ask(question, self.user):
            self.reload_chats()
        self.input.clear()
        self.trace_tree.clear()
        self.sources.clear()
        self._set_busy(True)
        self.transcript.scroll_to_end()
        self.render()
        self.request_ask.emit(self.conversation, question, history)

    def stop(self) -> None:
        if self.busy:
            self.worker.cancel_event.set()  # thread-safe; the engine checks it between tokens

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        # While an answer is on its way the card's clock ticks, so a long step never looks frozen.
        if busy:
            self._clock.start()
        else:
            self._clock.stop()
        self.send_button.setEnabled(not busy)
        self.stop_button.setEnabled(busy)
        self.new_chat_button.setEnabled(not busy)
        # A step moved while an answer streams would land after it: the card waits for the answer.
        self.procedure_card.setEnabled(not busy)
        self._update_actions()

    def _update_actions(self) -> None:
        has_answer = self.chat.has_answer()
        for b in (self.copy_button, self.regenerate_button, self.edit_button):
            b.setEnabled(has_answer and not self.busy)

    # The open chat's state lives in self.chat; these name it as the window's parts read it.
    @property
    def messages(self) -> list[dict]:
        return self.chat.messages

    @property
    def conversation(self) -> int | None:
        return self.chat.conversation

    def _current(self) -> dict:
        return self.chat.current

    def _progress(self, text: str, done: bool | None = None, stage: bool = False) -> None:
        """A line on the answer card for a step as it starts (``done`` None: still running)."""
        msg = self._current()
        if msg.get("streaming"):
            progress = msg.setdefault("progress", [])
            _close_stage(progress)
            progress.append({"text": text, "done": done, **({"stage": True} if stage else {})})
            self._schedule_render()

    def _progress_done(self, ok: bool, seconds: float) -> None:
        progress = self._current().get("progress") or []
        if progress and progress[-1]["done"] is None:
            progress[-1].update(done=ok, seconds=round(seconds, 1))
            self._schedule_render()

    def _on_step(self, step) -> None:
        if isinstance(step, StageStarted):
            self._progress(step.doing, stage=True)
            QTreeWidgetItem(self.trace_tree, ["Step", step.doing, ""])
        elif isinstance(step, ActionStep):
            self._progress(describe_call(step.action, step.action_input))
        elif isinstance(step, ObservationStep):
            self._progress_done(step.ok, step.seconds)
        elif isinstance(step, PlanMade):
            self._progress(f"Planned {len(step.steps)} tool calls at once", True)
        elif isinstance(step, ProcedureOffered):
            self._progress(f"Checked “{step.procedure['title']}” against your record", True)
        elif isinstance(step, AnswerRetracted):
            self._progress("Rewriting the answer: a number in it had no source", True)
        if isinstance(step, AnswerToken):
            self._current()["content"] += step.text
            self._schedule_render()
        elif isinstance(step, AnswerRetracted):
            # The engine withdrew an answer with an unsourced number; the rewrite streams next.
            self._current()["content"] = ""
            QTreeWidgetItem(self.trace_tree, ["Withdrawn", step.reason, ""])
            self._schedule_render()
        elif isinstance(step, ThoughtStep):
            QTreeWidgetItem(self.trace_tree, ["Thought", step.thought, ""])
        elif isinstance(step, PlanMade):
            item = QTreeWidgetItem(self.trace_tree, ["Plan", f"{len(step.steps)} tool calls, planned at once", ""])
            for s in step.steps:
                after = f" (after #{', #'.join(map(str, s['depends_on']))})" if s["depends_on"] else ""
                QTreeWidgetItem(item, [f"#{s['id']}", f"{s['tool']}: {s['input']}{after}", ""])
            item.setExpanded(True)
        elif isinstance(step, ProcedureOffered):
            verdict = step.applicability["verdict"].replace("_", " ")
            item = QTreeWidgetItem(self.trace_tree, ["Procedure", f"{step.procedure['title']}: {verdict}", ""])
            for check in step.applicability["checks"]:
                mark = {True: "✓", False: "✗", None: "?"}[check["ok"]]
                QTreeWidgetItem(item, [mark, f"{check['label'] or check['condition']} "
                                             f"{check['value'] or check['reason']}".strip(), ""])
            item.setExpanded(True)
        elif isinstance(step, ActionStep):
            QTreeWidgetItem(self.trace_tree, ["Tool", f"{step.action}: {step.action_input}", ""])
        elif isinstance(step, ObservationStep):
            item = QTreeWidgetItem(self.trace_tree, ["Observation" + (" (repeat)" if step.cached else ""),
                                                     step.observation.splitlines()[0][:200], f"{step.seconds:.2f}s"])
            QTreeWidgetItem(item, ["", step.observation, ""])
            self._show_data(step.data)
        elif isinstance(step, ModelCallStep):
            QTreeWidgetItem(self.trace_tree, ["Model", f"{step.prompt_tokens_evaluated} prompt tokens evaluated, "
                                              f"{step.prompt_tokens_reused} reused, {step.completion_tokens} written",
                                              f"{step.seconds:.2f}s"])
        elif isinstance(step, FinalAnswer):
            self._current()["content"] = step.answer
        elif isinstance(step, ErrorStep):
            note = "(stopped)" if step.error_type == "Cancelled" else f"**{step.message}** {step.hint}"
            content = self._current()["content"]
            self._current()["content"] = (content + "\n\n" + note).strip()

    def _on_answered(self, trace) -> None:
        msg = self._current()
        citations = self._citations()
        _close_stage(msg.get("progress") or [])
        record = {"answer_complete": trace.complete, "steps": [vars(s) for s in trace.steps],
                  "citations": citations, "llm_calls": trace.llm_calls, "seconds": trace.seconds,
                  "error": trace.error, "ungrounded": trace.ungrounded_numbers,
                  "progress": msg.get("progress") or []}
        if trace.procedure:
            record["procedure"] = trace.procedure
        self.chat.finish(msg, record)
        if trace.procedure and trace.procedure.get("walkthrough"):
            self._show_procedure(msg)
        self._show_sources(citations)
        self._set_busy(False)
        self.render()
        self.input.setFocus()

    def _citations(self) -> list[dict]:
        out = []
        for obs in self._observation_data:
            if isinstance(obs, dict) and obs.get("citations"):
                out = obs["citations"]  # the latest search is what the answer cites
        self._observation_data = []
        return out

    def _on_failed(self, message: str, hint: str) -> None:
        if self.requests_dialog is not None and self.requests_dialog.isVisible():
            self.requests_dialog._update_buttons()  # a refused step: the buttons come back
        if self.busy:
            msg = self._current()
            msg.pop("streaming", None)
            msg["content"] = (msg["content"] + f"\n\n**{message}** {hint}").strip()
            self._set_busy(False)
            self.render()
        self._problem("Something went wrong", message, hint)

    def copy_answer(self) -> None:
        last = self.chat.last_answer()
        if last:
            QGuiApplication.clipboard().setText(last["content"])

    def _drop_last_turn(self) -> str | None:
        """Remove the last question and its answer (store and model context); return the question."""
        if self.busy:
            return None
        had_procedure = self.chat.procedure_msg is not None
        question = self.chat.drop_last_turn()
        if question is None:
            return None
        if had_procedure and self.chat.procedure_msg is None:
            self.procedure_card.clear()
        self.request_forget.emit()
        self.render()
        return question

    def regenerate(self) -> None:
        question = self._drop_last_turn()
        if question:
            self.send(question)

    def edit_last(self) -> None:
        question = self._drop_last_turn()
        if question:
            self.input.setPlainText(question)
            self.input.setFocus()
        self._update_actions()
