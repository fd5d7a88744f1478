"""The human left the shell's line editor in one of its own modes: a history search (Ctrl+R).

The shell waits for keys as it does at its prompt, but keys typed now go
into the search, and Enter runs the history line the search found - a
command nobody typed now.  The agent must see the human at work there (busy,
nothing typed), never take the search's own prompt for the shell's, and go
on as usual once the human has closed it.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import (
    PLAIN_BASH,
    Scene,
    Shell,
    bash,
    ends_right,
    explain,
    fish,
    poll,
    probe,
    refused,
    settle,
    zsh,
)

FISH = fish("function fish_prompt; printf 'fish> '; end\n", r"fish> $")
ZSH = zsh("PROMPT='%n@box:%~%# '\nbindkey -e\n", r"root@box:\S*# $")
# The key that leaves the search and gives back the empty line it started from.
SEARCHES = [(PLAIN_BASH, "C-g"), (ZSH, "C-g"), (FISH, "Escape")]


@pytest.mark.parametrize(("shell", "leave"), SEARCHES, ids=lambda v: str(v))
def test_the_humans_history_search_gets_nothing(make_scene, shell: Shell, leave: str) -> None:
    scene: Scene = make_scene(shell)
    settle(scene)
    # In the history: a command that must not run again unasked.
    scene.human.line(f"echo harmful > {scene.file('harm')}")
    assert poll(lambda: scene.file("harm").exists(), 5)
    scene.file("harm").unlink()
    assert scene.at_prompt()
    scene.human.press("C-r")
    scene.wait_screen(r"i-search|^search:")

    res = call("status")
    assert res["status"] == "busy" and "search" in res["evidence"], explain("the open search is not seen", res, scene)
    before = scene.screen()
    res = call("send", text="echo", timeout=2)  # as a search, "echo" finds the harmful line
    refused(res)
    assert not poll(lambda: scene.file("harm").exists(), 1), explain("a history line ran", res, scene)
    assert scene.screen() == before, explain("text went into the human's search", res, scene)

    scene.human.press(leave)
    assert scene.at_prompt()
    ends_right(scene)
    assert not scene.file("harm").exists()


def test_a_search_left_open_is_never_learned_as_the_prompt(scene: Scene) -> None:
    """After the search, the shell's own prompt still counts: no stale prompt locks the agent out."""
    settle(scene)
    scene.human.press("C-r")
    scene.wait_screen(r"reverse-i-search")
    assert call("status")["status"] == "busy"
    scene.human.press("C-g")
    assert scene.at_prompt()
    res = call("send", text="echo fine")
    assert res["ok"] and res["output"] == "fine", explain("the prompt was lost after the search", res, scene)
    ends_right(scene)


# --- vi editing mode: the human left the line in command (normal) mode -------------------
VI_SHELLS = [
    bash(r"'tester@box:\w\$ '", r"tester@box:\S*# $", extra="set -o vi\n", name="bash-vi"),
    zsh("PROMPT='%n@box:%~%# '\nbindkey -v\nKEYTIMEOUT=1\n", r"root@box:\S*# $", name="zsh-vi"),
    fish("fish_vi_key_bindings\nfunction fish_prompt; printf 'fish> '; end\n", r"fish> $", name="fish-vi"),
]


@pytest.mark.parametrize("shell", VI_SHELLS, ids=str)
def test_a_line_left_in_vi_command_mode_takes_the_agents_command_as_typed(make_scene, shell: Shell) -> None:
    """In command mode every letter is an editing command (k fetches history, x deletes, Enter runs it all):
    the agent's text must arrive as text all the same, and run as it was written."""
    scene: Scene = make_scene(shell)
    settle(scene)
    scene.human.line(f"echo harmful > {scene.file('harm')}")  # what `k` would fetch from history
    assert poll(lambda: scene.file("harm").exists(), 5)
    scene.file("harm").unlink()
    assert scene.at_prompt()
    scene.human.press("Escape")  # command mode, the line still empty
    res = call("wait", timeout=4)
    assert res["status"] == "ready", explain("an empty line in command mode is the prompt", res, scene)
    command, answer = probe(scene)
    res = call("send", text=f"true kx; {command}", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the command did not run", res, scene)
    assert res["output"] == answer, explain("the command did not run as written", res, scene)
    assert not scene.file("harm").exists(), explain("a history line ran", res, scene)
    ends_right(scene)


@pytest.mark.parametrize("first_look", ["insert", "command"])
def test_the_agent_goes_on_when_fishs_mode_tag_changes(make_scene, first_look: str) -> None:
    """fish in vi mode draws its mode before the prompt ("[I] ", "[N] "): the agent learns the prompt in one
    mode, its command runs, and the prompt comes back in the other - that is the prompt, not a question."""
    scene: Scene = make_scene(VI_SHELLS[2])
    if first_look == "command":
        scene.human.press("Escape")
    scene.wait_screen(r"^\[N\] fish>$" if first_look == "command" else r"^\[I\] fish>$")
    res = call("wait", timeout=4)
    assert res["status"] == "ready", explain("the prompt was not seen", res, scene)
    command, answer = probe(scene)
    res = call("send", text=command, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the prompt in its other mode is not ready", res, scene)
    assert res["output"] == answer, explain("the command did not run as written", res, scene)
    scene.human.press("Escape")
    scene.wait_screen(r"^\[N\] fish>$")
    res = call("send", text="echo again", timeout=6)
    assert res["ok"] and res["status"] == "ready" and res["output"] == "again", explain("the second command", res,
                                                                                         scene)
    ends_right(scene)
