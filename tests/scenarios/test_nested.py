"""Nested shells: the human opens a shell inside the shell (bash, sh, zsh, su -, sudo -i, tmux, screen).

The pane's first process is then not the one reading the terminal.  The
inner shell at its prompt is ready (never a lock-out), but it is a program
the human opened: the agent types there only with ``force`` (the human
asked).  A nested shell the agent opened itself takes the agent's commands.
When the human leaves, the outer shell is back, and nobody has to press a
key for the agent to go on.
"""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable

import pytest

from python.tools.tmux_tool import call

from ..conftest import kill_server
from .conftest import Scene, ends_right, explain, poll, probe, ready_after_end, refused, settle, stamp

NESTED = {
    "bash": ("bash", "bash", r"tester@box:\S*# $"),
    "bash-norc": ("bash --norc", "bash", r"bash-[\d.]+# $"),
    "sh": ("sh", "sh", r"^# $"),
    "zsh": ("zsh", "zsh", r"inner-zsh# $"),
    "su": ("su -", "bash", r"# $"),
    "sudo": ("sudo -i", "sudo", r"# $"),  # sudo keeps the terminal and runs the shell on a pty of its own
}


def nested_prompt(scene: Scene, comm: str, prompt: str, outer: int) -> None:
    """Wait until the inner shell is in front and shows its prompt at the cursor."""
    inner = poll(lambda: scene.foreground() == comm and scene.tpgid() != outer
                 and re.search(prompt, scene.before_cursor()), 8)
    assert inner, f"the nested {comm} never showed its prompt:\n{scene.screen()}"


@pytest.mark.parametrize("name", list(NESTED))
def test_a_shell_the_human_nested(scene: Scene, name: str) -> None:
    """The human's inner shell is the human's: no lock-out, no typing unless asked (force)."""
    command, comm, prompt = NESTED[name]
    scene.file(".zshrc").write_text("PROMPT='inner-zsh%# '\nHISTFILE=/dev/null\n")
    settle(scene)
    outer = scene.pane_pid()
    scene.human.line(command)
    nested_prompt(scene, comm, prompt, outer)

    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain(f"lock-out in a nested {name}", res, scene)
    before = scene.screen()
    probe_cmd, answer = probe(scene)
    res = call("send", text=probe_cmd, timeout=2)
    refused(res)
    assert scene.screen() == before, explain(f"text was typed into the human's {name}", res, scene)

    res = call("send", text=probe_cmd, force=True, timeout=6)  # the human asked for it
    assert res["ok"] and res["status"] == "ready", explain(f"force did not run in a nested {name}", res, scene)
    ready_after_end(scene, res, "probe")
    assert answer in res["output"], explain("the nested shell's output is missing", res, scene)

    res = call("send", text=f"sleep 1; {stamp(scene)}", force=True, timeout=0)
    assert res["ok"], explain("the slower command was not typed in the nested shell", res, scene)
    res = call("wait", timeout=6)
    ready_after_end(scene, res)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the nested prompt again", res, scene)

    # root's own history file is not the test's to write: the human leaves without saving it
    scene.human.line("unset HISTFILE; exit")
    assert scene.at_prompt()
    assert scene.tpgid() == outer
    ends_right(scene)


def test_agent_opens_a_nested_bash_and_works_there(scene: Scene) -> None:
    res = call("send", text="bash", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("a nested bash is a shell at its prompt", res, scene)
    nested_prompt(scene, "bash", r"tester@box:\S*# $", scene.pane_pid())
    command, answer = probe(scene)
    res = call("send", text=command, timeout=6)
    assert res["ok"] and res["output"] == answer, explain("the nested bash did not answer", res, scene)
    scene.human.line("exit")
    assert scene.at_prompt()
    ends_right(scene)


# --- a terminal multiplexer inside the shared terminal --------------------------------
# name -> (front process of its client, a command that opens it with its own socket and config,
# what ends it and removes its socket).
def _multiplexer(scene: Scene, name: str, status: bool) -> tuple[str, str, Callable[[], None]]:
    conf = scene.file(f"{name}.conf")
    tag = f"{scene.socket}-inner"
    if name == "tmux":
        conf.write_text(f"set -g status {'on' if status else 'off'}\n")
        return "tmux: client", f"tmux -L {tag} -f {conf} new -s inner", lambda: kill_server(tag)
    conf.write_text("startup_message off\n" + ("hardstatus alwayslastline\n" if status else ""))
    quit_screen = ["screen", "-S", tag, "-X", "quit"]
    return "screen", f"screen -c {conf} -S {tag}", lambda: _end(quit_screen)


def _end(argv: list[str]) -> None:
    subprocess.run(argv, capture_output=True, timeout=10, check=False)


@pytest.mark.parametrize("name", ["tmux", "screen"])
def test_a_multiplexer_the_human_opened_inside_the_shared_terminal(scene: Scene, name: str) -> None:
    """Its client relays a shell on a terminal of its own: that prompt on the screen is ready, and the human's."""
    settle(scene)
    front, command, end = _multiplexer(scene, name, status=True)
    try:
        scene.human.line(command)
        scene.wait_front(front)
        assert poll(lambda: re.search(r"tester@box:\S*# $", scene.before_cursor()), 8), scene.screen()
        res = call("wait", timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"the shell inside {name} is never ready", res, scene)
        before = scene.screen()
        probe_cmd, answer = probe(scene)
        refused(call("send", text=probe_cmd, timeout=2))
        assert scene.screen() == before
        res = call("send", text=probe_cmd, force=True, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"force did not run inside {name}", res, scene)
        assert answer in res["output"], explain(f"the output inside {name} is missing", res, scene)
        scene.human.line("exit")
        assert scene.at_prompt()
        ends_right(scene)
    finally:
        end()


@pytest.mark.parametrize("name", ["tmux", "screen"])
def test_a_multiplexer_the_agent_opened_takes_its_commands(scene: Scene, name: str) -> None:
    settle(scene)
    _front, command, end = _multiplexer(scene, name, status=False)
    try:
        res = call("send", text=command, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"the agent's {name} never showed its prompt", res,
                                                               scene)
        probe_cmd, answer = probe(scene)
        res = call("send", text=probe_cmd, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"the agent's {name} did not answer", res, scene)
        assert answer in res["output"]
        res = call("send", text=f"sleep 1; {stamp(scene)}", timeout=0)
        assert res["ok"]
        res = call("wait", timeout=6)
        ready_after_end(scene, res)
        assert res["ok"] and res["status"] == "ready", explain(f"wait never saw the prompt inside {name}", res, scene)
        res = call("send", text="exit", timeout=6)
        assert res["ok"], explain(f"the agent could not leave its own {name}", res, scene)
        assert scene.at_prompt()
        ends_right(scene)
    finally:
        end()
