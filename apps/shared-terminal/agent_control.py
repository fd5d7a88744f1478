"""agent.sh's work: set or show the human's control over the agent in the shared terminal.

Uses the library's control module, so this command, the page and the tool
read and write the very same tmux options. Exit status: 0 done, 1 the
session is not there (or tmux failed), 2 bad usage.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

# The protocol is defined once, in the library at the repository's root.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from python.helpers.tmux_tool.actions import dispatch
from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.judgement import human
from python.helpers.tmux_tool.shared import control
from python.helpers.tmux_tool.transport.tmux import Tmux, TmuxError


def status_lines(state: control.Control, session: str, socket: str, now: float) -> list[str]:
    where = f"session {session!r} (tmux -L {socket})"
    lines = [
        f"The agent is paused in {where}: it types nothing until `agent.sh resume`."
        if state.paused else f"The agent may type in {where} (`agent.sh pause` stops it).",
        f"Approve mode: {'on' if state.approve else 'off'}.",
        f"Now: {control.headline(state.activity, now)}.",
    ]
    pending = state.pending
    if pending is not None:
        keys = pending.get("keys")
        what = control.describe(str(pending.get("text", "")), keys if isinstance(keys, list) else [],
                                bool(pending.get("enter")))
        left = max(0, int(float(pending.get("expires", now)) - now))
        lines.append(f"Waiting for approval: {what} (answer in the page; expires in {left} s).")
    return lines


def sessions() -> int:
    """The agent's private sessions, one per line: name, program, status, what it does, who has it."""
    cfg = config.load()
    rows = [r for r in dispatch("list").extra.get("sessions", []) if r.get("session") != cfg.shared_session]
    if not rows:
        print(f"The agent has no private session (tmux -L {cfg.private_socket}).")
        return 0
    for row in rows:
        held = human.held(Tmux(cfg.private_socket), str(row.get("session")))
        mark = " · NEEDS YOU: type the secret with `agent.sh take NAME`" if row.get("needs_human") else ""
        mark += f" · held by {held}" if held else ""
        print(f"{row.get('session')}\t{row.get('program') or ''}\t{row.get('status')}\t{row.get('evidence')}{mark}")
    return 0


def hold(name: str, take: bool) -> int:
    """Take the keyboard of the agent's session ``name`` (the agent types nothing there) or give it back."""
    tmux = Tmux(config.load().private_socket)
    try:
        if take:
            tmux.cmd("set-option", "-t", f"={name}:", human.HELD, "agent.sh")
        else:
            tmux.cmd("set-option", "-u", "-t", f"={name}:", human.HELD)
    except TmuxError as exc:
        print(f"agent.sh: the agent has no session {name!r}: {exc}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["sessions"]:
        return sessions()
    if argv[:1] in (["hold"], ["give"]) and len(argv) == 2:
        return hold(argv[1], argv[0] == "hold")
    parser = argparse.ArgumentParser(prog="agent.sh", description=__doc__.splitlines()[0])
    parser.add_argument("--socket", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("command", choices=("pause", "resume", "status", "approve", "statusline"))
    parser.add_argument("switch", nargs="?", choices=("on", "off"))
    args = parser.parse_args(argv)
    if (args.command in ("approve", "statusline")) != (args.switch is not None):
        parser.error("approve and statusline take on or off; the other commands take nothing")
    tmux, target = Tmux(args.socket), f"={args.session}:"
    try:
        if args.command in ("pause", "resume"):
            control.set_paused(tmux, target, args.command == "pause")
        elif args.command == "approve":
            control.set_approve(tmux, target, args.switch == "on")
        elif args.command == "statusline":
            control.set_status_line(tmux, target, args.switch == "on")
        state = control.read(tmux, target)
    except TmuxError as exc:
        print(f"agent.sh: session {args.session!r} on tmux socket {args.socket!r} is not reachable: {exc}",
              file=sys.stderr)
        return 1
    if args.command == "pause":
        print(f"Paused: the agent types nothing into session {args.session!r} until `agent.sh resume`.")
    elif args.command == "resume":
        print(f"Resumed: the agent may type into session {args.session!r} again.")
    elif args.command == "approve":
        print(f"Approve mode {args.switch}.")
    elif args.command == "statusline":
        print(f"tmux status line {args.switch}" + (": it shows what the agent does." if args.switch == "on" else "."))
    else:
        print("\n".join(status_lines(state, args.session, args.socket, time.time())))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
