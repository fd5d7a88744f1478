"""Watching sessions through tmux control mode (real tmux 3.3a, private sockets).

What must hold: a silent pane costs nothing, a changed one is looked at once
per burst, the read-only watch client never looks like the human to the
guardrails, never resizes the window and never types, a flooding pane does
not slow the others down, and a watch client killed mid-wait leaves the wait
to polling without losing it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.core.errors import NoTarget
from python.helpers.tmux_tool.sessions import observe
from python.helpers.tmux_tool.sessions.context import Context
from python.helpers.tmux_tool.transport import events, listen, panes
from python.helpers.tmux_tool.transport.tmux import Tmux
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal


@pytest.fixture(autouse=True)
def _no_clients_left() -> Iterator[None]:
    """Every test starts and ends without watch clients of this process."""
    events.close_all()
    yield
    events.close_all()


def private(name: str) -> None:
    res = call("run", session=name, command="true", timeout=10)
    assert res["ok"] and res["status"] == "ready", res


def start_late(name: str, delay: float, stamp: Path) -> None:
    """Run a command that writes the time to ``stamp`` after ``delay``, just before the prompt returns."""
    res = call("run", session=name, command=f"sleep {delay}; date +%s.%N > {stamp}", timeout=0.05)
    assert res["ok"] and res["status"] == "busy", res


def stamp_time(stamp: Path, timeout: float = 10.0) -> float:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        text = stamp.read_text().strip() if stamp.exists() else ""
        if text:
            return float(text)
        time.sleep(0.01)
    raise AssertionError(f"{stamp} was never written")


def attached(src: events.EventSource, names: list[str], timeout: float = 3.0) -> dict[str, int]:
    """The PIDs of the watch clients of ``names`` once every one is attached and set up."""
    deadline = time.monotonic() + timeout
    while True:
        clients = [src.clients.get(n) for n in names]
        if all(c is not None and c.alive and c.ready.is_set() for c in clients):
            return {n: c.pid for n, c in zip(names, clients, strict=True) if c is not None}
        assert time.monotonic() < deadline, "the wait did not attach its clients"
        time.sleep(0.005)


def source(socket: str) -> events.EventSource:
    src = events.source_for(Tmux(socket))
    assert src is not None
    return src


def watch_clients(socket: str) -> list[str]:
    """The sessions of the clients that hear pane output (the command connection hears none)."""
    rows = subprocess.run(["tmux", "-L", socket, "list-clients", "-F", "#{client_session} #{client_flags}"],
                          capture_output=True, text=True, timeout=5, check=True).stdout.splitlines()
    return [r.split()[0] for r in rows if "no-output" not in r.split()[1].split(",")]


def test_one_client_hears_only_its_own_session(private_socket: str) -> None:
    """tmux 3.3a sends a control client the output of its own session only: one client per session."""
    private("ea")
    private("eb")
    src = source(private_socket)
    client = src.acquire(["ea"])["ea"]
    try:
        before = client.seq
        call("run", session="eb", command="echo in-b", timeout=5)
        time.sleep(0.3)  # give a stray notification time to arrive; none may
        assert client.seq == before
        call("run", session="ea", command="echo in-a", timeout=5)
        deadline = time.monotonic() + 2
        while client.seq == before and time.monotonic() < deadline:
            time.sleep(0.01)
        assert client.seq > before
    finally:
        src.release([client])


def test_commands_through_the_client_answer_like_a_process(private_socket: str) -> None:
    """Quoting and replies: every argument arrives exactly as given, errors map to the same exceptions."""
    private("eq")
    tmux = Tmux(private_socket)
    src = source(private_socket)
    clients = src.acquire(["eq"])
    runner = listen.Runner(src)
    try:
        for text in ("a'b", "ends;", "$HOME ~ #{session_name} {x}", "two\nlines", "\x1f\t\\", "%end 1 2 1", ""):
            cmd = ["display-message", "-p", "-t", "=eq:", text]
            assert runner.chain(cmd) == tmux.chain(cmd)
        assert runner.chain(["capture-pane", "-p", "-e", "-t", "=eq:"]) == tmux.cmd("capture-pane", "-p", "-e",
                                                                                    "-t", "=eq:")
        bad = (["display-message", "-p", "-t", "=eq:", "x"], ["capture-pane", "-p", "-t", "=nope:"])
        with pytest.raises(NoTarget):
            runner.chain(*bad)
        with pytest.raises(NoTarget):
            tmux.chain(*bad)
    finally:
        src.release(clients.values())


def test_attaching_is_recorded_so_it_is_not_taken_for_a_key(shared_terminal: SharedTerminal) -> None:
    """The attach moves #{session_activity}; the value it produced is kept in @tmux_tool_watch_attached."""
    size = "#{window_width}x#{window_height}"
    before = shared_terminal.tmux("display-message", "-p", "-t", "=shared:", size)
    src = source(shared_terminal.socket)
    clients = src.acquire(["shared"])
    try:
        got = shared_terminal.tmux("display-message", "-p", "-t", "=shared:",
                                   "#{session_activity} #{@tmux_tool_watch_attached}").split()
        assert len(got) == 2 and got[0] == got[1]
        assert shared_terminal.tmux("display-message", "-p", "-t", "=shared:", size) == before
    finally:
        src.release(clients.values())


