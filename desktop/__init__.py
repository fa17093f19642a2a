"""The PySide6 desktop app. It talks to the engine only through ``desktop.worker``."""
