"""``read``, ``status`` and ``wait``: what a session shows and what state it is in.

Private sessions are judged from facts first: the shell's own markers say
whether a command (or a started program) is still running and how it ended;
the screen is consulted only to tell *how* it is running (asking a question,
a REPL prompt, an AI CLI's spinner), and a screen that looks ready or blocked
is ``busy`` while the program has not read the keys typed into its terminal
(the kernel's count of unread input): what it shows predates them.  The
shared session has no markers and is judged by :mod:`shared` from the screen
and tmux's own facts.  ``wait`` polls these judgements with short bounded
steps until the condition holds.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import ClassVar

from .. import programs
from ..core.status import Status
from ..judgement.state import READY_STABLE, State
from ..judgement.stillness import Stillness
from ..private import markers
from ..private.runs import load_record, running_record
from ..screen.snapshot import Snapshot
from ..shared import send
from ..transport import events, kernel, listen, panes
from ..transport.panes import PaneFacts
from .context import Context, Target

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
    st = send.state(target) if target.shared else _private_state(ctx, target)
    if settle and st.status == Status.READY and not st.exact and st.snap is not None:
        time.sleep(READY_STABLE)
        again = send.state(target) if target.shared else _private_state(ctx, target)
        if again.status != Status.READY or again.snap is None or again.snap.digest != st.snap.digest:
            again.status, again.evidence = Status.BUSY, f"the screen is still changing ({again.evidence})"
        return again
    return st


def looks(ctx: Context, target: Target) -> Iterator[tuple[State, float, Stillness]]:
    """Look at ``target`` every ``POLL`` seconds for as long as the caller reads on: each state,
    when it was seen, and how long the screen and its judgement have held still."""
    still = Stillness()
    while True:
        st = state_of(ctx, target)
        now = time.monotonic()
        still.see(st.snap.digest if st.snap else "", now, status=st.status)
        yield st, now, still
        time.sleep(POLL)


def _private_state(ctx: Context, target: Target) -> State:
    st = _judged(ctx, target)
    if st.exact or st.status not in (Status.READY, Status.BLOCKED) or st.facts is None:
        return st
    # Keys typed into the terminal that the program has not read yet (a key that answers
    # a dialog, say) will change what it shows: the screen is out of date until it reads them.
    unread = kernel.unread(st.facts.tty)
    if unread:
        st.status, st.evidence = Status.BUSY, (f"{st.program or 'the program'} has not read the {unread} byte(s) "
                                          f"typed into its terminal yet (the screen showed: {st.evidence})")
        st.question, st.options = None, ()
    return st


def _judged(ctx: Context, target: Target) -> State:
    srv = ctx.private
    shell = srv.shell(target.name)
    snap, facts = panes.look(target.tmux, target.pane)
    program = shell.program if shell else None
    if facts.dead:
        return State(Status.ERROR, "the pane's process has ended", program, snap, facts)
    mark = markers.last_mark(shell.log_path, shell.nonce) if shell else None
    if shell is None or mark is None:
        verdict = programs.detect(snap, program=program)
        return _from_verdict(verdict, snap, facts)
    rec = load_record(srv, target.name)
    if rec is not None and mark.start < rec.offset:
        # Our last line is typed but the shell has not started it: the marks are all older.
        return State(Status.BUSY, f"the shell has not started `{rec.command}` yet", facts.command or "bash",
                     snap, facts, exact=True)
    running = mark.kind == "S"
    if program is None:
        if not running:
            return State(Status.READY, f"the shell's prompt is back (last exit code {mark.exit_code})",
                         "bash", snap, facts, exit_code=mark.exit_code, cwd=mark.cwd, exact=True)
        # Something runs at the shell; the screen tells whether it is a program
        # waiting at its own prompt (a REPL started by send) or asking a question.
        verdict = programs.detect(_at_work(snap, facts), program=None)
        if verdict.status == Status.BLOCKED or (
            verdict.status == Status.READY and verdict.program not in (None, "bash")
        ):
            return _from_verdict(verdict, snap, facts)
        rec = running_record(srv, target.name, mark)
        what = f"`{rec.command}` for {time.time() - rec.started:.0f}s" if rec.command else f"{facts.command}"
        return State(Status.BUSY, f"a command is still running: {what}", facts.command or "bash", snap,
                     facts, exact=True)
    if not running:
        # The contract: a started program that ended with an error or a crash is "error";
        # a clean exit leaves the shell's own state.  The exit code is exact.
        status = Status.ERROR if mark.exit_code else Status.READY
        return State(status, f"{program} exited to the shell (exit code {mark.exit_code})",
                     "bash", snap, facts, exit_code=mark.exit_code, cwd=mark.cwd, exact=True)
    return _from_verdict(programs.detect(snap, program=program), snap, facts)


def _at_work(snap: Snapshot, facts: PaneFacts) -> Snapshot:
    """The screen named after the process at work: tmux names the foreground group's leader, which
    may only wait for a child of its group (git for the editor of ``git merge``)."""
    term = kernel.look(facts.pid, facts.tty)
    if term.known and term.front and term.leader and term.front.pid != term.leader.pid:
        return replace(snap, program=term.front.comm)
    return snap


def _from_verdict(verdict: programs.Verdict, snap: Snapshot, facts: PaneFacts) -> State:
    return State(verdict.status, verdict.evidence, verdict.program, snap, facts,
                 question=verdict.question, options=tuple(verdict.options))


@dataclass(slots=True)
class Watch:
    """What ``wait`` is waiting for on one session.

    Polled, a watch looks every ``POLL`` seconds.  Listened to (see
    :mod:`events`), it looks only when its session showed a change: once the
    burst is over (silence for :meth:`settle`) or, while output keeps coming,
    at most every ``STALE`` seconds; in between, time alone can satisfy it (a
    screen that holds still), so it is judged again without a look.  One
    more look follows ``CONFIRM`` after the last, because some facts a state
    rests on (a private shell's marker log, the foreground program) can trail
    the output that announced them.
    """

    SETTLE: ClassVar[float] = 0.02
    SPIN_SLACK: ClassVar[float] = 0.03  # > a 10/s spinner's gap minus READY_STABLE
    STALE: ClassVar[float] = 0.5  # ready/stable: a look while output never pauses (markers, death)
    STALE_SCREEN: ClassVar[float] = 0.1  # change/pattern: the screen itself is the answer
    CONFIRM: ClassVar[float] = 0.25

    target: Target
    until: str
    pattern: re.Pattern[str] | None
    stable_for: float
    still: Stillness = field(default_factory=Stillness)
    state: State | None = None
    done: bool = False
    reason: str = ""
    done_at: float | None = None  # monotonic time the condition was found to hold
    seen: int = -1  # the session's activity count at the last look (listening)
    dirty_since: float | None = None
    confirm_at: float | None = None
    next_poll: float = 0.0

    @property
    def last(self) -> State:
        """The state of the last look; a watch is read only after it has looked
        (``step``, and ``wait_all`` looks at every watch at least once)."""
        if self.state is None:
            raise RuntimeError(f"the watch on {self.target.name} was read before it looked")
        return self.state

    def step(self, ctx: Context, now: float) -> bool:
        """Look once; return True when the condition holds."""
        self.look(ctx, now)
        return self.judge(now)

    def look(self, ctx: Context, now: float, changed_by: float | None = None) -> None:
        """Take a fresh state; a new screen dates from ``changed_by`` when known (else now)."""
        st = state_of(ctx, self.target)
        self.state = st
        self.still.see(st.snap.digest if st.snap else "", now, changed_by, st.status)

    def judge(self, now: float) -> bool:
        """Decide from the state in hand; True when the condition holds."""
        st = self.state
        if self.done or st is None:
            return self.done
        snap = st.snap
        held = self.still.held(now)
        if self.pattern is not None:
            hit = bool(snap and self.pattern.search(snap.text))
            reason = f"the pattern {self.pattern.pattern!r} is on the screen"
        elif self.until == "change":
            hit, reason = self.still.changed, "the screen changed"
        elif self.until == "stable":
            hit, reason = held >= self.stable_for, f"the screen has not changed for {held:.1f}s"
        else:
            hit, reason = self.still.settled(st, now), st.evidence
        if hit:
            self.done, self.reason, self.done_at = True, reason, now
        return self.done

    def due(self) -> float | None:
        """When time alone could satisfy the watch without a new look (None: never)."""
        if self.pattern is not None or self.until == "change" or self.state is None:
            return None
        if self.until == "stable":
            return self.still.since + self.stable_for
        return self.still.due(self.state)

    def settle(self) -> float:
        """How long the session must be silent before a look can tell something new.

        A screen-judged "ready" needs ``READY_STABLE`` of stillness anyway, so
        looking sooner is wasted; after a look that found the screen busy, a
        little longer still, so a spinner's frames (about ten a second) are one
        burst instead of ten looks a second.  Markers and screens (change,
        pattern) answer at once: look as soon as the burst is over.
        """
        st = self.state
        if self.pattern is not None or self.until != "ready" or st is None or st.exact:
            return self.SETTLE
        busy = st.status not in (Status.READY, Status.BLOCKED, Status.ERROR)
        return READY_STABLE + (self.SPIN_SLACK if busy else 0.0)

    def attend(self, ctx: Context, feed: listen.Feed, now: float) -> float:
        """One round of listening: look if due, judge; return when to come back."""
        heard = feed.heard(self.target.tmux, self.target.name, now)
        if heard is None:  # not heard (no client, or it died): poll, as without events
            if now >= self.next_poll:
                self.step(ctx, now)
                self.next_poll = now + POLL
            return self.next_poll
        if self.state is None or heard.seq != self.seen:
            if self.dirty_since is None:
                self.dirty_since = now
            stale = self.STALE_SCREEN if self.pattern is not None or self.until == "change" else self.STALE
            look_at = min(heard.quiet_since + self.settle(), self.dirty_since + stale)
            if self.state is not None and now < look_at:
                return look_at
            self.seen, self.dirty_since, self.confirm_at = heard.seq, None, now + self.CONFIRM
            self.look(ctx, now, None if self.state is None else heard.quiet_since)
        elif self.confirm_at is not None and now >= self.confirm_at:
            self.confirm_at = None
            self.look(ctx, now, heard.quiet_since)
        if self.judge(now):
            return now
        times = [t for t in (self.due(), self.confirm_at) if t is not None]
        return max(min(times), now + 0.001) if times else math.inf


def wait_all(ctx: Context, watches: list[Watch], mode: str, timeout: float) -> bool:
    """Wait until any/all watches are done or ``timeout`` passes.

    The sessions are listened to through control-mode clients (one per
    session, one reader per server) when ``events`` can attach them; a session
    that cannot be heard - events off, attach failed, client killed mid-wait -
    is polled every ``POLL`` seconds, so no wait is ever lost.
    """
    deadline = time.monotonic() + timeout

    def finished() -> bool:
        return any(w.done for w in watches) if mode == "any" else all(w.done for w in watches)

    attach_within = min(events.ATTACH_TIMEOUT, max(0.05, timeout / 2))
    with listen.listening(((w.target.tmux, w.target.name) for w in watches), attach_within) as feed:
        if not feed.active:
            while True:
                now = time.monotonic()
                for w in watches:
                    if not w.done:
                        w.step(ctx, now)
                if finished():
                    return True
                if now >= deadline:
                    return False
                time.sleep(min(POLL, max(0.0, deadline - now)))
        with panes.served_by(feed.runners()):
            while True:
                seen = events.generation()
                wake = deadline
                for w in watches:
                    if not w.done:
                        wake = min(wake, w.attend(ctx, feed, time.monotonic()))
                if finished():
                    return True
                now = time.monotonic()
                if now >= deadline:
                    for w in watches:  # leave each with a current state, not a stale one
                        heard = feed.heard(w.target.tmux, w.target.name, now)
                        if not w.done and heard is not None and heard.seq != w.seen:
                            w.step(ctx, now)
                    return finished()
                events.wait_news(seen, wake)
