"""``read``, ``status`` and ``wait``: what a session shows and what state it is in.

Private sessions are judged from facts first: the shell's own markers say
whether a command (or a started program) is still running and how it ended;
the screen is consulted only to tell *how* it is running (asking a question,
a REPL prompt, an AI CLI's spinner).  The shared session has no markers and is
judged by :mod:`shared` from the screen and tmux's own facts.  ``wait`` polls
these judgements with short bounded steps until the condition holds.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from . import markers, panes, programs, shared
from .context import Context, Target
from .panes import PaneFacts
from .scratch import load_record
from .screen.snapshot import Snapshot
from .state import READY_STABLE, State

POLL = 0.05  # seconds between looks while waiting on a screen
DEFAULT_STABLE = 1.0


def state_of(ctx: Context, target: Target, *, settle: bool = False) -> State:
    """Look at ``target`` and decide its status.

    With ``settle``, a ``ready`` judged from the look of the screen (not from
    markers) is confirmed by a second look a moment later: between two
    commands of a list, a shell can sit for some milliseconds beside output
    that looks like its prompt.  ``wait`` has its own stability window and
    looks once per step.
    """
    st = shared.state(ctx, target) if target.shared else _private_state(ctx, target)
    if settle and st.status == "ready" and not st.exact and st.snap is not None:
        time.sleep(READY_STABLE)
        again = shared.state(ctx, target) if target.shared else _private_state(ctx, target)
        if again.status != "ready" or again.snap is None or again.snap.digest != st.snap.digest:
            again.status, again.evidence = "busy", f"the screen is still changing ({again.evidence})"
        return again
    return st


def _private_state(ctx: Context, target: Target) -> State:
    srv = ctx.private
    shell = srv.shell(target.name)
    snap, facts = panes.look(target.tmux, target.pane)
    program = shell.program if shell else None
    if facts.dead:
        return State("error", "the pane's process has ended", program, snap, facts)
    mark = markers.last_mark(shell.log_path, shell.nonce) if shell else None
    if shell is None or mark is None:
        verdict = programs.detect(snap, program=program)
        return _from_verdict(verdict, snap, facts)
    running = mark.kind == "S"
    if program in (None, "bash"):
        if not running:
            return State("ready", f"the shell's prompt is back (last exit code {mark.exit_code})",
                         "bash", snap, facts, exit_code=mark.exit_code, cwd=mark.cwd, exact=True)
        # Something runs at the shell; the screen tells whether it is a program
        # waiting at its own prompt (a REPL started by send) or asking a question.
        verdict = programs.detect(snap, program=None)
        if verdict.status == "blocked" or (
            verdict.status == "ready" and verdict.program not in (None, "bash")
        ):
            return _from_verdict(verdict, snap, facts)
        rec = load_record(srv, target.name)
        what = f"`{rec.command}` for {time.time() - rec.started:.0f}s" if rec else f"{facts.command}"
        return State("busy", f"a command is still running: {what}", facts.command or "bash", snap,
                     facts, exact=True)
    if not running:
        # DESIGN: a started program that ended with an error or a crash is "error";
        # a clean exit leaves the shell's own state.  The exit code is exact.
        status = "error" if mark.exit_code else "ready"
        return State(status, f"{program} exited to the shell (exit code {mark.exit_code})",
                     "bash", snap, facts, exit_code=mark.exit_code, cwd=mark.cwd, exact=True)
    return _from_verdict(programs.detect(snap, program=program), snap, facts)


def _from_verdict(verdict: programs.Verdict, snap: Snapshot, facts: PaneFacts) -> State:
    return State(verdict.status, verdict.evidence, verdict.program, snap, facts,
                 question=verdict.question, options=tuple(verdict.options))


@dataclass(slots=True)
class Watch:
    """What ``wait`` is waiting for on one session."""

    target: Target
    until: str
    pattern: re.Pattern[str] | None
    stable_for: float
    first_digest: str | None = None
    since: float = 0.0
    last_digest: str | None = None
    state: State | None = None
    done: bool = False
    reason: str = ""

    def step(self, ctx: Context, now: float) -> bool:
        """Look once; return True when the condition holds."""
        st = state_of(ctx, self.target)
        self.state = st
        snap = st.snap
        digest = snap.digest if snap else ""
        if self.first_digest is None:
            self.first_digest = digest
        if digest != self.last_digest:
            self.last_digest, self.since = digest, now
        held = now - self.since
        if self.pattern is not None:
            hit = bool(snap and self.pattern.search(snap.text))
            reason = f"the pattern {self.pattern.pattern!r} is on the screen"
        elif self.until == "change":
            hit, reason = digest != self.first_digest, "the screen changed"
        elif self.until == "stable":
            hit, reason = held >= self.stable_for, f"the screen has not changed for {held:.1f}s"
        else:
            settled = st.exact or st.status == "error" or held >= READY_STABLE
            hit, reason = st.status in ("ready", "blocked", "error") and settled, st.evidence
        if hit:
            self.done, self.reason = True, reason
        return self.done


def wait_all(ctx: Context, watches: list[Watch], mode: str, timeout: float) -> bool:
    """Poll until any/all watches are done or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while True:
        now = time.monotonic()
        for w in watches:
            if not w.done:
                w.step(ctx, now)
        finished = [w.done for w in watches]
        if (any(finished) if mode == "any" else all(finished)):
            return True
        if now >= deadline:
            return False
        time.sleep(min(POLL, max(0.0, deadline - now)))
