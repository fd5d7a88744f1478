"""Sessions on another host over ssh: the same exact runs, through one connection that may drop.

The host is real: the test's own sshd on 127.0.0.2, a user whose login shell
is zsh, a key the tool's ssh uses (tests/accounts.py).  The agent's private
tmux server runs there as that user.  Faults are made the way they happen:
the ssh process killed or frozen (by its PID), the far tmux server or shell
killed.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from python.tools.tmux_tool import call

from ..conftest import poll
from ..gates import Gate
from .conftest import declare

if TYPE_CHECKING:
    from ..accounts import RemoteHost

pytest_plugins = ["tests.accounts"]


def master_pid(socket: str, session: str = "ssh-box-") -> int:
    """The PID of the tool's ssh master to ``box`` (it runs in a session of the agent's own server here,
    whose name begins with ``session``)."""
    out = subprocess.run(["tmux", "-L", socket, "list-panes", "-a", "-F", "#{session_name} #{pane_pid}"],
                         capture_output=True, text=True, timeout=10, check=True).stdout
    pids = [int(line.split()[1]) for line in out.splitlines() if line.startswith(session)]
    assert len(pids) == 1, out
    return pids[0]


def test_a_run_on_the_host_is_exact_and_keeps_its_shell(box: RemoteHost) -> None:
    res: dict[str, Any] = call("run", command="printf 'a\\n\\tb  \\n'; whoami; sh -c 'exit 3'", host="box")
    assert res["ok"], res
    assert (res["exit_code"], res["output"], res["host"]) == (3, f"a\n\tb  \n{box.user.name}", "box")  # as written
    call("run", command="cd /tmp && export TT_X='a b'", host="box")
    res = call("run", command='echo "$PWD $TT_X"; echo "$0"', host="box")
    assert res["output"] == "/tmp a b\nbash", res
    assert res["cwd"] == "/tmp"
    res = call("run", command="echo 'é 日本 ü'; printf '%s\\n' \"$LANG\"", host="box")
    assert res["output"] == "é 日本 ü\nC.UTF-8", res


def test_the_agents_files_on_the_host_are_private(box: RemoteHost, private_socket: str) -> None:
    call("run", command="true", host="box")
    modes = box.ssh(f"stat -c '%a %U' ~/.tmux_tool/{private_socket} ~/.tmux_tool/{private_socket}/sessions/scratch")
    assert modes.split("\n")[:2] == [f"700 {box.user.name}"] * 2, modes


def test_list_names_the_hosts_sessions(box: RemoteHost) -> None:
    call("run", command="true", session="build", host="box")
    res = call("list", host="box")
    assert res["ok"], res
    rows = {r["session"]: r for r in res["sessions"]}
    assert "build" in rows and rows["build"]["status"] == "ready", res


def test_every_answer_on_a_host_names_it(box: RemoteHost, tmp_path: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """A failure names its host as a success does (no such session, arguments that cannot be used, a host
    that cannot be reached): an agent working on several hosts reads where each answer comes from."""
    options = [o if o != str(box.server.port) else "1" for o in box.ssh_options()]
    declare(tmp_path, monkeypatch, box.line, shlex.join(["noport", "ssh", *options, f"{box.user.name}@x"]))
    answers = {
        "ran": call("run", command="true", host="box"),
        "no session": call("read", session="nosuch", host="box"),
        "bad arguments": call("wait", session="scratch", sessions=["a"], host="box"),
        "unreachable": call("run", command="true", host="noport", timeout=10),
    }
    assert {why: (res["ok"], res.get("host")) for why, res in answers.items()} == {
        "ran": (True, "box"), "no session": (False, "box"), "bad arguments": (False, "box"),
        "unreachable": (False, "noport")}, answers


def _fault_during_a_run(box: RemoteHost, fault: Callable[[], None]) -> None:
    """``fault()`` while ``sleep 3; echo done; exit 4`` runs on the host: its exact output and exit code
    come all the same (from ``wait`` when the run's own wait was cut off with the connection)."""
    call("run", command="true", host="box")
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.update(
        call("run", command="sleep 3; echo done; sh -c 'exit 4'", host="box", timeout=20)))
    worker.start()
    assert poll(lambda: box.ssh("pgrep -u $(id -u) -x sleep || true").strip(), timeout=10)
    fault()
    worker.join(30)
    assert not worker.is_alive()
    if result.get("status") != "ready":
        result = call("wait", session="scratch", host="box", timeout=20)
    assert (result["status"], result["exit_code"], result["output"]) == ("ready", 4, "done"), result


