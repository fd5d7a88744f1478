"""Monitors that redraw by themselves - top, htop, watch - are always busy.

DESIGN: "a monitor that redraws by itself: busy".  They own the whole screen,
so their signature is their own frame rather than the cursor row: top's
summary line ``top - 05:30:38 up 23 min, ...`` on the first row, watch's
``Every 1.0s: <command>`` header on the first row, htop's function-key bar
(``F1Help ... F10Quit``) on the last.  Whatever the watched command prints
below the header (prompt-like text included) says nothing.  top parks its
cursor past the last column of the last row; watch in the last column.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.status import Status
from ..screen.snapshot import Snapshot
from .base import Profile, Verdict, bottom_row, quote, row


@dataclass(frozen=True)
class MonitorProfile(Profile):
    """A full-screen monitor recognised by a header or footer regex."""

    frame: re.Pattern[str] = re.compile(r"(?!)")
    at_bottom: bool = False

    def classify(self, snap: Snapshot) -> Verdict | None:
        y = bottom_row(snap) if self.at_bottom else 0
        text = row(snap, y)
        if self.frame.search(text):
            return self.verdict(Status.BUSY,
                                f"{self.name} redraws by itself ({quote(text, 40)} on the screen)")
        return None


PROFILES = (
    MonitorProfile("top", ("top",), "monitor", paste=False, exit_steps=(("keys", "q"),), rank=60,
                   frame=re.compile(r"^top - \d\d:\d\d:\d\d up ")),
    MonitorProfile("htop", ("htop",), "monitor", paste=False, exit_steps=(("keys", "q"),), rank=60,
                   frame=re.compile(r"F1\s*Help.*F10\s*Quit"), at_bottom=True),
    MonitorProfile("watch", ("watch",), "monitor", paste=False, exit_steps=(("keys", "C-c"),),
                   rank=60, frame=re.compile(r"^Every \d+(?:\.\d+)?s: ")),
)
