"""The policy documents of the main window: their index and the documents dialog."""

from __future__ import annotations

from .documents_dialog import DocumentsDialog


class DocumentsPart:
    """The policy documents, a part of :class:`~desktop.ui.main_window.MainWindow`."""

    # -- documents ------------------------------------------------------------------------------------
    def _on_policies_ready(self, report) -> None:
        self.index_report = report
        self.statusBar().showMessage(f"Policies: {report.summary()}", 8000)
        if report.failed:
            names = ", ".join(report.failed)
            self.statusBar().showMessage(f"Some policy files were skipped: {names}", 15000)

    def open_documents(self) -> None:
        from engine.assistant import policies_path

        self.documents = DocumentsDialog(policies_path(self.settings), self.index_report,
                                         can_edit=self.role == "hr", parent=self)
        self.documents.reindex_requested.connect(lambda rebuild: self.request_reindex.emit(self.settings, rebuild))
        self.documents.show()

    def _on_index_progress(self, stage: str, done: int, total: int) -> None:
        self.statusBar().showMessage(f"Indexing policies: {stage} {done}/{total}")
        if self.documents is not None:
            self.documents.show_progress(stage, done, total)

    def _on_index_done(self, report) -> None:
        """A re-index finished; the worker searches the new index already (its passages came first)."""
        self.index_report = report
        self.statusBar().showMessage(f"Policies re-indexed: {report.summary()}", 8000)
        if self.documents is not None:
            self.documents.indexing_finished(report)
