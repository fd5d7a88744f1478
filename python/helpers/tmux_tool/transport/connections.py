"""This process's connections: one per tmux server, made on first use, dropped when their client
ends.

A connection (:mod:`.connection`) belongs to the process that made it: after
a fork the child makes its own, and every connection is detached when the
process exits.
"""

from __future__ import annotations

import atexit
import os
import threading
from collections.abc import Callable

from ..core.clock import Deadline
from ..core.errors import Unavailable
from .connection import CONNECT_TIMEOUT, Connection, enabled, reap_ended
from .gate import gate
from .process import ended

_connections: dict[str, Connection] = {}
_lock = threading.Lock()


def _reap() -> None:
    """Forget connections whose client has exited (its server went away), and collect ended clients.

    Called with the registry lock held, whenever a connection is made.
    """
    for socket, conn in list(_connections.items()):
        if conn.owner == os.getpid() and ended(conn.pid):
            del _connections[socket]
            with gate(socket).command():
                conn.close()
    reap_ended()


def for_server(launch: Callable[..., list[str]], socket: str, session: str | None, timeout: float,
               ) -> Connection | None:
    """This process's connection to the server ``socket`` (its key), connecting now if needed.

    ``launch`` gives the argv of a control client.  A new connection attaches to ``session``;
    without one, or when it cannot attach (no such session, no server), there is none and the caller
    runs a tmux process instead.  Call it without holding the server's gate.
    """
    if not enabled():
        return None
    with _lock:
        conn = _connections.get(socket)
        if conn is not None and conn.alive and conn.owner == os.getpid():
            return conn
        _reap()
        stale = _connections.pop(socket, None)
        if stale is not None and stale.owner == os.getpid():
            with gate(socket).command():
                stale.close()
        if session is None:
            return None
        try:
            with gate(socket).attaching():
                conn = Connection(launch, session, Deadline(min(timeout, CONNECT_TIMEOUT)))
        except (Unavailable, TimeoutError):
            return None
        _connections[socket] = conn
        return conn


def drop(socket: str) -> None:
    """Close this process's connection to ``socket`` (one that stopped answering): the next command
    makes a new one."""
    with _lock:
        conn = _connections.pop(socket, None)
    if conn is not None and conn.owner == os.getpid():
        with gate(socket).command():
            conn.close()


def close_all() -> None:
    """Detach every connection this process opened."""
    with _lock:
        conns = {s: c for s, c in _connections.items() if c.owner == os.getpid()}
        _connections.clear()
    for socket, conn in conns.items():
        with gate(socket).command():
            conn.close()


atexit.register(close_all)
