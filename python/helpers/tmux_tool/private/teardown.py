"""Ending the private server for good: what uninstalling the tool does.

The plugin's ``uninstall`` hook (``hooks.py``, which Agent Zero runs before it
deletes the plugin) and the installer's ``--uninstall`` both end the agent's
tmux server - and with it every program still running in its sessions - and
remove its state, so nothing of the tool outlives it.  This is the one place
that does it, so the two cannot drift apart.  The human's shared server is
theirs and is never touched.

Both callers run where the tool cannot be imported as usual: the hook before
the packages it installs exist, the installer as a script with ``-S -I``.
They load the library as a package by its path, so this module and what it
imports use the standard library only.
"""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

from ..core import config
from ..core.clock import Deadline
from ..core.errors import BadName
from ..transport import hosts, kernel

SERVER_EXIT_TIMEOUT = 5.0
TMUX_TIMEOUT = 10.0


def end_private(*, dry_run: bool = False) -> str:
    """End the private tmux server and remove its state folder; return a sentence saying what was
    done.

    Never raises for tmux: an uninstall goes on anyway, and the sentence says
    what stayed and how to end it by hand.
    """
    cfg = config.load()
    server = f"the private tmux server {cfg.private_socket!r}"
    if dry_run:
        return (f"would end {server} with everything running in it, and remove {cfg.private_dir} "
                "(and the tool's server and files on each host it had sessions on)")
    # while their connections are up
    far = _end_hosts(cfg.private_dir / "hosts", cfg.private_socket)
    tmux = shutil.which("tmux")
    try:
        ended = tmux is not None and _end_server([tmux, "-L", cfg.private_socket])
        done = (
            f"ended {server} with everything running in it"
            if ended
            else f"{server} was not running"
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        done = (f"could not end {server} ({exc}): end it with `tmux -L {cfg.private_socket} "
                "kill-server`")
    shutil.rmtree(cfg.private_dir, ignore_errors=True)
    return f"{done}; removed {cfg.private_dir}{far}"


def _end_hosts(folder: Path, socket: str) -> str:
    """End the tool's tmux server on every host it has had sessions on and remove its files there
    (``~/.tmux_tool/SOCKET``), over the connection that is up; the rest of the sentence, naming what
    was done and each host that could not be reached now (and how to do it there by hand)."""
    tmux = f"tmux -L {shlex.quote(socket)}"
    done, left = [], []
    for name in _known(folder):
        try:
            host = hosts.resolve(name, folder, None)
            if not host.connected():
                raise hosts.HostError("not connected")
            shells = host.run(
                f"{tmux} list-panes -a -F '#{{pane_pid}}' 2>/dev/null; true", timeout=TMUX_TIMEOUT
            )
            host.run(f"{tmux} kill-server 2>/dev/null\n"
                     + kernel.hang_up_script([int(p) for p in shells.split() if p.isdigit()])
                     + f'rm -rf "$HOME/.tmux_tool/"{shlex.quote(socket)}\n', timeout=TMUX_TIMEOUT)
            done.append(name)
        except (hosts.HostError, BadName):
            left.append(name)
    said = (
        f"; on {', '.join(done)}: ended its tmux server and removed ~/.tmux_tool/{socket}"
        if done
        else ""
    )
    if left:
        said += (f"; not connected now: {', '.join(left)} (there, run: tmux -L {socket} "
                 f"kill-server; rm -rf ~/.tmux_tool/{socket})")
    return said


def _known(folder: Path) -> list[str]:
    """The hosts named by the host folders under ``folder``."""
    try:
        found = [
            p.joinpath("host").read_text().strip()
            for p in folder.iterdir()
            if p.joinpath("host").is_file()
        ]
    except (OSError, UnicodeDecodeError):
        return []
    return sorted(found)


def _end_server(tmux: list[str]) -> bool:
    """``kill-server``, wait (bounded) until the server process is gone, then end what its terminals
    left running; False if no server ran.

    tmux answers ``kill-server`` at once but exits only once its clients have
    left (the tool's own control-mode clients among them), a moment later.
    Ending it closes every pane's terminal, so the shells in them hang up and
    take their jobs with them - all but a ``nohup`` or ``disown``ed one,
    which :func:`kernel.hang_up` ends.
    """
    pid = subprocess.run([*tmux, "display-message", "-p", "#{pid}"], capture_output=True, text=True,
                         timeout=TMUX_TIMEOUT, check=False).stdout.strip()
    if not pid.isdigit():
        return False
    shells = subprocess.run(
        [*tmux, "list-panes", "-a", "-F", "#{pane_pid}"],
        capture_output=True,
        text=True,
        timeout=TMUX_TIMEOUT,
        check=False,
    ).stdout.split()
    subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=TMUX_TIMEOUT, check=False)
    for _ in Deadline(SERVER_EXIT_TIMEOUT).ticks(0.02):
        if (process := kernel.proc(int(pid))) is None or process.state == "Z":
            kernel.hang_up([int(p) for p in shells if p.isdigit()])
            return True
    raise subprocess.TimeoutExpired(["kill-server"], SERVER_EXIT_TIMEOUT)
