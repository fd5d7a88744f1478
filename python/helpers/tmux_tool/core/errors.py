"""Every failure the library can report, in one hierarchy.

A :class:`ToolError` carries a sentence for the agent; ``actions.dispatch``
turns each into a result with ``ok: false`` (bad input gets status
``unknown``, tmux trouble the sentence and what to do next).  Deeper layers
raise these; only the action layer makes results of them.
"""

from __future__ import annotations


class ToolError(Exception):
    """A failure the agent should read as a sentence."""


class BadInput(ToolError, ValueError):
    """The caller's input cannot be used; the message says which and why."""


class BadArgs(BadInput):
    """The arguments cannot be used; the message says which and why."""


class BadName(BadInput):
    """The name cannot be used; the message says why and what would work."""


class BadKeys(BadInput):
    """A key name or a text cannot be sent; the message says why."""


class TmuxError(ToolError):
    """A tmux command failed; the message is a sentence for the agent."""


class NoServer(TmuxError):
    """The tmux server behind the socket is not running."""


class NoTarget(TmuxError):
    """The session or pane does not exist."""


class ShellNotReady(TmuxError):
    """The shell of a new session did not show its prompt in time."""


class Unavailable(TmuxError):
    """The control client is gone or never came up; a tmux process must do it."""
