"""Faults under a running call: servers, sessions, shells and programs dying.

Every test strikes while the tool is inside a call with a long timeout and
asserts on facts: the call came back well before its timeout with a sentence
(or with the honest state), and the next call works - a private server or
session is made again by itself, the shared one is only reported.
"""

from __future__ import annotations

import os
import signal
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from python.helpers.tmux_tool.sessions import observe
from python.helpers.tmux_tool.transport.tmux import Tmux
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal, kill_server, unique
from .conftest import (
    CONTROL,
    SLACK,
    Striker,
    assert_sentence,
    children,
    cmdline,
    guard_allows,
    pane_command,
    pane_pid,
    poll,
    spy,
    timed,
    tmux,
)

LONG = 30.0  # the timeout of the call under attack; a hang would show as this


def _running(socket: str, session: str, waiting: Callable[[], bool], program: str = "sleep") -> bool:
    """The command runs in the pane and the tool is blocked waiting for it."""
    return pane_command(socket, session) == program and waiting()


def _works(session: str | None = None) -> None:
    kw = {"session": session} if session else {}
    res = call("run", command="echo back-again", timeout=15, **kw)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert res["output"] == "back-again", res


# --- the private server -----------------------------------------------------
def test_private_server_killed_during_run(private_socket: str, waiting: Callable[[], bool]) -> None:
    _works()
    striker = Striker(lambda: _running(private_socket, "scratch", waiting), lambda: kill_server(private_socket))
    res, took = timed("run", command="sleep 60", timeout=LONG)
    striker.join()
    assert took < SLACK, took
    assert_sentence(res)
    assert "server" in res["error"]
    _works()  # a new server and a new scratch shell, by themselves
    assert tmux(private_socket, "has-session", "-t", "=scratch").returncode == 0


def test_private_server_killed_during_wait(private_socket: str, waiting: Callable[[], bool]) -> None:
    first = call("run", command="sleep 60", timeout=0.2)
    assert first["ok"] and first["status"] == "busy", first
    striker = Striker(waiting, lambda: kill_server(private_socket))
    res, took = timed("wait", session="scratch", timeout=LONG)
    striker.join()
    assert took < SLACK, took
    assert_sentence(res)
    _works()


def test_asking_for_a_session_while_the_server_exits(private_socket: str) -> None:
    """The last session just ended and the server is shutting down: a plain "no"."""
    t = Tmux(private_socket)
    answers = set()
    for _ in range(30):
        # (a new server may refuse while the last one is still going away: ask again)
        assert poll(lambda: tmux(private_socket, "-f", "/dev/null", "new-session", "-d", "-s", "last",
                                 "sleep 100").returncode == 0, 5)
        ender = subprocess.Popen(["tmux", "-L", private_socket, "kill-session", "-t", "=last"])
        try:
            answers.add(t.has_session("other"))
        finally:
            ender.wait(10)
    assert answers == {False}


@pytest.mark.parametrize("how", ["kill-pane", "kill-window", "kill-session"])
def test_session_killed_during_run(private_socket: str, how: str, waiting: Callable[[], bool]) -> None:
    _works("bystander")  # keeps the server alive when the victim goes
    _works("victim")
    target = "=victim" if how == "kill-session" else "=victim:"
    striker = Striker(lambda: _running(private_socket, "victim", waiting),
                      lambda: tmux(private_socket, how, "-t", target, check=True))
    res, took = timed("run", command="sleep 60", session="victim", timeout=LONG)
    striker.join()
    assert took < SLACK + 1.0, took  # noticed at the next one-second check at the latest
    assert_sentence(res)
    assert "closed" in res["error"], res
    _works("victim")
    _works("bystander")


