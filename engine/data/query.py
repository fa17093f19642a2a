"""The employee-data query language: a small, safe subset of pandas over ``df``.

The model (or a person on the CLI) writes a pandas-like expression such as
``df[df["department"] == "Finance"]["vacation_leave"].mean()``. It is parsed
with :mod:`ast`, every node is checked against an allow-list, and our own small
interpreter evaluates it. There is no ``exec``/``eval``, no
``DataFrame.query``/``eval``, no names but ``df`` and ``today``, no dunder or
private attributes, no I/O methods, no lambdas or comprehensions; size and time
are bounded. Access control is applied while evaluating: a sensitive column can
only be read on rows the signed-in user may see (:mod:`engine.data.access`).
"""

from __future__ import annotations

import ast
import difflib
import math
import time
from dataclasses import dataclass, field
from typing import Any

from engine.data.access import Viewer
from engine.data.employees import EmployeeTable, normalise_name
from engine.errors import AccessDenied, HRAssistantError, ToolInputError

MAX_CHARS = 600
MAX_NODES = 200
MAX_DEPTH = 40
MAX_SECONDS = 2.0
MAX_GROUP_KEYS = 3
HINT_MAX_VALUES = 5000  # more distinct values: the hint only matches case-insensitively (vectorised)
MAX_LIST = 100
MAX_STRING = 200
MAX_DIGITS = 15  # round(): a float has 15-17 significant digits

AGGREGATES = {"mean", "sum", "min", "max", "count", "median", "nunique", "std"}
FRAME_METHODS = {"head": {"n"}, "tail": {"n"}, "sort_values": {"by", "ascending"}, "groupby": {"by"},
                 "nlargest": {"n", "columns"}, "nsmallest": {"n", "columns"}, "value_counts": {"normalize"},
                 **{a: set() for a in AGGREGATES}}
SERIES_METHODS = {"head": {"n"}, "tail": {"n"}, "sort_values": {"ascending"}, "value_counts": {"normalize", "ascending"},
                  "isin": {"values"}, "between": {"left", "right"}, "round": {"decimals"}, "abs": set(),
                  "tolist": set(), "unique": set(), "nlargest": {"n"}, "nsmallest": {"n"}, "isna": set(),
                  "notna": set(), "fillna": {"value"}, **{a: set() for a in AGGREGATES}}
GROUPBY_METHODS: dict[str, set[str]] = {**{a: set() for a in AGGREGATES}, "size": set()}
STR_METHODS = {"contains": {"pat", "case"}, "startswith": {"pat"}, "endswith": {"pat"}, "lower": set(),
               "upper": set(), "strip": set(), "len": set()}
DT_FIELDS = {"year", "month", "day", "days", "quarter", "dayofweek"}
BUILTINS = {"len", "round", "abs"}
_CMP = {ast.Eq: "==", ast.NotEq: "!=", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}


class QueryError(ToolInputError):
    pass


def _err(message: str, hint: str = "") -> QueryError:
    return QueryError(message, hint=hint)


@dataclass
class _Frame:
    df: Any


@dataclass
class _GroupBy:
    frame: Any  # DataFrame
    keys: list[str]
    columns: list[str] | None = None  # selected columns
    series: bool = False


@dataclass
class _Accessor:
    kind: str  # "str" or "dt"
    series: Any


@dataclass
class _Method:
    obj: Any
    name: str


@dataclass
class QueryResult:
    value: Any  # a scalar, a list, a pandas Series or DataFrame
    notes: list[str] = field(default_factory=list)
    grouped: bool = False


