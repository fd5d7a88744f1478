"""A secret is the human's to type: the agent is told where, waits, and never sees it.

Real programs ask for real secrets (sudo's password, an ssh password, a key's
passphrase; tests/accounts.py makes the account, sshd and key).  The agent's
call comes back ``blocked`` with ``needs_human`` while the program reads with
the terminal's echo off; the human types the secret into the terminal (here
with tmux's send-keys, the way a human's client types; through the page in
tests/browser/test_agent_sessions.py); the agent's ``wait`` returns when the
command is done, with its exact output.  Afterwards no secret is found in
anything the tool wrote.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from python.helpers.tmux_tool.judgement import human
from python.helpers.tmux_tool.judgement.state import State
from python.helpers.tmux_tool.private.session import PrivateSession
from python.tools.tmux_tool import call

from ..background import Background
from ..conftest import SharedTerminal, poll

if TYPE_CHECKING:
    from ..accounts import LocalSshd, PassphraseKey, SecretUser

pytest_plugins = ["tests.accounts"]


def _type_as_the_human(socket: str, session: str, secret: str) -> None:
    """What a human's keyboard does in a tmux client: the keys go to the pane, not through the tool."""
    subprocess.run(["tmux", "-L", socket, "send-keys", "-t", f"={session}:", "-l", "--", secret],
                   check=True, timeout=10)
    subprocess.run(["tmux", "-L", socket, "send-keys", "-t", f"={session}:", "Enter"], check=True, timeout=10)


def _asks(res: dict[str, Any], words: str) -> None:
    assert res["status"] == "blocked" and res.get("needs_human") is True, res
    assert words in res["question"].lower(), res
    assert "human" in res["hint"] and "wait" in res["hint"], res


def _types_after_wait_began(socket: str, session: str, secret: str) -> tuple[threading.Thread, list[float]]:
    """Type the secret a moment after ``wait`` began (so a wait that returned at once is caught)."""
    typed: list[float] = []

    def later() -> None:
        time.sleep(1.0)  # the human reads the page, then types
        typed.append(time.monotonic())
        _type_as_the_human(socket, session, secret)

    thread = threading.Thread(target=later)
    thread.start()
    return thread, typed


def _wait_for_the_human(socket: str, session: str, secret: str, timeout: float = 30) -> dict[str, Any]:
    thread, typed = _types_after_wait_began(socket, session, secret)
    res: dict[str, Any] = call("wait", session=session, timeout=timeout)
    returned = time.monotonic()
    thread.join()
    assert typed and returned > typed[0], ("wait came back before the human typed", res)
    return res


def test_sudo_password_is_left_to_the_human_and_the_command_ends_exact(
        private_socket: str, secret_user: SecretUser) -> None:
    started = time.monotonic()
    res = call("run", session="admin", command=secret_user.sudo_id(), timeout=30)
    assert time.monotonic() - started < 10, "the question came back only at the timeout"
    _asks(res, "password")
    assert res["ok"], res
    res = _wait_for_the_human(private_socket, "admin", secret_user.password)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert res["output"].strip().splitlines()[-1] == "0", res
    assert not res.get("needs_human"), res


def test_the_agent_cannot_type_into_a_secret_prompt(private_socket: str, secret_user: SecretUser) -> None:
    res = call("run", session="admin2", command=secret_user.sudo_id(), timeout=30)
    _asks(res, "password")
    res = call("send", session="admin2", text="hunter2")
    assert not res["ok"] and "only the human" in res["error"], res
    _type_as_the_human(private_socket, "admin2", secret_user.password)
    res = call("wait", session="admin2", timeout=30)
    assert res["ok"] and res["exit_code"] == 0, res


