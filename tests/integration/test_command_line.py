"""The command line as a Unix tool: exit status, pipes, help, on a real tmux server.

Each test runs twice: every call in a process of its own (``TMUX_TOOL_RESIDENT=off``)
and every call answered by the resident process (started before the test and checked
afterwards to have answered each call, then stopped).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

import pytest

from python.helpers.tmux_tool.frontends import relay

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "python.tools.tmux_tool"]
T = TypeVar("T")


class Cli:
    """Command-line calls with one environment, counted."""

    def __init__(self, env: dict[str, str]) -> None:
        self.env = env
        self.calls = 0

    def __call__(self, *args: str) -> subprocess.CompletedProcess[str]:
        return self.run([*CLI, *args], stdout=subprocess.PIPE)

    def run(self, argv: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        """One process that makes one call (``argv`` may be a pipeline around it)."""
        self.calls += 1
        return subprocess.run(argv, cwd=REPO, env=self.env, stderr=subprocess.PIPE, text=True, timeout=60,
                              check=False, **kw)


def _bounded(what: Callable[[], T | None], timeout: float = 10.0) -> T:
    deadline = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < deadline, f"not within {timeout}s"
        time.sleep(0.02)
    return found


@pytest.fixture(params=["alone", "resident"])
def cli(request: pytest.FixtureRequest, private_socket: str) -> Iterator[Cli]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE", "PYTEST_CURRENT_TEST")}
    if request.param == "alone":
        env[relay.SWITCH] = "off"
        yield Cli(env)
        assert relay.ask(b"ping", env, str(REPO)) is None
        return
    env.pop(relay.SWITCH, None)
    caller = Cli(env)
    assert caller("list").returncode == 0  # the first call starts the resident
    pid, served = _bounded(lambda: relay.ask(b"ping", env, str(REPO)))
    before = caller.calls
    try:
        yield caller
        assert relay.ask(b"ping", env, str(REPO)) == (pid, served + caller.calls - before)
    finally:
        relay.ask(b"stop", env, str(REPO))
        _bounded(lambda: not _alive(pid))


def _alive(pid: int) -> bool:
    """Is the process running (not gone, not a zombie waiting for its parent)?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def test_exit_status_says_whether_the_result_is_ok(cli: Cli) -> None:
    done = cli("run", "--command", "echo hi; false", "--json")
    res = json.loads(done.stdout)
    assert done.returncode == 0 and res["ok"] and res["exit_code"] == 1 and res["output"] == "hi"
    refused = cli("run", "--command", "true", "--session", "no.dots")
    assert refused.returncode == 1 and "error:" in refused.stdout, refused
    missing = cli("status", "--session", "never-made")
    assert missing.returncode == 1, missing


def test_usage_errors_exit_2_with_the_usage(cli: Cli) -> None:
    for args in (("nosuchaction",), ("run", "--bogus", "x"), ("run", "--command")):
        done = cli(*args)
        assert done.returncode == 2 and done.stdout == "", done
        assert "usage" in done.stderr or "the actions are" in done.stderr, done
    bare = cli()
    assert bare.returncode == 2 and bare.stdout == "" and "usage" in bare.stderr, bare
    helped = cli("send", "--help")
    assert helped.returncode == 0 and "--force" in helped.stdout and "--no-enter" in helped.stdout


def test_a_reader_that_stops_early_gets_no_traceback(cli: Cli) -> None:
    pipeline = cli.run(["bash", "-c", f"{shlex.join(CLI)} run --command 'seq 200000' | head -1"],
                       stdout=subprocess.PIPE)
    assert pipeline.stdout.startswith("ok"), pipeline
    assert "Traceback" not in pipeline.stderr and "BrokenPipe" not in pipeline.stderr, pipeline.stderr


def test_a_reader_gone_before_the_answer_gets_no_traceback(cli: Cli) -> None:
    read, write = os.pipe()
    os.close(read)  # nobody will read: the first write fails with EPIPE
    try:
        done = cli.run([*CLI, "run", "--command", "seq 200000"], stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 0 and done.stderr == "", done.stderr


def test_boolean_flags_reach_the_action(cli: Cli) -> None:
    assert cli("run", "--command", "true", "--session", "flags").returncode == 0
    typed = cli("send", "--session", "flags", "--text", "echo typed", "--no-enter", "--json")
    assert typed.returncode == 0, typed
    screen = json.loads(cli("read", "--session", "flags", "--json").stdout)["screen"]
    assert screen.rstrip().endswith("echo typed"), screen  # on the line, not submitted
    forced = cli("send", "--session", "flags", "--text", "x", "--force", "--no-enter")
    assert forced.returncode == 0, forced


def test_keys_given_as_one_quoted_string_are_pressed_one_by_one(cli: Cli) -> None:
    """`--keys 'x Enter'` (one shell word) means the keys x and Enter, as the help and the skill say."""
    assert cli("run", "--command", "true", "--session", "ks").returncode == 0
    assert cli("send", "--session", "ks", "--text", "echo pressed-", "--no-enter").returncode == 0
    done = cli("keys", "--session", "ks", "--keys", "x Enter", "--json")
    assert done.returncode == 0, done
    screen = json.loads(cli("read", "--session", "ks", "--json").stdout)["screen"]
    assert "\npressed-x\n" in screen, screen
