"""The kernel facts of a pane on another host, read from one dump: a pure reading that never raises."""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import termios

import pytest

from python.helpers.tmux_tool.transport import kernel


@pytest.mark.parametrize("text", ["", "\x1e", "\x1emodes\n", "garbage\x1e\x1e\n\x1emodes\nzz:yy", "\x1e" * 50])
def test_odd_dumps_read_as_unknown(text: str) -> None:
    dump = kernel.Dump.parse(text)
    assert dump.modes("/dev/pts/1") is None
    assert kernel.look(123, "/dev/pts/1", dump) == kernel.Terminal(False)


def test_a_dump_of_this_machine_reads_as_this_machine_does(tmp_path: object) -> None:
    """The script run here, on this shell's own terminal-less session, gives the facts /proc gives."""
    proc = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        out = subprocess.run(["sh", "-c", kernel.dump_script(proc.pid, "/dev/null")], capture_output=True,
                             text=True, timeout=10, check=True).stdout
        dump = kernel.Dump.parse(out)
        assert kernel.proc(proc.pid, dump) == kernel.proc(proc.pid)
        assert (dump.read(f"{proc.pid}/wchan") or "").strip() == "hrtimer_nanosleep"
        assert kernel.bytes_read(proc.pid, dump) >= 0
        assert kernel.started_ticks(0, dump) > 0
    finally:
        proc.kill()
        proc.wait()


def test_the_script_takes_only_a_terminal_path() -> None:
    assert "/nonexistent" in kernel.dump_script(1, "/dev/pts/1; rm -rf ~")
    assert "'/dev/pts/1'" not in kernel.dump_script(1, "/dev/pts/1")  # a plain path needs no quotes


def test_a_terminals_size_reads_the_same_from_a_dump_as_here() -> None:
    """The size a terminal's programs were told (what a resize under way is told by) reads alike both ways."""
    master, slave = os.openpty()
    try:
        fcntl.ioctl(master, termios.TIOCSWINSZ, struct.pack("HHHH", 33, 77, 0, 0))
        path = os.ttyname(slave)
        out = subprocess.run(["sh", "-c", kernel.dump_script(os.getpid(), path)], capture_output=True, text=True,
                             timeout=10, check=True).stdout
        here, there = kernel.HERE.modes(path), kernel.Dump.parse(out).modes(path)
        assert here is not None and there is not None
        assert here.size == there.size == (77, 33)
        assert (here.raw, here.echo) == (there.raw, there.echo)
    finally:
        os.close(slave)
        os.close(master)


@pytest.mark.parametrize("size", ["", "33", "x y", "33 77 1", "-1 5"])
def test_an_odd_size_in_a_dump_is_unknown(size: str) -> None:
    dump = kernel.Dump.parse(f"\x1emodes\n500:5:bf:8a3b:3:1c\n\x1esize\n{size}\n")
    modes = dump.modes("/dev/pts/1")
    assert modes is not None and modes.size is None and not modes.raw
