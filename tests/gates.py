"""Commands that end when the test says so, not after a sleep.

A test that must see something while a command still runs (a busy status,
a first line without the last) lets the command wait at a gate: it holds
there until the test opens it, however slowly the machine gets the test to
its look, so the look can never come after the command ended.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Gate:
    """A file whose existence lets the commands waiting at it go on."""

    path: Path

    @property
    def shell(self) -> str:
        """A shell command (sh, bash, zsh) that returns once the gate is open."""
        return f"until [ -e {shlex.quote(str(self.path))} ]; do sleep 0.05; done"

    def open(self) -> None:
        self.path.touch()
