"""Place: where commands run.  Here and There answer the same questions; nothing outside transport/ asks
whether a place is this machine."""

from __future__ import annotations

import os
import re
from pathlib import Path

from python.helpers.tmux_tool.transport import kernel
from python.helpers.tmux_tool.transport.hosts import Host, HostError, LinkLost
from python.helpers.tmux_tool.transport.logwatch import LogWatch
from python.helpers.tmux_tool.transport.place import HERE, Here, Place, There, at
from python.helpers.tmux_tool.transport.tmux import Tmux

LIBRARY = Path(__file__).resolve().parents[2] / "python" / "helpers" / "tmux_tool"
# What asking "is it remote?" looks like (the grep), outside transport/.
REMOTE_BRANCH = re.compile(r"host is None|host is not None|if self\.host|\.host\b")
REMOTE_BRANCHES = 3


def _there(tmp_path: Path) -> There:
    return There(Host("box", tmp_path / "box", via=("podman", "exec", "-i", "box")))


def test_a_tmux_server_is_always_at_a_place(tmp_path: Path) -> None:
    assert Tmux("s").place is HERE and Tmux("s").host is None
    far = _there(tmp_path)
    tmux = Tmux("s", place=far)
    assert tmux.place == far and tmux.host is far.host and tmux.key == "box/s"
    assert at(None) is HERE and at(far.host) == far


def test_here_reads_this_machine(tmp_path: Path) -> None:
    place: Place = Here()
    assert place.name is None and place.link is None
    assert place.facts(os.getpid(), "") is kernel.HERE
    assert place.lost(err := HostError("x"), "s", typed=True) is err
    assert place.state(tmp_path) == tmp_path and place.folder("sock", tmp_path) == str(tmp_path)
    assert place.log_in("/far") == "" and isinstance(place.follow("", tmp_path / "log"), LogWatch)
    assert place.environ is os.environ and place.keeps_records and not place.round_trip
    assert place.run("printf %s here") == "here"
    place.install(str(tmp_path), tmp_path, {"a.conf": "one"})
    assert (tmp_path / "a.conf").read_text() == "one" and place.installed(str(tmp_path / "a.conf"))
    assert place.page_name("s") == "s" and "agent.sh take s" in place.own_terminal("sock", "s")


def test_there_says_what_it_cannot_know(tmp_path: Path) -> None:
    place: Place = _there(tmp_path)
    assert place.name == "box" and place.link == Host("box", tmp_path / "box", via=("podman", "exec", "-i", "box"))
    assert place.activity(1) is None and place.unread("/dev/pts/0") == 0 and place.zombie_status(1) is None
    assert place.environ is None and not place.keeps_records and place.round_trip
    assert place.log_in("/home/u/.tmux_tool/s/sessions/a") == "/home/u/.tmux_tool/s/sessions/a/pane.log"
    assert isinstance(place.follow("", tmp_path / "log"), LogWatch)  # a session made before it had a far log
    lost = place.lost(HostError("gone"), "a", typed=True)
    assert isinstance(lost, LinkLost) and lost.then == "wait --session a --host box"
    assert place.lost(lost, "a", typed=False) is lost
    assert place.page_name("a") == "a@box" and "tmux -L sock attach -t a" in place.own_terminal("sock", "a")
    assert "start.sh --host box" in place.shared_terminal("http://page")


def test_few_branches_on_remote_outside_transport() -> None:
    found = [f"{path.relative_to(LIBRARY)}:{n}: {line.strip()}"
             for path in sorted(LIBRARY.rglob("*.py"))
             # transport/ is where places differ; core/notify's host is a record's field, asked nothing
             if path.relative_to(LIBRARY).parts[0] not in ("transport", "core")
             for n, line in enumerate(path.read_text().splitlines(), 1)
             if REMOTE_BRANCH.search(line) and not line.lstrip().startswith("#")]
    assert len(found) <= REMOTE_BRANCHES, "\n".join(found)