class Interpreter:
    """Evaluates one checked expression tree for one viewer."""

    def __init__(self, table: EmployeeTable, viewer: Viewer, today) -> None:
        import pandas as pd

        self.pd = pd
        self.table = table
        self.viewer = viewer
        self.today = pd.Timestamp(today)
        self.notes: list[str] = []
        self.grouped = False
        self.deadline = time.perf_counter() + MAX_SECONDS
        self._within = None  # row labels "df" stands for while a later condition of an & is read

    # -- access ----------------------------------------------------------------------------------------
    def _column(self, df, name: str):
        if not isinstance(name, str):
            raise _err("Columns are selected by their name in quotes, e.g. df[\"department\"].")
        if name not in df.columns:
            raise self._no_column(name)
        if not self.viewer.can_read(name, df.index):
            raise AccessDenied(self.viewer.denial(name))
        return df[name]

    def _no_column(self, name: str) -> QueryError:
        columns = list(self.table.columns)
        close = difflib.get_close_matches(name, columns, n=2, cutoff=0.5)
        lowered = name.lower()
        if any(w in lowered for w in ("salary", "pay", "wage", "income")) and self.table.pay_columns:
            return _err(f"There is no column '{name}'; pay is in '{self.table.pay_columns[0]}'.")
        hint = f"Did you mean {' or '.join(repr(c) for c in close)}?" if close else f"Columns: {', '.join(columns)}."
        return _err(f"There is no column '{name}'.", hint)

    def _summary_checked(self, column, how: str) -> bool:
        """Is a summary ``how`` of ``column`` subject to the minimum group size (a sensitive column,
        not a count, a viewer other than HR)?"""
        return (how != "count" and self.viewer.role != "hr" and isinstance(column, str)
                and column in self.table.columns and column not in self.viewer.public_columns)

    def _small_group(self, column, rows, how: str) -> None:
        """Summaries (not counts) of a sensitive column must cover enough people (min_group_size)."""
        if self._summary_checked(column, how):
            self.viewer.check_aggregate(column, list(rows))

    def check_frame(self, df) -> None:
        for col in df.columns:
            if not self.viewer.can_read(col, df.index):
                raise AccessDenied(self.viewer.denial(col))

    # -- evaluation ------------------------------------------------------------------------------------
    def eval(self, node: ast.AST) -> Any:
        if time.perf_counter() > self.deadline:
            raise _err("The query took too long.", "Ask for fewer rows or a simpler result.")
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise _err(f"{type(node).__name__} is not allowed in a data query.")
        return method(node)

    def _Expression(self, node):
        return self.eval(node.body)

    def _Name(self, node):
        if node.id == "df":
            df = self.table.df
            return _Frame(df if self._within is None else df.loc[self._within])
        if node.id == "today":
            return self.today
        raise _err(f"Unknown name '{node.id}'.", "A query may use only df (the employee table) and today.")

    def _Constant(self, node):
        v = node.value
        if isinstance(v, str):
            if len(v) > MAX_STRING:
                raise _err(f"A text value is too long (at most {MAX_STRING} characters).")
            return v
        if isinstance(v, bool) or v is None:
            return v
        if isinstance(v, (int, float)):
            if not math.isfinite(v) or abs(v) > 1e15:
                raise _err(f"The number {v} is out of range.")
            return v
        raise _err(f"Values of type {type(v).__name__} are not allowed.")

    def _List(self, node):
        if len(node.elts) > MAX_LIST:
            raise _err(f"A list may have at most {MAX_LIST} items.")
        items = [self.eval(e) for e in node.elts]
        if not all(isinstance(i, (str, int, float, bool)) or i is None for i in items):
            raise _err("Lists may contain only plain values (text and numbers).")
        return items

    _Tuple = _List

    def _Subscript(self, node):
        obj = self.eval(node.value)
        if isinstance(node.slice, ast.Slice):
            raise _err("Slices are not allowed; use head(n) or a filter.")
        key = self.eval(node.slice)
        pd = self.pd
        if isinstance(obj, _Frame):
            df = obj.df
            if isinstance(key, str):
                return self._column(df, key)
            if isinstance(key, list):
                for k in key:
                    self._column(df, k)
                return _Frame(df[key])
            if isinstance(key, pd.Series) and key.dtype == bool:
                return _Frame(df[_align(key, df.index)])
            raise _err("df[...] takes a column name, a list of column names, or a condition.")
        if isinstance(obj, _GroupBy):
            if isinstance(key, str) or isinstance(key, list):
                cols = [key] if isinstance(key, str) else key
                for c in cols:
                    self._column(obj.frame, c)
                return _GroupBy(obj.frame, obj.keys, cols, series=isinstance(key, str))
            raise _err("After groupby(...), select a column: .groupby(\"department\")[\"salary\"].mean().")
        if isinstance(obj, pd.Series):
            if isinstance(key, pd.Series) and key.dtype == bool:
                return obj[_align(key, obj.index)]
            if isinstance(key, str) and key in obj.index:
                return obj[key]
            raise _err("A column can be filtered with a condition, e.g. s[s > 10].")
        if isinstance(obj, list) and isinstance(key, int) and not isinstance(key, bool):
            if -len(obj) <= key < len(obj):
                return obj[key]
            raise _err(f"The list has {len(obj)} items; index {key} does not exist.")
        raise _err("This value cannot be indexed.")

    def _Attribute(self, node):
        attr = node.attr
        if attr.startswith("_"):
            raise _err("Names starting with an underscore are not allowed.")
        obj = self.eval(node.value)
        pd = self.pd
        if isinstance(obj, _Frame):
            if attr in FRAME_METHODS:
                return _Method(obj, attr)
            if attr in obj.df.columns:
                return self._column(obj.df, attr)
            raise self._no_attribute(attr, FRAME_METHODS, obj.df.columns)
        if isinstance(obj, pd.Series):
            if attr in ("str", "dt"):
                if attr == "dt" and not (pd.api.types.is_datetime64_any_dtype(obj) or pd.api.types.is_timedelta64_dtype(obj)):
                    raise _err(".dt works on date columns and date differences only.")
                if attr == "str" and obj.dtype != object:
                    raise _err(".str works on text columns only.")
                return _Accessor(attr, obj)
            if attr in SERIES_METHODS:
                return _Method(obj, attr)
            raise self._no_attribute(attr, SERIES_METHODS, ())
        if isinstance(obj, _GroupBy):
            if attr in GROUPBY_METHODS:
                return _Method(obj, attr)
            if attr in obj.frame.columns:
                self._column(obj.frame, attr)
                return _GroupBy(obj.frame, obj.keys, [attr], series=True)
            raise self._no_attribute(attr, GROUPBY_METHODS, ())
        if isinstance(obj, _Accessor):
            if obj.kind == "dt":
                if attr not in DT_FIELDS:
                    raise _err(f".dt.{attr} is not available.", f"Use one of: {', '.join(sorted(DT_FIELDS))}.")
                s = obj.series
                if pd.api.types.is_timedelta64_dtype(s):
                    if attr != "days":
                        raise _err("A date difference has only .dt.days.")
                    return s.dt.days
                if attr == "days":
                    raise _err(".dt.days works on a date difference, e.g. (today - df[\"hire_date\"]).dt.days.")
                return getattr(s.dt, attr)
            if attr in STR_METHODS:
                return _Method(obj, attr)
            raise _err(f".str.{attr} is not available.", f"Use one of: {', '.join(sorted(STR_METHODS))}.")
        if isinstance(obj, pd.Timedelta) and attr == "days":
            return obj.days
        if isinstance(obj, pd.Timestamp) and attr in ("year", "month", "day"):
            return getattr(obj, attr)
        raise _err(f"'.{attr}' is not available here.")

    def _no_attribute(self, attr, allowed, columns) -> QueryError:
        close = difflib.get_close_matches(attr, list(allowed) + list(columns), n=1)
        if attr in ("to_csv", "to_pickle", "to_json", "to_excel", "to_sql", "eval", "query", "apply", "pipe", "read_csv"):
            return _err(f"'{attr}' is not allowed: queries can only read and summarise the table.")
        return _err(f"'{attr}' is not available.", f"Did you mean '{close[0]}'?" if close else "")

    def _Call(self, node):
        if any(isinstance(a, ast.Starred) for a in node.args) or any(k.arg is None for k in node.keywords):
            raise _err("* and ** arguments are not allowed.")
        if isinstance(node.func, ast.Name):
            if node.func.id not in BUILTINS:
                raise _err(f"The function '{node.func.id}' is not allowed.", "Functions: len, round, abs.")
            args = [self.eval(a) for a in node.args]
            if node.keywords:
                raise _err(f"{node.func.id}() takes no keyword arguments.")
            return self._builtin(node.func.id, args)
        target = self.eval(node.func)
        if not isinstance(target, _Method):
            raise _err("Only the allowed methods can be called.")
        args = [self.eval(a) for a in node.args]
        kwargs = {k.arg: self.eval(k.value) for k in node.keywords}
        return self._call_method(target, args, kwargs)

    def _builtin(self, name, args):
        pd = self.pd
        if len(args) not in ((1,) if name != "round" else (1, 2)):
            raise _err(f"{name}() takes {'one or two arguments' if name == 'round' else 'one argument'}.")
        x = args[0]
        if name == "len":
            if isinstance(x, _Frame):
                return len(x.df)
            if isinstance(x, (pd.Series, list, str)):
                return len(x)
            raise _err("len() counts rows of df, a column or a list.")
        digits = self._digits(args[1]) if name == "round" and len(args) == 2 else 0
        if isinstance(x, pd.Series):
            return x.round(digits) if name == "round" else x.abs()
        if isinstance(x, (int, float)) and not isinstance(x, bool):
            # (Python's round(n, -10**8) works through a hundred-million-digit power of ten: bounded here.)
            return (round(x, digits) if len(args) == 2 else round(x)) if name == "round" else abs(x)
        raise _err(f"{name}() takes a number or a numeric column.")

    def _call_method(self, m: _Method, args, kwargs):
        pd = self.pd
        obj, name = m.obj, m.name
        if isinstance(obj, _Frame):
            allowed, df = FRAME_METHODS[name], obj.df
            self._check_kwargs(name, kwargs, allowed)
            if name == "groupby":
                by = args[0] if args else kwargs.get("by")
                keys = [by] if isinstance(by, str) else by
                if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
                    raise _err("groupby takes a column name or a list of column names.")
                if len(set(keys)) > MAX_GROUP_KEYS or len(set(keys)) != len(keys):
                    # One pandas call cannot be stopped half-way: bound its size before it starts.
                    raise _err(f"groupby takes at most {MAX_GROUP_KEYS} different columns.",
                               "Group by one or two columns, e.g. .groupby([\"department\", \"location\"]).")
                for k in keys:
                    self._column(df, k)
                self.grouped = True
                return _GroupBy(df, keys)
            if name == "sort_values":
                by = args[0] if args else kwargs.get("by")
                keys = [by] if isinstance(by, str) else by
                if not isinstance(keys, list) or not keys:
                    raise _err("sort_values on a table needs by=\"column\".")
                for k in keys:
                    self._column(df, k)
                self.check_frame(df)
                return _Frame(df.sort_values(keys, ascending=self._bool(kwargs.get("ascending", True))))
            if name in ("nlargest", "nsmallest"):
                n = self._int(args[0] if args else kwargs.get("n", 5))
                col = args[1] if len(args) > 1 else kwargs.get("columns")
                if not isinstance(col, str):
                    raise _err(f"{name} on a table needs a column: df.{name}(5, \"column\").")
                self._column(df, col)
                self.check_frame(df)
                return _Frame(getattr(df, name)(n, col))
            self.check_frame(df)
            if name in ("head", "tail"):
                return _Frame(getattr(df, name)(self._int(args[0] if args else kwargs.get("n", 5))))
            if name == "value_counts":
                return df.value_counts(normalize=self._bool(kwargs.get("normalize", False)))
            if name in AGGREGATES:
                if name in ("count", "nunique"):
                    return getattr(df, name)()
                numeric = df.select_dtypes("number")
                for col in numeric.columns:
                    self._small_group(col, df.index, name)
                return getattr(numeric, name)()
        if isinstance(obj, pd.Series):
            self._check_kwargs(name, kwargs, SERIES_METHODS[name])
            s = obj
            if name in ("head", "tail"):
                return getattr(s, name)(self._int(args[0] if args else kwargs.get("n", 5)))
            if name == "sort_values":
                return s.sort_values(ascending=self._bool(args[0] if args else kwargs.get("ascending", True)))
            if name == "value_counts":
                return s.value_counts(normalize=self._bool(kwargs.get("normalize", False)),
                                      ascending=self._bool(kwargs.get("ascending", False)))
            if name == "isin":
                values = args[0] if args else kwargs.get("values")
                if not isinstance(values, list):
                    raise _err("isin takes a list, e.g. .isin([\"HR\", \"Finance\"]).")
                return s.isin(values)
            if name == "between":
                lo = args[0] if args else kwargs.get("left")
                hi = args[1] if len(args) > 1 else kwargs.get("right")
                return s.between(self._comparable(s, lo), self._comparable(s, hi))
            if name == "round":
                self._numeric(s, "round")
                return s.round(self._digits(args[0] if args else kwargs.get("decimals", 0)))
            if name == "abs":
                self._numeric(s, "abs")
                return s.abs()
            if name in ("nlargest", "nsmallest"):
                return getattr(s, name)(self._int(args[0] if args else kwargs.get("n", 5)))
            if name == "tolist":
                return [_plain(v) for v in s.head(1000).tolist()]
            if name == "unique":
                return [_plain(v) for v in s.dropna().unique()[:1000]]
            if name in ("isna", "notna"):
                return getattr(s, name)()
            if name == "fillna":
                value = args[0] if args else kwargs.get("value")
                if not isinstance(value, (int, float, str)):
                    raise _err("fillna takes a plain value.")
                return s.fillna(value)
            if name in AGGREGATES:
                if name in ("mean", "sum", "median", "std"):
                    self._numeric(s, name)
                self._small_group(s.name, s.index, name)
                return _plain(getattr(s, name)())
        if isinstance(obj, _GroupBy):
            self._check_kwargs(name, kwargs, GROUPBY_METHODS[name])
            g = obj.frame.groupby(obj.keys, dropna=False)
            if name == "size":
                return g.size()
            targets = obj.columns if obj.columns is not None else [c for c in obj.frame.columns if c not in obj.keys]
            targets = [c for c in targets if self._summary_checked(c, name)]
            for rows in (g.indices.values() if targets else ()):  # one pass over the groups, only if needed
                labels = obj.frame.index[rows]
                for col in targets:
                    self.viewer.check_aggregate(col, list(labels))
            if obj.columns is None:
                self.check_frame(obj.frame)
                cols = [c for c in obj.frame.columns if c not in obj.keys]
                if name in ("mean", "sum", "median", "std"):
                    cols = [c for c in cols if pd.api.types.is_numeric_dtype(obj.frame[c])]
                return getattr(g[cols], name)()
            target = g[obj.columns[0]] if obj.series else g[obj.columns]
            if name in ("mean", "sum", "median", "std"):
                for c in obj.columns:
                    self._numeric(obj.frame[c], name)
            return getattr(target, name)()
        if isinstance(obj, _Accessor):
            self._check_kwargs(name, kwargs, STR_METHODS[name])
            s = obj.series
            if name in ("contains", "startswith", "endswith"):
                pat = args[0] if args else kwargs.get("pat")
                if not isinstance(pat, str):
                    raise _err(f".str.{name} takes a text, e.g. .str.{name}(\"Sales\").")
                # Plain substring tests (never a regex: no pattern language, no catastrophic
                # backtracking); contains ignores case unless case=True.
                case = self._bool(kwargs.get("case", False)) if name == "contains" else True
                needle = pat if case else pat.casefold()
                test = {"contains": lambda v: needle in v, "startswith": lambda v: v.startswith(needle),
                        "endswith": lambda v: v.endswith(needle)}[name]
                if not case and s.name in self.table.df.columns and s.index.equals(self.table.df.index) \
                        and s.equals(self.table.df[s.name]):
                    folded = self.table.folded(s.name)  # cached per table: folding 10k names costs ms
                    return pd.Series([v is not None and test(v) for v in folded], index=s.index, dtype=bool)
                fold = (lambda v: v) if case else str.casefold
                return pd.Series([isinstance(v, str) and test(fold(v)) for v in s], index=s.index, dtype=bool)
            return getattr(s.astype("string").str, name)()
        raise _err(f"'{name}' cannot be called here.")  # pragma: no cover

    @staticmethod
    def _check_kwargs(name, kwargs, allowed):
        bad = [k for k in kwargs if k not in allowed]
        if bad:
            raise _err(f"{name}() does not take '{bad[0]}'.",
                       f"It takes: {', '.join(sorted(allowed))}." if allowed else "It takes no keyword arguments.")

    @staticmethod
    def _int(v) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v <= 1000:
            raise _err("Expected a whole number between 0 and 1000.")
        return v

    @staticmethod
    def _digits(v) -> int:
        if isinstance(v, bool) or not isinstance(v, int) or not -MAX_DIGITS <= v <= MAX_DIGITS:
            raise _err(f"round() takes a whole number of digits between -{MAX_DIGITS} and {MAX_DIGITS}.")
        return v

    @staticmethod
    def _bool(v) -> bool:
        if not isinstance(v, bool):
            raise _err("Expected True or False.")
        return v

    def _numeric(self, s, what: str) -> None:
        if not self.pd.api.types.is_numeric_dtype(s) or s.dtype == bool:
            raise _err(f"{what} needs a numeric column, but '{s.name}' holds {s.dtype} values.")

    def _comparable(self, s, value):
        pd = self.pd
        if pd.api.types.is_datetime64_any_dtype(s) and isinstance(value, str):
            try:
                return pd.Timestamp(value)
            except ValueError:
                raise _err(f"'{value}' is not a date; write dates as \"2024-01-31\".") from None
        return value

    def _Compare(self, node):
        if len(node.ops) != 1:
            raise _err("Compare one thing at a time; combine conditions with & and |.")
        op = type(node.ops[0])
        if op in (ast.In, ast.NotIn):
            raise _err("'in' is not supported; use .isin([...]).")
        if op not in _CMP:
            raise _err("Only == != < <= > >= comparisons are allowed.")
        left, right = self.eval(node.left), self.eval(node.comparators[0])
        pd = self.pd
        if isinstance(left, pd.Series):
            right = self._comparable(left, right)
        if isinstance(right, pd.Series):
            left = self._comparable(right, left)
        for v in (left, right):
            if isinstance(v, (_Frame, _GroupBy, _Method, _Accessor)):
                raise _err("Compare a column (df[\"col\"]) with a value.")
        try:
            result = _compare(left, right, op)
        except TypeError:
            raise _err("These values cannot be compared (text with a number?).") from None
        if (op is ast.Eq and isinstance(left, pd.Series) and isinstance(right, str) and isinstance(result, pd.Series)
                and not result.any()):
            self._suggest(left, right)
        return result

    def _suggest(self, series, value: str) -> None:
        """No row matched ``col == "value"``: say which values are close (a misspelt name, a wrong case)."""
        name_col = self.table.role("name")
        if series.name not in self.table.df.columns:
            return
        df, col, viewer = self.table.df, series.name, self.viewer
        # Only values the user may read are suggested: a hint drawn from every row would let
        # prefix probing ("salary == '9'") list other people's values one by one.
        if viewer.role == "hr" or (col in viewer.public_columns and col not in viewer.hr_only_columns):
            pool = df[col]
        elif col in viewer.hr_only_columns:
            return
        else:
            pool = df.loc[[r for r in viewer.visible_rows if r in df.index], col]
        if time.perf_counter() > self.deadline:
            return  # a hint is a courtesy: never worth running past the query's deadline
        distinct = pool.dropna().unique()
        if len(distinct) > HINT_MAX_VALUES:
            folded = self.pd.Series(distinct).astype(str).str.casefold()
            close = [str(v) for v in distinct[(folded == value.casefold()).to_numpy()][:2]]
            what = "employee named" if series.name == name_col else f"'{series.name}' equal to"
            self.notes.append(f"No {what} '{value}'" + (f"; did you mean '{close[0]}'?" if close else "."))
            return
        values = [str(v) for v in distinct]
        by_key = {normalise_name(v): v for v in values}
        if normalise_name(value) in by_key:
            close = [by_key[normalise_name(value)]]
        else:
            close = difflib.get_close_matches(value, values, n=2, cutoff=0.6)
            if not close:
                first = value.split()[0] if value.split() else value
                close = [v for v in values if normalise_name(first) in normalise_name(v)][:2]
        what = "employee named" if series.name == name_col else f"'{series.name}' equal to"
        note = f"No {what} '{value}'"
        if close:
            note += "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"
        else:
            note += "."
        self.notes.append(note)

    def _BinOp(self, node):
        if isinstance(node.op, ast.BitAnd):
            left, right = self._conjunction(node.left, node.right)
        else:
            left, right = self.eval(node.left), self.eval(node.right)
        pd = self.pd
        for v in (left, right):
            if not isinstance(v, (pd.Series, int, float, str, pd.Timestamp, pd.Timedelta)) or isinstance(v, _Frame):
                raise _err("Arithmetic works on columns and numbers.")
        op = type(node.op)
        if op in (ast.BitAnd, ast.BitOr):
            if not all(isinstance(v, pd.Series) and v.dtype == bool or isinstance(v, bool) for v in (left, right)):
                raise _err("& and | combine conditions; put each condition in parentheses.")
            return left & right if op is ast.BitAnd else left | right
        kinds = {_kind(pd, v) for v in (left, right)}
        if op is ast.Sub and kinds <= {"date"} or op in (ast.Add, ast.Sub) and kinds == {"date", "timedelta"}:
            return left - right if op is ast.Sub else left + right
        if op is ast.Add and kinds == {"text"}:
            return left + right
        if kinds - {"number"}:
            raise _err("Arithmetic needs numbers (dates can be subtracted: today - df[\"hire_date\"]).")
        if op is ast.Pow:
            if not isinstance(right, (int, float)) or abs(right) > 10:
                raise _err("The exponent must be a number between -10 and 10.")
        ops = {ast.Add: lambda a, b: a + b, ast.Sub: lambda a, b: a - b, ast.Mult: lambda a, b: a * b,
               ast.Div: lambda a, b: a / b, ast.FloorDiv: lambda a, b: a // b, ast.Mod: lambda a, b: a % b,
               ast.Pow: lambda a, b: a ** b}
        if op not in ops:
            raise _err("Only + - * / // % ** are allowed in arithmetic.")
        if op in (ast.Div, ast.FloorDiv, ast.Mod) and isinstance(right, (int, float)) and right == 0:
            raise _err("Division by zero.")
        if op in (ast.Add, ast.Sub, ast.Mult, ast.Pow):
            # int64 wraps around silently (salary ** 10 came out negative): compute integers in floats
            # first and refuse what no int64 holds; otherwise keep the exact integer result.
            as_float = ops[op](_floats(pd, left), _floats(pd, right))
            if _too_large(pd, as_float):
                raise _err("The result is out of range (too large to compute exactly).")
        result = ops[op](left, right)
        if isinstance(result, float) and not math.isfinite(result):
            raise _err("The result is out of range.")
        return result

    def _conjunction(self, first, second):
        """Both sides of ``a & b``. Where reading ``b`` over every row is refused, it is read on the rows ``a``
        keeps (and the other way round): "my direct reports whose Status is X" reads Status on the reports
        only, which is all the combined condition can reveal."""
        try:
            return self.eval(first), self.eval(second)
        except AccessDenied as denied:
            for a, b in ((first, second), (second, first)):
                try:
                    kept = self.eval(a)
                except AccessDenied:
                    continue
                if not (isinstance(kept, self.pd.Series) and kept.dtype == bool):
                    raise denied from None
                outer = self._within
                self._within = kept.index[kept.to_numpy()]
                try:
                    other = self.eval(b)
                except AccessDenied:
                    continue
                finally:
                    self._within = outer
                if isinstance(other, self.pd.Series):
                    other = _align(other, kept.index)
                return (kept, other) if a is first else (other, kept)
            raise denied from None

    def _UnaryOp(self, node):
        operand = self.eval(node.operand)
        pd = self.pd
        if isinstance(node.op, ast.Not):
            raise _err("'not' is not supported; use ~(condition).")
        if isinstance(node.op, ast.Invert):
            if isinstance(operand, pd.Series) and operand.dtype == bool:
                return ~operand
            raise _err("~ negates a condition, e.g. ~(df[\"department\"] == \"HR\").")
        if _kind(pd, operand) != "number":
            raise _err("A sign can stand only before a number or a numeric column.")
        return -operand if isinstance(node.op, ast.USub) else operand

    def _BoolOp(self, node):
        raise _err("'and'/'or' do not work on columns; use & and | with each condition in parentheses.")


