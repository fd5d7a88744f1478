"""Runs on another host over ssh: each figure next to the same work done by plain ssh over the tool's own
connection, measured in the same run.

The host is real: an sshd of the bench's own on 127.0.0.2, a throwaway user
whose login shell is zsh, a key without passphrase (the fixtures of
``tests/accounts.py``, used as plain context managers).  It is declared in a
hosts file of the bench's own as ``box``; the tool opens one ssh master
connection to it and runs its private tmux server there as that user.

The floor (A) of the first two figures is ``ssh -S CONTROL ... box SCRIPT``
over that same open master: exactly the argv the tool itself uses for a
channel (``Host.argv``), run with ``subprocess``.  That is what one command on
the host costs at the least - a new channel, a new sshd session child, the
user's login shell, ``sh`` - so the ratio says what the tool adds on top of ssh.

* ``run true`` on the host, in this process (the first run, which connects
  and starts the far server and shell, is left out), median of N, against
  ``ssh ... true``; interleaved so both see the same load.  Goal: 1.5x.
* ``run cat FILE`` of 10 MB of base64 text made on the host, against
  ``ssh ... cat FILE > /dev/null`` (floor A); median of 3.  The tool caps what
  it returns and saves the whole output to a file: the result must say ok,
  exit 0, and name the file.  Goal: 1.5x.  Floor A has no terminal in it; a
  second floor (B) is what tmux itself needs to take the same bytes through a
  pane there: a bare tmux server on the host with the tool's server config,
  driven like :class:`floors.Server` (``send-keys`` + ``wait-for``) by one
  channel over the same master.
* 20 sessions on the host at once: 20 threads each ``run 'echo N'`` in a
  session ``sN`` of its own (the sessions are new: the first round makes
  them; a second round runs in them again).  Every one must answer exactly
  ``N``; the errors of those that do not are printed, with the channels the
  sshd refused meanwhile (its log's "no more sessions": ``MaxSessions``).
  Printed: the wall time, the per-session median, against the
  single-session median of the first figure.

The loopback host shares this machine's cores: its tmux server, sshd and
shells compete with this process for them, which a real remote host's do not.

The general floors of the other benches come first: the bare tmux round
trip here (``send-keys`` + ``wait-for``) and ``python -c pass``.

Everything is the bench's own: the tool's private socket, state folder and
hosts file, the sshd, the user and its home.  At the end the tool's server on
the host is killed (``tmux -L SOCKET kill-server`` over ssh as the user), the
local private server by its socket (its ssh master with it), then the sshd and
the user by the fixtures (by PID).  Needs root, zsh, ssh, sshd, tmux.

Usage: ``.venv/bin/python bench/remote_bench.py [N] [THREADS]`` (default 50 runs, 20 sessions).
"""

from __future__ import annotations

import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

from floors import Server, end_tool, isolated_tool, line, median_ms, python_start

if TYPE_CHECKING:
    from python.helpers.tmux_tool.transport import hosts
    from tests.accounts import RemoteHost

