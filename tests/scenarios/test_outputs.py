"""What ``send`` and ``wait`` give back is the command's output, as it was printed.

No prompt rows, no ``PROMPT_COMMAND`` noise, long lines whole (a line wider
than the screen has no newline where tmux wrapped it), colours gone, blank
lines kept, output without a final newline cut where the prompt begins.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from ..gates import Gate
from .conftest import PLAIN_BASH, Scene, Shell, bash, dash, ends_right, explain, fish, poll, settle, zsh

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


# The prompt of PLAIN_BASH (the tests run as root), printed by a command as its own output.
LOOKALIKE = "tester@box:~# "


def test_output_that_prints_the_prompt_then_more(scene: Scene) -> None:
    """A line of output that looks exactly like the bare prompt is output: the command goes on after it,
    and its output is all it printed, not what came before the look-alike."""
    settle(scene)
    gate = Gate(scene.file("go"))
    res = call("send", text=f"echo '{LOOKALIKE}'; {gate.shell}; echo FAKE_DONE", timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("the command is not at work", res, scene)
    scene.wait_screen(r"^tester@box:~#$")
    assert call("status")["status"] == "busy"
    gate.open()
    res = call("wait", timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait never saw the prompt again", res, scene)
    assert res["output"] == f"{LOOKALIKE.strip()}\nFAKE_DONE", explain("the output was cut at the look-alike",
                                                                      res, scene)
    ends_right(scene)


def test_output_whose_last_line_is_the_prompt(scene: Scene) -> None:
    settle(scene)
    res = call("send", text=f"echo first; echo '{LOOKALIKE}'", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    assert res["output"] == f"first\n{LOOKALIKE.strip()}", explain("the look-alike ended the output", res, scene)
    ends_right(scene)


def test_the_human_clears_the_screen_after_output_with_the_prompts_look_alike(scene: Scene) -> None:
    """The human's Ctrl+L pushes the real prompt into the history: the output ends there, not at the
    look-alike above it."""
    settle(scene)
    gate = Gate(scene.file("go"))  # the command ends after send has answered, so its output is still owed
    res = call("send", text=f"{gate.shell}; echo '{LOOKALIKE}'; echo FAKE_DONE", timeout=0)
    assert res["ok"] and res["status"] == "busy", explain("the command is not at work", res, scene)
    gate.open()
    assert poll(lambda: "FAKE_DONE" in scene.screen() and scene.at_prompt(0.1), 6), scene.screen()
    scene.human.press("C-l")
    assert poll(lambda: "FAKE_DONE" not in scene.screen(), 5), scene.screen()
    scene.human_quiet()
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("wait after the human's clear", res, scene)
    assert res["output"] == f"{LOOKALIKE.strip()}\nFAKE_DONE", explain("the output after the clear", res, scene)
    ends_right(scene)


HEREDOC_SHELLS = [
    PLAIN_BASH,
    bash(r"'tester@box:\w\$ '", r"tester@box:\S*# $", extra="bind 'set enable-bracketed-paste off'\n",
         name="bash-keys-not-pasted"),  # every line after the first at the continuation prompt '> '
    zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $"),
    dash("'$ '", r"^\$ $"),
]
TALL = 60  # lines of text typed, more than the screen's rows


@pytest.mark.parametrize("shell", HEREDOC_SHELLS, ids=str)
def test_a_heredoc_taller_than_the_screen(make_scene, shell: Shell) -> None:
    """A text of more lines than the screen has rows is drawn in part (readline, zle), after continuation
    prompts, or echoed whole before the shell prints a prompt per line (dash): none of it is output."""
    scene: Scene = make_scene(shell)
    earlier(scene)
    body = "\n".join(f"line {i} of the file" for i in range(TALL))
    res = call("send", text=f"cat > f <<'EOF'\n{body}\nEOF\nwc -l f", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("the heredoc did not come back ready", res, scene)
    assert res["output"] == f"{TALL} f", explain("the output is not what the command printed", res, scene)
    assert not res.get("output_truncated"), explain("a whole output is said to be cut", res, scene)
    ends_right(scene)


def test_fish_draws_a_tall_command_in_part_and_says_so(make_scene) -> None:
    """fish draws a command taller than the screen without its last lines: where the output begins cannot be
    told, and the result says so; what it gives starts at the command, never at the rows before it."""
    scene: Scene = make_scene(fish("", r"# $"))
    earlier(scene)
    words = " \\\n".join(f"'line {i}'" for i in range(TALL))
    res = call("send", text=f"printf '%s\\n' \\\n{words} > f\nwc -l f", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("the command did not come back ready", res, scene)
    if res["output"] != f"{TALL} f":
        assert res.get("output_with_echo") and res["output"].endswith(f"{TALL} f"), \
            explain("a part of the typed text is given as the output", res, scene)
        assert "earlier-" not in res["output"], explain("the output starts with the rows before it", res, scene)
    ends_right(scene)


def earlier(scene: Scene) -> None:
    """A few commands before: rows above the one the agent types next on."""
    settle(scene)
    for i in range(3):
        assert call("send", text=f"echo earlier-{i}", timeout=6)["ok"]