def _align(mask, index):
    """A boolean mask on ``index`` (masks built from other row sets count as False there)."""
    return mask if mask.index.equals(index) else mask.reindex(index, fill_value=False)


def _kind(pd, v) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, pd.Timestamp):
        return "date"
    if isinstance(v, pd.Timedelta):
        return "timedelta"
    if isinstance(v, pd.Series):
        if v.dtype == bool:
            return "bool"
        if pd.api.types.is_numeric_dtype(v):
            return "number"
        if pd.api.types.is_datetime64_any_dtype(v):
            return "date"
        if pd.api.types.is_timedelta64_dtype(v):
            return "timedelta"
        return "text"
    return "other"


def _compare(left, right, op):
    import operator

    fn = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
          ast.Gt: operator.gt, ast.GtE: operator.ge}[op]
    result = fn(left, right)
    if hasattr(result, "dtype") and result.dtype != bool:
        result = result.fillna(False).astype(bool)
    return result


def _plain(v):
    """numpy / pandas scalars -> plain Python values."""
    if hasattr(v, "item"):
        try:
            v = v.item()
        except (ValueError, AttributeError):
            pass
    if isinstance(v, float) and math.isnan(v):
        return None
    if hasattr(v, "isoformat") and not isinstance(v, str):
        try:
            return v.date().isoformat() if hasattr(v, "date") and v == v else None
        except (ValueError, AttributeError):
            return str(v)
    return v


