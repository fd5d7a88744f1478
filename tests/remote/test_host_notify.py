"""Prompts on the way to a host and on it reach the human once, named by their host.

The host is the test's own sshd on 127.0.0.2 (tests/accounts.py); the
notifications go to a receiver here (tests/notifications.py).
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from python.helpers.tmux_tool.core import notify
from python.tools.tmux_tool import call

from .conftest import declare

if TYPE_CHECKING:
    from ..accounts import RemoteHost
    from ..notifications import Receiver

pytest_plugins = ["tests.accounts", "tests.notifications"]


@pytest.fixture
def told(receiver: Receiver, monkeypatch: pytest.MonkeyPatch) -> Receiver:
    monkeypatch.setenv(notify.ENV, receiver.url)
    return receiver


@pytest.fixture
def pwbox(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
          monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteHost]:
    """The host declared as ``pwbox``, reached with its user's password: ssh asks it as it connects."""
    options, skip = [], False
    for opt in remote_host.ssh_options():  # without the key, and without IdentitiesOnly's pair
        if skip or opt in ("-i", "IdentitiesOnly=yes"):
            skip = opt == "-i"
            if opt == "IdentitiesOnly=yes":
                options.pop()  # its "-o"
            continue
        options.append(opt)
    options += ["-o", "PubkeyAuthentication=no", "-o", "PreferredAuthentications=password"]
    declare(tmp_path, monkeypatch, shlex.join(["pwbox", "ssh", *options,
                                               f"{remote_host.user.name}@{remote_host.server.host}"]))
    yield remote_host
    remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; true")


def test_sshs_password_while_connecting_is_told_once(pwbox: RemoteHost, private_socket: str,
                                                       told: Receiver) -> None:
    """The calls that connect and a look at the connection's session (the page's) are one prompt."""
    for _ in range(2):  # the agent makes its call again before the human has answered
        res = call("run", command="echo in", host="pwbox", timeout=10)
        assert (res["status"], res.get("needs_human"), res["host"]) == ("blocked", True, "pwbox"), res["error"]
        assert res["connection"] == "pwbox", res
    seen = call("status", session=res["session"])  # as the page judges the connection's session here
    assert seen.get("needs_human") and seen["connection"] == "pwbox", seen
    told.done()
    asks = told.asks()
    assert len(asks) == 1, told.posts
    assert asks[0]["title"].startswith(f"{res['session']} on pwbox "), asks
    assert res["where"] in asks[0]["message"] and "password" in asks[0]["message"].lower(), asks
    for keys in (["-l", pwbox.user.password], ["Enter"]):
        subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", f"={res['session']}:", *keys],
                       check=True, timeout=10)
    connected = call("run", command="echo in", host="pwbox", timeout=20)
    assert (connected["ok"], connected["output"]) == (True, "in"), connected
    assert call("status", session=res["session"])["connection"] == "pwbox"  # the page's look: connected
    told.done()
    assert len(told.asks()) == 1 and pwbox.user.password not in json.dumps(told.posts), told.posts
    assert [p["title"] for p in told.answers()] == [f"{res['session']} on pwbox no longer needs you"], told.posts


def test_a_secret_asked_on_the_host_is_told_once_with_its_host(
        remote_host: RemoteHost, private_socket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        told: Receiver) -> None:
    declare(tmp_path, monkeypatch, remote_host.line)
    try:
        res = call("run", command="read -rs -p 'Token: ' t; echo done", host="box", timeout=20)
        assert (res["status"], res.get("needs_human")) == ("blocked", True), res
        for _ in range(2):
            assert call("status", session="scratch", host="box").get("needs_human")
        told.done()
        asks = told.asks()
        assert len(asks) == 1 and asks[0]["title"] == "scratch on box needs you", told.posts
        assert "Token:" in asks[0]["message"] and res["where"] in asks[0]["message"], asks
        assert call("keys", keys=["C-c"], session="scratch", host="box")["ok"]  # a leave key: the prompt goes
        assert not call("status", session="scratch", host="box").get("needs_human")
        told.done()
        assert [p["title"] for p in told.answers()] == ["scratch on box no longer needs you"], told.posts
    finally:
        remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; rm -rf ~/.tmux_tool/{private_socket}")
