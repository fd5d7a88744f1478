"""Where commands run: this machine (:data:`HERE`), or a host reached over ssh or a container's
command.

Everything that differs between the two is asked of a :class:`Place`, never
"is it remote?": running a script, the kernel's facts about a pane's
terminal, the CPU a pane's programs ask for, following a pane log, hanging
up what a closed session left running, the folders a tmux server of the tool
keeps there, and the name a result gives the place.  :class:`Here` reads
``/proc`` and the terminals of this machine and waits on files with inotify;
:class:`There` runs one ``sh`` script per question over a
:class:`.hosts.Host` (its channels, its ssh master), reads the kernel from
one dump, and follows logs with :mod:`.mirror`.  A new kind of place is one
more class with these methods (see docs/ARCHITECTURE.md, "a kind of place").
"""

from __future__ import annotations

import io
import os
import shlex
import shutil
import tarfile
import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from ..core.clock import Deadline
from ..core.config import write_private
from . import kernel, process
from .hosts import RUN_TIMEOUT, Host, HostError, LinkLost
from .logwatch import LogWatch
from .mirror import Mirror, forget

Watch = LogWatch | Mirror
"""What a wait for a pane log to grow sleeps on (a context manager with ``wait``)."""


class Place(Protocol):
    """Where commands run.  The rest of the library asks this, never whether it is this machine."""

    @property
    def name(self) -> str | None:
        """The ``host`` a result names (None: this machine)."""

    @property
    def link(self) -> Host | None:
        """The way there that carries tmux's commands (for :mod:`.tmux`; None: tmux runs here as a
        process)."""

    # --- running --------------------------------------------------------------------
    def run(self, script: str, data: bytes = b"", timeout: float = RUN_TIMEOUT) -> str:
        """Run ``script`` with ``sh`` there, ``data`` on its stdin; its stdout
        (:class:`.hosts.HostError` when it fails)."""

    def lost(self, error: HostError, session: str, *, typed: bool) -> HostError:
        """What a failure of the way there means once a command was (being) typed in ``session``."""

    # --- the kernel's facts -----------------------------------------------------------
    def facts(self, shell_pid: int, tty: str) -> kernel.Source:
        """Where the kernel's facts about a pane (its shell ``shell_pid``, its terminal ``tty``) are
        read."""

    def terminal(self, shell_pid: int, tty: str) -> kernel.Terminal:
        """The pane's terminal as the place's kernel sees it."""

    def activity(self, shell_pid: int) -> kernel.Activity | None:
        """What the processes below the pane's shell asked of the CPU (None: unknown there)."""

    def unread(self, tty: str) -> int:
        """Bytes typed into the terminal that its program has not read yet (0 when unknown)."""

    def zombie_status(self, pid: int) -> int | None:
        """The wait status of ``pid`` ended and not yet reaped (None while it runs, or when
        unknown)."""

    def await_editor(self, tty: Callable[[], str], seconds: float) -> None:
        """Wait up to ``seconds`` for a line editor to take the terminal ``tty()`` names (raw mode);
        a place whose terminals this machine cannot watch does not wait."""

    def hang_up(self, leaders: Collection[int], log: str) -> None:
        """End what still runs in the sessions of ``leaders`` (closed terminals' shells), and remove
        the folder of the session's pane log ``log`` there (see :meth:`log_in`)."""

    def end_left(self, server: int, pane: str, since: int, shell: int) -> list[str]:
        """End what a program run in tmux pane ``pane`` of server pid ``server`` since ``since``
        (clock ticks after boot) left running there, its shell ``shell`` and what runs below it
        aside (:func:`.kernel.born_in`); ``COMM (pid N)`` for each process ended."""

    # --- pane logs --------------------------------------------------------------------
    def log_in(self, folder: str) -> str:
        """The pane log a session whose folder there is ``folder`` writes there ("": here, the log
        is the file of the session's own folder, which every reader reads)."""

    def new_log(self, log: str) -> None:
        """Make the session's pane log there anew, empty (its folder too)."""

    def empty_log(self, log: str) -> None:
        """Empty the pane log there (its copy here is emptied by the caller)."""

    def follow(self, log: str, copy: Path) -> Watch:
        """What a wait for the pane log ``log`` there to grow sleeps on; ``copy`` is the file read
        here."""

    def catch_up(self, log: str, copy: Path) -> None:
        """Bring ``copy`` up to what the log there holds now."""

    # --- the tool's folders and the programs' environment -------------------------------
    def state(self, private_dir: Path) -> Path:
        """This machine's folder for what the tool remembers of the place's sessions."""

    def folder(self, socket: str, state: Path) -> str:
        """The folder there of the tool's tmux server ``socket`` (its config, rcfile and logs)."""

    def install(self, folder: str, state: Path, files: Mapping[str, str]) -> None:
        """Put ``files`` (name: text) in ``folder`` there, private to the user, where missing or
        stale."""

    def installed(self, path: str) -> bool:
        """Is the file ``path`` of :meth:`install` there (as far as this process knows)?"""

    @property
    def bash(self) -> str:
        """The bash a session there runs."""

    @property
    def environ(self) -> Mapping[str, str] | None:
        """The environment a caller here hands to a new session there (None: the place's own
        applies)."""

    def start_dir(self, cwd: str | None) -> str | None:
        """The folder a new session starts in, given the caller's ``cwd``."""

    def has_dir(self, cwd: str) -> bool:
        """May ``cwd`` be given to tmux as a folder there (one missing here is left out)?"""

    # --- where a person reaches a terminal there (the words of a hint) -------------------------
    def page_name(self, session: str) -> str:
        """How the page (served here) names a session of the agent's there: ``SESSION`` or
        ``SESSION@HOST``."""

    def shared_terminal(self, page: str) -> str:
        """Where the human's shared terminal there is, given the address of the page here ("" if
        none)."""

    def own_terminal(self, socket: str, session: str) -> str:
        """How a person reaches session ``session`` of the agent's server ``socket`` there without
        the page."""

    @property
    def round_trip(self) -> bool:
        """Does each look at a pane there cost a command over the way there (so waits look less
        often)?"""

    @property
    def keeps_records(self) -> bool:
        """Do the records and folders a program writes land on this machine (an AI CLI's record is
        read, its launch set up with this machine's files)?"""


