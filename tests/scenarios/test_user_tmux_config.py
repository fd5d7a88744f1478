"""The human's own tmux settings: windows numbered from 1, another prefix key, dead panes kept.

The shared server is made with these settings on top of our tmux.conf (as
when the human sources their ``~/.tmux.conf``).  ``send`` and ``wait`` still
work, follow the command's pane, and name it as tmux numbers it.  Ground
truth: ``$TMUX_PANE`` stamped by the command, ``tmux list-panes``.
"""

from __future__ import annotations

import os
import re
import secrets
import signal
from collections.abc import Callable

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    Scene,
    ended,
    ends_right,
    explain,
    pane_stamp,
    poll,
    ran_in,
    ready_after_end,
    right_pane,
    settle,
)

BASE_INDEX_1 = (("set", "-g", "base-index", "1"), ("setw", "-g", "pane-base-index", "1"))
PREFIX_C_A = (("set", "-g", "prefix", "C-a"), ("unbind", "C-b"), ("bind", "C-a", "send-prefix"))
REMAIN = (("set", "-g", "remain-on-exit", "on"),)


def slow(scene: Scene, seconds: float = 2.5) -> tuple[str, str]:
    n = secrets.randbelow(9000) + 1000
    return f"sleep {seconds}; printf 'mine-%s\\n' {n}; {pane_stamp(scene)}", f"mine-{n}"


def names(scene: Scene) -> tuple[str, ...]:
    return tuple(p["window_name"] for p in scene.panes())


def follows_through_a_split(scene: Scene) -> tuple[str, str]:
    """The agent's slow command, the human splits, ``wait`` answers for the command's pane; (it, the new pane)."""
    settle(scene)
    pane = scene.active_pane()
    command, answer = slow(scene)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    right_pane(scene, res, pane, names(scene))
    new = scene.split("%")
    res = call("wait", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == pane and res["output"] == answer, explain("wait's output is not the command's", res,
                                                                      scene)
    right_pane(scene, res, pane, names(scene))
    return pane, new


def test_windows_and_panes_numbered_from_1(make_scene: Callable[..., Scene]) -> None:
    scene = make_scene(setup=BASE_INDEX_1)
    first = scene.active_pane()
    assert scene.pane_facts(first)["window"] == 1 and scene.pane_facts(first)["index"] == 1
    pane, new = follows_through_a_split(scene)
    assert pane == first and scene.pane_facts(new)["index"] == 2
    scene.human_quiet()
    for target, expected in (("shared:1.1", first), ("shared:1.2", new)):
        scene.file("done").unlink(missing_ok=True)
        n = secrets.randbelow(9000) + 1000
        res = call("send", text=f"printf 'at-%s\\n' {n}; {pane_stamp(scene)}", session=target, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain(f"send to {target} did not come back ready", res,
                                                               scene)
        assert ran_in(scene) == expected, f"send to {target} ran in {ran_in(scene)}, not {expected}"
        assert res["output"] == f"at-{n}", explain(f"the output of the send to {target}", res, scene)
        right_pane(scene, res, expected, names(scene))
    ends_right(scene)


def test_another_prefix_key(make_scene: Callable[..., Scene]) -> None:
    scene = make_scene(setup=PREFIX_C_A)
    scene.prefix_key = "C-a"
    assert scene.tmux("show", "-gv", "prefix").strip() == "C-a"
    _, new = follows_through_a_split(scene)
    assert scene.active_pane() == new
    # a new command goes to the pane the human looks at
    scene.human_quiet()
    scene.file("done").unlink(missing_ok=True)
    res = call("send", text=f"echo there; {pane_stamp(scene)}", timeout=6)
    assert res["ok"] and res["status"] == "ready" and res["output"] == "there", \
        explain("the new command did not run", res, scene)
    assert ran_in(scene) == new, f"the new command ran in {ran_in(scene)}, the human looks at {new}"
    right_pane(scene, res, new, names(scene))
    ends_right(scene)


def test_panes_kept_after_exit(make_scene: Callable[..., Scene]) -> None:
    scene = make_scene(setup=REMAIN)
    pane, _ = follows_through_a_split(scene)
    ends_right(scene)
    assert ran_in(scene, "done") == pane


def test_the_commands_shell_exits_in_a_pane_kept_dead(make_scene: Callable[..., Scene]) -> None:
    """remain-on-exit: the command's shell ends (the human's C-c, ``exit``) and its pane stays, dead.

    No other pane's prompt is the command's end, and the dead pane is not a prompt either.
    """
    scene = make_scene(setup=REMAIN)
    settle(scene)
    pane = scene.active_pane()
    new = scene.split("%")
    scene.select("o", pane=pane)
    scene.human_quiet()
    command, _ = slow(scene, 3)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    scene.human.press("C-c")
    assert poll(lambda: re.search(scene.shell.prompt, scene.before_cursor(pane)), 3), scene.screen(pane)
    scene.human.line("exit")
    assert poll(lambda: any(p["id"] == pane and p["dead"] for p in scene.panes()), 5), scene.panes()
    scene.select("o", pane=new)
    res = call("wait", timeout=4)
    assert not (res["ok"] and res["status"] == "ready"), \
        explain("wait answered ready for a command whose shell is gone", res, scene)
    assert res["ok"] is False or res["status"] == "error", explain("wait is not an error", res, scene)
    assert re.search(r"closed|dead|exited|ended|gone", res.get("error") or ""), \
        explain("wait's error does not say the pane's shell is gone", res, scene)
    assert ended(scene) is None
    ends_right(scene)


def test_a_pane_that_dies_as_the_agent_types_keeps_the_humans_server(make_scene: Callable[..., Scene],
                                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    """remain-on-exit keeps a pane whose shell ended; tmux 3.3a ends its whole server on a paste into such a
    pane.  The shell ends after the agent's look and before its keystroke (a crash, a kill): nothing is
    pasted, the human's server and its other panes live on, and the agent is told."""
    from python.helpers.tmux_tool.shared import keystroke

    # No "Pane is dead" line either: the dead pane's cursor stays where the prompt left it.
    scene = make_scene(setup=(*REMAIN, ("set", "-g", "remain-on-exit-format", "")))
    settle(scene)
    pane = scene.active_pane()
    other = scene.split("%")
    scene.select("o", pane=pane)
    scene.human_quiet()
    real = keystroke.inject

    def dies_first(*args, **kwargs):  # type: ignore[no-untyped-def]
        os.kill(scene.pane_pid(pane), signal.SIGKILL)
        assert poll(lambda: any(p["id"] == pane and p["dead"] for p in scene.panes()), 5), scene.panes()
        return real(*args, **kwargs)

    monkeypatch.setattr(keystroke, "inject", dies_first)
    res = call("send", text="echo never", timeout=2)
    assert not (res["ok"] and res["status"] == "ready"), explain("a dead pane took a command", res, scene)
    assert scene.alive() and other in scene.pane_ids(), "the human's tmux server ended"
    monkeypatch.setattr(keystroke, "inject", real)
    res = call("send", text="echo alive", session=other, timeout=6)
    assert res["ok"] and res["output"] == "alive", explain("the other pane does not work", res, scene)
