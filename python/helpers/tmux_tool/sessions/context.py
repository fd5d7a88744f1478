"""Which server a session lives on, resolved once per action.

The human's session (``TMUX_TOOL_SHARED_SESSION`` on the shared socket) is the
only name that routes to the shared server; every other name is a private
session on the agent's own server.  The private server object is built lazily
because reading the shared screen should not create private state.
"""

from __future__ import annotations

from functools import cached_property

from ..core import names
from ..core.config import Config
from ..private.server import PrivateServer
from ..transport.target import Target
from ..transport.tmux import Tmux


class Context:
    """Configuration plus the two servers, for one action."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg

    @cached_property
    def private(self) -> PrivateServer:
        return PrivateServer(self.cfg)

    @cached_property
    def shared_tmux(self) -> Tmux:
        return Tmux(self.cfg.shared_socket)

    def target(self, name: str | None, *, default: str) -> Target:
        """Resolve a session name (validated) to its server."""
        name = names.check(name if name is not None else default)
        if name == self.cfg.shared_session:
            return Target(name, True, self.shared_tmux)
        return Target(name, False, self.private.tmux)