@dataclass(frozen=True, slots=True)
class Here:
    """This machine: ``/proc``, its terminals, inotify, processes of its own."""

    @property
    def name(self) -> str | None:
        return None

    @property
    def link(self) -> Host | None:
        return None

    def run(self, script: str, data: bytes = b"", timeout: float = RUN_TIMEOUT) -> str:
        argv = ["sh", "-c", script]
        try:
            status, out, err = process.run(argv, data, timeout, process.program("sh"))
        except TimeoutError as exc:
            raise HostError(f"a command here got no answer within {timeout:g}s") from exc
        if status != 0:
            raise HostError(err.decode("utf-8", "replace").strip() or f"exit status {status}")
        return out.decode("utf-8", "replace")

    def lost(self, error: HostError, session: str, *, typed: bool) -> HostError:
        return error

    def facts(self, shell_pid: int, tty: str) -> kernel.Source:
        return kernel.HERE

    def terminal(self, shell_pid: int, tty: str) -> kernel.Terminal:
        return kernel.look(shell_pid, tty)

    def activity(self, shell_pid: int) -> kernel.Activity | None:
        return kernel.activity(shell_pid)

    def unread(self, tty: str) -> int:
        return kernel.unread(tty)

    def zombie_status(self, pid: int) -> int | None:
        return kernel.zombie_status(pid)

    def await_editor(self, tty: Callable[[], str], seconds: float) -> None:
        name = tty()
        if not name:
            return
        for _ in Deadline(seconds).ticks(0.002):
            if kernel.line_editor(name):
                return

    def hang_up(self, leaders: Collection[int], log: str) -> None:
        kernel.hang_up(leaders)

    def end_left(self, server: int, pane: str, since: int, shell: int) -> list[str]:
        found = kernel.born_in(server, pane, since, shell)
        kernel.end(found)
        return [f"{p.comm} (pid {p.pid})" for p in found]

    def log_in(self, folder: str) -> str:
        return ""

    def new_log(self, log: str) -> None:
        pass

    def empty_log(self, log: str) -> None:
        pass

    def follow(self, log: str, copy: Path) -> Watch:
        return LogWatch(copy)

    def catch_up(self, log: str, copy: Path) -> None:
        pass

    def state(self, private_dir: Path) -> Path:
        return private_dir

    def folder(self, socket: str, state: Path) -> str:
        return str(state)

    def install(self, folder: str, state: Path, files: Mapping[str, str]) -> None:
        for name, text in files.items():
            path = Path(folder) / name
            if not path.exists() or path.read_text() != text:
                write_private(path, text)

    def installed(self, path: str) -> bool:
        return os.path.exists(path)

    @property
    def bash(self) -> str:
        return shutil.which("bash") or "/bin/bash"

    @property
    def environ(self) -> Mapping[str, str] | None:
        return os.environ

    def start_dir(self, cwd: str | None) -> str | None:
        return cwd or os.getcwd()

    def has_dir(self, cwd: str) -> bool:
        return os.path.isdir(cwd)

    def page_name(self, session: str) -> str:
        return session

    def shared_terminal(self, page: str) -> str:
        return page or "the shared terminal"

    def own_terminal(self, socket: str, session: str) -> str:
        return f"a terminal of their own: apps/shared-terminal/agent.sh take {session}"

    @property
    def round_trip(self) -> bool:
        return False

    @property
    def keeps_records(self) -> bool:
        return True


