"""Output that tmux could not keep is said to be cut, never shown as whole.

With a small ``history-limit`` (500 lines: the human's own tmux setting) a
command printing 2,000 numbered lines loses its head from tmux's history.
The answer then carries ``output_truncated: true`` and its output is the
true tail of what was printed.  Ground truth: the numbered lines themselves
(``seq`` prints them, the test knows every one) and tmux's own
``history_limit`` of the pane.
"""

from __future__ import annotations

from collections.abc import Callable

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, ready_after_end, settle, stamp

LINES = [f"line-{i:04d}" for i in range(1, 2001)]
PRINT = "seq -f 'line-%04g' 1 2000"
SMALL = (("set", "-g", "history-limit", "500"),)


def is_tail(output: str) -> bool:
    got = output.split("\n")
    return 0 < len(got) <= len(LINES) and LINES[-len(got):] == got


def test_output_beyond_a_small_history_is_marked_cut(make_scene: Callable[..., Scene]) -> None:
    scene = make_scene(setup=SMALL)
    assert scene.fmt("#{history_limit}") == "500"
    settle(scene)
    res = call("send", text=f"{PRINT}; {stamp(scene)}", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    ready_after_end(scene, res)
    output = res["output"] or ""
    assert output.split("\n")[-3:] == LINES[-3:], explain("the output does not end with the last lines", res, scene)
    assert is_tail(output), explain("the output is not a true tail of what was printed", res, scene)
    assert output != "\n".join(LINES), "tmux kept 500 lines, yet the tool shows all 2000"
    assert res.get("output_truncated") is True, explain("the cut output is presented as whole", res, scene)
    ends_right(scene)


def test_a_slow_command_beyond_a_small_history_is_marked_cut_by_wait(make_scene: Callable[..., Scene]) -> None:
    scene = make_scene(setup=SMALL)
    settle(scene)
    res = call("send", text=f"sleep 1; {PRINT}; {stamp(scene)}", timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("the slow command is busy at first", res, scene)
    res = call("wait", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the end", res, scene)
    ready_after_end(scene, res)
    assert is_tail(res["output"] or "") and (res["output"] or "").endswith("line-2000"), \
        explain("wait's output is not a true tail of what was printed", res, scene)
    assert res.get("output_truncated") is True, explain("wait presents the cut output as whole", res, scene)
    ends_right(scene)


def test_a_new_window_made_after_the_human_lowers_the_limit(scene: Scene) -> None:
    """history-limit counts for panes made after it is set: the human sets it, then opens a window."""
    settle(scene)
    scene.tmux("set", "-g", "history-limit", "500")
    pane = scene.new_window()
    assert scene.fmt("#{history_limit}", pane) == "500"
    scene.human_quiet()
    res = call("send", text=f"{PRINT}; {stamp(scene)}", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    ready_after_end(scene, res)
    assert is_tail(res["output"] or "") and (res["output"] or "").endswith("line-2000"), \
        explain("the output is not a true tail of what was printed", res, scene)
    assert res.get("output_truncated") is True, explain("the cut output is presented as whole", res, scene)
    ends_right(scene)


def test_a_short_output_is_not_marked_cut(make_scene: Callable[..., Scene]) -> None:
    scene = make_scene(setup=SMALL)
    res = call("send", text="seq 1 5", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == "1\n2\n3\n4\n5", explain("the short output is wrong", res, scene)
    assert res.get("output_truncated") in (None, False), explain("a whole output is marked cut", res, scene)
    ends_right(scene)


def test_2000_lines_in_a_deep_history_are_whole(scene: Scene) -> None:
    """With the shared terminal's own 50,000 lines nothing is lost: all 2,000 lines, not marked cut."""
    settle(scene)
    res = call("send", text=f"{PRINT}; {stamp(scene)}", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == "\n".join(LINES), explain("the whole output is not all 2000 lines", res, scene)
    assert res.get("output_truncated") in (None, False), explain("a whole output is marked cut", res, scene)
    ends_right(scene)
