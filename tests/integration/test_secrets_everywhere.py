"""A secret is never typed by the agent, wherever it is asked: as an ordinary user, behind a relay's own
terminal, by a child of a shell.

Every case is a real program asking a real secret of a real account
(tests/accounts.py); the tool runs as root, or as that ordinary user
(tests/ordinary.py), who cannot read the waits of setuid sudo and su.  Each
case: ``blocked`` with ``needs_human`` well before the timeout; the agent's
text and keys refused (only leave keys pass), so the program never counts a
failed attempt; the human types the secret; the agent's ``wait`` returns
``ready`` with the exact output.
"""

from __future__ import annotations

import secrets
import shlex
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from python.helpers.tmux_tool.transport import kernel
from python.tools.tmux_tool import call

from ..conftest import poll

if TYPE_CHECKING:
    from ..accounts import LocalSshd, SecretUser
    from ..ordinary import Ordinary

pytest_plugins = ["tests.accounts", "tests.ordinary"]

Call = Callable[..., dict[str, Any]]
RUN_TIMEOUT = 60.0  # the question must come back before the run's own timeout, not at it


def _asks(res: dict[str, Any], words: str, started: float) -> None:
    assert time.monotonic() - started < RUN_TIMEOUT, ("the question came back only at the timeout", res)
    assert res["ok"] and res["status"] == "blocked" and res.get("needs_human") is True, res
    assert words in res["question"].lower(), res
    assert "send" not in (res.get("hint") or ""), res  # the hint never tells the agent to type an answer


def _refuses(call_: Call, session: str) -> None:
    """The agent's text and keys go nowhere; a leave key would (not pressed here)."""
    for action, args in (("send", {"text": "hunter2"}), ("keys", {"keys": ["Enter"]}),
                         ("keys", {"keys": ["h", "i"]})):
        res = call_(action, session=session, **args)
        assert not res["ok"] and "only the human" in res["error"], (action, res)
        assert res.get("needs_human") is True, (action, res)


def _no_failed_attempt(res: dict[str, Any]) -> None:
    text = (res.get("output") or "") + (res.get("screen") or "")
    assert "Sorry, try again" not in text and "incorrect password" not in text.lower(), res


def _run_asks(call_: Call, session: str, command: str, words: str) -> None:
    started = time.monotonic()
    res = call_("run", session=session, command=command, timeout=RUN_TIMEOUT)
    _asks(res, words, started)
    _refuses(call_, session)


# --------------------------------------------------------------------------- as an ordinary user

@pytest.mark.parametrize("shape", ["plain", "bash -c", "sh -c", "script"])
def test_sudo_as_an_ordinary_user(ordinary: Ordinary, shape: str) -> None:
    """sudo is setuid: its wait reads 0 to the user, and the terminal set for a secret decides."""
    line = "sudo -k; sudo id -u"
    if shape == "script":
        script = ordinary.user.home / "ask.sh"
        script.write_text(f"#!/bin/sh\n{line}\necho done\n")
        subprocess.run(["chown", ordinary.user.name, str(script)], check=True, timeout=10)
        command = f"sh {shlex.quote(str(script))}"
    else:
        command = line if shape == "plain" else f"{shape} {shlex.quote(line + '; echo done')}"
    session = f"sudo-{shape.replace(' ', '').replace('-', '')}"
    _run_asks(ordinary.call, session, command, "password")
    ordinary.type_secret(session, ordinary.user.password)
    res = ordinary.call("wait", session=session, timeout=30)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert res["output"].splitlines()[-1] == ("0" if shape == "plain" else "done"), res
    _no_failed_attempt(res)


def test_su_as_an_ordinary_user(ordinary: Ordinary) -> None:
    """su to oneself asks one's password; su is setuid too."""
    _run_asks(ordinary.call, "su", f"su {ordinary.user.name} -c 'id -u'", "password")
    ordinary.type_secret("su", ordinary.user.password)
    res = ordinary.call("wait", session="su", timeout=30)
    assert res["ok"] and res["exit_code"] == 0 and res["output"].splitlines()[-1] == str(ordinary.user.uid), res


def test_a_leave_key_is_the_agents_to_press(ordinary: Ordinary) -> None:
    """passwd asks the current password; the agent may not answer it, but may leave it (passwd ignores
    C-c there; C-d, an empty input, ends it)."""
    _run_asks(ordinary.call, "passwd", "passwd", "password")
    res = ordinary.call("keys", session="passwd", keys=["C-d"], timeout=10)
    assert res["ok"], res
    if res["exit_code"] is None:  # the run had not ended when the keys' result was given: wait gives it
        res = ordinary.call("wait", session="passwd", timeout=20)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] not in (None, 0), res
    assert res["output"].endswith("unchanged"), res  # "passwd: password unchanged" (the word after "passwd:" is masked)


def test_a_child_of_a_shell_asks_as_an_ordinary_user(ordinary: Ordinary) -> None:
    """getpass in a child of ``bash -c``: the group's leader waits for the child, the child reads."""
    script = "import getpass; print(len(getpass.getpass('Token: ')))"
    _run_asks(ordinary.call, "child", f"bash -c {shlex.quote(f'python3 -c {shlex.quote(script)}; echo done')}",
              "token")
    ordinary.type_secret("child", "abc")
    res = ordinary.call("wait", session="child", timeout=20)
    assert res["ok"] and res["output"].splitlines()[-2:] == ["3", "done"], res


