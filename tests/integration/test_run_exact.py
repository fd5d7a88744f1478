"""A private session is exact where other agents' terminal suites look: a new session's environment,
incomplete commands, shells that die under a run, output as written, answers typed into a run, and what a
wait that timed out says.  Real tmux, real bash.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.transport.tmux import Tmux
from python.tools.tmux_tool import call

ROOT = Path(__file__).resolve().parents[2]


def run(command: str, **kw: Any) -> dict[str, Any]:
    return call("run", command=command, **kw)


# --- a new session's environment ----------------------------------------------------------------
def test_a_new_session_gets_the_callers_environment_and_no_command_line_holds_it(
        private_socket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """tmux starts a pane with its server's environment, from when the server started; a new session
    must have the caller's, as a subprocess would (a variable the caller set, none it dropped), while a
    session made before keeps its own.  The values reach the shell through no tmux command."""
    monkeypatch.setenv("TT_TEST_GONE", "from-the-first-caller")
    assert run("true", session="before")["ok"]  # the server starts with this environment
    secret = "s3cr3t-value-'quoted' $HOME"
    monkeypatch.setenv("TT_TEST_FOO", secret)
    monkeypatch.delenv("TT_TEST_GONE")
    sent: list[Sequence[str]] = []
    chain = Tmux.chain

    def spy(self: Tmux, *commands: Sequence[str], **kw: Any) -> str:
        sent.extend(commands)
        return chain(self, *commands, **kw)

    monkeypatch.setattr(Tmux, "chain", spy)
    res = run('printf "[%s][%s]" "$TT_TEST_FOO" "${TT_TEST_GONE-unset}"', session="after")
    assert res["ok"] and res["output"] == f"[{secret}][unset]", res
    assert not [c for c in sent if any("s3cr3t" in arg for arg in c)], "the value was on a tmux command"
    res = run('printf "[%s][%s]" "${TT_TEST_FOO-unset}" "$TT_TEST_GONE"', session="before")
    assert res["output"] == "[unset][from-the-first-caller]", res


def test_the_command_line_gives_a_new_session_its_callers_environment(private_socket: str) -> None:
    """Through the resident process that answers the command line: each call's own environment."""
    def cli(value: str, session: str) -> str:
        env = {**os.environ, "TT_TEST_FOO": value, "TMUX_TOOL_RESIDENT": "3"}
        done = subprocess.run([sys.executable, "-m", "python.tools.tmux_tool", "run", "--session", session,
                               "--command", 'echo "[$TT_TEST_FOO]"', "--json"], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60, check=False)
        import json
        return str(json.loads(done.stdout)["output"])

    assert cli("one", "a") == "[one]"
    assert cli("two", "b") == "[two]"  # the server is alive: the pane gets this call's environment
    assert cli("two", "a") == "[one]"  # a session keeps the environment it was made with


def test_a_caller_without_path_or_home_leaves_the_shell_its_own(tmp_path: Path) -> None:
    """A reduced environment (an MCP client's) has no PATH: the shell keeps a usable one, and everything
    else the caller lacks is gone."""
    from python.helpers.tmux_tool.private.markers import environment

    env_file = tmp_path / "env.sh"
    env_file.write_text(environment({"ONLY": "this"}))
    done = subprocess.run(["bash", "-c", f'. {env_file}; echo "$PATH|$HOME|$ONLY|${{OTHER-unset}}"'],
                          env={"PATH": "/usr/bin:/bin", "HOME": "/nowhere", "OTHER": "1"},
                          capture_output=True, text=True, timeout=10, check=True)
    assert done.stdout == "/usr/bin:/bin|/nowhere|this|unset\n"