HERE: Place = Here()

_folders: dict[tuple[str, str], str] = {}  # (host, socket) -> the server's folder there, asked once


@dataclass(frozen=True, slots=True)
class There:
    """A host (:class:`.hosts.Host`: ssh, or a command such as a container engine's ``exec -i``):
    one ``sh`` script per question over its connection, the kernel from one dump, logs followed by
    :mod:`.mirror`."""

    host: Host

    @property
    def name(self) -> str | None:
        return self.host.name

    @property
    def link(self) -> Host | None:
        return self.host

    def run(self, script: str, data: bytes = b"", timeout: float = RUN_TIMEOUT) -> str:
        return self.host.run(script, data, timeout)

    def lost(self, error: HostError, session: str, *, typed: bool) -> HostError:
        if isinstance(error, LinkLost):
            return error
        return LinkLost(error, host=self.host.name, session=session, typed=typed)

    def facts(self, shell_pid: int, tty: str) -> kernel.Source:
        return self.host.facts(shell_pid, tty)

    def terminal(self, shell_pid: int, tty: str) -> kernel.Terminal:
        return self.host.terminal(shell_pid, tty)

    def activity(self, shell_pid: int) -> kernel.Activity | None:
        return None

    def unread(self, tty: str) -> int:
        return 0

    def zombie_status(self, pid: int) -> int | None:
        return None

    def await_editor(self, tty: Callable[[], str], seconds: float) -> None:
        pass  # each look would be a command there: the line editor is not waited for

    def hang_up(self, leaders: Collection[int], log: str) -> None:
        if not log:
            return
        forget(self.host, log)
        try:
            self.host.run(
                kernel.hang_up_script(leaders) + f"rm -rf {shlex.quote(log.rpartition('/')[0])}",
                timeout=kernel.HANG_UP_GRACE + 10,
            )
        except HostError:
            # the host is away: the folder holds a log only, emptied when the name is used again
            pass

    def end_left(self, server: int, pane: str, since: int, shell: int) -> list[str]:
        out = self.host.run(kernel.born_in_script(server, pane, since, shell),
                            timeout=kernel.HANG_UP_GRACE + 10)
        return [f"{comm} (pid {pid})" for pid, _, comm in (line.partition(" ") for line in out.splitlines())
                if pid.isdigit()]

    def log_in(self, folder: str) -> str:
        return f"{folder}/pane.log"

    def new_log(self, log: str) -> None:
        folder = log.rpartition("/")[0]
        forget(self.host, log)
        self.host.run(f"umask 077; rm -rf {shlex.quote(folder)}; mkdir -p {shlex.quote(folder)} && "
                      f": > {shlex.quote(log)}")

    def empty_log(self, log: str) -> None:
        if log:
            forget(self.host, log)
            self.host.run(f": > {shlex.quote(log)}")

    def follow(self, log: str, copy: Path) -> Watch:
        return Mirror(self.host, log, copy) if log else LogWatch(copy)

    def catch_up(self, log: str, copy: Path) -> None:
        if log:
            with self.follow(log, copy):
                pass

    def state(self, private_dir: Path) -> Path:
        return self.host.state

    def folder(self, socket: str, state: Path) -> str:
        """``~/.tmux_tool/SOCKET`` there (asked once per process)."""
        if found := _folders.get((self.host.name, socket)):
            return found
        home = self.host.run('printf %s "$HOME"').strip()
        if not home.startswith("/"):
            raise HostError(
                f"{self.host.name} has no home folder for the tool's files ($HOME is {home!r})"
            )
        found = _folders[(self.host.name, socket)] = f"{home.rstrip('/')}/.tmux_tool/{socket}"
        return found

    def install(self, folder: str, state: Path, files: Mapping[str, str]) -> None:
        """One call, a tar on stdin; tmux and bash must be there: the sentence says how to get
        them."""
        pack = io.BytesIO()
        with tarfile.open(fileobj=pack, mode="w", format=tarfile.USTAR_FORMAT) as tar:
            for name, text in files.items():
                data = text.encode()
                info = tarfile.TarInfo(name)
                info.size, info.mode, info.mtime = len(data), 0o600, int(time.time())
                tar.addfile(info, io.BytesIO(data))
        far = shlex.quote(folder)
        script = (
            "command -v tmux >/dev/null 2>&1 || { echo 'tmux: not found' >&2; exit 127; }; "
            "command -v bash >/dev/null 2>&1 || { echo 'bash: not found' >&2; exit 125; }; "
            f"umask 077 && mkdir -p {far}/sessions && chmod 700 {far} && tar -xof - -C {far}"
        )
        try:
            self.host.run(script, pack.getvalue())
        except HostError as exc:
            if "bash: not found" in str(exc):
                raise HostError(f"bash is not installed on {self.host.name}; the agent's shells "
                                "there are bash (apt-get install bash, apk add bash)") from exc
            raise
        write_private(state / "host", self.host.name)  # (how list finds the hosts used)

    def installed(self, path: str) -> bool:
        return True  # put there when this process first made the server's object (install)

    @property
    def bash(self) -> str:
        return "bash"

    @property
    def environ(self) -> Mapping[str, str] | None:
        return None

    def start_dir(self, cwd: str | None) -> str | None:
        return cwd

    def has_dir(self, cwd: str) -> bool:
        return True

    def page_name(self, session: str) -> str:
        return f"{session}@{self.host.name}"

    def shared_terminal(self, page: str) -> str:
        # The page here does not serve it: that host's page does (start.sh --host).
        host = self.host.name
        return (
            f"the shared terminal on {host} (its page: apps/shared-terminal/start.sh --host {host})"
        )

    def own_terminal(self, socket: str, session: str) -> str:
        host = self.host.name
        return (f"the page (apps/shared-terminal/start.sh), session {session}@{host}, or a "
                f"terminal on {host}: tmux -L {socket} attach -t {session}")

    @property
    def round_trip(self) -> bool:
        return True

    @property
    def keeps_records(self) -> bool:
        return False


def at(host: Host | None) -> Place:
    """The place ``host`` names (None: this machine)."""
    return HERE if host is None else There(host)
