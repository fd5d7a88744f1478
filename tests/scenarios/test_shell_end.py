"""The shared shell is never ended by the agent.

``exit``, ``logout``, ``exec ...``, killing the shell's own pid or Ctrl+D at
its empty prompt would close the human's terminal (and with the last
window, the whole shared server).  Each is refused with a sentence, nothing
is typed, and the same shell is there afterwards.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, fish, refused, settle, zsh

ENDINGS = ["exit", "exit 0", "logout", "exec bash", "exec zsh", "kill -9 $$", "kill -HUP $$", "kill -9 {pid}",
           "echo bye; exit"]


def same_shell_untouched(scene: Scene, res: dict, pid: int, before: str) -> None:
    refused(res)
    assert scene.alive() and scene.pane_pid() == pid, explain("the shared shell was ended", res, scene)
    assert scene.screen() == before, explain("something was typed", res, scene)


@pytest.mark.parametrize("text", ENDINGS)
def test_agent_cannot_end_the_shared_shell(scene: Scene, text: str) -> None:
    settle(scene)
    pid, before = scene.pane_pid(), scene.screen()
    res = call("send", text=text.format(pid=pid), timeout=3)
    same_shell_untouched(scene, res, pid, before)
    ends_right(scene)


def test_agent_cannot_press_ctrl_d_at_the_empty_prompt(scene: Scene) -> None:
    settle(scene)
    pid, before = scene.pane_pid(), scene.screen()
    res = call("keys", keys="C-d")
    same_shell_untouched(scene, res, pid, before)
    ends_right(scene)


@pytest.mark.parametrize("shell", [
    zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $"),
    fish("", r"# $"),
], ids=str)
def test_agent_cannot_exit_other_shells(make_scene, shell) -> None:
    scene: Scene = make_scene(shell)
    settle(scene)
    pid, before = scene.pane_pid(), scene.screen()
    res = call("send", text="exit", timeout=3)
    same_shell_untouched(scene, res, pid, before)
    ends_right(scene)