HOST = "box"
BIG_BYTES = 7_500_000  # of random bytes: 10 MB once in base64 (76-character lines)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def ssh_timed(argv: list[str], *, output: int = subprocess.PIPE) -> float:
    """Run ``argv`` (a channel over the open master), check it succeeded; its wall time in seconds."""
    t0 = time.perf_counter()
    done = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.PIPE,
                          timeout=120, check=False)
    took = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{argv[-1][:60]!r} over the master exited {done.returncode}: {done.stderr!r}")
    return took


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    threads = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    from tests import accounts  # (REPO is on sys.path: floors put it there)

    accounts.require("zsh", "ssh", "ssh-keygen", "tmux", accounts.SSHD)
    work = Path(tempfile.mkdtemp(prefix="tt-bench-remote-"))
    socket, state = isolated_tool("remote")
    os.environ["TMUX_TOOL_SHARED_SOCKET"] = f"{socket}-shared"  # never the human's shared server either
    os.environ.pop("TMUX", None)
    hosts_file = work / "hosts"
    os.environ["TMUX_TOOL_HOSTS"] = str(hosts_file)

    floor = Server("remote")
    try:
        # ---- the general floors, here
        bare = [floor.round_trip("true") for _ in range(n)]
        print(f"floors here: bare tmux round trip (send-keys + wait-for) median of {n}: {median_ms(bare):.1f} ms;"
              f" python -c pass median of 10: {median_ms(python_start(10)):.1f} ms")

        key = work / "id_ed25519"
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "tt-bench-remote", "-f", str(key)],
                       check=True, timeout=30, capture_output=True)
        with accounts.account(login_shell=shutil.which("zsh") or "/bin/zsh") as user:
            accounts.authorize_key(user, (work / "id_ed25519.pub").read_text())
            with accounts.sshd(work / "sshd", [user.name]) as server:
                box = accounts.RemoteHost(name=HOST, user=user, server=server, key=key)
                hosts_file.write_text(box.line + "\n")
                try:
                    measure(box, n, threads)
                finally:
                    box.ssh(f"tmux -L {socket} kill-server 2>/dev/null; rm -rf ~/.tmux_tool/{socket}")
                    end_remote(socket, state)
    finally:
        floor.kill()
        end_tool(socket, state)  # (again, if the host part never ran: harmless)
        shutil.rmtree(work, ignore_errors=True)


def end_remote(socket: str, state: str) -> None:
    """End this process's log followers (ssh channels, by PID) and the local server with the master in it."""
    from python.helpers.tmux_tool.core import config
    from python.helpers.tmux_tool.private import mirror
    from python.helpers.tmux_tool.transport import hosts

    control = hosts.resolve(HOST, config.load().private_dir / "hosts", None).control
    mirror._end_all()
    end_tool(socket, state)
    Path(control).unlink(missing_ok=True)


def measure(box: RemoteHost, n: int, threads: int) -> None:
    from python.helpers.tmux_tool.core import config
    from python.helpers.tmux_tool.transport import hosts
    from python.tools.tmux_tool import call

    # ---- the first run: the master connection, the far folder, server and shell
    t0 = time.perf_counter()
    res = call("run", command="true", host=HOST)
    first = (time.perf_counter() - t0) * 1000
    assert res["ok"] and res["exit_code"] == 0 and res.get("host") == HOST, res
    host = hosts.resolve(HOST, config.load().private_dir / "hosts", None)
    assert os.path.exists(host.control), f"no master socket at {host.control}"
    channel = host.argv("true")
    ssh_timed(channel)  # the far side's caches warm for the floor too
    print(f"first run on {HOST} (ssh master, far server and shell): {first:.0f} ms; floor A is "
          f"`ssh -S {host.control} -o ControlMaster=no ... {HOST} true`")

    # ---- 1 + 2: run true, against ssh true over the same master
    ours, floor_a = [], []
    for _ in range(n):
        floor_a.append(ssh_timed(channel))
        t0 = time.perf_counter()
        res = call("run", command="true", host=HOST)
        ours.append(time.perf_counter() - t0)
        assert res["ok"] and res["exit_code"] == 0, res
    print(line(f"run 'true' on {HOST}, median of {n}", median_ms(ours), median_ms(floor_a),
               "A: ssh true over the open master", 1.5))
    print(f"  p90 {percentile(ours, 0.9) * 1000:.1f} ms, floor A p90 {percentile(floor_a, 0.9) * 1000:.1f} ms")

    # ---- 3: 10 MB of output
    big = f"{box.user.home}/tt-bench-10mb.txt"
    box.ssh(f"head -c {BIG_BYTES} /dev/urandom | base64 > {big}")
    size = int(box.ssh(f"wc -c < {big}").strip())
    cat = host.argv(f"cat {big}")
    ssh_timed(cat, output=subprocess.DEVNULL)  # in the host's page cache for both
    bare = FarTmux(host, box)
    try:
        big_ours, big_floor, big_bare = [], [], []
        for _ in range(3):
            big_floor.append(ssh_timed(cat, output=subprocess.DEVNULL))
            big_bare.append(bare.round_trip(f"cat {big}"))
            t0 = time.perf_counter()
            res = call("run", command=f"cat {big}", host=HOST, timeout=120)
            big_ours.append(time.perf_counter() - t0)
            assert res["ok"] and res["exit_code"] == 0 and res.get("output_file"), res
    finally:
        bare.kill()
    print(line(f"run 'cat' of {size / 1e6:.1f} MB on {HOST}, median of 3", median_ms(big_ours),
               median_ms(big_floor), "ssh cat > /dev/null over the open master", 1.5))
    print(line("  the same", median_ms(big_ours), median_ms(big_bare),
               "B: bare tmux on the host, same cat, driven over one channel"))
    print(f"  output to the agent {len(res['output'])} characters; saved {res['output_chars']} characters "
          f"to {res['output_file']}")

    # ---- 4: sessions at once on one host
    def one(i: int) -> tuple[float, bool, dict]:
        t0 = time.perf_counter()
        res = call("run", command=f"echo {i}", session=f"s{i}", host=HOST)
        took = time.perf_counter() - t0
        exact = bool(res.get("ok")) and res.get("exit_code") == 0 and res.get("output") == str(i)
        return took, exact, res

    single = statistics.median(ours) * 1000
    for round_name in ("new sessions", "the same sessions again"):
        refused_before = refusals(box)
        with ThreadPoolExecutor(threads) as pool:
            started = time.perf_counter()
            results = list(pool.map(one, range(threads)))
            wall = time.perf_counter() - started
        exact = sum(r[1] for r in results)
        print(line(f"{threads} sessions on {HOST} at once ({round_name}), per-session median",
                   statistics.median(r[0] for r in results) * 1000, single, "1 session's run 'true'"))
        print(f"  wall time {wall * 1000:.0f} ms; slowest {max(r[0] for r in results) * 1000:.0f} ms; "
              f"{exact}/{threads} exact" + ("" if exact == threads else "  NOT ALL EXACT"))
        wrong = Counter(str(r[2].get("error") or r[2])[:200] for r in results if not r[1])
        for said, count in wrong.items():
            print(f"    {count} of them: {said}")
        if refused := refusals(box) - refused_before:
            print(f"    sshd refused {refused} channels meanwhile (\"no more sessions\": its MaxSessions, "
                  "10 by default, channels open at once per connection)")


