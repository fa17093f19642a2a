"""Chats per signed-in user, in SQLite (WAL) in the user data directory.

Each message is written when it completes, in its own transaction, so a crash
or a kill loses nothing that was shown. No Qt here: the store is plain Python.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

SCHEMA = """
CREATE TABLE IF NOT EXISTS conversations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user TEXT NOT NULL,
    title TEXT NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS messages (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    conversation INTEGER NOT NULL REFERENCES conversations(id) ON DELETE CASCADE,
    role TEXT NOT NULL,
    content TEXT NOT NULL,
    trace TEXT,
    created REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS messages_by_conversation ON messages(conversation, id);
CREATE INDEX IF NOT EXISTS conversations_by_user ON conversations(user, updated);
"""


@dataclass
class Conversation:
    id: int
    user: str
    title: str
    updated: float


@dataclass
class Message:
    id: int
    role: str  # "user" or "assistant"
    content: str
    trace: dict[str, Any] | None


class ChatStore:
    """The chat history database."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        #: Where a damaged chat file was set aside (the window says so), or None.
        self.set_aside: Path | None = None
        try:
            self.db = self._open()
        except sqlite3.DatabaseError:
            # Not a database (or damaged beyond SQLite's reading): keep it for repair, start afresh.
            from engine.settings import keep_aside

            self.set_aside = keep_aside(path)
            for extra in ("-wal", "-shm"):
                Path(str(path) + extra).unlink(missing_ok=True)
            self.db = self._open()

    def _open(self) -> sqlite3.Connection:
        db = sqlite3.connect(str(self.path), isolation_level=None, check_same_thread=False)
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            db.execute("PRAGMA foreign_keys=ON")
            db.executescript(SCHEMA)
            db.execute("SELECT count(*) FROM conversations").fetchone()
        except sqlite3.DatabaseError:
            db.close()
            raise
        return db

    def close(self) -> None:
        self.db.close()

    def conversations(self, user: str) -> list[Conversation]:
        rows = self.db.execute("SELECT id, user, title, updated FROM conversations WHERE user = ? "
                               "ORDER BY updated DESC", (user,)).fetchall()
        return [Conversation(*row) for row in rows]

    def create(self, user: str, title: str = "New chat") -> Conversation:
        now = time.time()
        cur = self.db.execute("INSERT INTO conversations (user, title, created, updated) VALUES (?, ?, ?, ?)",
                              (user, title, now, now))
        return Conversation(int(cur.lastrowid), user, title, now)

    def rename(self, conversation: int, title: str) -> None:
        title = " ".join(title.split())[:120] or "Untitled chat"
        self.db.execute("UPDATE conversations SET title = ? WHERE id = ?", (title, conversation))

    def delete(self, conversation: int) -> None:
        self.db.execute("DELETE FROM conversations WHERE id = ?", (conversation,))

    def add(self, conversation: int, role: str, content: str, trace: dict | None = None) -> int:
        now = time.time()
        with self.db:  # one transaction: the message and the chat's timestamp together
            self.db.execute("BEGIN")
            cur = self.db.execute("INSERT INTO messages (conversation, role, content, trace, created) "
                                  "VALUES (?, ?, ?, ?, ?)",
                                  (conversation, role, content, json.dumps(trace) if trace else None, now))
            self.db.execute("UPDATE conversations SET updated = ? WHERE id = ?", (now, conversation))
        return int(cur.lastrowid)

    def update_trace(self, message_id: int, trace: dict | None) -> None:
        """Replace a message's trace (a walk-through's progress is saved there after every step)."""
        self.db.execute("UPDATE messages SET trace = ? WHERE id = ?",
                        (json.dumps(trace) if trace else None, message_id))

    def delete_from(self, message_id: int) -> None:
        """Remove a message and everything after it (regenerate, edit and resend)."""
        row = self.db.execute("SELECT conversation FROM messages WHERE id = ?", (message_id,)).fetchone()
        if row:
            self.db.execute("DELETE FROM messages WHERE conversation = ? AND id >= ?", (row[0], message_id))

    def messages(self, conversation: int) -> list[Message]:
        rows = self.db.execute("SELECT id, role, content, trace FROM messages WHERE conversation = ? ORDER BY id",
                               (conversation,)).fetchall()
        return [Message(i, role, content, json.loads(trace) if trace else None) for i, role, content, trace in rows]

    def export_markdown(self, conversation: int) -> str:
        title = self.db.execute("SELECT title FROM conversations WHERE id = ?", (conversation,)).fetchone()
        lines = [f"# {title[0] if title else 'Chat'}", ""]
        for m in self.messages(conversation):
            who = "**You**" if m.role == "user" else "**HR assistant**"
            lines += [f"{who}:", "", m.content, ""]
            citations = (m.trace or {}).get("citations") or []
            if citations:
                lines.append("Sources:")
                lines += [f"- [{c['n']}] {c['source']} › {c['section']} ({c['location']})" for c in citations]
                lines.append("")
        return "\n".join(lines).rstrip() + "\n"
