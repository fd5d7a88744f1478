"""Session names: what the agent may ask for, and safe generated ones.

tmux reads ``.`` and ``:`` in a target as window/pane separators, ``$``/``%``/
``@`` as id prefixes and ``=`` as an exact-match prefix, and a leading ``-``
as an option; any of them in a name makes a command hit the wrong target or
none.  So names are restricted to a small alphabet, checked before any tmux
call, and generated names carry a random part, drawn again when it repeats a name.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable

from .errors import BadName

MAX_LEN = 64
_VALID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_-]{0,63}")


def check(name: object) -> str:
    """Return ``name`` if it is a usable session name, else raise :class:`BadName`."""
    if not isinstance(name, str) or not name:
        raise BadName("session name is empty; use letters, digits, '_' and '-', e.g. 'build'")
    shown = name if len(name) <= 40 else name[:40] + "…"
    if len(name) > MAX_LEN:
        raise BadName(
            f"session name {shown!r} is {len(name)} characters long; the limit is {MAX_LEN}"
        )
    if name.startswith("-"):
        raise BadName(f"session name {shown!r} starts with '-', which tmux would read as an option")
    bad = sorted({c for c in name if not (c.isascii() and (c.isalnum() or c in "_-"))})
    if bad:
        listed = " ".join(repr(c) for c in bad[:8])
        raise BadName(
            f"session name {shown!r} contains {listed}; tmux reads '.', ':', '$', '%' and others "
            "as target syntax, so use only letters, digits, '_' and '-'"
        )
    if not _VALID.fullmatch(name):
        raise BadName(f"session name {shown!r} is not usable; use letters, digits, '_' and '-'")
    return name


def generate(prefix: str, taken: Callable[[str], bool] = lambda _name: False) -> str:
    """A fresh name such as ``claude-3f9a1c``, safe by construction.

    Six random hex digits keep it short for the human, and can repeat
    (one in 16.7 million, so among a few thousand names it happens): a name
    this process gave before, or one ``taken`` says is in use, is drawn again.
    """
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", prefix).strip("-")[:40] or "session"
    while True:
        name = f"{stem}-{os.urandom(3).hex()}"
        if name not in _given and not taken(name):
            _given.add(name)
            return name


_given: set[str] = set()  # the names this process generated
