"""The human's window changes size while the agent waits, or while nothing runs.

tmux follows the human's client (``window-size latest``): the pane gets
wider, narrower, shorter or taller, long lines re-wrap and the cursor's row
moves.  None of that may make a running command look finished, nor leave a
finished one looking busy.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    PLAIN_BASH,
    ROWS,
    Scene,
    ends_right,
    explain,
    fish,
    no_ready_before_end,
    poll,
    stamp,
    watch_until_end,
    zsh,
)

LONG = "printf 'x%.0s' $(seq 1 200); echo"

SIZES = {
    "wider": (ROWS, 160, "echo short"),
    "narrower": (ROWS, 80, "echo short"),
    "wider-rewrap": (ROWS, 160, LONG),
    "narrower-rewrap": (ROWS, 70, LONG),
    "shorter-full": (20, 120, "seq 1 38"),
    "taller-scrolled": (50, 120, "seq 1 80"),
}


def resized(scene: Scene, rows: int, cols: int) -> None:
    scene.human.resize(rows, cols)
    assert poll(lambda: scene.size() == (rows, cols), 5), f"the pane never became {cols}x{rows}: {scene.size()}"


@pytest.mark.parametrize("name", list(SIZES))
def test_resize_while_the_agent_waits(scene: Scene, name: str) -> None:
    rows, cols, before = SIZES[name]
    res = call("send", text=before, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not run", res, scene)
    res = call("send", text=f"sleep 1.5; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the command was not typed", res, scene)
    samples = watch_until_end(scene, during=lambda: resized(scene, rows, cols))
    no_ready_before_end(scene, samples)
    ends_right(scene)


@pytest.mark.parametrize("name", ["wider-rewrap", "narrower-rewrap", "shorter-full"])
def test_resize_at_an_idle_prompt(scene: Scene, name: str) -> None:
    rows, cols, before = SIZES[name]
    res = call("send", text=before, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not run", res, scene)
    resized(scene, rows, cols)
    ends_right(scene)


SHELLS = {"bash": PLAIN_BASH, "zsh": zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $"),
          "fish": fish("function fish_prompt; printf 'fish> '; end\n", r"fish> $")}


@pytest.mark.parametrize("shell", list(SHELLS))
def test_the_agent_types_while_the_humans_window_is_still_being_resized(make_scene: Callable[..., Scene],
                                                                         shell: str) -> None:
    """The human drags the window's edge (two sizes in a moment) as the agent types a line wider than both.

    tmux redraws the pane at once but tells the shell its new size only a quarter second after the
    last one: a line typed in between is drawn by the shell for the old width, then drawn again,
    and the leftovers of the first drawing stay on the human's screen (and, joined by tmux, in
    what the agent reads as the output).
    """
    scene = make_scene(SHELLS[shell])
    res = call("send", text="true", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not run", res, scene)
    words = " ".join(f"w{i:03d}" for i in range(45))
    command = f"echo {words}"
    scene.human.resize(ROWS, 70)
    assert poll(lambda: scene.size() == (ROWS, 70), 5), scene.size()
    scene.human.resize(ROWS, 160)
    # The human's client tells tmux its new size in its own time: once tmux has the pane at 160, the shell
    # still has 70 for up to a quarter second - the moment this test is about.  (Typed before tmux knew,
    # the line goes into a pane nobody is resizing yet: no guard can see a resize that is still to come.)
    assert poll(lambda: scene.size() == (ROWS, 160), 5), scene.size()
    res = call("send", text=command, timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == words, explain("the output is not what the command printed", res, scene)
    rows = [r.rstrip() for r in scene.tmux("capture-pane", "-p", "-J", "-S", "-").splitlines()]
    drawn = [r for r in rows if "w044" in r or "echo w0" in r]
    assert len(drawn) == 2 and drawn[0].endswith(command) and drawn[1] == words, (
        "the command is not drawn once, as typed:\n" + "\n".join(repr(r) for r in drawn))


def test_a_width_the_human_set_with_stty_holds_the_agent_back_only_a_moment(scene: Scene) -> None:
    """``stty cols`` gives the terminal a size of its own, which tmux never tells it again: no resize is
    under way, and the agent's command is typed and answered all the same."""
    scene.human.line("stty cols 50")
    assert poll(lambda: scene.at_prompt(), 5), scene.screen()
    scene.human_quiet()
    res = call("send", text="echo after-stty", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("the agent's command was held back", res, scene)
    assert res["output"] == "after-stty", explain("the output is not what the command printed", res, scene)