def test_the_ssh_process_killed_during_a_run_loses_nothing(box: RemoteHost, private_socket: str) -> None:
    _fault_during_a_run(box, lambda: os.kill(master_pid(private_socket), signal.SIGKILL))


def _sshd_of(box: RemoteHost) -> list[int]:
    """The sshd processes serving the connections to ``box`` (children of the test's sshd)."""
    out = subprocess.run(["ps", "-e", "-o", "pid=,ppid="], capture_output=True, text=True, timeout=10,
                         check=True).stdout
    parents = {int(pid): int(ppid) for pid, ppid in (line.split() for line in out.splitlines())}
    served = [p for p, pp in parents.items() if pp == box.server.pid]
    return served + [p for p, pp in parents.items() if pp in served]


def test_a_frozen_connection_is_replaced(box: RemoteHost, private_socket: str) -> None:
    """The host stops answering on the open connection (its sshd frozen, as a dead network does): the
    call ends within its time, saying so in the host's name (not as this machine's tmux wedged) and
    what to do, and the next call works over a new connection."""
    call("run", command="true", host="box")
    frozen = _sshd_of(box)
    assert frozen
    for pid in frozen:
        os.kill(pid, signal.SIGSTOP)
    try:
        started = time.monotonic()
        res = call("run", command="echo after", host="box", timeout=3)
        assert time.monotonic() - started < 3 + 5 + 3 + 5  # the run, a tmux command, the check, slack
        assert (res["ok"], res["host"]) == (False, "box"), res
        assert res["error"].startswith("the link to box does not answer: tmux "), res
        assert "the connection was dropped, and the next call makes a new one: call again" in res["error"], res
        assert "may be wedged" not in res["error"], res
        res = call("run", command="echo after", host="box", timeout=10)
        assert (res["ok"], res["output"]) == (True, "after"), res["error"]
    finally:
        for pid in frozen:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def test_the_ssh_client_stopped_is_continued(box: RemoteHost, private_socket: str) -> None:
    """SIGSTOP of the tool's ssh: the master runs in a pane of the agent's tmux server, and tmux continues
    a pane's process that was stopped by any signal but SIGTTIN/SIGTTOU - so the call works in its time.
    (A connection that stops answering is the frozen sshd of the test above.)"""
    from python.helpers.tmux_tool.transport import kernel

    call("run", command="true", host="box")
    master = master_pid(private_socket)
    os.kill(master, signal.SIGSTOP)
    res = call("run", command="echo after", host="box", timeout=3)
    assert (res["ok"], res["output"]) == (True, "after"), res
    assert (process := kernel.proc(master)) is not None and process.state != "T", process


@pytest.fixture
def own(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteHost]:
    """The host behind an sshd of this test's own, declared as ``box``: the test may take it down."""
    from ..accounts import sshd

    with sshd(tmp_path / "sshd", [remote_host.user.name]) as server:
        host = replace(remote_host, server=server)
        declare(tmp_path, monkeypatch, host.line)
        yield host
    remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; rm -rf ~/.tmux_tool/{private_socket}")


