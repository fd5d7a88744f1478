"""``run`` in private scratch sessions, on a real tmux server and real bash.

Every test runs three ways: over the process's control-mode connection with
inotify (the normal case), with one tmux process per command (the fallback
where no connection can be held), and with the pane log polled (where there
is no inotify).  The answers must be the same.
"""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import libtmux
import pytest

from python.tools.tmux_tool import call

from ..conftest import poll

WAYS = {"connection": {}, "processes": {"TMUX_TOOL_CONTROL": "off"}, "polling": {"TMUX_TOOL_INOTIFY": "off"}}


@pytest.fixture(autouse=True, params=sorted(WAYS))
def transport(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    for name, value in WAYS[request.param].items():
        monkeypatch.setenv(name, value)
    yield request.param


def run(command: str, **kw: object) -> dict:
    return call("run", command=command, **kw)


def test_output_is_exactly_the_commands_output(private_socket: str) -> None:
    res = run("echo hello; echo world")
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 0
    assert res["output"] == "hello\nworld"
    assert "\x1b" not in res["output"] and "7771" not in res["output"]


def test_exit_codes_and_subshell_exit(private_socket: str) -> None:
    assert run("(exit 3)")["exit_code"] == 3
    assert run("false")["exit_code"] == 1
    res = run("(exit 7); echo after")
    assert res["exit_code"] == 0 and res["output"] == "after"


def test_multiline_and_heredoc(private_socket: str) -> None:
    res = run("x=1\nif [ $x = 1 ]; then\n  echo one\nfi\ncat <<'EOF'\n$HOME stays literal\n  indented\nEOF")
    assert res["exit_code"] == 0
    assert res["output"] == "one\n$HOME stays literal\n  indented"


def test_multiline_commands_back_to_back_stay_one_unit(private_socket: str) -> None:
    """The next command can arrive between the end marker and the prompt (a slow prompt widens that
    moment): it must still be one paste, not lines run one by one."""
    assert run("PS1='$(sleep 0.2)\\$ '")["exit_code"] == 0
    for i in range(3):
        res = run(f"a={i}\necho first $a\necho second $a")
        assert (res["exit_code"], res["output"]) == (0, f"first {i}\nsecond {i}"), (i, res)


def test_quotes_substitution_and_trailing_semicolon(private_socket: str) -> None:
    res = run("""echo "a;b" 'c d' $(echo sub) "$((6*7))";""")
    assert res["output"] == "a;b c d sub 42"
    assert run("echo done;")["output"] == "done"
    assert run(";")["status"] == "ready"  # a lone ';' is a bash syntax error, not a tmux separator


def test_unicode_and_no_final_newline(private_socket: str) -> None:
    assert run("echo 'ünïcödé ✓ 日本語 🙂'")["output"] == "ünïcödé ✓ 日本語 🙂"
    assert run("printf 'no newline at the end'")["output"] == "no newline at the end"


def test_command_longer_than_send_keys_limit(private_socket: str) -> None:
    payload = "x" * 40_000
    res = run(f"s='{payload}'; echo ${{#s}}")
    assert res["exit_code"] == 0 and res["output"] == "40000"


def test_set_euo_pipefail_does_not_break_completion(private_socket: str) -> None:
    assert run("set -euo pipefail")["exit_code"] == 0
    failed = run("false")
    assert failed["status"] == "ready" and failed["exit_code"] == 1
    assert "fresh shell" in (failed["hint"] or "")
    again = run("echo $NOT_SET_ANYWHERE")  # a new shell, without set -u
    assert again["exit_code"] == 0
    assert run("set -u; echo $NOT_SET_ANYWHERE")["exit_code"] != 0
    assert run("echo recovered")["output"] == "recovered"


def test_cwd_is_reported_and_kept(private_socket: str, tmp_path: Path) -> None:
    res = run(f"cd {tmp_path}")
    assert res["cwd"] == str(tmp_path)
    assert run("pwd")["output"] == str(tmp_path)


def test_pager_and_history_expansion_are_off(private_socket: str, tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    for i in range(60):
        subprocess.run(["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@e", "commit",
                        "-q", "--allow-empty", "-m", f"commit number {i}"], check=True)
    res = run(f"git -C {repo} log --oneline", timeout=10)
    assert res["status"] == "ready" and res["output"].count("commit number") == 60
    assert run('echo "!!" "!$"')["output"] == "!! !$"


def test_timeout_leaves_command_running_and_refuses_a_second(private_socket: str) -> None:
    busy = run("echo started; sleep 2; echo finished", timeout=0.5)
    assert busy["ok"] and busy["status"] == "busy" and busy["exit_code"] is None
    assert busy["output"] == "started"
    refused = run("echo other")
    assert not refused["ok"] and refused["status"] == "busy"
    assert "sleep 2" in refused["error"] and "wait" in refused["hint"]
    done = call("wait", session="scratch", timeout=10)
    assert done["ok"] and done["exit_code"] == 0
    assert done["output"] == "started\nfinished"
    assert run("echo other")["output"] == "other"


def test_command_reading_stdin_can_be_answered(private_socket: str) -> None:
    busy = run("read -r name; echo \"hello $name\"", timeout=0.5)
    assert busy["status"] == "busy"
    done = _run_result(call("send", session="scratch", text="world", timeout=0))
    assert done["exit_code"] == 0 and done["output"].splitlines()[-1] == "hello world"


def _run_result(typed: dict) -> dict:
    """The pending run's result after typing into it: the answer to the typing once the run has ended by
    then (its result is given once), else what a wait gives."""
    return typed if typed["exit_code"] is not None else call("wait", session="scratch", timeout=10)


def test_wait_after_a_command_typed_with_send_waits_for_that_command(private_socket: str) -> None:
    """A command typed with send is not the last run: wait must not answer with the run's old result."""
    assert run("echo previous-run")["output"] == "previous-run"
    typed = call("send", session="scratch", text="sleep 1.5; echo slept", timeout=0.3)
    assert typed["ok"] and typed["status"] == "busy", typed
    assert "previous-run" not in typed["evidence"]
    refused = run("echo other")
    assert not refused["ok"] and "previous-run" not in refused["error"], refused
    done = call("wait", session="scratch", timeout=10)
    assert done["ok"] and done["status"] == "ready", done
    assert done["output"] == "slept" and done["exit_code"] == 0
    assert run("echo after")["output"] == "after"


@pytest.mark.parametrize("program", [
    'python3 -c "n = input(\'Enter name: \'); print(\'hi\', n)"',
    ("node -e \"require('readline').createInterface({input: process.stdin, output: process.stdout})"
     ".question('Enter name: ', n => { console.log('hi', n); process.exit(0); })\""),
])
def test_a_program_asking_for_input_comes_back_blocked(private_socket: str, program: str) -> None:
    """A script's input() prompt is a question: run says so as soon as the output stops, not at its timeout."""
    started = time.monotonic()
    res = run(program, timeout=20)
    assert res["ok"] and res["status"] == "blocked" and res["question"] == "Enter name:", res
    assert time.monotonic() - started < 10
    done = _run_result(call("send", session="scratch", text="bob", timeout=0))
    assert done["ok"] and done["exit_code"] == 0 and done["output"].endswith("hi bob"), done


def test_a_command_that_opens_an_editor_comes_back_blocked_in_it(private_socket: str, tmp_path: Path) -> None:
    """git merge opens the editor for its message (as git commit, crontab -e, kubectl edit do): the run
    says so as soon as the editor waits, and the agent can finish it with keys."""
    repo = tmp_path / "repo"
    env = "GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e"
    setup = (f"git init -q {repo} && cd {repo} && export {env} EDITOR='vim -u NONE -N' && "
             "git commit -q --allow-empty -m base && git checkout -q -b side && "
             "git commit -q --allow-empty -m side && git checkout -q - && git commit -q --allow-empty -m main")
    assert run(setup)["exit_code"] == 0
    started = time.monotonic()
    res = run("git merge side", timeout=20)
    assert res["ok"] and res["status"] == "blocked" and res["program"] == "vim", res
    assert time.monotonic() - started < 10
    assert "Merge branch 'side'" in res["screen"]
    done = _run_result(call("keys", session="scratch", keys=["Escape", ":", "w", "q", "Enter"]))
    assert done["ok"] and done["status"] == "ready" and done["exit_code"] == 0, done
    log = run("git log --format=%s -1")
    assert log["output"] == "Merge branch 'side'"


def test_interrupt_stops_a_running_command(private_socket: str) -> None:
    assert run("sleep 30", timeout=0.2)["status"] == "busy"
    res = call("interrupt", session="scratch", timeout=5)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 130


def test_an_interrupt_the_shell_took_for_a_handled_one_is_pressed_again(private_socket: str, tmp_path: Path) -> None:
    """bash goes on with its loop when the child it waits for exits by itself after a Ctrl+C (it
    takes it for one the child handled), as it does when the key comes just as a ``sleep 0.05`` ends:
    the first child here handles the key and ends, then the shell starts a new ``sleep``, and a
    second Ctrl+C ends the loop."""
    started, heard = tmp_path / "started", tmp_path / "heard"
    first = f"(trap 'touch {heard}' INT; touch {started}; sleep 5)"
    loop = f"while :; do if [ -e {heard} ]; then sleep 0.1; else {first}; fi; done"
    assert run(loop, timeout=0.3)["status"] == "busy"
    assert poll(started.exists, 10), "the first child never started"
    res = call("interrupt", session="scratch", timeout=10)
    assert res["ok"] and res["status"] == "ready" and res["exit_code"] == 130, res
    assert heard.exists(), "the first Ctrl+C did not reach the first child: the case is void"


def test_a_program_winding_down_after_ctrl_c_gets_no_second_one(private_socket: str, tmp_path: Path) -> None:
    """A program that heard Ctrl+C and shuts down slowly (a second one would make it stop at once and
    lose work, as terraform says) gets one."""
    ready, heard = tmp_path / "ready", tmp_path / "heard"
    script = tmp_path / "wind_down.py"
    script.write_text(
        "import pathlib, signal, sys, time\n"
        f"heard, ready = pathlib.Path({str(heard)!r}), pathlib.Path({str(ready)!r})\n"
        "def stop(*_):\n"
        "    heard.write_text(heard.read_text() + 'x' if heard.exists() else 'x')\n"
        "    end = time.monotonic() + 4\n"
        "    time.sleep(1)  # its clean-up: first asleep, then on the CPU\n"
        "    while heard.read_text() == 'x' and time.monotonic() < end:\n        pass\n"
        "    sys.exit(130)\n"
        "signal.signal(signal.SIGINT, stop)\nready.touch()\nwhile True:\n    time.sleep(1)\n")
    assert run(f"python3 {script}", timeout=0.5)["status"] == "busy"
    assert poll(ready.exists, 10), "the program never took Ctrl+C into its own hands"
    res = call("interrupt", session="scratch", timeout=10)
    assert res["ok"] and res["exit_code"] == 130, res
    assert heard.read_text() == "x", "the program was sent more than one Ctrl+C"


def test_long_output_is_capped_and_saved(private_socket: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TMUX_TOOL_OUTPUT_CAP", "5000")
    res = run("seq 1 20000", timeout=20)
    assert res["exit_code"] == 0
    assert len(res["output"]) <= 5000 + 200
    assert res["output"].startswith("1\n2\n") and res["output"].endswith("19999\n20000")
    assert "cut; full output in" in res["output"]
    saved = Path(res["output_file"]).read_text().split()
    assert saved == [str(i) for i in range(1, 20001)]


def test_coloured_output_is_stripped_and_its_long_lines_kept_whole(private_socket: str) -> None:
    res = run("printf '\\033[1;31m%s\\033[0m \\033[32mok\\033[0m\\n' $(printf 'x%.0s' $(seq 300))")
    assert res["exit_code"] == 0 and res["output"] == "x" * 300 + " ok"


def test_megabytes_of_output_are_saved_whole_and_capped(private_socket: str) -> None:
    res = run("seq 1 400000", timeout=60)
    assert res["exit_code"] == 0 and len(res["output"]) <= 30_000 + 200
    assert res["output"].startswith("1\n2\n") and res["output"].endswith("399999\n400000")
    assert Path(res["output_file"]).read_text().split("\n") == [str(i) for i in range(1, 400_001)]


def test_progress_bar_renders_as_its_final_state(private_socket: str) -> None:
    res = run(r"for i in 10 50 100; do printf '\rprogress %3d%%' $i; done; echo")
    assert res["output"] == "progress 100%"


def test_long_lines_stay_whole_beside_a_progress_bar(private_socket: str) -> None:
    """A download's progress bar next to a long JSON line (pip, npm, curl do both): the line is the agent's data."""
    line = '{"items": [' + ", ".join(f'"item-{i:03d}"' for i in range(60)) + "]}"
    res = run(r"printf '\rfetching %3d%%' 10 55 100; echo; " + f"echo '{line}'; " + r"printf 'done\n'")
    assert res["exit_code"] == 0
    assert res["output"] == f"fetching 100%\n{line}\ndone", res["output"]


def test_sessions_are_separate_and_named(private_socket: str) -> None:
    run("cd /tmp", session="one")
    run("cd /", session="two")
    assert run("pwd", session="one")["output"] == "/tmp"
    assert run("pwd", session="two")["output"] == "/"
    names = {s["session"] for s in call("list")["sessions"]}
    assert {"one", "two"} <= names


def test_no_paste_buffers_or_sessions_leak(private_socket: str) -> None:
    for i in range(20):
        run(f"echo {i}")
    server = libtmux.Server(socket_name=private_socket)
    assert server.cmd("list-buffers").stdout == []
    assert [s.session_name for s in server.sessions] == ["scratch"]
    assert call("kill", session="scratch")["ok"]
    assert not server.is_alive() or server.sessions == []


@pytest.mark.parametrize("name", ["a.b", "a:b", "$x", "%1", "-x", "has space", "ünï", "x" * 65, "a;b", ""])
def test_bad_session_names_are_refused(private_socket: str, name: str) -> None:
    res = run("echo hi", session=name)
    assert not res["ok"] and res["status"] == "unknown"
    assert "session name" in res["error"]


def test_empty_command_and_control_characters_are_refused(private_socket: str) -> None:
    assert not run("   ")["ok"]
    res = run("echo \x1b[31m")
    assert not res["ok"] and "ESC" in res["error"]


def test_run_refuses_the_shared_session(private_socket: str) -> None:
    res = run("ls", session="shared")
    assert not res["ok"] and "private" in res["error"]


def test_kill_ends_what_ran_in_the_session_but_not_what_left_it(private_socket: str) -> None:
    """A job that ignores the hang-up or left the job table ends with its session; one that made a session
    of its own (``setsid``) asked to outlive it and is kept."""
    from python.helpers.tmux_tool.transport import kernel

    res = run("nohup sleep 300 >/dev/null 2>&1 & echo $!; sleep 301 & echo $!; disown; "
              "(setsid sleep 302 >/dev/null 2>&1 < /dev/null & echo $!)")
    assert res["ok"] and res["exit_code"] == 0, res
    *ended, kept = (int(line) for line in res["output"].splitlines() if line.isdigit())  # not "[1] 123"
    # setsid makes its session a moment after the fork that $! names: until then it is in the shell's.
    assert poll(lambda: (process := kernel.proc(kept)) is not None and process.session == kept, 10)
    assert call("kill", session=res["session"])["ok"]

    def gone(pid: int) -> bool:
        return (process := kernel.proc(pid)) is None or process.state == "Z"

    try:
        assert all(gone(pid) for pid in ended), f"{ended} outlived their session"
        assert not gone(kept), "a process of a session of its own was ended"
    finally:
        subprocess.run(["kill", str(kept)], check=False, timeout=5)


@pytest.mark.parametrize("seen", ["seen", "not-yet-seen"])
def test_a_shell_killed_just_before_a_run_gets_the_command_in_a_fresh_shell(
        private_socket: str, monkeypatch: pytest.MonkeyPatch, seen: str) -> None:
    """SIGKILL leaves no exit mark, and tmux learns of the death only when it gets to the child's
    signal: on a busy machine, a run right after is typed into the dead pane (``not-yet-seen``: tmux's
    first answer about the pane is the one it gave before), and tmux 3.3a ends its server on a paste into
    a dead pane.  Nothing is pasted there; nothing of the command ran, so it runs in a fresh shell, once,
    exactly, and the other sessions live on."""
    import os
    import signal

    from python.helpers.tmux_tool.private import runs

    assert call("run", command="true", session="work")["ok"]
    assert call("run", command="true")["ok"]  # the scratch session beside it must live through it all

    def pid(session: str) -> int:
        return int(subprocess.run(["tmux", "-L", private_socket, "display-message", "-p", "-t", f"={session}:",
                                   "#{pane_pid}"], capture_output=True, text=True, timeout=10, check=True).stdout)
    scratch = pid("scratch")
    real, stale = runs._pane, []
    monkeypatch.setattr(runs, "_pane", lambda srv, name: "0" if stale and stale.pop() else real(srv, name))
    for _ in range(2):
        killed = pid("work")
        os.kill(killed, signal.SIGKILL)
        stale[:] = [True] if seen == "not-yet-seen" else []
        res = call("run", command="echo fresh; echo $$", session="work", timeout=10)
        assert res["ok"] and res["exit_code"] == 0, (res["error"], res.get("hint"), res)
        assert res["output"].split("\n")[0] == "fresh" and int(res["output"].split("\n")[1]) != killed, res
        assert pid("scratch") == scratch, "the private server ended (a paste into the dead pane)"


def test_a_command_that_kills_its_own_shell_runs_once(private_socket: str, tmp_path: Path) -> None:
    """The shell began the command (its start mark is in the log) and died in it: that is the command's
    doing, reported as such, and never typed again."""
    count = tmp_path / "count"
    assert call("run", command="true", session="work")["ok"]
    res = call("run", command=f"echo once >> {count}; kill -9 $$", session="work", timeout=10)
    assert not res["ok"] and "died while the command ran" in (res["error"] or ""), res
    assert count.read_text() == "once\n", "the command ran again"
    res = call("run", command="echo fresh", session="work", timeout=10)
    assert res["ok"] and res["output"] == "fresh", res
