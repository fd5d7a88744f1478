"""tmux_tool: a guarded, exact terminal for LLM agents, next to a human.

Layers, from the bottom: :mod:`tmux` (the transport, every call bounded by a
timeout) → :mod:`screen` (what a human sees, rendered through pyte) →
:mod:`private` / :mod:`shared` (the agent's own server with exact markers;
the human's session, marker-free and guarded) → :mod:`programs` (what state a
program is in) → :mod:`actions` (the contract) → :mod:`api`.
"""

from .api import acall, atext, call, text
from .programs import classify

__all__ = ["acall", "atext", "call", "classify", "text"]
