"""A session the action is about: its name, which server it lives on, and how tmux names its pane."""

from __future__ import annotations

from dataclasses import dataclass

from .tmux import Tmux


@dataclass(frozen=True, slots=True)
class Target:
    """A session the action is about."""

    name: str
    shared: bool
    tmux: Tmux

    @property
    def pane(self) -> str:
        """tmux target of the session's active pane (exact session match)."""
        return f"={self.name}:"
