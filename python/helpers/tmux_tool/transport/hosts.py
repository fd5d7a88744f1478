"""Other machines and containers: how a command runs there, and the one ssh connection that carries
it.

A host is named as ``ssh`` names it (``user@name``, a ``Host`` of the user's
``~/.ssh/config`` with its port, keys, jump hosts and agent), or by a line of
the hosts file (:func:`hosts_file`): ``NAME ssh OPTIONS... DESTINATION`` for
ssh with options of its own, or ``NAME COMMAND...`` for a command that runs
a program there (``podman exec -i box``, ``kubectl exec -i pod -c app --``).

**What the far side sees.**  Every command is a POSIX ``sh`` script.  Through a
container engine the script is one argument of ``sh -c`` and arrives exactly.
Through ssh it travels as a command line that the user's *login* shell reads
first - bash, zsh, fish, tcsh or sh - and those quote differently (fish reads
backslashes inside single quotes; zsh expands a word that starts with ``=``).
So the line is always ``exec sh -c 'eval "$(printf "…")"'`` with the script in
``printf`` escapes: single quotes with no backslash pair and no quote inside
mean the same in every shell, and ``sh`` gets the script byte for byte.  No
text of the agent's is ever part of a command line unencoded.

**One connection.**  ssh runs as one master connection per host (OpenSSH's
``ControlMaster``), and every command, the control-mode client and the log
followers are channels over it (``ssh -S``).  The master runs in a session of
the agent's own tmux server, where the human sees it: a password, a key's
passphrase or an unknown host key is asked there, and the human answers it
(the tool never does; the call returns ``blocked`` with ``needs_human``, and
the same call, made again once the human has answered, goes on).  Channels
never prompt (``BatchMode``).  A master that died (the network went, the
laptop slept, its process was killed) is started again by the next call; a
master that stopped answering is killed - it is the tool's own process - and
started again.  A command typed there before the way failed runs on in tmux
there (:class:`LinkLost`).
"""

from __future__ import annotations

import hashlib
import os
import re
import shlex
import shutil
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from ..core.clock import Deadline
from ..core.errors import BadName, NoServer, NoTarget, TmuxError
from . import kernel, options, process


class Local(Protocol):
    """The tmux server here that holds a host's master connection in a pane (a
    :class:`.tmux.Tmux`)."""

    def cmd(self, *args: str, input: bytes | None = None, timeout: float = ...) -> str: ...

    def chain(
        self, *commands: Sequence[str], input: bytes | None = None, timeout: float = ...
    ) -> str: ...

# What a command there says when the tool's folder cannot be written, and what the person can do.
_DISK_TROUBLE = (("no space left on device", "free some space there"),
                 ("disk quota exceeded", "free some space there"),
                 ("read-only file system", "the tool needs to write its folder ~/.tmux_tool there"),
                 ("permission denied", "the tool needs to write its folder ~/.tmux_tool there"))
HOSTS_FILE = "TMUX_TOOL_HOSTS"
"""The file that declares hosts reached by a command (default ``~/.config/tmux_tool/hosts``)."""
CONNECT_TIMEOUT = 20.0  # seconds for a new ssh connection to come up, at most
CHECK_TIMEOUT = 3.0  # seconds for a master to say it is alive; one that says nothing is wedged
RUN_TIMEOUT = 10.0
# seconds a tmux command through a container engine is given, at least (see Host.bound)
VIA_TIMEOUT = 10.0
CHANNELS = 7
"""Channels this process opens over one ssh connection at once, at most: sshd allows ten sessions
per connection (``MaxSessions``), and the control-mode client holds one."""
# An ssh destination: letters, digits and ._@:- ; never a leading '-', which ssh would read as an
# option.
_NAME = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.@:%+-]{0,127}")
# Bytes that pass through every login shell's single quotes, sh's double quotes and printf as
# themselves.
_PLAIN = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789 _./,:=+@-")
_TTY_READS = frozenset({"wait_woken", "n_tty_read"})


