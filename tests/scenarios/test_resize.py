"""The human's window changes size while the agent waits, or while nothing runs.

tmux follows the human's client (``window-size latest``): the pane gets
wider, narrower, shorter or taller, long lines re-wrap and the cursor's row
moves.  None of that may make a running command look finished, nor leave a
finished one looking busy.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import ROWS, Scene, ends_right, explain, no_ready_before_end, poll, stamp, watch_until_end

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
