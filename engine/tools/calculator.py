"""Calculator tool: our own ``ast`` allow-list in front of numexpr.

numexpr's own sanitiser is not a security boundary (on 2.14.2 code hidden
between single quotes runs, and ``9**9**9`` hangs), so numexpr never sees the
model's text. The text is parsed with :mod:`ast`, every node is checked against
a short allow-list, bounds are enforced, and numexpr evaluates only strings
that we regenerate from checked nodes (digits, operators, parentheses,
``sqrt``/``abs``). ``round``, ``min``, ``max``, ``//`` and ``%`` are applied in
Python to already-evaluated floats. There is no nested model call.
"""

from __future__ import annotations

import ast
import math

from engine.errors import ToolInputError
from engine.tools.base import Tool, ToolCard, ToolContext, ToolParts, ToolResult, WorkedExample

MAX_CHARS = 300
MAX_NODES = 120
MAX_DEPTH = 12
MAX_EXPONENT = 64
MAX_MAGNITUDE = 1e15
FUNCTIONS = {"round": (1, 2), "abs": (1, 1), "min": (2, 8), "max": (2, 8), "sqrt": (1, 1)}
_BINOPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}

# Grammar shape: nesting depth and items per level are bounded so the model's
# expression is always finite.
GRAMMAR_DEPTH = 3
GRAMMAR_TERMS = 6


class CalculatorError(ToolInputError):
    pass


def _fail(message: str) -> CalculatorError:
    return CalculatorError(message, hint="Write plain arithmetic such as (20000 / 30) * 10.")


def validate(expression: str) -> ast.Expression:
    """Parse and check an expression; raise :class:`CalculatorError` on anything not allowed."""
    if not isinstance(expression, str):
        raise _fail("The calculator takes text.")
    text = expression.strip()
    if not text:
        raise _fail("The expression is empty.")
    if len(text) > MAX_CHARS:
        raise _fail(f"The expression is too long ({len(text)} characters; at most {MAX_CHARS}).")
    if not text.isascii():
        raise _fail("The expression may contain only digits, operators, parentheses and round/abs/min/max/sqrt.")
    # Thousands separators are a common habit; "1,500" inside min(...) would be ambiguous, so refuse clearly.
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise _fail(f"The expression is not valid arithmetic ({exc.msg}).") from None
    except (ValueError, MemoryError, RecursionError):
        raise _fail("The expression cannot be read.") from None
    count = 0

    def check(node: ast.AST, depth: int) -> None:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise _fail(f"The expression is too large (more than {MAX_NODES} parts).")
        if depth > MAX_DEPTH:
            raise _fail(f"The expression is nested too deeply (more than {MAX_DEPTH} levels).")
        if isinstance(node, ast.Expression):
            check(node.body, depth + 1)
        elif isinstance(node, ast.Constant):
            value = node.value
            if type(value) not in (int, float) or not isinstance(value, (int, float)):
                raise _fail(f"Only numbers are allowed, not {type(value).__name__} values.")
            if not math.isfinite(value) or abs(value) > MAX_MAGNITUDE:
                raise _fail(f"The number {value} is too large (at most {MAX_MAGNITUDE:.0e}).")
        elif isinstance(node, ast.BinOp):
            if type(node.op) not in _BINOPS:
                raise _fail(f"The operator {type(node.op).__name__} is not allowed; use + - * / // % **.")
            check(node.left, depth + 1)
            check(node.right, depth + 1)
        elif isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                raise _fail("Only a minus or plus sign may stand before a number.")
            check(node.operand, depth + 1)
        elif isinstance(node, ast.Call):
            name = node.func.id if isinstance(node.func, ast.Name) else None
            if name not in FUNCTIONS:
                raise _fail("Only the functions round, abs, min, max and sqrt are allowed.")
            if node.keywords or any(isinstance(a, ast.Starred) for a in node.args):
                raise _fail(f"{name}() takes plain arguments only.")
            lo, hi = FUNCTIONS[name]
            if not lo <= len(node.args) <= hi:
                raise _fail(f"{name}() takes {lo if lo == hi else f'{lo} to {hi}'} arguments, not {len(node.args)}.")
            for arg in node.args:
                check(arg, depth + 1)
        elif isinstance(node, ast.Name):
            raise _fail(f"Unknown name {node.id!r}: the calculator knows numbers only; look values up first.")
        else:
            raise _fail(f"{type(node).__name__} is not allowed in a calculation.")

    check(tree, 0)
    return tree


def _numexpr(source: str) -> float:
    import numexpr

    try:
        value = numexpr.evaluate(source, local_dict={}, global_dict={})
    except ZeroDivisionError:
        raise _fail("Division by zero.") from None
    return float(value)


def _eval(node: ast.AST) -> float:
    """Evaluate ``node``; every intermediate result is checked, so no infinity or NaN reaches the
    next step (numexpr cannot even parse one) and no overflow escapes as a Python error."""
    try:
        value = _eval_node(node)
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise _fail("The result is too large to compute.")
    return value