def test_shell_killed_by_sigkill_during_run(private_socket: str, waiting: Callable[[], bool]) -> None:
    """The pane's own shell dies (OOM killer, kill -9): no marker will ever come."""
    _works("victim")
    shell = pane_pid(private_socket, "victim")
    orphans: list[int] = []

    def strike() -> None:
        orphans.extend(children(shell))
        os.kill(shell, signal.SIGKILL)

    striker = Striker(lambda: _running(private_socket, "victim", waiting), strike)
    try:
        res, took = timed("run", command="sleep 60", session="victim", timeout=LONG)
        striker.join()
        assert took < SLACK + 1.0, (took, res)
        assert not res["ok"] or res["status"] == "error", res
        if not res["ok"]:
            assert_sentence(res)
        _works("victim")
    finally:
        for pid in orphans:  # the sleep we started, orphaned by the kill
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


@pytest.mark.parametrize("control", ["on", "off"])
def test_text_sent_to_a_dead_shell_leaves_the_server_standing(private_socket: str, control: str,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """tmux 3.3a crashes on a paste into a pane remain-on-exit keeps: the paste must not happen."""
    monkeypatch.setenv("TMUX_TOOL_CONTROL", control)
    _works("bystander")
    _works("victim")
    call("send", session="victim", text="exit", timeout=3)
    assert poll(lambda: tmux(private_socket, "display-message", "-p", "-t", "=victim:",
                             "#{pane_dead}").stdout.strip() == "1", 5)
    res = call("send", session="victim", text="echo into the void", timeout=3)
    assert res["status"] == "error", res  # the pane's process has ended, and nothing was typed
    assert tmux(private_socket, "has-session", "-t", "=bystander").returncode == 0, "the server went down"
    assert tmux(private_socket, "list-buffers").stdout == ""
    _works("bystander")
    _works("victim")  # run gives the session a fresh shell


@pytest.mark.parametrize(("command", "code", "shown"), [
    ("bash -c 'echo partial; kill -9 $$'", 137, "partial\nKilled"),
    ("python3 -c 'import ctypes; ctypes.string_at(0)'", 139, "Segmentation fault"),
    ("bash -c 'echo aborting; kill -ABRT $$'", 134, "Aborted"),
])
def test_command_that_crashes(private_socket: str, command: str, code: int, shown: str) -> None:
    res, took = timed("run", command=command, timeout=LONG)
    assert took < SLACK, took
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == code, res
    assert shown in res["output"], res
    _works()


def test_child_killed_while_waiting(private_socket: str, waiting: Callable[[], bool]) -> None:
    first = call("run", command="sleep 1000 & echo $!; wait", timeout=0.3)
    assert first["status"] == "busy", first
    child = int(first["output"].split()[-1])
    assert cmdline(child)[:1] == ["sleep"], cmdline(child)
    striker = Striker(waiting, lambda: os.kill(child, signal.SIGKILL))
    res, took = timed("wait", session="scratch", timeout=LONG)
    striker.join()
    assert took < SLACK, took
    assert res["ok"] and res["status"] == "ready", res
    assert "Killed" in res["output"], res
    _works()


def test_started_program_killed(private_socket: str) -> None:
    """A program started for the session crashes: status says so, the session stays usable."""
    started = call("start", program="python3", session="repl", timeout=20)
    assert started["ok"] and started["status"] == "ready", started
    shell = pane_pid(private_socket, "repl")
    python = [p for p in children(shell) if "python3" in " ".join(cmdline(p))]
    assert len(python) == 1, [cmdline(p) for p in children(shell)]
    os.kill(python[0], signal.SIGKILL)
    # The shell reports the exit code with its next prompt, a few milliseconds after the kill.
    assert poll(lambda: call("status", session="repl")["exit_code"] is not None, SLACK)
    status, took = timed("status", session="repl")
    assert took < SLACK
    assert status["status"] == "error" and status["exit_code"] == 137, status
    waited, took = timed("wait", session="repl", timeout=LONG)
    assert took < SLACK and waited["status"] == "error", waited
    # The shell is back at its prompt: the session must be usable again.
    _works("repl")


# --- programs that never end ----------------------------------------------
FAKE_OPENCODE = """\
#!/bin/sh
# Behaves like `opencode run` 0.15: prints its answer, then never exits.
echo "Thinking..."
echo "The answer is 42."
while :; do sleep 3600; done
"""


def test_ai_cli_that_never_exits(private_socket: str, tmp_path: Path) -> None:
    cli = tmp_path / "opencode"
    cli.write_text(FAKE_OPENCODE)
    cli.chmod(0o755)
    res, took = timed("run", command=f"{cli} run 'what is six times seven'", session="ai", timeout=2)
    assert 2.0 <= took < 2.0 + SLACK, took
    assert res["ok"] and res["status"] == "busy" and res["exit_code"] is None, res
    assert res["output"] == "Thinking...\nThe answer is 42.", res
    assert "interrupt" in res["hint"]
    assert call("status", session="ai")["status"] == "busy"
    stopped, took = timed("interrupt", session="ai", timeout=10)
    assert took < SLACK, took
    assert stopped["ok"] and stopped["status"] == "ready" and stopped["exit_code"] == 130, stopped
    shell = pane_pid(private_socket, "ai")
    assert poll(lambda: children(shell) == [], 5), [cmdline(p) for p in children(shell)]
    _works("ai")


def test_ai_cli_that_never_exits_started_as_program(private_socket: str, tmp_path: Path) -> None:
    cli = tmp_path / "hanging-cli"
    cli.write_text(FAKE_OPENCODE)
    cli.chmod(0o755)
    res, took = timed("start", program=str(cli), args=["run", "what is six times seven"], session="ai2",
                      timeout=3)
    assert took < 3.0 + SLACK, took
    assert res["status"] in ("busy", "ready", "unknown"), res
    assert "The answer is 42." in (res["screen"] or ""), res
    killed = call("kill", session="ai2")
    assert killed["ok"], killed
    assert tmux(private_socket, "has-session", "-t", "=ai2").returncode != 0
    _works("ai2")


def test_start_runs_the_program_at_the_path_given(private_socket: str, tmp_path: Path) -> None:
    """A path named like a profile (``.../opencode``) is that file, not the profile's executable."""
    cli = tmp_path / "opencode"
    cli.write_text(FAKE_OPENCODE)
    cli.chmod(0o755)
    res = call("start", program=str(cli), args=["run", "q"], session="bypath", timeout=3)
    assert "The answer is 42." in (res["screen"] or ""), res
    assert "command not found" not in (res["screen"] or ""), res
    call("kill", session="bypath")


def test_send_to_a_program_that_never_reads(private_socket: str) -> None:
    """~1 MB typed at `sleep`: the pty's 4 KB input buffer fills and tmux holds the rest."""
    busy = call("run", command="sleep 1000", session="deaf", timeout=0.3)
    assert busy["status"] == "busy", busy
    text = "# a filler line that nobody reads " + "." * 65 + "\n"
    res, took = timed("send", session="deaf", text=text * 10_000, timeout=5)  # 1,000,000 characters
    assert took < 5 + SLACK, took
    if not res["ok"]:
        assert_sentence(res)
    stopped, took = timed("interrupt", session="deaf", timeout=10)
    assert took < 10 + SLACK, took
    assert stopped["ok"] and stopped["status"] == "ready", stopped
    _works("deaf")


# --- output floods ----------------------------------------------------------
FLOODS = {
    "10MB-lines": ("head -c 10000000 /dev/zero | tr '\\0' a | fold -w 100", 10_000_000),
    "1MB-one-line": ("head -c 1000000 /dev/zero | tr '\\0' b; echo", 1_000_000),
    "2MB-binary": ("head -c 2000000 /dev/urandom", 100_000),  # what is left once controls go
}
CAP = 30_000
NOTICE = 400  # the "[... N characters cut; full output in FILE ...]" line


@pytest.mark.parametrize("kind", sorted(FLOODS))
def test_output_flood(private_socket: str, monkeypatch: pytest.MonkeyPatch, kind: str) -> None:
    monkeypatch.setenv("TMUX_TOOL_OUTPUT_CAP", str(CAP))
    command, at_least = FLOODS[kind]
    res, took = timed("run", command=command, timeout=120)
    print(f"\n{kind}: {took:.2f}s, {len(res['output'])} chars returned, {res.get('output_chars')} saved")
    assert took < 60, took
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, {**res, "output": "..."}
    out = res["output"]
    assert len(out) <= CAP + NOTICE, len(out)
    assert "full output in" in out and res["output_file"] in out
    assert not control_in(out), repr(control_in(out))
    saved = Path(res["output_file"])
    text = saved.read_text(encoding="utf-8")
    assert len(text) == res["output_chars"] >= at_least, (len(text), res["output_chars"])
    assert not control_in(text)
    if kind != "2MB-binary":
        letter = command.split("tr '\\0' ")[1][0]
        assert set(text) <= {letter, "\n"} and text.count(letter) == at_least
    _works()


def control_in(text: str) -> str | None:
    """The first terminal control character in ``text``, if any."""
    m = CONTROL.search(text)
    return m.group() if m else None


# --- the shared session -------------------------------------------------------
SHARED_ACTIONS = (("send", {"text": "echo hi"}), ("read", {}), ("status", {}), ("wait", {"timeout": LONG}),
                  ("keys", {"keys": "y"}))


def _says_how_to_start(socket: str) -> None:
    for action, args in SHARED_ACTIONS:
        res, took = timed(action, **args)
        assert took < SLACK, (action, took)
        assert_sentence(res)
        assert "start.sh" in res["error"], (action, res)


def _reports_gone(res: dict) -> None:
    """The shared session vanished mid-call: the result says so and how to start it."""
    assert res["status"] == "error", res
    if not res["ok"]:
        assert_sentence(res)
    assert "start.sh" in (res["error"] or "") + (res.get("evidence") or ""), res


def test_shared_server_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    socket = unique("tt-rb-none")
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", socket)
    _says_how_to_start(socket)
    assert tmux(socket, "list-sessions").returncode != 0, "a server was started on the shared socket"
    sockets = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
    assert not (sockets / socket).exists(), "a socket file was left for a server that never ran"


def test_shared_session_missing_on_a_live_server(monkeypatch: pytest.MonkeyPatch) -> None:
    socket = unique("tt-rb-other")
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", socket)
    tmux(socket, "-f", "/dev/null", "new-session", "-d", "-s", "other", check=True)
    try:
        _says_how_to_start(socket)
        listed = tmux(socket, "list-sessions", "-F", "#{session_name}").stdout.split()
        assert listed == ["other"], listed
    finally:
        kill_server(socket)


def test_shared_session_killed_during_send(shared_terminal: SharedTerminal) -> None:
    socket = shared_terminal.socket
    assert call("status")["status"] == "ready"
    striker = Striker(lambda: pane_command(socket, "shared") == "sleep",
                      lambda: tmux(socket, "kill-session", "-t", "=shared", check=True))
    res, took = timed("send", text="sleep 60", timeout=LONG)
    striker.join()
    assert took < SLACK, took
    _reports_gone(res)
    _says_how_to_start(socket)
    assert "shared" not in tmux(socket, "list-sessions", "-F", "#{session_name}").stdout.split()


def test_shared_server_killed_during_wait(shared_terminal: SharedTerminal,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    socket = shared_terminal.socket
    guard_allows(shared_terminal)
    sent = call("send", text="sleep 60", timeout=2)
    assert sent["ok"] and sent["status"] == "busy", sent
    looking = spy(monkeypatch, observe, "state_of")  # set once wait looks at the pane
    striker = Striker(looking.is_set, lambda: kill_server(socket))
    res, took = timed("wait", timeout=LONG)
    striker.join()
    assert took < SLACK, took
    _reports_gone(res)
    _says_how_to_start(socket)


def test_shared_output_flood_is_capped(shared_terminal: SharedTerminal, monkeypatch: pytest.MonkeyPatch) -> None:
    """What a command prints in the shared terminal reaches the agent capped, like run's."""
    monkeypatch.setenv("TMUX_TOOL_OUTPUT_CAP", str(CAP))
    res, took = timed("send", text="seq 30000", timeout=LONG)
    assert took < LONG, took
    assert res["ok"] and res["status"] == "ready", {**res, "output": len(res["output"])}
    out = res["output"]
    assert len(out) <= CAP + NOTICE, len(out)
    assert out.startswith("1\n2\n") and out.endswith("29999\n30000"), (out[:20], out[-20:])
