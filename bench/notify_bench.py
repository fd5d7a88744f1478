"""What does telling the human cost the agent's call?  Each figure next to its floor from the same run.

A private session waits for a password (``getpass``), so every ``status`` of it
says ``needs_human``.  ``TMUX_TOOL_NOTIFY`` points at a closed port (the
notifier can never deliver):

* ``status`` of that session with the variable unset, and set (the prompt was
  told of already: the call reads the records file and sends nothing),
  interleaved, against a bare tmux round trip (``send-keys`` + ``wait-for``, see
  :mod:`floors`);
* the first ``status`` of a new prompt with the variable set (the call records
  the prompt and starts the detached child that sends), against the first
  ``status`` of other new prompts with it unset.  Each is taken once the
  previous child has ended: on a machine of two cores, a child's start (Python,
  apprise's import) slows whatever runs beside it, which is the machine's load,
  not the call's cost (the child runs at nice 10).

Target: the set/unset ratio of both at most 1.1 (the network is never waited for).
Usage: ``.venv/bin/python bench/notify_bench.py [N]`` (default 200 looks, N/5 new prompts).
"""

from __future__ import annotations

import os
import socket
import sys
import time
from pathlib import Path

from floors import Server, end_tool, isolated_tool, line, median_ms

GETPASS = "python3 -c 'import getpass; getpass.getpass()'"


def closed_port() -> str:
    """An Apprise URL nobody listens at."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"json://127.0.0.1:{probe.getsockname()[1]}/"


def notifying(proc: Path) -> bool:
    """Whether ``proc`` is a notifying child of this process (False once it is gone)."""
    try:
        return (f"PPid:\t{os.getpid()}\n" in (proc / "status").read_text()
                and b"notify.py" in (proc / "cmdline").read_bytes())
    except OSError:
        return False


def children_done() -> None:
    """Until no notifying child of this process is left (bounded)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and any(notifying(p) for p in Path("/proc").glob("[0-9]*")):
        time.sleep(0.05)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    fresh = max(5, n // 5)
    tool_socket, state = isolated_tool("notify")
    os.environ.pop("TMUX_TOOL_NOTIFY", None)
    url = closed_port()
    floor = Server("notify")
    from python.tools.tmux_tool import call

    def look(session: str, notifying: bool) -> float:
        if notifying:
            os.environ["TMUX_TOOL_NOTIFY"] = url
        t0 = time.perf_counter()
        res = call("status", session=session)
        took = time.perf_counter() - t0
        os.environ.pop("TMUX_TOOL_NOTIFY", None)
        assert res.get("needs_human"), res
        return took

    try:
        for session in ("asks", *(f"new{i}" for i in range(2 * fresh))):
            assert call("run", session=session, command=GETPASS, timeout=30).get("needs_human")
        look("asks", True)  # the one notification of this prompt
        unset, told, bare = [], [], []
        for _ in range(n):  # interleaved: every figure sees the same moments of load
            unset.append(look("asks", False))
            told.append(look("asks", True))
            bare.append(floor.round_trip("true"))
        first_unset, first_told = [], []
        for i in range(0, 2 * fresh, 2):
            children_done()
            first_unset.append(look(f"new{i}", False))
            children_done()
            first_told.append(look(f"new{i + 1}", True))
        print(f"notify bench: {n} looks at a prompt told of, {fresh} new prompts; notifier {url} (closed)")
        print(line("status, TMUX_TOOL_NOTIFY unset", median_ms(unset), median_ms(bare), "bare tmux round trip"))
        print(line("status, set, prompt told of", median_ms(told), median_ms(bare), "bare tmux round trip"))
        print(line("status, set, prompt told of", median_ms(told), median_ms(unset), "the same status, unset", 1.1))
        print(line("first status of a new prompt, set", median_ms(first_told), median_ms(first_unset),
                   "first status of a new prompt, unset", 1.1))
    finally:
        floor.kill()
        end_tool(tool_socket, state)


if __name__ == "__main__":
    main()
