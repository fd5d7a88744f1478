"""The agent's private sessions in the page: listed with their state, watched, taken over, handed back.

* ``GET /api/sessions?since=REV``: every private session of the agent with
  its program, status, evidence, the question it asks, whether it needs the
  human (a secret) and who of the humans holds it.  The list is kept by one
  thread of this server, not by the pages: tmux stamps each session with the
  time of its last output (``session_activity``, in whole seconds, so the
  cursor and history of its pane are compared too), so one ``list-sessions``
  tells which sessions changed, and only those are judged again (by the
  tool's own ``status``, the facts the agent gets), plus every second the
  ones still at work.  Each row also gives the window's size (``cols``,
  ``rows``): a view is drawn at that size, never resizing the agent's window.
  ``shared`` is the shared terminal, judged the same way, so that a page
  showing one of the agent's terminals can say that the shared one asks the
  human for a secret.
* ``POST /api/hold`` ``{"session", "held": bool, "why": "take"|"secret"}``:
  the human takes a session's keyboard, or hands it back.  While the human
  holds it the tool refuses the agent's keys there.  A session taken because
  it asked for a secret is handed back by this server as soon as the secret
  is no longer asked for.
* ``POST /api/answer`` ``{"session", "question", "option", "asked"}``: one
  tap on an option of the question a session is blocked on (the row's
  ``question``, ``options`` and ``asked``, which tells it from a question in
  the same words about something else) types the keys that choose it, only
  if the same question is still on screen at the keystroke (checked inside
  tmux: see the tool's ``sessions/tap.py``); else nothing is typed and the
  answer says why.  Never
  for a secret's question.  The answer goes to the audit trail, and the
  agent's next result of the session says the human gave it.
* ``/agent-ws?session=NAME``: a terminal view of one session, a tmux client
  of the agent's server that never resizes its window (``ignore-size``) and,
  unless the page holds the session, is read-only in tmux itself: a read-only
  view cannot type, whatever the browser sends.

Sessions the agent has on other hosts are listed too, as ``NAME@HOST`` (a
session's name never holds ``@``), from each host whose connection is up;
their views are tmux clients there, in a terminal the host's command opens.
"""

from __future__ import annotations

import asyncio
import logging
import re
import subprocess
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from control_api import ControlApi
from tmux_terminals import DEFAULT_SIZE, TmuxTermSocket, _dimension
from tornado.web import HTTPError
from web_handlers import Guarded, SharedSession

from python.helpers.tmux_tool.frontends.page import (
    HELD,
    SEP,
    Tapped,
    Tmux,
    TmuxError,
    agent_tmux,
    answer_question,
    connected_hosts,
    holder,
    names_a_host,
    status_of,
)

LOG = logging.getLogger("shared-terminal")
HISTORY_ROWS = 2000  # rows of a session's history a new view starts with
VIEW_TERM = "tmux-tool-view"  # xterm-256color without the alternate screen, so a view keeps a scrollback
LOOK_EVERY = 0.5  # seconds between two looks at the session list (one tmux command)
AT_WORK_EVERY = 1.0  # a session at work is judged again this often even without output
HOST_EVERY = 2.0  # seconds between two looks at a host's session list (a command there: an ssh channel, an exec)
NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
CLEAR = "\x1b[H\x1b[2J"  # a tmux client's `clear`: as it starts, as it stops, and never in between
ENDED = "exited]"  # the end of a tmux client's last words when its session (or its server) ended
FAREWELL = 200  # characters of a client's last words kept, to tell why it ended
HELD_BY_PAGE = ("page", "page:secret")
SHARED = "@shared"  # the shared terminal's key among what was seen (no session of the agent has an @ first)
# One line per session: name, last output (s), who holds it, window size, and what changes with any output
# within the same second (the active pane's cursor and history).
LOOK = SEP.join(["#{session_name}", "#{session_activity}", f"#{{{HELD}}}", "#{window_width}",
                    "#{window_height}", "#{cursor_x},#{cursor_y},#{history_size},#{pane_dead}"])


