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
"""

from __future__ import annotations

import json
import os
import shlex
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, fields
from pathlib import Path

from ..core.clock import Deadline
from ..core.config import Config, private_path, write_private
from ..core.errors import NoServer, NoTarget, ShellNotReady, TmuxError
from ..transport import kernel, options
from ..transport.tmux import Tmux
from . import markers
from .logwatch import LogWatch

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
    log: str
    program: str | None = None
    created: float = 0.0

    @property
    def log_path(self) -> Path:
        return Path(self.log)


_SHELL_FIELDS = frozenset(f.name for f in fields(Shell))
_prepared: set[Path] = set()  # state folders whose files this process has checked



class PrivateServer:
    """The agent's tmux server and the bookkeeping of its sessions."""

    def __init__(self, cfg: Config) -> None:
        self.cfg = cfg
        self.dir = cfg.private_dir
        self.rcfile = self.dir / "bashrc"
        self.tmux = Tmux(cfg.private_socket, config_file=str(self.dir / "tmux.conf"))
        if self.dir not in _prepared:
            self._prepare()

    def _prepare(self) -> None:
        """Write the tmux config and the rcfile if they are missing or stale."""
        private_path(self.dir)
        for path, text in ((self.dir / "tmux.conf", SERVER_CONF), (self.rcfile, markers.rcfile()),
                           (self.dir / "hooks.sh", markers.hooks())):
            if not path.exists() or path.read_text() != text:
                write_private(path, text)
        _prepared.add(self.dir)

    def hooks(self) -> Path:
        """The file that puts a shell's marks back (see :func:`markers.hooks`), written if missing."""
        path = self.dir / "hooks.sh"
        if not path.exists():
            self._prepare()
        return path

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
            import shutil  # (loaded only by the calls that make or end a session)

            shutil.rmtree(sdir, ignore_errors=True)
        private_path(sdir)
        nonce = os.urandom(8).hex()
        shell = Shell(name=name, nonce=nonce, log=str(sdir / "pane.log"), program=program,
                      created=time.time())
        write_private(sdir / "shell.json", json.dumps(asdict(shell)))
        write_private(shell.log_path, "")
        start_dir = cwd or os.getcwd()
        new = ["new-session", "-d", "-s", name, "-x", str(self.cfg.width), "-y", str(self.cfg.height),
               "-c", start_dir.replace("#", "##")]
        for key, value in {"TT_NONCE": nonce, "TT_DIR": str(sdir), **(env or {})}.items():
            new += ["-e", f"{key}={value}"]
        new += self._shell_argv()
        self.tmux.chain(
            new,
            # window-size must be set per window: tmux 3.3a crashes when a config file
            # sets it globally before the first detached session exists.
            ["set-option", "-w", "-t", f"={name}:", "window-size", "manual"],
            ["set-option", "-t", f"={name}:", options.PROGRAM, program or "bash"],
            ["set-option", "-t", f"={name}:", options.CREATED, str(int(shell.created))],
            ["pipe-pane", "-o", "-t", f"={name}:", f"umask 077; exec cat >> {shlex.quote(shell.log)}".replace("#", "##")],
        )
        self._await_prompt(shell)
        return shell

    def respawn(self, shell: Shell, cwd: str | None) -> None:
        """Give a session whose shell exited a fresh shell (same log, same markers)."""
        offset = shell.log_path.stat().st_size if shell.log_path.exists() else 0
        argv = ["respawn-pane", "-k", "-t", f"={shell.name}:"]
        if cwd and os.path.isdir(cwd):
            argv += ["-c", cwd.replace("#", "##")]
        # Without "-o": respawning leaves the old pipe half-open, and "-o" would
        # refuse to replace it.
        self.tmux.chain(
            argv + self._shell_argv(),
            ["pipe-pane", "-t", f"={shell.name}:", f"umask 077; exec cat >> {shlex.quote(shell.log)}".replace("#", "##")],
        )
        self._await_prompt(shell, offset)

    def kill(self, name: str) -> bool:
        """End session ``name`` and forget it; False if it did not exist."""
        existed = True
        try:
            self.tmux.cmd("kill-session", "-t", f"={name}")
        except (NoServer, NoTarget):
            existed = False
        import shutil

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
    def _shell_argv(self) -> list[str]:
        import shutil

        return [shutil.which("bash") or "/bin/bash", "--noprofile", "--rcfile", str(self.rcfile), "-i"]

    def _await_editor(self, shell: Shell, deadline: Deadline) -> None:
        """Wait, briefly, for the line editor to take the terminal (raw mode): the prompt's marker comes
        just before it, and text pasted in between would be echoed raw, escape codes and all, on the
        screen the human watches (it still runs)."""
        try:
            tty = self.tmux.display(f"={shell.name}:", "#{pane_tty}")
        except TmuxError:
            return
        for _ in Deadline(min(EDITOR_WITHIN, deadline.left())).ticks(0.002):
            if kernel.line_editor(tty):
                return

    def _await_prompt(self, shell: Shell, offset: int = 0) -> None:
        """Wait for the shell's first prompt after ``offset`` in its log: it is ready for input.

        An event (the prompt's marker landing in the log), never a fixed sleep.
        An exit marker on the way (the shell replaced by a respawn) is passed over.
        """
        deadline = Deadline(READY_TIMEOUT)
        with LogWatch(shell.log_path) as watch:
            while True:
                follow = markers.Follow(shell.log_path, shell.nonce, offset)
                follow.started = True  # a fresh shell's first marker is its prompt: no command before
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
