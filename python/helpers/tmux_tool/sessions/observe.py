"""``read``, ``status`` and ``wait``: a session's state, confirmed, watched and waited for.

Each kind of session judges itself (:class:`.session.Session`); this module
holds what waiting adds to any of them: a second look before a screen-judged
``ready`` counts, and :class:`Watch`, which listens for a session's changes
(or polls it) until a condition holds, within one :class:`~..core.clock.Deadline`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import ClassVar

import regex

from ..core import trace
from ..core.clock import Deadline
from ..core.errors import BadArgs
from ..core.status import Status
from ..judgement import human, stillness
from ..judgement.state import READY_STABLE, State
from ..judgement.stillness import Stillness
from ..transport import events, listen, panes
from ..transport.target import Target
from .session import Session

POLL = 0.05  # seconds between looks while waiting on a screen
SETTLE_LOOKS = 3  # looks after a screen-judged ready, until two in a row show the same screen
DEFAULT_STABLE = 1.0


SEARCH_LIMIT = 0.1
"""Seconds one search of a screen by ``wait``'s pattern may take.  A sane pattern takes
microseconds; one that backtracks without end would hold the wait past its timeout, so it is refused
instead."""


def state_of(session: Session, *, settle: bool = False) -> State:
    """Look at ``session`` and decide its status.

    With ``settle``, a ``ready`` judged from the look of the screen (not from
    markers) is confirmed by a second look a moment later: between two
    commands of a list, a shell can sit for some milliseconds beside output
    that looks like its prompt.  A second look that is ready on another
    screen is confirmed in turn (up to :data:`SETTLE_LOOKS`): an idle program
    redraws by itself now and then.  ``wait`` has its own stability window and
    looks once per step.
    """
    st = _settled(session) if settle else session.state()
    if trace.on():
        trace.event(
            "state",
            session=session.target.name,
            status=str(st.status),
            evidence=st.evidence,
            program=st.program,
            exact=st.exact,
            needs_human=st.needs_human,
            digest=st.snap.digest if st.snap else None,
        )
    return st


def _settled(session: Session) -> State:
    """A look whose screen-judged ``ready`` is confirmed as :func:`state_of` says."""
    st = session.state()
    if not (st.status == Status.READY and not st.exact and st.snap is not None):
        return st
    for _ in range(SETTLE_LOOKS):
        time.sleep(READY_STABLE)
        again = session.state()
        if again.status != Status.READY or again.snap is None:
            break
        if again.snap.digest == st.snap.digest:
            return again
        # Ready both times, but drawn anew: an idle program redraws now and then by itself (a notice
        # that comes and goes), and a loaded machine stretches the time between two looks.  Only a
        # screen that keeps changing is still at work.
        st = again
    again.status, again.evidence = Status.BUSY, f"the screen is still changing ({again.evidence})"
    return again


def looks(
    session: Session,
    every: float | Callable[[], float] = POLL,
    pause: Callable[[float], object] = time.sleep,
) -> Iterator[tuple[State, float, Stillness]]:
    """Look at ``session`` every ``POLL`` seconds (or as ``every`` says, waiting with ``pause``) for
    as long as the caller reads on (see :func:`..judgement.stillness.looks`)."""
    return stillness.looks(lambda: state_of(session), every, pause)


@dataclass(slots=True)
class Watch:
    """What ``wait`` is waiting for on one session.

    Polled, a watch looks every ``POLL`` seconds.  Listened to (see
    :mod:`events`), it looks only when its session showed a change: once the
    burst is over (silence for :meth:`settle`) or, while output keeps coming,
    at most every ``STALE`` seconds; in between, time alone can satisfy it (a
    screen that holds still), so it is judged again without a look.  A
    ``ready`` watch looks once more ``CONFIRM`` after the last, because some
    facts a state rests on (a private shell's marker log, the foreground
    program) can trail the output that announced them; the other conditions
    are judged from the screen alone, and every change of a screen is heard,
    so a second look could only find what the first one saw.  A program the kernel
    sees at work behind an idle-looking screen is looked at again every ``STALE``
    seconds: its work ends with nothing to hear.
    """

    SETTLE: ClassVar[float] = 0.02
    SPIN_SLACK: ClassVar[float] = 0.03  # > a 10/s spinner's gap minus READY_STABLE
    STALE: ClassVar[float] = 0.5  # ready/stable: a look while output never pauses (markers, death)
    STALE_SCREEN: ClassVar[float] = 0.1  # change/pattern: the screen itself is the answer
    CONFIRM: ClassVar[float] = 0.25

    session: Session
    until: str
    pattern: regex.Pattern[str] | None
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
    # the first look's state (a secret asked for then is the human's to type)
    first: State | None = None

    @property
    def target(self) -> Target:
        return self.session.target

    @property
    def last(self) -> State:
        """The state of the last look; a watch is read only after it has looked
        (``step``, and ``wait_all`` looks at every watch at least once)."""
        if self.state is None:
            raise RuntimeError(f"the watch on {self.target.name} was read before it looked")
        return self.state

    def step(self, now: float) -> bool:
        """Look once; return True when the condition holds."""
        self.look(now)
        return self.judge(now)

    def look(self, now: float, changed_by: float | None = None) -> None:
        """Take a fresh state; a new screen dates from ``changed_by`` when known (else now)."""
        st = state_of(self.session)
        self.state = st
        self.first = st if self.first is None else self.first
        self.still.see(st.snap.digest if st.snap else "", now, changed_by, st.status)
        if st.notes.working and self.pattern is None and self.until == "ready":
            # work the screen does not show ends without a change to hear: look again
            self.confirm_at = min(self.confirm_at or math.inf, now + self.STALE)

    def judge(self, now: float) -> bool:
        """Decide from the state in hand; True when the condition holds."""
        st = self.state
        if self.done or st is None:
            return self.done
        snap = st.snap
        held = self.still.held(now)
        if self.pattern is not None:
            hit = bool(snap and _search(self.pattern, snap.text))
            reason = f"the pattern {self.pattern.pattern!r} is on the screen"
        elif self.until == "change":
            hit, reason = self.still.changed, "the screen changed"
        elif self.until == "stable":
            hit, reason = held >= self.stable_for, f"the screen has not changed for {held:.1f}s"
        else:
            # a secret asked for since before the wait is the human's to type: wait for what follows
            hit = self.still.settled(st, now) and not human.answering(st, self.first)
            reason = st.evidence
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

    def attend(self, feed: listen.Feed, now: float) -> float:
        """One round of listening: look if due, judge; return when to come back."""
        heard = feed.heard(self.target.tmux, self.target.name, now)
        if heard is None:  # not heard (no client, or it died): poll, as without events
            if now >= self.next_poll:
                self.step(now)
                self.next_poll = now + POLL
            return self.next_poll
        if self.state is None or heard.seq != self.seen:
            if self.dirty_since is None:
                self.dirty_since = now
            stale = (
                self.STALE_SCREEN
                if self.pattern is not None or self.until == "change"
                else self.STALE
            )
            look_at = min(heard.quiet_since + self.settle(), self.dirty_since + stale)
            if self.state is not None and now < look_at:
                return look_at
            self.seen, self.dirty_since = heard.seq, None
            self.confirm_at = (
                now + self.CONFIRM if self.pattern is None and self.until == "ready" else None
            )
            self.look(now, None if self.state is None else heard.quiet_since)
        elif self.confirm_at is not None and now >= self.confirm_at:
            self.confirm_at = None
            self.look(now, heard.quiet_since)
        if self.judge(now):
            return now
        times = [t for t in (self.due(), self.confirm_at) if t is not None]
        return max(min(times), now + 0.001) if times else math.inf


def _search(pattern: regex.Pattern[str], text: str) -> bool:
    try:
        return pattern.search(text, timeout=SEARCH_LIMIT) is not None
    except TimeoutError:
        raise BadArgs(f"the pattern {pattern.pattern[:60]!r} took more than {SEARCH_LIMIT:g}s to "
                      "search one screen (it backtracks without end, like (a|aa)+$); give a "
                      "simpler one") from None


def wait_all(watches: list[Watch], mode: str, deadline: Deadline) -> bool:
    """Wait until any/all watches are done or ``deadline`` passes.

    The sessions are listened to through control-mode clients (one per
    session, one reader per server) when ``events`` can attach them; a session
    that cannot be heard - events off, attach failed, client killed mid-wait -
    is polled every ``POLL`` seconds, so no wait is ever lost.
    """

    def finished() -> bool:
        return any(w.done for w in watches) if mode == "any" else all(w.done for w in watches)

    attach_within = min(events.ATTACH_TIMEOUT, max(0.05, deadline.left() / 2))
    with listen.listening(((w.target.tmux, w.target.name) for w in watches), attach_within) as feed:
        if not feed.active:
            for now in deadline.ticks(POLL):
                for w in watches:
                    if not w.done:
                        w.step(now)
                if finished():
                    return True
            return False
        with panes.served_by(feed.runners()):
            while True:
                seen = events.generation()
                wake = deadline.at
                for w in watches:
                    if not w.done:
                        wake = min(wake, w.attend(feed, time.monotonic()))
                if finished():
                    return True
                now = time.monotonic()
                if now >= deadline.at:
                    for w in watches:  # leave each with a current state, not a stale one
                        heard = feed.heard(w.target.tmux, w.target.name, now)
                        if not w.done and heard is not None and heard.seq != w.seen:
                            w.step(now)
                    return finished()
                events.wait_news(seen, wake)