@dataclass
class AgentSessions:
    """The agent's private sessions as the page shows them, kept up to date by one thread."""

    socket: str
    shared: SharedSession | None = None  # the human's terminal, judged too (for its secrets)
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    shared_row: dict[str, Any] | None = None
    revision: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)
    stop: threading.Event = field(default_factory=threading.Event)
    _seen: dict[str, tuple[str, ...]] = field(default_factory=dict)
    _judged_at: dict[str, float] = field(default_factory=dict)
    # The thread and a hold from the page may refresh at once: one at a time.
    _refreshing: threading.Lock = field(default_factory=threading.Lock)
    view_env: dict[str, str] = field(default_factory=dict)  # TERM (and TERMINFO) of a view's client
    _hosts_seen: dict[str, tuple[float, str]] = field(default_factory=dict)  # host -> (when, its list)

    def tmux(self, host: str | None = None) -> Tmux:
        """The agent's server here, or on ``host``."""
        return Tmux(self.socket) if host is None else agent_tmux(host)

    def servers(self) -> list[tuple[str | None, Tmux]]:
        """The agent's server here, and on each host whose connection is up now."""
        return [(None, self.tmux())] + [(host, self.tmux(host)) for host in connected_hosts()]

    def start(self) -> None:
        threading.Thread(target=self._run, name="agent-sessions", daemon=True).start()

    def view(self) -> tuple[int, list[dict[str, Any]], dict[str, Any] | None]:
        with self.lock:
            shared = dict(self.shared_row) if self.shared_row is not None else None
            return self.revision, [dict(r) for r in self.rows.values()], shared

    def _run(self) -> None:
        while not self.stop.wait(LOOK_EVERY):
            try:
                self.refresh()
            except Exception:
                LOG.exception("the agent's sessions could not be looked at")

    def refresh(self) -> None:
        """Judge again the sessions that printed something, were held or let go, or are at work."""
        with self._refreshing:
            self._refresh()

    def _refresh(self) -> None:
        listed: dict[str, tuple[str, ...]] = {}
        for host, tmux in self.servers():
            for line in self._list(host, tmux).splitlines():
                fields = (line.split(SEP) + [""] * 5)[:6]
                listed[key(fields[0], host)] = tuple(fields[1:])
        now = time.monotonic()
        changed = False
        for name, seen in listed.items():
            held, cols, rows = seen[1], seen[2], seen[3]
            row = self.rows.get(name)
            at_work = row is not None and row["status"] in ("busy", "blocked")
            if self._seen.get(name) == seen and not (
                    at_work and now - self._judged_at.get(name, 0.0) >= AT_WORK_EVERY):
                continue
            self._seen[name], self._judged_at[name] = seen, now
            session, host = split(name)
            fresh = self._judge(session, host, held)
            fresh["session"] = name
            fresh.update(cols=int(cols) if cols.isdigit() else None, rows=int(rows) if rows.isdigit() else None)
            if held == "page:secret" and not fresh["needs_human"]:
                self._let_go(name)  # the secret is typed: the keyboard goes back to the agent
                self._hosts_seen.pop(split(name)[1] or "", None)
                fresh["held"] = ""
            if fresh != row:
                with self.lock:
                    self.rows[name] = fresh
                changed = True
        for gone in set(self.rows) - set(listed):
            with self.lock:
                del self.rows[gone]
            self._seen.pop(gone, None)
            changed = True
        if self.shared is not None and self._look_at_shared(self.shared, now):
            changed = True
        if changed:
            with self.lock:
                self.revision += 1

    def _list(self, host: str | None, tmux: Tmux, cache: str | None = None) -> str:
        """The server's ``list-sessions`` lines: here at every look, on a host every ``HOST_EVERY`` seconds
        (kept under ``cache``, the host's name unless said)."""
        now = time.monotonic()
        cache = cache or host
        if cache is not None and (seen := self._hosts_seen.get(cache)) and now - seen[0] < HOST_EVERY:
            return seen[1]
        try:
            out = tmux.cmd("list-sessions", "-F", LOOK)
        except TmuxError:
            out = ""
        if cache is not None:
            self._hosts_seen[cache] = (now, out)
        return out

    def _look_at_shared(self, shared: SharedSession, now: float) -> bool:
        """Judge the shared terminal again when it changed (or is at work); True when what it says changed."""
        host = shared.tmux.place.name
        lines = self._list(host, shared.tmux, cache=None if host is None else f"shared@{host}").splitlines()
        seen = next((tuple(line.split(SEP)[1:]) for line in lines if line.split(SEP)[0] == shared.session), None)
        row = self.shared_row
        at_work = row is not None and row["status"] in ("busy", "blocked")
        if seen is not None and self._seen.get(SHARED) == seen and not (
                at_work and now - self._judged_at.get(SHARED, 0.0) >= AT_WORK_EVERY):
            return False
        fresh = None
        if seen is not None:
            self._seen[SHARED], self._judged_at[SHARED] = seen, now
            fresh = self._judge(shared.session, host)
            del fresh["held"]
        else:
            self._seen.pop(SHARED, None)
        if fresh == row:
            return False
        with self.lock:
            self.shared_row = fresh
        return True

    @staticmethod
    def _judge(session: str, host: str | None, held: str = "") -> dict[str, Any]:
        """The session as the tool's own ``status`` judges it: the facts the agent gets."""
        res = status_of(session, host)
        return {"session": session, "program": res.get("program") or "", "status": res.get("status"),
                "evidence": res.get("evidence") or res.get("error") or "", "question": res.get("question"),
                "options": res.get("options") or [], "asked": res.get("asked") or "", "needs_human": bool(res.get("needs_human")), "held": held}

    def _let_go(self, name: str) -> None:
        session, host = split(name)
        try:
            self.tmux(host).cmd("set-option", "-u", "-t", f"={session}:", HELD)
        except TmuxError:
            pass

    def hold(self, name: str, held: bool, why: str) -> None:
        """The page takes ``name``'s keyboard (``why``: "take", or "secret": given back by itself), or hands
        it back; the list shows it at once."""
        if held:
            session, host = split(name)
            self.tmux(host).cmd("set-option", "-t", f"={session}:", HELD,
                                "page:secret" if why == "secret" else "page")
        else:
            self._let_go(name)
        self._seen.pop(name, None)
        self._hosts_seen.pop(split(name)[1] or "", None)  # a host's list is read again now
        self.refresh()

    def answer(self, name: str, question: str, option: str, asked: str | None = None) -> Tapped:
        """The human's tap on ``option`` of ``question`` (``asked``: the row's digest of it) in session
        ``name``; the list shows the session anew at once."""
        session, host = split(name)
        tapped = answer_question(session, host, question, option, asked)
        self._seen.pop(name, None)
        self._hosts_seen.pop(host or "", None)
        self.refresh()
        return tapped

    def history(self, name: str) -> str:
        """The last rows of the session's history (above its screen), with their colours, for a view."""
        session, host = split(name)
        try:
            out = self.tmux(host).cmd("capture-pane", "-p", "-e", "-S", f"-{HISTORY_ROWS}", "-E", "-1", "-t",
                                      f"={session}:")
        except TmuxError:
            return ""
        return out.rstrip("\n").replace("\n", "\r\n") if out.strip() else ""

    def held_by_page(self, name: str) -> bool:
        session, host = split(name)
        try:
            return holder(self.tmux(host), session) in HELD_BY_PAGE
        except TmuxError:
            return False


