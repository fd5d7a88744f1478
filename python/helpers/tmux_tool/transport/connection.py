"""One persistent control-mode connection per tmux server, for every command.

Why: a tmux command run as its own process costs a fork, an exec and a
socket handshake (1-5 ms, more under load), and one ``run`` used to need five
of them.  A control-mode client (``tmux -C``) stays connected and runs each
command line written to its stdin in a fraction of a millisecond, so a
process holds one per server and sends every command of every call through
it; long-lived hosts keep it across calls.

Facts about tmux 3.3a this module rests on (checked by the tests):

* a control client must be attached to a session to stay connected (without
  one it exits after its first command), so the connection attaches to the
  session the first command names, with ``read-only,ignore-size,no-output``:
  it never resizes a window, never receives pane output, and still runs any
  command it is given; ``-N`` keeps it from starting a server where none runs;
* every command of a line is answered by its own ``%begin``/``%end`` (or
  ``%error``) block, in order; a failed command drops the rest of its line;
  a command can add blocks of its own (``if-shell`` answers for itself and
  then for the command it chose), so a line is followed by a second line of
  our own, ``display-message -p TOKEN``, whose block closes the answer; blocks
  of commands the client sent carry flags ``1``, while the attach and anything
  a hook runs carry ``0``; a block is lines, so an output without a final
  newline (``show-buffer``) gets one;
* a command line is parsed by tmux's own parser: arguments are single-quoted
  (:func:`quote`), and a line must be valid UTF-8;
* when the attached session ends, tmux detaches the client (``%exit``); the
  next command connects again, to a session that exists.

Anything the connection cannot carry (a server not running yet, text that is
not UTF-8, ``wait-for``) runs as a one-shot tmux process in
:mod:`.tmux`; so does everything when ``TMUX_TOOL_CONTROL=off``.

Several threads share one connection: lines are written whole under a lock
and their reply blocks are matched in order.  The first caller waiting for a
reply reads for everyone ("leader"), which keeps a single caller's round trip
free of thread hand-offs.  Between calls tmux still writes notifications
(``%window-renamed``, ``%sessions-changed``, ...) that nobody asked for, so a
small thread reads whatever is waiting every :data:`DRAIN_EVERY` seconds while
no caller reads.  Without it the pipe fills in a long-lived host, tmux buffers
the rest in its own memory, and a server told to exit (``kill-server``, its
last session killed) waits for ever for this client to take its output.

Short-lived processes (the command line) hold no command connection: they
would attach and detach one on every call, and every attach is a moment of
risk (:mod:`.gate`).
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import threading
from collections import deque
from collections.abc import Callable, Sequence

from ..core.clock import Deadline
from ..core.errors import Unavailable
from . import process
from .process import program, spawn
from .protocol import Block, Stream, client_env, command_line

SWITCH = "TMUX_TOOL_CONTROL"
"""Set to ``off`` to run every tmux command as its own process."""
ATTACH_FLAGS = "read-only,ignore-size,no-output"
CONNECT_TIMEOUT = 3.0
DETACH_TIMEOUT = 1.0
DRAIN_EVERY = 0.25
"""Seconds between reads of an idle connection; a pipe holds 64 KiB, far more than tmux writes in
that time."""


class Lost(Unavailable):
    """The connection went away before a line was answered in full.

    ``started`` says that some commands of the line were answered (so they
    ran, and running the line again could repeat them).
    """

    def __init__(self, why: str, *, started: bool) -> None:
        super().__init__(why)
        self.started = started


def enabled() -> bool:
    """Is the persistent connection wanted (``TMUX_TOOL_CONTROL`` is not off)?"""
    return os.environ.get(SWITCH, "").strip().lower() not in ("off", "0", "no", "false")


class Request:
    """A line written to the connection, waiting for its reply blocks.

    The answer is complete at the block that prints ``token`` (the line that
    follows the request's own), or, for the attach, at its first block.
    ``wake`` is set when the answer is complete, or when its waiting owner
    is to take over reading for everyone: a reply wakes one thread, never all.
    """

    __slots__ = ("done", "error", "replies", "token", "waiting", "wake")

    def __init__(self, token: bytes | None) -> None:
        self.token = token
        self.replies: list[tuple[bool, bytes]] = []
        self.done = False
        self.error: str | None = None
        self.waiting = False
        self.wake = threading.Event()

    def finish(self, error: str | None = None) -> None:
        self.error = self.error or error
        self.done = True
        self.wake.set()


class Connection:
    """A ``tmux -C attach-session`` client of one server, shared by the threads of this process."""

    def __init__(self, launch: Callable[..., list[str]], session: str, deadline: Deadline) -> None:
        self.session = session
        self.owner = os.getpid()
        self.alive = True
        self.why = ""
        self._lock = threading.Lock()
        self._pending: deque[Request] = deque()
        self._reading = False
        self._closing = False
        self._stream = Stream()
        self._count = 0
        self._over = threading.Event()
        argv = launch("-N", "-C", "attach-session", "-f", ATTACH_FLAGS, "-t", f"={session}")
        in_r, self._in = os.pipe()
        self._out, out_w = os.pipe()
        try:
            self.pid = spawn(
                argv, stdin=in_r, stdout=out_w, env=client_env(), file=program(argv[0])
            )
        except OSError as exc:
            for fd in (self._in, self._out):
                os.close(fd)
            raise Unavailable(f"tmux could not be started ({exc.strerror or exc})") from exc
        finally:
            os.close(in_r)
            os.close(out_w)
        os.set_blocking(self._in, False)
        # The attach is the client's own first command: its reply (flags 0) comes first.
        self._attach = Request(None)
        self._pending.append(self._attach)
        try:
            self._wait(self._attach, deadline)
            if self._attach.error or not self._attach.replies[0][0]:
                raise Unavailable(f"the control client could not attach to {session!r}")
        except (Unavailable, TimeoutError):
            self.close()
            raise
        threading.Thread(target=self._drain, name=f"tmux-drain-{session}", daemon=True).start()

    # --- running commands ---------------------------------------------------------
    def run(self, commands: Sequence[Sequence[str]], timeout: float) -> list[tuple[bool, bytes]]:
        """Run ``commands`` as one line; the (ok, output) of every block it was answered with.

        Raises :class:`Unavailable` when the connection is (or goes) away
        before the answer, and :class:`TimeoutError` when none comes in time.
        """
        deadline = Deadline(timeout)
        with self._lock:
            if not self.alive:
                raise Unavailable(self.why or "the control connection has ended")
            self._count += 1
            token = f"tt-done-{self._count}"
            req = Request(token.encode() + b"\n")
            self._pending.append(req)
            self._write(
                command_line(commands) + command_line([["display-message", "-p", token]]), deadline
            )
        self._wait(req, deadline)
        if req.error is not None:
            raise Lost(req.error, started=bool(req.replies))
        return req.replies

    def _write(self, line: bytes, deadline: Deadline) -> None:
        """Write one whole line (lock held, so lines never interleave)."""
        view = memoryview(line)
        while view:
            try:
                view = view[os.write(self._in, view):]
                continue
            except BlockingIOError:
                pass
            except OSError:
                self._lose("its input closed")
                return
            left = deadline.left()
            if left <= 0 or not select.select([], [self._in], [], left)[1]:
                self._lose("it stopped reading commands")
                return

    def _wait(self, req: Request, deadline: Deadline) -> None:
        """Until ``req`` is answered: read for everyone, or sleep while another thread reads."""
        try:
            while True:
                with self._lock:
                    if req.done:
                        return
                    if not self._reading:
                        self._reading = True
                        break
                    req.waiting = True
                    req.wake.clear()
                left = deadline.left()
                if left <= 0:
                    raise TimeoutError
                req.wake.wait(left)
        finally:
            req.waiting = False
        try:
            self._read_until(req, deadline)
        finally:
            self._hand_over()

    def _hand_over(self) -> None:
        """Stop reading: hand the reading to a thread still waiting for its answer, or finish
        closing."""
        with self._lock:
            self._reading = False
            heir = next((r for r in self._pending if r.waiting), None)
            if heir is not None:
                heir.wake.set()
            closing = self._closing
        if closing:
            self._release()

    def _drain(self) -> None:
        """Every :data:`DRAIN_EVERY` seconds, read what tmux wrote while no caller was reading."""
        while not self._over.wait(DRAIN_EVERY):
            with self._lock:
                if not self.alive:
                    return
                if self._reading:
                    continue  # a caller reads, and takes the notifications along
                self._reading = True
            try:
                while self._read_once(0.0):
                    pass
            finally:
                self._hand_over()

    def _read_until(self, req: Request, deadline: Deadline) -> None:
        while not req.done:
            left = deadline.left()
            got = self._read_once(left) if left > 0 else False
            if got is None:
                return  # the connection ended, and failed the request
            if not got:
                raise TimeoutError

    def _read_once(self, timeout: float) -> bool | None:
        """Read (the reading role held) and file what tmux wrote within ``timeout``.

        True when something came, False when nothing did, None when the
        connection ended (whatever waited on it is failed).
        """
        try:
            if not select.select([self._out], [], [], timeout)[0]:
                return False
            data = os.read(self._out, 1 << 16)
        except (OSError, ValueError):
            data = b""
        with self._lock:
            if not data:
                self._lose("tmux closed it")
                return None
            self._feed(data)
        return True

    # --- parsing (lock held) --------------------------------------------------
    def _feed(self, data: bytes) -> None:
        for item in self._stream.feed(data):
            if isinstance(item, Block):
                self._reply(item)
            elif item.word == b"%exit":
                self.why = "tmux detached it (its session ended)"

    def _reply(self, block: Block) -> None:
        """File a finished block with the request it answers (waking its owner once it is
        complete)."""
        if not self._pending:
            return
        req = self._pending[0]
        if block.ours != (req is not self._attach):
            return  # a command a hook ran, not one of ours
        text = block.text()
        if req.token is None or (block.ok and text == req.token):
            if req.token is None:
                req.replies.append((block.ok, text))
            self._pending.popleft()
            req.finish()
            return
        req.replies.append((block.ok, text))

    def _lose(self, why: str) -> None:
        """The connection is unusable: fail whatever waits on it (lock held)."""
        if not self.alive:
            return
        self.alive = False
        self._over.set()
        self.why = f"the control connection ended: {self.why or why}"
        while self._pending:
            self._pending.popleft().finish(self.why)

    def close(self) -> None:
        """Detach (closing stdin ends the client); a thread still reading finishes the job.

        Call it holding the server's :class:`Gate` for a command: tmux tells
        other control clients that this one detached.
        """
        with self._lock:
            self._lose("closed")
            self._closing = True
            if self._reading:
                return
        self._release()

    def _release(self) -> None:
        """Detach: close the client's stdin, read its stdout to the end, and only then close that.

        tmux never frees a control client whose output it could not write:
        had our end of the client's stdout been closed while tmux still had
        something for it, the server would wait for that client for ever.
        The end comes within milliseconds; a client still there after
        :data:`DETACH_TIMEOUT` is killed by its PID (ours), which frees it.
        """
        with self._lock:
            fd_in, fd_out, self._in, self._out = self._in, self._out, -1, -1
        if fd_in >= 0:
            os.close(fd_in)
        if fd_out >= 0:
            deadline = Deadline(DETACH_TIMEOUT)
            try:
                while (left := deadline.left()) > 0:
                    if select.select([fd_out], [], [], left)[0] and not os.read(fd_out, 1 << 16):
                        break  # the client and the server both let go of it
            except OSError:
                pass
            os.close(fd_out)
        if not process.ended(self.pid):
            with contextlib.suppress(OSError):
                os.kill(self.pid, signal.SIGKILL)
            _ended.append(self.pid)


_ended: list[int] = []  # client processes told to end, not yet reaped


def reap_ended() -> None:
    """Collect the clients told to end that have ended since."""
    for pid in list(_ended):
        if process.ended(pid):
            _ended.remove(pid)
