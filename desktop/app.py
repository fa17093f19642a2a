"""Start the desktop app: the window appears at once, models load in the background."""

from __future__ import annotations

import logging
import os
import sys

from .startup_clock import log, seconds_since_start


def apply_theme(app, dark: bool | None = None) -> None:
    """Fusion style with a light or dark palette: ``dark`` forces one (screenshots, tests); by
    default it follows the system colour scheme, also when that changes."""
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QColor, QPalette

    app.setStyle("Fusion")

    def update(*_):
        use_dark = dark if dark is not None else app.styleHints().colorScheme() == Qt.ColorScheme.Dark
        if use_dark:
            p = QPalette()
            for role, color in ((QPalette.Window, "#202124"), (QPalette.WindowText, "#e8eaed"),
                                (QPalette.Base, "#171717"), (QPalette.AlternateBase, "#26282b"),
                                (QPalette.Text, "#e8eaed"), (QPalette.Button, "#2d2f31"),
                                (QPalette.ButtonText, "#e8eaed"), (QPalette.Highlight, "#4f8cc9"),
                                (QPalette.HighlightedText, "#ffffff"), (QPalette.ToolTipBase, "#2d2f31"),
                                (QPalette.ToolTipText, "#e8eaed"), (QPalette.PlaceholderText, "#9aa0a6"),
                                (QPalette.Link, "#8ab4f8")):
                p.setColor(role, QColor(color))
            # Greyed-out text for disabled controls (a disabled Stop must not look pressable).
            for role in (QPalette.WindowText, QPalette.Text, QPalette.ButtonText):
                p.setColor(QPalette.Disabled, role, QColor("#6f7378"))
            app.setPalette(p)
        else:
            app.setPalette(app.style().standardPalette())

    update()
    if dark is None:
        app.styleHints().colorSchemeChanged.connect(update)


def window_unavailable() -> str | None:
    """Why the window cannot load on this machine (a system library such as libGL is missing), or
    None: a server that only runs the terminal chat is not broken for lacking one."""
    from .platform_check import _IMPORT_LIB, import_problem

    try:
        import PySide6.QtWidgets  # noqa: F401
    except ImportError as exc:
        if _IMPORT_LIB.search(str(exc)):
            return import_problem(exc).splitlines()[0]
    return None


def library_versions() -> str:
    """The window's libraries load (Qt widgets, and pyqtgraph for charts): for ``--self-check``,
    which needs no display, so a bundle missing one fails its check instead of a chart later."""
    import PySide6.QtWidgets  # loading the widgets library is the check
    import pyqtgraph

    return f"PySide6 {PySide6.__version__}, pyqtgraph {pyqtgraph.__version__}"


def run(argv: list[str] | None = None) -> int:
    from .platform_check import import_problem, qt_platform_problem

    # Qt aborts the process with its own words when its platform plugin cannot load: look first.
    problem = qt_platform_problem()
    if problem:
        print(problem, file=sys.stderr)
        return 2
    try:
        from PySide6.QtCore import QTimer
        from PySide6.QtWidgets import QApplication
    except ImportError as exc:
        print(import_problem(exc), file=sys.stderr)
        return 2

    from engine.settings import load_settings

    from .ui.main_window import MainWindow

    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    app = QApplication.instance() or QApplication(argv if argv is not None else sys.argv)
    app.setApplicationName("HR Assistant")
    app.setOrganizationName("hr-assistant")
    apply_theme(app)
    from engine.errors import HRAssistantError

    try:
        settings = load_settings()
    except HRAssistantError as exc:  # a damaged or untrusted site file: say so, never run on guesses
        from PySide6.QtWidgets import QMessageBox

        QMessageBox.critical(None, "HR Assistant cannot start", f"{exc.message}\n\n{exc.hint}")
        return 2
    window = MainWindow(settings)
    window.show()
    # Logged once the event loop has painted the window (visible with -v; read by benchmarks/bench_bundle.py).
    QTimer.singleShot(0, lambda: log.info("window visible after %.2f s", seconds_since_start()))
    code = app.exec()
    return _after_exit(code)


def _after_exit(code: int) -> int:
    """Wait for engine threads that outlived their window; a QThread destroyed while it runs
    aborts the process, so one that never ends is left to the OS (all writes are atomic)."""
    from .ui.main_window import STRAGGLERS

    for thread in STRAGGLERS:
        if not thread.wait(60000):
            log.error("the %s thread did not end within a minute of closing; exiting without it",
                      thread.objectName())
            logging.shutdown()
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    STRAGGLERS.clear()
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(run())
