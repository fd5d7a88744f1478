"""What the human's control costs a shared ``send``.  Prints each step next to its floor.

Every step of the control protocol is at most one tmux command.  The floor is
the cheapest possible tmux round trip (``display-message -p`` of a constant)
measured in the same run; the ratio says how many such round trips a step
costs.  A shared ``send`` adds two of them: the audit record (which also
announces "typing"/"waiting" and names the trail) and the closing "idle"
announcement.  Its pause and approve-mode checks ride on the pane look the
send takes anyway; the page and agent.sh use the pause check and the look.
Usage: ``.venv/bin/python bench/control_bench.py [N]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from floors import kill_server


def median_ms(step: Callable[[], object], n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        step()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def main() -> None:
    from python.helpers.tmux_tool.shared import audit, control
    from python.helpers.tmux_tool.transport.tmux import Tmux

    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    socket = f"tt-bench-control-{os.getpid()}"
    target = "=shared:"
    scratch = tempfile.TemporaryDirectory(prefix="tt-bench-control-")
    subprocess.run(["tmux", "-L", socket, "-f", str(REPO / "apps/shared-terminal/tmux.conf"), "new-session",
                    "-d", "-s", "shared", "sh"], check=True, timeout=10)
    tmux = Tmux(socket)
    log = Path(scratch.name) / "state" / "audit.log"
    try:
        floor = median_ms(lambda: tmux.display(target, "x"), n)
        flip = iter(range(10**9))
        steps: dict[str, Callable[[], object]] = {
            "pause check (paused)": lambda: control.paused(tmux, target),
            "look at all control options (read)": lambda: control.read(tmux, target),
            "announce (a new state each time)": lambda: control.announce(tmux, target, "waiting", "make",
                                                                         f"for the prompt {next(flip)}"),
            "announce (same state again: skipped)": lambda: control.announce(tmux, target, "idle"),
            "audit record and announcement (record_injection)": lambda: audit.record_injection(
                tmux, target, log, {"time": time.time(), "action": "send", "text": "make", "keys": [],
                                    "enter": True}, submitted=True),
        }
        print(f"floor: bare tmux round trip (display-message -p) x{n}: median {floor:.2f} ms")
        for name, step in steps.items():
            cost = median_ms(step, n)
            print(f"{name} x{n}: median {cost:.2f} ms = {cost / floor:.2f} x floor")
    finally:
        kill_server(socket)
        scratch.cleanup()


if __name__ == "__main__":
    main()
