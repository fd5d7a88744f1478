"""Who may use the web terminal: the one rule every request passes through.

The page is a writable shell, so each HTTP and WebSocket request is checked
before any handler runs:

* With a token (required when bound to a non-loopback address), the request
  must carry it: `?token=` in the URL, an `Authorization: Bearer` header, or
  the cookie the page sets after a successful `?token=` visit. Comparison is
  constant-time.
* Without a token the server listens on loopback only, and then the `Host`
  header must name a loopback host too. That stops DNS rebinding, where a web
  page the person visits points its own host name at 127.0.0.1 and would
  otherwise drive the shell as a same-origin site.

WebSocket upgrades are also same-origin only (tornado's default check), so a
foreign page cannot open the terminal socket with the person's cookie.
"""

from __future__ import annotations

import hmac
import ipaddress
from dataclasses import dataclass
from urllib.parse import urlsplit

from tornado.httputil import HTTPServerRequest

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain"})


def is_loopback_host(host: str) -> bool:
    """True for `localhost` and any address in 127.0.0.0/8 or ::1."""
    host = host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one request."""

    status: int
    """200 to go on, otherwise the HTTP status to refuse with."""
    remember: bool = False
    """The token came in the URL: set the cookie so later requests carry it."""


@dataclass(frozen=True)
class AccessPolicy:
    """The token (or None) and the cookie that carries it for this server."""

    token: str | None
    cookie_name: str

    def check(self, request: HTTPServerRequest) -> Verdict:
        """Decide whether `request` may reach a handler."""
        if self.token is None:
            host = urlsplit("//" + request.host).hostname or ""
            return Verdict(200) if is_loopback_host(host) else Verdict(403)
        from_query = _first(request.query_arguments.get("token"))
        if from_query is not None and self._matches(from_query):
            return Verdict(200, remember=True)
        header = request.headers.get("Authorization", "")
        scheme, _, credential = header.partition(" ")
        if scheme.lower() == "bearer" and self._matches(credential.strip()):
            return Verdict(200)
        cookie = request.cookies.get(self.cookie_name)
        if cookie is not None and self._matches(cookie.value):
            return Verdict(200)
        return Verdict(401)

    def _matches(self, candidate: str) -> bool:
        assert self.token is not None
        return hmac.compare_digest(candidate.encode(), self.token.encode())


def _first(values: list[bytes] | None) -> str | None:
    if not values:
        return None
    return values[0].decode("utf-8", errors="replace")
