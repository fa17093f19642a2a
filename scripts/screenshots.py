"""Take README's screenshots from the real default model answering README's example question.

    QT_QPA_PLATFORM=offscreen python scripts/screenshots.py [--model FILE.gguf] [--out docs]

Writes ``answer-light.png`` and ``answer-dark.png`` (the window after the answer), and
``answer-streaming.gif`` (frames every half second while the answer is worked out and
streamed; needs Pillow: ``pip install pillow``). Acts as Pedro Alves of the sample company,
with the settings' model (the bundled default unless ``--model``).

Then the first hour of a newcomer on the sample company: ``welcome.png`` (the welcome page),
``starters.png`` (the employee chosen there, an empty chat with its starter questions),
``answer-step.png`` (the first chip clicked, the card saying which step runs) and
``starter-answer.png`` (its answer). ``--only first-hour`` takes just these.
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
    parser.add_argument("--only", choices=("example", "first-hour"), help="take one set (default: both)")
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

    if args.only != "example":
        code = first_hour(app, out, home, args.model, wait)
        if code or args.only == "first-hour":
            return code
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


def first_hour(app, out: Path, home: str, model: str | None, wait) -> int:
    """The welcome page, the starter chips, a card mid-step and the answer, as a newcomer sees them."""
    from desktop.app import apply_theme
    from desktop.history import ChatStore
    from desktop.ui.main_window import MainWindow
    from engine.settings import Settings

    apply_theme(app, dark=False)
    settings = Settings(model_path=model or "", n_threads=os.cpu_count() or 2)
    window = MainWindow(settings, store=ChatStore(Path(home) / "chats-first-hour.sqlite"), ask_sign_in=True)
    window.resize(1280, 800)
    window.show()
    if not wait(lambda: window.welcome.isVisible() and window.persona_buttons and window.model_loaded, 600):
        print("no welcome page (is this the sample company, and did the model load?)", file=sys.stderr)
        return 1
    wait(lambda: False, 0.5)
    window.grab().save(str(out / "welcome.png"))
    window.persona_buttons[0].click()
    if not wait(lambda: window.role and len(window.transcript.starters) >= 3, 120):
        print("no starter questions after choosing a person", file=sys.stderr)
        return 1
    wait(lambda: False, 0.5)
    window.grab().save(str(out / "starters.png"))
    question = window.transcript.starters[0]
    window.send(question)
    shot = [False]

    def mid_step() -> None:
        progress = window.messages[-1].get("progress") or []
        if not shot[0] and len(progress) >= 2 and progress[-1]["done"] is None:
            shot[0] = True
            window.grab().save(str(out / "answer-step.png"))

    if not wait(lambda: not window.busy, 900, every=0.05, on_tick=mid_step):
        print("no answer within 15 minutes", file=sys.stderr)
        return 1
    wait(lambda: False, 0.5)
    window.grab().save(str(out / "starter-answer.png"))
    print(f"first hour as {window.user}: {question!r} -> {window.messages[-1]['content'][:200]!r}")
    window.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
