"""What each cold-start device of the command line still saves, now that a resident answers.

A command-line call is a new Python process.  From the second call on, a
resident process answers it (``frontends/relay.py``), so the call itself only
loads the tool's entry module and the relay; the library is loaded once, by
the resident.  Four devices were built to make that process start fast; each
is measured here against what it avoids, in the same run, next to the floor
``python -c pass``:

* the package's entry points are loaded on first use (``tmux_tool/__init__``'s
  ``__getattr__``): without it, every call would load the library
  (``api``) before asking the resident;
* the package's ``__init__`` does not import ``typing`` (``TYPE_CHECKING =
  False``): the relay path would otherwise load it;
* the screen layer names what it exports lazily (``screen/__init__``'s
  ``__getattr__``): it spares pyte only for a process that never renders - so
  the bench asks, for each action run in its own process, whether pyte was
  loaded anyway;
* processes are started with ``posix_spawn`` (``transport/process.py``)
  rather than ``subprocess``: per process started, in-process, median of many.

Usage: ``.venv/bin/python bench/cold_bench.py [N]`` (default 20 starts per figure).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from floors import REPO, kill_server, line

RELAY_PATH = "import python.tools.tmux_tool; import python.helpers.tmux_tool.frontends.relay"
ACTIONS = {"help": {}, "list": {}, "run": {"command": "true"}, "read": {"session": "scratch"}}
PROBE = """
import json, os, sys
from python.tools.tmux_tool import call
call(sys.argv[1], **json.loads(sys.argv[2]))
print(json.dumps(sorted(m for m in ("pyte", "subprocess", "typing") if m in sys.modules)))
"""


def started(codes: list[str], n: int) -> list[float]:
    """Median seconds of ``python -c CODE`` in the repository for each code, each a new process.

    The codes take turns, so a load that comes and goes falls on each alike.
    """
    times: list[list[float]] = [[] for _ in codes]
    for _ in range(n):
        for code, samples in zip(codes, times, strict=True):
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True)
            samples.append(time.perf_counter() - t0)
    return [statistics.median(samples) for samples in times]


def loaded_by(action: str) -> list[str]:
    """Which of pyte, subprocess and typing one action loads, run alone in its own process."""
    state = tempfile.mkdtemp(prefix="tt-bench-cold-")
    socket = f"tt-bench-cold-{os.getpid()}"
    env = {**os.environ, "TMUX_TOOL_PRIVATE_SOCKET": socket, "TMUX_TOOL_STATE_DIR": state,
           "TMUX_TOOL_RESIDENT": "off"}
    try:
        done = subprocess.run([sys.executable, "-c", PROBE, action, json.dumps(ACTIONS[action])], cwd=REPO,
                              env=env, capture_output=True, text=True, check=True, timeout=60)
        return list(json.loads(done.stdout.splitlines()[-1]))
    finally:
        kill_server(socket)
        shutil.rmtree(state, ignore_errors=True)


def spawns(n: int) -> tuple[float, float]:
    """Median seconds to run ``true`` and read its outputs: the tool's spawner, then ``subprocess.run``."""
    from python.helpers.tmux_tool.transport import process

    true = shutil.which("true") or "/bin/true"
    ours, theirs = [], []
    for _ in range(n):
        t0 = time.perf_counter()
        process.run([true], b"", 10)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        subprocess.run([true], input=b"", capture_output=True, timeout=10, check=True)
        theirs.append(time.perf_counter() - t0)
    return statistics.median(ours), statistics.median(theirs)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    floor, relay, eager, typed = started(
        ["pass", RELAY_PATH, RELAY_PATH + "; import python.helpers.tmux_tool.api", RELAY_PATH + "; import typing"],
        n)
    print(line(f"a relayed call's imports (entry module + relay), median of {n}", relay * 1000, floor * 1000,
               "python -c pass"))
    print(f"  lazy entry points: loading the library up front would add {(eager - relay) * 1000:.1f} ms "
          f"to every relayed call ({eager * 1000:.1f} ms)")
    print(f"  no typing on the relay path: importing it would add {(typed - relay) * 1000:.1f} ms "
          f"({typed * 1000:.1f} ms)")
    rendering = {action: loaded_by(action) for action in ACTIONS}
    spared = [action for action, mods in rendering.items() if "pyte" not in mods]
    print(f"  screen's lazy names: pyte is loaded anyway by {len(ACTIONS) - len(spared)} of {len(ACTIONS)} "
          f"actions run in their own process (spared: {', '.join(spared) or 'none'}); subprocess by "
          f"{sum('subprocess' in mods for mods in rendering.values())}")
    ours, theirs = spawns(n * 10)
    print(line(f"one process started and read by the tool's spawner, median of {n * 10}", ours * 1000,
               theirs * 1000, "subprocess.run"))


if __name__ == "__main__":
    main()
