"""Loops whose output ends like a prompt are not finished until they are.

A progress line redrawn with ``\\r``, a ``step 1 > `` question that times out
(``read -t``), a command substitution in every round, even the prompt's own
text printed by the loop: ``status`` is sampled all along and must never say
``ready`` before the loop wrote its last stamp, and must say it afterwards.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, no_ready_before_end, settle, stamp, watch_until_end, zsh

LOOPS = {
    "percent": "for i in 1 2 3 4; do printf '\\r%s 12%%' \"$(date +%S)\"; sleep 0.4; done",
    "step-read": "for i in 1 2 3; do printf 'step %s > ' $i; read -t 0.5 x; done",
    "own-prompt": "for i in 1 2 3; do printf 'tester@box:~# '; sleep 0.5; done",
    "own-prompt-read": "printf 'tester@box:~# '; read -t 1.2 x",
    "substitution": "for i in 1 2 3 4; do x=$(sleep 0.3; echo $i); printf '\\r%s0%% $ ' \"$x\"; done",
    "dollar-lines": "for i in 1 2 3; do echo \"$ \"; sleep 0.4; done",
}


@pytest.mark.parametrize("name", list(LOOPS))
def test_never_ready_before_the_loop_ends(scene: Scene, name: str) -> None:
    settle(scene)
    res = call("send", text=f"{LOOPS[name]}; {stamp(scene)}", timeout=0)
    assert res["ok"], explain("the loop was not typed", res, scene)
    samples = watch_until_end(scene)
    no_ready_before_end(scene, samples)
    ends_right(scene)


def test_zsh_loop_with_a_percent_question(make_scene) -> None:
    scene: Scene = make_scene(zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $"))
    settle(scene)
    res = call("send", text=f"for i in 1 2 3; do printf 'root@box:~# '; read -t 0.5 x; done; {stamp(scene)}",
               timeout=0)
    assert res["ok"], explain("the loop was not typed", res, scene)
    samples = watch_until_end(scene)
    no_ready_before_end(scene, samples)
    ends_right(scene)