def test_a_wait_goes_on_while_the_humans_answer_is_not_read_yet(private_socket: str,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """The human's answer to a secret's prompt sits in the terminal, a whole line the kernel counts, until
    the program that asked reads it; on a loaded machine that program (sudo) is not run at once.  A look
    of the wait then finds the keys unread: the answer on its way, not the end of the wait, which gives
    the command's own end.

    The moment is held open here by the event order, not by luck: the command turns the echo off and
    shows its question, then sleeps in a read of another terminal (a member of the foreground group
    reading a terminal, as the kernel sees sudo) until the test lets it go; only then does it read the
    line the human typed into its own."""
    hold_master, hold_slave = os.openpty()
    looks: list[State] = []
    began = threading.Event()
    judged = PrivateSession.state

    def looked(self: PrivateSession) -> State:
        st = judged(self)
        if threading.current_thread() is not threading.main_thread():
            looks.append(st)
            began.set()
        return st

    try:
        command = (f"stty -echo; printf 'Password: '; read -r _ < {os.ttyname(hold_slave)}; read -r answer; "
                   "stty echo; echo; echo got-${#answer}-chars")
        res = call("run", session="slow", command=command, timeout=30)
        _asks(res, "password")
        monkeypatch.setattr(PrivateSession, "state", looked)
        waiting = Background("wait", session="slow", timeout=30)
        assert began.wait(10), "the wait did not look at the session"
        _type_as_the_human(private_socket, "slow", "pw-123")
        assert poll(lambda: any("has not read" in st.evidence for st in looks) or not waiting.thread.is_alive(),
                    20), [st.evidence for st in looks]
        os.write(hold_master, b"go\n")
        done = waiting.join()
        assert done["ok"] and done["status"] == "ready" and done["exit_code"] == 0, json.dumps(done)
        assert done["output"].strip().splitlines()[-1] == "got-6-chars", done
        assert any(st.needs_human and "has not read" in st.evidence for st in looks), "the moment was not seen"
    finally:
        os.close(hold_master)
        os.close(hold_slave)


def test_ssh_password_login(private_socket: str, secret_user: SecretUser, local_sshd: LocalSshd) -> None:
    res = call("run", session="remote", command=local_sshd.command_line(secret_user.name, "id", "-u"), timeout=60)
    _asks(res, "password")
    res = _wait_for_the_human(private_socket, "remote", secret_user.password, timeout=60)
    assert res["ok"] and res["exit_code"] == 0, repr(res)
    assert res["output"].strip().splitlines()[-1] == str(secret_user.uid), res


def test_key_passphrase(private_socket: str, passphrase_key: PassphraseKey) -> None:
    res = call("run", session="keys", command=f"ssh-keygen -y -f {passphrase_key.path}", timeout=30)
    _asks(res, "passphrase")
    res = _wait_for_the_human(private_socket, "keys", passphrase_key.passphrase)
    assert res["ok"] and res["exit_code"] == 0, res
    assert passphrase_key.public_key.split()[1] in res["output"], res


def test_a_session_the_human_holds_takes_no_keys_from_the_agent(private_socket: str) -> None:
    assert call("run", session="held", command="echo mine")["ok"]
    subprocess.run(["tmux", "-L", private_socket, "set-option", "-t", "=held:", human.HELD, "page"], check=True,
                   timeout=10)
    for action, args in (("run", {"command": "echo no"}), ("send", {"text": "echo no"}), ("keys", {"keys": ["C-c"]}),
                         ("interrupt", {}), ("kill", {})):
        res = call(action, session="held", **args)
        assert not res["ok"] and "the human has session held" in res["error"], (action, res)
    res = call("read", session="held")
    assert res["ok"] and "mine" in res["screen"], res
    subprocess.run(["tmux", "-L", private_socket, "set-option", "-u", "-t", "=held:", human.HELD], check=True,
                   timeout=10)
    res = call("run", session="held", command="echo back")
    assert res["ok"] and res["output"] == "back", res


def test_the_shared_terminal_says_so_too(shared_terminal: SharedTerminal, secret_user: SecretUser) -> None:
    """The agent's sudo in the human's terminal: blocked for the human, and the agent's text refused."""
    res = call("send", text=secret_user.sudo_id(), timeout=10)
    assert res["ok"], res
    res = poll(lambda: (r := call("status")) and r.get("needs_human") and r, 10)
    assert res, call("status")
    _asks(res, "password")
    refused = call("send", text="hunter2")
    assert not refused["ok"] and "only the human" in refused["error"], refused
    shared_terminal.type(secret_user.password)
    shared_terminal.press("Enter")
    res = call("wait", timeout=30)
    assert res["ok"] and res["status"] == "ready", res
    assert res["output"].strip().splitlines()[-1] == "0", res


def test_no_secret_is_left_anywhere(private_socket: str, secret_user: SecretUser) -> None:
    """Everything the tool keeps: its state folder (logs, outputs, audit), tmux's buffers and options, and
    the command lines of every process."""
    res = call("run", session="trail", command=secret_user.sudo_id(), timeout=30)
    _asks(res, "password")
    _type_as_the_human(private_socket, "trail", secret_user.password)
    res = call("wait", session="trail", timeout=30)
    assert res["ok"] and res["exit_code"] == 0, res
    assert secret_user.password not in repr(res)
    folder = Path(os.environ["TMUX_TOOL_STATE_DIR"])
    found = subprocess.run(["grep", "-rlF", "--", secret_user.password, str(folder)], check=False,
                           capture_output=True, text=True, timeout=30)
    assert found.stdout == "", f"the secret is in {found.stdout}"
    kept = "".join(subprocess.run(["tmux", "-L", private_socket, *command], check=False, capture_output=True,
                                  text=True, timeout=10).stdout
                   for command in (["list-buffers", "-F", "#{buffer_sample}"], ["show-options", "-g"],
                                   ["show-options", "-t", "=trail:"], ["show-environment", "-g"]))
    assert secret_user.password not in kept
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            assert secret_user.password.encode() not in cmdline.read_bytes(), cmdline
        except OSError:
            continue  # a process that ended meanwhile