def activity(term: SharedTerminal) -> int:
    return int(term.tmux("display-message", "-p", "-t", "=shared:", "#{session_activity}"))


def test_the_watch_client_is_not_the_human_to_the_guardrails(shared_terminal: SharedTerminal) -> None:
    """Right after a wait attached its client, ``send`` is not held back by "the human pressed a key"."""
    assert call("send", text="true", timeout=10)["ok"]  # the present screen is now one we caused
    # Attach once the last real activity is over a second old, at the start of a second:
    # a hold mistaking the attach for a key would then last about a second.
    deadline = time.monotonic() + 10
    while not (time.time() - activity(shared_terminal) > 1.0 and time.time() % 1 < 0.05):
        assert time.monotonic() < deadline
        time.sleep(0.005)
    assert call("wait", session="shared", timeout=5)["ok"]
    assert source(shared_terminal.socket).pids(), "the wait should have attached a watch client"
    started = time.monotonic()
    res = call("send", text="echo after-attach", timeout=10)
    took = time.monotonic() - started
    assert res["ok"] and res["output"] == "after-attach", res
    assert took < 0.6, f"send was held back {took:.2f}s after the watch client attached"


def test_never_resizes_and_never_types(shared_terminal: SharedTerminal) -> None:
    """A human attached at 100x30 with half a line typed: our client changes neither."""
    sock = shared_terminal.socket
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    human = pexpect.spawn("tmux", ["-u", "-L", sock, "attach", "-t", "=shared"], env=env, dimensions=(30, 100),
                          timeout=10)
    try:
        size = "#{window_width}x#{window_height}"
        deadline = time.monotonic() + 5
        while shared_terminal.tmux("display-message", "-p", "-t", "=shared:", size).strip() != "100x30":
            assert time.monotonic() < deadline, "the human's client never set its size"
            time.sleep(0.02)
        human.send("echo half")
        deadline = time.monotonic() + 5
        while not shared_terminal.screen().rstrip().endswith("echo half"):
            assert time.monotonic() < deadline, shared_terminal.screen()
            time.sleep(0.02)
        before = shared_terminal.screen()
        res = call("wait", session="shared", until="stable", timeout=3)
        assert res["ok"] and res["status"] == "busy", res  # the human is typing
        pids = source(sock).pids()
        assert "shared" in pids
        rows = shared_terminal.tmux("list-clients", "-F", "#{client_pid} #{client_flags}").splitlines()
        ours = [r for r in rows if r.split()[0] == str(pids["shared"])]
        assert ours and {"read-only", "ignore-size", "control-mode"} <= set(ours[0].split()[1].split(","))
        assert shared_terminal.tmux("display-message", "-p", "-t", "=shared:", size).strip() == "100x30"
        assert shared_terminal.screen() == before  # not one key typed
    finally:
        human.terminate(force=True)


