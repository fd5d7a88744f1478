"""OpenHands' runtime bash tests, case by case, as actions on a private session.

Source: the repository OpenHands/OpenHands, file ``tests/runtime/test_bash.py``.  Each test below
names the case it translates; the commands and checks are written for this tool (``run``, ``send``,
``wait``, ``interrupt``), not copied.  Where this tool answers differently on purpose, the test says
so in one line.  Cases about copying files into a sandbox, Windows and OpenHands' own runtimes are
left out: they have no counterpart here.  Real tmux, real bash; commands that must still run while
the test looks wait at a gate (``tests/gates.py``).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

from python.tools.tmux_tool import call

from ..conftest import poll
from ..gates import Gate


def run(command: str, **kw: Any) -> dict[str, Any]:
    return call("run", command=command, **kw)


def in_dir(path: Path) -> str:
    return f"cd {shlex.quote(str(path))}"


def workdir(tmp_path: Path) -> Path:
    """An empty folder of the test's own (``tmp_path`` also holds the tool's state)."""
    work = tmp_path / "work"
    work.mkdir()
    return work


# test_multiline_commands, test_no_ps2_in_output
def test_multiline_commands_and_blank_lines(private_socket: str) -> None:
    res = run('echo \\\n -e "foo"')
    assert res["exit_code"] == 0 and res["output"] == "foo", res
    res = run('echo -e "hello\nworld"')
    assert res["exit_code"] == 0 and res["output"] == "hello\nworld", res  # no "> " of PS2 in it
    assert run('echo -e "a\\n\\n\\nz"')["output"] == "a\n\n\nz"


# test_complex_commands
def test_a_loop_with_substitutions_and_arithmetic_on_one_line(private_socket: str) -> None:
    res = run('n=0; tries=0; while [ $n -lt 3 ]; do r=$(echo "Heads"); tries=$((tries+1)); '
              'echo "Flip $tries: $r"; if [ "$r" = "Heads" ]; then n=$((n+1)); else n=0; fi; done; '
              'echo "Got 3 heads in a row after $tries flips!"')
    assert res["exit_code"] == 0
    assert res["output"] == "Flip 1: Heads\nFlip 2: Heads\nFlip 3: Heads\nGot 3 heads in a row after 3 flips!"


# test_multiline_command_loop
def test_nested_loops_over_several_lines_then_another(private_socket: str, tmp_path: Path) -> None:
    tmp_path = workdir(tmp_path)
    made = run(f"{in_dir(tmp_path)} && mkdir -p mods && \\\nfor m in 01 02; do\n  for d in 01 02 03; do\n"
               '    touch "mods/2024-$m-$d.md"\n  done\ndone && echo "created files"')
    assert made["exit_code"] == 0 and made["output"] == "created files", made
    moved = run('for f in mods/2024-01-*.md; do\n  mv "$f" "${f/2024-01/2024-08}"\ndone && echo "success"')
    assert moved["exit_code"] == 0 and moved["output"] == "success", moved
    assert run("ls mods | grep -c 2024-08")["output"] == "3"


# test_multiple_multiline_commands
def test_several_commands_given_at_once_run_as_one_unit(private_socket: str) -> None:
    # Differs on purpose: OpenHands refuses several commands in one action; here they run as one paste.
    cmds = ['echo -e "hello\nworld"', """echo -e "hello it's me\"""", "echo \\\n  -e 'hello' \\\n  world",
            "echo -e 'hello\\nworld\\nare\\nyou\\n\\nthere?'", """echo -e 'hello\nworld "'"""]
    each = ["hello\nworld", "hello it's me", "hello world", "hello\nworld\nare\nyou\n\nthere?", 'hello\nworld "']
    res = run("\n".join(cmds))
    assert res["exit_code"] == 0 and res["output"] == "\n".join(each), res
    assert [run(cmd)["output"] for cmd in cmds] == each


