"""False-ready suite: the shared session is never called ready before it is.

Each command writes a timestamp file just before it ends; the shell's prompt
can only come after that.  ``status`` is polled meanwhile: a ``ready`` before
the timestamp is a premature ready, and no ``ready`` within 1 s after it is a
missed one.  Both must never happen.
"""

from __future__ import annotations

import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest

from python.tools.tmux_tool import call

from ..conftest import SharedTerminal, poll

FAKE_PROMPT = ("import sys, time; sys.stdout.write('tester@box:/tmp# '); sys.stdout.flush(); "
               "time.sleep(3)")
SPINNER = ("import sys, time\n"
           "for i in range(30):\n"
           "    sys.stdout.write('\\r' + '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[i % 10] + ' working'); sys.stdout.flush(); time.sleep(0.07)\n"
           "print()")

# A prompt-like row, then the program in front sleeps reading a pipe of its own (a build waiting for a job
# slot, a tool for its helper's answer): a pipe, not a key, ends that wait.
PIPED = ("import os, sys, threading; sys.stdout.write('tester@box:/tmp# '); sys.stdout.flush(); r, w = os.pipe(); "
         "threading.Timer(2, os.write, (w, b'x')).start(); os.read(r, 1)")

SCENARIOS = {
    "silent-1s": "sleep 1",
    "silent-3s": "sleep 3",
    "silent-10s": "sleep 10",
    "prompt-like-lines": "printf '$ \\n> \\n>>> \\ntester@box:~$ \\n'; sleep 2",
    "prompt-like-cat": "cat {prompts}; sleep 1.5",
    "carriage-return-progress": "for i in $(seq 1 20); do printf '\\rprogress %3d%%' $((i*5)); sleep 0.08; done; echo",
    "spinner": "python3 -c {spinner}",
    "fake-prompt-then-pause": "python3 -c {fake}",
    "scrolls-past-screen": "seq 1 300; sleep 1",
    "fake-prompt-then-waits-on-a-pipe": "python3 -c {piped}",
}


def observe_until(done: Path, extra: float = 1.5,
                  limit: float = 30.0) -> tuple[float, list[tuple[float, str, str]]]:
    """Poll status until ``extra`` seconds after the command's end; return (end, samples)."""
    samples: list[tuple[float, str, str]] = []
    start = time.time()
    end = None
    while time.time() - start < limit:
        res = call("status")
        samples.append((time.time(), res["status"], res["evidence"]))  # stamped at the judgement
        if end is None and done.exists() and done.read_text().strip():
            end = float(done.read_text())
        if end is not None and time.time() > end + extra:
            break
        time.sleep(0.04)
    assert end is not None, "the command never finished"
    return end, samples


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_no_premature_and_no_missed_ready(shared_terminal: SharedTerminal, tmp_path: Path, name: str) -> None:
    import shlex

    prompts = tmp_path / "prompts.txt"
    prompts.write_text("user@host:~$ \n$ ls\n>>> 1+1\n> \ntester@box:/tmp# \n")
    done = tmp_path / "done"
    command = SCENARIOS[name].format(prompts=prompts, spinner=shlex.quote(SPINNER), fake=shlex.quote(FAKE_PROMPT),
                                     piped=shlex.quote(PIPED))
    assert call("send", text="true", timeout=5)["status"] == "ready"  # learn the prompt
    sent = call("send", text=f"{command}; date +%s.%N > {done}", timeout=0)
    assert sent["ok"], sent
    end, samples = observe_until(done)
    premature = [(round(t - end, 3), s, e) for t, s, e in samples if t < end and s == "ready"]
    assert not premature, f"ready before the command ended: {premature}"
    after = [t for t, s, _ in samples if t >= end and s == "ready"]
    assert after and after[0] - end <= 1.0, f"no ready within 1 s of the end: {samples[-3:]}"


def test_pager_is_blocked_until_dismissed(shared_terminal: SharedTerminal) -> None:
    call("send", text="true", timeout=5)
    call("send", text="seq 1 300 | less", timeout=0)
    res = call("wait", timeout=5)
    assert res["status"] == "blocked" and res["program"] == "less", res
    for _ in range(10):
        assert call("status")["status"] == "blocked"
        time.sleep(0.05)
    shared_terminal.press("q")
    assert call("wait", timeout=5)["status"] == "ready"


def test_editor_is_reported_as_the_editor_not_the_shell(shared_terminal: SharedTerminal, tmp_path: Path) -> None:
    call("send", text="true", timeout=5)
    call("send", text=f"vim -u NONE -N {tmp_path / 'notes.txt'}", timeout=0)
    res = call("wait", timeout=10)
    assert res["program"] == "vim" and res["status"] == "ready", res
    shared_terminal.press("Escape")
    shared_terminal.type(":q!")
    shared_terminal.press("Enter")
    res = call("wait", timeout=5)
    assert res["status"] == "ready" and res["program"] == "bash", res