_slots: dict[str, threading.BoundedSemaphore] = {}
_slots_lock = threading.Lock()


class HostError(TmuxError):
    """A host cannot be reached or used; the message says why and what to do.

    ``what`` is the why alone (the message when not given): a caller that knows better what to do
    (:class:`LinkLost`) tells it with its own advice instead.
    """

    def __init__(self, message: str, *, what: str = "") -> None:
        super().__init__(message)
        self.what = what or message


class Unanswered(TimeoutError):
    """A command there got no answer in time; ``link_up`` says whether the host still answered a
    ``true`` through the same way at once (then what hangs is the command, not the link)."""

    def __init__(self, *, link_up: bool) -> None:
        super().__init__()
        self.link_up = link_up


class HostWaits(HostError):
    """The connection to a host waits for the human (a password, a passphrase, an unknown host
    key)."""

    def __init__(self, message: str, *, session: str, question: str, secret: bool) -> None:
        super().__init__(message)
        self.session = session
        self.question = question
        self.secret = secret


class LinkLost(HostError):
    """The way to a host failed after a command was typed in a session there.

    tmux there runs the command on whatever happens to the link, so the
    agent must collect it with ``wait`` (``then``), never type it again.
    ``typed`` is False when the link failed while it was being typed: it may
    or may not have reached the shell.  ``cause`` is what failed.
    """

    def __init__(self, cause: HostError, *, host: str, session: str, typed: bool) -> None:
        self.cause = cause
        self.session = session
        self.then = f"wait --session {session} --host {host}"
        if typed:
            said = (f"the command was typed in session {session} on {host} and runs on there in "
                    f"tmux (as far as the tool knows: it was typed, then the link to {host} "
                    f"failed: {cause.what}); do not run it again: once {host} is reachable, "
                    f"{self.then} returns its exact output and exit code")
        else:
            said = (f"the link to {host} failed while the command was being typed in session "
                    f"{session} ({cause.what}): it may have reached the shell there and run on; do "
                    f"not run it again before {self.then} (once {host} is reachable) shows whether "
                    "it did")
        super().__init__(said)


def encode(script: str) -> str:
    """``script`` as a command line that every login shell hands to ``sh`` unchanged (see the
    module)."""
    data = script.encode("utf-8", "surrogateescape")
    escaped = "".join(chr(b) if b in _PLAIN else f"\\{b:03o}" for b in data)
    return f"exec sh -c 'eval \"$(printf \"{escaped}\")\"'"


def _tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        raise HostError(
            f"{name} is not installed here; install it (apt-get install openssh-client)"
        )
    return path