# test_cmd_run, test_multi_cmd_run_in_single_line, test_pwd_property
def test_files_and_directories_listed_and_made(private_socket: str, tmp_path: Path) -> None:
    tmp_path = workdir(tmp_path)
    assert run(f"{in_dir(tmp_path)} && ls -l")["output"] == "total 0"
    assert run("mkdir test && touch test/foo.txt")["exit_code"] == 0
    assert "foo.txt" in run("ls -l test")["output"]
    res = run("pwd && ls")
    assert res["exit_code"] == 0 and res["output"] == f"{tmp_path}\ntest"


# test_stateful_cmd
def test_the_working_directory_and_variables_persist_across_runs(private_socket: str, tmp_path: Path) -> None:
    tmp_path = workdir(tmp_path)
    assert run(f"{in_dir(tmp_path)} && mkdir -p test")["exit_code"] == 0
    cd = run("cd test")
    assert cd["exit_code"] == 0 and cd["cwd"] == f"{tmp_path}/test", cd
    assert run("pwd")["output"] == f"{tmp_path}/test"
    assert run("export KEPT=across-runs; UNEXPORTED=too")["exit_code"] == 0
    assert run('echo "$KEPT $UNEXPORTED"')["output"] == "across-runs too"


# test_run_as_user_correct_home_dir
def test_home_is_the_callers(private_socket: str, plain_home: Path) -> None:
    assert run("cd ~ && pwd")["output"] == str(plain_home)


# test_failed_cmd, test_basic_command
def test_exit_codes_and_special_characters(private_socket: str) -> None:
    res = run("nonexistent_command")
    assert res["exit_code"] == 127 and "nonexistent_command: command not found" in res["output"], res
    assert run("echo 'hello   world    with\nspecial  chars'")["output"] == "hello   world    with\nspecial  chars"
    assert run('echo "first" && echo "second" && echo "third"')["output"] == "first\nsecond\nthird"
    assert run("echo 'quotes \" and \\\\ and $HOME and `date`'")["output"] == "quotes \" and \\\\ and $HOME and `date`"


# test_command_backslash
def test_an_escaped_semicolon_reaches_find(private_socket: str, tmp_path: Path) -> None:
    tmp_path = workdir(tmp_path)
    (tmp_path / "file_1.txt").write_text("implemented_function\n")
    res = run(f'find {shlex.quote(str(tmp_path))} -type f -exec grep -l "implemented_function" {{}} \\;')
    assert res["exit_code"] == 0 and res["output"] == f"{tmp_path}/file_1.txt", res


# test_interactive_command
def test_a_question_answered_with_send_and_a_here_document(private_socket: str) -> None:
    asked = run('read -p "Enter name: " name && echo "Hello $name"', timeout=1)
    assert asked["exit_code"] is None and "Enter name:" in (asked["output"] + (asked["screen"] or "")), asked
    res = call("send", text="John", session="scratch", timeout=10)
    assert res["exit_code"] == 0 and res["output"].endswith("Hello John"), res
    res = run("cat << EOF\nline 1\nline 2\nEOF")
    assert res["exit_code"] == 0 and res["output"] == "line 1\nline 2", res


# test_long_output, test_long_output_exceed_history_limit
def test_long_output_is_capped_for_the_agent_and_saved_whole(private_socket: str) -> None:
    # Differs on purpose: OpenHands loses what scrolled out of tmux's history; here the pane log keeps all.
    res = run('for i in $(seq 1 50000); do echo "Line $i"; done', timeout=60)
    assert res["exit_code"] == 0 and "Line 1\n" in res["output"] and res["output"].endswith("Line 50000"), res
    saved = Path(res["output_file"]).read_text().split("\n")
    assert saved == [f"Line {i}" for i in range(1, 50001)]


# test_stress_long_output_with_soft_and_hard_timeout, test_long_running_command_follow_by_execute
def test_a_run_at_its_timeout_refuses_the_next_until_interrupted(private_socket: str, tmp_path: Path) -> None:
    gate = Gate(tmp_path / "never")
    res = run(f'for j in 1 2 3; do echo "Line $j - $(printf "%1000s" | tr " " "*")"; {gate.shell}; done',
              timeout=0.5)
    assert res["status"] == "busy" and res["exit_code"] is None and res["output"].startswith("Line 1 - ****"), res
    refused = run("ls")
    assert not refused["ok"] and refused["status"] == "busy" and "still running" in refused["error"], refused
    stopped = call("interrupt", session="scratch", timeout=10)
    assert stopped["exit_code"] == 130, stopped
    assert run("ls")["exit_code"] == 0


