"""Employee data: load time of a 10,000-row CSV and latency of typical queries.

Baselines measured in the same run: ``pandas.read_csv`` of the same file (no type
or role inference) and the same queries as plain pandas code (no validation, no
access control). Targets: load <= 0.5 s; validation plus evaluation p95 <= 5 ms.
Usage: python benchmarks/bench_query.py [--rows 10000]
"""

from __future__ import annotations

import argparse
import csv
import platform
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.data.access import make_viewer  # noqa: E402
from engine.data.employees import load_employees  # noqa: E402
from engine.data.query import run_query  # noqa: E402

QUERIES = [
    ('df[df["full_name"] == "Employee 42"]["sick_days_remaining"]',
     lambda df: df[df["full_name"] == "Employee 42"]["sick_days_remaining"]),
    ('df.groupby("department")["annual_salary_usd"].mean()',
     lambda df: df.groupby("department")["annual_salary_usd"].mean()),
    ('len(df[(df["department"] == "Sales") & (df["vacation_days_remaining"] > 10)])',
     lambda df: len(df[(df["department"] == "Sales") & (df["vacation_days_remaining"] > 10)])),
    ('df.sort_values(by="annual_salary_usd", ascending=False).head(5)',
     lambda df: df.sort_values(by="annual_salary_usd", ascending=False).head(5)),
    ('df["department"].value_counts()', lambda df: df["department"].value_counts()),
    ('len(df[df["full_name"].str.contains("ee 99")])',
     lambda df: len(df[df["full_name"].str.contains("ee 99", case=False, regex=False)])),
    ('((today - df[df["full_name"] == "Employee 7"]["hire_date"]).dt.days / 365.25).round(1)', None),
]


def write_csv(path: Path, rows: int) -> None:
    rng = random.Random(0)
    depts = ["Sales", "Finance", "Operations", "Engineering", "Human Resources", "Legal", "Marketing"]
    with path.open("w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["employee_id", "full_name", "department", "manager", "hire_date", "annual_salary_usd",
                    "vacation_days_remaining", "sick_days_remaining"])
        for i in range(rows):
            mgr = "" if i < 10 else f"Employee {rng.randrange(0, 10)}"
            w.writerow([f"E{i:05d}", f"Employee {i}", rng.choice(depts), mgr,
                        f"{rng.randrange(2000, 2026)}-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
                        f"${rng.randrange(30000, 250000):,}", rng.randrange(0, 31), round(rng.random() * 15, 1)])


def pct(values, p):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=10_000)
    ap.add_argument("--repeats", type=int, default=200)
    args = ap.parse_args()
    import pandas as pd

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "employees.csv"
        write_csv(path, args.rows)
        pd.read_csv(path)  # warm the file cache
        loads, base_loads = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            table = load_employees(path)
            loads.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            pd.read_csv(path)
            base_loads.append(time.perf_counter() - t0)
    viewer = make_viewer(table, "Employee 0")  # the HR check fails, so make the viewer HR by role below
    viewer = type(viewer)(name="HR", row=None, role="hr", visible_rows=frozenset(table.df.index), reports=[],
                          public_columns=viewer.public_columns, hr_only_columns=frozenset())
    print(f"machine: {platform.machine()} {platform.system()}, Python {platform.python_version()}, "
          f"pandas {pd.__version__}; {args.rows:,} rows")
    print(f"load CSV with type and role inference: median {statistics.median(loads) * 1000:.0f} ms "
          f"(pandas.read_csv alone: {statistics.median(base_loads) * 1000:.0f} ms, ratio "
          f"{statistics.median(loads) / statistics.median(base_loads):.1f}x); target <= 500 ms: "
          f"{'met' if statistics.median(loads) <= 0.5 else 'NOT met'}")
    all_times = []
    print(f"{'query':<86}{'p50 ms':>8}{'p95 ms':>8}{'pandas p50':>11}")
    for text, plain in QUERIES:
        times, base = [], []
        for _ in range(args.repeats):
            t0 = time.perf_counter()
            run_query(text, table, viewer, "2026-11-22")
            times.append((time.perf_counter() - t0) * 1000)
            if plain is not None:
                t0 = time.perf_counter()
                plain(table.df)
                base.append((time.perf_counter() - t0) * 1000)
        all_times += times
        b = f"{statistics.median(base):>11.2f}" if base else f"{'-':>11}"
        print(f"{text[:85]:<86}{statistics.median(times):>8.2f}{pct(times, 95):>8.2f}{b}")
    p95 = pct(all_times, 95)
    print(f"all queries: p50 {statistics.median(all_times):.2f} ms, p95 {p95:.2f} ms; target p95 <= 5 ms: "
          f"{'met' if p95 <= 5 else 'NOT met'}")


if __name__ == "__main__":
    main()
