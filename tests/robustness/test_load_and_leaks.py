"""Load and leaks: many sessions at once, a thousand runs, and nothing left behind.

One process plays the long-lived host (Agent Zero keeps the tool loaded for
days): its file descriptors, children and memory must not grow with use, and
the tmux server and state directory must hold only what is expected.  The
figures are printed (``-s`` shows them) and quoted in RELIABILITY.md.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.private import runs
from python.tools.tmux_tool import call

from .conftest import children, cmdline, poll, tmux

SESSIONS = 20
ROUNDS = 3
RUNS = 1000
WARM_UP = 50
RSS_GROWTH_LIMIT = 16 << 20  # bytes, after warm-up
STATE_LIMIT = 4 << 20  # bytes of state after the thousand runs


def _fds() -> int:
    return len(os.listdir("/proc/self/fd"))


def _rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmRSS in /proc/self/status")


def _waiters_anywhere(socket: str) -> list[int]:
    """``tmux -L socket wait-for`` clients of any process (read from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            argv = cmdline(int(entry))
            if "wait-for" in argv and socket in argv:
                found.append(int(entry))
    return found


def _tree_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _server_facts(socket: str) -> dict[str, object]:
    sessions = sorted(tmux(socket, "list-sessions", "-F", "#{session_name}").stdout.split())
    windows = tmux(socket, "list-windows", "-a", "-F", "#{window_id}").stdout.split()
    panes = tmux(socket, "list-panes", "-a", "-F", "#{pane_pid}").stdout.split()
    buffers = tmux(socket, "list-buffers", "-F", "#{buffer_name}").stdout.split()
    busy_shells = {pid: [cmdline(c) for c in children(int(pid))] for pid in panes if children(int(pid))}
    return {"sessions": sessions, "windows": len(windows), "panes": len(panes), "buffers": buffers,
            "busy_shells": busy_shells}


def _settled_facts(socket: str) -> dict[str, object]:
    """The server's facts once the shells' own brief children are gone.

    A shell signals its prompt with a short-lived ``tmux wait-for -S`` that
    may still be exiting when the run's result is back; a leak would stay.
    """
    poll(lambda: not _server_facts(socket)["busy_shells"], 5)
    return _server_facts(socket)


def test_twenty_sessions_used_at_once(private_socket: str) -> None:
    names = [f"s{i}" for i in range(SESSIONS)]

    def work(name: str) -> list[str]:
        problems = []
        for r in range(ROUNDS):
            want = "\n".join(f"{name}-{r}-{j}" for j in range(5))
            res = call("run", session=name, timeout=60,
                       command=f"for j in 0 1 2 3 4; do echo {name}-{r}-$j; sleep 0.01; done")
            if not (res["ok"] and res["exit_code"] == 0 and res["output"] == want):
                problems.append(f"{name} round {r}: {res}")
        return problems

    started = time.monotonic()
    with ThreadPoolExecutor(SESSIONS) as pool:
        problems = [p for found in pool.map(work, names) for p in found]
    took = time.monotonic() - started
    print(f"\n{SESSIONS} sessions x {ROUNDS} runs at once: {took:.2f}s, {len(problems)} wrong outputs")
    assert not problems, "\n".join(problems)
    facts = _settled_facts(private_socket)
    assert facts["sessions"] == sorted(names), facts
    assert facts["windows"] == SESSIONS and facts["panes"] == SESSIONS, facts
    assert facts["buffers"] == [] and facts["busy_shells"] == {}, facts
    for name in names:
        assert call("kill", session=name)["ok"]
    # The last one took the server along, once the clients it answered (ours too) have gone.
    assert poll(lambda: tmux(private_socket, "list-sessions").returncode != 0, 5)
    assert _waiters_anywhere(private_socket) == []


def test_a_thousand_runs_leave_nothing_behind(private_socket: str, capsys: pytest.CaptureFixture[str]) -> None:
    for i in range(WARM_UP):
        assert call("run", command=f"echo warm {i}")["output"] == f"warm {i}"
    fds, kids, rss = _fds(), sorted(children(os.getpid())), _rss()
    state = config.load().state_root
    started = time.monotonic()
    slowest = 0.0
    for i in range(RUNS):
        t0 = time.monotonic()
        res = call("run", command=f"echo run {i}")
        slowest = max(slowest, time.monotonic() - t0)
        assert res["ok"] and res["exit_code"] == 0 and res["output"] == f"run {i}", (i, res)
    took = time.monotonic() - started
    fds_after, kids_after, rss_after = _fds(), sorted(children(os.getpid())), _rss()
    facts = _settled_facts(private_socket)
    size = _tree_size(state)
    with capsys.disabled():
        print(f"\n{RUNS} runs: {took:.2f}s ({took / RUNS * 1000:.1f} ms each, slowest {slowest * 1000:.0f} ms); "
              f"fds {fds} -> {fds_after}; children {len(kids)} -> {len(kids_after)}; "
              f"RSS {rss >> 20} MiB -> {rss_after >> 20} MiB (+{(rss_after - rss) / 1024:.0f} KiB); "
              f"state {size / 1024:.0f} KiB; tmux {facts}")
    assert fds_after == fds, (fds, fds_after)
    assert kids_after == kids, ([cmdline(k) for k in kids], [cmdline(k) for k in kids_after])
    assert rss_after - rss < RSS_GROWTH_LIMIT, (rss, rss_after)
    assert facts["sessions"] == ["scratch"] and facts["windows"] == 1 and facts["panes"] == 1, facts
    assert facts["buffers"] == [] and facts["busy_shells"] == {}, facts
    assert _waiters_anywhere(private_socket) == []
    assert size < STATE_LIMIT, size


def test_logs_are_rotated_and_saved_outputs_pruned(private_socket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMUX_TOOL_OUTPUT_CAP", "1000")
    cfg = config.load()
    outputs = cfg.private_dir / "outputs"
    for i in range(runs.KEEP_OUTPUTS + 10):
        res = call("run", command=f"seq {i} 3000", session="big")
        assert res["ok"] and res.get("output_file"), res
    saved = sorted(outputs.glob("big-*.txt"))
    assert len(saved) == runs.KEEP_OUTPUTS, len(saved)
    log = cfg.private_dir / "sessions" / "big" / "pane.log"
    flood = "head -c 3000000 /dev/zero | tr '\\0' z | fold -w 100"
    peak = 0
    for _ in range(5):  # 15 MB through one session
        assert call("run", command=flood, session="big", timeout=120)["ok"]
        peak = max(peak, log.stat().st_size)
    assert call("run", command="echo small", session="big")["output"] == "small"
    print(f"\npane log peak {peak / 1e6:.1f} MB, now {log.stat().st_size / 1e3:.0f} kB; "
          f"{len(saved)} saved outputs kept")
    assert peak < runs.LOG_ROTATE + 3_300_000, peak  # rotated before it grows past one more run
    total = _tree_size(cfg.private_dir)
    assert total < runs.LOG_ROTATE + runs.KEEP_OUTPUTS * 3_300_000, total
