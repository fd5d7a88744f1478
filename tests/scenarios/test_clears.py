"""Clearing the screen, by the agent or by the human, before and after it scrolled.

``clear`` and ``tput clear`` move the prompt to the top row, Ctrl+L redraws
it there, ``reset`` also reinitialises the terminal: in every case the
prompt is plainly back and the agent must be able to go on without anyone
pressing a key.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain

WAYS = ["clear", "tput clear", "C-l", "reset"]
SCREENS = ["fresh", "scrolled"]


def before(scene: Scene, screen: str) -> None:
    """The agent's last command left the screen unscrolled, or scrolled past its end."""
    command = "echo first" if screen == "fresh" else "seq 1 80"
    res = call("send", text=command, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not run", res, scene)
    if screen == "scrolled":
        assert int(scene.fmt("#{history_size}")) > 0


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("way", WAYS)
def test_agent_clears(scene: Scene, way: str, screen: str) -> None:
    before(scene, screen)
    if way == "C-l":
        res = call("keys", keys="C-l")
        assert res["ok"], explain("Ctrl+L at the agent's own empty prompt was refused", res, scene)
    else:
        res = call("send", text=way, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"{way!r} did not come back ready", res, scene)
    assert scene.at_prompt()
    assert "first" not in scene.screen() and "\n80\n" not in scene.screen()
    ends_right(scene)


@pytest.mark.parametrize("screen", SCREENS)
@pytest.mark.parametrize("way", WAYS)
def test_human_clears(scene: Scene, way: str, screen: str) -> None:
    before(scene, screen)
    if way == "C-l":
        scene.human.press("C-l")
    else:
        scene.human.line(way)
    assert scene.at_prompt()
    ends_right(scene)


def test_agent_clears_then_prints_in_one_command(scene: Scene) -> None:
    res = call("send", text="clear; printf 'top-%s\\n' 7", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("clear; printf did not come back ready", res, scene)
    assert res["output"] == "top-7", explain("the output after a clear is not the command's", res, scene)
    ends_right(scene)


def test_agent_clears_as_its_very_first_command(scene: Scene) -> None:
    res = call("send", text="clear", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("a first clear did not come back ready", res, scene)
    ends_right(scene)