def test_sshd_down_during_a_run_says_the_command_runs_on(own: RemoteHost) -> None:
    """sshd goes down while a run waits for its command (a new connection is refused): the run says
    the command was typed and runs on there, and what to call once the host is back - not a bare
    "could not connect", after which an agent types it again.  That call returns its exact output
    and exit code once sshd is back, and the command ran once."""
    from ..accounts import restarted, stop

    token = secrets.token_hex(3)
    gate, began, ran = (own.user.home / f"{word}-{token}" for word in ("gate", "began", "ran"))
    assert call("run", command="true", host="box")["ok"]
    result: dict[str, Any] = {}
    command = f"touch {began}; {Gate(gate).shell}; echo once >> {ran}; echo done; sh -c 'exit 4'"
    worker = threading.Thread(target=lambda: result.update(call("run", command=command, host="box", timeout=60)))
    worker.start()
    assert poll(began.exists, timeout=20), "the command did not begin on the host"
    stop(own.server)
    worker.join(40)
    assert not worker.is_alive(), "the run did not answer once sshd went down"
    assert (result["ok"], result["status"], result["host"], result.get("started")) == (False, "busy", "box", True), result
    assert "was typed in session scratch on box and runs on there" in result["error"], result
    assert "do not run it again" in result["error"], result
    assert "call wait --session scratch --host box" in result["hint"], result
    with restarted(own.server):
        Gate(gate).open()
        res = call("wait", session="scratch", host="box", timeout=30)
    assert (res["status"], res["exit_code"], res["output"]) == ("ready", 4, "done"), res
    assert ran.read_text() == "once\n"


def test_sshd_restarted_during_a_run_loses_nothing(box: RemoteHost) -> None:
    """The host's sshd ends every connection (a restart that takes its sessions down) while a command
    runs: tmux there keeps it running, and its exact output and exit code come after reconnecting."""
    def end_connections() -> None:
        for pid in _sshd_of(box):
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass

    _fault_during_a_run(box, end_connections)


def test_the_far_tmux_server_or_shell_killed(box: RemoteHost, private_socket: str) -> None:
    call("run", command="true", host="box")
    box.ssh(f"tmux -L {private_socket} kill-server")
    res = call("run", command="echo again", host="box")
    assert (res["ok"], res["output"]) == (True, "again"), res
    pid = box.ssh(f"tmux -L {private_socket} display-message -p -t '=scratch:' '#{{pane_pid}}'").strip()
    box.ssh(f"kill -9 {pid}")
    res = call("run", command="echo fresh", host="box")
    assert (res["ok"], res["output"]) == (True, "fresh"), (res["error"], res.get("hint"), res)


def test_list_here_names_the_sessions_of_connected_hosts(box: RemoteHost) -> None:
    call("run", command="true", session="far", host="box")
    res = call("list")
    assert res["ok"], res
    far = [r for r in res["sessions"] if r.get("host") == "box"]
    assert [r["session"] for r in far] == ["far"], res["sessions"]


def test_a_repl_on_the_host(box: RemoteHost) -> None:
    res = call("start", program="python3", session="py", host="box", timeout=30)
    assert res["ok"] and res["status"] == "ready", (res["error"], res["screen"], res.get("evidence"))
    res = call("ask", session="py", prompt="print(6 * 7)", host="box", timeout=30)
    assert (res["ok"], res["output"]) == (True, "42"), res
    assert call("exit", session="py", host="box")["ok"]


def test_what_a_program_left_running_on_the_host_ends_with_it(box: RemoteHost) -> None:
    """A daemon a started program left on the host (a session of its own, its parent gone) is ended
    by ``exit``, found there by the pane's environment it carries (``kernel.born_in_script``)."""
    assert call("start", program="python3", session="py", host="box", timeout=30)["ok"]
    res = call("ask", session="py", host="box", timeout=30, prompt=(
        "import subprocess; print(subprocess.Popen(['sleep', '306'], start_new_session=True).pid)"))
    daemon = int(res["output"])
    gone = call("exit", session="py", host="box", timeout=30)
    assert gone["ok"] and gone["ended"] == [f"sleep (pid {daemon})"], gone
    # ended: gone, or a zombie its new parent has not reaped yet
    assert box.ssh(f"cut -d' ' -f3 /proc/{daemon}/stat 2>/dev/null || echo gone").strip() in ("gone", "Z")