MAX_BRACKETS = 20


def _check_tokens(text: str) -> None:
    """Source-level checks: ASCII names only (Python folds look-alikes such as 'ｄｆ' into 'df'), bounded nesting."""
    import io
    import tokenize

    depth = 0
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            if tok.type == tokenize.NAME and not tok.string.isascii():
                raise _err(f"The name '{tok.string}' contains non-ASCII look-alike characters.",
                           "Write names in plain ASCII, e.g. df, head, contains.")
            if tok.type == tokenize.OP and tok.string in "([{":
                depth += 1
                if depth > MAX_BRACKETS:
                    raise _err(f"The query is nested too deeply (more than {MAX_BRACKETS} brackets).")
            elif tok.type == tokenize.OP and tok.string in ")]}":
                depth -= 1
            elif tok.type == tokenize.ERRORTOKEN and not tok.string.isspace():
                raise _err(f"The query contains the character {tok.string!r}, which is not allowed.")
    except (tokenize.TokenError, SyntaxError, IndentationError):
        pass  # ast.parse reports it with a better message


def check_syntax(text: str) -> ast.Expression:
    """Parse and apply the static checks (size, depth, node types, names)."""
    if not isinstance(text, str) or not text.strip():
        raise _err("The query is empty.", "Write a pandas expression over df, e.g. len(df).")
    text = text.strip()
    if len(text) > MAX_CHARS:
        raise _err(f"The query is too long ({len(text)} characters; at most {MAX_CHARS}).")
    _check_tokens(text)
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        raise _err(f"The query is not a valid expression ({exc.msg}).",
                   "Write one pandas expression over df, e.g. df[df[\"name\"] == \"Ana Cruz\"][\"sick_leave\"].") from None
    except (ValueError, MemoryError, RecursionError):
        raise _err("The query cannot be read.") from None
    allowed = (ast.Expression, ast.Call, ast.Attribute, ast.Subscript, ast.Name, ast.Constant, ast.List, ast.Tuple,
               ast.Compare, ast.BinOp, ast.UnaryOp, ast.BoolOp, ast.keyword, ast.Load, ast.operator, ast.unaryop,
               ast.cmpop, ast.boolop, ast.Slice)
    count = 0

    def walk(node, depth):
        nonlocal count
        count += 1
        if count > MAX_NODES:
            raise _err(f"The query is too complex (more than {MAX_NODES} parts).")
        if depth > MAX_DEPTH:
            raise _err("The query is nested too deeply.")
        if not isinstance(node, allowed):
            what = {ast.Lambda: "lambda", ast.ListComp: "a comprehension", ast.GeneratorExp: "a generator",
                    ast.NamedExpr: ":=", ast.IfExp: "if/else", ast.Await: "await", ast.Dict: "a dict",
                    ast.Set: "a set", ast.JoinedStr: "an f-string", ast.Starred: "*"}.get(type(node), type(node).__name__)
            raise _err(f"{what} is not allowed in a data query.")
        if isinstance(node, ast.Name) and node.id not in ("df", "today", *BUILTINS):
            raise _err(f"Unknown name '{node.id}'.", "A query may use only df (the employee table) and today.")
        if isinstance(node, ast.Attribute) and node.attr.startswith("_"):
            raise _err("Names starting with an underscore are not allowed.")
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and "__" in node.value:
            raise _err("Text values may not contain '__'.")
        for child in ast.iter_child_nodes(node):
            walk(child, depth + 1)

    walk(tree, 0)
    return tree


