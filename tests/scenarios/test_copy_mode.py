"""Copy mode: the human scrolls back through the history while the agent works.

The human enters copy mode with the prefix key (Ctrl+B [) or the mouse
wheel.  Keys sent to the pane then drive copy mode instead of the shell, so
``send`` must wait or refuse; and copy mode says nothing about the agent's
command, so ``wait`` must not return before the command has ended.
"""

from __future__ import annotations

import threading
import time

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ended, ends_right, explain, poll, probe, refused, settle, stamp

WHEEL_UP = "\x1b[<64;20;10M"  # an SGR mouse report: wheel up over the pane


def enter_copy_mode(scene: Scene, how: str) -> None:
    if how == "prefix":
        scene.human.press("C-b", "[")
    else:
        scene.human.press(WHEEL_UP)  # one write, as a terminal sends it
    assert poll(scene.in_copy_mode, 5), f"copy mode never started ({how})"


def leave_copy_mode(scene: Scene) -> None:
    scene.human.press("q")
    assert poll(lambda: not scene.in_copy_mode(), 5), "copy mode never ended"


@pytest.mark.parametrize("how", ["prefix", "wheel"])
def test_copy_mode_does_not_end_the_wait(scene: Scene, how: str) -> None:
    res = call("send", text="seq 1 60", timeout=6)
    assert res["ok"], explain("the first command did not run", res, scene)
    res = call("send", text=f"sleep 2; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the command was not typed", res, scene)
    enter_copy_mode(scene, how)
    res = call("wait", timeout=6)
    returned = time.time()
    end = ended(scene)
    assert end is not None and returned >= end, explain("wait returned before the command ended", res, scene)
    leave_copy_mode(scene)
    ends_right(scene)


def test_copy_mode_while_output_streams(scene: Scene) -> None:
    settle(scene)
    res = call("send", text=f"for i in $(seq 1 8); do echo line$i; sleep 0.2; done; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the command was not typed", res, scene)
    scene.wait_screen(r"^line2$")
    enter_copy_mode(scene, "prefix")
    res = call("wait", timeout=6)
    returned = time.time()
    end = ended(scene)
    assert end is not None and returned >= end, explain("wait returned before the command ended", res, scene)
    leave_copy_mode(scene)
    ends_right(scene)


@pytest.mark.parametrize("how", ["prefix", "wheel"])
def test_send_never_types_into_copy_mode(scene: Scene, how: str) -> None:
    res = call("send", text="seq 1 60", timeout=6)
    assert res["ok"], explain("the first command did not run", res, scene)
    enter_copy_mode(scene, how)
    command, answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert scene.in_copy_mode(), explain("the agent's text ended the human's copy mode", res, scene)
    leave_copy_mode(scene)
    assert answer not in scene.history() and command not in scene.cursor_line(), \
        explain("the agent's text reached the shell through copy mode", res, scene)
    ends_right(scene)


def test_send_waits_for_the_human_to_leave_copy_mode(scene: Scene) -> None:
    """The human reads the history for a second and leaves; the agent's text goes in only after."""
    res = call("send", text="seq 1 60", timeout=6)
    assert res["ok"], explain("the first command did not run", res, scene)
    enter_copy_mode(scene, "prefix")
    scene.human.press("PageUp")
    left: list[float] = []

    def human_reads_then_leaves() -> None:
        time.sleep(1.0)  # the human reading
        left.append(time.time())
        scene.human.press("q")

    reader = threading.Thread(target=human_reads_then_leaves)
    reader.start()
    command, answer = probe(scene)
    res = call("send", text=command, timeout=6)
    reader.join()
    if res["ok"]:
        ran = ended(scene, "probe")
        assert ran is not None and ran >= left[0], explain("the agent typed while copy mode was on", res, scene)
        assert answer in res["output"], explain("the output lacks what the command printed", res, scene)
    else:
        refused(res)
        assert answer not in scene.history(), explain("refused text ran anyway", res, scene)
    ends_right(scene)
