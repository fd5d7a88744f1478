"""The private tmux server: the agent's own shells, with exact completion.

Everything the agent owns lives on a server of its own (socket
``TMUX_TOOL_PRIVATE_SOCKET``, started with our config so a user's
``~/.tmux.conf`` never applies).  Every private session is a bash started with
our rcfile (see :mod:`markers`), its raw output logged by ``pipe-pane`` to a
file readable only by this user, and its prompt writing a marker into that
log - so completion is an event (the log grows), not a guess.  What a session
is for (scratch shell or a started program) is kept in tmux user options and
a small JSON file, because every call may come from a new process.

A long-lived host builds a server object for every call; the files it
prepares (tmux config, rcfile, state folder) are checked once per process and
folder, and again whenever a session is created.

At another place (a host: ``place``) the server, the shells, their rcfile and
their logs are there, in a folder of the user's home only they can read
(``~/.tmux_tool/SOCKET``); what the tool remembers of the sessions stays
here, in a folder per host, with a copy of each pane log kept current
(:meth:`..transport.place.Place.follow`).  The same marks, the same runs;
what differs is asked of the place.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..core.clock import Deadline
from ..core.config import Config, private_path, write_private
from ..core.errors import NoServer, NoTarget, ShellNotReady, TmuxError
from ..transport import options
from ..transport.place import HERE, Place, Watch
from ..transport.tmux import Tmux
from . import markers

SERVER_CONF = """\
# tmux config of the tmux_tool private server (generated; do not edit)
set -g default-terminal "tmux-256color"
set -g history-limit 50000
set -g remain-on-exit on
set -g status off
set -g escape-time 10
set -g set-clipboard off
set -g allow-rename off
set -g focus-events off
set -g bell-action none
"""

READY_TIMEOUT = 15.0
EDITOR_WITHIN = 1.0  # seconds from the first prompt's marker to the line editor's raw mode, at most


@dataclass(frozen=True, slots=True)
class Shell:
    """What the tool knows about one private session."""

    name: str
    nonce: str
    log: str  # the pane log here: the log itself, or for a host the copy of it
    program: str | None = None
    created: float = 0.0
    far: str = ""  # on a host: the pane log there

    @property
    def log_path(self) -> Path:
        return Path(self.log)


@dataclass(frozen=True, slots=True)
class Birth:
    """Where a program running in a private pane was born, so that what it leaves running can be
    ended with it (:meth:`.place.Place.end_left`): the tmux server's pid, the pane (``%N``), the
    program's start (clock ticks after boot) and the pane's shell."""

    server: int
    pane: str
    since: int
    shell: int


_SHELL_FIELDS = frozenset(f.name for f in fields(Shell))
_prepared: set[Path] = set()  # state folders whose files this process has checked



class PrivateServer:
    """The agent's tmux server and the bookkeeping of its sessions."""

    def __init__(self, cfg: Config, place: Place = HERE) -> None:
        self.cfg = cfg
        self.place = place
        self.dir = place.state(cfg.private_dir)
        self.far = place.folder(cfg.private_socket, self.dir)
        self.tmux = Tmux(cfg.private_socket, config_file=f"{self.far}/tmux.conf", place=place)
        self.rcfile = f"{self.far}/bashrc"
        if self.dir not in _prepared:
            self._prepare()

    def _files(self) -> dict[str, str]:
        return {"tmux.conf": SERVER_CONF, "bashrc": markers.rcfile(), "hooks.sh": markers.hooks()}

    def _prepare(self) -> None:
        """Write the tmux config and the rcfile where they are missing or stale (at the place)."""
        private_path(self.dir)
        self.place.install(self.far, self.dir, self._files())
        _prepared.add(self.dir)

    def hooks(self) -> str:
        """The file that puts a shell's marks back (see :func:`markers.hooks`), written if
        missing."""
        if not self.place.installed(f"{self.far}/hooks.sh"):
            self._prepare()
        return f"{self.far}/hooks.sh"

    def watch(self, shell: Shell) -> Watch:
        """What a wait for the session's log to grow sleeps on: the file, or the copy of a log on a
        host."""
        return self.place.follow(shell.far, shell.log_path)

    def last_mark(self, shell: Shell) -> markers.Mark | None:
        """The last mark in the session's log (on a host: once the copy holds all the log held)."""
        self.place.catch_up(shell.far, shell.log_path)
        return markers.last_mark(shell.log_path, shell.nonce)

    def log_size(self, shell: Shell) -> int:
        """How long the pane log is (on a host: the copy, which a watch has brought up to date)."""
        try:
            return os.stat(shell.log_path).st_size
        except FileNotFoundError:
            return 0

    def empty_log(self, shell: Shell) -> None:
        """Empty the pane log between commands (``pipe-pane`` appends: its next bytes land at 0)."""
        self.place.empty_log(shell.far)
        os.truncate(shell.log_path, 0)

    # --- bookkeeping -------------------------------------------------------
    def session_dir(self, name: str) -> Path:
        return self.dir / "sessions" / name

    def shell(self, name: str) -> Shell | None:
        """The recorded facts of session ``name`` (None if never created here)."""
        try:
            data = json.loads((self.session_dir(name) / "shell.json").read_text())
            return Shell(**{k: v for k, v in data.items() if k in _SHELL_FIELDS})
        except (FileNotFoundError, NotADirectoryError, ValueError, TypeError, AttributeError):
            return None

    def exists(self, name: str) -> bool:
        return self.tmux.has_session(name)

    def set_program(self, name: str, program: str | None) -> None:
        """Record which program the session now runs (None: just its shell)."""
        shell = self.shell(name)
        if shell is None:
            return
        updated = Shell(**{**asdict(shell), "program": program})
        write_private(self.session_dir(name) / "shell.json", json.dumps(asdict(updated)))
        self.tmux.cmd("set-option", "-t", f"={name}:", options.PROGRAM, program or "bash")

    # --- lifecycle ---------------------------------------------------------
    def create(
        self,
        name: str,
        *,
        cwd: str | None = None,
        program: str | None = None,
        env: Mapping[str, str] | None = None,
    ) -> Shell:
        """Start session ``name`` with a private shell and wait for its prompt."""
        self._prepare()
        sdir = self.session_dir(name)
        if sdir.exists():
            shutil.rmtree(sdir, ignore_errors=True)
        private_path(sdir)
        nonce = os.urandom(8).hex()
        far_dir = f"{self.far}/sessions/{name}"
        shell = Shell(name=name, nonce=nonce, log=str(sdir / "pane.log"), program=program,
                      created=time.time(), far=self.place.log_in(far_dir))
        write_private(sdir / "shell.json", json.dumps(asdict(shell)))
        write_private(shell.log_path, "")
        # the caller's environment, where it reaches
        if (environ := self.place.environ) is not None:
            write_private(sdir / "env.sh", markers.environment({**environ, **(env or {})}),
                          errors="surrogateescape")
        self.place.new_log(shell.far)
        start_dir = self.place.start_dir(cwd)
        new = [
            "new-session",
            "-d",
            "-s",
            name,
            "-x",
            str(self.cfg.width),
            "-y",
            str(self.cfg.height),
        ]
        if start_dir:
            new += ["-c", start_dir.replace("#", "##")]
        new += self._shell_argv(shell, env)
        self.tmux.chain(
            new,
            # window-size must be set per window: tmux 3.3a crashes when a config file
            # sets it globally before the first detached session exists.
            ["set-option", "-w", "-t", f"={name}:", "window-size", "manual"],
            ["set-option", "-t", f"={name}:", options.PROGRAM, program or "bash"],
            ["set-option", "-t", f"={name}:", options.CREATED, str(int(shell.created))],
            ["pipe-pane", "-o", "-t", f"={name}:", self._pipe(shell)],
        )
        self._await_prompt(shell)
        return shell

    def _pipe(self, shell: Shell) -> str:
        """The ``pipe-pane`` command that appends the pane's output to its log."""
        return f"umask 077; exec cat >> {shlex.quote(shell.far or shell.log)}".replace("#", "##")

    def respawn(self, shell: Shell, cwd: str | None) -> None:
        """Give a session whose shell exited a fresh shell (same log, same markers)."""
        with self.watch(shell):
            offset = self.log_size(shell)
        argv = ["respawn-pane", "-k", "-t", f"={shell.name}:"]
        if cwd and self.place.has_dir(cwd):
            argv += ["-c", cwd.replace("#", "##")]
        # Without "-o": respawning leaves the old pipe half-open, and "-o" would
        # refuse to replace it.
        self.tmux.chain(
            argv + self._shell_argv(shell),
            ["pipe-pane", "-t", f"={shell.name}:", self._pipe(shell)],
        )
        self._await_prompt(shell, offset)

    def birth(self, name: str) -> Birth | None:
        """Where the program in front in session ``name`` was born; None when its shell is in front
        or the kernel cannot say (then nothing is ended on its behalf)."""
        try:
            out = self.tmux.cmd("display-message", "-p", "-t", f"={name}:",
                                "#{pid} #{pane_id} #{pane_pid} #{pane_tty}")
        except (NoServer, NoTarget):
            return None
        server, pane, shell, tty = (out.split() + ["", "", "", ""])[:4]
        if not (server.isdigit() and shell.isdigit()):
            return None
        term = self.place.terminal(int(shell), tty)
        if not term.known or term.shell_in_front or term.leader is None:
            return None
        return Birth(int(server), pane, term.leader.started, int(shell))

    def end_left(self, birth: Birth | None) -> list[str]:
        """End what the program born at ``birth`` left running once it ended: a daemon it started
        that left the terminal's session (``COMM (pid N)`` of each)."""
        if birth is None:
            return []
        return self.place.end_left(birth.server, birth.pane, birth.since, birth.shell)

    def kill(self, name: str) -> bool:
        """End session ``name`` and forget it, with what its started program left running; False if
        it did not exist."""
        existed = True
        shell = self.shell(name)
        birth = self.birth(name) if shell is not None and shell.program else None
        try:
            shells = self.tmux.cmd(
                "list-panes", "-s", "-t", f"={name}", "-F", "#{pane_pid}"
            ).split()
            self.tmux.cmd("kill-session", "-t", f"={name}")
        except (NoServer, NoTarget):
            existed, shells = False, []
        leaders = [int(p) for p in shells if p.isdigit()]
        self.place.hang_up(leaders, shell.far if shell is not None else "")
        self.end_left(birth)
        shutil.rmtree(self.session_dir(name), ignore_errors=True)
        return existed

    def names(self) -> list[str]:
        """Names of the live sessions on the private server."""
        try:
            out = self.tmux.cmd("list-sessions", "-F", "#{session_name}")
        except NoServer:
            return []
        return [n for n in out.splitlines() if n]

    # --- internals ---------------------------------------------------------
    def _shell_argv(self, shell: Shell, env: Mapping[str, str] | None = None) -> list[str]:
        """The session's shell with its marks' nonce in its environment, through env(1): tmux before
        3.2 has no ``new-session -e``, and a respawned shell needs it as much.  Here, the shell also
        reads the environment of the caller that made the session from a file (a respawned shell the
        same one); on a host, the shell has the host's."""
        bash = self.place.bash
        folder = (shell.far or shell.log).rpartition("/")[0]
        variables = {"TT_NONCE": shell.nonce, "TT_DIR": folder}
        if self.place.environ is not None:
            # the caller's environment when the session was made
            variables["TT_ENV"] = f"{folder}/env.sh"
        variables.update(env or {})
        return [
            "env",
            *(f"{k}={v}" for k, v in variables.items()),
            bash,
            "--noprofile",
            "--rcfile",
            self.rcfile,
            "-i",
        ]

    def _await_editor(self, shell: Shell, deadline: Deadline) -> None:
        """Wait, briefly, for the line editor to take the terminal (raw mode): the prompt's marker
        comes just before it, and text pasted in between would be echoed raw, escape codes and all,
        on the screen the human watches (it still runs).  A place whose terminals this machine
        cannot watch (a host) does not wait for it."""

        def tty() -> str:
            try:
                return self.tmux.display(f"={shell.name}:", "#{pane_tty}")
            except TmuxError:
                return ""

        self.place.await_editor(tty, min(EDITOR_WITHIN, deadline.left()))

    def _await_prompt(self, shell: Shell, offset: int = 0) -> None:
        """Wait for the shell's first prompt after ``offset`` in its log: it is ready for input.

        An event (the prompt's marker landing in the log), never a fixed sleep.
        An exit marker on the way (the shell replaced by a respawn) is passed over.
        """
        deadline = Deadline(READY_TIMEOUT)
        with self.watch(shell) as watch:
            while True:
                follow = markers.Follow(shell.log_path, shell.nonce, offset)
                # a fresh shell's first marker is its prompt: no command before
                follow.started = True
                while (end := follow.read(lambda _output: None)) is None:
                    left = deadline.left()
                    if not left:
                        raise ShellNotReady(
                            f"the shell of session {shell.name!r} did not show its prompt within "
                            f"{READY_TIMEOUT:g}s; look at it with read, or kill it and try again"
                        )
                    watch.wait(left)
                if end.kind == "E":
                    self._await_editor(shell, deadline)
                    return
                offset = end.end
