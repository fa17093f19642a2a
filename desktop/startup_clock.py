"""The start-up clock and log shared by the app and its worker (no Qt here, so both import it
without importing each other)."""

from __future__ import annotations

import logging
import time

log = logging.getLogger("hr_assistant.startup")


def seconds_since_start() -> float:
    """Seconds since this process was created (includes interpreter start and imports)."""
    try:
        import psutil

        return time.time() - psutil.Process().create_time()
    except Exception:  # pragma: no cover - psutil is a dependency; never let a log line fail start-up
        return float("nan")
