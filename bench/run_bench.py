"""How fast is ``run``?  Each figure next to its floor from the same run.

* ``call("run", command="true")`` in one process (the first run, which starts
  the server and the shell, is left out), median and p90, against the bare
  round trip of tmux processes (``send-keys`` + ``wait-for``, see
  :mod:`floors`), interleaved so both see the same load;
* the overhead above 1000 ms of ``run sleep 1``, against the bare round
  trip's overhead for ``sleep 1``.

Target: both ratios at most 0.5.
Usage: ``.venv/bin/python bench/run_bench.py [N]`` (default 200 runs).
"""

from __future__ import annotations

import statistics
import sys
import time

from floors import Server, end_tool, isolated_tool, line, median_ms


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    socket, state = isolated_tool("run")
    floor = Server("run")
    from python.tools.tmux_tool import call

    try:
        t0 = time.perf_counter()
        assert call("run", command="true")["ok"]
        first = (time.perf_counter() - t0) * 1000
        ours, bare = [], []
        for _ in range(n):  # interleaved: both halves see the same moments of load
            t0 = time.perf_counter()
            res = call("run", command="true")
            ours.append(time.perf_counter() - t0)
            assert res["exit_code"] == 0, res
            bare.append(floor.round_trip("true"))
        sleeps, bare_sleeps = [], []
        for _ in range(5):
            t0 = time.perf_counter()
            res = call("run", command="sleep 1")
            sleeps.append(time.perf_counter() - t0 - 1.0)
            assert res["exit_code"] == 0, res
            bare_sleeps.append(floor.round_trip("sleep 1") - 1.0)
        print(line(f"run 'true' median of {n}", median_ms(ours), median_ms(bare), "send-keys + wait-for", 0.5))
        print(f"  run 'true' p90 {percentile(ours, 0.9) * 1000:.1f} ms, floor p90 "
              f"{percentile(bare, 0.9) * 1000:.1f} ms; first run (server + shell start) {first:.0f} ms")
        print(line("run 'sleep 1' overhead above 1000 ms, median of 5", median_ms(sleeps),
                   statistics.median(bare_sleeps) * 1000, "the same for the bare round trip", 0.5))
    finally:
        floor.kill()
        end_tool(socket, state)


if __name__ == "__main__":
    main()