def test_killed_client_falls_back_to_polling_and_keeps_the_wait(private_socket: str, tmp_path: Path) -> None:
    for name in ("ka", "kb"):
        private(name)
    stamps = {name: tmp_path / f"{name}.stamp" for name in ("ka", "kb")}
    for name, delay in (("ka", 1.0), ("kb", 1.5)):
        start_late(name, delay, stamps[name])
    result: dict = {}

    def wait() -> None:
        result.update(call("wait", sessions=["ka", "kb"], mode="all", timeout=10))
        result["returned"] = time.time()

    waiter = threading.Thread(target=wait)
    waiter.start()
    src = source(private_socket)
    pids = attached(src, ["ka", "kb"])
    assert not any(p.exists() for p in stamps.values())  # mid-wait: both commands still run
    for pid in pids.values():
        os.kill(pid, 9)  # our own child processes, by PID
    waiter.join(15)
    assert result.get("ok") and sorted(result["done"]) == ["ka", "kb"], result
    late = result["returned"] - stamp_time(stamps["kb"])
    assert 0 <= late < 0.4, f"the wait noticed the last session {late:.3f}s after it was ready"
    assert not set(src.pids().values()) & set(pids.values())


def test_killed_client_in_the_shared_session_keeps_the_wait(shared_terminal: SharedTerminal,
                                                            tmp_path: Path) -> None:
    """The human's command ends after the watch client was killed: the wait still sees the prompt in time."""
    stamp = tmp_path / "human.stamp"
    shared_terminal.type(f"sleep 1.2; date +%s.%N > {stamp}")
    shared_terminal.press("Enter")
    result: dict = {}

    def wait() -> None:
        result.update(call("wait", session="shared", timeout=10))
        result["returned"] = time.time()

    waiter = threading.Thread(target=wait)
    waiter.start()
    src = source(shared_terminal.socket)
    pid = attached(src, ["shared"])["shared"]
    assert not stamp.exists()  # mid-wait: the command still runs
    os.kill(pid, 9)  # our own child process, by PID
    waiter.join(15)
    assert result.get("ok") and result["status"] == "ready", result
    late = result["returned"] - stamp_time(stamp)
    assert 0 <= late < 0.4, f"the wait noticed the prompt {late:.3f}s after the command ended"
    assert "shared" not in src.pids() or src.pids()["shared"] != pid


def test_flooding_pane_does_not_delay_the_others(private_socket: str, tmp_path: Path) -> None:
    """``yes`` floods one watched pane while two others finish: their readiness is noticed as fast."""
    for name in ("fa", "fb"):
        private(name)
    # The flooding session is a plain one (no pipe-pane log to fill the disk with the flood).
    tmux = Tmux(private_socket)
    tmux.cmd("new-session", "-d", "-s", "flood", "-x", "200", "-y", "50")
    ctx = Context(config.load())

    def lateness(flood: bool) -> list[float]:
        stamps = [tmp_path / f"{n}-{flood}.stamp" for n in ("fa", "fb")]
        names = ["fa", "fb"] + (["flood"] if flood else [])
        if flood:
            tmux.cmd("send-keys", "-t", "=flood:", "yes | tr -d '\\n'", "Enter")
        for name, stamp in zip(("fa", "fb"), stamps, strict=True):
            start_late(name, 1.0, stamp)
        watches = [observe.Watch(ctx.session(n, default="x"), "ready", None, 1.0) for n in names]
        cpu = time.process_time()
        observe.wait_all(watches, "all", 3.0)
        cpu = time.process_time() - cpu
        if flood:
            client = source(private_socket).clients["flood"]
            assert client.pauses > 0, "the flood was never paused"
            print(f"{client.pauses} pauses; this process used {cpu:.2f}s of CPU in 3s beside the flood")
        offset = time.time() - time.monotonic()
        out = []
        for w, stamp in zip(watches, stamps, strict=False):
            assert w.done_at is not None, (w.target.name, w.state)
            out.append(w.done_at + offset - stamp_time(stamp))
        return out

    quiet = lateness(False)
    flooded = lateness(True)
    print(f"noticed after ready: quiet {[f'{x * 1e3:.0f}ms' for x in quiet]}, "
          f"beside a flood {[f'{x * 1e3:.0f}ms' for x in flooded]}")
    # Not starved: a reader stuck behind the flood would notice nothing within the wait. How fast it
    # notices is a figure for bench/watch_bench.py, not a bound here (the machine may be busy).
    assert max(flooded) < max(quiet) + 1.0, (quiet, flooded)
    tmux.cmd("send-keys", "-t", "=flood:", "C-c")


