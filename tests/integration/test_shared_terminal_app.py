"""apps/shared-terminal: start.sh, stop.sh and the bundled web server, for real.

Every test runs its own install (own tmux socket, session, port and runtime
directory) with the real scripts, real tmux and the real web server, and
ends it by pid file and socket afterwards.
"""

from __future__ import annotations

import asyncio
import http.client
import importlib.util
import json
import signal
import socket
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from tornado.httpclient import HTTPClientError, HTTPRequest
from tornado.websocket import WebSocketClientConnection, websocket_connect

from ..conftest import rename_storm


def _load_harness() -> ModuleType:
    """The install harness shared with tests/browser (one copy of that code)."""
    name = "shared_terminal_harness"
    if name not in sys.modules:
        path = Path(__file__).resolve().parents[1] / "browser" / f"{name}.py"
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


harness = _load_harness()
SharedTerminalApp = harness.SharedTerminalApp
wait_for = harness.wait_for
APP_DIR: Path = harness.APP_DIR


@pytest.fixture
def make_app(tmp_path: Path) -> Iterator:
    """Factory of private installs; all of them are ended after the test."""
    apps: list = []

    def make(**overrides: str):
        runtime = tmp_path / f"run{len(apps)}"
        runtime.mkdir(mode=0o700)
        app = SharedTerminalApp(runtime_dir=runtime, overrides=dict(overrides))
        apps.append(app)
        return app

    try:
        yield make
    finally:
        for app in apps:
            app.cleanup()


@pytest.fixture
def app(make_app) -> SharedTerminalApp:
    return make_app()


def http_get(port: int, path: str, headers: dict[str, str] | None = None, host: str = "127.0.0.1"):
    """(status, headers, body) of one GET, without following anything."""
    conn = http.client.HTTPConnection(host, port, timeout=5)
    try:
        conn.request("GET", path, headers=headers or {})
        response = conn.getresponse()
        return response.status, response.headers, response.read()
    finally:
        conn.close()


def health(app) -> dict:
    status, _, body = http_get(app.port, "/healthz")
    assert status == 200
    return json.loads(body)


def listening_addresses(port: int) -> set[str]:
    """Local addresses with a TCP socket listening on `port` (from /proc/net)."""
    found = set()
    for table, width in (("/proc/net/tcp", 8), ("/proc/net/tcp6", 32)):
        for line in Path(table).read_text().splitlines()[1:]:
            fields = line.split()
            address, _, port_hex = fields[1].partition(":")
            if fields[3] == "0A" and int(port_hex, 16) == port:
                raw = bytes.fromhex(address)
                if width == 8:
                    found.add(socket.inet_ntop(socket.AF_INET, raw[::-1]))
                else:
                    words = b"".join(raw[i : i + 4][::-1] for i in range(0, 16, 4))
                    found.add(socket.inet_ntop(socket.AF_INET6, words))
    return found


def process_alive(pid: int) -> bool:
    return harness.start_time(pid) is not None


def cmdline(pid: int) -> str:
    return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()


async def open_terminal_socket(
    app, query: str = "rows=30&cols=100", headers: dict[str, str] | None = None
) -> WebSocketClientConnection:
    """Open the page's WebSocket as the page would; returns after ["setup", {}]."""
    request = HTTPRequest(f"ws://127.0.0.1:{app.port}/ws?{query}", headers=headers or {}, connect_timeout=5)
    conn = await websocket_connect(request)
    first = await asyncio.wait_for(conn.read_message(), 5)
    assert first is not None and json.loads(first) == ["setup", {}]
    return conn


def client_count(app) -> int:
    """Clients of the page's terminals (the tool's own read-only control-mode client is none)."""
    rows = app.tmux("list-clients", "-F", "#{client_control_mode}").stdout.split()
    return rows.count("0")


# --- start.sh -----------------------------------------------------------------


def test_setup_is_quiet_and_quick_when_nothing_is_missing(app) -> None:
    app.script("setup.sh")  # the first run may install
    began = time.monotonic()
    done = app.script("setup.sh")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "" and done.stderr == ""
    assert time.monotonic() - began < 5


