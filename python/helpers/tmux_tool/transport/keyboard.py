"""Typing into a pane: text as one paste, keys as real key presses.

Text travels on stdin to ``load-buffer`` and reaches the pane with
``paste-buffer``: no 16 KB ``send-keys`` limit, no tmux parsing of ``;``, and
it arrives in one piece, so a human typing at the same time cannot have
keystrokes land in the middle of it.  With ``bracketed`` the paste is wrapped
in bracketed-paste markers when the program asked for them, which stops TUI
hotkeys (Gemini's ``!``, ``/`` palettes) from firing on pasted characters.
Key names go to ``send-keys`` without ``-l`` so ``C-c`` is Ctrl+C and never
the three characters C, -, c.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence

from ..core.args import brief
from ..core.clock import Deadline
from ..core.errors import BadKeys
from ..screen.snapshot import Snapshot
from . import panes
from .protocol import quote
from .tmux import Tmux

_ALIASES = {
    "esc": "Escape", "escape": "Escape", "enter": "Enter", "return": "Enter", "ret": "Enter",
    "tab": "Tab", "btab": "BTab", "backspace": "BSpace", "bspace": "BSpace", "space": "Space",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right", "home": "Home", "end": "End",
    "pageup": "PageUp", "pgup": "PageUp", "ppage": "PageUp", "pagedown": "PageDown",
    "pgdn": "PageDown", "npage": "PageDown", "insert": "Insert", "ic": "Insert",
    "delete": "Delete", "del": "Delete", "dc": "Delete",
}
_MOD = re.compile(r"^((?:[CMS]-)*)(.+)$")
_FKEY = re.compile(r"^[Ff]([1-9]|1[0-9]|20)$")
_CTRL_WORD = re.compile(r"^(?:ctrl|control)[+-](.)$", re.IGNORECASE)

# C0 controls other than tab, newline and carriage return cannot be typed as text.
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")



def key_name(raw: str) -> str:
    """The tmux name for a key the agent wrote (``C-c``, ``ctrl+c``, ``^C``, ``Esc``)."""
    name = raw.strip()
    if not name:
        raise BadKeys("an empty key name was given; use names such as Enter, C-c, Escape, Up, y")
    if m := _CTRL_WORD.match(name):
        name = f"C-{m.group(1).lower()}"
    elif len(name) == 2 and name[0] == "^" and name[1].isalpha():
        name = f"C-{name[1].lower()}"
    m = _MOD.match(name)
    mods, base = (m.group(1), m.group(2)) if m else ("", name)
    if len(base) == 1 and base.isprintable() and base != " ":
        return mods + base
    if _FKEY.match(base):
        return mods + base.upper()
    canonical = _ALIASES.get(base.lower())
    if canonical is None:
        raise BadKeys(
            f"unknown key {brief(raw)}; use Enter, Escape, Tab, BTab, BSpace, Space, Up, Down, "
            "Left, Right, Home, End, PageUp, PageDown, Insert, Delete, F1-F20, a single character, "
            "with C- (Ctrl), M- (Alt) or S- (Shift) in front, e.g. C-c"
        )
    return mods + canonical


def key_names(raw: Sequence[str]) -> list[str]:
    """Validate a list of key names (see :func:`key_name`).

    An item with spaces holds several names (``["Down Enter"]``, or ``--keys 'x Enter'`` on the
    command line): no key name contains a space (the space bar is ``Space``).
    """
    if not raw:
        raise BadKeys("no keys were given; e.g. keys: ['C-c'] or 'Escape : q Enter'")
    return [key_name(word) for item in raw for word in (str(item).split() or [str(item)])]


def check_text(text: str) -> str:
    """Refuse text with control characters (they belong in ``keys``)."""
    if m := _CONTROL.search(text):
        code = ord(m.group())
        label = {0: "NUL", 0x1B: "ESC", 0x7F: "DEL", 0x03: "Ctrl+C", 0x04: "Ctrl+D"}.get(
            code, "a control character"
        )
        raise BadKeys(
            f"the text contains {label} (U+{code:04X}) at position {m.start()}; control keys are "
            "sent with the keys action (e.g. keys: ['C-c']), not inside text"
        )
    return text


def paste(tmux: Tmux, target: str, text: str, *, bracketed: bool, then: Sequence[str] = (),
          first: Sequence[Sequence[str]] = ()) -> None:
    """Paste ``text`` into ``target`` in one piece, then press ``then`` keys; the tmux commands
    ``first`` run before, in the same call.

    One tmux call does it all; the named buffer is unique and deleted by
    the paste itself, so no buffer is left behind.  The paste happens only
    if the pane's process lives, decided inside tmux at that instant: tmux
    3.3a crashes (the whole server) on a paste into a dead pane that
    remain-on-exit keeps.  Keys into a dead pane are dropped by tmux itself.
    """
    buf = f"tt-{os.getpid()}-{os.urandom(4).hex()}"
    steps: list[list[str]] = [list(command) for command in first]
    if text:
        paste = ["paste-buffer", *(["-p"] if bracketed else []), "-d", "-b", buf, "-t", target]
        steps.append(["load-buffer", "-b", buf, "-"])
        steps.append(
            [
                "if-shell",
                "-F",
                "-t",
                target,
                "#{pane_dead}",
                f"delete-buffer -b {quote(buf)}",
                " ".join(quote(a) for a in paste),
            ]
        )
    if then:
        steps.append(["send-keys", "-t", target, *then])
    if steps:
        tmux.chain(*steps, input=text.encode("utf-8", "surrogateescape") if text else None)


PASTE_SHOWN = 3.0  # seconds for pasted text to show in an input box
PASTE_POLL = 0.05  # seconds between looks meanwhile


def await_paste(tmux: Tmux, target: str, before: str, shown: Callable[[Snapshot], bool]) -> None:
    """Wait (bounded) until a paste ``shown`` where input goes, on a screen other than ``before`` (a
    digest), and the screen stopped changing: the key that submits it may be pressed now.

    Full-screen CLIs take a paste in pieces; an Enter that arrives before the
    last piece submits half of it, or becomes a newline inside it (Continue's
    ``cn`` reads a paste and the Enter behind it in one read as two lines).
    """
    last = None
    for _ in Deadline(PASTE_SHOWN).ticks(PASTE_POLL):
        snap = panes.look(tmux, target)[0]
        if snap.digest != before and shown(snap):
            if snap.digest == last:
                return
            last = snap.digest


def press(tmux: Tmux, target: str, keys: Sequence[str]) -> None:
    """Press named keys (already validated) in ``target``."""
    tmux.cmd("send-keys", "-t", target, *keys)