_INT64_MAX = 2.0 ** 63


def _floats(pd, v):
    if isinstance(v, pd.Series) and v.dtype.kind in "iub":
        return v.astype("float64")
    import numbers

    return float(v) if isinstance(v, numbers.Integral) and not isinstance(v, bool) else v


def _too_large(pd, v) -> bool:
    import numpy as np

    if isinstance(v, pd.Series):
        values = v.to_numpy(dtype="float64", na_value=np.nan) if v.dtype.kind in "iufb" else None
        return values is not None and bool(np.any(np.abs(values[~np.isnan(values)]) >= _INT64_MAX))
    return isinstance(v, float) and (not math.isfinite(v) or abs(v) >= _INT64_MAX)


def run_query(text: str, table: EmployeeTable, viewer: Viewer, today) -> QueryResult:
    """Check and evaluate a query for ``viewer``. Raises QueryError or AccessDenied."""
    tree = check_syntax(text)
    interp = Interpreter(table, viewer, today)
    try:
        return _within_deadline(interp, tree)
    except HRAssistantError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, OverflowError, ZeroDivisionError, AttributeError,
            RecursionError) as exc:
        # One boundary: whatever pandas refuses becomes a message (the model can rephrase), never a traceback.
        reason = str(exc).split("\n")[0][:160] or type(exc).__name__
        raise _err(f"This query cannot be run on this data ({reason}).",
                   "Compare a column with a single value of its kind; sort and rank number columns only.") from None


