"""tmux_tool - the thin front ends: Agent Zero tool, command line, ``call``.

* Agent Zero: ``{"tool_name": "tmux_tool", "tool_args": {"action": "run",
  "command": "ls"}}`` (or ``"tool_name": "tmux_tool:run"``).  Works on both
  Agent Zero layouts (``helpers.tool`` from v0.9.9, ``python.helpers.tool`` up
  to v0.9.8) and standalone with neither.
* Command line, from the repository root:
  ``python -m python.tools.tmux_tool ACTION [--ARG VALUE ...] [--json]``.
* Python: ``from python.tools.tmux_tool import call, classify``.

Everything real lives in the library package ``helpers/tmux_tool`` beside
this file's folder; this file only adapts calling conventions, and imports
the library on first use so a command-line call loads only what it needs.
"""

from __future__ import annotations

import sys
from typing import Any

_ENTRY_POINTS = ("call", "acall", "text", "atext", "classify")


def _library() -> Any:
    """Import the library whichever way this file was loaded.

    As ``python.tools.tmux_tool`` (repository, Agent Zero v0.9.x) or
    ``usr.plugins.<name>.tools.tmux_tool`` (Agent Zero plugin) the sibling
    package is imported by its dotted name; when Agent Zero loads this file by
    path (no package) the library is loaded by path under a private name.
    """
    import importlib

    if __package__ and __package__.endswith("tools"):
        dotted = __package__[: -len("tools")] + "helpers.tmux_tool"
        try:
            return importlib.import_module(dotted)
        except ModuleNotFoundError as exc:
            if not exc.name or not dotted.startswith(exc.name):
                raise  # the library is there but something it needs is missing: say so
    name = "tmux_tool_library"
    if name in sys.modules:
        return sys.modules[name]
    import importlib.util
    from pathlib import Path

    pkg = Path(__file__).resolve().parent.parent / "helpers" / "tmux_tool"
    spec = importlib.util.spec_from_file_location(name, pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    if spec is None or spec.loader is None:
        raise ImportError(f"the tmux_tool library was not found at {pkg}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def __getattr__(name: str) -> Any:
    """``call``, ``acall``, ``text``, ``atext`` and ``classify`` of the library, on first use."""
    if name in _ENTRY_POINTS:
        return getattr(_library(), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


try:  # Agent Zero v0.9.9 and later
    from helpers.tool import Response, Tool  # type: ignore[import-not-found]
except ImportError:
    try:  # Agent Zero up to v0.9.8
        from python.helpers.tool import Response, Tool  # type: ignore[import-not-found,no-redef]
    except ImportError:  # standalone: the same shapes, so the class below works alike

        class Response:  # type: ignore[no-redef]
            """What an Agent Zero tool returns."""

            def __init__(self, message: str, break_loop: bool, additional: dict[str, Any] | None = None) -> None:
                self.message, self.break_loop, self.additional = message, break_loop, additional

        class Tool:  # type: ignore[no-redef]
            """The constructor signature of Agent Zero's ``Tool``."""

            def __init__(self, agent: Any, name: str, method: str | None, args: dict[str, Any],
                         message: str, loop_data: Any = None, **kwargs: Any) -> None:
                self.agent, self.name, self.method = agent, name, method
                self.args, self.message, self.loop_data = args, message, loop_data


class TmuxTool(Tool):
    """The ``tmux_tool`` of Agent Zero: one action per call, never raises."""

    async def execute(self, **kwargs: Any) -> Response:
        args = dict(kwargs or getattr(self, "args", None) or {})
        action = args.pop("action", None) or getattr(self, "method", None) or ""
        _ok, message = await _library().atext(str(action), **args)
        return Response(message=message, break_loop=False)


if __name__ == "__main__":
    import importlib

    sys.exit(importlib.import_module(_library().__name__ + ".frontends.cli").main())
