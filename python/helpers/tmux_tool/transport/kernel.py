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

The facts of a pane on another host come from that host's kernel: one
script there (:func:`dump_script`) prints the processes of the pane's
session and the terminal's modes, and :func:`look` reads them from that
dump (:class:`Dump`) as it reads ``/proc`` here.
"""

from __future__ import annotations

import fcntl
import os
import shlex
import signal
import stat
import struct
import termios
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple, Protocol

from ..core.clock import Deadline

_INPUT_WAITS = frozenset({"wait_woken", "n_tty_read", "do_select", "do_sys_poll", "ep_poll"})
_TTY_READS = frozenset({"wait_woken", "n_tty_read"})  # a read of the terminal itself
# Waits that end by themselves or by another process, never by a key: a child, a pipe, a timer
# (sleep). Linux 6.x names a pipe's waits anon_pipe_read and anon_pipe_write; older kernels
# pipe_read, pipe_wait.
_NOT_FOR_KEYS = frozenset(
    {
        "do_wait",
        "pipe_read",
        "pipe_write",
        "pipe_wait",
        "anon_pipe_read",
        "anon_pipe_write",
        "hrtimer_nanosleep",
        "do_nanosleep",
    }
)
SHELLS = frozenset(
    {"bash", "zsh", "sh", "dash", "fish", "ksh", "mksh", "tcsh", "csh", "ash", "busybox"}
)


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
    session: int = 0  # the session's leader: a pane's shell, for all that ran in that terminal

    @property
    def shell(self) -> bool:
        """Is this process a shell (by its command name, login shells' ``-bash`` too)?"""
        return self.comm.lstrip("-") in SHELLS


class Modes(NamedTuple):
    """What a terminal's settings say: raw (``ICANON`` off), echo, bytes typed that nobody has read
    yet, and the size (columns, rows) its programs were told, None when unknown."""

    raw: bool
    echo: bool
    pending: int
    size: tuple[int, int] | None


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
    # (columns, rows) the programs in it were told; None when unknown
    size: tuple[int, int] | None = None
    # a process of the foreground group that may read the terminal (see below)
    asker: Proc | None = None
    asker_seen: bool = False  # the asker's wait was read (a tty read); False: it could not be read
    # nothing of the foreground group runs, and not all of it waits on a child, pipe or timer
    waits: bool = False
    # only a key can wake the process in front: it reads the terminal, or polls with nothing but
    # terminals open
    keys_only: bool = False

    @property
    def shell_in_front(self) -> bool:
        """The pane's top-level shell owns the terminal (no program runs in front)."""
        return bool(self.shell and self.front and self.front.pgrp == self.shell.pgrp)

    @property
    def editing(self) -> bool:
        """A shell's line editor waits for keys (its prompt, PS1 or PS2).

        The terminal's modes are set before the prompt is drawn: fish runs
        its prompt function (a git prompt, on a busy machine for long) with
        the terminal already raw and the cursor on an empty line, asleep on
        its own threads (``futex_do_wait``).  So the shell's wait must be one
        for keys too; a wait this user may not read (``""``) is not held
        against it.
        """
        f = self.front
        return bool(f and f.shell and f.state == "S" and self.raw and not self.echo
                    and (not self.wchan or self._keys_wait))

    @property
    def working(self) -> bool:
        """The process in front runs, or waits for a child, a pipe or a timer: it is not asking for
        keys."""
        f = self.front
        if f is None:
            return False
        return f.state in ("R", "D") or self.wchan in _NOT_FOR_KEYS

    @property
    def reading(self) -> bool:
        """The process in front sleeps in a read or poll, the way a program waits for keys."""
        f = self.front
        return bool(f and f.state == "S" and self._keys_wait)

    @property
    def _keys_wait(self) -> bool:
        """The process in front sleeps the way a program waits for keys (a read, poll or select)."""
        return self.wchan in _INPUT_WAITS or self.wchan.startswith("poll_")

    @property
    def secret(self) -> bool:
        """A process of the foreground group reads a line from the terminal with its echo off: a
        password, a passphrase, a PIN (``getpass``, ``read -s``, sudo, ssh).  A line editor turns
        echo off too, but in raw mode."""
        return bool(self.asker and self.asker_seen and not self.raw and not self.echo)

    @property
    def secret_unseen(self) -> bool:
        """The terminal is set as for a secret (a line, echo off) and a process of the foreground
        group sleeps in a wait this user cannot read: sudo and su are setuid, so their ``wchan``
        reads 0 to anyone but root.  Nothing else sets a terminal so, so it is taken for a
        secret."""
        return bool(self.asker and not self.asker_seen and not self.raw and not self.echo)

    @property
    def owner(self) -> str:
        """``pgrp:start`` of the group in front: stable while that program runs, never reused."""
        f = self.leader or self.front
        return f"{f.pgrp}:{f.started}" if f else ""


class Source(Protocol):
    """Where the kernel's facts are read: ``/proc`` here, or a dump made on another host."""

    def read(self, path: str) -> str | None:
        """A file under ``/proc`` (``PID/stat``, ``PID/wchan``, ``PID/children``: the children of
        all its threads, ``PID/io``, ``uptime``; ``PID/fds``: what its descriptors name, a line
        each); None when it cannot be read."""

    def modes(self, tty: str) -> Modes | None:
        """The modes of terminal ``tty``; None when unknown."""


class _Here:
    """This machine's ``/proc`` and terminals."""

    def read(self, path: str) -> str | None:
        try:
            pid = path.split("/", 1)[0]
            if path.endswith("/children"):
                return " ".join(t.read_text() for t in Path(f"/proc/{pid}/task").glob("*/children"))
            if path.endswith("/fds"):
                return "\n".join(filter(None, map(_named, Path(f"/proc/{pid}/fd").iterdir())))
            return Path(f"/proc/{path}").read_text()
        except (OSError, ValueError):
            return None

    def modes(self, tty: str) -> Modes | None:
        return _modes(tty)


def _named(fd: Path) -> str:
    """What an open descriptor is: ``file`` for a regular file or a folder, else the kernel's name
    for it (``/dev/pts/3``, ``socket:[…]``, ``pipe:[…]``, a named pipe's path); ``""`` when it was
    closed meanwhile.  One that cannot be read for want of rights fails the whole listing."""
    try:
        if stat.S_ISREG(mode := fd.stat().st_mode) or stat.S_ISDIR(mode):
            return "file"
        return os.readlink(fd)
    except FileNotFoundError:
        return ""


HERE: Source = _Here()


def proc(pid: int, src: Source = HERE) -> Proc | None:
    """Read one process's stat line; None when it is gone or unreadable."""
    raw = src.read(f"{pid}/stat")
    if raw is None:
        return None
    try:
        comm = raw[raw.index("(") + 1: raw.rindex(")")]
        f = raw[raw.rindex(")") + 2:].split()
        return Proc(pid, comm, f[0], int(f[1]), int(f[2]), int(f[5]), int(f[19]), int(f[3]))
    except (ValueError, IndexError):
        return None


def zombie_status(pid: int, src: Source = HERE) -> int | None:
    """How a process that has ended but is not yet reaped (a zombie) ended: its wait status, the
    last field of its stat line (Linux 3.5 and later); None while it runs, or once it is gone."""
    raw = src.read(f"{pid}/stat")
    if raw is None:
        return None
    fields = raw[raw.rfind(")") + 2:].split()
    return (
        int(fields[-1])
        if fields[:1] == ["Z"] and len(fields) >= 50 and fields[-1].isdigit()
        else None
    )


HANG_UP_GRACE = 2.0  # seconds between the hang-up and SIGKILL


def hang_up(leaders: Collection[int], grace: float = HANG_UP_GRACE) -> int:
    """End what still runs here in the sessions of ``leaders`` (the shells of terminals that were
    closed): SIGHUP and SIGTERM, then SIGKILL for what is left after ``grace`` seconds; return how
    many there were.

    Closing a terminal hangs up its shell, and bash passes that on to its
    jobs, but not to a job that ignores it (``nohup``) or was ``disown``ed,
    and not when the shell is killed outright.  Every process of such a
    session was started in a terminal the tool made, so it is the tool's to
    end; one that left the session (``setsid``) asked to outlive it and is kept.
    """
    wanted = {pid for pid in leaders if pid > 1}
    found = [p for p in _all() if p.session in wanted and p.state != "Z"]
    end(found, grace)
    return len(found)


def end(found: Collection[Proc], grace: float = HANG_UP_GRACE) -> None:
    """SIGHUP and SIGTERM to each process of ``found`` that is still the one it was, then SIGKILL
    to what is left of them after ``grace`` seconds."""
    left = list(found)
    for signals, wait in (((signal.SIGHUP, signal.SIGTERM), grace), ((signal.SIGKILL,), 1.0)):
        for p in left:
            for sig in signals:
                _signal(p, sig)
        for _ in Deadline(wait).ticks(0.02):
            left = [p for p in left if _same(p)]
            if not left:
                return


def born_in(server: int, pane: str, since: int, shell: int) -> list[Proc]:
    """The processes here started in tmux pane ``pane`` (``%N``) of the server whose pid is
    ``server``, at or after ``since`` (clock ticks after boot), that are neither the pane's shell
    (pid ``shell``) nor below it.

    A pane's programs pass its environment to all they start: ``TMUX`` (the server's socket, pid
    and session) and ``TMUX_PANE``.  A daemon keeps both when it leaves the terminal's session
    (``setsid``) and its parent dies, so they are the one record of its birthplace that outlives
    the program; what runs below the shell now is the shell's own (its prompt's helpers).  A
    process that rewrote its environment, or another user's, is not seen.
    """
    everyone = {p.pid: p for p in _all()}
    want = {b"TMUX_PANE=" + pane.encode()}

    def ours(pid: int) -> bool:
        try:
            env = set(Path(f"/proc/{pid}/environ").read_bytes().split(b"\0"))
        except OSError:
            return False
        tmux = next((e for e in env if e.startswith(b"TMUX=")), b"")
        return want <= env and tmux.split(b",")[1:2] == [str(server).encode()]

    def under_shell(p: Proc) -> bool:
        seen: set[int] = set()
        while p.ppid > 1 and p.ppid not in seen:
            if p.ppid == shell:
                return True
            seen.add(p.ppid)
            parent = everyone.get(p.ppid)
            if parent is None:
                return False
            p = parent
        return False

    return [p for p in everyone.values()
            if p.pid != shell and p.started >= since and p.state != "Z" and not under_shell(p)
            and ours(p.pid)]


def hang_up_script(leaders: Collection[int]) -> str:
    """:func:`hang_up` as ``sh`` lines for a host, with ``pkill -s``/``pgrep -s`` (procps, busybox);
    where they are missing, the shells' own hang-up is all there is."""
    shells = " ".join(str(pid) for pid in leaders if pid > 1)
    return (
        f"shells='{shells}'\n"
        "if command -v pkill >/dev/null 2>&1 && command -v pgrep >/dev/null 2>&1; then\n"
        '  left() { for p in $shells; do pgrep -s "$p" >/dev/null 2>&1 && return 0; done; '
        'return 1; }\n'
        '  for p in $shells; do pkill -HUP -s "$p"; pkill -TERM -s "$p"; done 2>/dev/null\n'
        f"  n=0; while left && [ $n -lt {int(HANG_UP_GRACE * 10)} ]; do sleep 0.1; "
        "n=$((n + 1)); done\n"
        '  for p in $shells; do pkill -KILL -s "$p"; done 2>/dev/null\n'
        "fi\n"
    )


def born_in_script(server: int, pane: str, since: int, shell: int) -> str:
    """:func:`born_in` and :func:`end` as ``sh`` lines for a host: each process found is printed as
    ``PID COMM`` and ended (HUP and TERM, KILL after the grace), checked by its start each time."""
    args = " ".join(shlex.quote(str(a)) for a in (server, pane, since, shell))
    return f"set -- {args}\n" + r"""server=$1 pane=$2 since=$3 shell=$4 nl='
'
start() { s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1; set -- ${s##*) }; echo "${20} $2 $1"; }
found=''
for d in /proc/[0-9]*; do
  p=${d#/proc/}
  [ "$p" = "$shell" ] && continue
  e=$(tr '\0' '\n' 2>/dev/null < "$d/environ") || continue
  case "$nl$e$nl" in *"${nl}TMUX_PANE=$pane$nl"*) ;; *) continue ;; esac
  [ "$(printf '%s\n' "$e" | sed -n 's/^TMUX=[^,]*,\([0-9]*\),.*/\1/p')" = "$server" ] || continue
  set -- $(start "$p")
  [ "$#" -eq 3 ] && [ "$1" -ge "$since" ] && [ "$3" != Z ] || continue
  born=$1 a=$2
  while [ "$a" -gt 1 ] 2>/dev/null && [ "$a" != "$shell" ]; do set -- $(start "$a"); a=$2; done
  [ "$a" = "$shell" ] && continue
  found="$found $p:$born"
  echo "$p $(cat "/proc/$p/comm" 2>/dev/null)"
done
alive() { left=''; for f in $found; do set -- $(start "${f%%:*}")
  [ "$#" -eq 3 ] && [ "$1" = "${f#*:}" ] && [ "$3" != Z ] && left="$left $f"; done; found=$left; [ -n "$left" ]; }
for sig in HUP TERM; do for f in $found; do kill -s $sig "${f%%:*}" 2>/dev/null; done; done
""" + f"n=0; while alive && [ $n -lt {int(HANG_UP_GRACE * 10)} ]; do sleep 0.1; n=$((n + 1)); done\n" + (
        'for f in $found; do kill -s KILL "${f%%:*}" 2>/dev/null; done\n')


def _all() -> list[Proc]:
    """Every process here."""
    found = (proc(int(d.name)) for d in Path("/proc").iterdir() if d.name.isdigit())
    return [p for p in found if p is not None]


def _same(p: Proc) -> bool:
    """Is ``p`` still running (not a zombie), and still the process it was (same pid and start)?"""
    now = proc(p.pid)
    return now is not None and now.started == p.started and now.state != "Z"


def _signal(p: Proc, sig: signal.Signals) -> None:
    """Send ``sig`` to ``p`` if it is still that process; gone already is fine."""
    if _same(p):
        try:
            os.kill(p.pid, sig)
        except OSError:
            pass


def _member(shell: Proc, pgrp: int, src: Source) -> Proc | None:
    """A live process of group ``pgrp``: its leader, or (``seq | less`` after seq ended) a child of
    the shell."""
    leader = proc(pgrp, src)
    if leader is not None and leader.pgrp == pgrp:
        return leader
    for pid in (src.read(f"{shell.pid}/children") or "").split():
        p = proc(int(pid), src)
        if p is not None and p.pgrp == pgrp:
            return p
    return None


def _modes(tty: str) -> Modes | None:
    """The terminal's modes, read without becoming its controlling process.

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
        rows, cols = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, b"\0" * 8))[:2]
    except (termios.error, OSError):
        return None
    finally:
        os.close(fd)
    return Modes(not lflag & termios.ICANON, bool(lflag & termios.ECHO), queued, (cols, rows))


def line_editor(tty: str) -> bool:
    """Whether terminal ``tty`` is in raw mode without echo, as a line editor (readline, zle) keeps
    it."""
    modes = _modes(tty)
    return bool(modes and modes.raw and not modes.echo)


def unread(tty: str) -> int:
    """Bytes typed into terminal ``tty`` that no process has read yet (0 when unknown)."""
    modes = _modes(tty)
    return modes.pending if modes else 0


GROUP_LIMIT = 64  # processes of a foreground group looked at (a build's many jobs need no more)


@dataclass(frozen=True, slots=True)
class _Group:
    """A foreground group walked once: its members (leader first), where each sleeps, its children
    in it."""

    members: list[Proc]
    # pid -> wchan; None when this user may not read it (another's, setuid)
    waits_in: dict[int, str | None]
    kids: dict[int, list[Proc]]  # pid -> its children of the same group


def _group(leader: Proc, src: Source) -> _Group:
    """The processes of ``leader``'s group that descend from it (``bash -c 'a; b'`` runs ``a`` as
    its child in its own group), each ``/proc`` file read once; at most ``GROUP_LIMIT`` of them."""
    found, todo = [leader], [leader]
    waits_in: dict[int, str | None] = {}
    kids: dict[int, list[Proc]] = {}
    while todo:
        p = todo.pop()
        wchan = (src.read(f"{p.pid}/wchan") or "").strip()
        waits_in[p.pid] = None if wchan in ("", "0") else wchan
        kids[p.pid] = []
        for pid in (
            (src.read(f"{p.pid}/children") or "").split() if len(found) < GROUP_LIMIT else ()
        ):
            kid = proc(int(pid), src) if pid.isdigit() else None
            if kid is not None and kid.pgrp == leader.pgrp and kid not in found:
                kids[p.pid].append(kid)
                found.append(kid)
                todo.append(kid)
    return _Group(found, waits_in, kids)


def _worker(group: _Group) -> Proc:
    """The process of the group that works the terminal: its leader, unless it only waits for a
    child of its own group, as git does for the editor of ``git commit`` or the pager of ``git
    log``; then that child (the newest), and so on down."""
    p = group.members[0]
    while group.waits_in.get(p.pid) == "do_wait" and group.kids.get(p.pid):
        p = max(group.kids[p.pid], key=lambda k: k.started)
    return p


def _asker(group: _Group) -> tuple[Proc | None, bool, bool]:
    """Of a foreground group: the process that may read the terminal, whether its wait was seen, and
    whether the group waits at all.

    The asker is a sleeping member whose wait is a read of the terminal, or
    else one whose wait cannot be read (it may be one).  The group waits
    when none of it runs and some member sleeps on something other than a
    child, a pipe or a timer: then it waits for input, or for something
    unseen.
    """
    asleep = [(p, group.waits_in.get(p.pid)) for p in group.members if p.state == "S"]
    running = any(p.state in ("R", "D") for p in group.members)
    waits = not running and any(w is None or w not in _NOT_FOR_KEYS for _, w in asleep)
    for p, w in asleep:
        if w in _TTY_READS:
            return p, True, waits
    hidden = next((p for p, w in asleep if w is None), None)
    return hidden, False, waits


def look(shell_pid: int, tty: str, src: Source = HERE) -> Terminal:
    """The facts about the terminal of a pane whose shell is ``shell_pid`` on ``tty``."""
    shell = proc(shell_pid, src) if shell_pid > 0 else None
    if shell is None:
        return Terminal(False)
    leader = _member(shell, shell.tpgid, src) if shell.tpgid > 0 else None
    modes = src.modes(tty)
    if leader is None or modes is None:
        return Terminal(False, shell, leader, leader)
    group = _group(leader, src)
    # a shell waiting for $(…) is the shell at work
    front = leader if leader.shell else _worker(group)
    asker, seen, waits = _asker(group)
    wchan = group.waits_in.get(front.pid) or ""
    return Terminal(
        True,
        shell,
        front,
        leader,
        wchan,
        *modes,
        asker=asker,
        asker_seen=seen,
        waits=waits,
        keys_only=front.state == "S" and _keys_only(front.pid, wchan, src),
    )


def _keys_only(pid: int, wchan: str, src: Source) -> bool:
    """Can only a key wake ``pid``, asleep in ``wchan``?  Only if it has one thread: another may
    work, or wake it, unseen.  A read of the terminal, yes.  A poll or a select waits on any
    descriptor it names, and may end at a timeout (``top`` redraws so): yes when it has none
    (:func:`_forever`) and every descriptor the process holds that can be waited on is a
    terminal (a file or ``/dev/null`` is always ready; a socket, a pipe or an event is not); no
    when either is not so, or cannot be read (another user's process, a host's dump)."""
    if _threads(pid, src) != 1:
        return False
    if wchan in _TTY_READS:
        return True
    if wchan not in _INPUT_WAITS and not wchan.startswith("poll_"):
        return False
    held = src.read(f"{pid}/fds")
    if not held or not _forever(src.read(f"{pid}/syscall") or ""):
        return False
    return all(_never_waits(name) for name in held.splitlines())


def _threads(pid: int, src: Source) -> int:
    """How many threads ``pid`` has (its stat line's 20th field); 0 when unknown."""
    raw = src.read(f"{pid}/stat") or ""
    try:
        return int(raw[raw.rindex(")") + 2:].split()[17])
    except (ValueError, IndexError):
        return 0


# The poll and select calls of this machine's kernel: number -> (which argument is the timeout,
# whether it is a pointer to one (NULL: none) or milliseconds (negative: none)).
_POLLS = {
    "x86_64": {7: (2, False), 23: (4, True), 270: (4, True), 271: (2, True)},
    "aarch64": {72: (4, True), 73: (2, True)},
}.get(os.uname().machine, {})


def _forever(syscall: str) -> bool:
    """Does the call ``/proc/PID/syscall`` shows (its number, then its arguments in hex) wait with
    no timeout?  False for any other call, or a line that cannot be read."""
    parts = syscall.split()
    try:
        at, pointer = _POLLS[int(parts[0])]
        value = int(parts[1 + at], 16)
    except (IndexError, KeyError, ValueError):
        return False
    return value == 0 if pointer else (value & 0xFFFFFFFF) >= 0x80000000


def _never_waits(name: str) -> bool:
    """Is a descriptor named ``name`` (:func:`_named`) a terminal, or one a poll never waits on?"""
    return name.startswith(("/dev/pts/", "/dev/tty")) or name in ("file", "/dev/null", "/dev/console")


TREE_LIMIT = 256  # processes below a pane's shell looked at for their use of the CPU


@dataclass(frozen=True, slots=True)
class Activity:
    """What the processes below a pane's shell (a program and all it started) asked of the CPU so
    far.

    ``demand`` holds, per thread, the nanoseconds it ran plus those it waited
    in a run queue (``/proc/PID/task/TID/schedstat``): a program at work asks
    for the CPU whether it gets it or not, so on a loaded machine its waiting
    counts as much as its running, and one that waits for keys asks for
    (almost) nothing.  ``stopped`` says a thread of it is stopped (``T``, or
    ``t`` under a tracer): it will go on once let go, and reads nothing
    meanwhile.
    """

    demand: Mapping[int, int]
    stopped: bool

    def since(self, before: Activity) -> float:
        """Seconds of CPU asked for between ``before`` and this sample (a thread started since
        counts whole; one that ended counts no more)."""
        return sum(max(0, ns - before.demand.get(tid, 0)) for tid, ns in self.demand.items()) / 1e9


def activity(shell_pid: int) -> Activity | None:
    """The :class:`Activity` of the processes below ``shell_pid`` on this machine; None when the
    kernel does not say (no ``/proc``, or no ``schedstat``: a kernel without
    ``CONFIG_SCHED_INFO``)."""
    if not os.path.exists("/proc/self/schedstat"):
        return None
    demand: dict[int, int] = {}
    stopped = False
    todo, seen = [shell_pid], 0
    while todo and seen < TREE_LIMIT:
        pid = todo.pop()
        seen += 1
        try:
            tasks = list(Path(f"/proc/{pid}/task").iterdir())
        except OSError:
            continue  # it ended meanwhile
        for task in tasks:
            try:
                todo.extend(int(k) for k in (task / "children").read_text().split())
                if pid == shell_pid:
                    continue  # the shell itself only waits for its job
                run, waited = (task / "schedstat").read_text().split()[:2]
                state = (task / "stat").read_text().rsplit(")", 1)[1].split()[0]
            except (OSError, ValueError, IndexError):
                continue  # the thread ended meanwhile
            demand[int(task.name)] = int(run) + int(waited)
            stopped = stopped or state in ("T", "t")
    return Activity(demand, stopped)


def started_ticks(seconds_ago: float, src: Source = HERE) -> int:
    """The boot-relative clock tick of a moment ``seconds_ago`` before now (to compare start
    times)."""
    try:
        uptime = float((src.read("uptime") or "").split()[0])
        ticks = int(src.read("clk_tck") or 0) if src is not HERE else os.sysconf("SC_CLK_TCK")
    except (ValueError, IndexError):
        return 0
    return int((uptime - seconds_ago) * ticks)


def bytes_read(pid: int, src: Source = HERE) -> int:
    """How many bytes ``pid`` has read so far (``rchar``); -1 when unknown.

    A shell reads every byte typed at its prompt, so the count tells whether
    it has taken what the tool typed - the moment between the keys reaching
    the terminal and the shell acting on them, where the screen still shows
    the old prompt.
    """
    try:
        for line in (src.read(f"{pid}/io") or "").splitlines():
            if line.startswith("rchar:"):
                return int(line.split()[1])
    except (ValueError, IndexError):
        pass
    return -1


# --- the facts of a pane on another host ------------------------------------------------------

_ICANON, _ECHO = 0x2, 0x8  # Linux's bits of c_lflag (stty -g prints c_lflag as the 4th hex field)
_SEP = "\x1e"  # between the parts of a dump (no /proc file or stty answer holds it)


def dump_script(shell_pid: int, tty: str) -> str:
    """The ``sh`` script that prints, in one go, what :func:`look` reads about a pane on a host.

    The processes of the pane's session (a pane's shell leads its own), each
    with its stat line, wchan, children and read count; the terminal's modes
    (``stty -g``: it opens the terminal, which is the session's already, so
    it never becomes the script's own); the uptime and clock rate.  Only
    numbers and a path the tool checked go into it.
    """
    if not tty.startswith("/dev/") or any(c.isspace() for c in tty):
        tty = "/nonexistent"
    q = shlex.quote(tty)
    return (
        f"S={int(shell_pid)}; R=$(printf '\\036'); cd /proc 2>/dev/null || exit 0\n"
        'for d in [0-9]*; do\n'
        '  IFS= read -r s < "$d/stat" 2>/dev/null || continue\n'
        '  r=${s##*) }; set -- $r\n'
        '  [ "$4" = "$S" ] || [ "$d" = "$S" ] || continue\n'
        '  printf "%s%s/stat\\n%s\\n" "$R" "$d" "$s"\n'
        '  printf "%s%s/wchan\\n%s\\n" "$R" "$d" "$(cat "$d/wchan" 2>/dev/null)"\n'
        '  printf "%s%s/children\\n%s\\n" "$R" "$d" "$(cat "$d"/task/*/children 2>/dev/null)"\n'
        '  printf "%s%s/io\\n%s\\n" "$R" "$d" "$(cat "$d/io" 2>/dev/null)"\n'
        'done\n'
        'printf "%suptime\\n%s\\n" "$R" "$(cat uptime)"\n'
        'printf "%sclk_tck\\n%s\\n" "$R" "$(getconf CLK_TCK 2>/dev/null || echo 100)"\n'
        f'printf "%smodes\\n%s\\n" "$R" "$(stty -g -F {q} 2>/dev/null || '
        f'stty -g < {q} 2>/dev/null)"\n'
        f'printf "%ssize\\n%s\\n" "$R" "$(stty size -F {q} 2>/dev/null || '
        f'stty size < {q} 2>/dev/null)"\n'
    )


@dataclass(frozen=True, slots=True)
class Dump:
    """A host's kernel facts about one pane, as :func:`dump_script` printed them."""

    files: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def parse(cls, text: str) -> Dump:
        """Read a dump; anything unreadable is simply absent (a pure function: it never raises)."""
        files: dict[str, str] = {}
        for part in text.split(_SEP)[1:]:
            name, _, body = part.partition("\n")
            files[name.strip()] = body.removesuffix("\n")
        return cls(files)

    def read(self, path: str) -> str | None:
        return self.files.get(path)

    def modes(self, tty: str) -> Modes | None:
        fields = (self.files.get("modes") or "").strip().split(":")
        try:
            lflag = int(fields[3], 16)
        except (IndexError, ValueError):
            return None
        size = (self.files.get("size") or "").split()
        told = (
            (int(size[1]), int(size[0]))
            if len(size) == 2 and all(n.isdigit() for n in size)
            else None
        )
        return Modes(not lflag & _ICANON, bool(lflag & _ECHO), 0, told)
