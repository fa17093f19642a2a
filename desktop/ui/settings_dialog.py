"""Settings: model file (validated before it is accepted), model parameters, data sources."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from engine.errors import HRAssistantError
from engine.settings import Settings

NUMBERS = ("n_ctx", "n_threads", "n_gpu_layers", "temperature", "max_steps")


def describe_model(path: str, settings: Settings) -> str:
    """A line about a model file, or raise the validation error."""
    from engine.model.llama import check_model_file

    info = check_model_file(path, settings)
    return (f"{info.name} — {info.architecture}, {info.size_bytes / 1024**3:.2f} GB, "
            f"context up to {info.context_length:,} tokens, {info.n_layer} layers")


class SettingsDialog(QDialog):
    """Edits a copy of the settings; ``result_settings`` holds the accepted values."""

    def __init__(self, settings: Settings, can_change_sources: bool, parent: QWidget | None = None,
                 locked: set[str] | None = None, site_path: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("Settings")
        self.resize(620, 420)
        self.settings = settings
        self.result_settings: Settings | None = None
        meta = Settings.describe()
        layout = QVBoxLayout(self)
        form = QFormLayout()
        layout.addLayout(form)

        self.model = QLineEdit(settings.model_path)
        self.model.setAccessibleName("Model file")
        self.model.setPlaceholderText("Empty: the first .gguf file in the models folder")
        browse = QPushButton("Choose…")
        browse.clicked.connect(self._choose_model)
        row = QHBoxLayout()
        row.addWidget(self.model)
        row.addWidget(browse)
        self.rows: dict[str, QWidget] = {"model_path": _wrap(row)}
        form.addRow("Chat model (GGUF)", self.rows["model_path"])
        self.model_info = QLabel("")
        self.model_info.setWordWrap(True)
        self.model_info.setAccessibleName("Model information")
        form.addRow("", self.model_info)
        self.model.editingFinished.connect(self._check_model)

        self.numbers: dict[str, QSpinBox | QDoubleSpinBox] = {}
        for name in NUMBERS:
            m = meta[name]
            box: QSpinBox | QDoubleSpinBox
            if isinstance(m["default"], float):
                box = QDoubleSpinBox()
                box.setDecimals(2)
                box.setSingleStep(0.05)
            else:
                box = QSpinBox()
            box.setRange(m["min"], m["max"])
            box.setValue(getattr(settings, name))
            box.setToolTip(m["description"])
            box.setAccessibleName(name.replace("_", " "))
            self.numbers[name] = box
            self.rows[name] = box
            form.addRow(m["description"].split(";")[0].split(".")[0], box)

        self.mode = QComboBox()
        labels = {"auto": "Plan questions with several parts (auto)", "plan": "Always plan first",
                  "react": "One tool call at a time (ReAct)"}
        for choice in meta["agent_mode"]["choices"]:
            self.mode.addItem(labels.get(choice, choice), choice)
        self.mode.setCurrentIndex(max(0, self.mode.findData(settings.agent_mode)))
        self.mode.setToolTip(meta["agent_mode"]["description"])
        self.mode.setAccessibleName("Agent mode")
        self.rows["agent_mode"] = self.mode
        form.addRow("How questions are worked", self.mode)
        self.leave = QCheckBox("The assistant may prepare leave requests (each one is stored only after you approve it)")
        self.leave.setChecked(settings.leave_requests)
        self.leave.setAccessibleName("Leave requests")
        self.rows["leave_requests"] = self.leave
        form.addRow("Leave requests", self.leave)

        self.sources: dict[str, QLineEdit] = {}
        for name, label, folder in (("policies_path", "Policy folder", True),
                                    ("employees_path", "Employee file", False),
                                    ("embedding_model_path", "Embedding model folder", True)):
            edit = QLineEdit(getattr(settings, name))
            edit.setPlaceholderText(meta[name]["description"])
            edit.setAccessibleName(label)
            pick = QPushButton("Choose…")
            pick.clicked.connect(lambda _=False, e=edit, f=folder: self._choose_path(e, f))
            row = QHBoxLayout()
            row.addWidget(edit)
            row.addWidget(pick)
            holder = _wrap(row)
            if name != "embedding_model_path" and not can_change_sources:
                holder.setEnabled(False)
                holder.setToolTip("Only HR can change the employee file and the policy folder.")
            self.sources[name] = edit
            self.rows[name] = holder
            form.addRow(label, holder)
        # What the site file fixes is shown, locked: the user's settings cannot override it anyway.
        self.locked = set(locked or ())
        for name in self.locked:
            if name in self.rows:
                self.rows[name].setEnabled(False)
                self.rows[name].setToolTip(f"Set by your IT department in {site_path or 'the site file'}.")

        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet("color: #c0392b")
        self.error.setAccessibleName("Settings error")
        layout.addWidget(self.error)
        buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
        buttons.accepted.connect(self.try_accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        if settings.model_path:
            self._check_model()

    def _choose_model(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Choose a GGUF chat model", self.model.text(),
                                              "GGUF models (*.gguf);;All files (*)")
        if path:
            self.model.setText(path)
            self._check_model()

    def _choose_path(self, edit: QLineEdit, folder: bool) -> None:
        if folder:
            path = QFileDialog.getExistingDirectory(self, "Choose a folder", edit.text())
        else:
            path, _ = QFileDialog.getOpenFileName(self, "Choose the employee file", edit.text(),
                                                  "Employee data (*.csv *.xlsx *.tsv);;All files (*)")
        if path:
            edit.setText(path)

    def _check_model(self) -> bool:
        path = self.model.text().strip()
        if not path:
            self.model_info.setText("")
            return True
        try:
            self.model_info.setText(describe_model(path, self._collect(validate=False)))
            self.error.setText("")
            return True
        except HRAssistantError as exc:
            self.model_info.setText("")
            self.error.setText(f"{exc.message} {exc.hint}")
            return False

    def _collect(self, validate: bool = True) -> Settings:
        values = {name: box.value() for name, box in self.numbers.items()}
        values.update({name: edit.text().strip() for name, edit in self.sources.items()})
        values["model_path"] = self.model.text().strip()
        values["agent_mode"] = self.mode.currentData()
        values["leave_requests"] = self.leave.isChecked()
        return self.settings.replace(**values) if validate else Settings(**{**vars(self.settings), **values})

    def try_accept(self) -> None:
        """Refuse invalid values with the reason; accept otherwise."""
        try:
            new = self._collect()
        except HRAssistantError as exc:
            self.error.setText(str(exc))
            return
        if not self._check_model():
            return
        self.result_settings = new
        self.accept()


def _wrap(layout) -> QWidget:
    w = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    w.setLayout(layout)
    return w
