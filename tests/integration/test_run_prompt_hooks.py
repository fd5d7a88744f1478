"""Commands that replace the private shell's prompt hooks, on a real tmux server and real bash.

A private shell learns that a command ended from marks its prompt hooks
(``PROMPT_COMMAND``, ``PS0``) print.  Ordinary commands replace those hooks:
``source ~/.bashrc`` of a bashrc that sets ``PROMPT_COMMAND``, a prompt
framework's ``eval "$(... init bash)"``, ``PROMPT_COMMAND=`` typed by hand,
``exec bash``.  The command still ends; the session must say so, with the
command's output and exit code, and take the next command as before - never
stay "still running" for ever.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from python.tools.tmux_tool import call


def run(command: str, **kw: object) -> dict:
    return call("run", command=command, **kw)


@pytest.mark.parametrize("reset", ["PROMPT_COMMAND=", "PROMPT_COMMAND='history -a'", "PS0= PROMPT_COMMAND=",
                                   "unset PROMPT_COMMAND"])
def test_a_command_that_replaces_the_prompt_hooks_ends_with_its_output(private_socket: str, reset: str) -> None:
    assert run("echo warm")["output"] == "warm"
    res = run(f"echo before; {reset}; echo after; (exit 3)", timeout=10)
    assert res["ok"] and res["status"] == "ready", res
    assert res["exit_code"] == 3
    assert res["output"] == "before\nafter"
    nxt = run("echo next; false", timeout=10)
    assert nxt["ok"] and nxt["status"] == "ready" and nxt["exit_code"] == 1, nxt
    assert nxt["output"] == "next"
    assert call("status", session="scratch")["status"] == "ready"


def test_sourcing_a_bashrc_that_sets_prompt_command(private_socket: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("HISTFILE=/dev/null\nPROMPT_COMMAND='history -a'\nPS1='me@host:\\w\\$ '\n")
    monkeypatch.setenv("HOME", str(home))
    assert run("echo first")["output"] == "first"
    res = run("source ~/.bashrc && echo sourced", timeout=10)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0, res
    assert res["output"] == "sourced"
    assert run("pwd", timeout=10)["output"] == str(Path.cwd())


def test_exec_bash_gives_a_shell_that_still_runs_commands(private_socket: str, tmp_path: Path) -> None:
    assert run(f"cd {tmp_path}")["cwd"] == str(tmp_path)
    res = run("exec bash", timeout=10)
    assert res["ok"] and res["status"] == "ready", res
    assert res["exit_code"] == 0 and res["output"] == ""
    nxt = run('echo "in the new shell: $PWD"; (exit 5)', timeout=10)
    assert nxt["ok"] and nxt["exit_code"] == 5, nxt
    assert nxt["output"] == f"in the new shell: {tmp_path}"
    assert run('echo "!!"')["output"] == "!!"  # history expansion stays off in the new shell


def test_a_run_left_running_that_replaced_the_hooks_is_collected_later(private_socket: str) -> None:
    busy = run("sleep 1.5; PROMPT_COMMAND=; echo late", timeout=0.3)
    assert busy["ok"] and busy["status"] == "busy"
    done = call("wait", session="scratch", timeout=10)
    assert done["ok"] and done["status"] == "ready" and done["exit_code"] == 0, done
    assert done["output"] == "late"
    assert run("echo then")["output"] == "then"


def test_hooks_replaced_through_send_are_repaired_by_the_next_run(private_socket: str) -> None:
    assert run("true")["exit_code"] == 0
    call("send", session="scratch", text="PROMPT_COMMAND=; PS0=", timeout=2)
    res = run("echo works", timeout=10)
    assert res["ok"] and res["status"] == "ready" and res["output"] == "works", res


def test_exec_of_another_shell_is_said_plainly(private_socket: str) -> None:
    assert run("true")["exit_code"] == 0
    res = run("exec dash", timeout=10)
    assert not res["ok"] and "dash" in res["error"], res
    again = run("echo x", timeout=5)
    assert not again["ok"] and "dash" in again["error"] and "kill" in (again["hint"] or ""), again
    assert call("kill", session="scratch")["ok"]
    assert run("echo fresh")["output"] == "fresh"
