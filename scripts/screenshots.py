"""Take README's screenshots from the real default model answering README's example question.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [--model FILE.gguf] [--out docs]

Writes ``answer-light.png`` and ``answer-dark.png`` (the window after the answer), and
``answer-streaming.gif`` (frames every half second while the answer is worked out and
streamed; needs Pillow: ``pip install pillow``). Acts as Pedro Alves of the sample company,
with the settings' model (the bundled default unless ``--model``).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
QUESTION = "Can I cash out unused vacation leave, and how much would I get for 10 days?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="GGUF file (default: the configured/default model)")
    parser.add_argument("--out", default=str(ROOT / "docs"))
    parser.add_argument("--user", default="Pedro Alves")
    parser.add_argument("--schemes", default="light,dark", help="light, dark or both (light,dark)")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    # A private settings/chat folder: the screenshots show one fresh chat, and nothing of the user's.
    home = tempfile.mkdtemp(prefix="hr-shots-")
    os.environ["HR_ASSISTANT_CONFIG_DIR"] = os.environ["HR_ASSISTANT_DATA_DIR"] = home

    from PySide6.QtCore import QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from desktop.app import apply_theme
    from desktop.history import ChatStore
    from desktop.ui.main_window import MainWindow
    from engine.settings import Settings

    app = QApplication.instance() or QApplication(sys.argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    frames = []

    def wait(condition, seconds: float, every: float = 0.1, on_tick=None) -> bool:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            QEventLoop().processEvents(QEventLoop.AllEvents, 50)
            if on_tick:
                on_tick()
            if condition():
                return True
            time.sleep(every)
        return condition()

    for scheme in args.schemes.split(","):
        apply_theme(app, dark=scheme == "dark")
        settings = Settings(user=args.user, model_path=args.model or "", n_threads=os.cpu_count() or 2)
        window = MainWindow(settings, store=ChatStore(Path(home) / f"chats-{scheme}.sqlite"), ask_sign_in=False)
        window.resize(1280, 800)
        window.show()
        if not wait(lambda: window.model_loaded and window.model_status.text().startswith("Model: ready"), 600):
            print(f"the model did not load: {window.model_status.text()}", file=sys.stderr)
            return 1
        window.send(QUESTION)
        last = [0.0]

        def grab() -> None:
            if scheme == "light" and time.monotonic() - last[0] >= 0.5:
                last[0] = time.monotonic()
                frames.append(window.grab().toImage())

        if not wait(lambda: not window.busy, 900, every=0.05, on_tick=grab):
            print("no answer within 15 minutes", file=sys.stderr)
            return 1
        QTimer.singleShot(0, lambda: None)
        wait(lambda: False, 0.5)
        path = out / f"answer-{scheme}.png"
        window.grab().save(str(path))
        print(f"wrote {path}: {window.messages[-1]['content'][:200]!r}")
        window.close()
    try:
        from PIL import Image
    except ImportError:
        print("Pillow is not installed: no GIF (pip install pillow)", file=sys.stderr)
        return 0
    images = []
    for image in frames[::2]:  # one frame a second keeps the GIF small
        buffer = image.scaledToWidth(800).convertToFormat(image.Format.Format_RGB888)
        images.append(Image.frombytes("RGB", (buffer.width(), buffer.height()), bytes(buffer.constBits()),
                                      "raw", "RGB", buffer.bytesPerLine()))
    if images:
        gif = out / "answer-streaming.gif"
        images[0].save(gif, save_all=True, append_images=images[1:], duration=500, loop=0, optimize=True)
        print(f"wrote {gif} ({len(images)} frames)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
