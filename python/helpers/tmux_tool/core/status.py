"""The one status type: what a session is doing, as every judge, result and schema names it.

A ``StrEnum``, so a status is its own word wherever it goes (JSON, the text
rendering, a comparison with ``"ready"`` in a caller's code) while the
library itself can only name the five that exist.

>>> Status.READY == "ready", f"{Status.BLOCKED}", [s.value for s in Status]
(True, 'blocked', ['ready', 'busy', 'blocked', 'error', 'unknown'])
"""

from __future__ import annotations

from enum import StrEnum


class Status(StrEnum):
    """What a session is doing (the meanings are in docs/ARCHITECTURE.md, "The contract")."""

    READY = "ready"
    """Waiting for a new instruction: a shell or REPL prompt, an AI CLI's idle input box, an
    editor."""
    BUSY = "busy"
    """Working; more output may come."""
    BLOCKED = "blocked"
    """Waiting on a question only the agent or the human can answer."""
    ERROR = "error"
    """The program died or failed, or the pane is gone."""
    UNKNOWN = "unknown"
    """None of the above could be told apart yet."""