def _without(options: list[str], *names: str) -> list[str]:
    """ssh options without the ``-o NAME=...`` pairs of ``names``."""
    kept: list[str] = []
    for opt in options:
        if opt.startswith(names) and kept[-1:] == ["-o"]:
            kept.pop()
        else:
            kept.append(opt)
    return kept


def _hosts_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, line: str) -> None:
    declare(tmp_path, monkeypatch, line)


def _as_the_hint_says(res: dict[str, Any], socket: str, answer: str, **call_args: Any) -> dict[str, Any]:
    """Follow the hint of a call that ssh's question blocked, word for word: the human types ``answer``
    where it names (the session, through tmux as a client types), then the agent makes the call it names:
    the same call again (with ``call_args``), or a wait on the session it names."""
    hint = res["hint"] or ""
    assert f"apps/shared-terminal/agent.sh take {res['session']}" in hint, hint
    assert "interrupt" not in hint, hint
    made = re.search(r"once they have answered, (?:make this call \((\w+)\) again|call wait --session (\S+) "
                     r"--host ([^\s:]+)):", hint)
    assert made is not None and made[1] in (None, res["action"]), hint
    for keys in (["-l", answer], ["Enter"]):
        subprocess.run(["tmux", "-L", socket, "send-keys", "-t", f"={res['session']}:", *keys], check=True,
                       timeout=10)
    if made[1]:
        return call(made[1], **call_args)
    return call("wait", session=made[2], host=made[3], timeout=30)


