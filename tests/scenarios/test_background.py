"""Background jobs that print after the prompt is back.

``(sleep 1; echo listening) &`` returns to the prompt at once; a moment later
the job's line lands after the prompt and the cursor sits on an empty row
below it.  The shell is still at its prompt (the kernel says so); the agent
goes on without a key from anyone.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, bash, ends_right, explain, ready_after_end, send_as_told, settle, stamp, zsh


@pytest.mark.parametrize("who", ["agent", "human"])
def test_a_background_job_prints_after_the_prompt(scene: Scene, who: str) -> None:
    job = "(sleep 1; echo listening) &"
    if who == "agent":
        res = call("send", text=job, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain("a background job is not a running command", res, scene)
    else:
        settle(scene)
        scene.human.line(job)
    scene.wait_screen(r"listening$")
    ends_right(scene)


def test_a_background_job_prints_without_a_newline(scene: Scene) -> None:
    res = call("send", text="(sleep 1; printf 'partial') &", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("a background job is not a running command", res, scene)
    scene.wait_screen(r"partial")
    ends_right(scene)


@pytest.mark.parametrize("shell", [
    zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $", name="zsh-notify"),
    bash(r"'tester@box:\w\$ '", r"tester@box:\S*# $", extra="set -b\n", name="bash-notify"),
], ids=str)
def test_a_job_done_notice_arrives_at_once(make_scene, shell) -> None:
    scene: Scene = make_scene(shell)
    res = call("send", text="sleep 1 &", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("a background job is not a running command", res, scene)
    scene.wait_screen(r"[Dd]one")
    ends_right(scene)


def test_a_job_prints_while_the_agent_waits_for_its_own_command(scene: Scene) -> None:
    res = call("send", text="(for i in 1 2 3; do sleep 0.4; echo tick$i; done) &", timeout=6)
    assert res["ok"], explain("the background job was not started", res, scene)
    res = call("send", text=f"sleep 1.5; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the foreground command was not typed", res, scene)
    res = call("wait", timeout=6)
    ready_after_end(scene, res)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the prompt again", res, scene)
    scene.wait_screen(r"^tick3$")
    ends_right(scene)


def test_lines_a_job_printed_after_the_prompt_are_not_the_agents_output(scene: Scene) -> None:
    """The agent's command ended and its prompt came back; then the human's job printed two lines below
    it, and only then did the agent look: its output is its command's, neither cut nor with the job's."""
    settle(scene)
    go = scene.file("go")
    scene.human.line(f"(while [ ! -e {go} ]; do sleep 0.05; done; printf 'bg-1\\nbg-2\\n') &")
    assert scene.at_prompt()
    res = send_as_told(scene, "sleep 0.3; printf 'mine-1\\nmine-2\\n'", timeout=0)
    if res["status"] != "ready":  # the one look may already see it over on a loaded machine
        scene.wait_screen(r"^mine-2$")
        assert scene.at_prompt()
        go.touch()
        scene.wait_screen(r"^bg-2$")
        res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the prompt was not seen", res, scene)
    assert res["output"] == "mine-1\nmine-2", explain("the output is not the command's alone", res, scene)
    assert not res.get("output_truncated"), explain("the output was called cut", res, scene)
    go.touch()
    ends_right(scene)


def test_the_human_suspends_the_agents_command_and_the_agent_resumes_it(scene: Scene) -> None:
    """Ctrl+Z: the shell takes the terminal back and prints the job as stopped; that is the command's end
    for now.  ``fg`` brings the same program back: still the agent's, so the agent may interrupt it."""
    settle(scene)
    res = call("send", text="sleep 30", timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("sleep is busy at first", res, scene)
    scene.human.press("C-z")
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the prompt after Ctrl+Z is not ready", res, scene)
    assert "Stopped" in res["output"] and "sleep 30" in res["output"], explain("the job's stop is the output",
                                                                               res, scene)
    res = send_as_told(scene, "echo between", timeout=6)
    assert res["output"] == "between", explain("the output is not the command's", res, scene)
    res = call("send", text="fg", timeout=0.5)
    assert res["ok"] and res["status"] == "busy" and res["program"] == "sleep", explain("fg", res, scene)
    res = call("interrupt", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the agent may end its own resumed sleep", res, scene)
    ends_right(scene)
