"""Cheap cleaning of terminal output: no emulator where none is needed.

``plain_text`` is the fast path for the common case, output that never moves
the cursor: lines of text, colours (SGR) and strings a terminal does not
draw (titles, hyperlink targets).  Such output shows exactly its text, so it
is stripped, never emulated, in a few C-speed passes.  Anything else (a
``\\r`` progress bar, cursor motion, the alternate screen) gets ``None`` and
goes to the emulator, or, when too big for it, to ``quick_clean``.

``quick_clean`` is for saving a whole command's output to a file: megabytes of
build logs or download progress.  Feeding that through a terminal emulator
costs seconds; a handful of regular expressions costs milliseconds and gets
the common cases right: colours and titles disappear, a ``\\r`` progress bar
keeps only what it finally showed, and nothing that could drive a terminal
(ESC, BEL, other C0/C1 controls) survives.  What it cannot do is follow
cursor motion between lines; use the emulator for screens.

Sequence boundaries follow tmux 3.3a's parser, so the same bytes are swallowed
here as in the pane: an OSC string ends at BEL, ESC, CAN or SUB; a DCS string
only at ``ESC \\``; SOS/PM/APC and screen's ``ESC k`` title at ESC, CAN or SUB.
"""

from __future__ import annotations

import re

# Every escape sequence, complete or cut off at the end of the text.
ESCAPE_RE = re.compile(
    r"\x1b\[[^\x00-\x1f\x40-\x7e]*[\x40-\x7e]?"  # CSI
    r"|\x1b\][^\x07\x18\x1a\x1b]*(?:\x07|\x1b\\)?"  # OSC, incl. OSC 8 links
    r"|\x1bP[^\x1b]*(?:\x1b(?!\\)[^\x1b]*)*(?:\x1b\\)?"  # DCS
    r"|\x1b[X^_k][^\x18\x1a\x1b]*(?:\x1b\\)?"  # SOS, PM, APC, screen title
    r"|\x1b[\x20-\x2f]*[\x30-\x7e]?"  # two-byte ESC (and ESC ( B ...)
)
# Controls nobody should receive: C0 except \t and \n, DEL, C1.
CONTROL_RE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
ANY_CONTROL_RE = re.compile(r"[\x00-\x1f\x7f-\x9f]")

# Erase-in-line sequences matter to ``\r`` progress bars, so they are turned
# into private control characters (FS, GS, RS) before the other escapes go.
_EL_CODES = (("\x1b[K", "\x1c"), ("\x1b[0K", "\x1c"), ("\x1b[1K", "\x1d"),
             ("\x1b[2K", "\x1e"))
_OVERWRITE_RE = re.compile(r"[\r\x08\x1c\x1d\x1e]")
_NEEDS_OVERWRITE_RE = re.compile(r"^[^\n\r\x08\x1c-\x1e]*[\r\x08\x1c-\x1e][^\n]*", re.MULTILINE)


def _overwrite(line: str) -> str:
    """Replay ``\\r``, backspace and erase-in-line on one line of text."""
    buf = ""
    col = 0
    pos = 0
    for match in _OVERWRITE_RE.finditer(line):
        piece = line[pos:match.start()]
        pos = match.end()
        if piece:
            if col > len(buf):
                buf += " " * (col - len(buf))
            buf = buf[:col] + piece + buf[col + len(piece):]
            col += len(piece)
        op = match.group()
        if op == "\r":
            col = 0
        elif op == "\x08":
            col = max(0, col - 1)
        elif op == "\x1c":
            buf = buf[:col]
        elif op == "\x1d":
            buf = " " * min(col + 1, len(buf)) + buf[col + 1:]
        else:
            buf = ""
    piece = line[pos:]
    if piece:
        if col > len(buf):
            buf += " " * (col - len(buf))
        buf = buf[:col] + piece + buf[col + len(piece):]
    return buf


