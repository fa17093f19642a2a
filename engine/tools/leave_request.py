"""The leave-request tool: prepares a request; only the person's approval in the window stores it."""

from __future__ import annotations

import datetime as _dt
import math
import re

from engine.data.schema import leave_columns
from engine.errors import AccessDenied, ToolInputError
from engine.workflows.leave import Calendar, LeaveDesk, prepare
from engine.tools.base import Tool, ToolCard, ToolContext, ToolParts, ToolResult

_INPUT = re.compile(r"^(?P<type>[a-z]+) from (?P<start>\d{4}-\d{2}-\d{2}) to (?P<end>\d{4}-\d{2}-\d{2})"
                    r"(?: half-day (?P<half>start|end|both))?(?: for \"(?P<who>[^\"]{1,80})\")?$")


class LeaveRequestTool(Tool):
    """Prepares a leave request (the exact working days and the balance after); never submits it."""

    name = "leave_request"
    label = "the leave request"
    order = 40

    @classmethod
    def build(cls, parts: ToolParts) -> "LeaveRequestTool | None":
        return parts.leave_tool

    @classmethod
    def describe_call(cls, tool_input: str) -> str:
        return "Preparing the leave request"

    def __init__(self, data_tool, calendar: Calendar, desk: LeaveDesk) -> None:
        self.data = data_tool
        self.calendar = calendar
        self.desk = desk
        self.types = leave_columns(data_tool.table)

    def card(self, context: ToolContext) -> ToolCard:
        kinds = " or ".join(self.types)
        return ToolCard(
            name=self.name,
            purpose="prepare a leave request for the user (booking days off). It is NOT submitted: the user "
                    "checks and approves it in the window.",
            input_format=f"{kinds} from YYYY-MM-DD to YYYY-MM-DD, optionally 'half-day start', 'half-day end' or "
                         "'half-day both'.",
            example=f"{next(iter(self.types), 'vacation')} from 2026-07-14 to 2026-07-16",
            extra=["Work out the dates from today's date; count nothing yourself: the tool counts the working days."],
        )

    def grammar_rules(self, root: str, json_string: bool = False) -> str:
        kinds = " | ".join(f'"{k}"' for k in self.types) or '"vacation"'
        quote = "'" if json_string else '\\"'
        return "\n".join([
            f"{root} ::= ({kinds}) \" from \" {root}-date \" to \" {root}-date "
            f"(\" half-day \" (\"start\" | \"end\" | \"both\"))? (\" for {quote}\" {root}-who \"{quote}\")?",
            f'{root}-date ::= "20" [0-9] [0-9] "-" ("0" [1-9] | "1" [0-2]) "-" ("0" [1-9] | [12] [0-9] | "3" [01])',
            f"{root}-who ::= [^\\x00-\\x1f\"'\\\\]{{1,80}}",
        ])

    def run(self, tool_input: str, context: ToolContext) -> ToolResult:
        m = _INPUT.match(tool_input.strip().replace("'", '"'))
        if not m:
            raise ToolInputError("Write the request as: vacation from 2026-07-14 to 2026-07-16.",
                                 hint="Optionally add half-day start, half-day end or half-day both.")
        kind = m["type"]
        if kind not in self.types:
            raise ToolInputError(f"The employee data has no balance for {kind} leave; use {', '.join(self.types)}.")
        try:
            start, end = _dt.date.fromisoformat(m["start"]), _dt.date.fromisoformat(m["end"])
        except ValueError as exc:
            raise ToolInputError(f"That is not a date in the calendar ({exc}).") from None
        store = self.desk.store
        if store.refuses:  # a site without a store it can trust (NoSharedStore)
            raise AccessDenied(f"{store.reason} {store.hint}")
        viewer = self.data.viewer(context.user)
        row = viewer.row
        who = viewer.name
        if m["who"] and m["who"].strip().casefold() != (viewer.name or "").casefold():
            # Booking for someone else is HR's work: the access layer decides, not the model.
            if viewer.role != "hr":
                raise AccessDenied("You can prepare leave requests only for yourself.")
            name_col = self.data.table.role("name")
            matches = self.data.table.df.index[self.data.table.df[name_col].astype(str).str.casefold()
                                               == m["who"].strip().casefold()]
            if len(matches) != 1:
                raise ToolInputError(f"There is no single employee named {m['who']!r} in the data.")
            row, who = matches[0], str(self.data.table.df.at[matches[0], name_col])
        if row is None:
            raise AccessDenied("You are not in the employee data, so no leave request can be prepared for you.")
        column = self.types[kind]
        balance = self.data.table.df.at[row, column]
        if balance is None or (isinstance(balance, float) and math.isnan(balance)):
            raise ToolInputError(f"The employee data has no {column.replace('_', ' ')} for {who}.")
        half = m["half"] or ""
        try:
            request = prepare(who, kind, column, float(balance), start, end, self.calendar,
                              half_start=half in ("start", "both"), half_end=half in ("end", "both"),
                              account=context.account)
        except ValueError as exc:
            raise ToolInputError(str(exc)) from None
        self.desk.hold(request, context)
        text = ("Prepared, NOT submitted: " + request.summary() +
                " The user must approve it in the request card before anything is sent.")
        return ToolResult(text=text, data=request.to_dict(), kind="leave_request")
