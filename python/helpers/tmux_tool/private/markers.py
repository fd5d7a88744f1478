"""Completion markers of private shells, and how to find them in a pane log.

A private shell prints invisible OSC sequences from its own prompt machinery,
never from the text it was given to run:

* ``PS0`` prints ``S`` (a command was read and is about to run);
* ``PROMPT_COMMAND`` prints ``E;<exit code>;<cwd>`` (the prompt is back);
* the ``EXIT`` trap prints ``X;<exit code>;<cwd>`` (the shell itself ended,
  e.g. ``exit`` or a failure under ``set -e``);
* ``PS2`` prints ``C`` (the shell's parser waits for the rest of a command:
  an unclosed quote, bracket or here-document).

Each carries the session's random nonce.  Because the bytes come from bash's
prompt expansion and not from the typed command, the echo of a command can
never contain them - the flaw of sentinel runners that ``echo`` a marker.
tmux discards unknown OSC sequences when drawing, so a human watching the
pane sees nothing; only the raw log written by ``pipe-pane`` has them.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

OSC_ID = "7771"
_PREFIX = b"\x1b]" + OSC_ID.encode() + b";tt;"
_MARK_MAX = 4200  # a marker holds the working directory: PATH_MAX and then some
_FIRST_CHUNK = 4096
_CHUNK = 1 << 16
_READ = 1 << 20


@dataclass(frozen=True, slots=True)
class Mark:
    """One marker found in the log: its kind, byte span and payload."""

    kind: str  # "S", "E" or "X"
    start: int
    end: int
    exit_code: int | None = None
    cwd: str | None = None


def rcfile() -> str:
    """The bash start-up file of a private shell.

    A private shell is a terminal of the user the tool runs as, started by
    whoever calls the tool: it first takes the caller's environment from the
    file ``TT_ENV`` names (see :func:`environment`), then does what their
    interactive bash does - reads ``/etc/bash.bashrc`` and
    ``~/.bashrc`` (PATH, aliases, an activated virtual environment) - after
    dropping the Python virtual environment of the program that started tmux:
    that is the host's runtime (Agent Zero's ``/opt/venv-a0``), and a ``pip
    install`` typed by the agent must never land in it.  Then come the
    markers, replacing the user's prompt hooks (``PROMPT_COMMAND``, ``PS0``,
    ``PS1``): the prompt of a private shell is the tool's, and a slow hook
    would delay every command.

    Written so a user's ``set -euo pipefail`` cannot break it: variables are
    read with ``${X-}``, every command that may fail is guarded, and the exit
    code is the first thing read.  ``set +H`` stops ``!`` history expansion,
    the pagers are ``cat`` so ``git log`` never waits for a key, and bracketed
    paste makes a pasted multi-line command one unit with one marker pair.

    The marker is all the shell does: no process is started at a prompt.  The
    tool learns that a run ended by watching the log the marker lands in.
    """
    return f"""\
