"""The web server's routes: page, health check, static files, terminal socket.

Every handler inherits `Guarded`, so no route can forget the access check.
"""

from __future__ import annotations

import asyncio
import os
from dataclasses import dataclass
from typing import Any

from tmux_terminals import TmuxTermSocket
from tornado.web import HTTPError, RequestHandler, StaticFileHandler
from web_access import AccessPolicy

from python.helpers.tmux_tool.frontends.page import Tmux, TmuxError

NO_TOKEN = (
    "This page needs its access token. apps/shared-terminal/start.sh printed the address that carries it "
    "(its line \"browser:\") when it started the web server; run start.sh again, with the same settings, on "
    "the machine that serves this page to print it again (a running server is left as it is). Open that "
    "address in this browser, with #session=NAME at its end to go straight to one of the agent's terminals; "
    "from then on this browser carries the token for addresses typed or pasted into its address bar."
)
"""What a request without the token is told: where the address that carries it was printed, never the
token itself (a person following a link the agent passed on comes here)."""


@dataclass(frozen=True)
class SharedSession:
    """Which tmux session this server shows, and its server (here, or on a host)."""

    tmux: Tmux
    session: str

    @property
    def where(self) -> str:
        """The server as a person names it: ``tmux -L SOCKET``, and ``on HOST`` for a host's."""
        host = self.tmux.place.name
        return f"tmux -L {self.tmux.socket}" + (f" on {host}" if host is not None else "")


class Guarded(RequestHandler):
    """Runs the access policy before any handler method."""

    def prepare(self) -> None:
        policy: AccessPolicy = self.settings["access"]
        verdict = policy.check(self.request)
        if verdict.status != 200:
            if verdict.status == 401:
                self.set_header("WWW-Authenticate", 'Bearer realm="shared terminal"')
            raise HTTPError(verdict.status)
        if verdict.remember and not isinstance(self, TmuxTermSocket):
            self.set_cookie(
                policy.cookie_name,
                policy.token or "",
                httponly=True,
                samesite="Strict",
                secure=self.request.protocol == "https",
            )

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """A refusal for want of the token says where to find the address with it; the others are tornado's."""
        if status_code != 401:
            super().write_error(status_code, **kwargs)
            return
        self.set_header("Content-Type", "text/html; charset=UTF-8")
        self.render("no_token.html", sentence=NO_TOKEN)

    def set_default_headers(self) -> None:
        # The page must not be framed by another site (clickjacking a shell).
        self.set_header("X-Frame-Options", "DENY")
        self.set_header("Content-Security-Policy", "frame-ancestors 'none'")
        self.set_header("Referrer-Policy", "no-referrer")
        # A JSON answer is never run as a script by a page that includes it.
        self.set_header("X-Content-Type-Options", "nosniff")


class PageHandler(Guarded):
    """The terminal page."""

    def get(self) -> None:
        shared: SharedSession = self.settings["shared"]
        self.set_header("Cache-Control", "no-store")
        self.render("index.html", where=shared.where, session=shared.session)


class HealthHandler(Guarded):
    """`/healthz`: the web server is up; says whether the tmux session is."""

    async def get(self) -> None:
        shared: SharedSession = self.settings["shared"]
        self.set_header("Cache-Control", "no-store")
        self.write(
            {
                "ok": True,
                "pid": os.getpid(),
                "socket": shared.tmux.socket,
                "host": shared.tmux.place.name,
                "session": shared.session,
                "session_alive": await session_alive(shared),
                "terminals": len(self.settings["term_manager"].ptys_by_fd),
            }
        )


class GuardedStatic(Guarded, StaticFileHandler):
    """Our JS/CSS and the xterm.js files from node_modules."""


class TerminalSocket(Guarded, TmuxTermSocket):
    """The WebSocket that carries one tab's keystrokes and screen."""


async def session_alive(shared: SharedSession) -> bool:
    """`tmux has-session` (bounded, as every tmux call of the tool), off the event loop."""
    try:
        await asyncio.to_thread(shared.tmux.cmd, "has-session", "-t", f"={shared.session}")
    except TmuxError:
        return False
    return True
