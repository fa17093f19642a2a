"""The calculator: correct arithmetic, and nothing but arithmetic."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.errors import ToolInputError
from engine.tools.base import ToolContext
from engine.tools.calculator import CalculatorTool, evaluate, format_number


@pytest.mark.parametrize(
    "expr, expected",
    [
        ("1 + 2 * 3", 7),
        ("(20000 / 30) * 10", 20000 / 30 * 10),
        ("round(20000 / 30 * 10, 2)", 6666.67),
        ("7 // 2", 3),
        ("-7 // 2", -4),
        ("-7 % 3", 2),
        ("2 ** 10", 1024),
        ("2 ** -1", 0.5),
        ("sqrt(16)", 4),
        ("abs(-3.5)", 3.5),
        ("min(3, 1, 2)", 1),
        ("max(3, 10)", 10),
        ("-(-3)", 3),
        ("+4", 4),
        ("1.25 * 12", 15),
        ("round(2.5)", 2),
    ],
)
def test_arithmetic(expr, expected):
    assert evaluate(expr) == pytest.approx(expected)


def test_tool_result_text_and_data():
    result = CalculatorTool().run("15000 / 30 * 10", ToolContext())
    assert result.text == "15000 / 30 * 10 = 5000"
    assert result.data["value"] == 5000 and result.kind == "scalar"


@pytest.mark.parametrize("value, text", [(5000.0, "5000"), (6666.666666, "6666.666666"), (0.5, "0.5")])
def test_format_number(value, text):
    assert format_number(value) == text


CALC_ATTACKS = [
    "9**9**9",
    "10 ** 100",
    "2 ** 65",
    "__import__('os').system('touch pwned')",
    "'; import os; os.system(\"touch pwned\"); '",
    "().__class__.__bases__[0].__subclasses__()",
    "open('/etc/passwd').read()",
    "exec('1')",
    "eval('1+1')",
    "lambda: 1",
    "[x for x in range(10)]",
    "1 if 1 else 2",
    "a + 1",
    "os.environ",
    "sqrt(x)",
    "round(1, ndigits=2)",
    "max(*[1, 2])",
    "1e400",
    "10000000000000000000",
    "1 / 0",
    "5 // 0",
    "5 % 0",
    "sqrt(-1)",
    "(-8) ** 0.5",
    "True + 1",
    "'abc'",
    "b'x'",
    "1j",
    "1; 2",
    "x := 3",
    "1 < 2",
    "1 & 2",
    "~1",
    "not 1",
    "1 @ 2",
    "(" * 200 + "1" + ")" * 200,
    "1+" * 200 + "1",
    "１ + １",  # full-width digits
    "ⅸ + 1",
    "min(1)",
    "round(1, 2, 3)",
    "abs()",
    "numexpr.evaluate('1')",
    "where(1, 2, 3)",
    "sin(1)",
    "",
    "   ",
    "round(2, 400)",
    # overflow in any step (found by a red-team pass: OverflowError, KeyError 'inf' from numexpr)
    "1e15**64",
    "1e15 // 1e-300",
    "1e15 % 1e-300",
    "*".join(["((1e15*1e15)*(1e15*1e15))"] * 6),
    "-(1e15**64)",
]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["1e15", "1e-300", "0.5", "7", "-3"]), min_size=2, max_size=8),
       st.lists(st.sampled_from(["*", "/", "//", "%", "**", "+", "-"]), min_size=7, max_size=7))
def test_every_step_is_finite_or_our_error(numbers, ops):
    import math

    expression = numbers[0] + "".join(f" {op} ({n})" for op, n in zip(ops, numbers[1:]))
    try:
        value = evaluate(expression)
    except ToolInputError:
        return
    assert math.isfinite(value)


@pytest.mark.parametrize("payload", CALC_ATTACKS)
def test_attacks_are_rejected_with_our_error_and_no_side_effect(payload, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    env_before = dict(os.environ)
    t0 = time.perf_counter()
    with pytest.raises(ToolInputError) as info:
        evaluate(payload)
    assert time.perf_counter() - t0 < 1.0
    assert info.value.message  # a message for a person
    assert not Path("pwned").exists() and list(tmp_path.iterdir()) == []
    assert dict(os.environ) == env_before


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list("0123456789.+-*/%() ,eabcdrstqimnoux_'\"[]:;=<>!~@^&|\\")), max_size=60))
def test_fuzz_only_our_error(text):
    try:
        value = evaluate(text)
    except ToolInputError:
        return
    assert isinstance(value, float)


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=40))
def test_fuzz_unicode_only_our_error(text):
    try:
        evaluate(text)
    except ToolInputError:
        pass
