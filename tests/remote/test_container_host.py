"""Sessions in a container, reached by its engine's ``exec`` instead of ssh: the same exact runs.

The container is real: podman with a root filesystem made by debootstrap
(tests/containers.py), a user whose login shell is zsh.  The hosts file
declares it by the command that reaches it.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from python.tools.tmux_tool import call

from ..conftest import unique
from .conftest import container_host, declare, inside

if TYPE_CHECKING:
    from ..containers import Container

pytest_plugins = ["tests.containers"]


@pytest.fixture
def ctr(container: Container, private_socket: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[Container]:
    with container_host(container, "ctr", private_socket, tmp_path, monkeypatch) as box:
        yield box


def test_runs_in_the_container_are_exact(ctr: Container, private_socket: str) -> None:
    res = call("run", command="hostname; whoami; cd /tmp; sh -c 'exit 5'", host="ctr", timeout=30)
    assert (res["ok"], res["exit_code"], res["output"]) == (True, 5, f"{ctr.name}\n{ctr.user}"), res
    res = call("run", command="pwd; echo 'ü'", host="ctr", timeout=30)
    assert res["output"] == "/tmp\nü", res
    assert inside(ctr, f"stat -c %a ~/.tmux_tool/{private_socket}").strip() == "700"


def test_the_containers_tmux_server_killed(ctr: Container, private_socket: str) -> None:
    call("run", command="true", host="ctr", timeout=30)
    inside(ctr, f"tmux -L {private_socket} kill-server")
    res = call("run", command="echo again", host="ctr", timeout=30)
    assert (res["ok"], res["output"]) == (True, "again"), res
    res = call("kill", session="scratch", host="ctr")
    assert res["ok"], res
    assert inside(ctr, f"ls ~/.tmux_tool/{private_socket}/sessions").strip() == ""


def test_a_stopped_container_is_said_with_what_to_do(private_socket: str, tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The container of a host is stopped: the tool's sentence says so and what to do, not the engine's
    words alone; once it is started again, the call works."""
    from ..containers import PODMAN, host_image, running_container

    with running_container(host_image()) as box, container_host(box, "stopped", private_socket, tmp_path,
                                                                monkeypatch):
        assert call("run", command="true", host="stopped", timeout=30)["ok"]
        subprocess.run([*PODMAN, "stop", "--time", "0", box.name], capture_output=True, check=True, timeout=60)
        res = call("run", command="echo hi", host="stopped", timeout=30)
        assert (res["ok"], res["host"]) == (False, "stopped"), res
        assert res["error"].startswith("the container of host stopped is not running: start it "), res
        assert "container state improper" in res["error"], res  # the engine's own words, for the person
        subprocess.run([*PODMAN, "start", box.name], capture_output=True, check=True, timeout=60)
        res = call("run", command="echo hi", host="stopped", timeout=30)
        assert (res["ok"], res["output"]) == (True, "hi"), res


def test_a_missing_container_is_said_with_what_to_do(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hosts file names a container that does not exist: the tool's sentence, with what to do."""
    from ..containers import PODMAN, require

    require("podman")
    declare(tmp_path, monkeypatch, shlex.join(["gone", *PODMAN, "exec", "-i", unique("tt-no-such-box")]))
    res = call("run", command="true", host="gone", timeout=30)
    assert (res["ok"], res["host"]) == (False, "gone"), res
    assert res["error"].startswith("the container of host gone does not exist (removed, or its name in the "
                                   f"hosts file {tmp_path / 'hosts'} is wrong): create it or fix the line"), res
