"""Whether the human is active in a pane: their keys, and screen changes the agent did not cause.

The agent types only into a quiet terminal.  tmux knows when the human last
pressed a key (each client's activity, whole seconds); what changed on the
screen, and when, the tool remembers itself per pane (``seen.json``), since
only a change it did not cause means someone else is at work there.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from ..core.config import Config, private_path, write_private
from . import guard
from .look import Look, key_time

QUIET = 0.5  # a screen change we did not cause must be this old before we type
KEY_GAP = 1.0  # no human key (tmux's whole seconds) for this long
# tmux tells a pane's program its new size at most a quarter second after the one before; a size
# that stays untold longer is no resize under way (``stty cols`` set one of its own).
RESIZE_WAIT = 1.0
SEEN_PANES = 16  # panes whose last screen is remembered


def _seen_file(cfg: Config) -> Path:
    return private_path(cfg.shared_dir) / "seen.json"


def note_screen(cfg: Config, pane: str, digest: str, *, ours: bool = False) -> float:
    """Remember when this screen of ``pane`` first appeared; return how long it has been up.

    A screen our own action produced counts as old at once: only changes we
    did not cause make us wait for quiet.  Each pane has its own memory, so
    turning to another pane is no change.
    """
    path = _seen_file(cfg)
    now = time.time()
    try:
        book = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        book = {}
    book = book if isinstance(book, dict) else {}
    mine = book.get(pane)
    seen: dict[str, Any] = mine if isinstance(mine, dict) else {}
    if ours:
        seen = {"digest": digest, "since": 0.0}
    elif seen.get("digest") != digest:
        seen = {"digest": digest, "since": now}
    else:
        return now - float(seen.get("since", now))
    book = {k: v for k, v in book.items() if k != pane and isinstance(v, dict)}
    book = {**dict(list(book.items())[-(SEEN_PANES - 1):]), pane: seen}
    tmp = path.with_suffix(".tmp")
    write_private(tmp, json.dumps(book))
    tmp.replace(path)
    return now - float(seen["since"])


def last_injection(dir_: Path) -> float:
    """When the agent last typed into the shared session (the audit trail is written with every
    injection)."""
    try:
        return (dir_ / "audit.log").stat().st_mtime
    except FileNotFoundError:
        return 0.0


def human_quiet(cfg: Config, lk: Look, force: bool) -> guard.Leave:
    """Hold back while the human is active: a key in the last moments, a screen change we did not
    cause."""
    still_for = note_screen(cfg, lk.facts.pane_id, lk.snap.digest)
    if force:
        return guard.GO
    key = key_time(lk.facts)
    # The human's keys go to the active pane of the window they look at; another pane gets none of
    # them.
    if lk.facts.focused and time.time() - key < KEY_GAP:
        return guard.Leave(False, "the human pressed a key in the last moments")
    no_key_since_ours = lk.sent.at > 0 and key < int(lk.sent.at)
    if still_for < QUIET and not no_key_since_ours:
        return guard.Leave(False, "the screen changed a moment ago and we did not cause it")
    return guard.GO


def size_untold(lk: Look) -> bool:
    """tmux drew the pane at a size its program has not been told yet: the window is being resized.

    tmux redraws a resized pane at once but passes the size on to the
    terminal (and so to the shell) only a quarter second after the size
    before it.  A line typed meanwhile is drawn by the shell for the old
    width and drawn again when the new one arrives; the first drawing's
    leftovers stay on the human's screen and in the rows the output is cut
    from.
    """
    told = lk.term.size
    return told is not None and told != (lk.facts.width, lk.facts.height)
