"""What the tests of other hosts share: a hosts file of the test's own, and a container declared in it."""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from ..accounts import RemoteHost
    from ..containers import Container


def declare(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *lines: str) -> None:
    """A hosts file with ``lines``, for this test only (``TMUX_TOOL_HOSTS``)."""
    hosts = tmp_path / "hosts"
    hosts.write_text("".join(line + "\n" for line in lines))
    monkeypatch.setenv("TMUX_TOOL_HOSTS", str(hosts))


def inside(box: Container, script: str, *, check: bool = True) -> str:
    """Run ``script`` in the container as its user (the way a person's own ``podman exec`` does)."""
    return subprocess.run([*box.exec_argv_user, "sh", "-c", script], capture_output=True, text=True,
                          timeout=30, check=check).stdout


@contextmanager
def container_host(box: Container, name: str, private_socket: str, tmp_path: Path,
                   monkeypatch: pytest.MonkeyPatch) -> Iterator[Container]:
    """``box`` declared as host ``name``; the tool's server and files there are removed afterwards."""
    declare(tmp_path, monkeypatch, shlex.join([name, *box.exec_argv_user]))
    yield box
    inside(box, f"tmux -L {private_socket} kill-server; rm -rf ~/.tmux_tool/{private_socket}", check=False)


@pytest.fixture
def box(remote_host: RemoteHost, private_socket: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[RemoteHost]:
    """The host of ``tests.accounts.remote_host``, declared in a hosts file as ``box``; the tool's server
    there is ended afterwards."""
    declare(tmp_path, monkeypatch, remote_host.line)
    yield remote_host
    remote_host.ssh(f"tmux -L {private_socket} kill-server 2>/dev/null; rm -rf ~/.tmux_tool/{private_socket}")
