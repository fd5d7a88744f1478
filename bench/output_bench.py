"""Big outputs: ``run cat FILE`` of 10 MB, plain and coloured, next to bare tmux doing the same.

The floor is the bare round trip (``send-keys`` + ``wait-for``, see
:mod:`floors`) of the same ``cat`` in a bare shell of the same size: what
tmux itself needs to take 10 MB through a pane.  Ours adds the pane log, the
cleaning, masking and capping of the output and the saved file.  Runs
alternate with floors so both see the same load; medians of 3.

The peak memory printed is this process's high-water mark (``ru_maxrss``),
which includes the interpreter and the library (~40 MB before any run): the
output is cleaned in chunks and never held whole.

Targets: plain at most 1.5x the floor, coloured at most 2x, peak at most 100 MB.
Usage: ``.venv/bin/python bench/output_bench.py [MB] [N]``.
"""

from __future__ import annotations

import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from floors import Server, end_tool, isolated_tool, line

# Written by a child process so this one never holds the data.
MAKE = """
import sys
path, size, coloured = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
if coloured:
    row = "\\x1b[32m[build]\\x1b[0m step {:07d} \\x1b[1;34mcompiling\\x1b[0m module \\x1b[2mok\\x1b[0m\\n"
else:
    row = "[build] step {:07d} compiling module src/some/path/file.c ok\\n"
with open(path, "w") as fh:
    written, i = 0, 0
    while written < size:
        text = row.format(i)
        fh.write(text)
        written += len(text)
        i += 1
"""


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    megabytes = int(sys.argv[1]) if len(sys.argv) > 1 else 10
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    work = tempfile.mkdtemp(prefix="tt-bench-out-")
    socket, state = isolated_tool("out")
    floor = Server("out")
    from python.tools.tmux_tool import call

    try:
        assert call("run", command="true")["ok"]
        before = peak_mb()
        for kind, coloured, limit in (("plain", False, 1.5), ("coloured", True, 2.0)):
            path = os.path.join(work, f"{kind}.txt")
            subprocess.run([sys.executable, "-c", MAKE, path, str(megabytes << 20), "1" if coloured else "0"],
                           check=True)
            ours, bare = [], []
            for _ in range(n):
                bare.append(floor.round_trip(f"cat {path}"))
                t0 = time.perf_counter()
                res = call("run", command=f"cat {path}", timeout=600)
                ours.append(time.perf_counter() - t0)
                assert res["ok"] and res["exit_code"] == 0 and res.get("output_file"), res
            print(line(f"run 'cat' of {megabytes} MB {kind}, median of {n}", statistics.median(ours) * 1000,
                       statistics.median(bare) * 1000, "bare tmux, same cat", limit))
            print(f"  output to the agent {len(res['output'])} characters; saved {res['output_chars']} "
                  f"characters to {res['output_file']}")
        print(f"peak memory of this process: {peak_mb():.0f} MB (before the first big run: {before:.0f} MB)"
              f"  {'ok' if peak_mb() <= 100 else 'OVER 100 MB'}")
    finally:
        floor.kill()
        end_tool(socket, state)
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
