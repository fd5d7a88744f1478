"""The page of a shared session that lives on another host: ``start.sh --host NAME``.

The session is made on the host (the test's sshd, a user whose login shell is
zsh) with the app's tmux.conf; the page here shows it, a person types into it
through the page, the agent works in it with ``host``, and ``stop.sh --host
NAME --kill-session`` ends it there.
"""

from __future__ import annotations

import asyncio
import json
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from tornado.httpclient import HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from python.tools.tmux_tool import call

from ..conftest import poll
from ..integration.test_shared_terminal_app import SharedTerminalApp, health
from .conftest import container_host, declare, inside

if TYPE_CHECKING:
    from ..accounts import RemoteHost
    from ..containers import Container

pytest_plugins = ["tests.accounts", "tests.containers"]


@pytest.fixture
def page(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
         monkeypatch: pytest.MonkeyPatch) -> Iterator[SharedTerminalApp]:
    """An install of the app whose session is on the host ``box``; all of it ended afterwards."""
    declare(tmp_path, monkeypatch, remote_host.line)
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    app = SharedTerminalApp(runtime_dir=runtime)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", app.socket)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SESSION", app.session)
    remote_host.ssh("printf '%s\\n' \"PS1='%n@box %~ %# '\" > ~/.zshrc")
    yield app
    app.script("stop.sh", "--host", "box", "--kill-session", timeout=60)
    app.cleanup()  # a page of this machine's session, when the test started one
    remote_host.ssh(f"tmux -L {app.socket} kill-server 2>/dev/null; tmux -L {private_socket} kill-server "
                    f"2>/dev/null; rm -rf ~/.tmux_tool; true")


def far(remote_host: RemoteHost, app: SharedTerminalApp, *args: str) -> str:
    """One tmux command on the host's server of the app's socket (its stdout, '' on failure), run by sh:
    the login shell there is zsh, which would expand a target's ``=name``."""
    script = f"tmux -L {app.socket} {shlex.join(args)} 2>/dev/null || true"
    return remote_host.ssh(f"sh -c {shlex.quote(script)}")


async def _open(app: SharedTerminalApp) -> WebSocketClientConnection:
    request = HTTPRequest(f"ws://127.0.0.1:{app.port}/ws?rows=30&cols=100", connect_timeout=5)
    conn = await websocket_connect(request)
    first = await asyncio.wait_for(conn.read_message(), 10)
    assert first is not None and json.loads(first) == ["setup", {}]
    return conn


async def _until(conn: WebSocketClientConnection, seen: list[str], text: str, timeout: float = 20) -> None:
    """Read the tab's output into ``seen`` until ``text`` is in it."""
    async def read() -> None:
        while text not in "".join(seen):
            message = await conn.read_message()
            assert message is not None, f"the tab closed; it showed: {''.join(seen)[-500:]!r}"
            kind, *rest = json.loads(message)
            if kind == "stdout":
                seen.append(rest[0])
    try:
        await asyncio.wait_for(read(), timeout)
    except TimeoutError:
        raise AssertionError(f"{text!r} never showed in the tab; it showed: {''.join(seen)[-500:]!r}") from None


def test_the_page_serves_the_session_on_the_host(page: SharedTerminalApp, remote_host: RemoteHost) -> None:
    done = page.start("--host", "box")
    assert "(created)" in done.stdout and f"tmux -L {page.socket} on box" in done.stdout, done.stdout
    assert "--host box" in done.stdout
    assert far(remote_host, page, "has-session", "-t", f"={page.session}") == ""
    assert far(remote_host, page, "list-sessions", "-F", "#{session_name}").split() == [page.session]
    assert far(remote_host, page, "show-options", "-gv", "history-limit").strip() == "50000"  # the app's conf
    info = health(page)
    assert info["session_alive"] is True and info["host"] == "box", info
    assert far(remote_host, page, "show-options", "-gqv", "@tmux_tool_page").strip() == page.url

    again = page.start("--host", "box")
    assert "(existing)" in again.stdout and "already running" in again.stdout, again.stdout

    async def scenario() -> None:
        conn = await _open(page)
        seen: list[str] = []
        try:
            await _until(conn, seen, "@box ~ %")
            conn.write_message(json.dumps(["stdin", "echo page-$((6 * 7))\r"]))
            await _until(conn, seen, "page-42")
            res = await asyncio.to_thread(call, "send", text="echo agent-$((7 * 7))", host="box", timeout=20)
            assert (res["ok"], res["status"], res["output"]) == (True, "ready", "agent-49"), res
            await _until(conn, seen, "agent-49")
            # A secret asked in the host's session (zsh there: its own read has no -s -p): the page's list
            # says so, for a page that shows one of the agent's terminals.
            res = await asyncio.to_thread(call, "send", host="box", timeout=5,
                                          text="printf 'Password: '; stty -echo; read pw; stty echo; echo got-${#pw}")
            assert (res["status"], res.get("needs_human")) == ("blocked", True), res
            asked = await asyncio.to_thread(poll, lambda: (_shared(page) or {}).get("needs_human") is True, 10)
            assert asked, _shared(page)
            conn.write_message(json.dumps(["stdin", "hunter2\r"]))
            await _until(conn, seen, "got-7")
            told = await asyncio.to_thread(poll, lambda: (_shared(page) or {}).get("needs_human") is False, 10)
            assert told, _shared(page)
        finally:
            conn.close()

    asyncio.run(scenario())
    screen = far(remote_host, page, "capture-pane", "-p", "-t", f"={page.session}:")
    assert "page-42" in screen and "agent-49" in screen, screen

    stopped = page.stop("--host", "box", "--kill-session")
    assert f"Ended the tmux server on socket '{page.socket}' on box." in stopped.stdout, stopped.stdout
    assert far(remote_host, page, "list-sessions", "-F", "#{session_name}").strip() == ""