@dataclass(frozen=True, slots=True)
class Host:
    """One place commands run: an ssh destination (``via`` empty) or a command that reaches it.

    ``state`` is this machine's folder for the host (the master's socket);
    ``master`` the ssh master's session in the agent's own tmux server,
    ``local`` that server.
    """

    name: str
    state: Path
    via: tuple[str, ...] = ()
    local: Local | None = field(default=None, compare=False)
    ssh: tuple[str, ...] = ()  # ssh's options and destination (default: ``-- NAME``)

    @property
    def key(self) -> str:
        """A file and session name for the host: readable, and unique by its checksum."""
        stem = re.sub(r"[^A-Za-z0-9_-]+", "-", self.name).strip("-")[:40] or "host"
        return f"{stem}-{hashlib.sha256(self.name.encode()).hexdigest()[:6]}"

    @property
    def master(self) -> str:
        return f"ssh-{self.key}"

    @property
    def control(self) -> str:
        """The master's socket: in a short folder of this user's (a socket's path holds 107 bytes at
        most), named after the host's state folder, so two installs of the tool never share one."""
        return str(_sockets() / hashlib.sha256(str(self.state).encode()).hexdigest()[:20])

    def argv(self, script: str) -> list[str]:
        """The command that runs ``script`` with ``sh`` on the host."""
        if self.via:
            return [*self.via, "sh", "-c", script]
        # ProxyCommand=false: without a master, ssh would quietly open a connection of its own.
        return [_tool("ssh"), "-S", self.control, "-o", "ControlMaster=no", "-o", "BatchMode=yes",
                "-o", "ProxyCommand=false", "-T", *self._destination(), encode(script)]

    def terminal_argv(self, script: str) -> list[str]:
        """The command that runs ``script`` with ``sh`` on the host in a terminal of its own: what a
        person watches and types into (a tab of the page).

        Over ssh it rides the master when one is up, and otherwise connects by
        itself, asking the person in that terminal for what it needs (it is
        theirs: no ``BatchMode``).  A container engine's command gets ``-t``
        after its ``exec`` (docker, podman and kubectl all take it there).
        """
        if self.via:
            if "exec" not in self.via:
                raise HostError(f"{self.name}'s command ({shlex.join(self.via)}) has no 'exec' to "
                                "give -t to: a terminal there cannot be opened this way")
            at = self.via.index("exec") + 1
            return [*self.via[:at], "-t", *self.via[at:], "sh", "-c", script]
        return [
            _tool("ssh"),
            "-S",
            self.control,
            "-o",
            "ControlMaster=no",
            "-tt",
            *self._destination(),
            encode(script),
        ]

    def _destination(self) -> tuple[str, ...]:
        return self.ssh or ("--", self.name)

    def call(self, script: str, data: bytes, timeout: float) -> tuple[int, bytes, bytes]:
        """Run ``script`` there with ``data`` on its stdin: its exit status, stdout and stderr.

        A way there found lost before the command started (the master is
        gone) is made again, once.  :class:`Unanswered` when no answer
        comes in time (the master is checked then, and replaced if it hangs),
        :class:`OSError` when the command cannot start here.
        """
        deadline = Deadline(timeout)
        self.ensure(deadline)
        reconnected = False
        for _ in deadline.ticks(0.05):
            argv = self.argv(script)
            try:
                with self.channel(deadline):
                    status, out, err = process.run(
                        argv, data, deadline.left(), process.program(argv[0])
                    )
            except TimeoutError as exc:
                raise Unanswered(link_up=self.recover()) from exc
            if self.refused(err):
                continue  # another process holds the connection's channels: one is free in a moment
            if not reconnected and self._unreached(status, err):
                self.connect(deadline)
                reconnected = True
                continue
            return status, out, err
        raise TimeoutError

    @contextmanager
    def channel(self, deadline: Deadline) -> Iterator[None]:
        """Hold one of the ``CHANNELS`` this process may open over the connection (waiting for one,
        until ``deadline``: :class:`TimeoutError`).  A host reached by a command has no such
        limit."""
        if self.via:
            yield
            return
        with _slots_lock:
            slots = _slots.setdefault(self.name, threading.BoundedSemaphore(CHANNELS))
        if not slots.acquire(timeout=deadline.left()):
            raise TimeoutError
        try:
            yield
        finally:
            slots.release()

    def bound(self, timeout: float) -> float:
        """The time a tmux command there is given.  Through a container engine every command starts
        the engine's client anew (``podman exec``: a process of tens of megabytes, and its runtime),
        which on a loaded machine takes seconds by itself; over ssh the open master carries it at
        once."""
        return max(timeout, VIA_TIMEOUT) if self.via else timeout

    def refused(self, stderr: bytes) -> bool:
        """Did sshd refuse a channel because the connection holds as many as it allows?"""
        return not self.via and b"open refused by peer" in stderr.lower()

    def run(self, script: str, data: bytes = b"", timeout: float = RUN_TIMEOUT) -> str:
        """Run ``script`` there with ``data`` on its stdin; its stdout.  :class:`HostError` when it
        fails."""
        try:
            status, out, err = self.call(script, data, timeout)
        except Unanswered as exc:
            raise self.silent("a command", timeout, link_up=exc.link_up) from exc
        except TimeoutError as exc:
            raise self.silent("a command", timeout, link_up=False) from exc
        except OSError as exc:
            raise HostError(f"could not reach {self.name}: {exc.strerror or exc}") from exc
        if status != 0:
            raise HostError(self.says(err.decode("utf-8", "replace"), status))
        return out.decode("utf-8", "replace")

    def facts(self, shell_pid: int, tty: str) -> kernel.Dump:
        """What the host's kernel knows about a pane's processes and terminal, read with one command
        there; nothing when the host cannot say."""
        try:
            return kernel.Dump.parse(self.run(kernel.dump_script(shell_pid, tty)))
        except HostError:
            return kernel.Dump()

    def terminal(self, shell_pid: int, tty: str) -> kernel.Terminal:
        """The pane's terminal as the host's kernel sees it (:meth:`facts`)."""
        return kernel.look(shell_pid, tty, self.facts(shell_pid, tty))

    def silent(self, what: str, timeout: float, *, link_up: bool) -> HostError:
        """What ``what`` there getting no answer within ``timeout`` means, in the host's name: the
        host is the one that did not answer, not this machine's tmux, and what to do differs.

        ``link_up``: the host answered a check at once, so what hangs is on the host (its tmux
        server); otherwise the link itself is silent, and was dropped (:meth:`recover`)."""
        if link_up:
            why = (f"{what} on {self.name} got no answer within {timeout:g}s, though {self.name} "
                   "itself answers: its tmux server there may be wedged")
            return HostError(f"{why}; call again, and if it goes on, end that server on "
                             f"{self.name} (tmux kill-server there)", what=why)
        why = (f"the link to {self.name} does not answer: {what} got no reply within {timeout:g}s "
               "(the host, its network or its sshd may be down or frozen)")
        then = ("the connection was dropped, and the next call makes a new one" if not self.via
                else "the next call tries again")
        return HostError(f"{why}; {then}: call again once {self.name} is reachable (what runs "
                         f"there goes on in tmux on {self.name})", what=why)

    def _unreached(self, status: int, stderr: bytes) -> bool:
        """Did ssh fail before the command started, for want of its master?"""
        low = stderr.decode("utf-8", "replace").lower()
        return (
            not self.via
            and status == 255
            and any(
                s in low
                for s in (
                    "control socket connect",
                    "mux_client",
                    "kex_exchange_identification",
                    "connection closed by unknown",
                )
            )
        )

    def says(self, stderr: str, status: int) -> str:
        """What went wrong on the way to the host, as a sentence (from ssh's or the engine's own
        words)."""
        text = " ".join(stderr.split())[-300:]
        low = text.lower()
        if not self.via and status == 255:
            if "control socket" in low or "master" in low or "mux_client" in low:
                return f"the connection to {self.name} was lost; the next call connects again"
            return f"ssh to {self.name} failed: {text or 'no message'}"
        if self.via and (stopped := self._engine_says(low)):
            return (f"{stopped} ({self.via[0]} said: {text}); the hosts file reaches it with: "
                    f"{shlex.join(self.via)}")
        if status == 127 and "tmux" in low:
            return (f"tmux is not installed on {self.name}; install tmux 3.0 or newer there "
                    "(apt-get install tmux, dnf install tmux, apk add tmux or brew install tmux)")
        if status in (126, 127) and not self.via:
            return f"{self.name} could not run sh: {text or 'no message'}"
        for words, then in _DISK_TROUBLE:
            if words in low:
                return f"on {self.name}: {text} ({then}, then call again)"
        return f"on {self.name}: {text or f'exit status {status}'}"

    def _engine_says(self, low: str) -> str:
        """The container engine's words, lower case, as the tool's sentence with what to do ("" for
        other words): podman and docker refuse an ``exec`` into a container that is stopped or
        gone."""
        if "state improper" in low or "is not running" in low or "is paused" in low:
            return (f"the container of host {self.name} is not running: start it (podman start or "
                    "docker start, and unpause it if it is paused), then call again: the tool's "
                    "sessions there start afresh")
        if "no such container" in low or "no container with name" in low:
            return (f"the container of host {self.name} does not exist (removed, or its name in "
                    f"the hosts file {hosts_file()} is wrong): create it or fix the line, then "
                    "call again")
        return ""

    # --- the one ssh connection ------------------------------------------------------
    def ensure(self, deadline: Deadline) -> None:
        """Connect unless a master seems to be up (its socket is there); a stale one is found by the
        command that fails on it, which then connects (:meth:`call`)."""
        if not self.via and not os.path.exists(self.control):
            self.connect(deadline)

    def recover(self) -> bool:
        """After a command that got no answer: end the master unless the host answers through it at
        once, so that the next call makes a new connection (bounded by ``CHECK_TIMEOUT``).  Whether
        the host answered.

        A connection can hang at either end (a frozen network, a host that
        stopped answering, a master stopped locally) while the master still
        answers here, so the check is a command on the host.  A host reached
        by a command is not checked: its command is started anew every time.
        """
        if self.via:
            return False
        argv = self.argv("true")
        try:
            answered = process.run(argv, b"", CHECK_TIMEOUT, argv[0])[0] == 0
        except (TimeoutError, OSError):
            answered = False
        if not answered:
            self._end_master()
        return answered

    def connect(self, deadline: Deadline) -> None:
        """Make sure the master connection is up (nothing to do for a host reached by a command).

        Raises :class:`HostWaits` when ssh asks the human something, and
        :class:`HostError` when it cannot connect.
        """
        if self.via or self._socket_ok():
            return
        local = self.local
        if local is None:
            raise HostError(f"no connection to {self.name} is up, and none is made from here")
        self.state.mkdir(mode=0o700, parents=True, exist_ok=True)
        started = self._start_master(local)
        allowed = min(CONNECT_TIMEOUT, deadline.left())
        for _ in Deadline(allowed).ticks(0.02):
            if self._socket_ok():
                return
            dead, pid, tty, text = self._master_pane(local, settled=True)
            if dead or pid is None:
                try:
                    said = self._said.read_text(errors="replace")
                except OSError:
                    said = ""
                lines = [
                    ln
                    for ln in (said + text).splitlines()
                    if ln.strip() and not ln.startswith("Pane is dead")
                ]
                said = " ".join(lines[-3:]) if lines else "no message"
                raise HostError(f"could not connect to {self.name}: {_sentence(said)}")
            asked = self._asks(pid, tty, text)
            waited = time.monotonic() - started
            # The question is on its way to the screen while ssh already waits: asked without words
            # for a moment, until tmux has drawn them.
            if asked is not None and (waited > 0.2 or asked[1]) and (asked[0] or waited > 1.0):
                question, secret = asked[0] or "ssh asks something", asked[1]
                what = "a secret" if secret else "an answer"
                raise HostWaits(f"ssh to {self.name} waits for {what} from the human: {question}",
                                session=self.master, question=question, secret=secret)
        raise HostError(f"the connection to {self.name} did not come up within {allowed:g}s; "
                        f"read session {self.master} to see where ssh is")

    def connected(self) -> bool:
        """Can a command go there now without connecting (and asking anyone anything)?  A host
        reached by a command always can; over ssh, when the master is up and answers."""
        return bool(self.via) or self._socket_ok()

    def _socket_ok(self) -> bool:
        """Is the master's socket there and does the master answer on it?  A master that does not
        answer in time (its process stopped) is ended: it is ours, and a new one is made."""
        if not os.path.exists(self.control):
            return False
        argv = [_tool("ssh"), "-S", self.control, "-O", "check", *self._destination()]
        try:
            status, _out, _err = process.run(argv, b"", CHECK_TIMEOUT)
        except TimeoutError:
            self._end_master()
            return False
        except OSError:
            return False
        if status != 0:
            Path(self.control).unlink(missing_ok=True)  # a socket left by a master that is gone
            return False
        return True

    def _start_master(self, local: Local) -> float:
        """Start the master in its session (again, if it ended); the moment it was started."""
        # Its messages go to a file (-E): tmux may not read the last words of a process that exits
        # at once, and those are the ones that say why.  Its questions still come on its terminal.
        argv = [
            _tool("ssh"),
            "-M",
            "-N",
            "-E",
            str(self._said),
            "-o",
            f"ControlPath={self.control}",
            "-o",
            "ControlPersist=no",
            "-o",
            "ServerAliveInterval=5",
            "-o",
            "ServerAliveCountMax=3",
            *self._destination(),
        ]
        dead, pid, _tty, _text = self._master_pane(local)
        if pid is not None and not dead:
            return time.monotonic() - 1.0  # ssh is already at it (a question may be waiting)
        self._said.write_bytes(b"")
        target = f"={self.master}:"
        if pid is not None:
            local.cmd("respawn-pane", "-k", "-t", target, *argv)
        else:
            local.chain(["new-session", "-d", "-s", self.master, "-x", "120", "-y", "20", *argv],
                        ["set-option", "-t", target, "remain-on-exit", "on"],
                        ["set-option", "-t", target, options.PROGRAM, "ssh"],
                        ["set-option", "-t", target, options.CONNECTION, self.name])
        return time.monotonic()

    @property
    def _said(self) -> Path:
        """What the master said (its messages, not its questions)."""
        return self.state / "ssh.log"

    def _master_pane(
        self, local: Local, *, settled: bool = False
    ) -> tuple[bool, int | None, str, str]:
        """(dead, pid, tty, text) of the master's pane; pid None when there is no such session.

        Dead as the kernel says (the process is gone, which tmux learns a moment later), or only
        once tmux says so (``settled``): then its last words are on the screen too.
        """
        try:
            out = local.chain(["display-message", "-p", "-t", f"={self.master}:",
                               "#{pane_dead} #{pane_pid} #{pane_tty}"],
                              ["capture-pane", "-p", "-t", f"={self.master}:"])
        except (NoServer, NoTarget):
            return False, None, "", ""
        head, _, text = out.partition("\n")
        parts = head.split()
        if len(parts) < 2 or not parts[1].isdigit():
            return False, None, "", ""
        pid = int(parts[1])
        ended = not settled and ((found := kernel.proc(pid)) is None or found.state == "Z")
        return parts[0] == "1" or ended, pid, parts[2] if len(parts) > 2 else "", text

    def _asks(self, pid: int, tty: str, text: str) -> tuple[str, bool] | None:
        """(question, secret) when ssh waits for the human's keys (the question '' while the screen
        shows none yet); None while it works on its own."""
        term = kernel.look(pid, tty)
        if not term.known or term.front is None or term.wchan not in _TTY_READS:
            return None
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        return (lines[-1] if lines else ""), term.secret

    def _end_master(self) -> None:
        """Kill the master (our own process, by its PID) so that a new one can be made."""
        local = self.local
        if local is None:
            return
        dead, pid, _tty, _text = self._master_pane(local)
        if pid is not None and not dead:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            # until it is gone: a new master is then started, not awaited
            for _ in Deadline(1.0).ticks(0.005):
                if (found := kernel.proc(pid)) is None or found.state == "Z":
                    break
        Path(self.control).unlink(missing_ok=True)

    def forget(self) -> None:
        """End the master connection and its session (the host's sessions live on there)."""
        self._end_master()
        if self.local is not None:
            try:
                self.local.cmd("kill-session", "-t", f"={self.master}")
            except (NoServer, NoTarget):
                pass


