"""The shared session's tmux server: on this machine, or on a host (``start.sh --host NAME``).

A host is named as the tool names it (an ssh destination, or a line of the
tool's hosts file), and reached through the tool's own connection to it: one
ssh master, in a session of the agent's tmux server where the human answers
what it asks.  The app's ``tmux.conf`` is copied to the host
(``~/.tmux_tool/shared-terminal.conf``, private to the user), so the session
there is made exactly as here.

Run as a program, it is start.sh's and stop.sh's hand on the host:
``ensure`` makes the session unless it exists (prints ``created`` or
``existing``), ``alive`` says by its exit status whether it runs, ``end``
ends that tmux server.  Exit status 1 with one sentence on stderr when the
host cannot be used.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[3]))

from python.helpers.tmux_tool.frontends.page import (
    HostWaits,
    NoServer,
    NoTarget,
    Tmux,
    ToolError,
    agent_socket,
    connect,
)

CONF_SCRIPT = ('umask 077; mkdir -p "$HOME/.tmux_tool"; chmod 700 "$HOME/.tmux_tool"; '
               'cat > "$HOME/.tmux_tool/shared-terminal.conf" && printf %s "$HOME/.tmux_tool/shared-terminal.conf"')


def shared_tmux(socket: str, conf: Path, host: str | None) -> Tmux:
    """The shared session's server, with the app's configuration: here, or on ``host`` (connected, the
    configuration copied there).  Raises :class:`TmuxError` (a :class:`HostWaits` when the
    connection waits for the human) or :class:`ToolError` with a sentence."""
    if not host:
        return Tmux(socket, config_file=str(conf))
    far = connect(host)
    path = far.run(CONF_SCRIPT, conf.read_bytes()).strip()
    return Tmux(socket, config_file=path, place=far)


def _done(tmux: Tmux, *args: str) -> bool:
    """Run one tmux command there; False when there is no such server or session."""
    try:
        tmux.cmd(*args)
    except (NoServer, NoTarget):
        return False
    return True


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="shared_host.py")
    parser.add_argument("what", choices=("ensure", "alive", "end"))
    parser.add_argument("--host", required=True)
    parser.add_argument("--socket", required=True)
    parser.add_argument("--session", required=True)
    parser.add_argument("--tmux-conf", required=True)
    return parser.parse_args(argv)


def main(argv: list[str]) -> int:
    args = _parse(argv)
    try:
        tmux = shared_tmux(args.socket, Path(args.tmux_conf), args.host)
        if args.what == "end":
            print("ended" if _done(tmux, "kill-server") else "none")
            return 0
        alive = _done(tmux, "has-session", "-t", f"={args.session}")
        if args.what == "alive":
            return 0 if alive else 1
        if not alive:
            tmux.cmd("new-session", "-d", "-s", args.session)
        print("existing" if alive else "created")
        return 0
    except HostWaits as waits:
        private = agent_socket()
        print(f"{waits}; answer it in `tmux -L {private} attach -t ={waits.session}`, then run this again",
              file=sys.stderr)
    except ToolError as error:
        print(str(error), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
