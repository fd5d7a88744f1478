"""How fast is a command in the shared session?  Prints the README's figure.

``send "echo hi"`` + wait until the bash prompt is back (the default of
``send``), median over N runs, in a shared terminal started exactly like
``apps/shared-terminal/start.sh`` does (our tmux.conf, a real bash) on a
socket of its own.  No markers are involved: this is the screen-judged path.

The floor, measured in the same run on the same session: how soon tmux
shows the prompt again after a bare ``send-keys 'echo hi' Enter``, seen by
a tight ``capture-pane`` loop (no checks, no politeness).  The figure is
printed with its ratio to the floor.
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
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROMPT_END = "$" if os.geteuid() else "#"
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
        floor = sorted(_bare_round_trip(socket) for _ in range(n))
        med, fmed = statistics.median(lat), statistics.median(floor)
        print(f"floor: bare send-keys + capture loop until the prompt is back x{n}: median {fmed:.1f} ms")
        print(f"shared send 'echo hi' + wait for the prompt x{n}: median {med:.1f} ms, "
              f"p90 {lat[int(0.9 * len(lat))]:.1f} ms, min {lat[0]:.1f} ms = {med / fmed:.1f}x the floor")
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
        scratch_dir.cleanup()


def _bare_round_trip(socket: str) -> float:
    """Milliseconds from a bare ``send-keys`` to the prompt shown again below ``hi`` (tight capture loop)."""
    tmux = ["tmux", "-L", socket]

    def rows() -> list[str]:
        return subprocess.run([*tmux, "capture-pane", "-p", "-t", "=shared:"], capture_output=True, text=True, check=False,
                              timeout=10).stdout.rstrip().splitlines()

    def until(done: Callable[[list[str]], bool]) -> None:
        deadline = time.monotonic() + 10
        while not done(rows()):
            if time.monotonic() > deadline:
                raise SystemExit("the bare round trip never saw the prompt again")

    subprocess.run([*tmux, "send-keys", "-t", "=shared:", "clear", "Enter"], check=True, timeout=10)
    until(lambda r: len(r) == 1 and r[0].endswith(PROMPT_END))
    t0 = time.perf_counter()
    subprocess.run([*tmux, "send-keys", "-t", "=shared:", "echo hi", "Enter"], check=True, timeout=10)
    until(lambda r: len(r) == 3 and r[1] == "hi" and r[2].endswith(PROMPT_END))
    return (time.perf_counter() - t0) * 1000


if __name__ == "__main__":
    main()