def _sockets() -> Path:
    """``/tmp/tmux-tool-UID-ssh``, made private to this user; refused when someone else made it."""
    import tempfile

    path = Path(tempfile.gettempdir()) / f"tmux-tool-{os.getuid()}-ssh"
    path.mkdir(mode=0o700, exist_ok=True)
    st = path.lstat()
    if st.st_uid != os.getuid() or st.st_mode & 0o077 or not path.is_dir() or path.is_symlink():
        raise HostError(
            f"{path} belongs to someone else or is open to others; remove it and try again"
        )
    return path


def _sentence(said: str) -> str:
    """ssh's last words, with what to do for the usual ones."""
    low = said.lower()
    if "host key verification failed" in low:
        return (
            said
            + " (the host's key is unknown or changed: check it, then add it with ssh-keyscan or "
            "by answering ssh in a terminal)"
        )
    if "permission denied" in low:
        return (
            said + " (no key or password was accepted: give the agent a key with ssh-copy-id, or "
            "type the password where the tool shows it)"
        )
    if (
        "could not resolve" in low
        or "no route" in low
        or "connection refused" in low
        or "timed out" in low
    ):
        return (
            said
            + " (the host cannot be reached from here: check its name, its port and the network)"
        )
    return said


def connection_in(local: Local, session: str) -> str | None:
    """The host whose ssh connection runs in ``session`` of the agent's own server ``local`` (None
    when the session is no connection): a session the agent must leave to the human."""
    if not session.startswith("ssh-"):
        return None
    try:
        return (
            local.cmd("show-options", "-qv", "-t", f"={session}:", options.CONNECTION).strip()
            or None
        )
    except TmuxError:
        return None


