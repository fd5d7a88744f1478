"""The one result shape every action returns, and its two renderings.

The JSON form is the contract (docs/ARCHITECTURE.md): ``ok``, ``action``, ``session``,
``status``, ``exit_code``, ``output``, ``screen``, ``error``, ``hint`` always
present, more fields welcome.  The text form is exactly what the agent reads
in Agent Zero and what a human sees on the command line, so it leads with the
facts that decide the next step (status, exit code) and ends with the hint.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, TypedDict, Unpack

from .status import Status


class Extra(TypedDict, total=False):
    """The fields a result may carry beyond the fixed ones, each with its type, so that mypy holds
    every place that writes one to the contract (docs/ARCHITECTURE.md, "The contract")."""

    # what the session is and shows
    evidence: str
    program: str | None
    profile: str
    cwd: str | None
    pane: dict[str, Any] | None
    host: str | None
    where: str
    connection: str | None
    note: str
    # a question
    question: str | None
    options: list[str]
    needs_human: bool
    secret_reader: int | None
    dialog: str
    safe: bool
    answered: list[str]
    answered_by_human: str
    asked: str
    # a command and its output
    command: str
    output_file: str
    output_chars: int
    output_truncated: bool
    output_with_echo: bool
    # an AI CLI's turn
    turn: int
    answer_source: str
    record: str
    started: bool
    ended: list[str]  # what a program left running as it exited, ended by exit
    # the page, the human's hold
    paused: bool
    held_by: str
    reason: str
    # list, read
    sessions: list[dict[str, Any]]
    done: list[str]
    hosts_not_connected: list[str]
    mode: str
    lines: int | None
    size: list[int]
    cursor: list[int]
    alternate: bool


@dataclass(slots=True)
class Result:
    """The outcome of one action."""

    action: str = ""  # set by the dispatcher: whatever made the result, the action is its caller's
    ok: bool = True
    session: str | None = None
    status: Status = Status.UNKNOWN
    exit_code: int | None = None
    output: str = ""
    screen: str | None = None
    error: str | None = None
    hint: str | None = None
    extra: Extra = field(default_factory=lambda: Extra())

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of the contract (extra fields after the fixed ones)."""
        data: dict[str, Any] = {
            "ok": self.ok,
            "action": self.action,
            "session": self.session,
            "status": str(self.status),
            "exit_code": self.exit_code,
            "output": self.output,
            "screen": self.screen,
            "error": self.error,
            "hint": self.hint,
        }
        for key, value in self.extra.items():
            data.setdefault(key, value)
        return data

    def to_text(self) -> str:
        """The human/agent rendering: a header line, then output, screen, hint."""
        head = [f"status: {self.status}"]
        if self.exit_code is not None:
            head.append(f"exit code: {self.exit_code}")
        if self.session:
            head.append(f"session: {self.session}")
        for key in ("program", "cwd", "evidence"):
            value = self.extra.get(key)
            if value:
                head.append(f"{key}: {value}")
        pane = self.extra.get("pane")
        if isinstance(pane, dict):
            head.append(
                f"pane: {pane.get('id')} (window {pane.get('window')} "
                f"{pane.get('window_name', '')!r})"
            )
        parts = [("ok" if self.ok else "FAILED") + " · " + " · ".join(head)]
        if self.error:
            parts.append(f"error: {self.error}")
        question = self.extra.get("question")
        if question:
            options = self.extra.get("options") or []
            parts.append(
                f"question: {question}" + (f" (options: {', '.join(options)})" if options else "")
            )
        sessions = self.extra.get("sessions")
        if sessions:
            parts.append("\n".join(_session_row(s) for s in sessions))
        if self.output:
            parts.append(self.output)
        if self.screen is not None and not self.output:
            parts.append("--- screen ---\n" + self.screen + "\n--- end of screen ---")
        if self.extra.get("output_file"):
            parts.append(f"full output saved to {self.extra['output_file']}")
        if self.extra.get("note"):
            parts.append(f"note: {self.extra['note']}")
        if self.hint:
            parts.append(f"hint: {self.hint}")
        return "\n".join(parts)


def _session_row(s: dict[str, Any]) -> str:
    bits = [
        s.get("session", "?"),
        s.get("server", ""),
        s.get("program") or "-",
        s.get("status", "?"),
    ]
    panes = s.get("panes") or []
    if len(panes) > 1:
        bits.append(
            "panes: "
            + ", ".join(
                f"{p.get('name')} {p.get('id')} {p.get('command')}"
                + (" (the human's)" if p.get("looked_at") else "")
                for p in panes
            )
        )
    return "  ".join(str(b) for b in bits)


def failure(error: str, *, session: str | None = None, hint: str | None = None,
            status: Status = Status.ERROR, **extra: Unpack[Extra]) -> Result:
    """A failure: ``ok: false`` with a sentence saying what to do (the dispatcher names the
    action)."""
    return Result(ok=False, session=session, status=status, error=error,
                  hint=hint, extra=extra)
