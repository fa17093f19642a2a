"""Fuzz tier: any query built from the query language's own parts either answers or raises one
of our errors, within the query budget, for every kind of user (hypothesis)."""

from __future__ import annotations

import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.data.access import make_viewer
from engine.data.employees import load_employees
from engine.errors import HRAssistantError
from engine.data.query import AGGREGATES, SERIES_METHODS, STR_METHODS, run_query
from tests.conftest import REFERENCE, ROOT

TODAY = "2026-11-22"
SAMPLE = load_employees(ROOT / "data" / "employees.csv")
FOREIGN = load_employees(REFERENCE / "employee_data.csv")
USERS = {"sample": ["Pedro Alves", "Søren Dahl", "Priya Raman", "Nobody Here"],
         "foreign": [str(FOREIGN.df[FOREIGN.role("name")].iloc[0]), "Nobody Here"]}

values = st.one_of(st.integers(-10**20, 10**20), st.floats(allow_nan=True, allow_infinity=True),
                   st.text(max_size=12), st.booleans(), st.lists(st.integers(-5, 5), max_size=3),
                   st.sampled_from(['"Sales"', '"Pedro Alves"', "today", '"2020-01-01"']))


def literal(v) -> str:
    return v if isinstance(v, str) and (v.startswith('"') or v == "today") else repr(v)


@st.composite
def series(draw, columns, depth=0):
    col = draw(st.sampled_from(columns))
    base = draw(st.sampled_from([f'df["{col}"]', f"df.{col}" if col.isidentifier() else f'df["{col}"]',
                                 f'df[df["{draw(st.sampled_from(columns))}"] {draw(st.sampled_from(["==", "!=", ">", "<"]))} '
                                 f'{literal(draw(values))}]["{col}"]']))
    if depth < 2 and draw(st.booleans()):
        kind = draw(st.sampled_from(["method", "str", "op", "dt"]))
        if kind == "method":
            name = draw(st.sampled_from(sorted(SERIES_METHODS)))
            args = ", ".join(literal(draw(values)) for _ in range(draw(st.integers(0, 2))))
            return f"{base}.{name}({args})"
        if kind == "str":
            name = draw(st.sampled_from(sorted(STR_METHODS)))
            return f"{base}.str.{name}({literal(draw(values)) if draw(st.booleans()) else ''})"
        if kind == "dt":
            return f"{base}.dt.{draw(st.sampled_from(['year', 'days', 'month']))}"
        op = draw(st.sampled_from(["+", "-", "*", "/", "//", "%", "**", "==", ">", "&", "|"]))
        other = draw(st.one_of(st.builds(literal, values), series(columns, depth + 1)))
        return f"({base} {op} {other})"
    return base


@st.composite
def query(draw, columns):
    s = draw(series(columns))
    shape = draw(st.sampled_from(["plain", "agg", "group", "len", "sort"]))
    if shape == "agg":
        return f"{s}.{draw(st.sampled_from(sorted(AGGREGATES)))}()"
    if shape == "group":
        keys = draw(st.lists(st.sampled_from(columns), min_size=1, max_size=4))
        return f'df.groupby({keys!r})["{draw(st.sampled_from(columns))}"].{draw(st.sampled_from(sorted(AGGREGATES)))}()'
    if shape == "len":
        return f"len({s})"
    if shape == "sort":
        return f'df.sort_values("{draw(st.sampled_from(columns))}").head({draw(st.integers(-3, 5))})'
    return s


@pytest.mark.parametrize("name, table", [("sample", SAMPLE), ("foreign", FOREIGN)])
def test_every_query_answers_or_raises_our_error_within_budget(name, table):
    columns = list(table.df.columns)

    @settings(max_examples=250, deadline=None, suppress_health_check=list(HealthCheck))
    @given(text=query(columns), user=st.sampled_from(USERS[name]))
    def run(text, user):
        t0 = time.perf_counter()
        try:
            run_query(text, table, make_viewer(table, user), TODAY)
        except HRAssistantError as exc:
            assert exc.message
        assert time.perf_counter() - t0 < 3.0, text

    run()