def test_everyday_runs_as_an_ordinary_user(ordinary: Ordinary) -> None:
    """What the rest of the suite proves as root holds for the user: exact output, exit code, cwd."""
    res = ordinary.call("run", command="cd /tmp && printf 'a\\nb\\n' && (exit 3)", timeout=20)
    assert (res["ok"], res["output"], res["exit_code"], res["cwd"]) == (True, "a\nb", 3, "/tmp"), res
    res = ordinary.call("run", command="id -un", timeout=20)
    assert res["output"] == ordinary.user.name, res
    res = ordinary.call("run", command="sleep 0.3; echo late", timeout=0.05)
    assert res["status"] == "busy", res
    res = ordinary.call("wait", session="scratch", timeout=20)
    assert (res["status"], res["output"], res["exit_code"]) == ("ready", "late", 0), res


def test_the_shared_terminal_of_an_ordinary_user(ordinary: Ordinary) -> None:
    """The human's own terminal, the tool theirs too: the agent's sudo there is theirs to answer."""
    ordinary.tmux("new-session", "-d", "-s", "shared", "-x", "120", "-y", "40", "bash", "--norc", "-i",
                  socket=ordinary.SHARED)
    try:
        assert poll(lambda: "$" in ordinary.tmux("capture-pane", "-p", "-t", "=shared:", socket=ordinary.SHARED), 20)
        res = ordinary.call("send", text="sudo -k; sudo id -u", timeout=20)
        assert res["ok"], res
        res = poll(lambda: (r := ordinary.call("status")) and r.get("needs_human") and r, 20)
        assert res and res["status"] == "blocked" and "password" in res["question"].lower(), res
        _refuses(ordinary.call, "shared")
        ordinary.type_secret("shared", ordinary.user.password, socket=ordinary.SHARED)
        res = ordinary.call("wait", timeout=30)
        assert res["ok"] and res["status"] == "ready", res
        assert res["output"].splitlines()[-1] == "0", res
        _no_failed_attempt(res)
    finally:
        ordinary.tmux("kill-server", socket=ordinary.SHARED, check=False)


# --------------------------------------------------------------------------- behind a relay (as root)

def _raw_during_the_question(socket: str, session: str) -> bool:
    """The pane's own terminal is raw while the question is asked: the secret is read behind a relay."""
    out = subprocess.run(["tmux", "-L", socket, "display-message", "-p", "-t", f"={session}:",
                          "#{pane_pid} #{pane_tty}"], capture_output=True, text=True, timeout=10, check=True)
    pid, tty = out.stdout.split()
    term = kernel.look(int(pid), tty)
    return term.known and term.raw


@pytest.fixture
def use_pty() -> Iterator[None]:
    """Debian's default, made sure of: root's sudo relays a terminal of its own."""
    rule = Path("/etc/sudoers.d") / f"tt-use-pty-{secrets.token_hex(3)}"
    draft = rule.with_name(f".{rule.name}")
    draft.write_text("Defaults:root use_pty\n")
    draft.chmod(0o440)
    try:
        subprocess.run(["visudo", "-cf", str(draft)], check=True, capture_output=True, timeout=10)
        draft.rename(rule)
        yield
    finally:
        draft.unlink(missing_ok=True)
        rule.unlink(missing_ok=True)


@pytest.mark.usefixtures("use_pty")
def test_sudo_behind_sudos_own_terminal(private_socket: str, secret_user: SecretUser) -> None:
    """``sudo -u USER bash -c 'sudo …'`` with use_pty: the inner sudo reads a terminal the pane never sees."""
    line = f"sudo -u {secret_user.name} bash -c {shlex.quote('sudo -k; sudo id -u')}"
    _run_asks(call, "relay", line, "password")
    assert _raw_during_the_question(private_socket, "relay"), "the outer sudo did not relay a terminal"
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=relay:", "-l", "--", secret_user.password],
                   check=True, timeout=10)
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=relay:", "Enter"], check=True, timeout=10)
    res = call("wait", session="relay", timeout=30)
    assert res["ok"] and res["exit_code"] == 0 and res["output"].splitlines()[-1] == "0", res
    _no_failed_attempt(res)


def test_sudo_behind_ssh_t(private_socket: str, secret_user: SecretUser, local_sshd: LocalSshd) -> None:
    """``ssh -t host sudo …``: two secrets in a row, ssh's own password (read here) and sudo's (read there,
    behind ssh's pty); each is the human's, and the second ends the wait the first began."""
    ssh, *rest = local_sshd.argv(secret_user.name, "sudo -k; sudo id -u")
    command = shlex.join([ssh, "-t", *rest])
    _run_asks(call, "sshsudo", command, "password")
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=sshsudo:", "-l", "--",
                    secret_user.password], check=True, timeout=10)
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=sshsudo:", "Enter"], check=True, timeout=10)
    res = call("wait", session="sshsudo", timeout=30)
    assert res["status"] == "blocked" and res.get("needs_human") is True, res
    assert secret_user.sudo_prompt.lower() in res["question"].lower(), res
    assert _raw_during_the_question(private_socket, "sshsudo")
    _refuses(call, "sshsudo")
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=sshsudo:", "-l", "--",
                    secret_user.password], check=True, timeout=10)
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=sshsudo:", "Enter"], check=True, timeout=10)
    res = poll(lambda: (r := call("wait", session="sshsudo", timeout=30)) and r["status"] == "ready" and r, 40)
    assert res and res["exit_code"] == 0, res
    assert "0" in res["output"].splitlines(), res
    _no_failed_attempt(res)
