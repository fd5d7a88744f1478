"""What the kernel knows about a pane's terminal: who owns it and what it waits for.

The screen shows what was drawn; the kernel says what is happening.  These
facts were measured on Linux with bash 5.2, zsh 5.9, fish 3.6 and dash 0.5
inside tmux 3.3a (docs/ARCHITECTURE.md, "Facts the design rests on"):

* ``/proc/<shell>/stat`` field 8 (``tpgid``) is the terminal's foreground
  process group.  It equals the pane shell's pid while the shell itself is in
  front (at its prompt, in a builtin, in ``$(…)``), and names another group
  while a program runs (``sleep``, ``vim``, a nested ``bash``).
* An interactive shell waiting at its prompt sleeps (state ``S``) with its
  line editor holding the terminal in raw mode without echo (``ICANON`` and
  ``ECHO`` off): readline, zle and fish's reader all do this, and restore the
  cooked mode before running a command.  So "foreground shell asleep with a
  raw, silent terminal" means "its line editor waits for keys" (PS1 or PS2).
* bash's ``read`` builtin reads in cooked mode (``read -p``) or with echo on
  (``read -n1``): it is a question, not the prompt.  zsh's and fish's ``read``
  use their line editors, and dash has none at all (always cooked): for those
  the screen decides between the prompt and a question.
* A shell running a loop is ``R``; waiting for ``$(…)`` or a child it is
  asleep in ``do_wait``/a pipe read with the terminal cooked.  Neither waits
  for keys.

Everything here is best effort: on a system without ``/proc`` (or another
user's pane) :func:`look` returns facts with ``known`` false, and the callers
fall back to the screen.
"""

from __future__ import annotations

import fcntl
import os
import struct
import termios
from dataclasses import dataclass
from pathlib import Path

_INPUT_WAITS = frozenset({"wait_woken", "n_tty_read", "do_select", "do_sys_poll", "ep_poll"})
_TTY_READS = frozenset({"wait_woken", "n_tty_read"})  # a read of the terminal itself
# Waits that end by themselves or by another process, never by a key: a child, a pipe, a timer (sleep).
_NOT_FOR_KEYS = frozenset({"do_wait", "pipe_read", "pipe_wait", "hrtimer_nanosleep", "do_nanosleep"})
SHELLS = frozenset({"bash", "zsh", "sh", "dash", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "busybox"})


@dataclass(frozen=True, slots=True)
class Proc:
    """One process as ``/proc/<pid>/stat`` describes it."""

    pid: int
    comm: str
    state: str
    ppid: int
    pgrp: int
    tpgid: int
    started: int  # clock ticks after boot: with the pid, names a process uniquely

    @property
    def shell(self) -> bool:
        """Is this process a shell (by its command name, login shells' ``-bash`` too)?"""
        return self.comm.lstrip("-") in SHELLS


@dataclass(frozen=True, slots=True)
class Terminal:
    """The pane's terminal as the kernel sees it."""

    known: bool
    shell: Proc | None = None  # the pane's own, top-level shell
    front: Proc | None = None  # the process of the foreground group that works the terminal now
    leader: Proc | None = None  # the foreground group's leader (names the group)
    wchan: str = ""
    raw: bool = False  # ICANON off
    echo: bool = True
    pending: int = 0  # bytes typed into the terminal that nobody has read yet

    @property
    def shell_in_front(self) -> bool:
        """The pane's top-level shell owns the terminal (no program runs in front)."""
        return bool(self.shell and self.front and self.front.pgrp == self.shell.pgrp)

    @property
    def editing(self) -> bool:
        """A shell's line editor waits for keys (its prompt, PS1 or PS2)."""
        f = self.front
        return bool(f and f.shell and f.state == "S" and self.raw and not self.echo)

    @property
    def working(self) -> bool:
        """The process in front runs, or waits for a child, a pipe or a timer: it is not asking for keys."""
        f = self.front
        if f is None:
            return False
        return f.state in ("R", "D") or self.wchan in _NOT_FOR_KEYS

    @property
    def reading(self) -> bool:
        """The process in front sleeps in a read or poll, the way a program waits for keys."""
        f = self.front
        return bool(f and f.state == "S" and (self.wchan in _INPUT_WAITS or self.wchan.startswith("poll_")))

    @property
    def secret(self) -> bool:
        """The process in front reads a line from the terminal with its echo off: a password, a passphrase,
        a PIN (``getpass``, ``read -s``, sudo, ssh).  A line editor turns echo off too, but in raw mode."""
        f = self.front
        return bool(f and f.state == "S" and self.wchan in _TTY_READS and not self.raw and not self.echo)

    @property
    def owner(self) -> str:
        """``pgrp:start`` of the group in front: stable while that program runs, never reused."""
        f = self.leader or self.front
        return f"{f.pgrp}:{f.started}" if f else ""


