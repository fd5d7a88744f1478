"""Watching sessions through tmux control mode (real tmux 3.3a, private sockets).

What must hold: a silent pane costs nothing, a changed one is looked at once
per burst, the read-only watch client never looks like the human to the
guardrails, never resizes the window and never types, a flooding pane does
not slow the others down, and a watch client killed mid-wait leaves the wait
to polling without losing it.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from python.helpers.tmux_tool.core import config
from python.helpers.tmux_tool.core.clock import Deadline
from python.helpers.tmux_tool.core.errors import NoTarget
from python.helpers.tmux_tool.sessions import observe
from python.helpers.tmux_tool.sessions.context import Context
from python.helpers.tmux_tool.shared import seen
from python.helpers.tmux_tool.shared.look import key_time
from python.helpers.tmux_tool.transport import events, listen, panes
from python.helpers.tmux_tool.transport.tmux import Tmux
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal, poll
from ..gates import Gate


@pytest.fixture(autouse=True)
def _no_clients_left() -> Iterator[None]:
    """Every test starts and ends without watch clients of this process."""
    events.close_all()
    yield
    events.close_all()


def private(name: str) -> None:
    res = call("run", session=name, command="true", timeout=10)
    assert res["ok"] and res["status"] == "ready", res


def stamped(first: str, stamp: Path) -> str:
    """``first`` (a ``sleep``, or a gate's wait: then the test says when it ends), then the time
    written to ``stamp``, just before the prompt returns."""
    return f"{first}; date +%s.%N > {shlex.quote(str(stamp))}"


def start_stamped(name: str, first: str, stamp: Path) -> None:
    """Start :func:`stamped` in the private session ``name``, which is busy with it."""
    res = call("run", session=name, command=stamped(first, stamp), timeout=0.05)
    assert res["ok"] and res["status"] == "busy", res


def open_after(stamp: Path, gate: Gate) -> None:
    """Let a gated command end once another one wrote its stamp."""
    stamp_time(stamp)
    gate.open()


# A wait that lost its session would come back at its timeout (10 s here); one that noticed the end
# comes back well within this.  How soon it notices is a figure of bench/watch_bench.py: a bound here
# would fail whenever the machine is busy.
NOTICED = 2.0


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
    private("eb")
    tmux = Tmux(private_socket)
    tmux.cmd("new-session", "-d", "-s", "ea", "sleep 600")  # a pane that prints nothing by itself, ever
    src = source(private_socket)
    client = src.acquire(["ea"])["ea"]
    try:
        before = client.seq
        call("run", session="eb", command="echo in-b", timeout=5)
        time.sleep(0.3)  # give a stray notification time to arrive; none may
        assert client.seq == before
        tmux.cmd("send-keys", "-t", "=ea:", "x")  # the terminal echoes it: output in ea
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


def test_the_watch_clients_attach_is_no_key_and_a_humans_key_is(shared_terminal: SharedTerminal) -> None:
    """The watch client's attach stamps the session's activity as a key would; a look tells the two apart."""
    size = "#{window_width}x#{window_height}"
    before = shared_terminal.tmux("display-message", "-p", "-t", "=shared:", size)
    src = source(shared_terminal.socket)
    tmux = Tmux(shared_terminal.socket)
    clients = src.acquire(["shared"])
    try:
        _snap, facts = panes.look(tmux, "=shared:")
        assert facts.session_activity and not facts.clients and key_time(facts, attaches=True) == 0, facts
        assert shared_terminal.tmux("display-message", "-p", "-t", "=shared:", size) == before
        env = {**os.environ, "TERM": "xterm-256color"}
        env.pop("TMUX", None)
        human = pexpect.spawn("tmux", ["-u", "-L", shared_terminal.socket, "attach", "-t", "=shared"], env=env,
                              dimensions=(30, 100), timeout=10)
        try:
            assert poll(lambda: len(panes.look(tmux, "=shared:")[1].clients) == 1, 5), "the human never attached"
            assert key_time(panes.look(tmux, "=shared:")[1]) == 0, "the human's attach was taken for a key"
            attached = panes.look(tmux, "=shared:")[1].clients[0][1]
            assert poll(lambda: int(time.time()) > attached, 3)  # a key in a later second than the attach
            human.send("x")
            assert poll(lambda: key_time(panes.look(tmux, "=shared:")[1]) > attached, 5), "the key went unseen"
        finally:
            human.close(force=True)
    finally:
        src.release(clients.values())


def activity(term: SharedTerminal) -> int:
    return int(term.tmux("display-message", "-p", "-t", "=shared:", "#{session_activity}"))


def test_the_watch_client_is_not_the_human_to_the_guardrails(shared_terminal: SharedTerminal,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
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
    holds: list[str] = []
    real_quiet = seen.human_quiet

    def heard_quiet(*args: Any, **kwargs: Any) -> Any:
        verdict = real_quiet(*args, **kwargs)
        if not verdict.go:
            holds.append(verdict.reason)
        return verdict

    monkeypatch.setattr(seen, "human_quiet", heard_quiet)
    res = call("send", text="echo after-attach", timeout=10)
    assert res["ok"] and res["output"] == "after-attach", res
    assert not any("key" in why for why in holds), f"send was held back after the watch client attached: {holds}"


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
    gates = {name: Gate(tmp_path / f"{name}.go") for name in ("ka", "kb")}
    for name in ("ka", "kb"):
        start_stamped(name, gates[name].shell, stamps[name])
    result: dict = {}

    def wait() -> None:
        result.update(call("wait", sessions=["ka", "kb"], mode="all", timeout=10))
        result["returned"] = time.time()

    waiter = threading.Thread(target=wait)
    waiter.start()
    src = source(private_socket)
    pids = attached(src, ["ka", "kb"])
    for pid in pids.values():
        os.kill(pid, 9)  # our own child processes, by PID
    gates["ka"].open()  # the sessions end one after the other, both after the kill
    open_after(stamps["ka"], gates["kb"])
    waiter.join(15)
    assert result.get("ok") and sorted(result["done"]) == ["ka", "kb"], result
    late = result["returned"] - stamp_time(stamps["kb"])
    assert 0 <= late < NOTICED, f"the wait noticed the last session {late:.3f}s after it was ready"
    assert not set(src.pids().values()) & set(pids.values())


def test_killed_client_in_the_shared_session_keeps_the_wait(shared_terminal: SharedTerminal,
                                                            tmp_path: Path) -> None:
    """The human's command ends after the watch client was killed: the wait still sees the prompt in time."""
    stamp, gate = tmp_path / "human.stamp", Gate(tmp_path / "human.go")
    shared_terminal.type(stamped(gate.shell, stamp))
    shared_terminal.press("Enter")
    result: dict = {}

    def wait() -> None:
        result.update(call("wait", session="shared", timeout=10))
        result["returned"] = time.time()

    waiter = threading.Thread(target=wait)
    waiter.start()
    src = source(shared_terminal.socket)
    pid = attached(src, ["shared"])["shared"]
    os.kill(pid, 9)  # our own child process, by PID
    gate.open()  # the human's command ends only after the kill
    waiter.join(15)
    assert result.get("ok") and result["status"] == "ready", result
    late = result["returned"] - stamp_time(stamp)
    assert 0 <= late < NOTICED, f"the wait noticed the prompt {late:.3f}s after the command ended"
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
            start_stamped(name, "sleep 1.0", stamp)
        watches = [observe.Watch(ctx.session(n, default="x"), "ready", None, 1.0) for n in names]
        cpu = time.process_time()
        observe.wait_all(watches, "all", Deadline(10.0))  # back as soon as all are done
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
        go_a, go_b = Gate(tmp_path / f"a-{mode}.go"), Gate(tmp_path / f"b-{mode}.go")
        start_stamped("wa", go_a.shell, first)
        start_stamped("wb", go_b.shell, last)
        go_a.open()
        # "all": wb ends after wa; "any": only once the wait is back, so it cannot have waited for wb.
        second = threading.Thread(target=open_after, args=(first, go_b)) if mode == "all" else None
        if second:
            second.start()
        res = call("wait", sessions=["wa", "wb"], mode=mode, timeout=10)
        returned = time.time()
        assert res["ok"] and sorted(res["done"]) == want, res
        if second:
            second.join(10)
            late = returned - stamp_time(last)
        else:
            late = returned - stamp_time(first)
            assert not last.exists()
            go_b.open()
            assert call("wait", session="wb", timeout=5)["ok"]
        assert 0 <= late < NOTICED, (mode, late)


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
    # The burst's command runs long enough for tmux to rename its window twice (to "sleep" and back),
    # which the other sessions' clients hear as %unlinked-window-renamed: no change of theirs.
    burst = threading.Timer(0.3, lambda: Tmux(private_socket).cmd("send-keys", "-t", "=sb:",
                                                                   "seq 1 3000; sleep 1.5", "Enter"))
    burst.start()
    begun = time.monotonic()
    res = call("wait", sessions=names, until="stable", timeout=5.0)
    took = time.monotonic() - begun
    burst.join()
    assert res["ok"]
    # The silent ones: their first look only.  The busy one: a look per burst heard (a loaded machine
    # splits the output into more bursts), far fewer than the looks of a poll through the same wait.
    assert looks.count("=sa:") == looks.count("=sc:") == 1, looks
    assert looks.count("=sb:") < took / observe.POLL / 3, (looks, took)


def test_events_off_polls_with_the_same_answers(private_socket: str, tmp_path: Path,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(events.SWITCH, "off")
    for name in ("pa", "pb"):
        private(name)
    start_stamped("pa", "sleep 0.3", tmp_path / "pa")
    start_stamped("pb", "sleep 0.6", tmp_path / "pb")
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
    start_stamped("ca", "sleep 0.5", tmp_path / "ca")
    start_stamped("cb", "sleep 0.8", tmp_path / "cb")
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