def hosts_file() -> Path:
    """The file that declares hosts reached by a command."""
    given = os.environ.get(HOSTS_FILE, "").strip()
    return Path(given) if given else Path.home() / ".config" / "tmux_tool" / "hosts"


def declared() -> dict[str, tuple[str, ...]]:
    """The hosts file's hosts: ``NAME COMMAND...`` per line, ``#`` comments; a bad line is left out.

    The file is the human's: its commands are theirs, run as written."""
    try:
        text = hosts_file().read_text()
    except (OSError, UnicodeDecodeError):
        return {}
    found: dict[str, tuple[str, ...]] = {}
    for line in text.splitlines():
        try:
            words = shlex.split(line, comments=True)
        except ValueError:
            continue
        if len(words) >= 2 and _NAME.fullmatch(words[0]):
            found[words[0]] = tuple(words[1:])
    return found


def check(name: object) -> str:
    """``name`` if it can name a host, else :class:`BadName` with a sentence."""
    if not isinstance(name, str) or not _NAME.fullmatch(name):
        shown = name if isinstance(name, str) else type(name).__name__
        raise BadName(f"host {str(shown)[:60]!r} is not usable: name it as ssh does (user@name, "
                      "name:port is not ssh syntax: use ~/.ssh/config), with letters, digits and "
                      "._@-, never a leading '-'")
    return name


def resolve(name: object, folder: Path, local: Local | None) -> Host:
    """The host ``name`` means: a line of the hosts file, else an ssh destination.  ``folder`` holds
    a folder per host here; ``local`` is the agent's own tmux server, where an ssh master runs."""
    name = check(name)
    state = folder / Host(name, folder).key
    command = declared().get(name, ())
    if command and os.path.basename(command[0]) == "ssh":
        return Host(name=name, state=state, local=local, ssh=command[1:])
    return Host(name=name, state=state, via=command, local=local)


def end_followers(pids: Sequence[int]) -> None:
    """End processes this process started for a host (by PID), and collect them."""
    for pid in pids:
        try:
            os.kill(pid, signal.SIGTERM)
            os.waitpid(pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass
