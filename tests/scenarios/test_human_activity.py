"""The human types, runs commands and types ahead; the agent never mixes in.

A half-typed line is the human's: the agent waits or says so and the text
stays.  While the human's own command runs, the agent's text does not go
into it as type-ahead.  Keys the human types ahead while the agent's
command runs stay on the line when the prompt comes back.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

from python.helpers.tmux_tool.shared import judge
from python.helpers.tmux_tool.transport import kernel
from python.tools.tmux_tool import call
from tests.frozen import Frozen

from .conftest import Scene, ended, ends_right, explain, fish, poll, probe, refused, settle, stamp

FISH = fish("function fish_prompt; printf 'fish> '; end\n", r"fish> $")


def test_human_half_typed_line_is_kept(scene: Scene) -> None:
    settle(scene)
    scene.human.type("echo mine")
    assert poll(lambda: scene.before_cursor().endswith("echo mine"), 4)
    command, answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert scene.before_cursor().endswith("echo mine"), explain("the human's line was changed", res, scene)
    assert answer not in scene.history()
    scene.human.press("Enter")
    scene.wait_screen(r"^mine$")
    ends_right(scene)


def test_agent_does_not_type_ahead_into_the_humans_command(scene: Scene) -> None:
    settle(scene)
    scene.human.line(f"sleep 2; {stamp(scene, 'human')}")
    scene.wait_front("sleep")
    command, answer = probe(scene)
    res = call("send", text=command, timeout=1)
    if res["ok"]:
        assert ended(scene, "human") is not None, explain("the agent typed while the human's command ran", res, scene)
    else:
        assert poll(lambda: ended(scene, "human"), 5)
        assert scene.at_prompt()
        assert not poll(lambda: answer in scene.history(), 0.5), \
            explain("the refused text ran after the human's command (type-ahead)", res, scene)
    ends_right(scene)


def test_human_types_ahead_while_the_agent_waits(scene: Scene) -> None:
    settle(scene)
    res = call("send", text=f"sleep 1.5; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the command was not typed", res, scene)
    scene.human.type("echo ahead")
    res = call("wait", timeout=2.5)  # the human's line keeps the shell from being ready: a timeout is fine
    returned = time.time()
    end = ended(scene)
    assert end is not None and returned >= end or not res["ok"], \
        explain("wait returned before the command ended", res, scene)
    assert poll(lambda: scene.before_cursor().endswith("echo ahead"), 4), \
        explain("the human's type-ahead was lost", res, scene)
    command, answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert scene.before_cursor().endswith("echo ahead") and answer not in scene.history(), \
        explain("the agent touched the human's type-ahead", res, scene)
    scene.human.press("Enter")
    scene.wait_screen(r"^ahead$")
    ends_right(scene)


@pytest.mark.parametrize("keys", [["C-c"], ["Enter"], ["C-u"]], ids=["C-c", "Enter", "C-u"])
def test_the_agent_leaves_the_humans_type_ahead_alone(scene: Scene, keys: list[str]) -> None:
    """The human types ahead while the agent's command runs: the line sits in the terminal's buffer,
    unread, where the agent's C-c would flush it, Enter submit it and C-u erase it.  None of them is
    pressed; the line is the human's when the prompt comes back."""
    settle(scene)
    res = call("send", text="sleep 3", timeout=0.5)  # the agent sees its sleep run: the program is its own
    assert res["ok"] and res["program"] == "sleep", explain("the agent did not see its sleep run", res, scene)
    scene.human.type("echo ahead")
    assert poll(lambda: scene.before_cursor().endswith("echo ahead"), 4), scene.screen()
    res = call("keys", keys=keys, timeout=1)
    refused(res)
    assert "echo ahead" in res["error"], explain("the refusal does not say what the human typed", res, scene)
    assert poll(lambda: "sleep" not in scene.front(), 10), explain("the agent's sleep did not end", res, scene)
    assert poll(lambda: scene.before_cursor().endswith("echo ahead"), 4), \
        explain("the human's type-ahead was lost", res, scene)
    scene.human.press("Enter")
    scene.wait_screen(r"^ahead$")
    ends_right(scene)


def test_human_presses_enter_on_empty_prompts(scene: Scene) -> None:
    settle(scene)
    for _ in range(3):
        scene.human.press("Enter")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_runs_a_command_with_long_output(scene: Scene) -> None:
    settle(scene)
    scene.human.line("seq 1 3000")
    scene.wait_screen(r"^3000$")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_presses_ctrl_c_at_the_empty_prompt(scene: Scene) -> None:
    settle(scene)
    scene.human.press("C-c")
    scene.wait_screen(r"\^C")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_types_a_line_and_erases_it(scene: Scene) -> None:
    settle(scene)
    scene.human.type("rm -rf bui")
    assert poll(lambda: scene.before_cursor().endswith("rm -rf bui"), 4)
    scene.human.press(*["BSpace"] * len("rm -rf bui"))
    assert scene.at_prompt()
    ends_right(scene)


def test_human_reloads_the_page_at_another_size(scene: Scene) -> None:
    res = call("send", text="seq 1 50", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("seq did not run", res, scene)
    scene.reload_page(30, 100)
    assert poll(lambda: scene.size() == (30, 100), 5)
    ends_right(scene)


def test_nobody_is_watching(scene: Scene) -> None:
    settle(scene)
    scene.close_page()
    ends_right(scene)
    res = call("send", text=f"sleep 1; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the command was not typed", res, scene)
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready" and ended(scene) is not None, \
        explain("wait without a human did not end right", res, scene)


def test_a_focus_report_the_shell_has_not_read_yet_only_delays_the_agent(make_scene,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """fish (like vim) asks for focus reports: each time the human's browser tab gains focus the terminal
    sends ESC [ I, which sits unread for a moment.  Keys not read yet make the shell busy, but only for
    that moment: a send, even one that does not wait for its result, types once they are read.

    The shell is held (a ptrace stop) while the report arrives and let go once the send has looked and
    found it unread."""
    scene = make_scene(FISH)
    settle(scene)
    # fish draws its prompt before it ends its prompt functions: held in between, it is no case
    tty = scene.fmt("#{pane_tty}")
    assert poll(lambda: kernel.look(scene.pane_pid(), tty).editing, 10), "fish never came to wait for keys"
    looked: list[str] = []
    real_observe = judge.observe

    def observe(*args: Any, **kwargs: Any) -> Any:
        st, lk = real_observe(*args, **kwargs)
        looked.append(st.evidence)
        frozen.release.set()  # the shell reads again once the send saw the report unread
        return st, lk

    command, answer = probe(scene)
    with Frozen(scene.pane_pid()) as frozen:
        assert frozen.held.is_set() and not frozen.errors, frozen.errors
        scene.tmux("send-keys", "-t", "=shared:", "-l", "\x1b[I")
        with monkeypatch.context() as patched:
            patched.setattr(judge, "observe", observe)
            res = call("send", text=command, timeout=0)
    assert looked and "not read" in looked[0], f"the case is void: the first look saw {looked[:1]}"
    assert res["ok"], explain("a focus report kept the agent out", res, scene)
    assert poll(lambda: answer in scene.history(), 5), explain("the command did not run", res, scene)
    ends_right(scene)
