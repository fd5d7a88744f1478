"""Pane activity as events: tmux control-mode clients instead of polling.

Why: ``wait`` used to capture every watched pane every 50 ms - one tmux
process (3-4 ms) per look, even for a pane that showed nothing new.  A
control-mode client (``tmux -C``) is told by the server the moment a pane
writes (``%output``), so a silent pane costs nothing and a changing one is
looked at once its burst is over; and a command written to the client's
stdin is answered in a fraction of a millisecond, without a process.

Facts about tmux 3.3a this module rests on (measured, see the tests):

* a control client hears ``%output`` only from panes in windows of the
  session it is attached to, so there is one client per watched session,
  gathered per server in one :class:`EventSource` that one thread reads.
  (Linking the windows into a hidden session instead would change what
  ``kill-session`` does: a window linked elsewhere outlives its session.)
* ``attach-session -r -f read-only,ignore-size,pause-after=1`` never resizes
  the window and cannot press keys - but a read-only control client may still
  *run* any command, so only the commands in ``SERVED`` are ever sent.
* the tmux client process hands its stdin and stdout to the server and then
  idles; killing it (or closing its stdin) closes our pipe within ~1 ms.
* attaching sets ``#{session_activity}``, which the shared session's
  guardrails read as "the human pressed a key"; so every attach records the
  value it produced in the session option ``@tmux_tool_watch_attached``.
* each command of a line is answered in its own ``%begin``/``%end`` (or
  ``%error``) block with the same three numbers, and a failed command drops
  the rest of its line; notifications never come inside a block, except that
  ``refresh-client -A`` puts the ``%pause`` or ``%continue`` it caused in its
  own reply.  An empty line detaches.

Flow control: a pane that writes more than ``FLOOD_BYTES`` in
``FLOOD_WINDOW`` is paused for this client (``refresh-client -A %N:pause``;
the pane itself keeps running and other clients see everything) and
resumed ``FLOOD_REST`` later, so a flooding pane costs a bounded amount of
reading and can never make the client fall behind; ``pause-after=1`` is
tmux's own backstop.  While a pane is paused its session counts as active.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import shutil
import subprocess
import threading
import time
from collections import deque
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field

from ..core.errors import TmuxError, Unavailable
from .connection import gate
from .tmux import DEFAULT_TIMEOUT, Tmux, _classify, command_line

SWITCH = "TMUX_TOOL_EVENTS"
"""Set to ``off`` to watch by polling only (the fallback, always available)."""
ATTACH_FLAGS = "read-only,ignore-size,pause-after=1"
ATTACH_OPTION = "@tmux_tool_watch_attached"
ATTACH_TIMEOUT = 3.0
LINGER = 30.0  # an unused client stays attached this long, so a wait right after a wait attaches nothing
FLOOD_BYTES = 1 << 16
FLOOD_WINDOW = 0.1
FLOOD_REST = 0.25
SERVED = frozenset({"capture-pane", "display-message"})
# Notifications that say nothing about what a watched pane shows.
_SILENT = frozenset({
    b"%continue", b"%sessions-changed", b"%paste-buffer-changed", b"%paste-buffer-deleted",
    b"%client-detached", b"%client-session-changed", b"%message", b"%config-error",
})
# Changes tmux makes without the pane writing (checked by the server once a second).
_SUBSCRIPTION = "tt:%*:#{pane_dead}/#{pane_in_mode}/#{alternate_on}/#{pane_current_command}"



def enabled() -> bool:
    """Are events wanted (``TMUX_TOOL_EVENTS`` is not off)?"""
    return os.environ.get(SWITCH, "").strip().lower() not in ("off", "0", "no", "false", "poll")


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

    def __init__(self, source: EventSource, session: str) -> None:
        self.source = source
        self.session = session
        env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
        self.proc = subprocess.Popen(
            [*source.argv, "-C", "attach-session", "-r", "-f", ATTACH_FLAGS, "-t", f"={session}"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.fd_in = self.proc.stdin.fileno()
        self.fd_out = self.proc.stdout.fileno()
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
        self.outbox: list[list[str]] = []  # flow-control commands, sent by the reader outside the lock
        self._wlock = threading.Lock()
        self._tail = b""
        self._block: list[bytes] | None = None
        self._key = b""

    @property
    def pid(self) -> int:
        return self.proc.pid

    def quiet_since(self, now: float) -> float:
        """Since when nothing has happened in the session (``now`` while a pane is paused)."""
        return now if self.paused else self.last

    # --- writing ------------------------------------------------------------
    def submit(self, commands: Sequence[Sequence[str]], timeout: float) -> list[tuple[bool, list[bytes]]]:
        """Run commands through this client; their reply blocks in order."""
        req = _Request(len(commands), done=threading.Event())
        self._send(req, command_line(commands), timeout)
        if not req.done.wait(timeout):  # type: ignore[union-attr]
            what = " ; ".join(c[0] for c in commands)
            raise TmuxError(f"tmux {what} did not answer within {timeout:g}s (the server may be wedged)")
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
        deadline = time.monotonic() + timeout
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
                    left = deadline - time.monotonic()
                    if left <= 0 or not _writable(self.fd_in, left):
                        self.source.lose(self, "it stopped reading commands")
                        return
                except OSError:
                    self.source.lose(self, "its input closed")
                    return

    # --- reading (reader thread, source lock held) --------------------------
    def feed(self, data: bytes, now: float) -> bool:
        """Take bytes from the client; True when the session showed a change."""
        lines = (self._tail + data).split(b"\n")
        self._tail = lines.pop()
        changed = False
        for line in lines:
            changed |= self._line(line, now)
        return changed

    def _line(self, line: bytes, now: float) -> bool:
        if self._block is not None:
            if line.startswith((b"%end ", b"%error ")) and line.split(b" ", 1)[1] == self._key:
                self._reply(line.startswith(b"%end "), self._block)
                self._block = None
            else:
                self._block.append(line)
            return False
        word, _, rest = line.partition(b" ")
        if word == b"%begin":
            self._block, self._key = [], rest
            return False
        if word in (b"%output", b"%extended-output"):
            return self._output(rest.split(b" ", 1)[0], len(line), now)
        if word == b"%pause":  # tmux's own backstop: the pane got too far ahead of us
            self.paused[rest.strip()] = now + FLOOD_REST
            self.pauses += 1
        elif word == b"%exit":
            self.failure = self.failure or f"tmux ended it ({rest.decode(errors='replace') or 'exit'})"
        elif word == b"%session-changed" and self.attached.is_set():
            if rest.split(b" ", 1)[-1].decode(errors="replace") != self.session:
                self.failure = "it was moved to another session"
                self.source.lose(self, self.failure)
        elif word in _SILENT:
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

    def _reply(self, ok: bool, lines: list[bytes]) -> None:
        if not self.attached.is_set():
            # The first block answers the attach command itself.
            if ok:
                self.attached.set()
            else:
                self.failure = b" ".join(lines).decode(errors="replace") or "attach failed"
            self.answered.set()
            return
        if not self._pending:
            return  # a command some hook ran for this client: not ours
        req = self._pending[0]
        req.replies.append((ok, lines))
        # A failed command drops the rest of its line: no more blocks will come for it.
        if len(req.replies) == req.blocks or not ok:
            self._pending.popleft()
            req.finish()

    def fail_pending(self) -> None:
        while self._pending:
            self._pending.popleft().finish(Unavailable(f"the watch client of {self.session!r} ended: "
                                                        f"{self.failure or 'it exited'}"))

    def close(self) -> None:
        """Detach (close stdin), and end the process by its PID if it lingers."""
        with contextlib.suppress(OSError):
            if self.proc.stdin is not None:
                self.proc.stdin.close()
        try:
            self.proc.wait(timeout=1.0)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(timeout=5.0)


def _writable(fd: int, timeout: float) -> bool:
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_WRITE)
        return bool(sel.select(timeout))


# --- news for waiters ---------------------------------------------------------
_news = threading.Condition()
_generation = 0


def generation() -> int:
    """A counter that moves whenever any watched session may have changed."""
    with _news:
        return _generation


def wait_news(seen: int, until: float) -> None:
    """Sleep until the counter moves past ``seen`` or the monotonic time ``until``."""
    with _news:
        while _generation == seen:
            left = until - time.monotonic()
            if left <= 0:
                return
            _news.wait(left)


def _announce() -> None:
    global _generation
    with _news:
        _generation += 1
        _news.notify_all()


class EventSource:
    """The control clients of one tmux server, read by one thread."""

    def __init__(self, tmux: Tmux) -> None:
        self.tmux = tmux
        exe = shutil.which("tmux")
        if exe is None:
            raise Unavailable("tmux is not installed")
        self.argv = [exe, "-L", tmux.socket]
        self.owner = os.getpid()  # a forked child must not read or end its parent's clients
        self.lock = threading.RLock()
        self.clients: dict[str, Client] = {}
        self._joining: list[Client] = []
        self._leaving: list[Client] = []
        self._ending: list[Client] = []  # detached by the reader once no client of ours is attaching
        self._thread: threading.Thread | None = None
        self._wake_r, self._wake_w = os.pipe()
        os.set_blocking(self._wake_w, False)

    # --- clients ------------------------------------------------------------
    def acquire(self, sessions: Iterable[str], within: float = ATTACH_TIMEOUT) -> dict[str, Client]:
        """Live, ready clients for ``sessions`` (attached now if needed, within ``within`` seconds).

        A session missing from the answer could not be attached: its waiter polls.
        A client some other wait is still attaching is waited for too, since
        changes before it is attached would go unheard.
        """
        fresh: list[Client] = []
        got: dict[str, Client] = {}
        deadline = time.monotonic() + within
        for name in dict.fromkeys(sessions):
            with self.lock:
                client = self.clients.get(name)
                if client is not None and client.alive:
                    client.users += 1
                    got[name] = client
                    continue
            # One attach at a time, and none while a command of ours may make tmux
            # notify control clients (see connection.Gate).
            with gate(self.tmux.socket).attaching():
                with self.lock:
                    client = self.clients.get(name)
                    if client is not None and client.alive:  # another wait attached it meanwhile
                        client.users += 1
                        got[name] = client
                        continue
                    try:
                        client = Client(self, name)
                    except OSError:
                        continue
                    self.clients[name] = client
                    self._joining.append(client)
                    client.users += 1
                    got[name] = client
                    self._start()
                self._wake()
                client.answered.wait(max(0.0, deadline - time.monotonic()))
            fresh.append(client)
        for client in fresh:
            if not client.attached.is_set() or not client.alive:
                self.lose(client, client.failure or "it did not attach in time")
                continue
            try:
                # What the attach did to #{session_activity}, for the shared-session guardrails.
                client.submit([["set-option", "-F", "-t", f"={client.session}:", ATTACH_OPTION,
                                "#{session_last_attached}"],
                               ["refresh-client", "-B", _SUBSCRIPTION]],
                              timeout=max(0.05, deadline - time.monotonic()))
            except TmuxError:
                self.lose(client, "it did not answer after attaching")
            client.ready.set()
        for client in got.values():
            if not client.ready.wait(max(0.0, deadline - time.monotonic())):
                self.lose(client, "it did not attach in time")
        with self.lock:
            for name, client in list(got.items()):
                if not client.alive:
                    client.users -= 1
                    del got[name]
        return got

    def release(self, clients: Iterable[Client]) -> None:
        """A wait is done with these clients; they linger for the next one."""
        now = time.monotonic()
        with self.lock:
            for client in clients:
                client.users = max(0, client.users - 1)
                if client.users == 0:
                    client.idle_since = now
        self._wake()

    def lose(self, client: Client, why: str) -> None:
        """Stop using ``client`` (it died, or misbehaved); waiters fall back to polling."""
        with self.lock:
            if not client.alive:
                return
            client.alive = False
            client.failure = client.failure or why
            client.fail_pending()
            client.answered.set()
            client.ready.set()
            if self.clients.get(client.session) is client:
                del self.clients[client.session]
            self._leaving.append(client)
        self._wake()
        _announce()

    def client_for(self, target: str) -> Client | None:
        """A live client to run a command on ``target`` (its own session's, else any)."""
        name = target[1:].split(":", 1)[0] if target.startswith("=") else ""
        with self.lock:
            client = self.clients.get(name)
            if client is not None and client.alive and client.attached.is_set():
                return client
            return next((c for c in self.clients.values() if c.alive and c.attached.is_set()), None)

    def pids(self) -> dict[str, int]:
        """The PID of each live client, by session (our own child processes)."""
        with self.lock:
            return {name: c.pid for name, c in self.clients.items() if c.alive}

    def close(self) -> None:
        """Detach every client now."""
        with self.lock:
            clients = list(self.clients.values())
        for client in clients:
            self.lose(client, "closed")
        thread = self._thread
        if thread is not None:
            thread.join(timeout=5.0)
        for client in clients:
            if client.proc.poll() is None:  # the reader could not end it
                client.close()

    # --- the reader thread --------------------------------------------------
    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(target=self._read, name=f"tmux-events-{self.tmux.socket}",
                                            daemon=True)
            self._thread.start()

    def _wake(self) -> None:
        with contextlib.suppress(BlockingIOError, OSError):
            os.write(self._wake_w, b".")

    def _read(self) -> None:
        sel = selectors.DefaultSelector()
        sel.register(self._wake_r, selectors.EVENT_READ)
        watched: dict[int, Client] = {}
        try:
            self._loop(sel, watched)
        except Exception as exc:  # noqa: BLE001 - a dead reader must not leave waits listening to nothing
            with self.lock:
                clients = [*self.clients.values(), *self._joining, *self._leaving]
                self._joining.clear()
                self._leaving.clear()
            for client in clients:
                self.lose(client, f"its reader failed: {exc!r}")
                client.close()
            with self.lock:
                self._leaving.clear()
                self._thread = None
        finally:
            sel.close()

    def _loop(self, sel: selectors.BaseSelector, watched: dict[int, Client]) -> None:
        while True:
            timeout = self._housekeeping(sel, watched)
            if timeout is False:
                return
            changed = False
            for key, _ in sel.select(timeout):
                if key.fd == self._wake_r:
                    with contextlib.suppress(BlockingIOError):
                        os.read(self._wake_r, 4096)
                    continue
                changed |= self._drain(watched[key.fd])
            if changed:
                _announce()

    def _housekeeping(self, sel: selectors.BaseSelector, watched: dict[int, Client]) -> float | None | bool:
        """(Un)register clients, resume rested panes, end idle clients; the next timeout.

        Returns False when nothing is left to read (the thread then ends).
        """
        now = time.monotonic()
        ending = self._ending
        with self.lock:
            for client in self._joining:
                sel.register(client.fd_out, selectors.EVENT_READ)
                watched[client.fd_out] = client
            self._joining.clear()
            for client in list(self.clients.values()):
                if client.users == 0 and now - client.idle_since >= LINGER:
                    self.lose(client, "idle")
            for client in self._leaving:
                if watched.pop(client.fd_out, None) is not None:
                    sel.unregister(client.fd_out)
                ending.append(client)
            self._leaving.clear()
            due = [t for c in watched.values() if (t := c.resume_due(now)) is not None]
            due += [c.idle_since + LINGER for c in watched.values() if c.users == 0]
            if not watched and not ending:
                self._thread = None
                return False
        for client in watched.values():
            if client.outbox:
                client.flush()
        closed = bool(ending)
        if ending:
            # Detaching makes tmux notify control clients: not while one of ours attaches.
            the_gate = gate(self.tmux.socket)
            if not the_gate.try_enter():
                return 0.005
            try:
                for client in ending:
                    client.close()
            finally:
                the_gate.leave()
            ending.clear()
        return max(0.0, min(due) - now) if due else (0.0 if closed else None)

    def _drain(self, client: Client) -> bool:
        try:
            data = os.read(client.fd_out, 1 << 16)
        except BlockingIOError:
            return False
        except OSError:
            data = b""
        if data:
            with self.lock:
                changed = client.feed(data, time.monotonic())
            if client.outbox:
                client.flush()
            return changed
        self.lose(client, client.failure or "its process exited")
        return True


# --- the registry: one source per server --------------------------------------
_sources: dict[str, EventSource] = {}
_registry_lock = threading.Lock()


def source_for(tmux: Tmux) -> EventSource | None:
    """This process's event source for the server of ``tmux`` (None if events are off)."""
    if not enabled():
        return None
    with _registry_lock:
        src = _sources.get(tmux.socket)
        if src is None or src.owner != os.getpid():
            try:
                src = _sources[tmux.socket] = EventSource(tmux)
            except Unavailable:
                return None
        return src


def close_all() -> None:
    """Detach every control client this process started."""
    with _registry_lock:
        sources = [s for s in _sources.values() if s.owner == os.getpid()]
    for src in sources:
        src.close()


atexit.register(close_all)


class Runner:
    """``Tmux.chain`` for looks, served by a control client when one is there.

    Only read commands (``SERVED``) without input travel through the client;
    anything else, or any failure of the client, goes to a tmux process, so
    callers get the same text and the same errors either way.
    """

    def __init__(self, source: EventSource) -> None:
        self.source = source

    def chain(self, *commands: Sequence[str], input: bytes | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> str:
        tmux = self.source.tmux
        client = self._client(commands) if input is None else None
        if client is None:
            return tmux.chain(*commands, input=input, timeout=timeout)
        try:
            replies = client.submit(commands, timeout)
        except Unavailable:
            return tmux.chain(*commands, timeout=timeout)
        out: list[str] = []
        for (ok, lines), command in zip(replies, commands, strict=False):
            text = b"".join(line + b"\n" for line in lines).decode("utf-8", "replace")
            if not ok:
                raise _classify(text, command[0])
            out.append(text)
        return "".join(out)

    def _client(self, commands: Sequence[Sequence[str]]) -> Client | None:
        if not commands or any(not c or c[0] not in SERVED for c in commands):
            return None
        target = next((c[i + 1] for c in commands for i, a in enumerate(c[:-1]) if a == "-t"), "")
        return self.source.client_for(target)


@dataclass(frozen=True, slots=True)
class Heard:
    """What a waiter needs to know about one session's activity."""

    seq: int
    quiet_since: float


class Feed:
    """The sessions one ``wait`` listens to, grouped per server.

    A session whose client could not attach, or whose client dies during the
    wait, is not heard (:meth:`heard` returns None): the waiter then polls it.
    """

    def __init__(self, sessions: Iterable[tuple[Tmux, str]], within: float = ATTACH_TIMEOUT) -> None:
        self._held: dict[tuple[str, str], Client] = {}
        self._sources: dict[str, EventSource] = {}
        wanted: dict[str, list[str]] = {}
        for tmux, name in sessions:
            src = source_for(tmux)
            if src is not None:
                self._sources[tmux.socket] = src
                wanted.setdefault(tmux.socket, []).append(name)
        for socket, names in wanted.items():
            for name, client in self._sources[socket].acquire(names, within).items():
                self._held[(socket, name)] = client

    def close(self) -> None:
        """Done waiting: the clients linger for the next wait."""
        for src in self._sources.values():
            src.release(c for (s, _), c in self._held.items() if s == src.tmux.socket)
        self._held.clear()

    @property
    def active(self) -> bool:
        """Is any session heard at all?"""
        return bool(self._held)

    def runners(self) -> dict[str, Runner]:
        """Per server socket, a transport that serves looks through the clients."""
        return {socket: Runner(src) for socket, src in self._sources.items()}

    def heard(self, tmux: Tmux, session: str, now: float) -> Heard | None:
        """The activity of ``session``, or None if it is not (or no longer) heard."""
        client = self._held.get((tmux.socket, session))
        if client is None:
            return None
        with client.source.lock:
            if not client.alive:
                return None
            return Heard(client.seq, client.quiet_since(now))


@contextlib.contextmanager
def listening(sessions: Iterable[tuple[Tmux, str]], within: float = ATTACH_TIMEOUT) -> Iterator[Feed]:
    """A :class:`Feed` for the duration of a wait (attaching takes at most ``within`` seconds)."""
    feed = Feed(sessions, within)
    try:
        yield feed
    finally:
        feed.close()
