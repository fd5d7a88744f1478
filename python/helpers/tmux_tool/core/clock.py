"""The one way to wait: a deadline, and short bounded steps until it passes.

Every wait of the tool (a look every few milliseconds, a select on a pipe,
an event that may not come) is bounded by a :class:`Deadline`.  The call's
own deadline is made once, by the dispatcher from the action's ``timeout``,
and carried down to every step, so a timeout holds however many steps,
retries or helpers the call goes through: each takes what is left, never a
fresh allowance of its own.  Where a step must have a time of its own
whatever the call's budget (the shell taking a command it was just given, a
tmux prompt that comes and goes), it says so by name:
:meth:`Deadline.at_least`.
"""

from __future__ import annotations

import time
from collections.abc import Iterator


class Deadline:
    """A moment on the monotonic clock by which a call answers."""

    __slots__ = ("at", "seconds")

    def __init__(self, seconds: float) -> None:
        self.seconds = max(0.0, seconds)  # what the call was given: its answer says so
        self.at = time.monotonic() + self.seconds

    def at_least(self, seconds: float) -> Deadline:
        """This deadline, or ``seconds`` from now if that is later: the floor of a step that must
        have that long whatever is left of the call's time."""
        later = Deadline(seconds)
        if later.at < self.at:
            later.at, later.seconds = self.at, self.seconds
        return later

    def left(self) -> float:
        """Seconds until the deadline, never negative."""
        return max(0.0, self.at - time.monotonic())

    @property
    def passed(self) -> bool:
        return time.monotonic() >= self.at

    def sleep(self, step: float) -> None:
        """Sleep ``step`` seconds, or until the deadline if that comes first."""
        time.sleep(min(step, self.left()))

    def ticks(self, every: float) -> Iterator[float]:
        """The monotonic time of each step, ``every`` seconds apart: the first at once, the last at
        or after the deadline (so a caller always looks once more before it gives up)."""
        while True:
            now = time.monotonic()
            yield now
            if now >= self.at:
                return
            self.sleep(every)
