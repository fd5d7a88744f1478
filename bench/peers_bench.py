"""Other terminal tools for agents beside this one: one ``run true`` each, median, in one run.

Optional and never in CI: it installs the peers from PyPI, pinned, into a
scratch folder of its own (one virtualenv each, a few minutes the first
time), measures them one after another on tmux servers of the bench's own,
and removes the folder.  What "run true" means for each:

* ``tmux-mcp`` 0.3.3 (PyPI, MCP over stdio): ``tmux_send_keys`` of the text,
  then of ``Enter``; it answers before the command has run, with no exit code;
* ``libtmux-mcp`` 0.1.0a22 (MCP over stdio): ``run_command``, which waits on
  a ``tmux wait-for`` signal and reports the exit status;
* SWE-ReX 1.4.0: its ``LocalRuntime``'s bash session (pexpect, no tmux),
  ``run_in_session``;
* polling: ``send-keys`` then ``capture-pane`` every 0.5 s until the prompt
  is back, as tools that poll the screen do;
* this tool: ``call("run")`` in one process, and ``run`` through its MCP
  server with the same client as the MCP peers.

Floors measured in the same run: ``bash -c true`` as a subprocess (no
terminal at all) and the bare ``send-keys`` + ``wait-for`` round trip of
tmux processes (see :mod:`floors`).  OpenHands is not measured: the release
on PyPI (``openhands-ai``) brings its whole agent framework and a Docker
runtime with it.
Usage: ``.venv/bin/python bench/peers_bench.py [N]`` (default 30).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from floors import REPO, Server, end_tool, isolated_tool, kill_server, line, median_ms, timed

# tmux-mcp 0.3.3 is written for the MCP SDK 1.x (FastMCP), which 2.x renamed.
PEERS = {"tmux-mcp": ["tmux-mcp==0.3.3", "mcp[cli]<2"], "libtmux-mcp": ["libtmux-mcp==0.1.0a22"],
         "swe-rex": ["swe-rex==1.4.0"]}

MCP_DRIVER = """
import asyncio, json, statistics, sys, time
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

