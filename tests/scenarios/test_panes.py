"""A command belongs to the pane it was typed into, whatever the human does to panes and windows.

The agent's command runs in one pane; the human splits the window, opens a
new window, changes the layout, zooms or moves to another pane.  ``status``
and ``wait`` keep to the command's own pane (never a fresh prompt in the
pane the human now looks at), and every result names that pane as tmux has
it.  A new command goes to the pane the human looks at, or to the pane the
agent names.  A pane the human closed under the command is said to be
closed, never replaced by another pane's prompt.

Ground truth: the pane a command really ran in is the ``$TMUX_PANE`` its
shell wrote (:func:`pane_stamp`), and panes are what ``tmux list-panes`` says.
"""

from __future__ import annotations

import re
import secrets
import threading
import time
from collections.abc import Callable

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    Scene,
    ended,
    ends_right,
    explain,
    no_ready_before_end,
    pane_stamp,
    poll,
    probe,
    ran_in,
    ready_after_end,
    refused,
    right_pane,
    settle,
    watch_until_end,
)


def slow(scene: Scene, seconds: float = 3) -> tuple[str, str]:
    """A command that runs ``seconds``, prints a line only running it makes, and stamps its pane last."""
    n = secrets.randbelow(9000) + 1000
    return f"sleep {seconds}; printf 'moved-%s\\n' {n}; {pane_stamp(scene)}", f"moved-{n}"


def names(scene: Scene) -> tuple[str, ...]:
    return tuple(p["window_name"] for p in scene.panes())


# What the human does before the agent's command (``before``) and while it runs (``move``).
Move = Callable[[Scene, str], None]


def nothing(scene: Scene, pane: str) -> None:
    pass


def split_lr(scene: Scene, pane: str) -> None:
    scene.split("%")


def split_tb(scene: Scene, pane: str) -> None:
    scene.split('"')


def new_window(scene: Scene, pane: str) -> None:
    scene.new_window()


def split_then_next_layout(scene: Scene, pane: str) -> None:
    scene.split("%")
    layout = scene.fmt("#{window_layout}")
    scene.prefix("Space")  # next-layout
    assert poll(lambda: scene.fmt("#{window_layout}") != layout, 3), "the layout did not change"


def split_then_zoom(scene: Scene, pane: str) -> None:
    new = scene.split('"')
    scene.prefix("z")
    assert poll(lambda: scene.fmt("#{window_zoomed_flag}", new) == "1", 3), "the new pane was not zoomed"


def split_and_come_back(scene: Scene, pane: str) -> None:
    """Before the command: two panes, the human back in the first."""
    scene.split("%")
    scene.select("o", pane=pane)


def other_pane(scene: Scene, pane: str) -> None:
    other = next(p["id"] for p in scene.panes() if p["id"] != pane and p["window"] == scene.pane_facts(pane)["window"])
    scene.select("o", pane=other)


def window_and_come_back(scene: Scene, pane: str) -> None:
    """Before the command: two windows, the human back in the first."""
    scene.new_window()
    scene.select("p", pane=pane)


def next_window(scene: Scene, pane: str) -> None:
    other = next(p["id"] for p in scene.panes() if p["window"] != scene.pane_facts(pane)["window"])
    scene.select("n", pane=other)


MOVES: dict[str, tuple[Move, Move]] = {
    "split-left-right": (nothing, split_lr),
    "split-top-bottom": (nothing, split_tb),
    "new-window": (nothing, new_window),
    "split-next-layout": (nothing, split_then_next_layout),
    "split-zoom": (nothing, split_then_zoom),
    "other-pane": (split_and_come_back, other_pane),
    "next-window": (window_and_come_back, next_window),
}


