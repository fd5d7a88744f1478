"""Twenty sessions at once: ``run true`` from 20 threads, each in a session of its own.

The floor is the same process's single-session figure, measured first.  All
threads share the process's one control-mode connection to the private
server; a run's end is heard through inotify on its own pane log, so no tmux
client process is started per run.  The CPU printed for tmux clients is what
this process's tmux client processes used during the concurrent phase: the
one-shot ones it reaped (``os.times``) plus its persistent connection
(``/proc/PID/stat``); the server's own CPU is printed beside it.

Target: the 20-thread median at most 3x the 1-session median.  A run is now
mostly Python work (under a millisecond), and the threads of one interpreter
take turns on it, so twenty runs at once wait for each other about twenty
times as long whatever the tool does; the wall time per run of the
concurrent phase, next to the same floor, says whether running them at once
costs anything beyond that (1x: nothing).
Usage: ``.venv/bin/python bench/concurrency_bench.py [THREADS] [RUNS]`` (default 20 threads, 30 runs each).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from floors import end_tool, isolated_tool, line

TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of a live process (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def children_cpu() -> float:
    t = os.times()
    return t.children_user + t.children_system


def main() -> None:
    threads = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 30
    socket, state = isolated_tool("conc")
    from python.helpers.tmux_tool.transport import connections
    from python.tools.tmux_tool import call

    def one(session: str) -> float:
        t0 = time.perf_counter()
        res = call("run", command="true", session=session)
        took = time.perf_counter() - t0
        assert res["ok"] and res["exit_code"] == 0, res
        return took

    try:
        names = [f"c{i}" for i in range(threads)]
        for name in names:  # sessions and shells made before anything is timed
            assert call("run", command="true", session=name)["ok"]
        single = [one(names[0]) for _ in range(runs * 3)]
        server = int(subprocess.run(["tmux", "-L", socket, "display-message", "-p", "#{pid}"],
                                    capture_output=True, text=True, timeout=10, check=True).stdout)
        conn = connections._connections.get(socket)
        conn_cpu, kids_cpu, server_cpu = (cpu_of(conn.pid) if conn else 0.0), children_cpu(), cpu_of(server)
        with ThreadPoolExecutor(threads) as pool:
            started = time.perf_counter()
            lists = list(pool.map(lambda n: [one(n) for _ in range(runs)], names))
            wall = time.perf_counter() - started
        conn = connections._connections.get(socket)
        clients = children_cpu() - kids_cpu + ((cpu_of(conn.pid) - conn_cpu) if conn else 0.0)
        together = [t for ts in lists for t in ts]
        print(line(f"run 'true', {threads} threads x {runs} runs at once, median",
                   statistics.median(together) * 1000, statistics.median(single) * 1000,
                   "1 session, same process", 3.0))
        print(line(f"  wall time per run while {threads} run at once", wall / len(together) * 1000,
                   statistics.median(single) * 1000, "1 session, same process"))
        print(f"  {len(together)} runs in {wall:.2f}s; CPU of tmux client processes {clients:.2f}s, "
              f"of the tmux server {cpu_of(server) - server_cpu:.2f}s")
    finally:
        end_tool(socket, state)


if __name__ == "__main__":
    main()
