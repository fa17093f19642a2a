"""The full-time amounts a part-timer's share is taken of (engine/agent/full_time.py)."""

from __future__ import annotations

import pytest

from engine.agent.full_time import full_time_amounts

_BASE = "A full-time employee (40 hours a week) receives 200 leave hours per calendar year:"
_NONE_EXTRA = "Completed years of service: less than 5 years; Extra leave hours per year (full-time): 0 hours"


@pytest.mark.parametrize("applying, others, question, amounts", [
    # (the extra-hours row that applies gives 0: the base amount of the other sentence, not "0 hours")
    ([_NONE_EXTRA], [_BASE], "How many leave hours do I get per year?", ["200 hours"]),
    # (the week that defines full time is no amount of leave)
    ([], [_BASE], "How many leave hours do I get?", ["200 hours"]),
    (["5 years: 120 hours a year (10 hours a month)"], [], "How many hours do I earn per year?", ["120 hours"]),
    (["5 years: 120 hours a year (10 hours a month)"], [], "How many hours do I earn each month?", ["10 hours"]),
    (["5 years: 120 hours a year (10 hours a month)"], [], "How many hours do I earn?", ["120 hours", "10 hours"]),
    (["Full-time staff receive 25 working days of annual leave."], [], "How much annual leave do I get?", ["25 days"]),
    ([], ["Leave is granted pro rata to contracted hours."], "How much leave do I get?", []),
])
def test_the_amounts_a_share_is_taken_of(applying, others, question, amounts):
    assert full_time_amounts(applying, others, question) == amounts
