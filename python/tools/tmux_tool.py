"""tmux_tool - the thin front ends: Agent Zero tool, command line, ``call``.

* Agent Zero: ``{"tool_name": "tmux_tool", "tool_args": {"action": "run",
  "command": "ls"}}`` (or ``"tool_name": "tmux_tool:run"``).  Works on both
  Agent Zero layouts (``helpers.tool`` from v0.9.9, ``python.helpers.tool`` up
  to v0.9.8) and standalone with neither.
* Command line, from the repository root:
  ``python -m python.tools.tmux_tool ACTION [--ARG VALUE ...] [--json]``.
* Python: ``from python.tools.tmux_tool import call, classify``.

Everything real lives in the library package ``helpers/tmux_tool`` beside
this file's folder; this file only adapts calling conventions.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def _library() -> Any:
    """Import the library whichever way this file was loaded.

    As ``python.tools.tmux_tool`` (repository, Agent Zero v0.9.x) or
    ``usr.plugins.<name>.tools.tmux_tool`` (Agent Zero plugin) the sibling
    package is imported by its dotted name; when Agent Zero loads this file by
    path (no package) the library is loaded by path under a private name.
    """
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
    pkg = Path(__file__).resolve().parent.parent / "helpers" / "tmux_tool"
    spec = importlib.util.spec_from_file_location(name, pkg / "__init__.py",
                                                  submodule_search_locations=[str(pkg)])
    if spec is None or spec.loader is None:
        raise ImportError(f"the tmux_tool library was not found at {pkg}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


_lib = _library()
call = _lib.call
acall = _lib.acall
classify = _lib.classify

try:  # Agent Zero v0.9.9 and later
    from helpers.tool import Response, Tool  # type: ignore[import-not-found]
except ImportError:
    try:  # Agent Zero up to v0.9.8
        from python.helpers.tool import Response, Tool  # type: ignore[import-not-found,no-redef]
    except ImportError:  # standalone: the same shapes, so the class below works alike

        @dataclass
        class Response:  # type: ignore[no-redef]
            """What an Agent Zero tool returns."""

            message: str
            break_loop: bool
            additional: dict[str, Any] | None = None

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
        _ok, message = await _lib.atext(str(action), **args)
        return Response(message=message, break_loop=False)


# --- command line ----------------------------------------------------------
def _parser() -> argparse.ArgumentParser:
    actions = _lib.actions.ACTIONS
    parser = argparse.ArgumentParser(
        prog="python -m python.tools.tmux_tool",
        description="Work in tmux terminals safely: a private scratch shell and the shared terminal.",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    for spec in actions.values():
        p = sub.add_parser(spec.name, help=spec.summary, description=spec.summary)
        for arg in spec.args:
            flag = "--" + arg.name.replace("_", "-")
            help_ = arg.help + (f" (default {arg.default})" if arg.default not in (None, "") else "")
            if arg.kind == "list":
                p.add_argument(flag, dest=arg.name, nargs="+", help=help_)
            else:
                p.add_argument(flag, dest=arg.name, help=help_)
        p.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return parser


FRONT_ENDS = """\
also:
  mcp                                 serve every action as an MCP tool over stdio
  install AGENT_ZERO_DIR [--uninstall] [--dry-run]
                                      install into (or remove from) an Agent Zero tree
"""


def main(argv: list[str] | None = None) -> int:
    """Run one action from the command line; exit status 0 when ``ok``.

    Two words are not actions: ``mcp`` runs the MCP server and ``install``
    puts the tool into an Agent Zero tree; both live in the library and are
    imported only when asked for (the MCP SDK is not needed anywhere else).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mcp"]:
        importlib.import_module(_lib.__name__ + ".mcp_server").serve()
        return 0
    if argv[:1] == ["install"]:
        return int(importlib.import_module(_lib.__name__ + ".install").main(argv[1:]))
    parser = _parser()
    parser.epilog = FRONT_ENDS
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    if not argv:
        parser.print_help()
        return 2
    ns = parser.parse_args(argv)
    as_json = ns.__dict__.pop("json", False)
    action = ns.__dict__.pop("action")
    args = {k: v for k, v in vars(ns).items() if v is not None}
    result = _lib.actions.dispatch(action, args)
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(result.to_text())
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
