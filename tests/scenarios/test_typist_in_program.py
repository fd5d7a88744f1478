"""The human's keys win in the programs the agent started in the shared terminal.

The agent starts a Python REPL; the human types slowly at its ``>>>``
prompt while the agent sends a line.  The agent's text is refused (the
human is typing) or held until the human's line is done - never mixed into
the human's line.  Ground truth: every row of the REPL's screen, sampled
all along, and its history afterwards.
"""

from __future__ import annotations

import re
import threading
import time

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, poll, settle

HUMAN = "x = 1"
AGENT = "print(6*7)"


def mixed_rows(text: str) -> list[str]:
    """REPL input rows that are neither a prefix of the human's line nor of the agent's."""
    bad = []
    for row in text.split("\n"):
        if not row.startswith(">>>"):
            continue
        typed = row[4:].rstrip()
        if not (HUMAN.startswith(typed) or AGENT.startswith(typed)):
            bad.append(row)
    return bad


@pytest.mark.parametrize("pause", [0.0, 2.5], ids=["steady", "pauses-mid-line"])
def test_the_agents_line_never_mixes_into_the_humans_at_a_repl(scene: Scene, pause: float) -> None:
    """The human types ``x = 1`` a key every 0.4 s (``pause``: and stops for a while after ``x = ``)."""
    settle(scene)
    res = call("send", text="python3 -q", timeout=8)
    assert res["ok"], explain("python3 did not start", res, scene)
    scene.wait_front("python3")
    assert poll(lambda: scene.before_cursor().endswith(">>> "), 6), scene.screen()

    screens: list[str] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            screens.append(scene.screen())
            time.sleep(0.02)

    def human() -> None:
        scene.human.pace = 0.4
        try:
            scene.human.type(HUMAN[:4])
            time.sleep(pause)  # the human thinks (a person's pace, not a wait for the tool)
            scene.human.type(HUMAN[4:])
            scene.human.press("Enter")
        finally:
            scene.human.pace = 0.02

    watcher = threading.Thread(target=watch, daemon=True)
    typist = threading.Thread(target=human, daemon=True)
    watcher.start()
    typist.start()
    try:
        assert poll(lambda: scene.before_cursor().endswith(">>> x"), 3), scene.screen()
        res = call("send", text=AGENT, timeout=6)
        typist.join(10)
        if res["ok"]:
            assert poll(lambda: re.search(r"^42$", scene.history(), re.MULTILINE), 3), \
                explain("the agent's line was accepted but never ran", res, scene)
    finally:
        stop.set()
        watcher.join(2)
        typist.join(10)
    seen = sorted({row for screen in [*screens, scene.history()] for row in mixed_rows(screen)})
    assert not seen, explain(f"the agent's text was mixed into the human's line: {seen!r}", res, scene)
    if res["ok"]:
        assert res["output"] == "42", explain("the held line's output is not print's", res, scene)
        rows = scene.history().split("\n")
        assert rows.index(">>> x = 1") < rows.index(f">>> {AGENT}"), "the agent's line went before the human's"
    else:
        assert re.search(r"typ", res["error"] or ""), explain("the refusal does not say the human is typing", res,
                                                              scene)
        assert not re.search(r"^42$", scene.history(), re.MULTILINE), explain("a refused line ran", res, scene)
    assert re.search(r"^>>> x = 1$", scene.history(), re.MULTILINE), "the human's line is not whole"
    scene.human_quiet()
    scene.human.line("exit()")
    assert scene.at_prompt(), scene.screen()
    ends_right(scene)
