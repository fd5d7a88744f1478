"""Which server a session lives on, resolved once per action.

The human's session (``TMUX_TOOL_SHARED_SESSION`` on the shared socket) is the
only name that routes to the shared server; every other name is a private
session on the agent's own server - on this machine, or on the action's
``host``, where the same names name that host's sessions.  The private server
object is built lazily because reading the shared screen should not create
private state.
"""

from __future__ import annotations

import os
from dataclasses import replace
from functools import cached_property

from ..core import names
from ..core.config import Config
from ..core.errors import BadName
from ..private.server import PrivateServer
from ..private.session import PrivateSession
from ..shared import where
from ..shared.session import SharedSession
from ..transport import hosts
from ..transport.place import HERE, Place, There
from ..transport.target import Target
from ..transport.tmux import Tmux
from .session import Session


class Context:
    """Configuration plus the two servers, for one action (on ``host``, when it names one)."""

    def __init__(self, cfg: Config, host: str | None = None) -> None:
        self.cfg = cfg
        self.host_name = hosts.check(host) if host else None

    @cached_property
    def place(self) -> Place:
        """Where the action's sessions are: this machine, or the host it names."""
        if self.host_name is None:
            return HERE
        local = PrivateServer(self.cfg).tmux
        return There(hosts.resolve(self.host_name, self.cfg.private_dir / "hosts", local))

    def known_hosts(self) -> list[str]:
        """The hosts the agent has had sessions on (each has a folder here that names it)."""
        try:
            folders = sorted((self.cfg.private_dir / "hosts").iterdir())
        except OSError:
            return []
        found = []
        for folder in folders:
            try:
                found.append(hosts.check((folder / "host").read_text().strip()))
            except (OSError, BadName):
                continue
        return found

    def connected_hosts(self) -> list[str]:
        """The known hosts whose connection is up now (ssh: its master's socket is there; a
        container's command: always, it needs no connection)."""
        local = PrivateServer(self.cfg).tmux
        return [name for name in self.known_hosts()
                if (host := hosts.resolve(name, self.cfg.private_dir / "hosts", local)).via
                or os.path.exists(host.control)]

    @cached_property
    def private(self) -> PrivateServer:
        return PrivateServer(self.cfg, self.place)

    @cached_property
    def shared_tmux(self) -> Tmux:
        """The server of the human's shared session: here, or on the action's host."""
        return Tmux(self.cfg.shared_socket, place=self.place)

    def target(self, name: str | None, *, default: str, fresh: bool = False) -> Target:
        """Resolve a session name (validated) to its server, and in the shared session to one pane.

        The shared session's name may carry a pane as tmux writes it
        (``shared:1.0``, ``shared:%3``, or ``%3`` alone); see :mod:`..shared.where`.
        ``fresh``: the call types a new command.
        """
        given = name if name is not None else default
        session, spec = where.split(given) if isinstance(given, str) else (given, "")
        session = names.check(
            self.cfg.shared_session if spec.startswith("%") and not session else session
        )
        if session == self.cfg.shared_session:
            return replace(where.resolve(self.shared_tmux, session, spec, fresh=fresh), spec=spec)
        if spec:
            raise BadName(f"session name {given!r} names a pane, but panes are named only in the "
                          f"shared session ({self.cfg.shared_session}:WINDOW.PANE); a private "
                          f"session such as {session!r} has one")
        return Target(session, False, self.private.tmux)

    def session(self, name: str | None, *, default: str, fresh: bool = False) -> Session:
        """The session an action is about, as its own kind of object (see :func:`target` for
        names)."""
        return self.open(self.target(name, default=default, fresh=fresh))

    def open(self, target: Target) -> Session:
        """The session object of a resolved target."""
        if target.shared:
            return SharedSession(self.cfg, target)
        return PrivateSession(self.private, target)
