"""Print README's answer-quality rows and the router's confusion table from ``hr-assistant eval --json`` reports.

Usage: python benchmarks/quality_table.py LABEL=REPORT.json [LABEL=REPORT.json ...]
(LABEL is the row's name, e.g. "1.5B test"). The confusion table is printed per report: expected kind
(rows) against the kind the router chose (columns), over single-part cases with a labelled kind.
"""

from __future__ import annotations

import json
import sys


def row(label: str, s: dict) -> str:
    calls_single = s.get("llm_calls_per_case", 0)
    return (f"| {label} | {s.get('single_part_accuracy', 0):.3f} ({s.get('single_part_right', '-')}) | "
            f"{s.get('multi_part_accuracy', 0):.3f} ({s.get('multi_part_right', '-')}) | "
            f"{s.get('refusal_accuracy', 0):.3f} | {s.get('answers_with_ungrounded_numbers', 0)} | "
            f"{s.get('claims_about_others', 0)} | {s.get('incomplete', 0)} | {s.get('over_call_budget', 0)} | "
            f"{calls_single:.2f} | {s.get('route_accuracy', 0):.3f} | {s.get('median_latency_s', 0):.1f} |")


def confusion(label: str, table: dict[str, dict[str, int]]) -> str:
    kinds = sorted({k for r in table.values() for k in r} | set(table))
    lines = [f"{label}: expected (rows) against routed (columns)", "",
             "| expected | " + " | ".join(kinds) + " |", "| --- |" + " --- |" * len(kinds)]
    for exp in sorted(table):
        lines.append(f"| {exp} | " + " | ".join(str(table[exp].get(k, "")) for k in kinds) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    reports = [(a.split("=", 1)[0], json.load(open(a.split("=", 1)[1], encoding="utf-8"))["summary"]) for a in argv]
    print("| model, split | single-part | multi-part | refusals | invented numbers | claims about others | "
          "step limit | over 3 calls | calls / question | route accuracy | median s |")
    print("| --- |" + " --- |" * 10)
    for label, s in reports:
        print(row(label, s))
    for label, s in reports:
        print()
        print(confusion(label, s.get("route_confusion", {})))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