def _eval_node(node: ast.AST) -> float:
    if isinstance(node, ast.Expression):
        return _eval(node.body)
    if isinstance(node, ast.Constant):
        return float(node.value)  # type: ignore[arg-type]  # the validator let numbers only through
    if isinstance(node, ast.UnaryOp):
        value = _eval(node.operand)
        return _numexpr(f"-({value!r})") if isinstance(node.op, ast.USub) else value
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left), _eval(node.right)
        op = type(node.op)
        if op in (ast.Div, ast.FloorDiv, ast.Mod) and right == 0:
            raise _fail("Division by zero.")
        if op is ast.Pow:
            if abs(right) > MAX_EXPONENT:
                raise _fail(f"The exponent {right:g} is too large (at most {MAX_EXPONENT}).")
            if left < 0 and right != int(right):
                raise _fail("A negative number cannot be raised to a fractional power.")
        if op is ast.FloorDiv:
            return float(math.floor(left / right))
        if op is ast.Mod:
            return left - right * math.floor(left / right)
        return _numexpr(f"({left!r}) {_BINOPS[op]} ({right!r})")
    if isinstance(node, ast.Call):
        name = node.func.id  # type: ignore[attr-defined]
        args = [_eval(a) for a in node.args]
        if name == "sqrt":
            if args[0] < 0:
                raise _fail("The square root of a negative number is not defined.")
            return _numexpr(f"sqrt({args[0]!r})")
        if name == "abs":
            return _numexpr(f"abs({args[0]!r})")
        if name == "round":
            digits = int(args[1]) if len(args) == 2 else 0
            if not -15 <= digits <= 15:
                raise _fail("round() takes between -15 and 15 digits.")
            return float(round(args[0], digits))
        return float(min(args) if name == "min" else max(args))
    raise AssertionError(node)  # pragma: no cover - validate() allows nothing else


def evaluate(expression: str) -> float:
    """Validate and evaluate; raise :class:`CalculatorError` on anything invalid or out of range."""
    tree = validate(expression)
    with _QuietFloatingPoint():
        value = _eval(tree)
    if not math.isfinite(value):
        raise _fail("The result is too large to compute.")
    return value


class _QuietFloatingPoint:
    """Silence numpy's floating-point warnings; overflow is reported by the isfinite check."""

    def __enter__(self):
        import numpy

        self._old = numpy.seterr(all="ignore")

    def __exit__(self, *exc):
        import numpy

        numpy.seterr(**self._old)


def format_number(value: float) -> str:
    if value == int(value) and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.10g}"


class CalculatorTool(Tool):
    """Exact arithmetic for the agent."""

    name = "calculator"
    label = "the calculator"
    order = 30
    sourced_inputs = True

    @classmethod
    def build(cls, parts: ToolParts) -> "CalculatorTool":
        return cls()

    @classmethod
    def describe_call(cls, tool_input: str) -> str:
        return "Calculating " + " ".join(tool_input.split()).replace("*", "×").replace("/", "÷")[:80]
    accepts_refs = True  # in a plan, "#1" may stand where a number goes (the number step 1 returned)

    def card(self, context: ToolContext) -> ToolCard:
        return ToolCard(
            name=self.name,
            purpose="exact arithmetic on numbers you already have (pay, days, rates).",
            input_format="one arithmetic expression: numbers without thousands separators, + - * / // % **, "
            "parentheses, round(x, digits), abs, min, max, sqrt.",
            example="round(20000 / 30 * 10, 2)",
            worked=WorkedExample(
                # The whole calculation in one expression: small models otherwise stop after its first part.
                question="What are 3 days of pay on a salary of 36000 with 250 working days a year?",
                thought="I calculate 36000 / 250 * 3 in one expression.", tool_input="round(36000 / 250 * 3, 2)",
                observation="round(36000 / 250 * 3, 2) = 432", answer="3 days of pay are 432."),
        )

    def grammar_rules(self, root: str, json_string: bool = False, refs: int = 0) -> str:
        """``refs``: how many earlier plan steps a ``#k`` may refer to (0: none)."""
        p = root  # arithmetic has no quotes: the same in a JSON string
        # No leading zeros: "007" is not a Python number.
        number = '("0" | [1-9] [0-9]{0,11}) ("." [0-9]{1,6})?'
        if refs:
            number = f'({number} | "#" [1-{min(refs, 9)}])'
        rules = [
            f'{p}-num ::= {number}',
            f'{p}-op ::= " "? ("+" | "-" | "*" | "/" | "//" | "%" | "**") " "?',
            f'{p}-e0 ::= "-"? {p}-num ({p}-op "-"? {p}-num){{0,{GRAMMAR_TERMS - 1}}}',
        ]
        for d in range(1, GRAMMAR_DEPTH + 1):
            inner = f"{p}-e{d - 1}"
            rules.append(
                f'{p}-t{d} ::= "-"? ({p}-num | "(" {inner} ")" | ("abs" | "sqrt") "(" {inner} ")" '
                f'| "round(" {inner} (", " [0-9])? ")" | ("min" | "max") "(" {inner} ", " {inner} ")")'
            )
            rules.append(f"{p}-e{d} ::= {p}-t{d} ({p}-op {p}-t{d}){{0,{GRAMMAR_TERMS - 1}}}")
        rules.append(f"{root} ::= {p}-e{GRAMMAR_DEPTH}")
        return "\n".join(rules)

    def run(self, tool_input: str, context: ToolContext) -> ToolResult:
        value = evaluate(tool_input)
        text = format_number(value)
        return ToolResult(text=f"{tool_input.strip()} = {text}", data={"value": value, "text": text}, kind="scalar")