#: How long past its deadline a query may take before it is given up (one pandas operation runs whole).
GRACE_SECONDS = 1.0


def _within_deadline(interp: "Interpreter", tree) -> QueryResult:
    """Run the query on a thread of its own and wait at most until its deadline (plus a grace): the
    deadline is checked between the query's operations, and an operation that runs past it must not
    hold the answer up. A query given up stops at its next operation."""
    import threading

    outcome: list = []

    def work() -> None:
        try:
            outcome.append((True, _run(interp, tree)))
        except BaseException as exc:  # handed to the caller's thread, which raises it
            outcome.append((False, exc))

    thread = threading.Thread(target=work, name="data-query", daemon=True)
    thread.start()
    thread.join(max(0.0, interp.deadline - time.perf_counter()) + GRACE_SECONDS)
    if not outcome:
        interp.deadline = float("-inf")  # its next step stops it
        raise _err(f"The query took longer than {MAX_SECONDS + GRACE_SECONDS:g} seconds and was given up.",
                   "Ask for fewer rows or a simpler result.")
    ok, value = outcome[0]
    if ok:
        return value
    raise value


def _run(interp: "Interpreter", tree) -> QueryResult:
    value = interp.eval(tree)
    pd = interp.pd
    if isinstance(value, _Frame):
        interp.check_frame(value.df)
        value = value.df
    elif isinstance(value, (_GroupBy, _Method, _Accessor)):
        raise _err("The query is incomplete.", "Finish it with an aggregation such as .mean() or .count(), or a call.")
    elif isinstance(value, (pd.Timestamp, pd.Timedelta)):
        value = str(value.date()) if isinstance(value, pd.Timestamp) else f"{value.days} days"
    elif not isinstance(value, (pd.Series, pd.DataFrame)):
        value = _plain(value)
    return QueryResult(value=value, notes=interp.notes, grouped=interp.grouped)
