"""The human's shared terminal on another host: the agent is the same polite guest there.

The human's tmux session runs on the host (the test's sshd, a user whose
login shell is zsh) and the human is attached to it from here through their
own ``ssh -t``.  The agent reaches it with ``host``: it judges the shell from
the host's kernel and its prompt, types only at an empty prompt, and keeps
off a line the human is typing.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import ptyprocess  # type: ignore[import-untyped]
import pytest

from python.tools.tmux_tool import call

from ..conftest import poll, unique
from ..scenarios.conftest import Human

if TYPE_CHECKING:
    from ..accounts import RemoteHost

pytest_plugins = ["tests.accounts"]


@pytest.fixture
def far_shared(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
               monkeypatch: pytest.MonkeyPatch) -> Iterator[tuple[RemoteHost, str, Human]]:
    """The shared session on the host (zsh, the user's own shell), a human attached to it from here."""
    socket = unique("tt-far-shared")
    hosts = tmp_path / "hosts"
    hosts.write_text(remote_host.line + "\n")
    monkeypatch.setenv("TMUX_TOOL_HOSTS", str(hosts))
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", socket)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SESSION", "shared")
    remote_host.ssh("printf '%s\\n' \"PS1='%n@box %~ %# '\" > ~/.zshrc; "
                    f"LANG=C.UTF-8 tmux -u -L {socket} new-session -d -s shared -x 100 -y 30")
    ssh = ["ssh", "-tt", *remote_host.ssh_options(), f"{remote_host.user.name}@{remote_host.server.host}",
           f"LANG=C.UTF-8 tmux -u -L {socket} attach -t '=shared'"]
    proc = ptyprocess.PtyProcess.spawn(ssh, dimensions=(30, 100), env={"TERM": "xterm-256color", "PATH":
                                                                       "/usr/bin:/bin", "LANG": "C.UTF-8"})
    human = Human(proc)
    human.start_reading()
    assert poll(lambda: remote_host.ssh(f"tmux -L {socket} list-clients -F x 2>/dev/null").strip(), 20)
    assert poll(lambda: "@box ~ %" in remote_host.ssh(f"tmux -L {socket} capture-pane -p -t '=shared:'"), 20)
    yield remote_host, socket, human
    proc.terminate(force=True)
    remote_host.ssh(f"tmux -L {socket} kill-server 2>/dev/null; tmux -L {private_socket} kill-server "
                    "2>/dev/null; true")


def test_the_agent_types_into_the_far_shared_shell_and_reads_its_output(
        far_shared: tuple[RemoteHost, str, Human]) -> None:
    res = call("status", host="box")
    assert (res["ok"], res["status"]) == (True, "ready"), res
    res = call("send", text="echo far-$((6 * 7))", host="box", timeout=20)
    assert (res["ok"], res["status"], res["output"]) == (True, "ready", "far-42"), res
    res = call("send", text="sleep 2; echo slept", host="box", timeout=1)
    assert res["status"] == "busy", res
    res = call("wait", host="box", timeout=20)
    assert (res["status"], res["output"]) == ("ready", "slept"), res


def test_the_humans_line_on_the_far_host_is_theirs(far_shared: tuple[RemoteHost, str, Human]) -> None:
    box, socket, human = far_shared
    human.type("echo mine")
    assert poll(lambda: "echo mine" in box.ssh(f"tmux -L {socket} capture-pane -p -t '=shared:'"), 10)
    time.sleep(1.1)  # the human is idle now, but the line is still theirs
    res = call("send", text="echo agent", host="box", timeout=5)
    assert not res["ok"], res
    screen = box.ssh(f"tmux -L {socket} capture-pane -p -t '=shared:'")
    assert "echo mine" in screen and "echo agent" not in screen, screen
    human.press("Enter")
    assert poll(lambda: call("status", host="box")["status"] == "ready", 10)
