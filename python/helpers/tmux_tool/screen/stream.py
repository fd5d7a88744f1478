"""Parse raw terminal output and drive a :class:`~.emulator.TmuxScreen`.

pyte's own ``Stream`` is not used because its parser turns unknown sequences
into visible garbage: DCS/APC/PM strings (``ESC P ... ESC \\``) are drawn as
text, a CSI with an intermediate or a ``<``/``=`` prefix (``CSI ! p``,
``CSI < u``, ``CSI > 4;1 m``) dispatches its first odd byte and draws the rest,
and ``CSI > 4;1 m`` (modifyOtherKeys, sent by vim) is taken as SGR.  This
parser follows tmux 3.3a's state machine instead, one regular expression per
token, so whole text runs are drawn at once:

* CSI is ``ESC [``, at most one private prefix (``< = > ?``), parameters,
  intermediates, a final byte; C0 controls inside it still act; a malformed
  one is ignored as a whole;
* OSC ends at BEL, ESC, CAN or SUB; DCS only at ``ESC \\``; SOS, PM, APC and
  screen's ``ESC k`` title at ESC, CAN or SUB.  Their content is dropped:
  titles, OSC 8 link targets (the link text is ordinary output), clipboard;
* queries (DA, DSR, XTVERSION, DECRQM) are parsed and ignored: nothing is ever
  written back, so recording a pane can never type into it;
* invalid UTF-8 is dropped, as tmux drops it.

Sequences cut by a chunk boundary wait for the next ``feed``; an unterminated
string is skipped in constant memory.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable

from .emulator import TmuxScreen

_TOKEN = re.compile(
    r"(?P<text>[^\x00-\x1f\x7f-\x9f]+)"
    r"|\x1b\[(?P<csi>[^\x18\x1a\x1b\x40-\x7e]*)(?P<final>[\x40-\x7e])"
    r"|(?P<string>\x1b[\]PX^_k])"
    r"|\x1b(?P<esc>[\x20-\x2f]+[\x30-\x7e]|[\x30-\x4f\x51-\x57\x59\x5a\x5c\x60-\x6a\x6c-\x7e])"
    r"|(?P<ctl>[\x00-\x1a\x1c-\x1f\x7f-\x9f])"
)
_CSI_BODY = re.compile(r"([\x3c-\x3f]?)([\x30-\x3b]*)([\x20-\x2f]*)")
_CSI_OPEN = re.compile(r"\x1b\[[^\x18\x1a\x1b\x40-\x7e]*")
_INCOMPLETE_ESC = re.compile(r"\x1b[\x20-\x2f]*\Z")
_C0 = re.compile(r"[\x00-\x1f]")
_OSC_END = re.compile(r"[\x07\x18\x1a\x1b]")
_STRING_END = re.compile(r"[\x18\x1a\x1b]")
_MAX_PENDING = 4096

Handler = Callable[[TmuxScreen, list[int]], None]


def _arg(args: list[int], i: int, default: int = 1) -> int:
    """Parameter ``i`` with tmux's defaulting: missing or 0 becomes ``default``."""
    value = args[i] if i < len(args) else -1
    return value if value > 0 else default


def _modes(on: bool, private: bool) -> Handler:
    def handler(screen: TmuxScreen, args: list[int]) -> None:
        for mode in args:
            if private:
                screen.set_private_mode(mode, on)
            elif mode == 4:
                screen.set_insert_mode(on)
    return handler


def _erase(method: str) -> Handler:
    def handler(screen: TmuxScreen, args: list[int]) -> None:
        how = args[0] if args and args[0] >= 0 else 0
        getattr(screen, method)(how)
    return handler


def _move(method: str) -> Handler:
    def handler(screen: TmuxScreen, args: list[int]) -> None:
        getattr(screen, method)(_arg(args, 0))
    return handler


def _clear_tab(screen: TmuxScreen, args: list[int]) -> None:
    how = args[0] if args and args[0] >= 0 else 0
    if how in (0, 3):
        screen.clear_tab_stop(how)


def _margins(screen: TmuxScreen, args: list[int]) -> None:
    top = args[0] if args and args[0] >= 0 else None
    bottom = args[1] if len(args) > 1 and args[1] >= 0 else None
    screen.set_margins(top, bottom)


_CSI: dict[tuple[str, str], Handler] = {
    ("@", ""): _move("insert_characters"),
    ("A", ""): _move("cursor_up"),
    ("B", ""): _move("cursor_down"),
    ("C", ""): _move("cursor_forward"),
    ("D", ""): _move("cursor_back"),
    ("E", ""): _move("cursor_down1"),
    ("F", ""): _move("cursor_up1"),
    ("G", ""): _move("cursor_to_column"),
    ("`", ""): _move("cursor_to_column"),
    ("H", ""): lambda s, a: s.cursor_position(_arg(a, 0), _arg(a, 1)),
    ("f", ""): lambda s, a: s.cursor_position(_arg(a, 0), _arg(a, 1)),
    ("J", ""): _erase("erase_in_display"),
    ("K", ""): _erase("erase_in_line"),
    ("L", ""): _move("insert_lines"),
    ("M", ""): _move("delete_lines"),
    ("P", ""): _move("delete_characters"),
    ("S", ""): _move("scroll_up"),
    ("T", ""): _move("scroll_down"),
    ("X", ""): _move("erase_characters"),
    ("Z", ""): _move("back_tab"),
    ("b", ""): _move("repeat"),
    ("d", ""): _move("cursor_to_line"),
    ("g", ""): _clear_tab,
    ("h", ""): _modes(True, private=False),
    ("l", ""): _modes(False, private=False),
    ("h", "?"): _modes(True, private=True),
    ("l", "?"): _modes(False, private=True),
    ("r", ""): _margins,
    ("s", ""): lambda s, a: s.save_cursor(),
    ("u", ""): lambda s, a: s.restore_cursor(),
}

