"""What one ``wait`` hears: the sessions it listens to, and looks served through their clients."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass

from ..core.errors import Unavailable
from .events import ATTACH_TIMEOUT, EventSource, source_for
from .tmux import DEFAULT_TIMEOUT, Tmux, _classify
from .watcher import Client

SERVED = frozenset({"capture-pane", "display-message"})
"""The only commands sent through a watch client: it is read-only for keys, not for commands."""


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

    def __init__(
        self, sessions: Iterable[tuple[Tmux, str]], within: float = ATTACH_TIMEOUT
    ) -> None:
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
def listening(
    sessions: Iterable[tuple[Tmux, str]], within: float = ATTACH_TIMEOUT
) -> Iterator[Feed]:
    """A :class:`Feed` for the duration of a wait (attaching takes at most ``within`` seconds)."""
    feed = Feed(sessions, within)
    try:
        yield feed
    finally:
        feed.close()