def proc(pid: int) -> Proc | None:
    """Read one process's stat line; None when it is gone or unreadable."""
    try:
        raw = Path(f"/proc/{pid}/stat").read_text()
    except (OSError, ValueError):
        return None
    try:
        comm = raw[raw.index("(") + 1: raw.rindex(")")]
        f = raw[raw.rindex(")") + 2:].split()
        return Proc(pid, comm, f[0], int(f[1]), int(f[2]), int(f[5]), int(f[19]))
    except (ValueError, IndexError):
        return None


def _member(shell: Proc, pgrp: int) -> Proc | None:
    """A live process of group ``pgrp``: its leader, or (``seq | less`` after seq ended) a child of the shell."""
    leader = proc(pgrp)
    if leader is not None and leader.pgrp == pgrp:
        return leader
    try:
        children = Path(f"/proc/{shell.pid}/task/{shell.pid}/children").read_text().split()
    except OSError:
        return None
    for pid in children:
        p = proc(int(pid))
        if p is not None and p.pgrp == pgrp:
            return p
    return None


def _worker(p: Proc) -> Proc:
    """The process of ``p``'s group that works the terminal: ``p``, unless it only waits for a child of
    its own group, as git does for the editor of ``git commit`` or the pager of ``git log``; then that
    child (the newest), and so on down."""
    for _ in range(8):
        try:
            if Path(f"/proc/{p.pid}/wchan").read_text().strip() != "do_wait":
                return p
            pids = " ".join(t.read_text() for t in Path(f"/proc/{p.pid}/task").glob("*/children")).split()
        except OSError:
            return p
        kids = [k for k in map(proc, map(int, pids)) if k is not None and k.pgrp == p.pgrp]
        if not kids:
            return p
        p = max(kids, key=lambda k: k.started)
    return p


def _modes(tty: str) -> tuple[bool, bool, int] | None:
    """(raw, echo, unread bytes) of the terminal, read without becoming its controlling process.

    The unread count (``FIONREAD``) covers what a shell has not taken yet;
    the shell's own read count cannot, when threads of it read files too
    (fish's history and suggestions do).
    """
    if not tty:
        return None
    try:
        fd = os.open(tty, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
    except OSError:
        return None
    try:
        lflag = termios.tcgetattr(fd)[3]
        queued = struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0\0\0\0"))[0]
    except (termios.error, OSError):
        return None
    finally:
        os.close(fd)
    return not lflag & termios.ICANON, bool(lflag & termios.ECHO), queued


def line_editor(tty: str) -> bool:
    """Whether terminal ``tty`` is in raw mode without echo, as a line editor (readline, zle) keeps it."""
    modes = _modes(tty)
    return bool(modes and modes[0] and not modes[1])


def unread(tty: str) -> int:
    """Bytes typed into terminal ``tty`` that no process has read yet (0 when unknown)."""
    modes = _modes(tty)
    return modes[2] if modes else 0


def look(shell_pid: int, tty: str) -> Terminal:
    """The facts about the terminal of a pane whose shell is ``shell_pid`` on ``tty``."""
    shell = proc(shell_pid) if shell_pid > 0 else None
    if shell is None:
        return Terminal(False)
    leader = _member(shell, shell.tpgid) if shell.tpgid > 0 else None
    modes = _modes(tty)
    if leader is None or modes is None:
        return Terminal(False, shell, leader, leader)
    front = leader if leader.shell else _worker(leader)  # a shell waiting for $(…) is the shell at work
    try:
        wchan = Path(f"/proc/{front.pid}/wchan").read_text().strip()
    except OSError:
        wchan = ""
    return Terminal(True, shell, front, leader, wchan, *modes)


def started_ticks(seconds_ago: float) -> int:
    """The boot-relative clock tick of a moment ``seconds_ago`` before now (to compare start times)."""
    try:
        uptime = float(Path("/proc/uptime").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return 0
    return int((uptime - seconds_ago) * os.sysconf("SC_CLK_TCK"))


def bytes_read(pid: int) -> int:
    """How many bytes ``pid`` has read so far (``rchar``); -1 when unknown.

    A shell reads every byte typed at its prompt, so the count tells whether
    it has taken what the tool typed - the moment between the keys reaching
    the terminal and the shell acting on them, where the screen still shows
    the old prompt.
    """
    try:
        for line in Path(f"/proc/{pid}/io").read_text().splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except (OSError, ValueError, IndexError):
        pass
    return -1