# Sequences that draw nothing and move nothing once the text around them is
# kept: SGR, erase-right after the text (nothing is to the right yet), ESC ( B
# (tput's reset to ASCII), and OSC strings (titles, hyperlink targets, our markers).
_INERT_RE = re.compile(r"\x1b(?:\[(?:[0-9;:]*m|0?K)|\(B|\][^\x07\x18\x1a\x1b]*(?:\x07|\x1b\\))")
# Every byte that is not a control character, for ``bytes.translate`` to delete.
_NOT_CONTROL = bytes(range(0x20, 0x7F)) + bytes(range(0x80, 0x100))
_C1_RE = re.compile(r"[\x80-\x9f]")


def plain_text(data: bytes) -> str | None:
    """The text of output that needs no terminal emulation, or None if it does.

    Allowed besides text: newlines, tabs, ``\\r\\n`` line ends, the bell and
    the inert sequences above.  The sequences and the bell are dropped and
    ``\\r\\n`` becomes ``\\n``; blanks and tabs stay where the program wrote
    them, at the end of a line too (a terminal draws them as nothing, but
    they are bytes of the output, and a diff or a Makefile may need them).
    Bytes are decoded as UTF-8 with U+FFFD for invalid input, and C1 control
    characters are removed, so the result holds no control but ``\\n`` and
    ``\\t``.  Cost: a handful of passes at C speed; nothing is emulated.
    """
    controls = data.translate(None, _NOT_CONTROL)
    if controls.translate(None, b"\n\t\r\x1b\x07"):
        return None  # backspace, shift-out and the like act on the screen
    text = data.decode("utf-8", "replace")
    if b"\x1b" in controls:
        text = _INERT_RE.sub("", text)
        if "\x1b" in text:
            return None
    if b"\x07" in controls:
        text = text.replace("\x07", "")
    if b"\r" in controls:
        text = text.replace("\r\n", "\n")
        if "\r" in text:
            return None  # a carriage return that overwrites
    if not text.isascii():
        text = _C1_RE.sub("", text)
    return text


# What ``quick_clean`` replays exactly: all but vertical motion.  Besides the inert sequences: erase
# in line, and modes that change no text (cursor shown or hidden, bracketed paste, keypad,
# blinking).
_LINE_LOCAL_RE = re.compile(r"\x1b(?:\[[012]?K|\[\?(?:25|2004|1|12)[hl]|[=>])")


def line_local(data: bytes) -> bool:
    """Does ``data`` move the cursor only within its lines (``\\r``, backspace, erase in line)?

    Then :func:`quick_clean` shows what a terminal shows - and keeps a line
    longer than the screen whole, where a terminal (and the emulator) breaks
    it at the screen's edge.  Anything that moves between lines (cursor up,
    positioning, scroll regions, the alternate screen) needs the emulator.

    >>> line_local(b"\\rfetching  10%\\rfetching 100%\\x1b[K\\n")
    True
    >>> line_local(b"step 1\\n\\x1b[1Astep 2\\n")
    False
    """
    controls = data.translate(None, _NOT_CONTROL)
    if controls.translate(None, b"\n\t\r\x08\x07\x1b"):
        return False
    if b"\x1b" not in controls:
        return True
    text = _LINE_LOCAL_RE.sub("", _INERT_RE.sub("", data.decode("utf-8", "replace")))
    return "\x1b" not in text


def quick_clean(data: bytes | str) -> str:
    """Plain text of raw terminal output, in time linear in its size.

    Escape sequences are dropped (a hyperlink keeps its text), ``\\r`` and
    backspace overwrite within their line as a terminal would, and every
    control character except ``\\n`` and ``\\t`` is removed.  Bytes are decoded
    as UTF-8 with U+FFFD for invalid input.  A line the terminal rewrote is
    given as drawn, without the blanks its end holds (a screen cannot tell
    them from empty cells); every other line keeps its bytes, blanks included.
    """
    text = data.decode("utf-8", "replace") if isinstance(data, bytes) else data
    if "\x1b" in text:
        text = text.translate({0x1C: None, 0x1D: None, 0x1E: None})
        for sequence, code in _EL_CODES:
            text = text.replace(sequence, code)
        text = ESCAPE_RE.sub("", text)
    text = text.replace("\r\n", "\n")
    text = _NEEDS_OVERWRITE_RE.sub(lambda m: _overwrite(m.group()).rstrip(" "), text)
    return CONTROL_RE.sub("", text)
