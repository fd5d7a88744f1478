"""tmux_tool: a guarded, exact terminal for LLM agents, next to a human.

The folders are the layers, and imports only point down (docs/ARCHITECTURE.md):
:mod:`core` (result, state, config, masking, messages) → :mod:`screen` (what a
human sees, rendered) → :mod:`transport` (tmux, control mode, keys, looks at a
pane) → :mod:`programs` (what state a program is in, from its screen) →
:mod:`private` (the agent's own server, exact markers) and :mod:`shared` (the
human's session, marker-free and guarded) → :mod:`sessions` (either kind of
session, observed and awaited) → :mod:`drive` (turns with interactive programs)
→ :mod:`actions` (the contract) → :mod:`api` and :mod:`frontends`.
"""

from .api import acall, atext, call, text
from .programs import classify

__all__ = ["acall", "atext", "call", "classify", "text"]
