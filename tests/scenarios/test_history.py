"""The human recalls history at the prompt: that line is the human's, never the agent's leftover.

The recalled text may be exactly what the agent typed earlier (the agent's
``seq 1 200 | less``), yet it is the human who put it on the line now: the
agent must not clear it with Ctrl+U nor submit it; it waits or says so.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, poll, probe, refused


def line_is(scene: Scene, text: str) -> bool:
    return bool(poll(lambda: scene.before_cursor().rstrip().endswith(text), 4))


def agent_refused_and_line_kept(scene: Scene, text: str) -> None:
    command, answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert scene.before_cursor().rstrip().endswith(text), explain("the human's recalled line was changed", res, scene)
    assert answer not in scene.history()


@pytest.mark.parametrize(("first", "then"), [
    ("seq 1 200 | less", "q"),
    ("echo first", None),
    ("sleep 30", "interrupt"),
])
def test_human_recalls_the_agents_command_with_up(scene: Scene, first: str, then: str | None) -> None:
    res = call("send", text=first, timeout=1)
    assert res["ok"], explain("the first command did not run", res, scene)
    if then == "q":
        assert call("keys", keys="q")["ok"]
    elif then == "interrupt":
        assert call("interrupt", timeout=5)["ok"]
    assert scene.at_prompt()
    scene.human.press("Up")
    assert line_is(scene, first), scene.screen()
    agent_refused_and_line_kept(scene, first)
    scene.human.press("C-u")
    ends_right(scene)


def test_human_recalls_and_runs_it(scene: Scene) -> None:
    call("send", text="echo first", timeout=6)
    scene.human.press("Up")
    assert line_is(scene, "echo first")
    agent_refused_and_line_kept(scene, "echo first")
    scene.human.press("Enter")
    ends_right(scene)


def test_human_goes_up_and_back_down_to_an_empty_line(scene: Scene) -> None:
    call("send", text="echo first", timeout=6)
    scene.human.press("Up")
    assert line_is(scene, "echo first")
    scene.human.press("Down")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_searches_history_and_gives_up(scene: Scene) -> None:
    call("send", text="echo first", timeout=6)
    scene.human.press("C-r")
    scene.human.type("fir")
    scene.wait_screen(r"reverse-i-search")
    command, answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert answer not in scene.history()
    scene.human.press("C-g")
    assert scene.at_prompt()
    ends_right(scene)