def test_a_program_that_ends_between_the_kernels_look_and_the_screens_is_no_error(
        shared_terminal: SharedTerminal, monkeypatch: pytest.MonkeyPatch) -> None:
    """One look reads the kernel, then the screen.  A command that ends in between (ls after its error
    message) is still named in front while the screen already shows the prompt under its last words:
    that is the shell back, not the program failing."""
    from python.helpers.tmux_tool.transport import kernel

    tool = shared_terminal.home / "lsx"  # like ls on a missing file, but in front long enough to be seen
    tool.write_text(f"#!{sys.executable}\nimport sys, time\n"
                    "print(\"lsx: cannot access 'x': No such file or directory\", file=sys.stderr)\n"
                    "time.sleep(0.5)\nsys.exit(2)\n")
    tool.chmod(0o755)
    assert call("send", text="true", timeout=10)["ok"]
    res = call("send", text=f"{tool}", timeout=0)
    assert res["ok"], res
    pid = int(shared_terminal.tmux("display-message", "-p", "-t", "=shared:", "#{pane_pid}").strip())
    tty = shared_terminal.tmux("display-message", "-p", "-t", "=shared:", "#{pane_tty}").strip()
    deadline = time.monotonic() + 5
    while (term := kernel.look(pid, tty)).front is None or term.front.comm != "lsx":
        assert time.monotonic() < deadline, "lsx never came to the front"
        time.sleep(0.01)
    while not kernel.look(pid, tty).shell_in_front or "No such file" not in shared_terminal.screen():
        assert time.monotonic() < deadline, "the command never ended"
        time.sleep(0.01)
    # What the kernel says of lsx in its last instant (exited, not yet reaped by the shell), handed
    # out once: the race, made certain.
    stale = [replace(term, front=replace(term.front, state="Z"), wchan="")]
    real = kernel.look
    monkeypatch.setattr(kernel, "look", lambda p, t, src=kernel.HERE: stale.pop() if stale else real(p, t, src))
    st = call("status")
    assert st["status"] == "ready" and st["program"] == "bash", st


def test_a_program_the_agent_opened_stays_its_own_when_the_judgement_runs_late(
        shared_terminal: SharedTerminal, monkeypatch: pytest.MonkeyPatch) -> None:
    """A loaded machine can pause the tool between reading the clock and reading the kernel's facts.  A
    program the agent's command started must still be the agent's: its start is compared with the
    kernel's clock at the moment of typing, never with wall time converted later."""
    from types import SimpleNamespace

    from python.helpers.tmux_tool.shared import judge

    real = time.time
    monkeypatch.setattr(judge, "time", SimpleNamespace(time=lambda: real() - 0.5))  # half a second behind
    assert call("send", text="true", timeout=10)["status"] == "ready"
    res = call("send", text=f"{sys.executable} -q", timeout=10)
    assert res["ok"] and res["status"] == "ready" and "python" in res["program"], res
    res = call("send", text="print(6 * 7)", timeout=10)
    assert res["ok"] and "42" in res["output"], res


def test_a_line_taken_between_the_kernels_facts_and_the_picture_is_no_prompt(
        shared_terminal: SharedTerminal, monkeypatch: pytest.MonkeyPatch) -> None:
    """A look reads the kernel, then tmux's picture.  A busy machine can stall it in between, and the shell
    can take its line meanwhile: the kernel said "editor waits", the picture shows the line accepted and
    no prompt yet.  Such a look must not call the shell ready (it was read again, or judged busy)."""
    from python.helpers.tmux_tool.shared import judge, look
    from python.helpers.tmux_tool.transport import kernel
    from python.helpers.tmux_tool.transport.tmux import Tmux

    assert call("send", text="true", timeout=10)["status"] == "ready"
    shared_terminal.type("sleep 2")
    assert poll(lambda: shared_terminal.screen().rstrip().endswith("sleep 2"), 5)
    tmux = Tmux(shared_terminal.socket)
    pane = shared_terminal.tmux("display", "-p", "-t", "=shared:", "#{pane_id}").strip()
    shell = int(shared_terminal.tmux("display", "-p", "-t", pane, "#{pane_pid}"))
    tty = shared_terminal.tmux("display", "-p", "-t", pane, "#{pane_tty}").strip()
    assert kernel.look(shell, tty).editing
    real = look.panes.look

    def stalled(*args: object, **kwargs: object) -> object:
        """The stall: Enter arrives and the shell starts the command before tmux is asked for its picture."""
        if kernel.look(shell, tty).editing:
            shared_terminal.press("Enter")
            assert poll(lambda: not kernel.look(shell, tty).editing, 5)
        return real(*args, **kwargs)

    monkeypatch.setattr(look.panes, "look", stalled)
    look._panes[(tmux.key, pane)] = (shell, tty)  # the pane is known from earlier looks, as in use
    lk = look.take(tmux, pane)
    assert not lk.term.editing, "the kernel's facts are older than the picture"
    assert judge.judge(lk).status.value != "ready"


def test_a_question_on_screen_from_a_program_that_waits_on_a_pipe_is_no_question(
        shared_terminal: SharedTerminal, tmp_path: Path) -> None:
    """Its row looks like a question, but the kernel has the program waiting on a pipe, not on the terminal:
    a key typed now would wait unread and be taken later by whatever reads next.  (The program runs under a
    name no profile knows.)"""
    import os
    import shlex

    tool = tmp_path / "fetcher"
    os.symlink(sys.executable, tool)
    asks = PIPED.replace("tester@box:/tmp# ", "Overwrite notes.txt? [y/N] ")
    assert call("send", text="true", timeout=5)["status"] == "ready"
    done = tmp_path / "done"
    assert call("send", text=f"{tool} -c {shlex.quote(asks)}; date +%s.%N > {done}", timeout=0)["ok"]
    assert poll(lambda: "Overwrite" in shared_terminal.screen(), 5)
    end, samples = observe_until(done)
    asked = [(round(t - end, 3), s, e) for t, s, e in samples if t < end and s in ("blocked", "ready")]
    assert not asked, f"a program waiting on a pipe was taken for one waiting for keys: {asked}"