def refusals(box: RemoteHost) -> int:
    """How many channels the bench's sshd has refused for want of sessions (its log says so)."""
    return box.server.log.read_text(errors="replace").count("no more sessions")


class FarTmux:
    """Floor B: a bare tmux server on the host (the tool's server config, a bare bash), driven like
    :class:`floors.Server` - ``send-keys`` + ``wait-for`` - by one ssh channel over the master."""

    def __init__(self, host: hosts.Host, box: RemoteHost) -> None:
        from python.helpers.tmux_tool.private.server import SERVER_CONF

        self.host = host
        self.socket = f"tt-bench-floor-{os.getpid()}"
        self.conf = f"{box.user.home}/tt-bench-floor.conf"
        subprocess.run(host.argv(f"cat > {self.conf}"), input=SERVER_CONF.encode(), check=True, timeout=30)
        ssh_timed(host.argv(f"{self.tmux} -f {self.conf} new-session -d -s floor -x 200 -y 50 "
                            f"bash --noprofile --norc && {self.tmux} set-option -w -t =floor: window-size manual"))
        self.round_trip("true")  # the shell is up and reading

    @property
    def tmux(self) -> str:
        return f"tmux -L {self.socket}"

    def round_trip(self, command: str) -> float:
        channel = f"floor-{time.monotonic_ns()}"
        keys = shlex.quote(f"{command}; {self.tmux} wait-for -S {channel}")
        return ssh_timed(self.host.argv(f"{self.tmux} send-keys -t =floor: {keys} Enter && "
                                        f"{self.tmux} wait-for {channel}"))

    def kill(self) -> None:
        subprocess.run(self.host.argv(f"{self.tmux} kill-server; rm -f {self.conf}"), capture_output=True,
                       timeout=30, check=False)


if __name__ == "__main__":
    main()
