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
from .state import State

POLL = 0.05  # seconds between looks while waiting on a screen
READY_STABLE = 0.3  # a screen-judged "ready" must hold this long
DEFAULT_STABLE = 1.0


def state_of(ctx: Context, target: Target) -> State:
    """Look at ``target`` once and decide its status."""
    if target.shared:
        return shared.state(ctx, target)
    return _private_state(ctx, target)


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
        return State("error", f"{program} exited to the shell (exit code {mark.exit_code})",
                     program, snap, facts, exit_code=mark.exit_code, cwd=mark.cwd, exact=True)
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