_ESC: dict[str, Callable[[TmuxScreen], None]] = {
    "7": TmuxScreen.save_cursor,
    "8": TmuxScreen.restore_cursor,
    "#8": TmuxScreen.alignment_display,
    "D": TmuxScreen.index,
    "E": TmuxScreen.next_line,
    "H": TmuxScreen.set_tab_stop,
    "M": TmuxScreen.reverse_index,
    "c": TmuxScreen.full_reset,
}

_C0_ACTIONS: dict[str, Callable[[TmuxScreen], None]] = {
    "\b": TmuxScreen.cursor_back,
    "\t": TmuxScreen.tab,
    "\n": TmuxScreen.index,
    "\x0b": TmuxScreen.index,
    "\x0c": TmuxScreen.index,
    "\r": TmuxScreen.carriage_return,
    "\x0e": TmuxScreen.shift_out,
    "\x0f": TmuxScreen.shift_in,
}


def _params(text: str) -> list[int]:
    """CSI parameters; a colon sub-parameter makes the value unusable (-1)."""
    if not text:
        return []
    values = []
    for part in text.split(";"):
        if not part:
            values.append(0)
        elif part.isdigit():
            values.append(int(part) if len(part) < 6 else 99999)
        else:
            values.append(-1)
    return values


class TerminalStream:
    """Feed raw pane output (bytes or text) into a :class:`TmuxScreen`."""

    def __init__(self, screen: TmuxScreen) -> None:
        self.screen = screen
        self._decoder = codecs.getincrementaldecoder("utf-8")("ignore")
        self._pending = ""
        self._string: re.Pattern[str] | None = None  # inside OSC/APC/...
        self._in_dcs = False

    def feed(self, data: bytes) -> None:
        """Interpret a chunk of bytes; chunks may split any sequence."""
        self.feed_text(self._decoder.decode(data))

    def feed_text(self, text: str) -> None:
        """Interpret a chunk of already decoded text."""
        if self._pending:
            text = self._pending + text
            self._pending = ""
        screen = self.screen
        pos = self._skip_string(text, 0)
        end = len(text)
        while pos < end:
            m = _TOKEN.match(text, pos)
            if m is None:
                pos = self._broken(text, pos)
                continue
            pos = m.end()
            kind = m.lastgroup
            if kind == "text":
                screen.draw(m.group("text"))
                continue
            if kind == "final":
                self._csi(m.group("csi"), m.group("final"))
            elif kind == "ctl":
                action = _C0_ACTIONS.get(m.group("ctl"))
                if action is not None:
                    action(screen)
            elif kind == "esc":
                self._esc(m.group("esc"))
            else:
                opener = m.group("string")[1]
                self._in_dcs = opener == "P"
                self._string = _OSC_END if opener == "]" else _STRING_END
                pos = self._skip_string(text, pos)
            screen.last_ascii = None

    def _broken(self, text: str, pos: int) -> int:
        """An ESC that starts no complete token: keep it for later or drop it."""
        rest = len(text) - pos
        csi = _CSI_OPEN.match(text, pos)
        if csi is not None:
            if csi.end() == len(text):
                if rest <= _MAX_PENDING:
                    self._pending = text[pos:]
                return len(text)
            # Cut short by ESC/CAN/SUB: its controls still act, the rest is lost.
            for ch in _C0.findall(csi.group()[2:]):
                action = _C0_ACTIONS.get(ch)
                if action is not None:
                    action(self.screen)
            return csi.end()
        if _INCOMPLETE_ESC.match(text, pos):
            self._pending = text[pos:]
            return len(text)
        return pos + 1

    def _skip_string(self, text: str, pos: int) -> int:
        """Skip the body of an OSC/DCS/APC/PM/SOS string; return where it ends."""
        if self._in_dcs:
            found = text.find("\x1b\\", pos)
            if found < 0:
                if text.endswith("\x1b"):
                    self._pending = "\x1b"
                return len(text)
            self._in_dcs = False
            self._string = None
            return found + 2
        if self._string is None:
            return pos
        m = self._string.search(text, pos)
        if m is None:
            return len(text)
        self._string = None
        return m.end() if m.group() == "\x07" else m.start()

    def _csi(self, body: str, final: str) -> None:
        if not body.isascii() or _C0.search(body):
            for ch in _C0.findall(body):
                action = _C0_ACTIONS.get(ch)
                if action is not None:
                    action(self.screen)
            body = "".join(ch for ch in body if "\x20" <= ch < "\x7f")
        parts = _CSI_BODY.fullmatch(body)
        if parts is None:
            return
        prefix, params, intermediates = parts.groups()
        if final == "m" and not prefix and not intermediates:
            self.screen.set_style(params)
            return
        handler = _CSI.get((final, prefix + intermediates))
        if handler is not None:
            handler(self.screen, _params(params))

    def _esc(self, seq: str) -> None:
        if len(seq) == 2 and seq[0] in "()":
            self.screen.designate(seq[0], seq[1])
            return
        action = _ESC.get(seq)
        if action is not None:
            action(self.screen)
