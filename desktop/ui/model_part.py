"""The chat model and the settings of the main window."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QFileDialog, QMessageBox

from engine.errors import HRAssistantError
from engine.settings import Settings, save_settings

from .settings_dialog import SettingsDialog


class ModelPart:
    """Model status and settings, a part of :class:`~desktop.ui.main_window.MainWindow`."""

    # -- model and settings ---------------------------------------------------------------------------
    def _on_status(self, text: str) -> None:
        # A job's progress message; it goes when the job ends (below), or a while after its last word.
        self._job_message = text
        self.statusBar().showMessage(text, 20000)

    def _on_job(self, job: str, text: str) -> None:
        label = {"data": self.data_status, "policies": self.policy_status, "model": self.model_status}.get(job)
        if label is not None:
            label.setText(text)
        finished = not text.endswith("…") and "%" not in text
        if finished and self._job_message and self.statusBar().currentMessage() == self._job_message:
            self.statusBar().clearMessage()  # "Setting up the model … 100 %" must not outlive "Model: ready"
            self._job_message = ""

    def _on_model_ready(self, info: dict) -> None:
        self.model_loaded = True
        self.first_run.hide()
        self.choose_model_button.hide()

    def _on_model_missing(self, message: str) -> None:
        self.model_loaded = False
        self.first_run.show()
        self.choose_model_button.show()
        self.statusBar().showMessage(message, 15000)

    def _on_model_failed(self, message: str, hint: str) -> None:
        self.model_loaded = False
        self.first_run.show()
        self.choose_model_button.show()
        self._problem("The chat model cannot be loaded", message, hint)

    def _problem(self, title: str, message: str, hint: str) -> None:
        self.statusBar().showMessage(f"{message} {hint}", 15000)
        if self.isVisible() and QGuiApplication.platformName() not in ("offscreen", "minimal"):
            QMessageBox.warning(self, title, f"{message}\n\n{hint}")
        self.last_problem = (title, message, hint)

    def choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF chat model", "", "GGUF models (*.gguf)")
        if path:
            self.apply_settings(self.settings.replace(model_path=path))

    def open_settings(self) -> None:
        from engine.site import load_site

        try:
            site = load_site()
        except HRAssistantError as exc:
            self._problem("Site settings", exc.message, exc.hint)
            return
        dialog = SettingsDialog(self.settings, can_change_sources=self.role == "hr", parent=self,
                                locked=site.locked(), site_path=str(site.path or ""))
        if dialog.exec() and dialog.result_settings is not None:
            self.apply_settings(dialog.result_settings)

    def apply_settings(self, new: Settings) -> None:
        old, self.settings = self.settings, new
        save_settings(new)
        if (old.policies_path, old.employees_path, old.embedding_model_path) != \
                (new.policies_path, new.employees_path, new.embedding_model_path):
            self.request_start.emit(new, self.user)
        else:
            self.request_reload_model.emit(new)
