"""What does ``TMUX_TOOL_TRACE`` cost, off and on?

The same ``run`` of ``true`` in a private session (the tool's persistent
connection, as in a long-lived host) timed with the trace off, then on (to a
file), next to the floor measured in the same run: a bare tmux round trip in
a bare shell (``floors.Server``).  The figure that matters is "off": it must
be the tool's usual cost, since the switch is read and nothing else happens.
Usage: ``.venv/bin/python bench/trace_bench.py [RUNS]``.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from floors import Server, end_tool, isolated_tool, line, median_ms, timed

from python.helpers.tmux_tool.core import trace
from python.tools.tmux_tool import call


def main() -> None:
    runs = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    socket, state = isolated_tool("trace")
    bare = Server("trace")
    folder = tempfile.mkdtemp(prefix="tt-trace-")
    try:
        assert call("run", command="true", timeout=20)["ok"]  # the session and its shell exist
        floor = median_ms([bare.round_trip("true") for _ in range(runs)])
        path = str(Path(folder) / "trace.jsonl")
        off: list[float] = []
        on: list[float] = []
        for _ in range(runs):  # interleaved, so the machine's drift falls on both alike
            os.environ.pop(trace.SWITCH, None)
            off += timed(lambda: call("run", command="true", timeout=20), 1)
            os.environ[trace.SWITCH] = path
            on += timed(lambda: call("run", command="true", timeout=20), 1)
        os.environ.pop(trace.SWITCH, None)
        events = Path(path).read_text().count("\n")
        print(f"{runs} runs of `true` each way, interleaved")
        print(line("run, trace off", median_ms(off), floor, "bare tmux round trip"))
        print(line("run, trace on", median_ms(on), floor, "bare tmux round trip")
              + f"  ({events / runs:.0f} events a run)")
        print(f"on/off: {median_ms(on) / median_ms(off):.2f}x")
    finally:
        bare.kill()
        end_tool(socket, state)


if __name__ == "__main__":
    main()
