"""Nested shells: the human opens a shell inside the shell (bash, sh, zsh, su -, sudo -i).

The pane's first process is then not the one reading the terminal; the
inner shell at its prompt is as good a place for the agent's command as the
outer one.  When the human leaves it, the outer shell is back, and nobody
has to press a key for the agent to go on.
"""

from __future__ import annotations

import re

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, poll, probe, ready_after_end, stamp

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
def test_agent_works_in_a_shell_the_human_nested(scene: Scene, name: str) -> None:
    command, comm, prompt = NESTED[name]
    scene.file(".zshrc").write_text("PROMPT='inner-zsh%# '\nHISTFILE=/dev/null\n")
    call("send", text="true", timeout=6)
    outer = scene.pane_pid()
    scene.human.line(command)
    nested_prompt(scene, comm, prompt, outer)

    probe_cmd, answer = probe()
    res = call("send", text=probe_cmd, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain(f"the agent cannot work in a nested {name}", res, scene)
    assert answer in res["output"], explain("the nested shell's output is missing", res, scene)

    res = call("send", text=f"sleep 1; {stamp()}", timeout=0)
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
    command, answer = probe()
    res = call("send", text=command, timeout=6)
    assert res["ok"] and res["output"] == answer, explain("the nested bash did not answer", res, scene)
    scene.human.line("exit")
    assert scene.at_prompt()
    ends_right(scene)
