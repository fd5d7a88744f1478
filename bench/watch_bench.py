"""What does waiting on many sessions cost, and how soon does it notice readiness?

Twenty private sessions each run a small AI-CLI look-alike: a ``> `` prompt,
then on a trigger a spinner redrawn with ``\\r`` every 100 ms, silent pauses,
bursts of output lines, and finally an answer and the prompt again (it writes
the time to a file just before drawing the prompt).  The look-alike presents
itself to tmux as ``node`` (its ``argv[0]``), as Claude Code and Gemini CLI
do, so the node profile reads its ``> `` prompt as ready.

For each way of watching - events (control-mode clients) and the polling
fallback (``TMUX_TOOL_EVENTS=off``) - it prints:

* CPU per second of waiting while all twenty panes are quiet (a 10 s
  ``wait until=change`` that times out) and while all twenty spin: this
  process (``getrusage`` self + reaped children), its live control clients
  (/proc), and the tmux server (/proc), as a percentage of one core;
* for the quiet wait, the tool and its tmux server together (this process,
  its clients and the server), against the limit ``QUIET_LIMIT`` and next to
  the floor: the same sessions for the same time with nobody waiting.  Once
  with the watch clients already attached by an earlier wait (a long-lived
  host), and once for a first wait that attaches them (events only);
* per session, how long after the look-alike drew its prompt the wait found
  it ready, minus the stability window ``READY_STABLE``: median, p90, max.

The spinning phase waits on all twenty at once with ``mode="all"`` through
``observe.wait_all`` - the function ``call("wait", sessions=[...])`` runs -
so each watch's own finishing time can be read.  Runs on its own tmux socket
and state directory, its server started with the private server's own tmux
configuration (``SERVER_CONF``).  Usage: ``.venv/bin/python bench/watch_bench.py [SESSIONS]``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from floors import kill_server

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.core.clock import Deadline
from python.helpers.tmux_tool.judgement.state import READY_STABLE
from python.helpers.tmux_tool.private.server import SERVER_CONF
from python.helpers.tmux_tool.sessions import observe
from python.helpers.tmux_tool.sessions.context import Context
from python.helpers.tmux_tool.transport import connections, events
from python.helpers.tmux_tool.transport.tmux import Tmux
from python.tools.tmux_tool import call

QUIET_SECONDS = 10.0
QUIET_LIMIT = 2.0  # % of one core: the tool and its tmux server together, waiting on quiet sessions
SPIN_RANGE = (4.0, 7.0)  # each look-alike spins this long (spread so readiness times differ)
CLK = os.sysconf("SC_CLK_TCK")

FAKE_CLI = r'''
import os, random, sys, time
trigger, stamp, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
lo, hi = float(sys.argv[4]), float(sys.argv[5])
rnd = random.Random(seed)
frames = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"

def w(text):
    sys.stdout.write(text)
    sys.stdout.flush()

w("fake-cli 1.0 - describe a task\n\n> ")
cycle = 0
while True:
    with open(trigger) as fifo:  # blocks, silent, until the bench opens the fifo for writing
        fifo.read()
    cycle += 1
    w("fix the tests\n")
    started = time.time()
    end = started + rnd.uniform(lo, hi)
    i = 0
    while time.time() < end:
        r = rnd.random()
        if r < 0.05:  # a burst of tool output
            lines = "".join(f"  | line {k}: {'x' * rnd.randint(10, 90)}\n" for k in range(rnd.randint(15, 40)))
            w("\r\x1b[K" + lines)
        elif r < 0.08:  # the spinner holds still a while
            time.sleep(rnd.uniform(0.3, 0.6))
            continue
        w(f"\r{frames[i % 10]} Thinking... ({time.time() - started:.0f}s, esc to interrupt)\x1b[K")
        i += 1
        time.sleep(0.1)
    w(f"\r\x1b[K* Done with cycle {cycle}: all tests pass.\n\n")
    with open(stamp, "w") as fh:
        fh.write(repr(time.time()))
    w("> ")
'''


@dataclass
class Cpu:
    """CPU seconds so far: this process (+ reaped children), live control clients, tmux server."""

    own: float
    clients: float
    server: float
    wall: float


def proc_cpu(pid: int) -> float:
    """CPU seconds of a single-threaded process (tmux server or client), to the nanosecond where /proc says.

    ``/proc/PID/schedstat`` counts nanoseconds; ``stat`` counts clock ticks
    (10 ms), which loses most of a short-lived client's cost.
    """
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[0]) / 1e9
    except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
        pass
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK


def sample(tmux: Tmux, server_pid: int) -> Cpu:
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    src = events.source_for(tmux)
    clients = sum(proc_cpu(pid) for pid in src.pids().values()) if src else 0.0
    return Cpu(me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime, clients, proc_cpu(server_pid),
               time.monotonic())


@dataclass
class Share:
    """CPU between two samples, in % of one core."""

    own: float
    clients: float
    server: float
    wall: float

    @property
    def tool(self) -> float:
        return self.own + self.clients

    @property
    def total(self) -> float:
        return self.tool + self.server

    def __str__(self) -> str:
        return (f"{self.tool:5.2f}% this process+children ({self.own:.2f} + clients {self.clients:.2f}), "
                f"tmux server {self.server:5.2f}%  [over {self.wall:.1f}s]")


def share(a: Cpu, b: Cpu) -> Share:
    wall = b.wall - a.wall
    return Share((b.own - a.own) / wall * 100, max(0.0, b.clients - a.clients) / wall * 100,
                 (b.server - a.server) / wall * 100, wall)


def together(what: str, s: Share, floor: Share, limit: bool = True) -> str:
    """The quiet wait's tool + server figure, its floor and (events only: polling is the fallback) the limit."""
    verdict = f" | limit {QUIET_LIMIT:g}%: {'ok' if s.total <= QUIET_LIMIT else 'OVER'}" if limit else ""
    return (f"{what}, tool + server: {s.total:.2f}% of a core (tool {s.tool:.2f}, server {s.server:.2f}) | "
            f"floor (nobody waiting, {floor.wall:.0f}s): {floor.total:.2f}% | above the floor "
            f"{s.total - floor.total:.2f}%{verdict}")


