"""Reading what a tmux control-mode client (``tmux -C``) writes.

Both kinds of control client the tool holds, the command connection
(:mod:`.connection`) and the watch clients (:mod:`.watcher`), read the same
stream, so it is parsed here once.

Facts about tmux 3.3a this rests on (checked by the transport tests):

* the stream is lines; a command's answer is a block: ``%begin TIME NUMBER
  FLAGS``, its output lines, then ``%end`` (success) or ``%error`` (failure)
  with the same three numbers; notifications (``%output``, ``%exit``, ...)
  never come inside a block;
* ``FLAGS`` is ``1`` for a command the client itself wrote and ``0`` for
  anything else answered on that client (the attach, a command a hook ran);
* each command of a line gets its own block, in order, and a failed command
  drops the rest of its line.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import NamedTuple


class Block(NamedTuple):
    """A finished reply block: did the command succeed, its output lines, did this client write
    it."""

    ok: bool
    lines: list[bytes]
    ours: bool

    def text(self) -> bytes:
        """The output as bytes, every line ending in a newline (tmux drops a final one)."""
        return b"".join(line + b"\n" for line in self.lines)


class Notice(NamedTuple):
    """A notification outside any block: its word (``%output``), the rest of the line, and the
    line's length."""

    word: bytes
    rest: bytes
    size: int


class Stream:
    """Splits a control client's output into :class:`Block` and :class:`Notice` items.

    Feed it bytes as they arrive (any split, even inside a line); it keeps
    the unfinished tail until the rest comes.
    """

    __slots__ = ("_block", "_key", "_tail")

    def __init__(self) -> None:
        self._tail = b""
        self._block: list[bytes] | None = None
        self._key = b""

    def feed(self, data: bytes) -> Iterator[Block | Notice]:
        """The items completed by ``data``, in order.

        >>> s = Stream()
        >>> list(s.feed(b"%begin 1 2 1\\nhi\\n%en"))
        []
        >>> list(s.feed(b"d 1 2 1\\n%exit\\n"))
        [Block(ok=True, lines=[b'hi'], ours=True), Notice(word=b'%exit', rest=b'', size=5)]
        """
        lines = (self._tail + data).split(b"\n")
        self._tail = lines.pop()
        for line in lines:
            if self._block is not None:
                if line.startswith((b"%end ", b"%error ")) and line.split(b" ", 1)[1] == self._key:
                    yield Block(line.startswith(b"%end "), self._block, self._key.endswith(b" 1"))
                    self._block = None
                else:
                    self._block.append(line)
                continue
            word, _, rest = line.partition(b" ")
            if word == b"%begin":
                self._block, self._key = [], rest
            else:
                yield Notice(word, rest, len(line))


def client_env() -> dict[str, str]:
    """The environment for a control client: ours, minus what would make tmux think it runs inside a
    pane."""
    return {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}


def quote(arg: str) -> str:
    """One argument in tmux's command language, exactly as given.

    Single quotes keep ``$``, ``~``, ``#``, ``;`` and braces literal; a quote
    is closed, escaped and reopened; a newline (which would end the command
    line) becomes the ``\\n`` escape between quoted parts.
    """
    parts = ["'" + p.replace("'", "'\\''") + "'" for p in arg.split("\n")]
    return "\\n".join(parts)


def command_line(commands: Sequence[Sequence[str]]) -> bytes:
    """Several commands as one control-mode line (each is answered in its own block).

    Raises :class:`UnicodeEncodeError` for text that is not valid UTF-8
    (tmux's parser refuses such a line).
    """
    line = " ; ".join(" ".join(quote(a) for a in command) for command in commands)
    return line.encode("utf-8") + b"\n"
