"""The far side's tmux may be any from 3.0 on: the oldest and the newest Debian gives, reached as a host.

Two real containers (tests/containers.py): Debian bullseye with tmux 3.1c
and trixie with tmux 3.5a, each with zsh as the user's login shell and
python3.  The hosts file declares each by the ``podman exec`` command that
reaches it, as tests/remote/test_container_host.py does with bookworm's 3.3a,
and the real tool runs commands, keeps a shell's state, starts a REPL and
kills a session there.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from python.tools.tmux_tool import call

from .conftest import container_host, inside

if TYPE_CHECKING:
    from ..containers import Container

pytest_plugins = ["tests.containers"]

HOST = "far"
# What `tmux -V` prints in each suite's image (Debian keeps a release's upstream version).
TMUX_VERSION = {"bullseye": "tmux 3.1c", "trixie": "tmux 3.5a"}


@pytest.fixture(params=["old_container", "new_container"], ids=["bullseye-tmux-3.1c", "trixie-tmux-3.5a"])
def far(request: pytest.FixtureRequest, private_socket: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> Iterator[Container]:
    """The host ``far``: one of the two containers, declared in a hosts file of this test."""
    with container_host(request.getfixturevalue(request.param), HOST, private_socket, tmp_path,
                        monkeypatch) as box:
        yield box


def test_runs_are_exact_and_keep_the_shells_state(far: Container, private_socket: str) -> None:
    assert inside(far, "tmux -V").strip() == TMUX_VERSION[far.suite]
    res = call("run", command="tmux -V; echo ok; sh -c 'exit 3'", host=HOST, timeout=60)
    assert (res["ok"], res["exit_code"], res["output"]) == (True, 3, f"{TMUX_VERSION[far.suite]}\nok"), res
    res = call("run", command="cd /tmp", host=HOST, timeout=60)
    assert (res["ok"], res["exit_code"]) == (True, 0), res
    res = call("run", command="pwd", host=HOST, timeout=60)
    assert (res["ok"], res["output"]) == (True, "/tmp"), res
    # The tool's tmux server there is the container's own, on the private socket's name.
    listed = inside(far, f"tmux -L {private_socket} list-sessions -F '#{{session_name}}'")
    assert listed.split(), listed


def test_a_repl_starts_and_a_session_is_killed(far: Container, private_socket: str) -> None:
    res = call("start", program="python3", session="py", host=HOST, timeout=60)
    assert res["ok"] and res["status"] == "ready", (res["error"], res["screen"], res.get("evidence"))
    res = call("ask", session="py", prompt="print(6 * 7)", host=HOST, timeout=60)
    assert (res["ok"], res["output"]) == (True, "42"), res
    assert call("exit", session="py", host=HOST)["ok"]

    res = call("run", command="echo scratch", host=HOST, timeout=60)
    assert (res["ok"], res["output"]) == (True, "scratch"), res
    res = call("kill", session="scratch", host=HOST)
    assert res["ok"], res
    # kill removes the session's files there (py's stay: exit ends the program, not what is known of it)
    assert "scratch" not in inside(far, f"ls ~/.tmux_tool/{private_socket}/sessions").split()
