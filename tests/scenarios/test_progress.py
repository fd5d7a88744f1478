"""A progress line is not a prompt, even when it ends the way a prompt does.

``[x]   4%`` redrawn in place, ``40% `` with a space after the percent sign
(like zsh's ``%`` prompt of an ordinary user), ``3/5 >`` like a ``> ``
prompt: ``status`` is never ready before the command wrote its stamp, the
last act of its command line.  Then ``wait`` answers with the line as it
was left.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    Scene,
    ends_right,
    explain,
    no_ready_before_end,
    ready_after_end,
    settle,
    stamp,
    watch_until_end,
    zsh,
)

BARS = {
    "percent": ("'\\r[x]   %d%%' $((i*2))", "[x]   10%"),
    "percent-space": ("'\\r%d%% ' $((i*20))", "100%"),
    "gt": ("'\\r%d/5 > ' $i", "5/5 >"),
    "percent-hash": ("'\\rbuild %d%% # ' $((i*20))", "build 100% #"),
}


def progress(scene: Scene, bar: str) -> str:
    return f"for i in 1 2 3 4 5; do printf {bar}; sleep 0.5; done; echo; {stamp(scene)}"


@pytest.mark.parametrize("name", list(BARS))
def test_status_is_never_ready_during_a_progress_line(scene: Scene, name: str) -> None:
    bar, _ = BARS[name]
    settle(scene)
    res = call("send", text=progress(scene, bar), timeout=0.2)
    assert res["ok"], explain("the command was not typed", res, scene)
    ready_after_end(scene, res)
    samples = watch_until_end(scene, limit=10)
    no_ready_before_end(scene, samples)
    ends_right(scene)


@pytest.mark.parametrize("name", list(BARS))
def test_wait_answers_at_the_end_of_a_progress_line(scene: Scene, name: str) -> None:
    bar, last = BARS[name]
    settle(scene)
    res = call("send", text=progress(scene, bar), timeout=0.2)
    assert res["ok"], explain("the command was not typed", res, scene)
    ready_after_end(scene, res)
    if res["status"] != "ready":
        res = call("wait", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the end", res, scene)
    ready_after_end(scene, res)
    assert res["output"] == last, explain("the output is not the progress line as it was left", res, scene)
    ends_right(scene)


def test_a_progress_line_like_a_users_zsh_prompt(make_scene) -> None:
    """zsh's prompt ends in ``% `` here (as an ordinary user's ``%#`` does): so does the progress line."""
    scene: Scene = make_scene(zsh("PROMPT='%n@box %~ %% '\n", r"^root@box \S+ % $", name="zsh-percent"))
    settle(scene)
    res = call("send", text=progress(scene, "'\\rroot@box ~ %d%% ' $((i*20))"), timeout=0.2)
    assert res["ok"], explain("the command was not typed", res, scene)
    ready_after_end(scene, res)
    samples = watch_until_end(scene, limit=10)
    no_ready_before_end(scene, samples)
    ends_right(scene)
