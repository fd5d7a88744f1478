"""Pane activity as events: the watch clients of each tmux server, read by one thread.

A control client hears ``%output`` only from panes in windows of the session
it is attached to (tmux 3.3a), so there is one :class:`~.watcher.Client` per
watched session, gathered per server in one :class:`EventSource` whose
thread reads them all.  (Linking the windows into a hidden session instead
would change what ``kill-session`` does: a window linked elsewhere outlives
its session.)  Waiters learn that something may have changed from a counter
(:func:`generation`, :func:`wait_news`), then look for themselves.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import shutil
import threading
import time
from collections.abc import Iterable

from ..core.clock import Deadline
from ..core.errors import TmuxError, Unavailable
from .gate import gate
from .tmux import Tmux
from .watcher import Client

SWITCH = "TMUX_TOOL_EVENTS"
"""Set to ``off`` to watch by polling only (the fallback, always available)."""
ATTACH_TIMEOUT = 3.0
# an unused client stays attached this long, so a wait right after a wait attaches nothing
LINGER = 30.0
# Changes tmux makes without the pane writing (checked by the server once a second).
_SUBSCRIPTION = "tt:%*:#{pane_dead}/#{pane_in_mode}/#{alternate_on}/#{pane_current_command}"


def enabled() -> bool:
    """Are events wanted (``TMUX_TOOL_EVENTS`` is not off)?"""
    return os.environ.get(SWITCH, "").strip().lower() not in ("off", "0", "no", "false", "poll")


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
        self.argv = [exe, "-u", "-L", tmux.socket]  # (-u: see tmux.SEP)
        self.owner = os.getpid()  # a forked child must not read or end its parent's clients
        self.lock = threading.RLock()
        self.clients: dict[str, Client] = {}
        self._joining: list[Client] = []
        self._leaving: list[Client] = []
        # detached by the reader once no client of ours is attaching
        self._ending: list[Client] = []
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
        deadline = Deadline(within)
        for name in dict.fromkeys(sessions):
            with self.lock:
                client = self.clients.get(name)
                if client is not None and client.alive:
                    client.users += 1
                    got[name] = client
                    continue
            # One attach at a time, and none while a command of ours may make tmux
            # notify control clients (see the gate module).
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
                client.answered.wait(deadline.left())
            fresh.append(client)
        for client in fresh:
            if not client.attached.is_set() or not client.alive:
                self.lose(client, client.failure or "it did not attach in time")
                continue
            try:
                client.submit([["refresh-client", "-B", _SUBSCRIPTION]],
                              timeout=max(0.05, deadline.left()))
            except TmuxError:
                self.lose(client, "it did not answer after attaching")
            client.ready.set()
        for client in got.values():
            if not client.ready.wait(deadline.left()):
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
            if not client.ended():  # the reader could not end it
                client.close()

    # --- the reader thread --------------------------------------------------
    def _start(self) -> None:
        if self._thread is None or not self._thread.is_alive():
            self._thread = threading.Thread(
                target=self._read, name=f"tmux-events-{self.tmux.socket}", daemon=True
            )
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
        except Exception as exc:  # noqa: BLE001
            # a dead reader must not leave waits listening to nothing
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

    def _housekeeping(
        self, sel: selectors.BaseSelector, watched: dict[int, Client]
    ) -> float | None | bool:
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
    """This process's event source for the server of ``tmux`` (None if events are off, or the server
    is on another host: its waits poll, each look one round trip over the connection)."""
    if not enabled() or tmux.host is not None:
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
