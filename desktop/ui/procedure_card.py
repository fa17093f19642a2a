"""The guided card of a procedure: one step at a time, with Back / Skip / Done, next / Cancel.

The card only shows and changes an :class:`engine.workflows.procedures.Walkthrough`; the window saves
the walk-through with the chat after every change (so it resumes after a restart).
"""

from __future__ import annotations

import html

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from engine.workflows.procedures import Walkthrough


class ProcedureCard(QFrame):
    """Shows the current step of a walk-through; ``changed(walkthrough)`` after every button."""

    changed = Signal(object)  # the Walkthrough, after the user moved in it

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("procedureCard")
        self.setFrameShape(QFrame.StyledPanel)
        self.setAccessibleName("Procedure, step by step")
        self.walk: Walkthrough | None = None
        layout = QVBoxLayout(self)
        self.title = QLabel("")
        self.title.setWordWrap(True)
        self.progress = QLabel("")
        self.step = QLabel("")
        self.step.setWordWrap(True)
        self.step.setTextInteractionFlags(Qt.TextSelectableByMouse)
        self.step.setAccessibleName("Current step")
        for label in (self.title, self.progress, self.step):
            layout.addWidget(label)
        buttons = QHBoxLayout()
        self.back_button = QPushButton("Back")
        self.skip_button = QPushButton("Skip")
        self.next_button = QPushButton("Done, next")
        self.cancel_button = QPushButton("Cancel")
        self.next_button.setDefault(True)
        for button, action in ((self.back_button, "back"), (self.skip_button, "skip"),
                               (self.next_button, "next"), (self.cancel_button, "cancel")):
            button.clicked.connect(lambda _=False, a=action: self.act(a))
            buttons.addWidget(button)
        buttons.addStretch(1)
        layout.addLayout(buttons)
        self.hide()

    def show_walkthrough(self, walk: Walkthrough) -> None:
        self.walk = walk
        self._refresh()
        self.setVisible(walk.active)

    def clear(self) -> None:
        self.walk = None
        self.hide()

    def act(self, action: str) -> None:
        """One of next / skip / back / cancel (the buttons; tests call it too)."""
        if self.walk is None or not self.walk.active:
            return
        self.walk.apply(action)
        self._refresh()
        self.changed.emit(self.walk)
        if not self.walk.active:
            self.hide()

    def _refresh(self) -> None:
        walk = self.walk
        if walk is None:
            return
        self.title.setText(f"<b>{html.escape(walk.title)}</b> <small>({html.escape(walk.source)})</small>")
        self.progress.setText(walk.progress())
        self.step.setText(html.escape(walk.current).replace("\n", "<br>"))
        self.back_button.setEnabled(walk.position > 0)
        last = walk.position == len(walk.steps) - 1
        self.next_button.setText("Done, finish" if last else "Done, next")