# start-up file of a tmux_tool private shell (generated; do not edit)
if [ -n "${{TT_ENV-}}" ] && [ -r "$TT_ENV" ]; then . "$TT_ENV"; fi
unset TT_ENV
if [ -n "${{VIRTUAL_ENV-}}" ]; then
  __tt_path=":$PATH:"
  __tt_path=${{__tt_path//":$VIRTUAL_ENV/bin:"/:}}
  __tt_path=${{__tt_path#:}}
  PATH=${{__tt_path%:}}
  unset __tt_path
fi
unset VIRTUAL_ENV VIRTUAL_ENV_PROMPT
[ -r /etc/bash.bashrc ] && . /etc/bash.bashrc
[ -r ~/.bashrc ] && . ~/.bashrc
{hooks()}PS1='\\w\\$ '
"""


# Variables that are the pane's, its shell's or the tool's, never the caller's: tmux sets the first
# (the terminal is tmux, and its server is the private one), bash keeps the next, the last are the
# marks'.
_NOT_THE_CALLERS = frozenset({
    "TMUX", "TMUX_PANE", "TERM", "TERM_PROGRAM", "TERM_PROGRAM_VERSION", "COLUMNS", "LINES",
    "PWD", "OLDPWD", "SHLVL", "_", "BASHOPTS", "SHELLOPTS", "BASH_VERSINFO", "EUID", "PPID", "UID",
    "TT_NONCE", "TT_DIR", "TT_ENV",
})
# a caller without them (a reduced MCP environment) gets the shell's
_NEVER_UNSET = frozenset({"PATH", "HOME"})
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def environment(env: Mapping[str, str]) -> str:
    """bash that gives a new shell the environment ``env`` (the caller's), as a subprocess would get
    it.

    tmux starts a pane with its server's environment, which is the first
    caller's, from whenever the server started; so the shell unsets what
    ``env`` lacks and exports what it holds.  Read from a file only the user
    can read, so no value is ever on a command line (``/proc/*/cmdline``).
    """
    names = sorted(k for k in env if _NAME.fullmatch(k) and k not in _NOT_THE_CALLERS)
    keep = "|".join(sorted(_NOT_THE_CALLERS | _NEVER_UNSET | set(names)))
    unset = (f"for __tt_v in $(compgen -e); do case $__tt_v in {keep}) ;; "
             "*) unset -v \"$__tt_v\" 2>/dev/null;; esac; done; unset __tt_v")
    return "\n".join([unset, *(f"export {k}={shlex.quote(env[k])}" for k in names)]) + "\n"


def hooks() -> str:
    """The part of the start-up file that makes the marks: also what puts them back.

    A command may replace the prompt hooks (``source ~/.bashrc``, a prompt
    framework's init, ``exec bash``); the shell then ends that command
    without a mark, and the tool sources this again (:func:`rearm_line`).
    """
    return f"""\
set +H
shopt -s checkwinsize
export PAGER=cat GIT_PAGER=cat MANPAGER=cat SYSTEMD_PAGER= PYTHONUNBUFFERED=1
bind 'set enable-bracketed-paste on' 2>/dev/null
__tt_mark() {{
  local rc=$? kind=${{1:-E}}
  printf '\\033]{OSC_ID};tt;%s;%s;%s;%s\\007' "$kind" "${{TT_NONCE-}}" "$rc" "$PWD"
  return $rc
}}
PROMPT_COMMAND=__tt_mark
trap '__tt_mark X' EXIT
PS0=$'\\033]{OSC_ID};tt;S;'"${{TT_NONCE-}}"$'\\007'
PS2='\\['$'\\033]{OSC_ID};tt;C;'"${{TT_NONCE-}}"$'\\007''\\]> '
"""


def rearm_line(path: str) -> str:
    """The line that puts the marks back in a shell that lost them, keeping the exit code.

    ``$?`` is still the code of the command that replaced the hooks; a shell
    replaced by ``exec bash`` has never had ``__tt_mark``, and its ``$?`` is
    its start-up files', not a command's: its command (the ``exec``) worked.
    The line prints its own start mark, as ``PS0`` may be gone too: it tells
    :class:`Follow` that the run before it had ended unmarked.
    """
    return ("__tt_rc=$?; declare -F __tt_mark >/dev/null || __tt_rc=0; printf "
            f"'\\033]{OSC_ID};tt;S;%s\\007' \"${{TT_NONCE-}}\"; . {shlex.quote(path)}; (exit "
            "$__tt_rc)")


@lru_cache(maxsize=64)
def _pattern(nonce: str) -> re.Pattern[bytes]:
    n = re.escape(nonce.encode())
    return re.compile(
        rb"\x1b\]"
        + OSC_ID.encode()
        + rb";tt;(?:(S);"
        + n
        + rb"|([EX]);"
        + n
        + rb";(\d+);([^\x07]*))\x07"
    )


@lru_cache(maxsize=64)
def _continuation(nonce: str) -> re.Pattern[bytes]:
    return re.compile(
        rb"\x1b\]" + OSC_ID.encode() + rb";tt;C;" + re.escape(nonce.encode()) + rb"\x07"
    )


def _to_mark(m: re.Match[bytes], base: int) -> Mark:
    if m.group(1):
        return Mark("S", base + m.start(), base + m.end())
    return Mark(
        m.group(2).decode(),
        base + m.start(),
        base + m.end(),
        int(m.group(3)),
        m.group(4).decode("utf-8", "replace"),
    )


def scan(data: bytes, nonce: str, base: int = 0) -> list[Mark]:
    """All markers of this shell in ``data`` (offsets shifted by ``base``)."""
    return [_to_mark(m, base) for m in _pattern(nonce).finditer(data)]


def last_mark(log: Path, nonce: str) -> Mark | None:
    """The newest marker in the log, reading backwards in chunks.

    The log may hold megabytes of output after the last marker; reading from
    the end keeps the common case (a marker near the end) to one small read.
    """
    try:
        fd = os.open(log, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        size = os.fstat(fd).st_size
        end = size
        chunk_size = _FIRST_CHUNK
        while end > 0:
            start = max(0, end - chunk_size)
            chunk = os.pread(fd, min(end + _MARK_MAX, size) - start, start)
            last = None
            for last in _pattern(nonce).finditer(chunk):
                pass
            if last is not None:
                return _to_mark(last, start)
            end = start
            chunk_size = _CHUNK
        return None
    finally:
        os.close(fd)


class Follow:
    """One run in a growing log: its output as it arrives, and the marker that ends it.

    Reads only what is new on each call, in bounded chunks, so following a
    command that prints gigabytes costs memory for one chunk.  The output is
    what comes after the run's start marker (``S``); before it are the echo
    of the command line and the prompt.  A marker cut by the end of what was
    written so far is held back until the rest arrives.

    A run that seems to have ended without its end marker gets a line typed
    after it (see :meth:`relaunch`).  Which came first is only known from the
    log: the new line's start marker (the run really ended unmarked), or the
    run's own end marker, which was still on its way from the terminal to
    the log when the shell was seen waiting (then ``trailing`` is set: the
    typed line's markers follow it).
    """

    def __init__(self, log: Path, nonce: str, offset: int) -> None:
        self.log = log
        self.nonce = nonce
        self.pos = offset
        self.started = False
        self.end: Mark | None = None
        self.trailing = False
        self.continued = False  # the shell asked for the rest of the command before it began it
        # output since relaunch, until it is known whose it is
        self._pending: bytearray | None = None
        self._on_unmarked: Callable[[], None] | None = None

    def relaunch(self, on_unmarked: Callable[[], None]) -> None:
        """A line is being typed after the run; ``on_unmarked`` is called if its start marker comes
        first."""
        self._pending, self._on_unmarked = bytearray(), on_unmarked

    def read(self, on_output: Callable[[bytes], None]) -> Mark | None:
        """Hand new output bytes to ``on_output``; the end marker once it is there."""
        if self.end is not None:
            return self.end
        try:
            fd = os.open(self.log, os.O_RDONLY)
        except FileNotFoundError:
            return None
        try:
            while self.end is None:
                chunk = os.pread(fd, _READ, self.pos)
                if not chunk or not self._take(chunk, on_output):
                    break
        finally:
            os.close(fd)
        return self.end

    def _emit(self, data: bytes, on_output: Callable[[bytes], None]) -> None:
        if self._pending is not None:
            self._pending += data
        elif data:
            on_output(data)

    def _take(self, chunk: bytes, on_output: Callable[[bytes], None]) -> bool:
        """Process one chunk; False when the rest of it must wait for more bytes."""
        usable = len(chunk)
        cut = chunk.rfind(b"\x1b", max(0, usable - _MARK_MAX))
        if cut >= 0 and b"\x07" not in chunk[cut:]:
            tail = chunk[cut:cut + len(_PREFIX)]
            if _PREFIX.startswith(tail):
                usable = cut  # a marker (or the start of one) still being written
        body_from = 0
        if _PREFIX in chunk:
            for m in _pattern(self.nonce).finditer(chunk, 0, usable):
                mark = _to_mark(m, self.pos)
                if mark.kind == "S" and self._pending is not None:
                    # the prompt and the typed line: not output
                    self._pending, body_from = None, m.end()
                    if self._on_unmarked is not None:
                        self._on_unmarked()
                elif mark.kind == "S" and not self.started:
                    self.started, body_from = True, m.end()
                elif mark.kind in "EX":
                    if self.started:
                        self._emit(chunk[body_from:m.start()], on_output)
                    if self._pending is not None:
                        # the run's own end came first: all of it was output
                        on_output(bytes(self._pending))
                        self._pending, self.trailing = None, True
                    self.end, self.pos = mark, mark.end
                    return True
        if self.started and usable > body_from:
            self._emit(chunk[body_from:usable], on_output)
        elif (
            not self.started
            and _PREFIX in chunk
            and _continuation(self.nonce).search(chunk, 0, usable)
        ):
            self.continued = True
        self.pos += usable
        return usable == len(chunk) and usable > 0
