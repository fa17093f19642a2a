"""Filed leave requests: the ones the store lets this person see, and what they may do with them.

An employee sees their own requests and may cancel a pending one; a manager sees their reports'
and approves or declines them with a reason; HR sees all. Who may do what is decided by the store
(the site database enforces it), not by this dialog: a button that is not theirs to press ends in
the store's refusal, shown as such. Beside the list, what the policies say about notice and approval.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

#: (field, header) of the table, in order.
COLUMNS = (("id", "Request"), ("employee", "Employee"), ("leave_type", "Leave"), ("start", "From"), ("end", "To"),
           ("day_count", "Days"), ("balance_after", "Balance after"), ("status", "Status"),
           ("decided_by", "Decided by"), ("decision_reason", "Reason"))


def cell_text(value) -> str:
    """A stored value as table text, whatever the store holds (a NULL, a number, free text)."""
    if value is None or value == "":
        return ""
    if isinstance(value, float):
        return f"{value:g}"
    return " ".join(str(value).split())[:200]


class RequestsDialog(QDialog):
    """The list and its three actions; the window relays them to the engine worker."""

    refresh_requested = Signal(bool)  # include decided requests
    action_requested = Signal(str, str, str)  # request id, approved|declined|cancelled, reason

    def __init__(self, user_name: str, accounts=(), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Leave requests")
        self.resize(900, 520)
        self.user_name = user_name
        self.accounts = {a for a in accounts if a}  # who this person is as a filer (OS account, database role)
        self.rows: list[dict] = []
        layout = QVBoxLayout(self)
        self.intro = QLabel("Your requests, and your team's if you manage people. A pending request is approved or "
                            "declined by the employee's manager or HR, never by the person it is for; its employee "
                            "may cancel it while it is pending.")
        self.intro.setWordWrap(True)
        layout.addWidget(self.intro)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels([h for _, h in COLUMNS])
        self.table.setSelectionBehavior(QAbstractItemView.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.itemSelectionChanged.connect(self._update_buttons)
        layout.addWidget(self.table, 3)
        self.empty = QLabel("")
        layout.addWidget(self.empty)
        self.policy = QTextBrowser()
        self.policy.setOpenLinks(False)
        self.policy.setPlaceholderText("What the policies say about notice and approval appears here.")
        layout.addWidget(self.policy, 1)
        row = QHBoxLayout()
        self.show_decided = QCheckBox("Show decided and cancelled")
        self.show_decided.toggled.connect(lambda on: self.refresh_requested.emit(on))
        row.addWidget(self.show_decided)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("Reason (needed to decline)")
        self.reason.setMaxLength(500)
        self.reason.textChanged.connect(self._update_buttons)
        row.addWidget(self.reason, 1)
        self.approve = QPushButton("Approve")
        self.decline = QPushButton("Decline")
        self.cancel_request = QPushButton("Cancel request")
        refresh = QPushButton("Refresh")
        for button, status in ((self.approve, "approved"), (self.decline, "declined"),
                               (self.cancel_request, "cancelled")):
            button.clicked.connect(lambda _=False, s=status: self._act(s))
            row.addWidget(button)
        refresh.clicked.connect(lambda: self.refresh_requested.emit(self.show_decided.isChecked()))
        row.addWidget(refresh)
        layout.addLayout(row)
        self._update_buttons()

    def set_rows(self, rows: list[dict], hits=()) -> None:
        """Show the store's rows (any value it holds is shown as text) and the policy passages."""
        self.rows = list(rows)
        self.table.setRowCount(len(self.rows))
        for r, row in enumerate(self.rows):
            for c, (key, _) in enumerate(COLUMNS):
                item = QTableWidgetItem(cell_text(row.get(key)))
                if key in ("day_count", "balance_after"):
                    item.setTextAlignment(Qt.AlignRight | Qt.AlignVCenter)
                self.table.setItem(r, c, item)
        self.empty.setText("" if self.rows else "No requests to show.")
        self.policy.setPlainText("\n\n".join(f"{h.source} › {h.section}: {h.text.strip()}" for h in hits
                                             if not getattr(h, "withheld", False)))
        self._update_buttons()

    def selected(self) -> dict | None:
        picked = self.table.selectionModel().selectedRows() if self.table.selectionModel() else []
        return self.rows[picked[0].row()] if picked and picked[0].row() < len(self.rows) else None

    def _update_buttons(self) -> None:
        row = self.selected()
        pending = row is not None and row.get("status") == "pending"
        mine = pending and (row.get("employee") == self.user_name or row.get("prepared_by") in self.accounts)
        # Only a hint of what is theirs to do: the store refuses anything else whatever is pressed.
        self.approve.setEnabled(pending and not mine)
        self.decline.setEnabled(pending and not mine and bool(self.reason.text().strip()))
        self.cancel_request.setEnabled(bool(mine))

    def _act(self, status: str) -> None:
        row = self.selected()
        if row is None:
            return
        for button in (self.approve, self.decline, self.cancel_request):
            button.setEnabled(False)
        self.action_requested.emit(str(row.get("id")), status, self.reason.text().strip())

    def acted(self, row: dict) -> None:
        """A step went through: the reason box empties and the list is read again."""
        self.reason.clear()
        self.refresh_requested.emit(self.show_decided.isChecked())