def test_start_is_idempotent(app) -> None:
    first = app.start()
    assert "(created)" in first.stdout
    assert app.url in first.stdout
    assert "python -m python.tools.tmux_tool read" in first.stdout
    assert "send --text 'ls'" in first.stdout
    server_pid = app.display("#{pid}")
    web_pid = health(app)["pid"]

    second = app.start()
    assert "(existing)" in second.stdout and "already running" in second.stdout
    assert app.url in second.stdout
    assert app.tmux("list-sessions", "-F", "#{session_name}").stdout.split() == [app.session]
    assert app.display("#{pid}") == server_pid
    assert health(app)["pid"] == web_pid
    assert listening_addresses(app.port) == {"127.0.0.1"}


def test_start_recreates_a_session_that_was_closed_but_keeps_the_web_server(app) -> None:
    app.start()
    web_pid = health(app)["pid"]
    app.tmux("kill-server")
    assert health(app)["session_alive"] is False
    done = app.start()
    assert "(created)" in done.stdout
    assert app.session_alive()
    info = health(app)
    assert info["session_alive"] is True and info["pid"] == web_pid


def test_session_uses_our_config_not_the_users(app, tmp_path: Path) -> None:
    user_config = tmp_path / "xdg-config"
    (user_config / "tmux").mkdir(parents=True)
    (user_config / "tmux" / "tmux.conf").write_text("set -g @loaded_user_config yes\n")
    (tmp_path / "home").mkdir()
    app.overrides["XDG_CONFIG_HOME"] = str(user_config)
    app.start()

    def option(*args: str) -> str:
        return app.tmux("show-options", "-qv", *args).stdout.strip()

    assert option("-g", "history-limit") == "50000"
    assert option("-g", "window-size") == "latest"
    assert option("-g", "default-size") == "200x50"
    assert option("-g", "status") == "off"
    assert option("-g", "mouse") == "on"
    assert option("-g", "default-terminal") == "tmux-256color"
    assert int(option("-s", "escape-time")) <= 50
    assert option("-g", "@loaded_user_config") == ""
    # No client attached yet: the window has the configured default size.
    assert app.display("#{window_width}x#{window_height}") == "200x50"

    app.wait_for_prompt()
    app.send_text("printf 'TERM=%s\\n' \"$TERM\"")
    app.send_keys("Enter")
    wait_for(lambda: "TERM=tmux-256color" in app.capture().splitlines(), "TERM inside the session")


def test_web_server_listens_on_loopback_only(app) -> None:
    app.start()
    assert listening_addresses(app.port) == {"127.0.0.1"}
    info = health(app)
    assert info["session"] == app.session and info["socket"] == app.socket
    assert info["session_alive"] is True
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.2", app.port), timeout=5).close()
    status, _, page = http_get(app.port, "/")
    assert status == 200 and b"/vendor/xterm/lib/xterm.js" in page
    for asset in ("/vendor/xterm/lib/xterm.js", "/vendor/addon-fit/lib/addon-fit.js", "/static/terminal.js"):
        assert http_get(app.port, asset)[0] == 200, asset


def test_a_foreign_host_name_is_refused_without_a_token(app) -> None:
    # DNS rebinding: a web page whose own host name resolves to 127.0.0.1.
    app.start()
    assert http_get(app.port, "/", {"Host": f"rebind.example:{app.port}"})[0] == 403
    assert http_get(app.port, "/healthz", {"Host": "rebind.example"})[0] == 403
    assert http_get(app.port, "/", {"Host": f"localhost:{app.port}"})[0] == 200


def test_start_fails_cleanly_when_the_port_is_taken(app) -> None:
    with socket.socket() as squatter:
        squatter.bind(("127.0.0.1", app.port))
        squatter.listen()
        done = app.script("start.sh")
    assert done.returncode != 0
    assert "did not come up" in done.stderr
    assert not (app.state_dir / "web.pid").exists()


def test_foreground_mode_serves_until_sigterm(app) -> None:
    log = app.runtime_dir / "foreground.out"
    with log.open("w") as out:
        proc = subprocess.Popen(
            [str(APP_DIR / "start.sh"), "--foreground"],
            env=app.env,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        # start.sh execs the server, so the server keeps the pid we started.
        wait_for(lambda: _health_pid(app) == proc.pid, "the foreground server to answer", 60)
        assert (app.state_dir / "web.pid").read_text().split()[0] == str(proc.pid)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=5)
    assert not (app.state_dir / "web.pid").exists()
    assert app.session_alive()


def _health_pid(app) -> int | None:
    try:
        return health(app)["pid"]
    except (OSError, AssertionError):
        return None


# --- stop.sh ------------------------------------------------------------------


