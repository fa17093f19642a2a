"""Leave requests and procedure walk-throughs in the main window."""

from __future__ import annotations

from engine.workflows.procedures import Walkthrough

from .requests_dialog import RequestsDialog


class RequestsPart:
    """Filed leave requests and walk-throughs, a part of :class:`~desktop.ui.main_window.MainWindow`."""

    # -- filed leave requests ------------------------------------------------------------------------
    def open_requests(self) -> None:
        """The filed leave requests this person may see, with approve/decline (manager, HR) and cancel."""
        if self.requests_dialog is None:
            accounts = getattr(self, "identity_info", {}).get("accounts", ())
            self.requests_dialog = RequestsDialog(self.user, accounts, self)
            self.requests_dialog.refresh_requested.connect(self.request_list_requests.emit)
            self.requests_dialog.action_requested.connect(self.request_act_on_request.emit)
        self.requests_dialog.user_name = self.user
        self.requests_dialog.show()
        self.requests_dialog.raise_()
        self.request_list_requests.emit(self.requests_dialog.show_decided.isChecked())

    def _on_requests_listed(self, rows, hits) -> None:
        if self.requests_dialog is not None:
            self.requests_dialog.set_rows(rows, hits)

    def _on_request_acted(self, row: dict) -> None:
        self.statusBar().showMessage(f"Leave request {row.get('id')} of {row.get('employee')}: {row.get('status')}.",
                                     15000)
        if self.requests_dialog is not None:
            self.requests_dialog.acted(row)

    def _on_leave_decided(self, request: dict) -> None:
        self._leave_request = None
        self.leave_card.hide()
        if request["status"] == "pending":
            note = (f"Submitted: {request['leave_type']} leave {request['start']} to {request['end']} "
                    f"({request['day_count']:g} days). Your manager or HR decides it; until then you can cancel it "
                    "under Tools › Leave requests.")
        else:
            note = "Rejected: the leave request was discarded; nothing was submitted."
        self.statusBar().showMessage(note, 15000)
        self.chat.note(note, {"leave_request": request})  # part of the chat, also after a restart
        self._schedule_render()

    # -- procedures ------------------------------------------------------------------------------
    def _show_procedure(self, msg: dict) -> bool:
        """Show the walk-through saved in ``msg``'s trace; False if it is over or unreadable."""
        saved = ((msg.get("trace") or {}).get("procedure") or {}).get("walkthrough")
        try:
            walk = Walkthrough.from_dict(saved) if saved else None
        except (TypeError, ValueError):
            walk = None  # a damaged saved state: the answer text still lists the steps
        if walk is None or not walk.active:
            return False
        self.chat.procedure_msg = msg
        self.procedure_card.show_walkthrough(walk)
        return True

    def _resume_procedure(self) -> None:
        """Reopening a chat (or the app) brings back a walk-through that was left half way."""
        self.chat.procedure_msg = None
        self.procedure_card.clear()
        for msg in reversed(self.messages):
            if msg["role"] == "assistant" and (msg.get("trace") or {}).get("procedure"):
                self._show_procedure(msg)
                return

    def _on_procedure_changed(self, walk: Walkthrough) -> None:
        msg = self.chat.procedure_msg
        if msg is None:
            return
        msg["trace"]["procedure"]["walkthrough"] = walk.to_dict()
        if msg.get("id") is not None:
            self.store.update_trace(msg["id"], msg["trace"])
        if walk.active:
            return
        self.chat.procedure_msg = None
        skipped = [str(i) for i, mark in enumerate(walk.marks, start=1) if mark == "skipped"]
        note = f"{walk.title}: {walk.progress()}." + (f" Skipped: step {', '.join(skipped)}." if skipped else "")
        self.statusBar().showMessage(note, 15000)
        self.chat.note(note, {"walkthrough_end": walk.to_dict()})
        self._schedule_render()
