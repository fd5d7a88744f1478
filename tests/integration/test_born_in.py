"""Which processes a program in a pane left running: ``kernel.born_in`` here, and its ``sh`` twin
``kernel.born_in_script`` as a host runs it (under dash), on one real tmux pane.

The pane's shell started a daemon of its own before the program (before ``since``: kept), a job
that still runs below it (the shell's: kept); after ``since`` come a daemon in a session of its own
(``setsid``), an orphan whose parent ended, and a job below the shell again; another pane's daemon
is not this pane's.  Both readings name the same two, and the script ends them.
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from python.helpers.tmux_tool.transport import kernel
from tests.conftest import kill_server, poll, unique

DAEMON = "python3 -c 'import subprocess; print(subprocess.Popen([\"sleep\", \"{n}\"], start_new_session=True).pid)'"


@pytest.fixture
def tmux() -> Iterator[list[str]]:
    socket = unique("tt-born")
    yield ["tmux", "-L", socket, "-f", "/dev/null"]
    kill_server(socket)


def _shell_says(tmux: list[str], pane: str, command: str, out: Path, count: int) -> list[int]:
    """Type ``command`` in ``pane`` with its output sent to ``out``; the ``count`` pids it printed."""
    subprocess.run([*tmux, "send-keys", "-t", pane, f"{{ {command}; }} > {out}", "Enter"], check=True, timeout=5)
    assert poll(lambda: out.exists() and len(out.read_text().split()) == count, 10), command
    return [int(w) for w in out.read_text().split()]


def test_the_processes_a_program_left_in_its_pane(tmux: list[str], tmp_path: Path) -> None:
    subprocess.run([*tmux, "new-session", "-d", "-x", "80", "-y", "20", "bash --norc --noprofile"],
                   check=True, timeout=5)
    subprocess.run([*tmux, "split-window", "-d", "bash --norc --noprofile"], check=True, timeout=5)
    listed = subprocess.run([*tmux, "list-panes", "-F", "#{pid} #{pane_id} #{pane_pid}"], capture_output=True,
                            text=True, check=True, timeout=5).stdout.split("\n")
    server, pane, shell = listed[0].split()
    other = listed[1].split()[1]
    before = _shell_says(tmux, pane, DAEMON.format(n=700) + "; sleep 701 & echo $!", tmp_path / "before", 2)
    since = max(p.started for pid in before if (p := kernel.proc(pid)) is not None) + 1
    assert poll(lambda: kernel.started_ticks(0) >= since, 5)
    elsewhere = _shell_says(tmux, other, DAEMON.format(n=702), tmp_path / "elsewhere", 1)
    after = _shell_says(tmux, pane, DAEMON.format(n=703) + "; (sleep 704 & echo $!); sleep 705 & echo $!",
                        tmp_path / "after", 3)
    left = sorted(after[:2])
    found = kernel.born_in(int(server), pane, since, int(shell))
    assert sorted(p.pid for p in found) == left, (before, elsewhere, after, found)

    script = kernel.born_in_script(int(server), pane, since, int(shell))
    ran = subprocess.run(["dash", "-c", script], check=False, capture_output=True, text=True, timeout=30)
    assert ran.stderr == "" and sorted(int(line.split()[0]) for line in ran.stdout.splitlines()) == left, ran
    assert all(line.split()[1:] == ["sleep"] for line in ran.stdout.splitlines()), ran.stdout
    assert kernel.born_in(int(server), pane, since, int(shell)) == []
    kept = (*before, *elsewhere, after[2])
    try:
        for pid in kept:
            assert kernel.proc(pid) is not None, f"{pid} was not the program's and was ended"
    finally:
        kernel.end([p for pid in kept if (p := kernel.proc(pid)) is not None], grace=1)
