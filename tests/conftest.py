"""Shared test fixtures: every test talks to its own tmux servers.

The tool reads its sockets and state directory from the environment, so a
test only has to point those variables at names nobody else uses.  Servers
are ended by their socket name at teardown - never by process name.
"""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

# The real AI CLIs against the scripted model server (``model_server``, ``prepare``): tests/e2e and the
# page's tests in tests/browser both drive them.
pytest_plugins = ["tests.ai_clis"]

SHARED_CONF = REPO / "apps" / "shared-terminal" / "tmux.conf"


@pytest.fixture(scope="session", autouse=True)
def plain_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """Every shell the tests start reads the start-up files of this HOME, not the machine user's.

    A private shell sources ``~/.bashrc`` by design, and a machine's own may
    run anything: a ``pyenv init`` in every shell is slow, and one killed
    mid-way (tests kill shells) leaves a lock that stalls every later shell
    for a minute.  The tests' shells get the PATH the tests run with, a git
    identity of their own, and write their histories here.
    """
    home = tmp_path_factory.mktemp("home")
    (home / ".bashrc").write_text("# the tests' HOME: nothing runs at shell start (tests/conftest.py)\n")
    (home / ".gitconfig").write_text("[user]\n\tname = tester\n\temail = tester@box.invalid\n")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("HOME", str(home))
        yield home


def kill_server(socket: str) -> None:
    """End the tmux server on ``socket`` if it runs, and remove its socket file.

    tmux 3.3a leaves the socket file behind after ``kill-server``; only our
    own, uniquely named sockets are removed.
    """
    subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
    base = Path(os.environ.get("TMUX_TMPDIR") or "/tmp") / f"tmux-{os.getuid()}"
    (base / socket).unlink(missing_ok=True)


def unique(prefix: str) -> str:
    return f"{prefix}-{os.getpid()}-{secrets.token_hex(3)}"


def rename_storm(socket: str, target: str, folder: Path, count: int = 2000) -> None:
    """Make tmux write far more than a pipe holds (about 260 KB) to every control client at once:
    ``count`` renames of ``target``'s window, run by tmux in one go from a file."""
    script = folder / "renames"
    script.write_text("".join(f"rename-window -t {target} name-{i:05d}-{'x' * 100}\n" for i in range(count)))
    subprocess.run(["tmux", "-L", socket, "source-file", str(script)], check=True, timeout=10)


def require_root(packages: Mapping[str, str], why: str, *programs: str) -> None:
    """Skip (saying ``why``) unless we are root; fail, naming the apt packages from ``packages``
    (program -> package), when a program is missing."""
    if os.geteuid() != 0:
        pytest.skip(why)
    missing = [p for p in programs if not (Path(p).is_file() if p.startswith("/") else shutil.which(p))]
    if missing:
        names = sorted({packages.get(p, "?") for p in missing})
        pytest.fail(f"missing {', '.join(missing)}: apt-get install {' '.join(names)} "
                    f"(tests/run.sh installs them)", pytrace=False)


def poll(predicate: Callable[[], Any], timeout: float = 10.0, step: float = 0.02) -> Any:
    """Ask ``predicate`` until it returns something true or ``timeout`` passes (short bounded steps)."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value or time.monotonic() >= deadline:
            return value
        time.sleep(step)


@pytest.fixture(scope="session", autouse=True)
def _isolated_defaults(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Never let a test touch the real `agent`/`shared` servers or state."""
    old = {k: os.environ.get(k) for k in ("TMUX_TOOL_PRIVATE_SOCKET", "TMUX_TOOL_SHARED_SOCKET",
                                          "TMUX_TOOL_STATE_DIR", "TMUX")}
    private, shared = unique("tt-test"), unique("tt-test-shared")
    os.environ["TMUX_TOOL_PRIVATE_SOCKET"] = private
    os.environ["TMUX_TOOL_SHARED_SOCKET"] = shared
    os.environ["TMUX_TOOL_STATE_DIR"] = str(tmp_path_factory.mktemp("state"))
    os.environ.pop("TMUX", None)
    yield
    kill_server(private)
    kill_server(shared)
    for key, value in old.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture
def private_socket(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A private tmux server of this test's own (fresh state directory too)."""
    socket = unique("tt-priv")
    monkeypatch.setenv("TMUX_TOOL_PRIVATE_SOCKET", socket)
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
    yield socket
    kill_server(socket)


@dataclass
class SharedTerminal:
    """A stand-in for the human's terminal: our shared config, a real bash."""

    socket: str
    session: str
    home: Path

    def tmux(self, *args: str, input: bytes | None = None) -> str:
        proc = subprocess.run(["tmux", "-L", self.socket, *args], input=input, capture_output=True,
                              timeout=10, check=True)
        return proc.stdout.decode()

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", f"={self.session}:")

    def type(self, text: str) -> None:
        """Keys as a human would type them (literal, through the terminal)."""
        self.tmux("send-keys", "-l", "-t", f"={self.session}:", text)

    def press(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", f"={self.session}:", *keys)


@pytest.fixture
def shared_terminal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[SharedTerminal]:
    """The shared session as start.sh creates it, on a socket of this test.

    bash runs with a fixed, realistic prompt (``user@host:~/dir$ ``) from a
    throwaway HOME so the user's own rc files never change the test.
    """
    socket, session = unique("tt-shared"), "shared"
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("PS1='tester@box:\\w\\$ '\nHISTFILE=/dev/null\n")
    monkeypatch.setenv("TMUX_TOOL_SHARED_SOCKET", socket)
    monkeypatch.setenv("TMUX_TOOL_SHARED_SESSION", session)
    monkeypatch.setenv("TMUX_TOOL_STATE_DIR", str(tmp_path / "state"))
    bash = shutil.which("bash") or "/bin/bash"
    subprocess.run(
        ["tmux", "-L", socket, "-f", str(SHARED_CONF), "new-session", "-d", "-s", session, "-x", "120",
         "-y", "40", "-c", str(home), "-e", f"HOME={home}", bash, "--noprofile", "--rcfile",
         str(home / ".bashrc"), "-i"],
        check=True, timeout=10,
    )
    term = SharedTerminal(socket, session, home)
    # As a person would, tests begin once the prompt shows: before it, bash is starting (busy).
    deadline = time.monotonic() + 10
    while "tester@box:" not in term.screen():
        assert time.monotonic() < deadline, f"bash drew no prompt within 10 s: {term.screen()!r}"
        time.sleep(0.01)
    yield term
    kill_server(socket)