# --- incomplete commands ------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["(a", "a='", 'echo "open', "cat <<EOF\nno end", "echo a \\"])
def test_an_incomplete_command_is_an_error_and_the_session_stays_usable(private_socket: str, command: str) -> None:
    """Typed at a prompt, the shell would wait at ``> `` for the rest, and the next command would become
    part of it."""
    res = run(command, session="inc", timeout=5)
    assert not res["ok"] and res["status"] == "error" and "incomplete" in res["error"], res
    after = run("echo alive", session="inc", timeout=5)
    assert after["ok"] and after["output"] == "alive" and after["exit_code"] == 0, after


def test_an_incomplete_command_says_what_the_shells_parser_says(private_socket: str) -> None:
    res = run("a='", session="inc", timeout=5)
    assert "unexpected EOF while looking for matching" in res["error"], res


# --- a shell that dies under a run --------------------------------------------------------------
def test_a_command_that_kills_its_shell_gives_its_output_and_the_signal(private_socket: str) -> None:
    res = run("echo hi; kill -9 $$", session="dies", timeout=10)
    assert not res["ok"] and res["status"] == "error", str(res)
    assert res["exit_code"] == 137 and res["output"] == "hi", res
    assert run("echo next", session="dies", timeout=10)["output"] == "next"


def test_a_command_that_replaces_its_shell_and_ends_gives_its_output_and_status(private_socket: str) -> None:
    res = run("echo hi3; exec sh -c 'echo from-exec; exit 4'", session="exec", timeout=10)
    assert res["ok"] and res["exit_code"] == 4 and res["output"] == "hi3\nfrom-exec", str(res)
    assert run("echo next", session="exec", timeout=10)["output"] == "next"


def test_an_interrupted_exec_gives_the_output_so_far_and_the_signal(private_socket: str) -> None:
    first = run("echo READY; exec sleep 300", session="exec", timeout=0.5)
    assert first["status"] == "busy" and first["output"] == "READY", first
    res = call("interrupt", session="exec", timeout=10)
    assert res["exit_code"] == 130 and res["output"].startswith("READY"), str(res)
    assert run("echo next", session="exec", timeout=10)["output"] == "next"


# --- output as written --------------------------------------------------------------------------
def test_output_keeps_blanks_tabs_and_blank_lines_but_one_final_newline(private_socket: str) -> None:
    assert run(r"printf 'a  \nb\t\n\n\nc d  '")["output"] == "a  \nb\t\n\n\nc d  "
    assert run(r"printf 'x\n\n'")["output"] == "x\n"
    assert run("echo x")["output"] == "x"
    assert run(r"printf '\tindented\n'")["output"] == "\tindented"


def test_a_line_the_terminal_rewrote_is_given_as_drawn(private_socket: str) -> None:
    assert run(r"printf 'working   \rdone\nkept  \n'")["output"] == "doneing\nkept  "


# --- typing into a run --------------------------------------------------------------------------
def test_send_that_answers_a_runs_question_gives_the_runs_result(private_socket: str) -> None:
    asked = run("read -p 'name? ' n; echo \"Hello $n\"", session="ask", timeout=1)
    assert asked["status"] in ("busy", "blocked") and asked["exit_code"] is None, asked
    res = call("send", text="John", session="ask", timeout=10)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert res["output"] == "name? John\nHello John", res


def test_keys_that_answer_a_runs_question_give_the_runs_result(private_socket: str) -> None:
    asked = run("read -n 1 -p 'go? ' k; echo; echo \"got $k\"; exit_code=3; (exit $exit_code)", session="ask",
                timeout=1)
    assert asked["exit_code"] is None, asked
    res = call("keys", keys=["y"], session="ask", timeout=10)
    assert res["ok"] and res["exit_code"] == 3 and res["output"].endswith("got y"), res


# --- a wait that timed out ----------------------------------------------------------------------
def test_a_pattern_not_seen_is_named_in_the_error(private_socket: str) -> None:
    assert run("true", session="pat")["ok"]
    res = call("wait", session="pat", pattern="NEVER-SHOWN", timeout=0.2)
    assert not res["ok"] and "'NEVER-SHOWN'" in res["error"] and "pattern" in res["error"], res
