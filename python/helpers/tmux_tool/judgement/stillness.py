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
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from ..core.status import Status
from .state import READY_STABLE, State

ENDED = (Status.READY, Status.BLOCKED, Status.ERROR)


@dataclass(slots=True)
class Stillness:
    """Since when one screen has been shown (and judged the same way), and which screen was first."""

    first: str | None = None
    digest: str | None = None
    since: float = 0.0
    status: Status | None = None
    judged_since: float = 0.0

    def see(self, digest: str, now: float, changed_at: float | None = None, status: Status | None = None) -> None:
        """Note the screen of a look; a new screen dates from ``changed_at`` when known (else ``now``).

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


def looks(state: Callable[[], State], every: float | Callable[[], float],
          pause: Callable[[float], object] = time.sleep) -> Iterator[tuple[State, float, Stillness]]:
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