def test_a_host_name_that_is_an_option_is_refused(page: SharedTerminalApp) -> None:
    done = page.script("start.sh", "--host", "-oProxyCommand=x")
    assert done.returncode != 0 and "--host '-oProxyCommand=x'" in done.stderr, done.stderr


def test_a_host_that_cannot_be_reached_is_said(page: SharedTerminalApp, tmp_path: Path) -> None:
    (tmp_path / "hosts").write_text("nowhere ssh -F none -p 1 -o ConnectTimeout=3 nobody@127.0.0.3\n")
    done = page.script("start.sh", "--host", "nowhere")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "could not make tmux session" in done.stderr and "nowhere" in done.stderr, done.stderr


def test_the_page_serves_a_session_in_a_container(container: Container, private_socket: str, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """A host reached by ``podman exec -i``: each tab is ``podman exec -t -i ... tmux`` there."""
    runtime = tmp_path / "run"
    runtime.mkdir(mode=0o700)
    app = SharedTerminalApp(runtime_dir=runtime)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", app.socket)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SESSION", app.session)
    with container_host(container, "ctr", private_socket, tmp_path, monkeypatch) as box:
        try:
            done = app.start("--host", "ctr")
            assert "(created)" in done.stdout, done.stdout

            async def scenario() -> None:
                conn = await _open(app)
                seen: list[str] = []
                try:
                    conn.write_message(json.dumps(["stdin", "echo box-$((6 * 7)) $(hostname)\r"]))
                    await _until(conn, seen, f"box-42 {box.name}")
                finally:
                    conn.close()

            asyncio.run(scenario())
            screen = inside(box, f"tmux -L {app.socket} capture-pane -p -t '={app.session}:'")
            assert f"box-42 {box.name}" in screen, screen
        finally:
            app.script("stop.sh", "--host", "ctr", "--kill-session", timeout=60)
            app.cleanup()
            inside(box, f"tmux -L {app.socket} kill-server; rm -rf ~/.tmux_tool", check=False)


def _listed(app: SharedTerminalApp) -> dict:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=5)
    try:
        conn.request("GET", "/api/sessions")
        answer: dict = json.loads(conn.getresponse().read())
        return answer
    finally:
        conn.close()


def _sessions(app: SharedTerminalApp) -> dict[str, dict]:
    return {row["session"]: row for row in _listed(app)["sessions"]}


def _shared(app: SharedTerminalApp) -> dict | None:
    """The shared session as the page's list judges it."""
    shared: dict | None = _listed(app)["shared"]
    return shared


def _hold(app: SharedTerminalApp, session: str, why: str) -> int:
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", app.port, timeout=10)
    try:
        conn.request("POST", "/api/hold", body=json.dumps({"session": session, "held": True, "why": why}),
                     headers={"Content-Type": "application/json", "Origin": f"http://127.0.0.1:{app.port}"})
        return conn.getresponse().status
    finally:
        conn.close()


def test_the_page_shows_the_agents_sessions_on_a_host_and_the_human_types_a_secret_there(
        page: SharedTerminalApp, remote_host: RemoteHost, private_socket: str) -> None:
    """The agent's sessions on a connected host are in the page as NAME@HOST: listed with their state,
    watched, and taken over when one asks for a secret, which the human types there."""
    assert call("run", command="echo far-$((5 * 5))", host="box", timeout=20)["output"] == "far-25"
    page.start()  # this machine's shared session and its page
    assert poll(lambda: _sessions(page).get("scratch@box", {}).get("status") == "ready", 10), _sessions(page)

    res = call("run", command="read -rs -p 'Password: ' pw; echo; echo got-${#pw}", session="sec", host="box",
               timeout=3)
    assert (res["status"], res.get("needs_human")) == ("blocked", True), res
    assert f"{page.url}#session=sec@box" in res["hint"], res["hint"]
    assert poll(lambda: _sessions(page).get("sec@box", {}).get("needs_human") is True, 10), _sessions(page)
    assert _hold(page, "sec@box", "secret") == 200

    async def scenario() -> None:
        request = HTTPRequest(f"ws://127.0.0.1:{page.port}/agent-ws?session=sec@box&rows=24&cols=80&write=1",
                              connect_timeout=5)
        conn = await websocket_connect(request)
        seen: list[str] = []
        try:
            first = await asyncio.wait_for(conn.read_message(), 10)
            assert first is not None and json.loads(first) == ["setup", {"writable": True}], first
            await _until(conn, seen, "Password:")
            conn.write_message(json.dumps(["stdin", "hunter2\r"]))
            await _until(conn, seen, "got-7")
        finally:
            conn.close()

    asyncio.run(scenario())
    res = call("wait", session="sec", host="box", timeout=20)
    assert (res["status"], res["output"]) == ("ready", "Password: \ngot-7"), res  # the prompt as written
    assert "hunter2" not in json.dumps(res)
    assert poll(lambda: not _sessions(page).get("sec@box", {}).get("held"), 10), _sessions(page)
