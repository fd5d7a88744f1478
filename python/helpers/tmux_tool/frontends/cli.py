"""The command line: ``python -m python.tools.tmux_tool ACTION [--ARG VALUE ...] [--json]``.

It prints exactly the text the agent reads (or, with ``--json``, the result
of the contract) and exits 0 when the result is ``ok``.  The parser is built
from the action table, so every action and argument is there by itself.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys

from .. import actions


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m python.tools.tmux_tool",
        description="Work in tmux terminals safely: a private scratch shell and the shared terminal.",
    )
    sub = parser.add_subparsers(dest="action", metavar="ACTION")
    for spec in actions.ACTIONS.values():
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
        importlib.import_module(__package__ + ".mcp_server").serve()
        return 0
    if argv[:1] == ["install"]:
        return int(importlib.import_module(__package__ + ".install").main(argv[1:]))
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
    result = actions.dispatch(action, args)
    if as_json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        print(result.to_text())
    return 0 if result.ok else 1
