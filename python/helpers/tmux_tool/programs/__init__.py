"""Program profiles and the status detector built on them.

* :mod:`.registry` - every profile module, found by itself; :func:`profile_for`
  and :func:`profile_or_generic` (a program nobody profiled gets the generic
  profile, never ``None``).
* :mod:`.detector` - :func:`detect` on a live pane's snapshot and the pure
  :func:`classify` on a recorded screen.
* :mod:`.signs` - what any program shows (menus, key hints, buttons,
  spinners, timers, errors); :mod:`.questions` - questions at the cursor.
* :mod:`.base` (what a profile is), :mod:`.ai` (the one reading of an AI CLI's
  screen), :mod:`.answer` (cutting answers out), :mod:`.generic`; then one
  module per program or family (shell, REPLs, pager, vim, monitors, and the
  AI CLIs).
"""

from __future__ import annotations

from ..core.status import Status
from . import registry
from .base import Dialog, Kind, Profile, Step, Verdict
from .detector import classify, detect
from .generic import GenericProfile
from .registry import profile_for, profile_or_generic

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "PROFILES",
    "Dialog",
    "GenericProfile",
    "Kind",
    "Profile",
    "Status",
    "Step",
    "Verdict",
    "classify",
    "detect",
    "profile_for",
    "profile_or_generic",
]


def __getattr__(name: str) -> Any:
    """``PROFILES``: the registry's, as loaded last (``TMUX_TOOL_PROFILES`` may change them)."""
    if name == "PROFILES":
        return registry.PROFILES
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
