"""How fast is ``run``?  Prints the figures the README quotes.

* median / p90 latency of ``call("run", command="true")`` over N runs in one
  process (the first run, which starts the server and shell, is excluded);
* overhead above 1000 ms for ``sleep 1`` (median over a few runs).

Runs on its own tmux socket and state directory; nothing else is touched.
Usage: ``.venv/bin/python bench/run_bench.py [N]``.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 100
    socket = f"tt-bench-{os.getpid()}"
    state = tempfile.TemporaryDirectory(prefix="tt-bench-")
    os.environ["TMUX_TOOL_PRIVATE_SOCKET"] = socket
    os.environ["TMUX_TOOL_STATE_DIR"] = state.name
    from python.tools.tmux_tool import call

    try:
        first = time.perf_counter()
        assert call("run", command="true")["ok"]
        start_ms = (time.perf_counter() - first) * 1000
        lat = []
        for _ in range(n):
            t0 = time.perf_counter()
            res = call("run", command="true")
            lat.append((time.perf_counter() - t0) * 1000)
            assert res["exit_code"] == 0, res
        sleeps = []
        for _ in range(5):
            t0 = time.perf_counter()
            res = call("run", command="sleep 1")
            sleeps.append((time.perf_counter() - t0) * 1000 - 1000)
            assert res["exit_code"] == 0, res
        print(f"run 'true' x{n}: median {statistics.median(lat):.1f} ms, p90 {percentile(lat, 0.9):.1f} ms "
              f"(first run incl. server + shell start: {start_ms:.0f} ms)")
        print(f"run 'sleep 1' x5: overhead above 1000 ms median {statistics.median(sleeps):.1f} ms, "
              f"max {max(sleeps):.1f} ms")
        print("reference: polling the pane every 0.5 s costs >= 250 ms on average per command")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
        state.cleanup()


if __name__ == "__main__":
    main()
