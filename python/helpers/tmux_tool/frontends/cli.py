"""The command line: ``python -m python.tools.tmux_tool ACTION [--ARG VALUE ...] [--json]``.

It prints exactly the text the agent reads (or, with ``--json``, the result
of the contract) and behaves like a Unix tool:

* exit status 0 when the result is ``ok``, 1 when it is not (the sentence
  is in the output), 2 for a command line that cannot be understood;
* boolean arguments are flags (``--force``, ``--no-enter``); ``--force true``
  and ``--enter false`` are accepted too;
* a reader that stops early (``| head``) ends the output quietly.

Each call is a process, and Python's start is most of what it costs; so a
call is first handed to the caller's resident process (:mod:`.relay`,
:mod:`.resident`), which has the library loaded and tmux connected and
answers with :func:`answer`.  A call that answers itself (the first one, or
with ``TMUX_TOOL_RESIDENT=off``) starts lean: the parser is built from the
action table without argparse, only the modules the action needs are
imported, and tmux commands run as processes of their own (a control-mode
connection pays off only across calls).
"""

from __future__ import annotations

import sys
from typing import Any

from ..core.args import Arg

PROG = "python -m python.tools.tmux_tool"
TRUE, FALSE = ("true", "yes", "on", "1"), ("false", "no", "off", "0")
FRONT_ENDS = """\
also:
  mcp                                 serve every action as an MCP tool over stdio
  install AGENT_ZERO_DIR [--uninstall] [--dry-run] [--python PATH]
                                      install into (or remove from) an Agent Zero tree

exit status: 0 when the result is ok, 1 when it is not (the output says why), 2 for a usage error
"""


class Usage(Exception):
    """The command line cannot be understood; the message says why."""


def _flag(arg: Arg) -> str:
    return "--" + arg.name.replace("_", "-")


def parse(argv: list[str], args: tuple[Arg, ...]) -> tuple[dict[str, Any], bool]:
    """The arguments given for one action's declared ``args``, and whether ``--json`` was asked
    for."""
    by_flag = {_flag(a): a for a in args}
    given: dict[str, Any] = {}
    as_json = False
    i = 0
    while i < len(argv):
        word = argv[i]
        i += 1
        if word == "--json":
            as_json = True
            continue
        flag, eq, inline = word.partition("=")
        arg = by_flag.get(flag)
        if arg is None and flag.startswith("--no-") and eq == "":
            negated = by_flag.get("--" + flag[5:])
            if negated is not None and negated.kind == "bool":
                given[negated.name] = False
                continue
        if arg is None:
            raise Usage(
                f"unknown option {word!r}" if word.startswith("-") else f"unexpected word {word!r}"
            )
        if eq:
            given[arg.name] = inline
        elif arg.kind == "bool":
            if i < len(argv) and argv[i].lower() in TRUE + FALSE:
                given[arg.name] = argv[i].lower() in TRUE
                i += 1
            else:
                given[arg.name] = True
        elif arg.kind == "list":
            items = []
            while i < len(argv) and not (
                argv[i] == "--json" or argv[i].split("=", 1)[0] in by_flag
            ):
                items.append(argv[i])
                i += 1
            if not items:
                raise Usage(f"{flag} needs at least one value")
            given[arg.name] = items
        else:
            if i >= len(argv):
                raise Usage(f"{flag} needs a value")
            given[arg.name] = argv[i]
            i += 1
    return given, as_json


def _help_for(name: str, summary: str, args: tuple[Arg, ...]) -> str:
    rows = [f"usage: {PROG} {name} [options] [--json]", "", summary, "", "options:"]
    for arg in args:
        flag = _flag(arg) if arg.kind == "bool" else f"{_flag(arg)} {arg.name.upper()}"
        if arg.kind == "list":
            flag += " ..."
        extra = " (required)" if arg.required else ""
        if arg.kind == "bool" and arg.default:
            extra += f" (default on; --no-{arg.name.replace('_', '-')} turns it off)"
        elif arg.default not in (None, "", False):
            extra += f" (default {arg.default})"
        if arg.choices:
            extra += f" (one of {', '.join(arg.choices)})"
        rows.append(f"  {flag:<28} {arg.help}{extra}")
    rows.append(f"  {'--json':<28} print the result as one JSON object")
    return "\n".join(rows) + "\n"


def _overview(actions: dict[str, Any]) -> str:
    rows = [f"usage: {PROG} ACTION [--ARG VALUE ...] [--json]", "",
            "Work in tmux terminals safely: a private scratch shell and the shared terminal.", "",
            "actions:"]
    rows += [f"  {name:<12} {spec.summary}" for name, spec in actions.items()]
    rows += ["", f"{PROG} ACTION --help shows the arguments of one action.", "", FRONT_ENDS]
    return "\n".join(rows)


def _line(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def answer(argv: list[str]) -> tuple[int, str, str]:
    """One action from its command line: the exit status and what goes to stdout and to stderr.

    Pure of the process's own streams, so the resident process
    (:mod:`.resident`) answers with exactly what :func:`main` prints.
    """
    from .. import actions

    if not argv:
        return 2, "", _overview(actions.ACTIONS)
    if argv[0] in ("-h", "--help", "help"):
        return 0, _line(_overview(actions.ACTIONS)), ""
    spec = actions.ACTIONS.get(argv[0])
    if spec is None:
        return (
            2,
            "",
            f"{PROG}: unknown action {argv[0]!r}; the actions are: {', '.join(actions.ACTIONS)}\n",
        )
    if "-h" in argv[1:] or "--help" in argv[1:]:
        return 0, _line(_help_for(spec.name, spec.summary, spec.args)), ""
    try:
        given, as_json = parse(argv[1:], spec.args)
    except Usage as exc:
        return 2, "", f"{PROG} {spec.name}: {exc}\n{_help_for(spec.name, spec.summary, spec.args)}"
    result = actions.dispatch(spec.name, given)
    if as_json:
        import json

        return (0 if result.ok else 1), _line(json.dumps(result.to_dict(), ensure_ascii=False)), ""
    return (0 if result.ok else 1), _line(result.to_text()), ""


def main(argv: list[str] | None = None) -> int:
    """Run one action from the command line in this process; the exit status says whether it was
    ``ok``.

    Two words are not actions: ``mcp`` runs the MCP server and ``install``
    puts the tool into an Agent Zero tree; both are imported only when asked
    for (the MCP SDK is not needed anywhere else).
    """
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["mcp"]:
        from . import mcp_server

        mcp_server.serve()
        return 0
    if argv[:1] == ["install"]:
        from . import install

        return int(install.main(argv[1:]))
    from ..transport import tmux
    from . import relay

    tmux.short_lived()
    code, out, err = answer(argv)
    for fd, text, stream in ((1, out, sys.stdout), (2, err, sys.stderr)):
        if text:
            relay.write(fd, text.encode(stream.encoding or "utf-8", stream.errors or "strict"))
    return code
