"""Pagers - less, more, man, and git's history through less - wait for a key.

DESIGN counts a pager as ``blocked``: the shell is unusable until it is
dismissed, and every key means something to it (a command sent now would be
read as pager commands).  A pager's own line is the cursor row (the last
screen row, or just below a short file's text): ``:``, ``(END)``, ``--More--``,
man's `` Manual page ls(1) line 1 (press h for help or q to quit)``, less's
``HELP -- Press RETURN ...`` and ``... (press RETURN)`` messages, and
``lines 1-23/300`` of ``less -M``, and a search being typed (``/word``) on
the last row.  The first page of a file shows the file
name there instead - indistinguishable from text - so when the pager is known
to be in the foreground it is blocked whatever that row says.

One exception is ``less +F`` (follow mode): "Waiting for data... (interrupt
to abort)" is a program watching a file grow, so it is ``busy``.

git runs ``less`` with ``LESS=FRX``: no alternate screen, and tmux names
``git`` as the foreground program.  Output that fits one screen never reaches
the pager at all.  When git is in the foreground without a pager line, it is
working (a fetch, a rebase), hence busy; man likewise is formatting its page.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.status import Status
from ..screen.snapshot import Snapshot
from .base import Profile, Step, Verdict, bottom_row, cursor_line, quote

PAGER_LINE = re.compile(
    r"^:$"
    r"|\(END\)"
    r"|^--More--"
    r"|^ ?Manual page .+ line \d+"
    r"|\(press RETURN\)$"
    r"|^HELP -- Press RETURN"
    r"|^lines \d+-\d+"
)
SEARCH = re.compile(r"^[/?]")
FOLLOW = re.compile(r"^Waiting for data\.\.\. \(interrupt to abort\)$")
QUESTION = "pager waiting for a key"
OPTIONS = ("q", "Space", "G", "/")


@dataclass(frozen=True)
class PagerProfile(Profile):
    """A pager, or a program whose long output goes through one."""

    busy_when_silent: bool = False

    def classify(self, snap: Snapshot) -> Verdict | None:
        cl = cursor_line(snap)
        if cl.after.strip():
            return None
        text = cl.before.rstrip()
        if FOLLOW.match(text):
            return self.verdict(Status.BUSY, f"less follows a growing file: {quote(text)}")
        if PAGER_LINE.search(text) or (SEARCH.match(text) and cl.row == bottom_row(snap)):
            return self.verdict(Status.BLOCKED,
                                f"pager line {quote(text)} at the cursor waits for a key",
                                QUESTION, OPTIONS)
        return None

    def when_silent(self, snap: Snapshot) -> Verdict:
        if self.busy_when_silent:
            return self.verdict(Status.BUSY,
                                f"{self.name} is running and shows no pager line at the cursor")
        return super().when_silent(snap)


QUIT: tuple[Step, ...] = (("keys", "q"),)

PROFILES = (
    PagerProfile("less", ("less", "more", "most", "pager"), "pager", paste=False, exit_steps=QUIT,
                 rank=40),
    PagerProfile("man", ("man",), "pager", paste=False, exit_steps=QUIT, rank=41,
                 busy_when_silent=True),
    PagerProfile("git", ("git",), "pager", paste=False, exit_steps=QUIT, rank=42,
                 busy_when_silent=True),
)
