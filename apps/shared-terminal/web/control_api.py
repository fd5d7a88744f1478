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
import secrets
import stat
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from tornado.web import HTTPError
from web_handlers import NO_TOKEN, Guarded, SharedSession

from python.helpers.tmux_tool.frontends.page import (
    Control,
    TmuxError,
    answer_approval,
    audit_results,
    pending_digest,
    read_control,
    set_approve,
    set_paused,
)

STATE_TTL = 0.15
"""Seconds one look at the tmux options serves every tab that asks."""
FEED_KEEP = 300
"""Audit entries (and their screens) the server keeps for the panel."""
FEED_FIRST_READ = 1 << 20
"""On first sight of a long audit trail, only its last MiB is read."""


# --- the audit trail -------------------------------------------------------------
@dataclass
class Tail:
    """The complete lines appended to one file since the last read.

    The path comes from a tmux option, so only a regular file of this user
    that nobody else can read is followed, never through a symlink.
    """

    path: str = ""
    offset: int = 0
    inode: int = 0

    def read(self) -> tuple[bool, list[bytes]]:
        """(whether the file was replaced or truncated since the last read, the new lines)."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        except OSError:
            return False, []
        with os.fdopen(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
                return False, []
            replaced = info.st_ino != self.inode or info.st_size < self.offset
            if replaced:
                self.inode = info.st_ino
                self.offset = max(0, info.st_size - FEED_FIRST_READ)
            fh.seek(self.offset)
            data = fh.read()
        complete = data.rfind(b"\n") + 1
        self.offset += complete
        return replaced, data[:complete].splitlines()


def _records(lines: list[bytes]) -> list[dict[str, Any]]:
    found = []
    for line in lines:
        try:
            record = json.loads(line)
        except ValueError:
            continue
        if isinstance(record, dict):
            found.append(record)
    return found


@dataclass
class AuditFeed:
    """The audit trail as the panel shows it, read incrementally.

    The tool appends one line per injection (with an ``id``) to the trail and,
    once the call is over, that id's result ``status`` and rendered ``screen``
    to the results file beside it; both are already masked. Every entry
    carries the revision at which it last changed, so a page asks only for
    what it has not seen.
    """

    trail: Tail = field(default_factory=Tail)
    results: Tail = field(default_factory=Tail)
    revision: int = 0
    epoch: str = field(default_factory=lambda: secrets.token_hex(4))
    """Changes whenever the entries start over, so a page knows to drop what it holds."""
    seq: int = 0
    entries: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    screens: dict[str, str] = field(default_factory=dict)
    early: OrderedDict[str, dict[str, Any]] = field(default_factory=OrderedDict)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def refresh(self, path: str) -> None:
        """Read what the tool appended since the last call."""
        with self.lock:
            if path != self.trail.path:
                self._reset()
                self.trail = Tail(path)
                self.results = Tail(str(audit_results(Path(path)))) if path else Tail()
            if not path:
                return
            replaced, lines = self.trail.read()
            if replaced:
                self._reset()
            for record in _records(lines):
                self._entry(record)
            _, lines = self.results.read()
            for record in _records(lines):
                self._result(record)

    def _reset(self) -> None:
        self.epoch = secrets.token_hex(4)
        self.entries.clear()
        self.screens.clear()
        self.early.clear()
        self.revision += 1

    def _entry(self, record: dict[str, Any]) -> None:
        self.revision += 1
        self.seq += 1
        key = str(record.get("id") or f"entry-{self.seq}")
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
        if key in self.early:
            self._result(self.early.pop(key))
        while len(self.entries) > FEED_KEEP:
            old, _ = self.entries.popitem(last=False)
            self.screens.pop(old, None)

    def _result(self, record: dict[str, Any]) -> None:
        key = str(record.get("id", ""))
        entry = self.entries.get(key)
        if entry is None:  # its injection line is not read yet (or is too old to be kept)
            self.early[key] = record
            while len(self.early) > FEED_KEEP:
                self.early.popitem(last=False)
            return
        self.revision += 1
        entry["status"] = str(record.get("result", ""))
        entry["rev"] = self.revision
        if isinstance(record.get("screen"), str):
            self.screens[key] = record["screen"]
            entry["screen"] = True

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
        self.tmux = shared.tmux
        self.target = f"={shared.session}:"
        self.feed = AuditFeed()
        self._lock = asyncio.Lock()
        self._at = 0.0
        self._last: Control | None = None

    async def look(self, fresh: bool = False) -> Control | None:
        """The options now (None when the session is not there)."""
        async with self._lock:
            if fresh or self._last is None or time.monotonic() - self._at > STATE_TTL:
                try:
                    self._last = await asyncio.to_thread(read_control, self.tmux, self.target)
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


def view(state: Control | None) -> dict[str, Any]:
    """What the page needs from the options, with the digest an approval must echo."""
    if state is None:
        return {"session_alive": False, "paused": False, "approve": False, "activity": None, "pending": None}
    pending = None
    if state.pending is not None:
        pending = {**state.pending, "digest": pending_digest(state.pending)}
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
        if status_code == 401:
            message = NO_TOKEN
        self.write({"ok": False, "error": message})


class StateHandler(ControlApi):
    """``GET /api/state?since=REV``."""

    async def get(self) -> None:
        raw = self.get_query_argument("since", "0")
        since = int(raw) if raw.isdigit() else 0
        state = await self.control.look()
        feed = self.control.feed
        with feed.lock:
            epoch, revision = feed.epoch, feed.revision
        self.write({"ok": True, "now": time.time(), **view(state), "epoch": epoch, "revision": revision,
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
                await self.control.run(set_paused, changes["paused"])
            if "approve" in changes:
                await self.control.run(set_approve, changes["approve"])
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
            refused = await self.control.run(answer_approval, *fields)
        except TmuxError as exc:
            raise HTTPError(503, str(exc)) from exc
        if refused is not None:
            self.answer(409, {"ok": False, "error": refused})
            return
        self.write({"ok": True})