def test_wait_any_and_all(private_socket: str, tmp_path: Path) -> None:
    for name in ("wa", "wb"):
        private(name)
    for mode, want in (("any", ["wa"]), ("all", ["wa", "wb"])):
        first, last = tmp_path / f"a-{mode}", tmp_path / f"b-{mode}"
        start_late("wa", 0.4, first)
        start_late("wb", 1.2, last)
        res = call("wait", sessions=["wa", "wb"], mode=mode, timeout=10)
        returned = time.time()
        assert res["ok"] and sorted(res["done"]) == want, res
        if mode == "any":
            assert not last.exists(), "any should not have waited for the second session"
            late = returned - stamp_time(first)
            assert call("wait", session="wb", timeout=5)["ok"]
        else:
            late = returned - stamp_time(last)
        assert 0 <= late < 0.3, (mode, late)


def test_silent_panes_cost_nothing_and_a_burst_is_looked_at_once(private_socket: str,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["sa", "sb", "sc"]
    for name in names:
        private(name)
    # A first wait attaches the clients; they linger, so the next wait starts listening at once.
    call("wait", sessions=names, until="change", timeout=1.2)
    looks: list[str] = []
    spawned: list[tuple] = []
    real_look, real_chain = panes.look, Tmux.chain

    def counting_look(tmux: Tmux, target: str):
        looks.append(target)
        return real_look(tmux, target)

    def counting_chain(self: Tmux, *commands, **kw):
        spawned.append(commands)
        return real_chain(self, *commands, **kw)

    monkeypatch.setattr(panes, "look", counting_look)
    monkeypatch.setattr(Tmux, "chain", counting_chain)
    cpu = time.process_time()
    res = call("wait", sessions=names, until="change", timeout=2.0)
    cpu = time.process_time() - cpu
    assert not res["ok"]
    # Per session one look, nothing more: a change is judged from the screen, and every change is heard.
    assert sorted(looks) == sorted(f"={n}:" for n in names), looks
    assert all(c[0][0] != "capture-pane" for c in spawned), spawned  # looks never spawned a process
    assert cpu < 0.1, f"waiting 2s on three silent panes took {cpu:.3f}s of CPU"

    looks.clear()
    burst = threading.Timer(0.3, lambda: Tmux(private_socket).cmd("send-keys", "-t", "=sb:",
                                                                   "seq 1 3000", "Enter"))
    burst.start()
    res = call("wait", sessions=names, until="stable", timeout=5.0)
    burst.join()
    assert res["ok"]
    assert looks.count("=sb:") <= 5, looks  # the first look, then about two per burst


def test_events_off_polls_with_the_same_answers(private_socket: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(events.SWITCH, "off")
    for name in ("pa", "pb"):
        private(name)
    start_late("pa", 0.3, tmp_path / "pa")
    start_late("pb", 0.6, tmp_path / "pb")
    res = call("wait", sessions=["pa", "pb"], mode="all", timeout=10)
    assert res["ok"] and sorted(res["done"]) == ["pa", "pb"]
    assert events.source_for(Tmux(private_socket)) is None
    assert shutil.which("tmux") and watch_clients(private_socket) == []


def test_idle_clients_detach_after_lingering(private_socket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A client no wait uses leaves after LINGER: nothing stays attached to a session for long."""
    monkeypatch.setattr(events, "LINGER", 0.3)
    private("la")
    assert call("wait", session="la", until="stable", timeout=3)["ok"]
    src = source(private_socket)
    pid = attached(src, ["la"])["la"]
    deadline = time.monotonic() + 5
    while src.pids() or watch_clients(private_socket):
        assert time.monotonic() < deadline, "the idle client never left"
        time.sleep(0.02)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # gone and reaped


def test_two_waits_at_once_share_one_client_per_session(private_socket: str, tmp_path: Path) -> None:
    """Concurrent waits (``acall`` runs actions in threads) hear the same clients and both finish."""
    for name in ("ca", "cb"):
        private(name)
    start_late("ca", 0.5, tmp_path / "ca")
    start_late("cb", 0.8, tmp_path / "cb")
    results: list[dict] = []
    threads = [threading.Thread(target=lambda: results.append(call("wait", sessions=["ca", "cb"], mode="all",
                                                                   timeout=10))) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    assert len(results) == 2 and all(r["ok"] for r in results), results
    rows = watch_clients(private_socket)
    assert sorted(rows) == ["ca", "cb"], rows
