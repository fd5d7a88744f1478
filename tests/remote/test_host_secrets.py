"""A secret asked on a host is the human's, as here: the host's user is an ordinary one, so sudo there is
setuid and its waits read 0 in the host's dump; the terminal set for a secret decides, whatever shape the
command has.

The host is the test's own sshd on 127.0.0.2 with a throwaway user whose sudo
rule always asks (tests/accounts.py).  The human's keys reach the session
there through a tmux buffer fed on ssh's stdin: the password is on no
command line on either side.
"""

from __future__ import annotations

import shlex
import subprocess
import time
from typing import TYPE_CHECKING

import pytest

from python.tools.tmux_tool import call

if TYPE_CHECKING:
    from ..accounts import RemoteHost
    from ..containers import Container

pytest_plugins = ["tests.accounts", "tests.containers"]

TIMEOUT = 60.0


def _type_there(box: RemoteHost, socket: str, session: str, secret: str) -> None:
    """The human's keys in the session on the host (what their own ssh and tmux client would do)."""
    target = f"'={session}:'"  # quoted for zsh too, whose =word is a command's path
    script = (f"tmux -L {shlex.quote(socket)} load-buffer -b human - \\; paste-buffer -d -b human -t {target} "
              f"\\; send-keys -t {target} Enter")
    argv = ["ssh", *box.ssh_options(), "-o", "BatchMode=yes", f"{box.user.name}@{box.server.host}", script]
    done = subprocess.run(argv, input=secret, text=True, capture_output=True, timeout=30, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("shape", ["plain", "sh -c"])
def test_sudo_on_a_host_as_its_ordinary_user(box: RemoteHost, private_socket: str, shape: str) -> None:
    line = "sudo -k; sudo id -u"
    command = line if shape == "plain" else f"sh -c {shlex.quote(line + '; echo done')}"
    started = time.monotonic()
    res = call("run", command=command, host="box", session="admin", timeout=TIMEOUT)
    assert time.monotonic() - started < TIMEOUT, ("the question came back only at the timeout", res)
    assert res["ok"] and res["status"] == "blocked" and res.get("needs_human") is True, res
    assert box.user.sudo_prompt in res["question"] and res.get("host") == "box", res
    for action, args in (("send", {"text": "hunter2"}), ("keys", {"keys": ["Enter"]})):
        refused = call(action, session="admin", host="box", **args)
        assert not refused["ok"] and "only the human" in refused["error"], (action, refused)
    _type_there(box, private_socket, "admin", box.user.password)
    res = call("wait", session="admin", host="box", timeout=TIMEOUT)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert res["output"].splitlines()[-1] == ("0" if shape == "plain" else "done"), res
    assert "Sorry, try again" not in res["output"] and box.user.password not in repr(res), res


def test_a_secret_behind_a_containers_exec_terminal(container: Container, private_socket: str) -> None:
    """``podman exec -it C passwd``: the container's own pty is out of the pane's kernel facts (podman
    relays it, the pane's terminal is raw); the question at the cursor decides."""
    argv = [*container.exec_argv, "passwd", container.user]
    argv.insert(argv.index("-i"), "-t")
    res = call("run", session="box", command=shlex.join(argv), timeout=TIMEOUT)
    assert res["ok"] and res["status"] == "blocked" and res.get("needs_human") is True, res
    assert "password" in res["question"].lower(), res
    refused = call("send", session="box", text="hunter2")
    assert not refused["ok"] and "only the human" in refused["error"], refused
    for _ in range(2):  # new password, and again
        asked = call("wait", session="box", timeout=TIMEOUT) if _ else res
        assert asked.get("needs_human") is True, asked
        subprocess.run(["tmux", "-L", private_socket, "load-buffer", "-b", "human", "-", ";", "paste-buffer", "-d",
                        "-b", "human", "-t", "=box:", ";", "send-keys", "-t", "=box:", "Enter"],
                       input="Tt-new-pass-42", text=True, check=True, timeout=10)
    res = call("wait", session="box", timeout=TIMEOUT)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert "updated successfully" in res["output"], res