@pytest.mark.parametrize("move", list(MOVES))
def test_wait_follows_the_commands_pane(scene: Scene, move: str) -> None:
    before, during = MOVES[move]
    settle(scene)
    pane = scene.active_pane()
    before(scene, pane)
    assert scene.active_pane() == pane
    scene.human_quiet()
    command, answer = slow(scene)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    right_pane(scene, res, pane, names(scene))
    during(scene, pane)
    assert scene.active_pane() != pane, "the human still looks at the pane"
    res = call("wait", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == pane, f"the command ran in {ran_in(scene)}, not {pane}"
    assert res["output"] == answer, explain("wait's output is not the command's", res, scene)
    right_pane(scene, res, pane, names(scene))
    ends_right(scene)


@pytest.mark.parametrize("move", ["split-left-right", "new-window", "other-pane"])
def test_status_is_never_ready_before_the_commands_end(scene: Scene, move: str) -> None:
    before, during = MOVES[move]
    settle(scene)
    pane = scene.active_pane()
    before(scene, pane)
    scene.human_quiet()
    command, _ = slow(scene, 2)
    res = call("send", text=command, timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    samples = watch_until_end(scene, limit=10, during=lambda: during(scene, pane))
    no_ready_before_end(scene, samples)
    for _, sample in samples:
        named = (sample.get("pane") or {}).get("id")
        assert named == pane, explain(f"status named pane {named!r}, the command is in {pane}", sample, scene)
    ends_right(scene)


def test_the_output_waits_for_the_agent_after_status_saw_the_end(scene: Scene) -> None:
    """The agent polls ``status`` until its command is over, while the human works in a new window:
    the next ``wait`` still follows the command's pane and gives its output, once."""
    settle(scene)
    pane = scene.active_pane()
    scene.human_quiet()
    command, answer = slow(scene, 1)
    res = call("send", text=command, timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    new_window(scene, pane)
    samples = watch_until_end(scene, limit=10)
    assert all((r.get("pane") or {}).get("id") == pane for _, r in samples), samples[-1][1]
    assert poll(lambda: call("status")["status"] == "ready", 5), scene.screen(pane)
    res = call("wait", timeout=5)
    assert res["ok"] and res["status"] == "ready", explain("wait did not answer ready", res, scene)
    assert res["output"] == answer, explain("the output was lost after status saw the end", res, scene)
    right_pane(scene, res, pane, names(scene))
    again = call("wait", timeout=5)
    assert again["output"] == "", explain("the output was given twice", again, scene)
    ends_right(scene)


@pytest.mark.parametrize("move", ["split-left-right", "split-top-bottom", "new-window", "other-pane"])
def test_a_new_send_goes_to_the_pane_the_human_looks_at(scene: Scene, move: str) -> None:
    before, during = MOVES[move]
    settle(scene)
    first = scene.active_pane()
    before(scene, first)
    res = call("send", text=f"echo first; {pane_stamp(scene, 'first')}", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the first command did not come back ready", res, scene)
    assert ran_in(scene, "first") == first
    during(scene, first)
    looked_at = scene.active_pane()
    assert looked_at != first
    n = secrets.randbelow(9000) + 1000
    res = call("send", text=f"printf 'here-%s\\n' {n}; {pane_stamp(scene)}", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the new command did not come back ready", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == looked_at, f"the new command ran in {ran_in(scene)}, the human looks at {looked_at}"
    assert res["output"] == f"here-{n}", explain("the output is not the new command's", res, scene)
    right_pane(scene, res, looked_at, names(scene))
    ends_right(scene)


def test_the_agent_names_a_pane(scene: Scene) -> None:
    settle(scene)
    a = scene.active_pane()  # window 0, pane 0
    b = scene.split("%")  # window 0, pane 1
    scene.rename_window("work")
    c = scene.new_window()  # window 1, pane 0
    scene.rename_window("logs")
    scene.select("p", pane=b)  # the human looks at b
    assert {p["window_name"] for p in scene.panes()} == {"work", "logs"}
    assert scene.pane_facts(c)["window"] == 1 and scene.pane_facts(a)["index"] == 0
    seen_by_human = scene.history(b)
    for target, pane in [("shared:1.0", c), ("shared:0.0", a), (a, a), (f"shared:{c}", c)]:
        scene.file("done").unlink(missing_ok=True)
        n = secrets.randbelow(9000) + 1000
        res = call("send", text=f"printf 'named-%s\\n' {n}; {pane_stamp(scene)}", session=target, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"send to {target!r} did not come back ready", res,
                                                               scene)
        ready_after_end(scene, res)
        assert ran_in(scene) == pane, f"send to {target!r} ran in {ran_in(scene)}, not {pane}"
        assert res["output"] == f"named-{n}", explain(f"the output of the send to {target!r}", res, scene)
        right_pane(scene, res, pane, names(scene))
    assert scene.history(b) == seen_by_human, "the pane the human looks at was typed into"
    # a slow command in a named pane, waited for by that name
    command, answer = slow(scene, 1.5)
    res = call("send", text=command, session="shared:0.0", timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    res = call("wait", session="shared:0.0", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("wait on the named pane did not see the end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == a and res["output"] == answer, explain("wait on shared:0.0", res, scene)
    right_pane(scene, res, a, names(scene))
    ends_right(scene)


def test_a_second_client_of_another_size_splits(scene: Scene) -> None:
    settle(scene)
    pane = scene.active_pane()
    command, answer = slow(scene)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    other = scene.attach_another(30, 90)
    human = scene.human
    scene.human = other  # the second tab is the one typing
    try:
        new = scene.split('"')
    finally:
        scene.human = human
    assert poll(lambda: scene.fmt("#{window_width}") == "90", 3), "the window did not follow the second client"
    res = call("wait", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == pane and res["output"] == answer, explain("wait's output is not the command's", res,
                                                                      scene)
    right_pane(scene, res, pane, names(scene))
    assert scene.active_pane() == new
    ends_right(scene)


def close_by_kill_pane(scene: Scene, pane: str) -> None:
    scene.prompted("x", "kill-pane")  # kill-pane asks "kill-pane N? (y/n)"
    scene.human.press("y")


def close_by_exit(scene: Scene, pane: str) -> None:
    scene.human.press("C-c")
    assert poll(lambda: re.search(scene.shell.prompt, scene.before_cursor(pane)), 3), scene.screen(pane)
    scene.human.line("exit")


def closed_under_a_slow_command(scene: Scene, close: Move) -> tuple[str, str]:
    """The agent's slow command runs in a pane the human split (the other pane keeps its prompt); the human
    closes the command's pane.  Returns (the closed pane, the other)."""
    settle(scene)
    pane = scene.active_pane()
    split_and_come_back(scene, pane)
    other = next(iter(scene.pane_ids() - {pane}))
    scene.human_quiet()
    command, _ = slow(scene)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    close(scene, pane)
    assert poll(lambda: pane not in scene.pane_ids(), 5), f"the human could not close {pane}: {scene.panes()!r}"
    return pane, other


@pytest.mark.parametrize("asks", ["status", "wait"])
@pytest.mark.parametrize("close", [close_by_kill_pane, close_by_exit], ids=["kill-pane", "exit"])
def test_the_commands_pane_closed_by_the_human(scene: Scene, close: Move, asks: str) -> None:
    closed_under_a_slow_command(scene, close)
    res = call(asks, **({"timeout": 4} if asks == "wait" else {}))
    assert not (res["ok"] and res["status"] == "ready"), \
        explain(f"{asks} answered ready for a command whose pane is gone", res, scene)
    assert res["ok"] is False or res["status"] == "error", explain(f"{asks} is not an error", res, scene)
    assert "closed" in (res.get("error") or ""), explain(f"{asks}'s error does not say closed", res, scene)
    assert ended(scene) is None
    ends_right(scene)


@pytest.mark.parametrize("close", [close_by_kill_pane, close_by_exit], ids=["kill-pane", "exit"])
def test_a_new_command_after_the_human_closed_the_last_commands_pane(scene: Scene, close: Move) -> None:
    """The agent's next call is a new command: it goes to the pane the human looks at, as any new command
    does, and its result notes that the last command's pane was closed (once)."""
    pane, other = closed_under_a_slow_command(scene, close)
    assert scene.active_pane() == other
    scene.human_quiet()
    command, answer = probe(scene)
    res = call("send", text=f"{pane_stamp(scene, 'next')}; {command}", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the new command was not run", res, scene)
    assert ran_in(scene, "next") == other and res["output"] == answer, explain("not run where the human looks",
                                                                               res, scene)
    assert pane in (res.get("note") or "") and "closed" in res["note"], explain("no note of the closed pane", res,
                                                                               scene)
    right_pane(scene, res, other, names(scene))
    again = call("send", text=command, timeout=6)
    assert again["ok"] and not again.get("note"), explain("the closed pane is noted twice", again, scene)
    assert ended(scene) is None
    ends_right(scene)


def break_pane(scene: Scene, pane: str) -> None:
    window = scene.pane_facts(pane)["window"]
    scene.prefix("!")  # break-pane: the pane goes to a window of its own
    assert poll(lambda: scene.pane_facts(pane)["window"] != window, 3), scene.panes()


def swap_pane(scene: Scene, pane: str) -> None:
    index = scene.pane_facts(pane)["index"]
    scene.prefix("}")  # swap-pane -D: the pane takes the next one's place (and number)
    assert poll(lambda: scene.pane_facts(pane)["index"] != index, 3), scene.panes()


def move_window(scene: Scene, pane: str) -> None:
    scene.prompted(".", "(move-window)")  # move-window asks for the new index
    scene.human.line("5")
    assert poll(lambda: scene.pane_facts(pane)["window"] == 5, 3), scene.panes()


@pytest.mark.parametrize("during", [break_pane, swap_pane, move_window], ids=["break-pane", "swap-pane",
                                                                               "move-window"])
def test_the_pane_is_named_where_tmux_has_it_now(scene: Scene, during: Move) -> None:
    """The human moves the command's pane to another window or place: its id stays, its numbers change."""
    settle(scene)
    pane = scene.active_pane()
    split_and_come_back(scene, pane)
    scene.human_quiet()
    command, answer = slow(scene)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    was = scene.pane_facts(pane)
    during(scene, pane)
    now = scene.pane_facts(pane)
    assert (now["window"], now["index"]) != (was["window"], was["index"])
    res = call("wait", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == pane and res["output"] == answer, explain("wait's output is not the command's", res,
                                                                      scene)
    right_pane(scene, res, pane, names(scene))
    ends_right(scene)


def test_a_named_pane_that_does_not_exist(scene: Scene) -> None:
    settle(scene)
    a = scene.active_pane()
    b = scene.split("%")
    shown = {p: scene.history(p) for p in (a, b)}
    command, answer = probe(scene)
    for target in ("shared:0.7", "shared:4.0", "%99", "shared:%99"):
        res = call("send", text=command, session=target, timeout=3)
        refused(res)
    assert not poll(lambda: any(answer in scene.history(p) for p in shown), 0.5), "the command ran somewhere"
    assert {p: scene.history(p) for p in shown} == shown, "a pane was typed into"
    ends_right(scene)


def kill_window(scene: Scene, pane: str) -> None:
    scene.prompted("&", "kill-window")  # kill-window asks "kill-window N? (y/n)"
    scene.human.press("y")


def test_the_commands_pane_closed_while_wait_waits(scene: Scene) -> None:
    """The human kills the pane while ``wait`` waits on it (with C-c and ``exit`` the prompt comes back
    in the pane first: that is the command's end, rightly ready)."""
    settle(scene)
    pane = scene.active_pane()
    split_and_come_back(scene, pane)
    scene.human_quiet()
    command, _ = slow(scene, 4)
    res = call("send", text=command, timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    answer: dict = {}
    waiting = threading.Thread(target=lambda: answer.update(call("wait", timeout=8)), daemon=True)
    waiting.start()
    close_by_kill_pane(scene, pane)
    assert poll(lambda: pane not in scene.pane_ids(), 5), f"the human could not close {pane}: {scene.panes()!r}"
    closed_at = time.monotonic()
    waiting.join(12)
    res = answer
    assert res, "wait never returned"
    assert not (res["ok"] and res["status"] == "ready"), \
        explain("wait answered ready for a command whose pane is gone", res, scene)
    assert res["ok"] is False or res["status"] == "error", explain("wait is not an error", res, scene)
    assert "closed" in (res.get("error") or ""), explain("wait's error does not say closed", res, scene)
    assert time.monotonic() - closed_at < 6, explain("wait went on to its timeout after the pane closed", res, scene)
    assert ended(scene) is None
    ends_right(scene)


def test_the_commands_window_killed_by_the_human(scene: Scene) -> None:
    settle(scene)
    pane = scene.active_pane()
    window_and_come_back(scene, pane)  # another window, with its prompt, survives
    scene.human_quiet()
    command, _ = slow(scene)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    kill_window(scene, pane)
    assert poll(lambda: pane not in scene.pane_ids(), 5), f"the human could not close {pane}: {scene.panes()!r}"
    res = call("wait", timeout=4)
    assert not (res["ok"] and res["status"] == "ready"), \
        explain("wait answered ready for a command whose window is gone", res, scene)
    assert res["ok"] is False or res["status"] == "error", explain("wait is not an error", res, scene)
    assert "closed" in (res.get("error") or ""), explain("wait's error does not say closed", res, scene)
    assert ended(scene) is None
    ends_right(scene)


def test_list_names_every_pane_of_the_shared_session(scene: Scene) -> None:
    """``list`` gives each pane as the agent may name it, and which one the human looks at (tmux's own list)."""
    settle(scene)
    first = scene.active_pane()
    split_lr(scene, first)
    row = next(r for r in call("list")["sessions"] if r["session"] == "shared")
    truth = {p["id"]: p for p in scene.panes()}
    assert {p["id"] for p in row["panes"]} == set(truth), row["panes"]
    looked = [p["id"] for p in row["panes"] if p["looked_at"]]
    assert looked == [scene.active_pane()] and looked != [first], row["panes"]
    for p in row["panes"]:
        assert call("status", session=p["name"])["pane"]["id"] == p["id"], p