async def main(spec):
    params = StdioServerParameters(command=spec["argv"][0], args=spec["argv"][1:], env=spec["env"],
                                   cwd=spec["cwd"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        times = []
        for i in range(spec["n"] + 1):
            t0 = time.perf_counter()
            for name, args in spec["calls"]:
                res = await session.call_tool(name, args)
                if getattr(res, "isError", None) or getattr(res, "is_error", None):
                    raise SystemExit(f"{name} failed: {res}")
            times.append(time.perf_counter() - t0)
    print(json.dumps(times[1:]))

asyncio.run(main(json.loads(sys.argv[1])))
"""

SWEREX_DRIVER = """
import asyncio, json, sys, time
from swerex.runtime.abstract import BashAction, CreateBashSessionRequest
from swerex.runtime.local import LocalRuntime

async def main(n):
    runtime = LocalRuntime()
    await runtime.create_session(CreateBashSessionRequest())
    times = []
    for i in range(n + 1):
        t0 = time.perf_counter()
        obs = await runtime.run_in_session(BashAction(command="true", check="raise"))
        times.append(time.perf_counter() - t0)
        assert obs.exit_code == 0, obs
    await runtime.close()
    print(json.dumps(times[1:]))

asyncio.run(main(int(sys.argv[1])))
"""


def install(scratch: Path, name: str, requirements: list[str]) -> Path:
    """A virtualenv of its own with the peer installed from PyPI; its Python."""
    venv = scratch / name
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    python = venv / "bin" / "python"
    done = subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--pre", *requirements],
                          capture_output=True, text=True, timeout=1200, check=False)
    if done.returncode:
        raise SystemExit(f"{name} could not be installed from PyPI: {done.stderr.strip()[-2000:]}")
    return python


def driven(python: Path, script: str, *args: str, env: dict[str, str] | None = None) -> list[float]:
    done = subprocess.run([str(python), "-c", script, *args], capture_output=True, text=True, timeout=600,
                          check=False, env=env)
    if done.returncode:
        raise SystemExit(f"{python}: {done.stderr.strip()[-2000:]}")
    return list(json.loads(done.stdout))


def mcp_times(python: Path, argv: list[str], env: dict[str, str], calls: list[list[object]], n: int) -> list[float]:
    spec = {"argv": argv, "env": env, "cwd": str(REPO), "calls": calls, "n": n}
    return driven(python, MCP_DRIVER, json.dumps(spec))


def tmux_session(socket_args: list[str], env: dict[str, str]) -> None:
    subprocess.run(["tmux", *socket_args, "new-session", "-d", "-s", "peer", "-x", "200", "-y", "50", "bash",
                    "--noprofile", "--norc"], check=True, timeout=10, env=env)


def polled(socket: str, n: int) -> list[float]:
    """``send-keys`` then a look every 0.5 s until the prompt is back below the command."""
    times = []
    for i in range(n):
        t0 = time.perf_counter()
        subprocess.run(["tmux", "-L", socket, "send-keys", "-t", "=floor:", f"true # {i}", "Enter"], check=True,
                       timeout=10)
        while True:
            time.sleep(0.5)
            rows = [r for r in subprocess.run(["tmux", "-L", socket, "capture-pane", "-p", "-t", "=floor:"],
                                              capture_output=True, text=True, check=True,
                                              timeout=10).stdout.splitlines() if r.strip()]
            if len(rows) >= 2 and rows[-2].endswith(f"true # {i}") and rows[-1].rstrip().endswith(("$", "#")):
                break
        times.append(time.perf_counter() - t0)
    return times


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    scratch = Path(tempfile.mkdtemp(prefix="tt-bench-peers-"))
    socket, state = isolated_tool("peers")
    floor = Server("peers")
    peer_socket = f"{floor.socket}-libtmux"
    tmux_dir = scratch / "tmux"  # tmux-mcp has no socket option: its default socket lives here
    tmux_dir.mkdir()
    base_env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    default_env = {**base_env, "TMUX_TMPDIR": str(tmux_dir)}
    from python.tools.tmux_tool import call

    try:
        pythons = {name: install(scratch, name, req) for name, req in PEERS.items()}
        tmux_session([], default_env)
        tmux_session(["-L", peer_socket], base_env)
        assert call("run", command="true")["ok"]
        rows: list[tuple[str, float, str]] = []
        bare_sub = timed(lambda: subprocess.run(["bash", "-c", "true"], check=True), n)
        bare_tmux = [floor.round_trip("true") for _ in range(n)]
        ours = timed(lambda: call("run", command="true"), n)
        rows.append(("this tool, call('run') in one process", median_ms(ours), "exact: exit code and output"))
        ours_mcp = mcp_times(Path(sys.executable), [sys.executable, "-m", "python.tools.tmux_tool", "mcp"],
                             base_env, [["run", {"command": "true"}]], n)
        rows.append(("this tool, run through its MCP server", median_ms(ours_mcp), "exact: exit code and output"))
        tm = mcp_times(pythons["tmux-mcp"], [str(pythons["tmux-mcp"].parent / "tmux-mcp")], default_env,
                       [["tmux_send_keys", {"target": "peer", "keys": "true", "literal": True}],
                        ["tmux_send_keys", {"target": "peer", "keys": "Enter"}]], n)
        rows.append(("tmux-mcp 0.3.3, send_keys text + Enter (MCP)", median_ms(tm),
                     "returns before the command ends; no exit code"))
        lm = mcp_times(pythons["libtmux-mcp"], [str(pythons["libtmux-mcp"].parent / "libtmux-mcp")], base_env,
                       [["run_command", {"command": "true", "session_name": "peer", "socket_name": peer_socket}]],
                       n)
        rows.append(("libtmux-mcp 0.1.0a22, run_command (MCP)", median_ms(lm), "exit status; the pane's text"))
        sr = driven(pythons["swe-rex"], SWEREX_DRIVER, str(n), env=base_env)
        rows.append(("SWE-ReX 1.4.0, LocalRuntime run_in_session", median_ms(sr), "exit code; no tmux"))
        polls = polled(floor.socket, max(3, n // 6))
        rows.append(("polling the screen every 0.5 s", median_ms(polls), "the screen, not the output"))
        print(f"floors: bash -c true as a subprocess {median_ms(bare_sub):.1f} ms; bare send-keys + wait-for "
              f"round trip {median_ms(bare_tmux):.1f} ms (medians of {n})")
        for what, ms, note in rows:
            print(line(f"{what} ({note})", ms, median_ms(bare_tmux), "send-keys + wait-for"))
    finally:
        subprocess.run(["tmux", "kill-server"], capture_output=True, timeout=10, check=False, env=default_env)
        kill_server(peer_socket)
        floor.kill()
        end_tool(socket, state)
        shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
