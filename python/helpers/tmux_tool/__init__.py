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

from __future__ import annotations

from importlib import import_module

TYPE_CHECKING = False  # typing's, without importing typing: a command-line call starts faster
if TYPE_CHECKING:
    from typing import Any

__all__ = ["__version__", "acall", "atext", "call", "classify", "text"]
__version__ = "0.1.0"  # the release, as in pyproject.toml (a unit test holds them equal)


def __getattr__(name: str) -> Any:
    """The entry points, imported on first use: a command-line call loads only what its action
    needs."""
    if name == "classify":
        return import_module(f"{__name__}.programs").classify
    if name in __all__ or name == "api":
        # (``from . import api`` would ask this function again)
        api = import_module(f"{__name__}.api")
        return api if name == "api" else getattr(api, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
