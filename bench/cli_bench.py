"""The command line: one process per call, so start-up is most of the cost.

Figures, each next to its floor from the same run:

* ``run --command true`` through ``python -m python.tools.tmux_tool``, median,
  against ``python -c pass`` plus the in-process ``run true`` median (what a
  process that did nothing but the work would need at the least);
* each call's look for changed profile files (``registry.refresh`` with none
  changed: the folders listed and their files' times read), against the
  in-process ``run true`` it is part of;
* the shared session's ``send --text 'echo hi'`` then ``wait``, two command-line
  calls against a shared session of the bench's own (our tmux config, a bash
  with a fixed prompt), against two ``python -c pass`` plus the same pair made
  in-process.

The calls are answered by the resident process the first call starts
(``frontends/resident.py``); that first call (in its own process, then
starting the resident) and the same ``run`` with ``TMUX_TOOL_RESIDENT=off``
(every call in its own process, as before there was a resident) are printed
too.  Targets: ``run`` at most 120 ms and at most 2x its floor; the shared
pair at most 2x its floor.  The environment is used as it is; the line says
whether the library's bytecode is on disk (``PYTHONDONTWRITEBYTECODE=1``,
common in containers, keeps Python from writing it; set-up compiles it once).
Usage: ``.venv/bin/python bench/cli_bench.py [N]`` (default 30).
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

from floors import REPO, end_tool, isolated_tool, kill_server, line, median_ms, python_start, timed

from python.helpers.tmux_tool.frontends import relay
from python.helpers.tmux_tool.programs import registry

CLI = [sys.executable, "-m", "python.tools.tmux_tool"]
SHARED_CONF = REPO / "apps" / "shared-terminal" / "tmux.conf"


def cli(*args: str, env: dict[str, str] | None = None) -> float:
    t0 = time.perf_counter()
    done = subprocess.run([*CLI, *args], cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False, env=env)
    took = time.perf_counter() - t0
    assert done.returncode == 0, (args, done.stderr)
    return took


def bytecode() -> str:
    """Is the library's bytecode on disk and current (else every process compiles what it imports)?"""
    import importlib.util

    sources = list((REPO / "python").rglob("*.py"))
    fresh = 0
    for src in sources:
        pyc = Path(importlib.util.cache_from_source(str(src)))
        fresh += pyc.exists() and pyc.stat().st_mtime >= src.stat().st_mtime
    return f"bytecode current for {fresh} of {len(sources)} modules"


def start_shared(socket: str, home: Path) -> None:
    """A shared session as start.sh makes it (same tmux config), with a fixed prompt."""
    (home / ".bashrc").write_text("PS1='bench@box:\\w\\$ '\nHISTFILE=/dev/null\n")
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    subprocess.run(["tmux", "-L", socket, "-f", str(SHARED_CONF), "new-session", "-d", "-s", "shared",
                    "-x", "120", "-y", "40", "-c", str(home), "-e", f"HOME={home}",
                    shutil.which("bash") or "/bin/bash", "--noprofile", "--rcfile", str(home / ".bashrc"), "-i"],
                   check=True, timeout=10, env=env)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    socket, state = isolated_tool("cli")
    shared_socket = f"{socket}-shared"
    home = Path(tempfile.mkdtemp(prefix="tt-bench-home-"))
    os.environ["TMUX_TOOL_SHARED_SOCKET"] = shared_socket
    os.environ["TMUX_TOOL_SHARED_SESSION"] = "shared"
    os.environ.pop(relay.SWITCH, None)
    from python.tools.tmux_tool import call

    try:
        assert relay.ask(b"ping", os.environ, str(REPO)) is None, "a resident of this identity runs already"
        first = cli("run", "--command", "true")  # in its own process; starts the resident
        assert call("run", command="true")["ok"]
        in_process = []
        for _ in range(n):
            t0 = time.perf_counter()
            assert call("run", command="true")["ok"]
            in_process.append(time.perf_counter() - t0)
        passes = python_start(n)
        runs = [cli("run", "--command", "true") for _ in range(n)]
        assert relay.ask(b"ping", os.environ, str(REPO)), "the calls were not answered by a resident"
        alone = [cli("run", "--command", "true", env={**os.environ, relay.SWITCH: "off"}) for _ in range(n)]
        floor = statistics.median(passes) + statistics.median(in_process)
        print(f"(PYTHONDONTWRITEBYTECODE={os.environ.get('PYTHONDONTWRITEBYTECODE', '')}; {bytecode()})")
        print(line(f"command line 'run --command true', median of {n}", statistics.median(runs) * 1000,
                   floor * 1000, "python -c pass + in-process run", 2.0)
              + f"  (120 ms: {'ok' if statistics.median(runs) <= 0.120 else 'OVER'})")
        print(f"  first call (its own process, starts the resident) {first * 1000:.0f} ms; every call in its "
              f"own process ({relay.SWITCH}=off) median {statistics.median(alone) * 1000:.1f} ms")
        checks = timed(registry.refresh, n * 10)
        print(line(f"each call's look for changed profile files (registry.refresh, none changed), median of "
                   f"{n * 10}", median_ms(checks), median_ms(in_process), "the in-process run true"))

        start_shared(shared_socket, home)
        assert call("wait", timeout=10)["ok"]
        pairs_in, pairs_cli = [], []
        for i in range(max(5, n // 3)):
            t0 = time.perf_counter()
            sent = call("send", text=f"echo in-process {i}", timeout=10)
            waited = call("wait", timeout=10)
            pairs_in.append(time.perf_counter() - t0)
            assert sent["ok"] and waited["ok"], (sent, waited)
            pairs_cli.append(cli("send", "--text", f"echo command-line {i}", "--timeout", "10")
                             + cli("wait", "--timeout", "10"))
        floor = 2 * statistics.median(passes) + statistics.median(pairs_in)
        print(line(f"command line shared 'send' + 'wait', median of {len(pairs_cli)}",
                   statistics.median(pairs_cli) * 1000, floor * 1000,
                   "2x python -c pass + the pair in-process", 2.0)
              + f"  (in-process pair {statistics.median(pairs_in) * 1000:.1f} ms)")
    finally:
        relay.ask(b"stop", os.environ, str(REPO))
        kill_server(shared_socket)
        shutil.rmtree(home, ignore_errors=True)
        end_tool(socket, state)


if __name__ == "__main__":
    main()
