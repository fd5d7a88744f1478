"""The transport: every conversation with a tmux server goes through here.

Commands travel over this process's persistent control-mode connection to
the server (:mod:`.connection`) when it can carry them, and otherwise as one
``tmux -L SOCKET ...`` process; either way with a hard timeout, so a wedged
server or a pane whose input buffer is full can never hang the caller, and
with the same text and the same errors.

On the process path arguments are passed as a list (no shell), and the one
piece of parsing tmux still does on a list of arguments is neutralised: an
argument ending in ``;`` would end the tmux command and turn what follows
into a new command, so such an argument gets the backslash tmux expects
(``\\;``).  On the connection every argument is single-quoted.  Text to paste
travels on stdin to ``load-buffer -`` (process) or as the one argument of
``set-buffer`` (connection).

libtmux is not used on this path because its calls have no timeout and cost a
process each all the same.
"""

from __future__ import annotations

import errno
import os
import shlex
import shutil
import time
from collections.abc import Sequence
from dataclasses import dataclass

from ..core import trace
from ..core.clock import Deadline
from ..core.errors import NoServer, NoTarget, TmuxError, Unavailable
from . import connection, connections
from .connection import Lost
from .gate import gate
from .hosts import Host, HostError, Unanswered
from .place import HERE, Place
from .process import run

DEFAULT_TIMEOUT = 5.0
_HOST_FAILED = (125, 126, 127, 255)
"""Exit statuses of the way to a host failing, not tmux there: a container engine's own error (125),
sh or tmux not runnable there (126, 127), ssh (255)."""
SEP = "\u241f"
"""Between the fields of a format the tool asks tmux to expand: SYMBOL FOR UNIT SEPARATOR.  Not a
control character, which tmux 3.5 prints as ``\\037`` and tmux 3.1 as ``_`` to a client it does not
know speaks UTF-8 (every tmux the tool runs is told so: ``-u``)."""

_NO_SERVER = ("no server running", "error connecting to", "server exited", "lost server")
# "no current target": what tmux 3.3a answers while a server whose last session
# just ended is shutting down.
_NO_TARGET = ("can't find session", "can't find pane", "can't find window", "session not found",
              "no current target")
# Commands that never travel over the connection: a blocking wait-for would stall every
# other command behind it there.
_PROCESS_ONLY = frozenset({"wait-for"})


_held = True  # False in a process too short-lived to hold a connection


def short_lived() -> None:
    """This process runs one action and exits: tmux commands run as processes of their own.

    A control-mode connection pays off across calls only; attaching and
    detaching one per call would cost as much as it saves, and every attach
    is a moment tmux 3.3a can crash in (see :mod:`.gate`).
    """
    global _held
    _held = False


def _connected() -> bool:
    """Does this process hold connections to tmux servers at all?"""
    return _held and connection.enabled()


def escape_arg(arg: str) -> str:
    """Keep tmux from reading a trailing ``;`` as a command separator.

    tmux turns a final ``\\;`` into ``;`` and otherwise ends the command at a
    final ``;``; inserting one backslash before the last character makes any
    argument arrive exactly as written.
    """
    return arg[:-1] + "\\;" if arg.endswith(";") else arg


def _unstartable(exc: OSError, what: str) -> TmuxError:
    """The tmux process could not even start: say why in words.

    Seen in practice: an argument over the kernel's 128 KiB limit for one
    argument (E2BIG), and fork failing under load (EAGAIN, ENOMEM).
    """
    if exc.errno == errno.E2BIG:
        return TmuxError(f"tmux {what} was not run: an argument is longer than the system allows "
                         "(128 KiB for one argument); send less at once")
    return TmuxError(
        f"tmux {what} could not be started ({exc.strerror or exc}); try again in a moment"
    )


def _classify(stderr: str, what: str) -> TmuxError:
    low = stderr.lower()
    if any(s in low for s in _NO_SERVER):
        return NoServer(f"the tmux server is not running ({what})")
    if any(s in low for s in _NO_TARGET):
        return NoTarget(stderr.strip() or f"target not found ({what})")
    return TmuxError(f"tmux {what} failed: {stderr.strip() or 'no message'}")


_exe: tuple[str, str | None] = ("", None)


