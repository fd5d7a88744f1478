"""When only a key can wake a program, and what a verdict becomes then: pure readings of kernel facts.

The facts are given as a dump (:class:`kernel.Dump`), the form a host's facts come in, so every
case here is one the real reading meets: ``/proc/PID/wchan``, the descriptors (``PID/fds``, as
``kernel.HERE`` names them) and ``/proc/PID/syscall`` lines as Linux x86_64 writes them (taken
from ``bc``, ``top``, ``gdb`` and ``tclsh`` in tmux panes).  The end-to-end proof with those real
programs is ``tests/integration/test_unknown_line_programs.py``.
"""

from __future__ import annotations

import os

import pytest

from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.programs import Verdict, waiting
from python.helpers.tmux_tool.screen.snapshot import Snapshot
from python.helpers.tmux_tool.transport import kernel

X86 = os.uname().machine == "x86_64"
TTY = "/dev/pts/7\n/dev/pts/7\n/dev/pts/7"
# /proc/PID/syscall of a pselect6 with no timeout (bc, python3's readline), with one (top), and
# poll with -1 (gdb), and a read (tclsh)
PSELECT_FOREVER = "270 0x1 0x7ffe0c282fd0 0x0 0x0 0x0 0x7ffe0c282f00 0x7ffe0c282ec0 0x7f0c6ea7caec"
PSELECT_TIMER = "270 0x1 0x7ffc642fcaf0 0x0 0x0 0x7ffc642fca50 0x7ffc642fca60 0x7ffc642fca20 0x7fbc18a86aec"
POLL_FOREVER = "7 0x5605dc4101b0 0x4 0xffffffff 0x0 0x0 0x0 0x7ffd00dab440 0x7f8c59d1a26f"
POLL_TIMER = "7 0x5605dc4101b0 0x4 0x3e8 0x0 0x0 0x0 0x7ffd00dab440 0x7f8c59d1a26f"
POLL_WCHAN = "poll_schedule_timeout.constprop.0"




def _stat(threads: int) -> str:
    """bc's stat line with ``threads`` threads (the 20th field)."""
    return f"9 (bc) S 10 9 10 34816 9 4194560 100 0 0 0 0 0 0 0 20 0 {threads} 0 1000 2400000 500"


def _only_keys(wchan: str, fds: str | None, syscall: str | None, threads: int = 1) -> bool:
    files = {k: v for k, v in (("9/fds", fds), ("9/syscall", syscall), ("9/stat", _stat(threads)))
             if v is not None}
    return kernel._keys_only(9, wchan, kernel.Dump(files))


@pytest.mark.parametrize("wchan", ["wait_woken", POLL_WCHAN])
def test_a_process_of_several_threads_may_be_woken_by_another(wchan: str) -> None:
    assert not _only_keys(wchan, TTY, PSELECT_FOREVER, threads=2)
    assert not kernel._keys_only(9, wchan, kernel.Dump({"9/fds": TTY, "9/syscall": PSELECT_FOREVER}))


@pytest.mark.parametrize("wchan", ["wait_woken", "n_tty_read"])
def test_a_read_of_the_terminal_waits_for_a_key(wchan: str) -> None:
    assert _only_keys(wchan, None, None)


@pytest.mark.skipif(not X86, reason="the recorded syscall lines are x86_64's")
@pytest.mark.parametrize(("fds", "syscall", "only"), [
    (TTY, PSELECT_FOREVER, True),
    ("/dev/pts/7\nfile\n/dev/null\n/dev/tty", POLL_FOREVER, True),
    (TTY, PSELECT_TIMER, False),  # top: its timer wakes it
    (TTY, POLL_TIMER, False),
    (TTY + "\npipe:[14878778]", POLL_FOREVER, False),  # gdb: a pipe of its own may wake it
    (TTY + "\nsocket:[1]", PSELECT_FOREVER, False),
    (TTY + "\nanon_inode:[eventfd]", PSELECT_FOREVER, False),
    (TTY + "\n/tmp/fifo", PSELECT_FOREVER, False),  # a named pipe is named by its path, not "file"
    (None, PSELECT_FOREVER, False),  # descriptors not readable (another user's process, a dump)
    (TTY, None, False),
    ("", PSELECT_FOREVER, False),
    (TTY, "0 0x0 0x5601bd9f0338 0x1000", False),  # a read, not a poll: the wchan says poll
    (TTY, "garbage", False),
    (TTY, "", False),
    (TTY, "7 0x1", False),
])
def test_a_poll_waits_for_a_key_only_without_a_timeout_and_on_terminals_alone(
        fds: str | None, syscall: str | None, only: bool) -> None:
    assert _only_keys(POLL_WCHAN, fds, syscall) is only


@pytest.mark.parametrize("wchan", ["do_wait", "hrtimer_nanosleep", "anon_pipe_read", "futex_do_wait", "",
                                   "do_epoll_wait"])
def test_other_waits_are_not_for_keys(wchan: str) -> None:
    assert not _only_keys(wchan, TTY, PSELECT_FOREVER)


BC = kernel.Proc(20, "bc", "S", 10, 20, 20, 1000, 10)
SHELL = kernel.Proc(10, "bash", "S", 1, 10, 20, 900, 10)
LINE = Snapshot(("$ bc -q", "6*7", "42", ""), 40, 6, (0, 3))
WORKING = Verdict(Status.BUSY, "bc", "bc is running and shows no question at the cursor")


def _term(**kw: object) -> kernel.Terminal:
    facts: dict = {"known": True, "shell": SHELL, "front": BC, "leader": BC, "wchan": POLL_WCHAN, "raw": True,
                   "echo": False, "keys_only": True} | kw
    return kernel.Terminal(**facts)


def test_a_started_program_that_only_waits_for_a_key_is_ready() -> None:
    v = waiting.heard(WORKING, _term(), LINE, started=True)
    assert v.status == Status.READY and "the kernel has it asleep on its terminal" in v.evidence, v


def test_a_command_that_only_waits_for_a_key_is_blocked() -> None:
    v = waiting.heard(WORKING, _term(), LINE, started=False)
    assert v.status == Status.BLOCKED and v.question is None and v.options == (), v


@pytest.mark.parametrize("why", ["not keys only", "keys unread", "full screen", "shell editing", "secret",
                                 "not known", "no front", "not busy"])
def test_the_verdict_stands_where_the_kernel_does_not_settle_it(why: str) -> None:
    term, snap, verdict = _term(), LINE, WORKING
    match why:
        case "not keys only":
            term = _term(keys_only=False)
        case "keys unread":
            term = _term(pending=3)
        case "full screen":
            snap = Snapshot(LINE.lines, 40, 6, (0, 3), alternate=True)
        case "shell editing":
            term = _term(front=SHELL, leader=SHELL, wchan="wait_woken")
        case "secret":
            term = _term(raw=False, echo=False, asker=BC, asker_seen=True)
        case "not known":
            term = kernel.Terminal(False)
        case "no front":
            term = _term(front=None)
        case "not busy":
            verdict = Verdict(Status.BLOCKED, "bc", "a question")
    assert waiting.heard(verdict, term, snap, started=True) == verdict
