"""A session's status with the evidence that decided it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..core.status import Status
from ..screen.snapshot import Snapshot
from ..transport.panes import PaneFacts

READY_STABLE = 0.08
"""Seconds a screen-judged "ready" must hold still to count (markers need none)."""


@dataclass(slots=True)
class State:
    """What ``status`` reports and ``wait`` waits on.

    ``exact`` marks a judgement made from the shell's own markers rather than
    from how the screen looks; such a judgement needs no stability window.
    """

    status: Status
    evidence: str
    program: str | None = None
    snap: Snapshot | None = None
    facts: PaneFacts | None = None
    question: str | None = None
    options: tuple[str, ...] = ()
    exit_code: int | None = None
    cwd: str | None = None
    exact: bool = False
    extra: dict[str, Any] = field(default_factory=dict)
