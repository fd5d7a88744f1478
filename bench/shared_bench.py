"""How fast is a command in the shared session?  Prints the README's figure.

``send "echo hi"`` + wait until the bash prompt is back (the default of
``send``), median over N runs, in a shared terminal started exactly like
``apps/shared-terminal/start.sh`` does (our tmux.conf, a real bash) on a
socket of its own.  No markers are involved: this is the screen-judged path.
Usage: ``.venv/bin/python bench/shared_bench.py [N]``.
"""

from __future__ import annotations

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    socket = f"tt-bench-shared-{os.getpid()}"
    scratch_dir = tempfile.TemporaryDirectory(prefix="tt-bench-shared-")
    home = Path(scratch_dir.name) / "home"
    home.mkdir()
    (home / ".bashrc").write_text("PS1='user@host:\\w\\$ '\nHISTFILE=/dev/null\n")
    os.environ.update(TMUX_TOOL_SHARED_SOCKET=socket, TMUX_TOOL_SHARED_SESSION="shared",
                      TMUX_TOOL_STATE_DIR=str(Path(scratch_dir.name) / "state"))
    subprocess.run(["tmux", "-L", socket, "-f", str(REPO / "apps/shared-terminal/tmux.conf"), "new-session",
                    "-d", "-s", "shared", "-c", str(home), shutil.which("bash") or "/bin/bash", "--noprofile",
                    "--rcfile", str(home / ".bashrc"), "-i"], check=True, timeout=10)
    from python.tools.tmux_tool import call

    try:
        deadline = time.monotonic() + 10
        while call("status")["status"] != "ready" and time.monotonic() < deadline:
            time.sleep(0.05)
        assert call("send", text="true")["status"] == "ready"
        lat = []
        for _ in range(n):
            t0 = time.perf_counter()
            res = call("send", text="echo hi")
            lat.append((time.perf_counter() - t0) * 1000)
            assert res["ok"] and res["status"] == "ready" and res["output"] == "hi", res
        lat.sort()
        print(f"shared send 'echo hi' + wait for the prompt x{n}: median {statistics.median(lat):.0f} ms, "
              f"p90 {lat[int(0.9 * len(lat))]:.0f} ms, min {lat[0]:.0f} ms")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
        scratch_dir.cleanup()


if __name__ == "__main__":
    main()