def executable() -> str:
    """The tmux program (looked up once per ``PATH``)."""
    global _exe
    path = os.environ.get("PATH", os.defpath)
    if _exe[0] != path or _exe[1] is None:
        _exe = (path, shutil.which("tmux"))
    if _exe[1] is None:
        raise TmuxError("tmux is not installed; install tmux 3.3 or newer (apt-get install tmux)")
    return _exe[1]


def _session_named(commands: Sequence[Sequence[str]]) -> str | None:
    """The session the first ``-t =NAME...`` target of the commands names (for a new connection).

    None when the commands create the session they name: it does not exist yet.
    """
    for command in commands:
        if command[0] == "new-session":
            return None
        for i, arg in enumerate(command[:-1]):
            if arg == "-t" and command[i + 1].startswith("="):
                return command[i + 1][1:].split(":", 1)[0].split(".", 1)[0] or None
    return None


def _inline(commands: Sequence[Sequence[str]], input: bytes | None) -> list[Sequence[str]] | None:
    """The commands with ``load-buffer -`` (text on stdin) as ``set-buffer`` (text as argument).

    None when the connection cannot carry them: a command that must be a
    process of its own, or text that is not UTF-8 (tmux refuses such a line).
    """
    if any(not c or c[0] in _PROCESS_ONLY for c in commands):
        return None
    if input is None:
        return list(commands)
    try:
        text = input.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if "\x00" in text:
        return None
    out: list[Sequence[str]] = []
    for command in commands:
        if command[0] == "load-buffer" and command[-1] == "-":
            command = ["set-buffer", *command[1:-1], "--", text]
        out.append(command)
    return out


