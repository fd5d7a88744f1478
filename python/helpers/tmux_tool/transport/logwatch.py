"""Wake up when a pane log grows: inotify where there is one, short polls elsewhere.

A private shell's markers land in its pane log (``pipe-pane``), so the log is
both the record of a run and the event that it ended.  Watching the file
with the kernel's inotify costs no process and no signal from the shell: the
waiting thread sleeps until the log is written, then reads what is new.
Where inotify is missing (not Linux) or refused (the per-user limit of
instances is reached), the wait becomes a poll with short growing steps.

Each thread keeps one inotify instance for its life and adds a watch for
each wait: closing an instance that ever held a watch makes the kernel wait
for a grace period (milliseconds), while adding and removing a watch costs
microseconds.  A thread's first wait polls for its first ``POLL_PHASE``
seconds before it sets up inotify (loading ``ctypes`` costs milliseconds), so
a command-line call whose command ends at once never pays for it.
"""

from __future__ import annotations

import os
import select
import threading
import time
from typing import Any, Self

_IN_MODIFY, _IN_ATTRIB, _IN_MOVE_SELF, _IN_DELETE_SELF = 0x2, 0x4, 0x800, 0x400
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, 0o2000000
_MASK = _IN_MODIFY | _IN_ATTRIB | _IN_MOVE_SELF | _IN_DELETE_SELF
SWITCH = "TMUX_TOOL_INOTIFY"
"""Set to ``off`` to poll pane logs instead of watching them (the fallback elsewhere)."""
_POLL_FIRST, _POLL_MAX = 0.00025, 0.02
POLL_PHASE = 0.05

_libc: Any = None
_local = threading.local()


def _inotify() -> Any:
    """The C library's inotify calls, or False where there are none."""
    global _libc
    if _libc is None:
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            _libc = libc if hasattr(libc, "inotify_init1") else False
        except (OSError, AttributeError):
            _libc = False
    return _libc


class _Instance:
    """This thread's inotify descriptor, closed when the thread ends."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.owner = os.getpid()

    def __del__(self) -> None:
        if self.owner == os.getpid():
            os.close(self.fd)


def _instance(create: bool) -> _Instance | None:
    """This thread's inotify instance (made now if ``create``), or None where there is none to be
    had."""
    if os.environ.get(SWITCH, "").strip().lower() in ("off", "0", "no", "false"):
        return None
    inst: _Instance | None = getattr(_local, "inst", None)
    if inst is not None and inst.owner == os.getpid():
        return inst
    libc = _inotify() if create else None
    if not libc:
        return None
    fd = libc.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
    if fd < 0:
        return None
    _local.inst = inst = _Instance(fd)
    return inst


class LogWatch:
    """Wait for changes to one file (use as a context manager, in one thread)."""

    def __init__(self, path: os.PathLike[str] | str) -> None:
        self._path = path
        self._wd = -1
        self._step = _POLL_FIRST
        self._inst = _instance(create=False)
        self._poll_until = 0.0 if self._inst is not None else time.monotonic() + POLL_PHASE
        if self._inst is not None:
            self._watch()

    def _watch(self) -> None:
        assert self._inst is not None
        self._wd = _libc.inotify_add_watch(self._inst.fd, os.fsencode(self._path), _MASK)

    def wait(self, timeout: float) -> bool:
        """Sleep until the file changes, or at most ``timeout``; False if nothing happened.

        Polling, every step counts as a possible change.
        """
        timeout = max(0.0, timeout)
        if self._wd < 0 and self._inst is None and time.monotonic() >= self._poll_until:
            self._inst = _instance(create=True)
            if self._inst is not None:
                self._watch()
                return True  # the file may have changed before the watch was set: look again
        if self._wd < 0:
            step = min(self._step, timeout)
            time.sleep(step)
            self._step = min(self._step * 2, _POLL_MAX)
            return step > 0
        assert self._inst is not None
        if not select.select([self._inst.fd], [], [], timeout)[0]:
            return False
        self._drain()
        return True

    def _drain(self) -> None:
        assert self._inst is not None
        try:
            while os.read(self._inst.fd, 4096):
                pass
        except BlockingIOError:
            pass

    def close(self) -> None:
        if self._wd >= 0 and self._inst is not None:
            _libc.inotify_rm_watch(self._inst.fd, self._wd)
            self._drain()  # events of this watch must not wake the thread's next wait
            self._wd = -1

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
