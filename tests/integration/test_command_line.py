"""The command line as a Unix tool: exit status, pipes, help, on a real tmux server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-m", "python.tools.tmux_tool"]


def cli(*args: str, **kw: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("TMUX", "TMUX_PANE")}
    return subprocess.run([*CLI, *args], cwd=REPO, env=env, capture_output=True, text=True, timeout=60,
                          check=False, **kw)  # type: ignore[call-overload]


def test_exit_status_says_whether_the_result_is_ok(private_socket: str) -> None:
    done = cli("run", "--command", "echo hi; false", "--json")
    res = json.loads(done.stdout)
    assert done.returncode == 0 and res["ok"] and res["exit_code"] == 1 and res["output"] == "hi"
    refused = cli("run", "--command", "true", "--session", "no.dots")
    assert refused.returncode == 1 and "error:" in refused.stdout, refused
    missing = cli("status", "--session", "never-made")
    assert missing.returncode == 1, missing


def test_usage_errors_exit_2_with_the_usage(private_socket: str) -> None:
    for args in (("nosuchaction",), ("run", "--bogus", "x"), ("run", "--command")):
        done = cli(*args)
        assert done.returncode == 2 and done.stdout == "", done
        assert "usage" in done.stderr or "the actions are" in done.stderr, done
    bare = cli()
    assert bare.returncode == 2 and bare.stdout == "" and "usage" in bare.stderr, bare
    helped = cli("send", "--help")
    assert helped.returncode == 0 and "--force" in helped.stdout and "--no-enter" in helped.stdout


def test_a_reader_that_stops_early_gets_no_traceback(private_socket: str) -> None:
    pipeline = subprocess.run(
        f"{' '.join(CLI)} run --command 'seq 200000' | head -1", shell=True, cwd=REPO, capture_output=True,
        text=True, timeout=60, check=False)
    assert pipeline.stdout.startswith("ok"), pipeline
    assert "Traceback" not in pipeline.stderr and "BrokenPipe" not in pipeline.stderr, pipeline.stderr


def test_boolean_flags_reach_the_action(private_socket: str) -> None:
    assert cli("run", "--command", "true", "--session", "flags").returncode == 0
    typed = cli("send", "--session", "flags", "--text", "echo typed", "--no-enter", "--json")
    assert typed.returncode == 0, typed
    screen = json.loads(cli("read", "--session", "flags", "--json").stdout)["screen"]
    assert screen.rstrip().endswith("echo typed"), screen  # on the line, not submitted


def test_keys_given_as_one_quoted_string_are_pressed_one_by_one(private_socket: str) -> None:
    """`--keys 'x Enter'` (one shell word) means the keys x and Enter, as the help and the skill say."""
    assert cli("run", "--command", "true", "--session", "ks").returncode == 0
    assert cli("send", "--session", "ks", "--text", "echo pressed-", "--no-enter").returncode == 0
    done = cli("keys", "--session", "ks", "--keys", "x Enter", "--json")
    assert done.returncode == 0, done
    screen = json.loads(cli("read", "--session", "ks", "--json").stdout)["screen"]
    assert "\npressed-x\n" in screen, screen
