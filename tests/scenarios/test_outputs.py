"""What ``send`` and ``wait`` give back is the command's output, as it was printed.

No prompt rows, no ``PROMPT_COMMAND`` noise, long lines whole (a line wider
than the screen has no newline where tmux wrapped it), colours gone, blank
lines kept, output without a final newline cut where the prompt begins.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, settle, zsh

LONG = "".join(chr(97 + i % 26) for i in range(450))
WIDE = "é🚀" * 60

CASES = {
    "450-chars": ("python3 -c \"print(''.join(chr(97 + i % 26) for i in range(450)))\"", LONG),
    "wide-chars": ("python3 -c \"print('é🚀' * 60)\"", WIDE),
    "blank-lines": ("printf 'a\\n\\nb\\n'", "a\n\nb"),
    "colours": ("printf '\\033[31mred\\033[0m and \\033[1mbold\\033[0m\\n'", "red and bold"),
    "no-final-newline": ("printf 'partial'", "partial"),
    "prompt-text-inside": ("echo 'tester@box:~# fake'", "tester@box:~# fake"),
    "longer-than-screen": ("seq 1 100", "\n".join(str(i) for i in range(1, 101))),
    "progress-redrawn": ("for i in 1 2 3; do printf '\\r%s%%' $((i * 33)); done; echo", "99%"),
}


@pytest.mark.parametrize("name", list(CASES))
def test_send_returns_the_output(scene: Scene, name: str) -> None:
    command, output = CASES[name]
    res = call("send", text=command, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == output, explain("send's output is not what the command printed", res, scene)
    ends_right(scene)


def test_wait_returns_the_output_of_a_slow_command(scene: Scene) -> None:
    settle(scene)
    res = call("send", text="sleep 1; python3 -c \"print(''.join(chr(97 + i % 26) for i in range(450)))\"",
               timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the prompt again", res, scene)
    assert res["output"] == LONG, explain("wait's output is not what the command printed", res, scene)
    ends_right(scene)


def test_zsh_output_without_a_final_newline(make_scene) -> None:
    scene: Scene = make_scene(zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $"))
    res = call("send", text="printf 'partial'", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == "partial", explain("zsh's end-of-output mark leaked into the output", res, scene)
    ends_right(scene)


def test_an_error_message_is_the_output(scene: Scene) -> None:
    res = call("send", text="ls /nonexistent-dir", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("a failing command did not come back ready", res, scene)
    assert res["output"] == "ls: cannot access '/nonexistent-dir': No such file or directory", \
        explain("the error message is not the output", res, scene)
    ends_right(scene)


def test_a_command_longer_than_the_screen_is_wide(scene: Scene) -> None:
    word = "w" * 90
    res = call("send", text=f"echo {word} {word}", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("a long command did not come back ready", res, scene)
    assert res["output"] == f"{word} {word}", explain("a wrapped command's output is wrong", res, scene)
    ends_right(scene)


def test_the_output_after_an_answer_the_terminal_does_not_echo(scene: Scene) -> None:
    """A secret typed into ``read -s`` never shows, and only the human types it: the output is what came
    after it, not the whole screen."""
    settle(scene)
    for i in range(3):
        assert call("send", text=f"echo earlier-{i}", timeout=6)["ok"]
    res = call("send", text="read -s -p 'Secret: ' s; echo; echo \"got ${#s} characters\"", timeout=4)
    assert res["ok"] and res["status"] == "blocked" and res.get("needs_human"), \
        explain("the question is not seen as a secret", res, scene)
    refused = call("send", text="hunter2", timeout=6)
    assert not refused["ok"] and "only the human" in refused["error"], explain("the agent typed a secret", refused,
                                                                              scene)
    scene.human.line("hunter2")
    res = call("wait", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("the answer did not end the command", res, scene)
    assert res["output"] == "Secret:\ngot 7 characters", explain("the output is not the command's", res, scene)
    ends_right(scene)


def test_the_output_of_a_command_typed_with_echo_off(scene: Scene) -> None:
    settle(scene)
    assert call("send", text="echo earlier", timeout=6)["ok"]
    assert call("send", text="stty -echo", timeout=6)["ok"]
    res = call("send", text="echo unseen-command", timeout=6)
    assert res["ok"] and res["output"] == "unseen-command", explain("the output is not the command's", res, scene)
    assert call("send", text="stty echo", timeout=6)["ok"]
    ends_right(scene)
