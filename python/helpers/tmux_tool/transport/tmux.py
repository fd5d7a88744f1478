"""The transport: every conversation with a tmux server goes through here.

Each call is one ``tmux -L SOCKET ...`` process with a hard timeout, so a
wedged server or a pane whose input buffer is full can never hang the caller.
Arguments are passed as a list (no shell), and the one piece of parsing tmux
still does on a list of arguments is neutralised: an argument ending in ``;``
would end the tmux command and turn what follows into a new command, so such
an argument gets the backslash tmux expects (``\\;``).  User text never goes
through arguments anyway; it travels on stdin to ``load-buffer -``.

libtmux is not used on this path because its calls have no timeout and cost a
process each all the same.
"""

from __future__ import annotations

import errno
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

DEFAULT_TIMEOUT = 5.0

_NO_SERVER = ("no server running", "error connecting to", "server exited", "lost server")
# "no current target": what tmux 3.3a answers while a server whose last session
# just ended is shutting down.
_NO_TARGET = ("can't find session", "can't find pane", "can't find window", "session not found",
              "no current target")


class TmuxError(Exception):
    """A tmux command failed; the message is a sentence for the agent."""


class NoServer(TmuxError):
    """The tmux server behind the socket is not running."""


class NoTarget(TmuxError):
    """The session, window or pane named does not exist."""


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
    return TmuxError(f"tmux {what} could not be started ({exc.strerror or exc}); try again in a moment")


def _classify(stderr: str, what: str) -> TmuxError:
    low = stderr.lower()
    if any(s in low for s in _NO_SERVER):
        return NoServer(f"the tmux server is not running ({what})")
    if any(s in low for s in _NO_TARGET):
        return NoTarget(stderr.strip() or f"target not found ({what})")
    return TmuxError(f"tmux {what} failed: {stderr.strip() or 'no message'}")


@dataclass(frozen=True, slots=True)
class Tmux:
    """One tmux server, addressed by its socket name (``tmux -L``)."""

    socket: str
    config_file: str | None = None

    def _argv(self) -> list[str]:
        exe = shutil.which("tmux")
        if exe is None:
            raise TmuxError("tmux is not installed; install tmux 3.3 or newer (apt-get install tmux)")
        argv = [exe, "-L", self.socket]
        if self.config_file:
            argv += ["-f", self.config_file]
        return argv

    def chain(
        self,
        *commands: Sequence[str],
        input: bytes | None = None,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> str:
        """Run several tmux commands in one process (separated by ``;``).

        One process instead of several is what keeps a ``run`` in the low
        milliseconds.  Returns stdout; raises a :class:`TmuxError` subclass.
        """
        argv = self._argv()
        for i, command in enumerate(commands):
            if i:
                argv.append(";")
            argv.extend(escape_arg(a) for a in command)
        what = " ; ".join(c[0] for c in commands if c)
        try:
            proc = subprocess.run(
                argv,
                input=input if input is not None else b"",
                capture_output=True,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired as exc:
            raise TmuxError(
                f"tmux {what} did not answer within {timeout:g}s (the server may be wedged "
                "or a pane's input is blocked)"
            ) from exc
        except OSError as exc:
            raise _unstartable(exc, what) from exc
        if proc.returncode != 0:
            raise _classify(proc.stderr.decode("utf-8", "replace"), what)
        return proc.stdout.decode("utf-8", "replace")

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

    def waiter(self, channel: str) -> Waiter:
        """Start waiting on ``channel`` now; see :class:`Waiter`."""
        return Waiter(self._argv(), channel)

    def wait_for(self, channel: str, timeout: float) -> bool:
        """Block until ``wait-for -S channel`` fires (True) or ``timeout`` passes (False)."""
        w = self.waiter(channel)
        try:
            return w.wait(timeout)
        finally:
            w.close()


class Waiter:
    """A ``tmux wait-for CHANNEL`` client that stays registered across checks.

    tmux remembers a signal sent while nobody waited, so a signal is never
    lost between sending a command and starting to wait.  Keeping one client
    registered for the whole wait (instead of one per slice) also means a
    signal can never arrive in the instant a timed-out client is being ended.
    The client is our own child process and is ended by its PID.
    """

    def __init__(self, argv: list[str], channel: str) -> None:
        self.channel = channel
        try:
            self.proc = subprocess.Popen(
                [*argv, "wait-for", channel],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
        except OSError as exc:
            raise _unstartable(exc, "wait-for") from exc

    def wait(self, timeout: float) -> bool:
        """True once signalled; False if ``timeout`` passed first (still waiting).

        Raises :class:`NoServer` if the server went away meanwhile.
        """
        try:
            self.proc.wait(timeout=max(0.0, timeout))
        except subprocess.TimeoutExpired:
            return False
        err = self.proc.stderr.read() if self.proc.stderr else b""
        if self.proc.returncode != 0:
            raise _classify(err.decode("utf-8", "replace") or "server exited", "wait-for")
        return True

    def close(self) -> None:
        """Stop waiting (ends our own client process if it still runs)."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        if self.proc.stderr:
            self.proc.stderr.close()
