"""The page's view of the agent and the human's controls over it.

The state itself lives in user options of the shared tmux session (the
library's control module defines them), so the tool, ``agent.sh`` and every
open tab see the same thing. This module serves it to the page:

* ``GET /api/state?since=REV``: pause and approve switches, what the agent is
  doing, the request waiting for approval (with the digest an answer must
  carry), and the audit trail entries new or changed since revision REV;
* ``GET /api/screen?id=ID``: the screen as it was after one injection;
* ``POST /api/control`` ``{"paused": bool}`` or ``{"approve": bool}``;
* ``POST /api/approval`` ``{"id", "verdict", "digest"}``.

Every route passes the server's access check (token, or loopback with a
loopback Host). The POST routes change what the agent may do, so they also
refuse what another site could make the person's browser send: the body must
be JSON (a cross-site form or no-cors fetch cannot send that type without a
CORS preflight, which this server never grants), and an Origin or
Sec-Fetch-Site header, when present, must say the request comes from this
very page.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from tornado.web import HTTPError
from web_handlers import Guarded, SharedSession

from python.helpers.tmux_tool.shared import control
from python.helpers.tmux_tool.transport.tmux import Tmux, TmuxError

STATE_TTL = 0.15
"""Seconds one look at the tmux options serves every tab that asks."""
FEED_KEEP = 300
"""Audit entries (and their screens) the server keeps for the panel."""
FEED_FIRST_READ = 1 << 20
"""On first sight of a long audit trail, only its last MiB is read."""


# --- the audit trail -------------------------------------------------------------
@dataclass
class AuditFeed:
    """The audit trail as the panel shows it, read incrementally.

    The tool appends one line per injection (with an ``id``) and, once the
    call is over, one line with that id's result ``status`` and the rendered
    ``screen`` after it. Both are already masked by the tool. Every entry
    carries the revision at which it last changed, so a page asks only for
    what it has not seen.
    """

    path: str = ""
    offset: int = 0
    inode: int = 0
    revision: int = 0
    seq: int = 0
    entries: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    screens: dict[str, str] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self, path: str) -> None:
        """Read what was appended to ``path`` since the last call."""
        with self.lock:
            if path != self.path:
                self._reset(path)
            if not path:
                return
            try:
                fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
            except OSError:
                return
            with os.fdopen(fd, "rb") as fh:
                info = os.fstat(fh.fileno())
                # Only a private file of ours: the path comes from a tmux option.
                if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                    return
                if info.st_ino != self.inode or info.st_size < self.offset:
                    self._reset(path)
                    self.inode = info.st_ino
                    self.offset = max(0, info.st_size - FEED_FIRST_READ)
                fh.seek(self.offset)
                data = fh.read()
            complete = data.rfind(b"\n") + 1
            self.offset += complete
            for line in data[:complete].splitlines():
                self._take(line)

    def _reset(self, path: str) -> None:
        self.path, self.offset, self.inode = path, 0, 0
        self.entries.clear()
        self.screens.clear()
        self.revision += 1

    def _take(self, line: bytes) -> None:
        try:
            record = json.loads(line)
        except ValueError:
            return
        if not isinstance(record, dict):
            return
        self.revision += 1
        key = str(record.get("id") or f"line-{self.revision}")
        if "result" in record:
            entry = self.entries.get(key)
            if entry is not None:
                entry["status"] = str(record["result"])
                entry["rev"] = self.revision
                if isinstance(record.get("screen"), str):
                    self.screens[key] = record["screen"]
                    entry["screen"] = True
            return
        self.seq += 1
        keys = record.get("keys")
        self.entries[key] = {
            "id": key,
            "seq": self.seq,
            "rev": self.revision,
            "time": record.get("time"),
            "action": str(record.get("action", "")),
            "text": str(record.get("text", "")),
            "keys": [str(k) for k in keys] if isinstance(keys, list) else [],
            "enter": bool(record.get("enter")),
            "status": None,
            "screen": False,
        }
        while len(self.entries) > FEED_KEEP:
            old, _ = self.entries.popitem(last=False)
            self.screens.pop(old, None)

    def since(self, revision: int) -> list[dict[str, Any]]:
        with self.lock:
            return [dict(e) for e in self.entries.values() if e["rev"] > revision]

    def screen(self, key: str) -> str | None:
        with self.lock:
            return self.screens.get(key)


# --- the options, looked at once for all tabs ----------------------------------
class ControlState:
    """The shared session's control options, cached briefly and read off the event loop."""

    def __init__(self, shared: SharedSession) -> None:
        self.tmux = Tmux(shared.socket)
        self.target = f"={shared.session}:"
        self.feed = AuditFeed()
        self._lock = asyncio.Lock()
        self._at = 0.0
        self._last: control.Control | None = None

    async def look(self, fresh: bool = False) -> control.Control | None:
        """The options now (None when the session is not there)."""
        async with self._lock:
            if fresh or self._last is None or time.monotonic() - self._at > STATE_TTL:
                try:
                    self._last = await asyncio.to_thread(control.read, self.tmux, self.target)
                except TmuxError:
                    self._last = None
                self._at = time.monotonic()
                if self._last is not None:
                    await asyncio.to_thread(self.feed.refresh, self._last.audit)
            return self._last

    async def run(self, function: Any, *args: Any) -> Any:
        """Run one control function in a thread; the next look reads fresh."""
        async with self._lock:
            try:
                return await asyncio.to_thread(function, self.tmux, self.target, *args)
            finally:
                self._at = 0.0