def test_stop_ends_only_our_web_server_and_keeps_the_session(make_app) -> None:
    ours, neighbour = make_app(), make_app()
    ours.start()
    neighbour.start()
    our_pid, neighbour_pid = health(ours)["pid"], health(neighbour)["pid"]

    done = ours.stop()
    assert f"pid {our_pid}" in done.stdout
    assert "keeps running" in done.stdout
    wait_for(lambda: not process_alive(our_pid), "our web server to exit")
    assert listening_addresses(ours.port) == set()
    assert not (ours.state_dir / "web.pid").exists()
    assert ours.session_alive()

    assert process_alive(neighbour_pid)
    assert health(neighbour)["pid"] == neighbour_pid
    assert neighbour.session_alive()


def test_stop_with_kill_session_ends_the_tmux_server(app) -> None:
    app.start()
    server_pid = int(app.display("#{pid}"))
    done = app.stop("--kill-session")
    assert "Ended the tmux server" in done.stdout
    assert not app.session_alive()
    wait_for(lambda: not process_alive(server_pid), "the tmux server to exit")


def test_stop_and_start_again_while_the_agent_lives(app, monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    """The host keeps the tool's tmux connection between calls; while it idles, the human's
    terminal keeps tmux talking (window names here).  Ending the server must not wait for the
    agent, and the agent must find the new session after start.sh."""
    from python.tools.tmux_tool import call

    app.start()
    app.wait_for_prompt()
    for key, value in app.env.items():
        if key.startswith("TMUX_TOOL_"):
            monkeypatch.setenv(key, value)
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
    assert call("status")["ok"]
    server_pid = int(app.display("#{pid}"))
    rename_storm(app.socket, app.target, tmp_path)
    app.stop("--kill-session")
    wait_for(lambda: not process_alive(server_pid), "the tmux server to exit", timeout=5)
    app.start()
    app.wait_for_prompt()
    assert int(app.display("#{pid}")) != server_pid
    after = call("send", text="echo back")
    assert after["ok"], after
    wait_for(lambda: "back" in app.capture().split("echo back", 1)[-1], "the new shell to answer the agent")


def test_stop_says_how_to_end_the_private_server(app, private_socket: str) -> None:
    """The agent's own server is not the app's to end, but the human is told how."""
    from python.tools.tmux_tool import call

    app.start()
    assert call("run", command="true")["ok"]
    done = app.stop()
    assert f"tmux -L {private_socket} kill-server" in done.stdout, done.stdout
    assert subprocess.run(["tmux", "-L", private_socket, "has-session", "-t", "=scratch"],
                          timeout=10, check=False).returncode == 0  # told, not done


def test_stop_kills_nothing_when_the_pid_file_names_another_process(app, tmp_path: Path) -> None:
    app.start()
    app.stop()
    stranger = subprocess.Popen(["sleep", "300"], stdin=subprocess.DEVNULL)
    try:
        start = harness.start_time(stranger.pid)
        (app.state_dir / "web.pid").write_text(f"{stranger.pid} {start} builtin\n")
        done = app.stop()
        assert "killed nothing" in done.stderr
        assert stranger.poll() is None and process_alive(stranger.pid)
        assert not (app.state_dir / "web.pid").exists()
    finally:
        stranger.kill()
        stranger.wait(timeout=5)


def test_stop_detaches_browser_clients_and_keeps_the_session(app) -> None:
    app.start()
    app.wait_for_prompt()

    async def scenario() -> None:
        conn = await open_terminal_socket(app)
        # The page's pty starts `tmux attach`; the client registers a moment after "setup".
        await asyncio.to_thread(wait_for, lambda: client_count(app) == 1, "the browser's tmux client")
        # Keys from the socket reach the session like keys from the page.
        conn.write_message(json.dumps(["stdin", "echo via-socket-$((6*7))\r"]))
        await asyncio.to_thread(
            wait_for, lambda: "via-socket-42" in app.capture().splitlines(), "socket input"
        )
        await asyncio.to_thread(app.stop)
        # The server closes the socket as it shuts down.
        while await asyncio.wait_for(conn.read_message(), 10) is not None:
            pass

    asyncio.run(scenario())
    wait_for(lambda: client_count(app) == 0, "the browser's tmux client to be gone")
    assert app.session_alive()


def test_a_new_tab_never_resizes_the_window_to_a_default_size(app) -> None:
    # Under window-size latest, a client attaching at 80x24 and resizing a
    # moment later would shrink everyone's window (and the screen the tool
    # reads). tmux's own hook records every resize of the window, in the
    # server and in order (a shell run by the hook could write after the
    # test has read).
    app.start()
    app.tmux("set-hook", "-g", "window-resized", "set-option -gaF @resizes ' #{window_width}x#{window_height}'")

    async def scenario() -> None:
        conn = await open_terminal_socket(app, query="rows=33&cols=111")
        try:
            await asyncio.to_thread(
                wait_for,
                lambda: app.display("#{window_width}x#{window_height}") == "111x33",
                "the window to take the page's size",
            )
        finally:
            conn.close()

    asyncio.run(scenario())
    wait_for(lambda: "111x33" in app.display("#{@resizes}"), "the resize hook to run")
    assert set(app.display("#{@resizes}").split()) == {"111x33"}


# --- tokens -------------------------------------------------------------------


def test_non_loopback_bind_generates_a_token_and_rejects_strangers(make_app) -> None:
    app = make_app(TMUX_TOOL_WEB_BIND="0.0.0.0", TMUX_TOOL_WEB_TOKEN="")
    done = app.start()
    assert "generated an access token" in done.stderr
    token_file = app.state_dir / "web.token"
    token = token_file.read_text().strip()
    assert len(token) >= 32
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    assert f"?token={token}" in done.stdout
    assert listening_addresses(app.port) == {"0.0.0.0"}
    _assert_token_enforced(app, token)


def test_a_given_token_is_checked_even_on_loopback(make_app) -> None:
    token = "correct-horse-battery-staple-0123456789"
    app = make_app(TMUX_TOOL_WEB_TOKEN=token)
    app.start()
    assert listening_addresses(app.port) == {"127.0.0.1"}
    _assert_token_enforced(app, token)


def _assert_token_enforced(app, token: str) -> None:
    for path in ("/", "/healthz", "/static/terminal.js", "/vendor/xterm/lib/xterm.js"):
        assert http_get(app.port, path)[0] == 401, path
        assert http_get(app.port, path + "?token=wrong")[0] == 401, path
        assert http_get(app.port, path, {"Authorization": "Bearer wrong"})[0] == 401, path
        assert http_get(app.port, path, {"Authorization": f"Bearer {token}"})[0] == 200, path

    status, headers, _ = http_get(app.port, f"/?token={token}")
    assert status == 200
    cookie = headers["Set-Cookie"].split(";")[0]
    assert "HttpOnly" in headers["Set-Cookie"] and "SameSite=Strict" in headers["Set-Cookie"]
    assert http_get(app.port, "/healthz", {"Cookie": cookie})[0] == 200

    async def sockets() -> None:
        with pytest.raises(HTTPClientError) as refused:
            await open_terminal_socket(app)
        assert refused.value.code == 401
        conn = await open_terminal_socket(app, query=f"rows=24&cols=80&token={token}")
        conn.close()
        conn = await open_terminal_socket(app, headers={"Cookie": cookie})
        conn.close()

    asyncio.run(sockets())
    # The token stays off the command line, out of the access log, and out of
    # the environment of the shells in the session (where `env` would show it).
    web_pid = health_with(app, token)["pid"]
    assert token not in cmdline(web_pid)
    assert token not in (app.state_dir / "web.log").read_text()
    assert token not in app.tmux("show-environment", "-g").stdout
    pane_pid = app.display("#{pane_pid}")
    assert token.encode() not in Path(f"/proc/{pane_pid}/environ").read_bytes()


def health_with(app, token: str) -> dict:
    status, _, body = http_get(app.port, "/healthz", {"Authorization": f"Bearer {token}"})
    assert status == 200
    return json.loads(body)


def test_server_refuses_a_non_loopback_bind_without_a_token(app) -> None:
    env = {k: v for k, v in app.env.items() if k != "TMUX_TOOL_WEB_TOKEN"}
    done = subprocess.run(
        [
            str(harness.REPO / ".venv" / "bin" / "python"),
            str(APP_DIR / "web" / "server.py"),
            "--socket",
            app.socket,
            "--session",
            app.session,
            "--port",
            str(app.port),
            "--bind",
            "0.0.0.0",
            "--tmux-conf",
            str(APP_DIR / "tmux.conf"),
        ],
        check=False,
        env=env,
        capture_output=True,
        text=True,
        timeout=30,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "needs a token" in done.stderr
    assert listening_addresses(app.port) == set()
