"""Helpers of the robustness tests: timing, fault triggers, result checks.

Faults are injected on events, never after fixed sleeps: a killer thread
waits (short bounded polls) until the tool is really inside the call being
tested - the command runs in the pane, or a thread of ours sleeps on a pane
log waiting for a run to end - and only then strikes.  Every tmux server here has its own
socket and is ended by that socket.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.transport import logwatch
from python.tools.tmux_tool import call

from ..conftest import SHARED_CONF, SharedTerminal, kill_server, poll, unique

# Seconds a call may overrun its own timeout: process start-up and one last look.
SLACK = 3.0
# What the agent must never receive: terminal controls (C0 but tab/newline, DEL, C1).
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def tmux(socket: str, *args: str, check: bool = False) -> subprocess.CompletedProcess[str]:
    """One bounded tmux command on our own socket."""
    return subprocess.run(["tmux", "-L", socket, *args], capture_output=True, text=True, timeout=10,
                          check=check)


def timed(action: str, **args: Any) -> tuple[dict[str, Any], float]:
    """``call`` and its wall time in seconds."""
    started = time.monotonic()
    res = call(action, **args)
    return res, time.monotonic() - started


def assert_sentence(res: dict[str, Any]) -> None:
    """A failure is a sentence for the agent, never a traceback or a crash report."""
    assert res["ok"] is False, res
    error = res["error"]
    assert isinstance(error, str) and len(error.split()) >= 3, res
    for leak in ("Traceback", 'File "', "internal error"):
        assert leak not in error, res
    assert res["status"] in ("ready", "busy", "blocked", "error", "unknown"), res



def pane_command(socket: str, session: str) -> str:
    return tmux(socket, "display-message", "-p", "-t", f"={session}:", "#{pane_current_command}").stdout.strip()


def pane_pid(socket: str, session: str) -> int:
    return int(tmux(socket, "display-message", "-p", "-t", f"={session}:", "#{pane_pid}").stdout)


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (from /proc, every thread's list)."""
    kids: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            kids += [int(p) for p in (task / "children").read_text().split()]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return kids


def cmdline(pid: int) -> list[str]:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except (FileNotFoundError, ProcessLookupError):
        return []


@pytest.fixture
def waiting(monkeypatch: pytest.MonkeyPatch) -> Callable[[], bool]:
    """Asks: is a thread of ours asleep on a pane log right now, waiting for a run to end?"""
    inside = [0]
    real = logwatch.LogWatch.wait

    def wait(self: logwatch.LogWatch, timeout: float) -> bool:
        inside[0] += 1
        try:
            return real(self, timeout)
        finally:
            inside[0] -= 1

    monkeypatch.setattr(logwatch.LogWatch, "wait", wait)
    return lambda: inside[0] > 0


class Striker:
    """Runs ``strike`` in a thread as soon as ``ready`` holds; records when."""

    def __init__(self, ready: Callable[[], bool], strike: Callable[[], None], timeout: float = 15.0) -> None:
        self.fired = threading.Event()
        self.error: BaseException | None = None

        def body() -> None:
            try:
                if poll(ready, timeout):
                    strike()
                    self.fired.set()
            except BaseException as exc:  # noqa: BLE001 - reported by join()
                self.error = exc

        self.thread = threading.Thread(target=body, daemon=True)
        self.thread.start()

    def join(self) -> None:
        self.thread.join(20)
        assert self.error is None, self.error
        assert self.fired.is_set(), "the fault was never injected: its trigger never happened"


def spy(monkeypatch: pytest.MonkeyPatch, module: Any, name: str) -> threading.Event:
    """An event set when the library first calls ``module.name`` (which still runs)."""
    real = getattr(module, name)
    called = threading.Event()

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        called.set()
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapper)
    return called


def start_shared(socket: str, home: Path, *, session: str = "shared", path: str | None = None) -> SharedTerminal:
    """A shared session as start.sh makes it (same config), with a fixed prompt."""
    (home / ".bashrc").write_text("PS1='tester@box:\\w\\$ '\nHISTFILE=/dev/null\n")
    env = {**os.environ, **({"PATH": path} if path else {})}
    env.pop("TMUX", None)
    bash = shutil.which("bash") or "/bin/bash"
    subprocess.run(
        ["tmux", "-L", socket, "-f", str(SHARED_CONF), "new-session", "-d", "-s", session, "-x", "120",
         "-y", "40", "-c", str(home), "-e", f"HOME={home}", bash, "--noprofile", "--rcfile",
         str(home / ".bashrc"), "-i"],
        check=True, timeout=10, env=env,
    )
    term = SharedTerminal(socket, session, home)
    assert poll(lambda: term.screen().rstrip().endswith(("$", "#")), 10), term.screen()
    return term


def guard_allows(term: SharedTerminal) -> None:
    """Wait until the shared-session guard would type: no key for two whole seconds.

    tmux records the last key in whole seconds (``session_activity``); the
    guard holds back while it is recent, so this waits on that fact.
    """
    fmt = "#{session_activity}"
    activity = int(term.tmux("display-message", "-p", "-t", f"={term.session}:", fmt))
    assert poll(lambda: time.time() - activity >= 2.0, 5)


@dataclass
class ModuleEnv:
    """Servers for a whole test module (hypothesis cannot use per-test fixtures)."""

    private: str
    shared: SharedTerminal
    state: Path
    scratch: Path


@pytest.fixture(scope="module")
def module_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleEnv]:
    """A private server and a shared terminal of this module's own."""
    base = tmp_path_factory.mktemp("robust")
    home = base / "home"
    home.mkdir()
    mp = pytest.MonkeyPatch()
    private, shared = unique("tt-rb-priv"), unique("tt-rb-shared")
    mp.setenv("TMUX_TOOL_PRIVATE_SOCKET", private)
    mp.setenv("TMUX_TOOL_SHARED_SOCKET", shared)
    mp.setenv("TMUX_TOOL_SHARED_SESSION", "shared")
    mp.setenv("TMUX_TOOL_STATE_DIR", str(base / "state"))
    try:
        term = start_shared(shared, home)
        yield ModuleEnv(private, term, base / "state", base / "scratch")
    finally:
        mp.undo()
        kill_server(private)
        kill_server(shared)
