"""Completion markers of private shells, and how to find them in a pane log.

A private shell prints invisible OSC sequences from its own prompt machinery,
never from the text it was given to run:

* ``PS0`` prints ``S`` (a command was read and is about to run);
* ``PROMPT_COMMAND`` prints ``E;<exit code>;<cwd>`` (the prompt is back);
* the ``EXIT`` trap prints ``X;<exit code>;<cwd>`` (the shell itself ended,
  e.g. ``exit`` or a failure under ``set -e``).

Each carries the session's random nonce.  Because the bytes come from bash's
prompt expansion and not from the typed command, the echo of a command can
never contain them - the flaw of sentinel runners that ``echo`` a marker.
tmux discards unknown OSC sequences when drawing, so a human watching the
pane sees nothing; only the raw log written by ``pipe-pane`` has them.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

OSC_ID = "7771"
_CHUNK = 1 << 16


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

    Written so a user's ``set -euo pipefail`` cannot break it: variables are
    read with ``${X-}``, every command that may fail is guarded, and the exit
    code is the first thing read.  ``set +H`` stops ``!`` history expansion,
    the pagers are ``cat`` so ``git log`` never waits for a key, and bracketed
    paste makes a pasted multi-line command one unit with one marker pair.

    The ``wait-for`` channel to signal is read (by a builtin, no fork) from
    the session's ``channel`` file, which the tool points at a fresh channel
    for every command.  tmux keeps one pending signal per channel but drops it
    on a second unheard one, so a channel reused across commands could lose a
    completion; a channel per command cannot.
    """
    return f"""\
# start-up file of a tmux_tool private shell (generated; do not edit)
set +H
shopt -s checkwinsize
export PAGER=cat GIT_PAGER=cat MANPAGER=cat SYSTEMD_PAGER= PYTHONUNBUFFERED=1
bind 'set enable-bracketed-paste on' 2>/dev/null
__tt_mark() {{
  local rc=$? kind=${{1:-E}} ch=
  printf '\\033]{OSC_ID};tt;%s;%s;%s;%s\\007' "$kind" "${{TT_NONCE-}}" "$rc" "$PWD"
  read -r ch < "${{TT_DIR-/nonexistent}}/channel" 2>/dev/null || ch=
  [ -n "$ch" ] && command tmux wait-for -S "$ch" 2>/dev/null
  return $rc
}}
PROMPT_COMMAND=__tt_mark
trap '__tt_mark X' EXIT
PS0=$'\\033]{OSC_ID};tt;S;'"${{TT_NONCE-}}"$'\\007'
PS1='\\w\\$ '
PS2='> '
"""


def _pattern(nonce: str) -> re.Pattern[bytes]:
    n = re.escape(nonce.encode())
    return re.compile(
        rb"\x1b\]" + OSC_ID.encode() + rb";tt;(?:(S);" + n + rb"|([EX]);" + n + rb";(\d+);([^\x07]*))\x07"
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
        overlap = 256
        while end > 0:
            start = max(0, end - _CHUNK)
            chunk = os.pread(fd, min(end + overlap, size) - start, start)
            found = scan(chunk, nonce, start)
            if found:
                return found[-1]
            end = start
        return None
    finally:
        os.close(fd)


def read_from(log: Path, offset: int, limit: int | None = None) -> bytes:
    """Bytes of the log from ``offset`` (at most ``limit`` of them)."""
    try:
        with open(log, "rb") as fh:
            fh.seek(offset)
            return fh.read() if limit is None else fh.read(limit)
    except FileNotFoundError:
        return b""


def strip_marks(data: bytes, nonce: str) -> bytes:
    """Remove every marker of this shell from ``data``."""
    return _pattern(nonce).sub(b"", data)
