"""One read-only control client watching one session: pane output as events.

Why: ``wait`` used to capture every watched pane every 50 ms - one tmux
process (3-4 ms) per look, even for a pane that showed nothing new.  A
control-mode client (``tmux -C``) is told by the server the moment a pane
writes (``%output``), so a silent pane costs nothing and a changing one is
looked at once its burst is over; and a command written to the client's
stdin is answered in a fraction of a millisecond, without a process.

Facts about tmux 3.3a this rests on (measured, see the tests):

* ``attach-session -r -f read-only,ignore-size,pause-after=1`` never resizes
  the window and cannot press keys - but a read-only control client may still
  *run* any command, so only read commands are ever sent (:mod:`.listen`).
* the tmux client process hands its stdin and stdout to the server and then
  idles; killing it (or closing its stdin) closes our pipe within ~1 ms.
* ``refresh-client -A`` puts the ``%pause`` or ``%continue`` it caused in its
  own reply.  An empty line detaches.

Flow control: a pane that writes more than ``FLOOD_BYTES`` in
``FLOOD_WINDOW`` is paused for this client (``refresh-client -A %N:pause``;
the pane itself keeps running and other clients see everything) and
resumed ``FLOOD_REST`` later, so a flooding pane costs a bounded amount of
reading and can never make the client fall behind; ``pause-after=1`` is
tmux's own backstop.  While a pane is paused its session counts as active.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import threading
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol

from ..core.clock import Deadline
from ..core.errors import TmuxError, Unavailable
from . import process
from .protocol import Block, Notice, Stream, client_env, command_line

ATTACH_FLAGS = "read-only,ignore-size,pause-after=1"
FLOOD_BYTES = 1 << 16
FLOOD_WINDOW = 0.1
FLOOD_REST = 0.25
# Notifications that say nothing about what a watched pane shows.  Those of windows outside the
# client's session (``%unlinked-window-renamed`` when a command starts or ends in another session's
# window, ``%unlinked-window-add``/``-close``) start with ``_ELSEWHERE``.
_ELSEWHERE = b"%unlinked-"
_SILENT = frozenset({
    b"%continue", b"%sessions-changed", b"%paste-buffer-changed", b"%paste-buffer-deleted",
    b"%client-detached", b"%client-session-changed", b"%message", b"%config-error",
})

DETACH_GRACE = 1.0  # seconds a detached client may take to exit before it is killed by its PID


class Owner(Protocol):
    """What a client needs of the source that reads it: the tmux argv, the lock its state is under,
    a way out."""

    argv: list[str]
    lock: threading.RLock

    def lose(self, client: Client, why: str) -> None: ...


@dataclass(slots=True)
class _Request:
    """Commands written to a client, waiting for their reply blocks."""

    blocks: int
    replies: list[tuple[bool, list[bytes]]] = field(default_factory=list)
    done: threading.Event | None = None
    error: TmuxError | None = None

    def finish(self, error: TmuxError | None = None) -> None:
        self.error = self.error or error
        if self.done is not None:
            self.done.set()


class Client:
    """One ``tmux -C`` client attached read-only to one session.

    Its state (``seq``, ``last``, ``paused``) is written by the reader thread
    under the source's lock; watchers read it under the same lock.
    """

    def __init__(self, source: Owner, session: str) -> None:
        self.source = source
        self.session = session
        argv = [*source.argv, "-C", "attach-session", "-r", "-f", ATTACH_FLAGS, "-t", f"={session}"]
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        try:
            self.pid = process.spawn(
                argv, stdin=in_r, stdout=out_w, env=client_env(), file=process.program(argv[0])
            )
        except OSError:
            for fd in (in_w, out_r):
                os.close(fd)
            raise
        finally:
            os.close(in_r)
            os.close(out_w)
        # As files, closed once (stdin at close(), its output when the client is let go of): the
        # reader thread may still hold the output's descriptor in its selector when the client is
        # closed.
        self._stdin, self._stdout = (
            os.fdopen(in_w, "wb", buffering=0),
            os.fdopen(out_r, "rb", buffering=0),
        )
        self.fd_in, self.fd_out = in_w, out_r
        os.set_blocking(self.fd_in, False)
        os.set_blocking(self.fd_out, False)
        self.attached = threading.Event()
        self.answered = threading.Event()  # the attach was answered, or the client is gone
        self.ready = threading.Event()  # attached and set up (or gone): waiters may rely on it
        self.alive = True
        self.failure = ""
        self.seq = 0  # bumped by every sign of change in the session
        self.last = time.monotonic()  # when the last sign came
        self.paused: dict[bytes, float] = {}  # pane id -> when to resume it
        self.pauses = 0  # how often a pane was paused for flooding (by us or by tmux)
        self.users = 0
        self.idle_since = time.monotonic()
        self._window: dict[bytes, tuple[float, int]] = {}
        self._pending: deque[_Request] = deque()
        # flow-control commands, sent by the reader outside the lock
        self.outbox: list[list[str]] = []
        self._wlock = threading.Lock()
        self._stream = Stream()

    def quiet_since(self, now: float) -> float:
        """Since when nothing has happened in the session (``now`` while a pane is paused)."""
        return now if self.paused else self.last

    # --- writing ------------------------------------------------------------
    def submit(
        self, commands: Sequence[Sequence[str]], timeout: float
    ) -> list[tuple[bool, list[bytes]]]:
        """Run commands through this client; their reply blocks in order."""
        req = _Request(len(commands), done=threading.Event())
        self._send(req, command_line(commands), timeout)
        if not req.done.wait(timeout):  # type: ignore[union-attr]
            what = " ; ".join(c[0] for c in commands)
            raise TmuxError(
                f"tmux {what} did not answer within {timeout:g}s (the server may be wedged)"
            )
        if req.error is not None:
            raise req.error
        return req.replies

    def flush(self) -> None:
        """Send the queued flow-control commands without waiting for their answers."""
        with self.source.lock:
            commands, self.outbox = self.outbox, []
        for command in commands:
            with contextlib.suppress(TmuxError):
                self._send(_Request(1), command_line([command]), 1.0)

    def _send(self, req: _Request, line: bytes, timeout: float) -> None:
        deadline = Deadline(timeout)
        with self._wlock:
            with self.source.lock:
                if not self.alive:
                    raise Unavailable(f"the watch client of {self.session!r} has ended")
                self._pending.append(req)  # queued in the order the lines are written
            view = memoryview(line)
            while view:
                try:
                    view = view[os.write(self.fd_in, view):]
                except BlockingIOError:
                    left = deadline.left()
                    if left <= 0 or not _writable(self.fd_in, left):
                        self.source.lose(self, "it stopped reading commands")
                        return
                except OSError:
                    self.source.lose(self, "its input closed")
                    return

    # --- reading (reader thread, source lock held) --------------------------
    def feed(self, data: bytes, now: float) -> bool:
        """Take bytes from the client; True when the session showed a change."""
        changed = False
        for item in self._stream.feed(data):
            if isinstance(item, Block):
                self._reply(item)
            else:
                changed |= self._notice(item, now)
        return changed

    def _notice(self, notice: Notice, now: float) -> bool:
        word, rest = notice.word, notice.rest
        if word in (b"%output", b"%extended-output"):
            return self._output(rest.split(b" ", 1)[0], notice.size, now)
        if word == b"%pause":  # tmux's own backstop: the pane got too far ahead of us
            self.paused[rest.strip()] = now + FLOOD_REST
            self.pauses += 1
        elif word == b"%exit":
            self.failure = (
                self.failure or f"tmux ended it ({rest.decode(errors='replace') or 'exit'})"
            )
        elif word == b"%session-changed" and self.attached.is_set():
            if rest.split(b" ", 1)[-1].decode(errors="replace") != self.session:
                self.failure = "it was moved to another session"
                self.source.lose(self, self.failure)
        elif word in _SILENT or word.startswith(_ELSEWHERE):
            return False
        self._touch(now)
        return True

    def _output(self, pane: bytes, size: int, now: float) -> bool:
        if pane in self.paused:
            return False  # bytes sent before the pause took effect; already counted as busy
        start, count = self._window.get(pane, (now, 0))
        if now - start > FLOOD_WINDOW:
            start, count = now, 0
        self._window[pane] = (start, count + size)
        if count + size > FLOOD_BYTES:
            self.paused[pane] = now + FLOOD_REST
            self.pauses += 1
            self._window.pop(pane, None)
            self.outbox.append(["refresh-client", "-A", f"{pane.decode()}:pause"])
        self._touch(now)
        return True

    def resume_due(self, now: float) -> float | None:
        """Resume panes whose rest is over; return when the next one is due."""
        for pane, at in list(self.paused.items()):
            if at <= now:
                del self.paused[pane]
                self.outbox.append(["refresh-client", "-A", f"{pane.decode()}:continue"])
                self._touch(now)  # what it wrote while paused is unseen: a change
        return min(self.paused.values(), default=None)

    def _touch(self, now: float) -> None:
        self.seq += 1
        self.last = now

    def _reply(self, block: Block) -> None:
        ok = block.ok
        if not self.attached.is_set():
            # The first block answers the attach command itself.
            if ok:
                self.attached.set()
            else:
                self.failure = b" ".join(block.lines).decode(errors="replace") or "attach failed"
            self.answered.set()
            return
        if not self._pending:
            return  # a command some hook ran for this client: not ours
        req = self._pending[0]
        req.replies.append((ok, block.lines))
        # A failed command drops the rest of its line: no more blocks will come for it.
        if len(req.replies) == req.blocks or not ok:
            self._pending.popleft()
            req.finish()

    def fail_pending(self) -> None:
        while self._pending:
            self._pending.popleft().finish(
                Unavailable(
                    f"the watch client of {self.session!r} ended: {self.failure or 'it exited'}"
                )
            )

    def close(self) -> None:
        """Detach (close stdin), and end the process by its PID if it lingers."""
        with contextlib.suppress(OSError):
            self._stdin.close()
        process.end(self.pid, DETACH_GRACE)

    def ended(self) -> bool:
        """Has the client process ended (reaped now if it has)?"""
        return process.ended(self.pid)


def _writable(fd: int, timeout: float) -> bool:
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_WRITE)
        return bool(sel.select(timeout))
