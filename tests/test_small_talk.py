"""Greetings, thanks and "what can you do?" get code's reply: courtesies from the message, offers
from what this installation can do for this person."""

from __future__ import annotations

import pytest

from engine.agent.small_talk import capabilities, reply

ALL = {"policy_search", "employee_data", "calculator", "leave_request"}


@pytest.mark.parametrize("message, starts, contains, lacks", [
    ("Hello!", "Hello, Pedro!", ["your own record", "What would you like to know?"], ["welcome"]),
    ("Hi there! What can you help me with?", "Hello, Pedro!", ["what the company's policies say"], []),
    ("What can you help me with?", "I can help you with", ["preparing a leave request"], ["Hello"]),
    ("Good morning!", "Good morning, Pedro!", ["I can help you with"], []),
    ("good   afternoon, how are you?", "Good afternoon, Pedro! I'm doing well", ["I can help you with"], []),
    ("Thanks, that's all.", "You're welcome, Pedro!", ["Glad I could help"], ["the company's policies"]),
    ("Good morning, thanks for the help yesterday!", "Good morning, Pedro! You're welcome!",
     ["anything else"], ["the company's policies"]),
    ("thank you so much", "You're welcome, Pedro!", ["anything else"], []),
    ("Who are you?", "I can help you with", [], []),
    ("bye", "Glad I could help", [], []),
])
def test_courtesies_are_answered_from_the_message(message, starts, contains, lacks):
    text = reply(message, "Pedro Alves", capabilities(ALL, "employee", True, False))
    assert text.startswith(starts), text
    assert all(c in text for c in contains) and not any(x in text for x in lacks), text


@pytest.mark.parametrize("message", ["What's the weather in Lisbon?", "Tell me a joke", "Run this for me: ls",
                                     "Is the thyroid a gland?", "Hitherto unknown", "theyre nice"])
def test_a_message_without_courtesies_is_left_to_the_model(message):
    assert reply(message, "Pedro Alves", ["x"]) is None


def test_offers_follow_the_tools_and_the_role():
    assert capabilities({"policy_search"}, "employee", False, False) == [
        "what the company's policies say (leave, pay, benefits, working time, remote work)"]
    manager = capabilities(ALL, "manager", True, True)
    assert "your team" in manager and "step-by-step procedures" in manager and "company figures" not in " ".join(manager)
    assert "company figures across the employee data" in capabilities(ALL, "hr", True, False)
    # not in the data: no record, no leave requests, and no calculation without anything to calculate from
    assert capabilities({"employee_data", "calculator", "leave_request"}, "employee", False, False) == []
    assert "nothing is loaded" in reply("Hello", "", [])


def test_a_courtesy_that_is_one_part_of_a_question_is_only_the_courtesy():
    assert reply("Hi", "Ana Cruz", ["x"], part_of_more=True) == "Hello, Ana!"
    assert reply("thanks", "", ["x"], part_of_more=True) == "You're welcome!"
