"""The command line's resident process: started on demand, exact, gone when idle, never leaked.

Every test runs real command-line processes against a private tmux server of
its own and finds the resident processes by their command line in ``/proc``;
whatever a test started is stopped at teardown and checked to be gone.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from python.helpers.tmux_tool.core import trace
from python.helpers.tmux_tool.frontends import relay
from tests.gates import Gate

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "python.tools.tmux_tool"]
T = TypeVar("T")


def caller_env(**extra: str) -> dict[str, str]:
    """The environment of a caller outside tmux (pytest's own phase marker left out: it changes)."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("TMUX", "TMUX_PANE", "PYTEST_CURRENT_TEST", relay.SWITCH, trace.SWITCH)}
    return {**env, **extra}


def cli(env: dict[str, str], *args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60,
                          check=False)


def until(what: Callable[[], T | None], timeout: float = 60.0) -> T:
    """Poll ``what`` (short bounded steps) until it gives something true; fail after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, f"not within {timeout}s: {what}"
        time.sleep(0.02)
    return found


def _cmdline(pid: str) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return []


def residents(env: dict[str, str], cwd: Path = REPO) -> list[int]:
    """Live resident processes started for this caller's identity (zombies are not alive)."""
    name = relay.address(relay.identity(env, str(cwd)))[1:].decode()
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        line = _cmdline(pid)
        if name in line and any(part.endswith("frontends.resident") for part in line) and alive(int(pid)):
            found.append(int(pid))
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def children(pid: int) -> list[int]:
    found = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            if int(Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()[1]) == pid:
                found.append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    return found


@pytest.fixture
def callers(private_socket: str) -> Iterator[list[tuple[dict[str, str], Path]]]:
    """The identities a test calls with; their residents are stopped and must be gone afterwards."""
    used: list[tuple[dict[str, str], Path]] = []
    yield used
    for env, cwd in used:
        relay.ask(b"stop", env, str(cwd))
        until(lambda: not residents(env, cwd))  # noqa: B023 - called before the loop moves on


def started(env: dict[str, str], cwd: Path = REPO) -> tuple[int, int]:
    """The resident of this identity once a first call has started it: (pid, calls answered)."""
    return until(lambda: relay.ask(b"ping", env, str(cwd)))


def test_the_first_call_starts_a_resident_that_answers_the_next(callers: list) -> None:
    env = caller_env()
    callers.append((env, REPO))
    assert relay.ask(b"ping", env, str(REPO)) is None
    first = cli(env, "run", "--command", "echo first", "--json")
    assert first.returncode == 0 and json.loads(first.stdout)["output"] == "first", first
    pid, calls = started(env)
    assert calls == 0  # the first call answered itself
    done = cli(env, "run", "--command", "echo hi; false", "--json")
    res = json.loads(done.stdout)
    assert done.returncode == 0 and res["output"] == "hi" and res["exit_code"] == 1, done
    assert relay.ask(b"ping", env, str(REPO)) == (pid, 1)
    assert residents(env) == [pid]


def test_a_resident_answers_exactly_what_a_process_of_its_own_prints(callers: list) -> None:
    env = caller_env()
    callers.append((env, REPO))
    alone = caller_env(**{relay.SWITCH: "off"})
    cli(env, "run", "--command", "true")
    pid, _ = started(env)
    cases = [(), ("--help",), ("nosuchaction",), ("run", "--bogus", "x"), ("run", "--command"), ("send", "--help"),
             ("status", "--session", "never-made"), ("run", "--command", "printf 'a\\tb\\xe2\\x82\\xac'"),
             ("run", "--command", "true", "--session", "no.dots", "--json")]
    for args in cases:
        theirs, ours = cli(alone, *args), cli(env, *args)
        assert (ours.returncode, ours.stdout, ours.stderr) == (theirs.returncode, theirs.stdout, theirs.stderr), args
    assert relay.ask(b"ping", env, str(REPO)) == (pid, len(cases))
    assert relay.ask(b"ping", alone, str(REPO)) is None  # "off" started none


def test_the_resident_leaves_when_idle_and_its_tmux_clients_with_it(callers: list) -> None:
    env = caller_env(**{relay.SWITCH: "3"})
    callers.append((env, REPO))

    def through_it() -> tuple[int, int] | None:
        """A call, then the resident that answered it.  A first call only starts one, and on a busy machine
        the call outlasts the resident's idle time, so the resident may have left before the next call."""
        assert cli(env, "run", "--command", "true").returncode == 0
        found = relay.ask(b"ping", env, str(REPO))
        return found if found and found[1] >= 1 else None

    pid, _ = until(through_it)  # the call went through the resident: it connected to tmux
    clients = until(lambda: children(pid))
    assert all("tmux" in _cmdline(str(c))[0] for c in clients), clients
    until(lambda: not alive(pid))  # it leaves after its 1 s idle; the bound is only for never
    assert relay.ask(b"ping", env, str(REPO)) is None
    until(lambda: not any(alive(c) for c in clients))


ASK = ("import json, sys; from python.helpers.tmux_tool.frontends import relay; "
       "print(json.dumps(relay.ask(sys.argv[1].encode())))")


def ask_in(tree: Path, env: dict[str, str], kind: str) -> tuple[int, int] | None:
    """``relay.ask`` by a caller of the library in ``tree`` (its identity names that library)."""
    done = subprocess.run([sys.executable, "-c", ASK, kind], cwd=tree, env=env, capture_output=True, text=True,
                          timeout=30, check=True)
    found = json.loads(done.stdout)
    return tuple(found) if found else None


@pytest.fixture
def tree(tmp_path: Path) -> Iterator[Path]:
    """A copy of the library whose code a test may change; its resident is stopped and gone afterwards."""
    copy = tmp_path / "tree"
    shutil.copytree(REPO / "python", copy / "python", ignore=shutil.ignore_patterns("__pycache__"))
    yield copy
    env = caller_env()
    found = ask_in(copy, env, "stop")
    if found:
        until(lambda: not alive(found[0]))


def test_a_code_change_retires_the_resident(private_socket: str, tree: Path) -> None:
    env = caller_env()
    cli(env, "run", "--command", "true", cwd=tree)
    old, _ = until(lambda: ask_in(tree, env, "ping"))
    module = tree / "python/helpers/tmux_tool/core/result.py"
    stat = module.stat()
    os.utime(module, ns=(stat.st_atime_ns, stat.st_mtime_ns + 10**9))
    done = cli(env, "run", "--command", "echo new", "--json", cwd=tree)  # declined: answered in its own process
    assert done.returncode == 0 and json.loads(done.stdout)["output"] == "new", done
    until(lambda: not alive(old))
    cli(env, "run", "--command", "true", cwd=tree)
    new, calls = until(lambda: ask_in(tree, env, "ping"))
    assert new != old and calls == 0
    assert cli(env, "run", "--command", "true", cwd=tree).returncode == 0
    assert ask_in(tree, env, "ping") == (new, 1)


def test_first_calls_at_once_leave_one_resident(callers: list) -> None:
    env = caller_env()
    callers.append((env, REPO))
    calls = [subprocess.Popen([*CLI, "run", "--command", f"echo {i}", "--session", f"at-once-{i}"], cwd=REPO,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for i in range(6)]
    for i, call in enumerate(calls):
        out, err = call.communicate(timeout=60)
        assert call.returncode == 0 and out.splitlines()[1:] == [str(i)], (out, err)
    pid, _ = started(env)
    until(lambda: residents(env) == [pid])  # the others found the address taken and left


def test_a_killed_resident_is_replaced_and_leaves_nothing(callers: list) -> None:
    env = caller_env()
    callers.append((env, REPO))
    cli(env, "run", "--command", "true")
    pid, _ = started(env)
    assert cli(env, "run", "--command", "true").returncode == 0
    clients = until(lambda: children(pid))
    os.kill(pid, signal.SIGKILL)
    until(lambda: not alive(pid))
    done = cli(env, "run", "--command", "echo after", "--json")
    assert done.returncode == 0 and json.loads(done.stdout)["output"] == "after", done
    new, _ = started(env)
    assert new != pid
    until(lambda: not any(alive(c) for c in clients), timeout=5)  # its tmux clients saw their stdin close


def test_stop_lets_the_call_under_way_finish(callers: list, tmp_path: Path) -> None:
    env = caller_env()
    callers.append((env, REPO))
    cli(env, "run", "--command", "true")
    pid, _ = started(env)
    gate = Gate(tmp_path / "slow.go")  # the call stays under way until the stop was seen to be taken
    slow = subprocess.Popen([*CLI, "run", "--command", f"{gate.shell}; echo slept", "--json"], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    until(lambda: relay.ask(b"ping", env, str(REPO)) == (pid, 1))
    assert relay.ask(b"stop", env, str(REPO)) == (pid, 1)
    assert relay.ask(b"ping", env, str(REPO)) is None  # no new call is taken
    assert alive(pid)
    gate.open()
    out, err = slow.communicate(timeout=30)
    assert slow.returncode == 0 and json.loads(out)["output"] == "slept", (out, err)
    until(lambda: not alive(pid))


def test_a_resident_serves_only_its_own_identity(callers: list) -> None:
    env = caller_env()
    other = caller_env(TT_SOMETHING_ELSE="1")
    callers += [(env, REPO), (other, REPO)]
    cli(env, "run", "--command", "true")
    pid, _ = started(env)
    assert cli(other, "run", "--command", "true").returncode == 0
    assert relay.ask(b"ping", env, str(REPO)) == (pid, 0)  # the other environment was not served here
    # A request that names another identity at this address is declined.
    ident = relay.identity(other, str(REPO))
    import socket

    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.connect(relay.address(relay.identity(env, str(REPO))))
        sock.sendall(relay.encode([b"call", *ident, b"", b"run", b"--command", b"touch /tmp/never"]))
        sock.shutdown(socket.SHUT_WR)
        assert sock.recv(100) == b"no\n"
    assert relay.ask(b"ping", env, str(REPO)) == (pid, 0)


SQUATTER = """
import socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.bind(bytes.fromhex(sys.argv[1]))
sock.listen(8)
print("bound", flush=True)
conn, _ = sock.accept()
conn.settimeout(5)
data = b""
try:
    while chunk := conn.recv(65536):
        data += chunk
except OSError:
    pass
print(len(data), flush=True)
"""


@pytest.mark.skipif(os.geteuid() != 0, reason="acting as another user needs root")
def test_nothing_is_told_to_a_process_of_another_user(callers: list, tmp_path: Path) -> None:
    env = caller_env()
    callers.append((env, REPO))
    where = relay.address(relay.identity(env, str(REPO)))
    squatter = subprocess.Popen(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", sys.executable,
                                 "-c", SQUATTER, where.hex()], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        assert squatter.stdout is not None and squatter.stdout.readline() == "bound\n"
        done = cli(env, "run", "--command", "echo mine", "--json")
        assert done.returncode == 0 and json.loads(done.stdout)["output"] == "mine", done
        assert squatter.stdout.readline() == "0\n"  # it was connected to, and told nothing
    finally:
        squatter.kill()
        squatter.wait(timeout=10)
