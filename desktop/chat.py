"""The open chat, as state: which conversation of the store, its messages, and the message a walked
procedure belongs to. Plain Python (no Qt): the window shows it and the tests drive it directly.

A message is a dict: ``id`` (the store's row, None until stored), ``role``, ``content``, ``trace``
(the answer's trace record), and while an answer is being written ``streaming``, ``progress`` and
``started``.
"""

from __future__ import annotations

import time

from desktop.history import ChatStore


class Chat:
    """One chat of one person: what the window shows, the store keeps, and the engine is told."""

    def __init__(self, store: ChatStore) -> None:
        self.store = store
        self.conversation: int | None = None
        self.messages: list[dict] = []
        self.procedure_msg: dict | None = None  # the message whose procedure card is open

    # -- which chat ----------------------------------------------------------------------------------
    def new(self) -> None:
        """An empty chat, stored only once its first question is asked."""
        self.conversation = None
        self.messages = []
        self.procedure_msg = None

    def open(self, conversation: int) -> None:
        self.conversation = conversation
        self.messages = [{"id": m.id, "role": m.role, "content": m.content, "trace": m.trace}
                         for m in self.store.messages(conversation)]
        self.procedure_msg = None

    def forget(self, conversation: int) -> bool:
        """The store deleted ``conversation``; True where it was the open one (now empty)."""
        if self.conversation != conversation:
            return False
        self.new()
        return True

    # -- a turn --------------------------------------------------------------------------------------
    def ask(self, question: str, user: str) -> bool:
        """Store ``user``'s question (creating the chat on its first one) and open an answer being written.
        True where the chat was created by it (the chat list changes)."""
        created = self.conversation is None
        if created:
            self.conversation = self.store.create(user, question[:60]).id
        msg_id = self.store.add(self.conversation, "user", question)
        self.messages.append({"id": msg_id, "role": "user", "content": question, "trace": None})
        self.messages.append({"id": None, "role": "assistant", "content": "", "trace": None, "streaming": True,
                              "progress": [], "started": time.monotonic()})
        return created

    def history(self) -> list[dict]:
        """The conversation as the engine reads it: questions and finished answers."""
        return [{"role": m["role"], "content": m["content"]} for m in self.messages if not m.get("streaming")]

    @property
    def current(self) -> dict:
        return self.messages[-1]

    def finish(self, msg: dict, record: dict | None) -> None:
        """The answer ``msg`` is written: it is stored with its trace record (an empty one is not)."""
        msg.pop("streaming", None)
        msg.pop("started", None)
        msg["trace"] = record
        if msg["content"] and self.conversation is not None:
            msg["id"] = self.store.add(self.conversation, "assistant", msg["content"], record)

    def note(self, content: str, stored: dict) -> dict:
        """A line of the app's own in the chat (a decision, a finished procedure), kept after a restart with
        ``stored`` as its record."""
        message = {"id": None, "role": "assistant", "content": content, "trace": None}
        if self.conversation is not None:
            message["id"] = self.store.add(self.conversation, "assistant", content, stored)
        self.messages.append(message)
        return message

    def last_answer(self) -> dict | None:
        return next((m for m in reversed(self.messages) if m["role"] == "assistant"), None)

    def has_answer(self) -> bool:
        return any(m["role"] == "assistant" and m["content"] for m in self.messages)

    def drop_last_turn(self) -> str | None:
        """Remove the last question and everything after it (here and in the store); return the question.
        A procedure whose message went with it is closed."""
        users = [i for i, m in enumerate(self.messages) if m["role"] == "user"]
        if not users:
            return None
        i = users[-1]
        question = self.messages[i]["content"]
        if self.messages[i]["id"] is not None:
            self.store.delete_from(self.messages[i]["id"])
        del self.messages[i:]
        if self.procedure_msg is not None and not any(m is self.procedure_msg for m in self.messages):
            self.procedure_msg = None
        return question
