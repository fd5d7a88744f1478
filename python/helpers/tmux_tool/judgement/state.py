"""A session's status with the evidence that decided it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Unpack

from ..core.result import Extra, Result
from ..core.status import Status
from ..screen.snapshot import Snapshot
from ..transport.panes import PaneFacts

READY_STABLE = 0.08
"""Seconds a screen-judged "ready" must hold still to count (markers need none)."""


@dataclass(frozen=True, slots=True)
class Notes:
    """What a look at the human's terminal saw beside the status: who has the line, what is on it,
    and what the look teaches (read by the guard before typing, written by the judge after)."""

    # the program in front was started by "agent" or "human" ("" when a shell is in front)
    owner: str = ""
    human_text: str = ""  # what someone else typed on the input line, not submitted
    in_program: bool = False  # human_text is on a program's input line, not at the shell's prompt
    copy_mode: bool = False  # the human is scrolling in copy mode
    leftover: bool = False  # our own unsent text is at the prompt
    continuation: bool = False  # the shell waits for the rest of a command
    reading: bool = False  # the program in front sleeps on the terminal: it takes keys now
    prompt: str = ""  # the prompt at the cursor line, as drawn
    before: str = ""  # the part of the prompt's row drawn before the learned prompt
    learn: tuple[int, str] | None = None  # a prompt to learn: (shell pid, its pattern)
    back: bool = False  # our pending command's prompt is back
    pending: bool = False  # our command still runs (after the look's records were written)
    delivered: bool = False  # this look recorded our command's output as given
    # the kernel sees the program at work behind a screen that looks idle: the screen will not
    # tell when the work ends, so only another look does
    working: bool = False


@dataclass(slots=True)
class State:
    """What ``status`` reports and ``wait`` waits on.

    ``exact`` marks a judgement made from the shell's own markers rather than
    from how the screen looks; such a judgement needs no stability window.
    ``secret_reader``: the terminal waits for a secret (the kernel says this
    process reads a line with the echo off); the human types it, never the agent.
    """

    status: Status
    evidence: str
    program: str | None = None
    snap: Snapshot | None = None
    facts: PaneFacts | None = None
    question: str | None = None
    options: tuple[str, ...] = ()
    exit_code: int | None = None
    cwd: str | None = None
    exact: bool = False
    notes: Notes = field(default_factory=Notes)
    # the process that reads a secret from the terminal (0: none; -1: not known)
    secret_reader: int = 0

    @property
    def needs_human(self) -> bool:
        """A secret is asked for: only the human types it."""
        return self.secret_reader != 0


def pane_info(facts: PaneFacts | None) -> dict[str, Any] | None:
    """The pane a result concerns, as the human sees it: its id, its window's index and name, its
    index."""
    if facts is None or not facts.pane_id:
        return None
    return {
        "id": facts.pane_id,
        "window": facts.window,
        "window_name": facts.window_name,
        "index": facts.index,
    }


def reported(
    st: State,
    session: str,
    *,
    ok: bool = True,
    output: str = "",
    error: str | None = None,
    hint: str | None = None,
    exit_code: int | None = None,
    in_pane: bool = False,
    **extra: Unpack[Extra],
) -> Result:
    """The one result that reports a session's state: its status with the evidence, the program, the
    question and its options, the cwd, the screen, and (``in_pane``, in the shared session) which
    pane."""
    data = Extra(evidence=st.evidence, program=st.program)
    if st.question:
        data["question"], data["options"] = st.question, list(st.options)
    if st.needs_human:
        data["needs_human"], data["secret_reader"] = True, st.secret_reader
    if st.cwd:
        data["cwd"] = st.cwd
    if in_pane and (where := pane_info(st.facts)):
        data["pane"] = where
    data.update(extra)
    return Result(ok=ok, session=session, status=st.status, exit_code=exit_code, output=output,
                  screen=st.snap.text if st.snap else None, error=error, hint=hint, extra=data)
