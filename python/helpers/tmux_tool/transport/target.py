"""A session the action is about: its name, which server it lives on, and which of its panes."""

from __future__ import annotations

from dataclasses import dataclass

from .tmux import Tmux


@dataclass(frozen=True, slots=True)
class Target:
    """A session the action is about.

    ``pane_id`` pins the action to one pane (tmux's ``%N``, which stays the
    same pane whatever the human does to windows and layouts); without it the
    action is about the session's active pane.  ``lost`` is set when the pane
    the agent's command ran in was closed: a sentence saying so, since no
    other pane may stand in for it.  A new command goes to the pane the human
    looks at all the same: for it the sentence is ``closed``, a note.
    """

    name: str
    shared: bool
    tmux: Tmux
    pane_id: str = ""
    lost: str = ""
    closed: str = ""
    # the pane as the caller named it ("1.0", "%3"); empty when the name was the session's
    spec: str = ""

    @property
    def pane(self) -> str:
        """tmux target of the pane: the pinned one, else the session's active pane (exact session
        match)."""
        return self.pane_id or f"={self.name}:"
