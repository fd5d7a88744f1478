"""Floors for the benchmarks: what the same work costs without the tool, measured in the same run.

A figure alone says little on a shared machine whose load comes and goes;
next to the floor measured minutes apart on the same machine, the ratio
does.  Every floor here is made of plain tmux processes and a bare shell, the
way a careful script would do it without any tool:

* :func:`round_trip` - ``tmux send-keys 'CMD; tmux wait-for -S ch' Enter``
  then ``tmux wait-for ch``: the shortest exact way to run a command in a
  pane and know it ended;
* :func:`python_start` - ``python -c pass``.

Each bench runs on tmux sockets of its own (``Server``), killed at the end.
The floor's server uses the same tmux configuration as the tool's private
server (history limit, terminal type, remain-on-exit), so both sides ask tmux
for the same work.
"""

from __future__ import annotations

import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))


def median_ms(samples: Sequence[float]) -> float:
    return statistics.median(samples) * 1000


def timed(fn: Callable[[], object], n: int) -> list[float]:
    """Wall times of ``n`` calls of ``fn`` in seconds."""
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def line(what: str, ours: float, floor: float, floor_what: str, limit: float | None = None) -> str:
    """One figure with its floor and their ratio (and the ratio the figure must stay under)."""
    ratio = ours / floor if floor else float("inf")
    verdict = "" if limit is None else ("  ok" if ratio <= limit else f"  OVER {limit:g}x")
    return f"{what}: {ours:.1f} ms | floor ({floor_what}): {floor:.1f} ms | ratio {ratio:.2f}x{verdict}"


class Server:
    """A tmux server of the bench's own with one bare bash session (no rc files)."""

    def __init__(self, tag: str, *, width: int = 200, height: int = 50) -> None:
        from python.helpers.tmux_tool.private.server import SERVER_CONF

        self.socket = f"tt-bench-{tag}-{os.getpid()}-{secrets.token_hex(2)}"
        self.tmux = shutil.which("tmux") or "tmux"
        self.conf = Path(tempfile.mkdtemp(prefix="tt-bench-floor-")) / "tmux.conf"
        self.conf.write_text(SERVER_CONF)
        subprocess.run([self.tmux, "-L", self.socket, "-f", str(self.conf), "new-session", "-d", "-s", "floor",
                        "-x", str(width), "-y", str(height), "bash", "--noprofile", "--norc"],
                       check=True, timeout=10)
        subprocess.run([self.tmux, "-L", self.socket, "set-option", "-w", "-t", "=floor:", "window-size",
                        "manual"], check=True, timeout=10)
        self.round_trip("true")  # the shell is up and reading

    def round_trip(self, command: str, timeout: float = 600) -> float:
        """Run ``command`` in the bare shell and wait for it, tmux processes only; seconds."""
        channel = f"floor-{secrets.token_hex(4)}"
        t0 = time.perf_counter()
        subprocess.run([self.tmux, "-L", self.socket, "send-keys", "-t", "=floor:",
                        f"{command}; tmux -L {self.socket} wait-for -S {channel}", "Enter"],
                       check=True, timeout=10)
        subprocess.run([self.tmux, "-L", self.socket, "wait-for", channel], check=True, timeout=timeout)
        return time.perf_counter() - t0

    def kill(self) -> None:
        kill_server(self.socket, self.tmux)
        shutil.rmtree(self.conf.parent, ignore_errors=True)


def python_start(n: int) -> list[float]:
    """Wall times of ``python -c pass`` with this interpreter, in seconds."""
    return timed(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), n)


def isolated_tool(tag: str) -> tuple[str, str]:
    """Point the tool at a private socket and state folder of its own; returns both."""
    socket = f"tt-bench-{tag}-{os.getpid()}-{secrets.token_hex(2)}"
    state = tempfile.mkdtemp(prefix="tt-bench-")
    os.environ["TMUX_TOOL_PRIVATE_SOCKET"] = socket
    os.environ["TMUX_TOOL_STATE_DIR"] = state
    return socket, state


def kill_server(socket: str, tmux: str = "tmux") -> None:
    """End this run's tmux server on ``socket`` and remove its socket file, which tmux leaves behind.

    The tool's own control-mode clients are closed first: tmux told to leave
    exits only once every client has gone, and the next bench must not meet
    a server still on its way out.
    """
    from python.helpers.tmux_tool.transport import connections, events

    events.close_all()
    connections.close_all()
    subprocess.run([tmux, "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
    (Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}" / socket).unlink(missing_ok=True)


def end_tool(socket: str, state: str) -> None:
    kill_server(socket)
    shutil.rmtree(state, ignore_errors=True)
