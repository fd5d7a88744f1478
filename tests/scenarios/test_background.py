"""Background jobs that print after the prompt is back.

``(sleep 1; echo listening) &`` returns to the prompt at once; a moment later
the job's line lands after the prompt and the cursor sits on an empty row
below it.  The shell is still at its prompt (the kernel says so); the agent
goes on without a key from anyone.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, bash, ends_right, explain, ready_after_end, settle, stamp, zsh


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

