"""kernel.activity: what the processes below a shell asked of the CPU, read from /proc.

A loop asks for the CPU all the time, whether it gets it or not (on a loaded
machine it waits for it instead): over half a second it asks for at least
half a second, however busy the machine.  A ``sleep`` asks for nothing.  A
stopped process is said to be stopped.
"""

from __future__ import annotations

import os
import shlex
import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from python.helpers.tmux_tool.transport import kernel
from tests.conftest import poll


@pytest.fixture
def shell(tmp_path: Path) -> Iterator[subprocess.Popen[bytes]]:
    """A shell running a CPU loop and a sleep as its children, ended at teardown.  The loop says when it
    has begun (the file ``looping``): before that, python3 starts up, reading files as much as computing."""
    loop = "import pathlib, sys; pathlib.Path(sys.argv[1]).touch()\nwhile True: pass"
    proc = subprocess.Popen(["bash", "-c", f"python3 -c {shlex.quote(loop)} {shlex.quote(str(tmp_path / 'looping'))} & sleep 60 & wait"])
    yield proc
    for pid in _children(proc.pid):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    proc.kill()
    proc.wait(10)


def _children(pid: int) -> list[int]:
    return [int(c) for c in (kernel.HERE.read(f"{pid}/children") or "").split()]


def _named(shell: subprocess.Popen[bytes], comm: str) -> int | None:
    return next((p for p in _children(shell.pid) if (k := kernel.proc(p)) and k.comm == comm), None)


def test_a_loop_asks_for_the_cpu_and_a_sleep_does_not(shell: subprocess.Popen[bytes], tmp_path: Path) -> None:
    loop, sleeper = poll(lambda: _named(shell, "python3")), poll(lambda: _named(shell, "sleep"))
    assert loop and sleeper, "the shell's two children did not start"
    assert poll(lambda: (tmp_path / "looping").exists(), timeout=30), "the loop never began"
    first = kernel.activity(shell.pid)
    assert first is not None and not first.stopped
    began = time.monotonic()
    assert poll(lambda: time.monotonic() - began >= 0.5, timeout=5)
    later = kernel.activity(shell.pid)
    spent = time.monotonic() - began
    assert later is not None
    asked = {pid: (later.demand[pid] - first.demand.get(pid, 0)) / 1e9 for pid in (loop, sleeper)}
    assert asked[loop] >= 0.8 * spent and asked[sleeper] < 0.01, (asked, spent)
    assert later.since(first) >= asked[loop]
    assert shell.pid not in later.demand, "the shell itself is not counted"


def test_a_stopped_child_is_told(shell: subprocess.Popen[bytes]) -> None:
    assert poll(lambda: len(_children(shell.pid)) == 2)
    target = _children(shell.pid)[0]
    os.kill(target, signal.SIGSTOP)
    try:
        assert poll(lambda: (a := kernel.activity(shell.pid)) is not None and a.stopped)
    finally:
        os.kill(target, signal.SIGCONT)
    assert poll(lambda: (a := kernel.activity(shell.pid)) is not None and not a.stopped)
