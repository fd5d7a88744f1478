"""The one stillness rule: a screen-judged end must hold still for ``READY_STABLE``.

Every "done" decision - ``wait``, the shared ``send``, a turn of an
interactive program - tracks how long the screen has been unchanged with a
:class:`Stillness` and asks :meth:`Stillness.settled`.  A state judged from
facts that need no window (a private shell's marker, a line editor that
drew its prompt and sleeps for keys) is ``exact`` and settles at once; an
``error`` too, since a dead program will not come back.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ..core.clock import Deadline
from ..core.status import Status
from ..transport.kernel import Activity
from .state import READY_STABLE, State

ENDED = (Status.READY, Status.BLOCKED, Status.ERROR)


@dataclass(slots=True)
class Stillness:
    """Since when one screen has been shown (and judged the same way), and which screen was
    first."""

    first: str | None = None
    digest: str | None = None
    since: float = 0.0
    status: Status | None = None
    judged_since: float = 0.0

    def see(
        self, digest: str, now: float, changed_at: float | None = None, status: Status | None = None
    ) -> None:
        """Note the screen of a look; a new screen dates from ``changed_at`` when known (else
        ``now``).

        ``status`` is what the look judged: the same screen can turn from
        ``busy`` to ``ready`` (keys typed into it were read at last), and an
        end counts only from the moment it was judged so.
        """
        if self.first is None:
            self.first = digest
        if digest != self.digest:
            self.digest = digest
            self.since = now if changed_at is None else min(now, changed_at)
        if status is not None and status != self.status:
            self.status, self.judged_since = status, now

    def restart(self) -> None:
        """Forget what was seen: the next look is a new screen (keys were just pressed into it)."""
        self.first = self.digest = self.status = None
        self.since = self.judged_since = 0.0

    def held(self, now: float) -> float:
        """Seconds the current screen has been unchanged."""
        return now - self.since

    def steady(self, now: float) -> float:
        """Seconds both the screen and its judgement have been unchanged."""
        return now - max(self.since, self.judged_since)

    @property
    def changed(self) -> bool:
        """Has the screen changed since the first look?"""
        return self.digest != self.first

    def settled(self, st: State, now: float, window: float = READY_STABLE) -> bool:
        """Has ``st`` ended (ready, blocked, error) and held still long enough to count?"""
        if st.status not in ENDED:
            return False
        return st.exact or st.status == Status.ERROR or self.steady(now) >= window

    def due(self, st: State, window: float = READY_STABLE) -> float | None:
        """When time alone would settle ``st`` (None: only a new look can)."""
        return max(self.since, self.judged_since) + window if st.status in ENDED else None


# of one CPU: what a program waiting for keys may ask for (a timer's tick), and count as idle
QUIET_SHARE = 0.25
QUIET_KEEP = 30.0  # seconds of samples kept: more than any window asked about


@dataclass(slots=True)
class Quiet:
    """Whether a program has been idle, by what it asked of the CPU
    (:func:`..transport.kernel.activity`).

    A screen that holds still proves nothing while the program behind it is
    still at work: a CLI draws its input box, then works out (for a second,
    or for ten on a loaded machine) that it must ask something first, and
    only then draws the question.  Its work asks for the CPU whether it gets
    it or not, so over a window in which it asked for less than
    :data:`QUIET_SHARE` of one CPU, and none of it was stopped, it only
    waited: for keys, a timer, the network.  With no samples (another host,
    a kernel that keeps no count) it is taken as quiet: the screen decides,
    as before.
    """

    samples: deque[tuple[float, Activity]] = field(default_factory=deque)

    def see(self, now: float, sample: Activity | None) -> None:
        if sample is None:
            return
        self.samples.append((now, sample))
        while len(self.samples) > 2 and self.samples[1][0] <= now - QUIET_KEEP:
            self.samples.popleft()

    def held(self, now: float, window: float) -> bool:
        """Has the program been idle for the last ``window`` seconds (as far as it was sampled)?"""
        if not self.samples:
            return True
        base = next(
            (i for i in range(len(self.samples) - 1, -1, -1) if self.samples[i][0] <= now - window),
            None,
        )
        if base is None:
            return False  # not watched for that long yet
        since = list(self.samples)[base:]
        if any(a.stopped for _, a in since):
            return False
        (t0, first), (t1, last) = since[0], since[-1]
        return last.since(first) <= QUIET_SHARE * max(t1 - t0, window)


WORK_WINDOW = 0.2  # seconds over which one look measures whether a program is at work


def at_work(sample: Callable[[], Activity | None], window: float = WORK_WINDOW) -> float | None:
    """The share of one CPU a program asked for over the next ``window`` seconds (``sample`` reads
    its :class:`~..transport.kernel.Activity`) when :class:`Quiet` does not hold it idle over that
    window; else 0.  None when the kernel does not say.  One sample of a process's state says
    little: on a loaded machine an idle CLI that wakes for a timer is often caught waiting in the
    run queue (``R``)."""
    quiet, first = Quiet(), sample()
    if first is None:
        return None
    begun = time.monotonic()
    quiet.see(begun, first)
    Deadline(window).sleep(window)
    if (last := sample()) is None:
        return None
    now = time.monotonic()
    quiet.see(now, last)
    return 0.0 if quiet.held(now, window) else last.since(first) / (now - begun)


def looks(
    state: Callable[[], State],
    every: float | Callable[[], float],
    pause: Callable[[float], object] = time.sleep,
) -> Iterator[tuple[State, float, Stillness]]:
    """Judge with ``state`` every ``every`` seconds (asked anew after each look, where it is a
    function) for as long as the caller reads on: each state, when it was seen, and how long the
    screen and its judgement have held still.  ``pause`` waits between looks (it may end early,
    when something worth a look happened).  The caller bounds it."""
    still = Stillness()
    while True:
        st = state()
        now = time.monotonic()
        still.see(st.snap.digest if st.snap else "", now, status=st.status)
        yield st, now, still
        pause(every() if callable(every) else every)
