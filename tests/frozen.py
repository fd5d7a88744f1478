"""A process held still without its parent or tmux knowing: a ptrace stop.

A SIGSTOP will not do: a shell reports its stopped job and takes the
terminal back, and tmux sends a stopped pane process SIGCONT at once.  A
ptrace stop is told only to the tracer, so the process keeps its terminal,
reads nothing and draws nothing until it is let go.
"""

from __future__ import annotations

import ctypes
import os
import threading
from typing import Self


class Frozen:
    """Every thread of a process held in a ptrace stop, so its screen stays as it is and what is
    typed to it stays unread.  ptrace belongs to the thread that attached, so one thread holds the
    process and lets it go."""

    SEIZE, INTERRUPT, DETACH = 0x4206, 0x4207, 17

    def __init__(self, pid: int) -> None:
        self.pid, self.held, self.release = pid, threading.Event(), threading.Event()
        self.errors: list[str] = []
        self.thread = threading.Thread(target=self._hold, daemon=True)

    def _hold(self) -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.ptrace.argtypes = [ctypes.c_long, ctypes.c_long, ctypes.c_void_p, ctypes.c_void_p]
        tids = [int(t) for t in os.listdir(f"/proc/{self.pid}/task")]
        seized = []
        for tid in tids:
            if libc.ptrace(self.SEIZE, tid, None, None) == 0 and libc.ptrace(self.INTERRUPT, tid, None, None) == 0:
                seized.append(tid)
            else:
                self.errors.append(f"thread {tid}: {os.strerror(ctypes.get_errno())}")
        for tid in seized:
            os.waitpid(tid, 0x40000000)  # __WALL: its stop is reached
        self.held.set()
        self.release.wait(60)
        for tid in seized:
            libc.ptrace(self.DETACH, tid, None, None)

    def __enter__(self) -> Self:
        self.thread.start()
        self.held.wait(10)
        return self

    def __exit__(self, *_: object) -> None:
        self.release.set()
        self.thread.join(10)