def quiet_wait(names: list[str], tmux: Tmux, server_pid: int) -> Share:
    a = sample(tmux, server_pid)
    res = call("wait", sessions=names, until="change", timeout=QUIET_SECONDS)
    b = sample(tmux, server_pid)
    assert not res["ok"], "a quiet pane changed"
    return share(a, b)


def trigger_all(fifo: Path) -> None:
    """Open the fifo for writing: every look-alike blocked on it starts a cycle."""
    fd = os.open(fifo, os.O_WRONLY)
    os.close(fd)


def run_mode(label: str, names: list[str], tmux: Tmux, server_pid: int, fifo: Path, stamps: dict[str, Path]) -> dict:
    ctx = Context(config.load())
    # Settle: every look-alike at its prompt (this also attaches the watch clients, which linger).
    res = call("wait", sessions=names, mode="all", timeout=30)
    assert res["ok"], res
    # A first quiet wait lets attach-time news (tmux's first subscription report) pass unmeasured.
    call("wait", sessions=names, until="change", timeout=1.5)

    quiet = quiet_wait(names, tmux, server_pid)
    cold = None
    if events.source_for(tmux) is not None:
        # A first wait: no watch client attached yet (a process that has not waited before).
        events.close_all()
        cold = quiet_wait(names, tmux, server_pid)

    for stamp in stamps.values():
        stamp.unlink(missing_ok=True)
    watches = [observe.Watch(ctx.session(n, default=n), "ready", None, observe.DEFAULT_STABLE) for n in names]
    spin_sample: dict[str, Cpu] = {}
    trigger_all(fifo)
    start = sample(tmux, server_pid)
    # All twenty spin for at least SPIN_RANGE[0] seconds: sample then, from another thread.
    timer = threading.Timer(SPIN_RANGE[0] - 0.2, lambda: spin_sample.setdefault("cpu", sample(tmux, server_pid)))
    timer.start()
    # Ready is awaited once every screen has left its old prompt (else a first look could still see it).
    assert call("wait", sessions=names, until="change", mode="all", timeout=10)["ok"]
    ok = observe.wait_all(watches, "all", Deadline(SPIN_RANGE[1] + 20))
    timer.join()
    assert ok, [(w.target.name, w.state.status if w.state else None) for w in watches if not w.done]
    spinning = share(start, spin_sample["cpu"])
    offset = time.time() - time.monotonic()
    late = []
    for w in watches:
        ready_at = float(stamps[w.target.name].read_text())
        assert w.done_at is not None
        late.append((w.done_at + offset - ready_at - READY_STABLE) * 1000)
    late.sort()
    return {"label": label, "quiet": quiet, "cold": cold, "spinning": spinning, "late": late}