def view_terminal(folder: Path) -> dict[str, str]:
    """The terminal a view's tmux client believes it draws on: xterm-256color without the alternate
    screen, compiled into ``folder`` ({} when that fails: then a view has no scrollback).

    tmux draws on the alternate screen when the terminal has one, and xterm.js keeps no scrollback
    there; on the normal screen, the rows tmux scrolls up stay in the view's scrollback.
    """
    source = f"{VIEW_TERM}|xterm-256color on the normal screen only,\n\tsmcup@, rmcup@, use=xterm-256color,\n"
    try:
        subprocess.run(["tic", "-x", "-o", str(folder), "-"], input=source, text=True, capture_output=True,
                       check=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        LOG.warning("tic could not compile the views' terminal: a view of an agent's session has no scrollback")
        return {}
    return {"TERM": VIEW_TERM, "TERMINFO": str(folder)}


def key(session: str, host: str | None) -> str:
    """How the page names a session: ``NAME`` here, ``NAME@HOST`` on a host."""
    return session if host is None else f"{session}@{host}"


def split(name: str) -> tuple[str, str | None]:
    """(session, host) of a name the page gave (:func:`key`)."""
    session, at, host = name.partition("@")
    return session, (host if at else None)


def session_name(raw: str | None) -> str:
    session, host = split(raw or "")
    if not NAME.fullmatch(session) or (host is not None and not names_a_host(host)):
        raise HTTPError(400, "name a session of the agent (letters, digits, _ . -, and @HOST for one on a "
                        "host)")
    return raw or ""


class SessionsHandler(ControlApi):
    """``GET /api/sessions?since=REV``: the agent's sessions, and the shared terminal as ``shared``."""

    def get(self) -> None:
        sessions: AgentSessions = self.settings["agent_sessions"]
        revision, rows, shared = sessions.view()
        raw = self.get_query_argument("since", "")
        if raw.isdigit() and int(raw) == revision:
            self.write({"ok": True, "revision": revision, "unchanged": True})
            return
        self.write({"ok": True, "revision": revision, "sessions": sorted(rows, key=lambda r: r["session"]),
                    "shared": shared})


class HoldHandler(ControlApi):
    """``POST /api/hold`` ``{"session", "held": bool, "why": "take"|"secret"}``."""

    async def post(self) -> None:
        data = self.body()
        name = session_name(data.get("session") if isinstance(data.get("session"), str) else None)
        held, why = data.get("held"), data.get("why", "take")
        if not isinstance(held, bool) or why not in ("take", "secret"):
            raise HTTPError(400, 'send {"session": NAME, "held": true|false, "why": "take"|"secret"}')
        sessions: AgentSessions = self.settings["agent_sessions"]
        try:
            await asyncio.to_thread(sessions.hold, name, held, why)
        except TmuxError as exc:
            raise HTTPError(404, f"there is no session {name} of the agent") from exc
        self.write({"ok": True, "held": held})


class AnswerHandler(ControlApi):
    """``POST /api/answer`` ``{"session", "question", "option", "asked"}``: 409 with the reason when nothing
    was typed."""

    async def post(self) -> None:
        data = self.body()
        name = session_name(data.get("session") if isinstance(data.get("session"), str) else None)
        question, option, asked = data.get("question"), data.get("option"), data.get("asked")
        if (not isinstance(question, str) or not isinstance(option, str) or not option
                or not isinstance(asked, (str, type(None)))):
            raise HTTPError(400, 'send {"session": NAME, "question": QUESTION, "option": OPTION, "asked": ASKED}')
        sessions: AgentSessions = self.settings["agent_sessions"]
        try:
            tapped = await asyncio.to_thread(sessions.answer, name, question, option, asked)
        except TmuxError as exc:
            raise HTTPError(404, f"there is no session {name} of the agent") from exc
        if not tapped.typed:
            self.answer(409, {"ok": False, "error": tapped.why})
            return
        self.write({"ok": True, "text": tapped.text, "keys": list(tapped.keys)})


class AgentTermSocket(Guarded, TmuxTermSocket):
    """One view of an agent's session: read-only in tmux unless the page holds the session."""

    cleared = False  # the client has started (cleared its screen once)
    farewell: str | None = None  # what the client wrote from its ending clear on, never drawn

    def open(self, *args: Any, **kwargs: Any) -> None:
        sessions: AgentSessions = self.settings["agent_sessions"]
        name = session_name(self.get_query_argument("session", None))
        self.writable = self.get_query_argument("write", "") == "1" and sessions.held_by_page(name)
        rows = _dimension(self.get_query_argument("rows", None), DEFAULT_SIZE[0])
        cols = _dimension(self.get_query_argument("cols", None), DEFAULT_SIZE[1])
        flags = "ignore-size" if self.writable else "read-only,ignore-size"
        session, host = split(name)
        try:
            argv = sessions.tmux(host).client_argv("attach-session", "-f", flags, "-t", f"={session}")
        except TmuxError as exc:
            raise HTTPError(404, str(exc)) from exc
        # A host has no terminfo entry of a view: its client draws for xterm-256color (no scrollback kept).
        env = sessions.view_env if host is None else {"TERM": "xterm-256color"}
        self.term_name = f"agent:{name}"
        self.terminal = self.term_manager.new_sized_terminal((rows, cols), argv, env)
        self.terminal.clients.append(self)
        self.size = (rows, cols)
        self.send_json_message(["setup", {"writable": self.writable}])
        # The session's history first, pushed into the view's scrollback; the client then draws the
        # screen below it (on the normal screen: see view_terminal).
        self.send_json_message(["stdout", sessions.history(name) + "\r\n" * rows])

    def on_pty_read(self, text: str) -> None:
        """What the view's tmux client draws, up to its end: the clear it ends with would wipe the session's
        last screen from the view, and its last words would be drawn over it."""
        if self.farewell is not None:
            self.farewell = (self.farewell + text)[-FAREWELL:]
            return
        start = 0
        if not self.cleared and (first := text.find(CLEAR)) >= 0:
            self.cleared = True  # the client starts: the view's screen below the history is blank anyway
            start = first + len(CLEAR)
        at = text.find(CLEAR, start) if self.cleared else -1
        if at >= 0:
            self.farewell, text = text[at:][-FAREWELL:], text[:at]
        if text:
            super().on_pty_read(text)

    def on_pty_died(self) -> None:
        """The view's client is gone: the page is told whether the session ended with it (a view then keeps
        its last screen and says so) or the view was only disconnected."""
        if ENDED in (self.farewell or ""):
            self.send_json_message(["ended", {}])
        super().on_pty_died()

    def on_message(self, message: str | bytes) -> None:
        if not self.writable and isinstance(message, str) and message.startswith('["stdin"'):
            return  # a read-only view: tmux ignores its keys too
        super().on_message(message)