def view(state: control.Control | None) -> dict[str, Any]:
    """What the page needs from the options, with the digest an approval must echo."""
    if state is None:
        return {"session_alive": False, "paused": False, "approve": False, "activity": None, "pending": None}
    pending = None
    if state.pending is not None:
        pending = {**state.pending, "digest": control.pending_digest(state.pending)}
    return {"session_alive": True, "paused": state.paused, "approve": state.approve,
            "activity": state.activity, "pending": pending}


# --- routes --------------------------------------------------------------------------
class ControlApi(Guarded):
    """JSON routes; state-changing ones only from this page itself."""

    @property
    def control(self) -> ControlState:
        return self.settings["control"]

    def prepare(self) -> None:
        super().prepare()
        self.set_header("Cache-Control", "no-store")
        if self.request.method not in ("GET", "HEAD"):
            self._same_page_only()

    def _same_page_only(self) -> None:
        request = self.request
        site = request.headers.get("Sec-Fetch-Site")
        if site is not None and site != "same-origin":
            raise HTTPError(403, "only this page may change the agent's switches")
        origin = request.headers.get("Origin")
        if origin is not None:
            parts = urlsplit(origin)
            if parts.scheme != request.protocol or parts.netloc.lower() != request.host.lower():
                raise HTTPError(403, "only this page may change the agent's switches")
        content_type = request.headers.get("Content-Type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            raise HTTPError(415, "send the request as application/json")

    def body(self) -> dict[str, Any]:
        try:
            data = json.loads(self.request.body or b"null")
        except ValueError as exc:
            raise HTTPError(400, "the body is not JSON") from exc
        if not isinstance(data, dict):
            raise HTTPError(400, "the body must be a JSON object")
        return data

    def answer(self, status: int, payload: dict[str, Any]) -> None:
        self.set_status(status)
        self.write(payload)

    def write_error(self, status_code: int, **kwargs: Any) -> None:
        """Errors as JSON with the sentence the route gave (the page shows it)."""
        error = kwargs.get("exc_info", (None, None, None))[1]
        message = error.log_message if isinstance(error, HTTPError) and error.log_message else self._reason
        self.write({"ok": False, "error": message})


class StateHandler(ControlApi):
    """``GET /api/state?since=REV``."""

    async def get(self) -> None:
        raw = self.get_query_argument("since", "0")
        since = int(raw) if raw.isdigit() else 0
        state = await self.control.look()
        feed = self.control.feed
        self.write({"ok": True, "now": time.time(), **view(state), "revision": feed.revision,
                    "entries": feed.since(since)})


class ScreenHandler(ControlApi):
    """``GET /api/screen?id=ID``: the rendered screen after one injection."""

    def get(self) -> None:
        screen = self.control.feed.screen(self.get_query_argument("id", ""))
        if screen is None:
            raise HTTPError(404, "no screen was kept for this entry")
        self.write({"ok": True, "screen": screen})


class SwitchHandler(ControlApi):
    """``POST /api/control``: ``{"paused": bool}`` and/or ``{"approve": bool}``."""

    async def post(self) -> None:
        data = self.body()
        changes = {k: data[k] for k in ("paused", "approve") if k in data}
        if not changes or not all(isinstance(v, bool) for v in changes.values()):
            raise HTTPError(400, 'send {"paused": true|false} or {"approve": true|false}')
        try:
            if "paused" in changes:
                await self.control.run(control.set_paused, changes["paused"])
            if "approve" in changes:
                await self.control.run(control.set_approve, changes["approve"])
        except TmuxError as exc:
            raise HTTPError(503, str(exc)) from exc
        self.write({"ok": True, **view(await self.control.look(fresh=True))})


class ApprovalHandler(ControlApi):
    """``POST /api/approval``: ``{"id", "verdict": "approve"|"reject", "digest"}``."""

    async def post(self) -> None:
        data = self.body()
        fields = [data.get(k) for k in ("id", "verdict", "digest")]
        if not all(isinstance(v, str) and v for v in fields):
            raise HTTPError(400, "send id, verdict and digest as strings")
        try:
            refused = await self.control.run(control.answer, *fields)
        except TmuxError as exc:
            raise HTTPError(503, str(exc)) from exc
        if refused is not None:
            self.answer(409, {"ok": False, "error": refused})
            return
        self.write({"ok": True})
