"""Windows and dialogs of the desktop app."""
