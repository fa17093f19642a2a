"""The indexed policy files with their status; add, remove and re-index (HR)."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QDialog,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QProgressBar,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from engine.errors import DataFileError
from engine.policy.loaders import SUPPORTED, policy_files


def file_statuses(root: Path, report) -> list[tuple[str, str]]:
    """(file, status) for every document under ``root``: indexed, changed since, or failed with reason."""
    try:
        paths = policy_files(root)
    except DataFileError as exc:
        return [(str(root), f"failed: {exc.message}")]
    base = root if root.is_dir() else root.parent
    indexed = set(report.added + report.changed + report.unchanged) if report else set()
    failed = report.failed if report else {}
    finished = getattr(report, "finished_at", 0.0) if report else 0.0
    rows = []
    for p in paths:
        rel = p.relative_to(base).as_posix()
        if rel in failed:
            rows.append((rel, f"failed: {failed[rel]}"))
        elif rel in indexed and p.stat().st_mtime <= finished:
            rows.append((rel, "indexed"))
        elif rel in indexed:
            rows.append((rel, "changed since indexing"))
        else:
            rows.append((rel, "not indexed yet"))
    return rows


class DocumentsDialog(QDialog):
    reindex_requested = Signal(bool)

    def __init__(self, root: Path, report, can_edit: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Policy documents")
        self.resize(640, 420)
        self.root, self.report, self.can_edit = root, report, can_edit
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel(f"Folder: {root}"))
        self.table = QTableWidget(0, 2)
        self.table.setHorizontalHeaderLabels(["File", "Status"])
        self.table.horizontalHeader().setSectionResizeMode(0, QHeaderView.ResizeToContents)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setAccessibleName("Policy files")
        layout.addWidget(self.table)
        self.progress = QProgressBar()
        self.progress.setAccessibleName("Indexing progress")
        self.progress.hide()
        layout.addWidget(self.progress)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add files…")
        self.remove_button = QPushButton("Remove")
        self.reindex_button = QPushButton("Re-index")
        for b in (self.add_button, self.remove_button):
            b.setEnabled(can_edit)
            if not can_edit:
                b.setToolTip("Only HR can change the policy documents.")
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        row.addWidget(self.reindex_button)
        layout.addLayout(row)
        self.add_button.clicked.connect(self._add)
        self.remove_button.clicked.connect(self._remove)
        self.reindex_button.clicked.connect(lambda: self.reindex_requested.emit(False))
        self.refresh()

    def refresh(self, report=None) -> None:
        if report is not None:
            self.report = report
        rows = file_statuses(self.root, self.report)
        self.table.setRowCount(len(rows))
        for i, (name, status) in enumerate(rows):
            self.table.setItem(i, 0, QTableWidgetItem(name))
            self.table.setItem(i, 1, QTableWidgetItem(status))

    def show_progress(self, stage: str, done: int, total: int) -> None:
        self.progress.show()
        self.progress.setMaximum(max(total, 1))
        self.progress.setValue(done)
        self.progress.setFormat(f"{stage} %v/%m")

    def indexing_finished(self, report) -> None:
        self.progress.hide()
        self.refresh(report)

    def _add(self) -> None:
        patterns = " ".join(f"*{s}" for s in SUPPORTED)
        paths, _ = QFileDialog.getOpenFileNames(self, "Add policy documents", "", f"Documents ({patterns})")
        folder = self.root if self.root.is_dir() else self.root.parent
        for p in paths:
            shutil.copy2(p, folder / Path(p).name)
        if paths:
            self.refresh()
            self.reindex_requested.emit(False)

    def _remove(self) -> None:
        row = self.table.currentRow()
        if row < 0:
            return
        name = self.table.item(row, 0).text()
        folder = self.root if self.root.is_dir() else self.root.parent
        answer = QMessageBox.question(self, "Remove document",
                                      f"Delete {name} from the policy folder? It will no longer be searched.")
        if answer == QMessageBox.Yes:
            (folder / name).unlink(missing_ok=True)
            self.refresh()
            self.reindex_requested.emit(False)
