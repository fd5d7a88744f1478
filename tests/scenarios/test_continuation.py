"""Continuation prompts: a command that is not complete yet.

When the human leaves a quote or a here-document open, the shell shows its
second prompt (``> ``, zsh's ``dquote> ``) and waits for the rest: that is
``blocked``, the agent types nothing there, and ``> `` is never taken for
the shell's prompt.  The agent's own incomplete text is refused before a
single character is typed.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, dash, ends_right, explain, poll, probe, refused, settle, zsh


def blocked_now(scene: Scene) -> dict:
    res = poll(lambda: (r := call("status"))["status"] == "blocked" and r, 4) or call("status")
    assert res["status"] == "blocked", explain("a continuation prompt is not blocked", res, scene)
    return res


def agent_types_nothing(scene: Scene) -> None:
    """The agent's ``send`` is refused and its text appears nowhere."""
    before = scene.screen()
    command, answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert scene.screen() == before and command not in scene.history() and answer not in scene.history(), \
        explain("text was typed at a continuation prompt", res, scene)


CONTINUED = {
    "quote": (['echo "unclosed'], 'closed"', "unclosed\nclosed"),
    "single-quote": (["echo 'one"], "two'", "one\ntwo"),
    "heredoc": (["cat <<EOF", "some text"], "EOF", "some text"),
    "backslash": (["echo one \\"], "two", "one two"),
    "if": (["if true; then"], "echo inside; fi", "inside"),
    "pipe": (["echo piped |"], "tr a-z A-Z", "PIPED"),
}


@pytest.mark.parametrize("name", list(CONTINUED))
def test_human_leaves_a_command_open_then_finishes_it(scene: Scene, name: str) -> None:
    lines, last, printed = CONTINUED[name]
    settle(scene)
    for line in lines:
        scene.human.line(line)
    scene.wait_screen(r"^> ?$")
    res = blocked_now(scene)
    assert res["ok"]
    agent_types_nothing(scene)
    scene.human.line(last)
    assert scene.at_prompt()
    assert printed in scene.screen()
    ends_right(scene)
    assert call("status")["status"] == "ready"


def test_human_abandons_an_open_quote_with_ctrl_c(scene: Scene) -> None:
    settle(scene)
    scene.human.line('echo "never closed')
    scene.wait_screen(r"^> ?$")
    blocked_now(scene)
    scene.human.press("C-c")
    assert scene.at_prompt()
    ends_right(scene)


@pytest.mark.parametrize(("shell", "ps2"), [
    (zsh("PROMPT='%n@box:%~%# '\n", r"root@box:\S*# $"), r"^dquote> ?$"),
    (dash("'$ '", r"^\$ $"), r"^> ?$"),
], ids=["zsh", "dash"])
def test_human_leaves_a_quote_open_in_other_shells(make_scene, shell, ps2: str) -> None:
    scene: Scene = make_scene(shell)
    settle(scene)
    scene.human.line('echo "open')
    scene.wait_screen(ps2)
    blocked_now(scene)
    agent_types_nothing(scene)
    scene.human.line('shut"')
    assert scene.at_prompt()
    ends_right(scene)


@pytest.mark.parametrize("text", [
    'echo "oops',
    "echo 'oops",
    "cat <<EOF\nhello",
    "for i in 1 2; do echo $i",
    "echo one \\",
    "if true; then echo yes",
    "echo $(date",
])
def test_agent_incomplete_text_is_refused_before_typing(scene: Scene, text: str) -> None:
    settle(scene)
    before = scene.screen()
    res = call("send", text=text, timeout=3)
    refused(res)
    assert scene.screen() == before, explain("incomplete text was typed", res, scene)
    assert call("status")["status"] == "ready"
    ends_right(scene)


@pytest.mark.parametrize(("text", "output"), [
    ("cat <<EOF\nhello\nworld\nEOF", "hello\nworld"),
    ("for i in 1 2; do\n  printf 'n%s\\n' $i\ndone", "n1\nn2"),
    ("echo 'it''s'", "its"),
])
def test_agent_complete_multi_line_text_runs(scene: Scene, text: str, output: str) -> None:
    res = call("send", text=text, timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("complete text did not run", res, scene)
    assert res["output"] == output, explain("the output is not the command's", res, scene)
    ends_right(scene)