# test_command_output_continuation
def test_a_slow_command_is_followed_with_wait_until_it_ends(private_socket: str, tmp_path: Path) -> None:
    # Differs on purpose: each busy result holds all the output since the run began, not only what is new.
    gates = [Gate(tmp_path / f"g{i}") for i in range(1, 4)]
    res = run("; ".join(f"echo {i}; {g.shell}" for i, g in enumerate(gates, 1)), timeout=0.3)
    assert res["status"] == "busy" and res["output"] == "1", res
    for i, gate in enumerate(gates[:-1], 2):
        gate.open()
        seen = poll(lambda i=i: (w := call("wait", session="scratch", timeout=0.3))["output"].endswith(str(i))
                    and w, 20)
        assert seen and seen["status"] == "busy", seen
    gates[-1].open()
    done = call("wait", session="scratch", timeout=20)
    assert done["status"] == "ready" and done["exit_code"] == 0 and done["output"] == "1\n2\n3", done


# test_empty_command_errors
def test_an_empty_command_is_refused_with_a_sentence(private_socket: str) -> None:
    # Differs on purpose: an empty command never means "show the last output" here; wait does that.
    res = run("")
    assert not res["ok"] and res["error"] == "the command is empty", res


# test_python_interactive_input, test_python_interactive_input_without_set_input
def test_a_script_asking_twice_is_answered_with_send(private_socket: str) -> None:
    script = ("name = input('Enter your name: '); age = input('Enter your age: '); "
              "print(f'Hello {name}, you are {age} years old')")
    asked = run(f'python3 -c "{script}"', timeout=20)
    assert asked["status"] == "blocked" and asked["question"] == "Enter your name:", asked
    refused = run("Alice")  # a new command while the script runs is not typed into it
    assert not refused["ok"] and refused["status"] == "busy", refused
    second = call("send", text="Alice", session="scratch", timeout=10)
    assert second["exit_code"] is None and "Enter your age:" in (second["screen"] or ""), second
    done = call("send", text="25", session="scratch", timeout=10)
    assert done["exit_code"] == 0 and done["output"].endswith("Hello Alice, you are 25 years old"), done


# test_bash_remove_prefix
def test_output_never_holds_the_command_line(private_socket: str, tmp_path: Path) -> None:
    tmp_path = workdir(tmp_path)
    assert run(f"{in_dir(tmp_path)} && git init -q && git remote add origin https://example.invalid/r")[
        "exit_code"] == 0
    res = run("git remote -v")
    assert res["output"] == "origin\thttps://example.invalid/r (fetch)\norigin\thttps://example.invalid/r (push)"


# test_bash_server
def test_a_server_in_front_is_stopped_with_interrupt_and_started_again(private_socket: str) -> None:
    for address in ("127.0.0.1", "127.0.0.2"):  # the second server's line is told from the first's
        res = run(f"python3 -u -m http.server 0 --bind {address}", timeout=0.5)
        assert res["status"] in ("busy", "blocked") and res["exit_code"] is None, res
        shown = call("wait", session="scratch", pattern=f"Serving HTTP on {address}", timeout=20)
        assert shown["ok"], shown
        stopped = call("interrupt", session="scratch", timeout=20)
        assert stopped["exit_code"] == 0 and "Keyboard interrupt received, exiting." in stopped["output"], stopped
        after = run("ls")
        assert after["exit_code"] == 0 and "Keyboard interrupt" not in after["output"]


# test_bash_background_server
def test_a_background_job_returns_at_once_and_is_waited_for_later(private_socket: str, tmp_path: Path) -> None:
    gate = Gate(tmp_path / "go")
    started = run(f"({gate.shell}; echo background-done) &")
    assert started["ok"] and started["exit_code"] == 0, started
    assert "Running" in run("jobs")["output"]
    res = run(f"touch {shlex.quote(str(gate.path))}; wait; echo after")
    assert res["exit_code"] == 0 and "background-done" in res["output"] and res["output"].endswith("after"), res
