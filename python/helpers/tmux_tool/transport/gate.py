"""One gate per tmux server and process: commands share it, an attaching control client takes it
alone.

tmux 3.3a (up to 3.5a) crashes when it notifies a control client that is
still introducing itself (fixed upstream in "Do not notify clients if not
fully initialized"): a session created or closed, a paste buffer set, a
client detaching - any of these in the few event-loop turns between the new
client's first message and its last brings the whole server down.  So within
a process a control client only ever attaches while no other tmux command of
that process is under way.  Another process's command at that instant is the
remaining risk, which attaching as seldom as possible keeps small.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager


class Gate:
    """Commands to one server share it; attaching a control client takes it alone.

    See the module's note: no command of this process may
    cause a notification while one of its control clients attaches.
    """

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._active = 0
        self._attaching = False

    @contextmanager
    def command(self) -> Iterator[None]:
        with self._cond:
            while self._attaching:
                self._cond.wait()
            self._active += 1
        try:
            yield
        finally:
            self.leave()

    def try_enter(self) -> bool:
        """Enter as a command if no client is attaching right now (then :meth:`leave`)."""
        with self._cond:
            if self._attaching:
                return False
            self._active += 1
            return True

    def leave(self) -> None:
        with self._cond:
            self._active -= 1
            if not self._active:
                self._cond.notify_all()

    @contextmanager
    def attaching(self) -> Iterator[None]:
        with self._cond:
            while self._attaching:
                self._cond.wait()
            self._attaching = True
            while self._active:
                self._cond.wait()
        try:
            yield
        finally:
            with self._cond:
                self._attaching = False
                self._cond.notify_all()


_gates: dict[str, Gate] = {}
_gates_lock = threading.Lock()


def gate(socket: str) -> Gate:
    """The gate of the server on ``socket`` in this process."""
    with _gates_lock:
        found = _gates.get(socket)
        if found is None:
            found = _gates[socket] = Gate()
        return found