@dataclass(frozen=True, slots=True)
class Tmux:
    """One tmux server, addressed by its socket name (``tmux -L``), at a :class:`.place.Place`: this
    machine, or a host whose way there (``place.link``) carries its commands."""

    socket: str
    config_file: str | None = None
    place: Place = HERE

    @property
    def host(self) -> Host | None:
        """The way to the server's host (None: tmux runs here as a process of its own)."""
        return self.place.link

    @property
    def key(self) -> str:
        """The server's name in this process (connections, gates): its socket, and its host if
        any."""
        return f"{self.host.name}/{self.socket}" if self.host else self.socket

    def _argv(self, *args: str, config: bool = True) -> list[str]:
        """The argv of a tmux process with ``args``: here, or the host's command running it
        there."""
        if self.host is not None:
            return self.host.argv(self._script(*args, config=config))
        argv = [executable(), "-u", "-L", self.socket]
        if config and self.config_file:
            argv += ["-f", self.config_file]
        return argv + list(args)

    def client_argv(self, *args: str) -> list[str]:
        """A tmux client with ``args`` for a person, in a terminal of its own (a tab of the page):
        here, or on the host in a terminal its command opens there."""
        if self.host is not None:
            return self.host.terminal_argv(self._script(*args))
        return self._argv(*args)

    def _script(self, *args: str, config: bool = True) -> str:
        """The ``sh`` line that runs tmux with ``args`` on the host.

        A command over ssh often comes without a locale: tmux would then
        replace the control characters and non-ASCII text of its answers, and
        the shells it starts would take UTF-8 input for meta keys.  So tmux
        is told the terminal speaks UTF-8 (``-u``), and without a locale of
        the user's it gets ``C.UTF-8``.
        """
        argv = ["tmux", "-u", "-L", self.socket,
                *(["-f", self.config_file] if config and self.config_file else []), *args]
        return '[ -n "${LC_ALL-}${LC_CTYPE-}${LANG-}" ] || export LANG=C.UTF-8; exec ' + shlex.join(
            argv
        )

    def chain(
        self,
        *commands: Sequence[str],
        input: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> str:
        """Run several tmux commands as one (separated by ``;``).

        Over the connection when it can carry them, else as one process.
        Returns stdout; raises a :class:`TmuxError` subclass.  Traced when a
        trace is asked for (:mod:`..core.trace`).
        """
        if self.host is not None:
            timeout = self.host.bound(timeout)
        if not trace.on():
            return self._chain(commands, input, timeout)
        begun = time.monotonic()
        where = {"socket": self.socket, "host": self.host.name if self.host else None,
                 "commands": trace.commands(commands)}
        if input is not None:
            where["input"] = input.decode("utf-8", "replace")
        try:
            out = self._chain(commands, input, timeout)
        except TmuxError as exc:
            trace.event("tmux", **where, seconds=round(time.monotonic() - begun, 6), error=str(exc))
            raise
        trace.event("tmux", **where, seconds=round(time.monotonic() - begun, 6), out=len(out))
        return out

    def _chain(self, commands: Sequence[Sequence[str]], input: bytes | None, timeout: float) -> str:
        what = " ; ".join(c[0] for c in commands if c)
        inline = _inline(commands, input) if _connected() else None
        if inline is None:
            return self._process(commands, input, timeout, what)
        session = _session_named(commands)
        if self.host is not None:
            # (here: a new connection's client needs the master)
            self.host.ensure(Deadline(timeout))
        for _attempt in range(2):  # a connection found dead is replaced once, by a fresh one
            conn = connections.for_server(self._client, self.key, session, timeout)
            if conn is None:
                break
            with gate(self.key).command():
                try:
                    replies = conn.run(inline, timeout)
                except Lost as exc:
                    if exc.started:  # part of the line ran: running it again could do it twice
                        raise TmuxError(f"tmux {what} was cut off: {exc}") from exc
                    continue  # gone before anything ran
                except Unavailable:
                    continue  # gone before the line was written
                except TimeoutError as exc:
                    # the way there may be what hangs: next time, a new one
                    if self.host is not None:
                        connections.drop(self.key)
                        raise self.host.silent(
                            f"tmux {what}", timeout, link_up=self.host.recover()
                        ) from exc
                    raise TmuxError(f"tmux {what} did not answer within {timeout:g}s (the server "
                                    "may be wedged or a pane's input is blocked)") from exc
            out: list[str] = []
            for ok, text in replies:
                decoded = text.decode("utf-8", "replace")
                if not ok:
                    raise _classify(decoded, what)
                out.append(decoded)
            return "".join(out)
        with gate(self.key).command():
            return self._process(commands, input, timeout, what)

    def _client(self, *args: str) -> list[str]:
        """The argv of a control-mode client with ``args`` (no config file: the server is
        running)."""
        return self._argv(*args, config=False)

    def _process(self, commands: Sequence[Sequence[str]], input: bytes | None, timeout: float,
                 what: str) -> str:
        """The commands as one ``tmux`` process."""
        args: list[str] = []
        for i, command in enumerate(commands):
            if i:
                args.append(";")
            args.extend(escape_arg(a) for a in command)
        try:
            if self.host is not None:
                status, out, err = self.host.call(self._script(*args), input or b"", timeout)
            else:
                argv = self._argv(*args)
                status, out, err = run(argv, input or b"", timeout, argv[0])
        except TimeoutError as exc:
            if isinstance(exc, Unanswered) and self.host is not None:
                raise self.host.silent(f"tmux {what}", timeout, link_up=exc.link_up) from exc
            raise TmuxError(
                f"tmux {what} did not answer within {timeout:g}s (the server may be wedged "
                "or a pane's input is blocked)"
            ) from exc
        except OSError as exc:
            raise _unstartable(exc, what) from exc
        if status != 0:
            said = err.decode("utf-8", "replace")
            if self.host is not None and status in _HOST_FAILED and not any(
                    s in said.lower() for s in (*_NO_SERVER, *_NO_TARGET)):
                raise HostError(self.host.says(said, status))
            raise _classify(said, what)
        return out.decode("utf-8", "replace")

    def cmd(self, *args: str, input: bytes | None = None, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Run one tmux command; see :meth:`chain`."""
        return self.chain(args, input=input, timeout=timeout)

    def display(self, target: str, fmt: str, timeout: float = DEFAULT_TIMEOUT) -> str:
        """Expand a format for a target (``display-message -p``)."""
        return self.cmd("display-message", "-p", "-t", target, fmt, timeout=timeout).rstrip("\n")

    def alive(self) -> bool:
        """Is a server listening on this socket?"""
        try:
            self.cmd("list-sessions", "-F", "#{session_name}", timeout=2.0)
        except NoServer:
            return False
        except TmuxError:
            return True
        return True

    def has_session(self, name: str) -> bool:
        """Does the session exist (exact name match, never a prefix match)?"""
        try:
            self.cmd("has-session", "-t", f"={name}", timeout=2.0)
        except (NoServer, NoTarget):
            return False
        return True
