"""The open chat as state (desktop/chat.py): what the window shows, the store keeps and the engine is
told, driven without a window over a real chat store."""

from __future__ import annotations

from desktop.chat import Chat
from desktop.history import ChatStore


def test_a_chat_is_stored_on_its_first_question_and_its_answers_with_their_record(tmp_path):
    store = ChatStore(tmp_path / "chats.sqlite3")
    chat = Chat(store)
    assert chat.ask("How many sick days do I have?", "Pedro Alves") is True  # created by its first question
    assert chat.current["streaming"] and chat.history() == [{"role": "user", "content": "How many sick days do I have?"}]
    chat.current["content"] = "You have 2 sick days left."
    chat.finish(chat.current, {"llm_calls": 1})
    assert "streaming" not in chat.current and chat.has_answer()
    assert chat.ask("And vacation?", "Pedro Alves") is False  # the same chat
    chat.finish(chat.current, None)  # an empty answer (stopped at once) is not stored
    [conv] = store.conversations("Pedro Alves")
    assert conv.id == chat.conversation and conv.title == "How many sick days do I have?"
    assert [(m.role, m.content, m.trace) for m in store.messages(conv.id)] == [
        ("user", "How many sick days do I have?", None), ("assistant", "You have 2 sick days left.", {"llm_calls": 1}),
        ("user", "And vacation?", None)]
    # Reopened, it reads as it was stored; the engine is told the finished turns only.
    again = Chat(store)
    again.open(conv.id)
    assert [m["content"] for m in again.messages] == ["How many sick days do I have?", "You have 2 sick days left.",
                                                       "And vacation?"]
    assert again.last_answer()["content"] == "You have 2 sick days left."


def test_dropping_the_last_turn_removes_it_here_and_in_the_store_and_closes_its_procedure(tmp_path):
    store = ChatStore(tmp_path / "chats.sqlite3")
    chat = Chat(store)
    chat.ask("Question one", "Ana")
    chat.current["content"] = "Answer one"
    chat.finish(chat.current, {})
    chat.ask("How do I apply for parental leave?", "Ana")
    chat.current["content"] = "Step 1 …"
    chat.finish(chat.current, {"procedure": {}})
    chat.procedure_msg = chat.current
    assert chat.drop_last_turn() == "How do I apply for parental leave?"
    assert chat.procedure_msg is None and [m["content"] for m in chat.messages] == ["Question one", "Answer one"]
    assert [m.content for m in store.messages(chat.conversation)] == ["Question one", "Answer one"]
    note = chat.note("Submitted: vacation leave.", {"leave_request": {"id": "r1"}})
    assert note["trace"] is None and store.messages(chat.conversation)[-1].trace == {"leave_request": {"id": "r1"}}
    conv = chat.conversation
    assert chat.forget(conv + 1) is False and chat.forget(conv) is True
    assert chat.conversation is None and chat.messages == [] and Chat(store).drop_last_turn() is None