def unwatched_quiet(tmux: Tmux, server_pid: int) -> Share:
    """The floor of the quiet wait: the same quiet sessions, as long, with no client of ours attached."""
    events.close_all()
    connections.close_all()
    a = sample(tmux, server_pid)
    time.sleep(QUIET_SECONDS)
    return share(a, sample(tmux, server_pid))


def unwatched(tmux: Tmux, server_pid: int, fifo: Path, stamps: dict[str, Path]) -> Share:
    """The tmux server's own cost of twenty spinners when nobody waits on them (the floor)."""
    for stamp in stamps.values():
        stamp.unlink(missing_ok=True)
    trigger_all(fifo)
    a = sample(tmux, server_pid)
    deadline = time.monotonic() + SPIN_RANGE[0] - 0.2
    while time.monotonic() < deadline:
        time.sleep(0.1)
    b = sample(tmux, server_pid)
    while not all(p.exists() for p in stamps.values()):  # let the cycle end before the server goes
        time.sleep(0.1)
    return share(a, b)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("sessions", nargs="?", type=int, default=20, help="how many sessions to watch (20)")
    count = parser.parse_args().sessions
    socket = f"tt-watch-bench-{os.getpid()}"
    state = tempfile.TemporaryDirectory(prefix="tt-watch-bench-")
    os.environ["TMUX_TOOL_PRIVATE_SOCKET"] = socket
    os.environ["TMUX_TOOL_STATE_DIR"] = state.name
    os.environ.pop(events.SWITCH, None)
    work = Path(state.name)
    script = work / "fake_cli.py"
    script.write_text(FAKE_CLI)
    fifo = work / "go"
    os.mkfifo(fifo)
    conf = work / "tmux.conf"
    conf.write_text(SERVER_CONF)  # the private server's configuration, as the tool starts it
    tmux = Tmux(socket, config_file=str(conf))
    names = [f"cli{i:02d}" for i in range(count)]
    stamps = {n: work / f"{n}.ready" for n in names}
    python = os.path.realpath(sys.executable)  # the interpreter itself, not a launcher script
    try:
        for i, name in enumerate(names):
            # argv[0] "node" hides where the interpreter lives: PYTHONHOME says it.
            argv = (f"export PYTHONHOME={sys.base_prefix}; exec -a node {python} {script} {fifo} "
                    f"{stamps[name]} {i} {SPIN_RANGE[0]} {SPIN_RANGE[1]}")
            tmux.cmd("new-session", "-d", "-s", name, "-x", "200", "-y", "50", "bash", "-c", argv)
            tmux.cmd("set-option", "-w", "-t", f"={name}:", "window-size", "manual")  # as the tool does
        server_pid = int(tmux.display(f"={names[0]}:", "#{pid}"))
        results = [run_mode("events", names, tmux, server_pid, fifo, stamps)]
        events.close_all()
        os.environ[events.SWITCH] = "off"
        results.append(run_mode("polling", names, tmux, server_pid, fifo, stamps))
        floor = unwatched(tmux, server_pid, fifo, stamps)
        quiet_floor = unwatched_quiet(tmux, server_pid)
        version = subprocess.run(["tmux", "-V"], capture_output=True, text=True, timeout=5, check=True).stdout
        print(f"{count} sessions of an AI-CLI look-alike, {version.strip()}, "
              f"stability window {READY_STABLE * 1000:.0f} ms")
        for r in results:
            late = r["late"]
            print(f"[{r['label']}]")
            print(f"  quiet:    {r['quiet']}")
            print(f"  {together('quiet', r['quiet'], quiet_floor, r['label'] == 'events')}")
            if r["cold"] is not None:
                print(f"  first wait (attaches its clients): {r['cold']}")
                print(f"  {together('first wait', r['cold'], quiet_floor)}")
            print(f"  spinning: {r['spinning']}")
            print(f"  ready noticed beyond the window: median {statistics.median(late):.0f} ms, "
                  f"p90 {late[int(0.9 * (len(late) - 1))]:.0f} ms, max {late[-1]:.0f} ms")
        print(f"[nobody waiting] spinning: {floor}")
        print(f"[nobody waiting] quiet:    {quiet_floor}")
        print("quiet figures include each call's fixed cost (checking the sessions exist, first looks)")
    finally:
        events.close_all()
        kill_server(socket)
        state.cleanup()


if __name__ == "__main__":
    main()