def test_an_unknown_host_key_is_the_humans_to_accept(remote_host: RemoteHost, private_socket: str,
                                                     tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """ssh asks whether to trust a host it has never seen: the agent is told that the human answers, where,
    that it is a yes/no question and no secret, and what to call then; made again before the answer, the
    call says the same; following the hint, the call works."""
    known = tmp_path / "known_hosts"
    options = _without(remote_host.ssh_options(), "UserKnownHostsFile", "StrictHostKeyChecking")
    line = shlex.join(["newbox", "ssh", *options, "-o", f"UserKnownHostsFile={known}",
                       "-o", "StrictHostKeyChecking=ask", f"{remote_host.user.name}@{remote_host.server.host}"])
    _hosts_file(tmp_path, monkeypatch, line)
    try:
        for _asked in range(2):
            res = call("run", command="echo in", host="newbox", timeout=10)
            assert (res["ok"], res["status"], res.get("needs_human")) == (False, "blocked", True), res["error"]
            assert "continue connecting" in res["question"], res
            assert res["session"].startswith("ssh-newbox-") and res["host"] == "newbox", res
            assert "a yes/no question, not a secret" in res["hint"] and "asks for a secret" not in res["hint"], res
        res = _as_the_hint_says(res, private_socket, "yes", command="echo in", host="newbox", timeout=20)
        assert (res["ok"], res["output"]) == (True, "in"), res
        assert remote_host.server.host in known.read_text()
    finally:
        remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; true")


def test_what_goes_wrong_on_the_way_is_said(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    stray = tmp_path / "stray_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(stray)], check=True, timeout=20)
    options = remote_host.ssh_options()
    wrong_key = [str(stray) if o == str(remote_host.key) else o for o in options]
    wrong_key += ["-o", "PreferredAuthentications=publickey"]
    closed_port = [o if o != str(remote_host.server.port) else "1" for o in options]
    no_tmux = tmp_path / "bin"
    no_tmux.mkdir()
    (no_tmux / "sh").symlink_to("/bin/sh")
    user = f"{remote_host.user.name}@{remote_host.server.host}"
    _hosts_file(tmp_path, monkeypatch, "\n".join([
        shlex.join(["nokey", "ssh", *wrong_key, user]),
        shlex.join(["noport", "ssh", *closed_port, user]),
        shlex.join(["notmux", "env", f"PATH={no_tmux}"]),
    ]))
    for host, words in (("nokey", "Permission denied"), ("noport", "cannot be reached"),
                        ("notmux", "tmux is not installed on notmux")):
        started = time.monotonic()
        res = call("run", command="true", host=host, timeout=10)
        assert not res["ok"] and words in res["error"], (host, res)
        assert time.monotonic() - started < 15, host
    res = call("run", command="true", host="-oProxyCommand=x")
    assert not res["ok"] and "never a leading '-'" in res["error"], res


@pytest.fixture
def pwbox(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteHost]:
    """The host declared as ``pwbox``, reached with its user's password (no key): ssh asks it as it connects."""
    options = _without(remote_host.ssh_options(), "IdentitiesOnly") + [
        "-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password"]
    options = [o for o in options if o not in ("-i", str(remote_host.key))]
    _hosts_file(tmp_path, monkeypatch, shlex.join(
        ["pwbox", "ssh", *options, f"{remote_host.user.name}@{remote_host.server.host}"]))
    yield remote_host
    remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; true")


def test_a_password_is_typed_by_the_human(pwbox: RemoteHost, private_socket: str) -> None:
    """The host takes a password: ssh asks it in its session; the agent is told that the human types it and
    what to call then; following the hint word for word ends in a working call, and the agent never sees
    the password."""
    res = call("run", command="echo in", host="pwbox", timeout=10)
    assert (res["status"], res.get("needs_human"), res["host"]) == ("blocked", True, "pwbox"), res["error"]
    assert "password" in res["question"]
    assert "asks for a secret to connect" in res["hint"], res
    for action in ("wait", "interrupt"):  # the connection's session is no session to wait on or type in
        other = call(action, session=res["session"], timeout=20)
        assert (other["ok"], other["status"]) == (False, "unknown"), other
        assert "make your call on pwbox again" in other["hint"] and "interrupt" not in other["hint"], other
    status = call("status", session=res["session"])
    assert "make your call on pwbox again" in status["hint"] and "interrupt" not in status["hint"], status
    res = _as_the_hint_says(res, private_socket, pwbox.user.password, command="echo in", host="pwbox", timeout=20)
    assert (res["ok"], res["output"]) == (True, "in"), res
    assert pwbox.user.password not in json.dumps(res)


def test_a_password_asked_again_while_a_run_waits(pwbox: RemoteHost, private_socket: str) -> None:
    """The connection drops while a run waits for its command, and connecting again asks the password: the
    run says the command runs on and names the wait to call once the human has answered; following the
    hint word for word returns the command's exact output and exit code, and it ran once."""
    res = call("run", command="true", host="pwbox", timeout=10)
    assert (res["status"], res.get("needs_human")) == ("blocked", True), res
    res = _as_the_hint_says(res, private_socket, pwbox.user.password, command="true", host="pwbox", timeout=20)
    assert res["ok"], res
    token = secrets.token_hex(3)
    gate, began, ran = (pwbox.user.home / f"{word}-{token}" for word in ("gate", "began", "ran"))
    command = f"touch {began}; {Gate(gate).shell}; echo once >> {ran}; echo done; sh -c 'exit 4'"
    result: dict[str, Any] = {}
    worker = threading.Thread(target=lambda: result.update(call("run", command=command, host="pwbox", timeout=60)))
    worker.start()
    assert poll(began.exists, timeout=20), "the command did not begin on the host"
    os.kill(master_pid(private_socket, "ssh-pwbox-"), signal.SIGKILL)
    worker.join(40)
    assert not worker.is_alive(), "the run did not answer once the connection asked again"
    assert (result["status"], result.get("needs_human"), result["host"]) == ("blocked", True, "pwbox"), result
    assert "was typed in session scratch on pwbox and runs on there" in result["error"], result
    Gate(gate).open()
    res = _as_the_hint_says(result, private_socket, pwbox.user.password)
    assert (res["status"], res["exit_code"], res["output"]) == ("ready", 4, "done"), res
    assert ran.read_text() == "once\n"
    assert pwbox.user.password not in json.dumps(result) + json.dumps(res)


def test_a_secret_asked_on_the_host_is_the_humans(box: RemoteHost, private_socket: str) -> None:
    """The host's kernel says the command reads with its echo off: blocked, needs_human; the human's
    answer (their keys in the session) ends it, and the agent never sees the secret."""
    res = call("run", command="read -rs -p 'Token: ' t; echo; echo \"got ${#t}\"", host="box", timeout=20)
    assert (res["status"], res.get("needs_human")) == ("blocked", True), res
    assert "Token" in (res.get("question") or ""), res
    refused = call("send", text="guess", session="scratch", host="box")
    assert not refused["ok"], refused
    box.ssh(f"tmux -L {private_socket} send-keys -t '=scratch:' -l s3cr3t-value; "
            f"tmux -L {private_socket} send-keys -t '=scratch:' Enter")
    res = call("wait", session="scratch", host="box", timeout=20)
    assert (res["status"], res["output"]) == ("ready", "Token: \ngot 12"), res  # the prompt as written
    assert "s3cr3t" not in json.dumps(res)


def test_more_sessions_at_once_than_sshd_allows_channels(box: RemoteHost) -> None:
    """sshd allows ten channels per connection (MaxSessions): twelve runs at once on one host all come
    back exact, their logs followed or fetched within that budget."""
    results: dict[int, dict[str, Any]] = {}

    def one(n: int) -> None:
        results[n] = call("run", command=f"sleep 0.5; echo s{n}; sh -c 'exit {n}'", session=f"p{n}",
                          host="box", timeout=30)

    workers = [threading.Thread(target=one, args=(n,)) for n in range(12)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(60)
    assert {n: (r["ok"], r["exit_code"], r["output"]) for n, r in results.items()} == {
        n: (True, n, f"s{n}") for n in range(12)}
    assert "no more sessions" not in box.server.log.read_text()


def test_uninstall_ends_the_tools_server_on_the_host_and_removes_its_files(box: RemoteHost,
                                                                            private_socket: str) -> None:
    """What the plugin's uninstall hook and the installer's --uninstall run: the host's tmux server and
    ~/.tmux_tool/SOCKET go too, over the connection that is up."""
    from python.helpers.tmux_tool.private import teardown

    res = call("run", command="sleep 300 & nohup sleep 301 >/dev/null 2>&1 & sleep 302 & disown; echo started",
               host="box")
    assert res["ok"], res
    res = call("run", command="nohup sleep 303 >/dev/null 2>&1 & echo started", session="other", host="box")
    assert res["ok"], res
    assert box.ssh(f"tmux -L {private_socket} list-sessions -F '#S'").split() == ["other", "scratch"]
    said = teardown.end_private()
    assert f"on box: ended its tmux server and removed ~/.tmux_tool/{private_socket}" in said, said
    left = box.ssh(f"tmux -L {private_socket} list-sessions 2>&1; ls -d ~/.tmux_tool/{private_socket} 2>&1; true")
    assert "no server running" in left and "No such file" in left, left
    assert poll(lambda: "no-sleep" in box.ssh("pgrep -u \"$(id -u)\" -x sleep || echo no-sleep"), 5), \
        "the sleep outlived its tmux server on the host"


def test_uninstall_names_a_host_it_cannot_reach_now(box: RemoteHost, private_socket: str) -> None:
    from python.helpers.tmux_tool.private import teardown

    assert call("run", command="true", host="box")["ok"]
    os.kill(master_pid(private_socket), signal.SIGKILL)
    said = teardown.end_private()
    assert (f"not connected now: box (there, run: tmux -L {private_socket} kill-server; "
            f"rm -rf ~/.tmux_tool/{private_socket})") in said, said


def test_kill_ends_what_ran_in_the_session_on_the_host(box: RemoteHost, private_socket: str) -> None:
    res = call("run", command="nohup sleep 304 >/dev/null 2>&1 & sleep 305 & disown; echo started", host="box")
    assert res["ok"], res
    assert call("kill", session="scratch", host="box")["ok"]
    assert poll(lambda: "no-sleep" in box.ssh("pgrep -u \"$(id -u)\" -x sleep || echo no-sleep"), 5), \
        "jobs of the killed session outlived it on the host"


def test_a_home_that_cannot_be_written_is_said(box: RemoteHost) -> None:
    """A home the user cannot write on the host (read-only): one sentence with what to do, and the next
    call works once it is writable again."""
    folder = box.user.home / ".tmux_tool"  # left by earlier tests, or not there yet
    writable = [p for p in (box.user.home, folder) if p.exists()]
    subprocess.run(["chmod", "a-w", *map(str, writable)], check=True, timeout=10)
    try:
        res = call("run", command="echo hi", host="box", timeout=20)
    finally:
        subprocess.run(["chmod", "u+w", *map(str, writable)], check=True, timeout=10)
    assert not res["ok"] and res["status"] == "error", res
    assert res["error"].startswith("on box: mkdir: cannot create directory") and "Permission denied" in res["error"], res
    assert "needs to write its folder ~/.tmux_tool there" in res["error"], res
    res = call("run", command="echo hi", host="box", timeout=20)
    assert (res["ok"], res["output"]) == (True, "hi"), res


def test_a_full_disk_on_the_host_is_said(box: RemoteHost, private_socket: str) -> None:
    """The tool's folder on a file system with no space left (a tiny tmpfs, filled)."""
    folder = box.user.home / ".tmux_tool"
    folder.mkdir(exist_ok=True)
    subprocess.run(["chown", f"{box.user.name}:", str(folder)], check=True, timeout=10)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size=64k,mode=700,uid={box.user.uid}", "tmpfs", str(folder)],
                   check=True, timeout=10)
    try:
        subprocess.run(["dd", "if=/dev/zero", f"of={folder}/fill", "bs=4k"], capture_output=True, timeout=10,
                       check=False)
        res = call("run", command="echo hi", host="box", timeout=20)
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=True, timeout=10)
    assert not res["ok"] and res["status"] == "error", res
    assert "No space left on device" in res["error"] and "free some space there" in res["error"], res
    res = call("run", command="echo hi", host="box", timeout=20)
    assert (res["ok"], res["output"]) == (True, "hi"), res


def test_a_state_folder_here_that_cannot_be_written_is_said(box: RemoteHost, tmp_path: Path,
                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """The tool's state folder here refuses new files (immutable: root too gets "Operation not permitted"):
    the tool's own sentence with what to do, not an internal error; once it is writable, the call works."""
    state = tmp_path / "locked-state"
    state.mkdir()
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(state))
    subprocess.run(["chattr", "+i", str(state)], check=True, timeout=10)
    try:
        res = call("run", command="echo hi", host="box", timeout=20)
    finally:
        subprocess.run(["chattr", "-i", str(state)], check=True, timeout=10)
    assert (res["ok"], res["host"]) == (False, "box"), res
    assert res["error"].startswith(f"the tool cannot write its state folder {state} (Operation not permitted: "), res
    assert "set TMUX_TOOL_STATE_DIR to a folder that is, then call again" in res["error"], res
    res = call("run", command="echo hi", host="box", timeout=20)
    assert (res["ok"], res["output"]) == (True, "hi"), res


@pytest.mark.parametrize("login", ["/usr/bin/fish", "/bin/sh"])
def test_a_login_shell_other_than_bash_or_zsh(box: RemoteHost, login: str) -> None:
    """fish and sh as the user's login shell read the tool's command line first; what runs is the same."""
    before = subprocess.run(["getent", "passwd", box.user.name], capture_output=True, text=True, timeout=10,
                            check=True).stdout.strip().split(":")[-1]
    subprocess.run(["usermod", "-s", login, box.user.name], check=True, timeout=30)
    try:
        assert box.ssh("echo $SHELL").strip() == login  # sshd runs command lines with it now
        res = call("run", command="printf '%s\\n' \"$0\" 'a  b' \"it's\" '=x' '~' '\\\\' 'é'; sh -c 'exit 6'",
                   host="box", timeout=20)
        assert (res["ok"], res["exit_code"], res["output"]) == (True, 6, "bash\na  b\nit's\n=x\n~\n\\\\\né"), res
    finally:
        subprocess.run(["usermod", "-s", before, box.user.name], check=True, timeout=30)
