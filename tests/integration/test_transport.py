"""The transport: the same answers over the control-mode connection as from tmux processes."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from python.helpers.tmux_tool.core.errors import NoTarget, TmuxError
from python.helpers.tmux_tool.transport import connection, connections, process
from python.helpers.tmux_tool.transport.tmux import Tmux

from ..conftest import kill_server, poll, rename_storm, unique

TEXTS = ["plain", "a;b", "end;", "a\\;", "$HOME ~ #{pane_id} #[fg=red]", "quote ' and \" both", "tab\there",
         "ünï 🙂", "two\nlines", "%begin 1 2 1", "%end 1 2 1", "x" * 40_000]


@pytest.fixture
def server() -> Iterator[Tmux]:
    socket = unique("tt-transport")
    subprocess.run(["tmux", "-L", socket, "-f", "/dev/null", "new-session", "-d", "-s", "base", "-x", "80",
                    "-y", "24", "cat"], check=True, timeout=10)
    try:
        yield Tmux(socket)
    finally:
        kill_server(socket)


@pytest.fixture(params=["connection", "processes"])
def way(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "processes":
        monkeypatch.setenv(connection.SWITCH, "off")
    return str(request.param)


def test_text_arrives_exactly(server: Tmux, way: str, tmp_path: Path) -> None:
    assert server.display("=base:", "#{session_name}") == "base"  # a command naming a session connects
    saved = tmp_path / "buffer"
    for text in TEXTS:
        server.chain(["load-buffer", "-b", "t", "-"], ["save-buffer", "-b", "t", str(saved)], input=text.encode())
        assert saved.read_bytes() == text.encode(), (way, text[:40])
    if way == "connection":
        assert connections._connections.get(server.socket) is not None  # it really went that way


def test_commands_that_add_answers_do_not_shift_the_next_ones(server: Tmux, way: str) -> None:
    chosen = server.chain(["if-shell", "-F", "1", "display-message -p yes", "display-message -p no"],
                          ["display-message", "-p", "after"])
    assert chosen == "yes\nafter\n"
    assert server.cmd("if-shell", "-F", "0", "display-message -p one ; display-message -p two",
                      "display-message -p three ; display-message -p four") == "three\nfour\n"
    assert server.display("=base:", "#{session_name}") == "base"


def test_failures_are_the_same_errors(server: Tmux, way: str) -> None:
    with pytest.raises(NoTarget):
        server.cmd("capture-pane", "-p", "-t", "=nosuchsession:")
    with pytest.raises(TmuxError):
        server.chain(["display-message", "-p", "first"], ["no-such-command"], ["display-message", "-p", "x"])
    assert server.display("=base:", "#{session_name}") == "base"  # the next command is answered as its own
    assert server.display("=nosuchsession:", "#{session_id}") == ""  # display-message: empty, not an error


def test_the_connection_comes_back_after_its_session_ends(server: Tmux) -> None:
    subprocess.run(["tmux", "-L", server.socket, "new-session", "-d", "-s", "other", "cat"], check=True,
                   timeout=10)
    assert server.display("=base:", "#{session_name}") == "base"
    first = connections._connections[server.socket]
    assert first.session == "base"
    server.cmd("kill-session", "-t", "=base")
    assert server.display("=other:", "#{session_name}") == "other"
    again = connections._connections[server.socket]
    assert again is not first and again.alive and again.session == "other"


def test_an_idle_connection_never_holds_its_server(server: Tmux, tmp_path: Path) -> None:
    """tmux writes notifications nobody asked for; unread they would fill the pipe, and a server told to
    exit waits until its clients have taken all their output (``kill-server`` hung for ever)."""
    assert server.display("=base:", "#{session_name}") == "base"
    conn = connections._connections[server.socket]
    rename_storm(server.socket, "=base:", tmp_path)
    subprocess.run(["tmux", "-L", server.socket, "kill-server"], check=True, timeout=10)
    assert poll(lambda: process.ended(conn.pid), 5), "the control client still holds the server"
    assert poll(lambda: subprocess.run(["tmux", "-L", server.socket, "list-sessions"], check=False,
                                       capture_output=True, timeout=10).returncode != 0, 5)


def test_closing_while_tmux_writes_never_holds_its_server(server: Tmux, tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    """tmux 3.3a never frees a control client whose output it could not write: were our end of the
    client's stdout closed while tmux still had output for it, the server would wait for ever."""
    monkeypatch.setattr(connection, "DRAIN_EVERY", 60.0)  # nothing read between calls: tmux holds output
    assert server.display("=base:", "#{session_name}") == "base"
    conn = connections._connections[server.socket]
    rename_storm(server.socket, "=base:", tmp_path)
    connections.close_all()
    subprocess.run(["tmux", "-L", server.socket, "kill-server"], check=True, timeout=10)
    assert poll(lambda: process.ended(conn.pid), 5), "the control client still holds the server"
    assert poll(lambda: subprocess.run(["tmux", "-L", server.socket, "list-sessions"], check=False,
                                       capture_output=True, timeout=10).returncode != 0, 5)
