"""With ``synchronize-panes`` on, a key typed in one pane goes to every pane of the window.

The agent's ``send`` would then also type into the human's other panes: a
half-typed line there would run with the agent's text after it, an open
editor would take the text as commands.  So nothing is typed at all, and
the refusal says why.  Ground truth: the panes' screens and history, and the
file the editor has open, on disk.
"""

from __future__ import annotations

import re

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, poll, probe, refused, settle


def two_panes(scene: Scene) -> tuple[str, str]:
    """The human splits; returns (the other pane, the pane the human looks at)."""
    settle(scene)
    other = scene.active_pane()
    looked_at = scene.split("%")
    return other, looked_at


def synchronize(scene: Scene, on: bool) -> None:
    scene.tmux("setw", "-t", f"={scene.session}:", "synchronize-panes", "on" if on else "off")
    assert scene.fmt("#{synchronize-panes}") == ("1" if on else "0")


def says_synchronized(res: dict) -> None:
    refused(res)
    assert re.search(r"synchroni[sz]e", res["error"], re.IGNORECASE), f"the refusal does not name synchronize-panes: {res!r}"


def test_nothing_is_typed_with_a_half_typed_line_in_the_other_pane(scene: Scene) -> None:
    other, looked_at = two_panes(scene)
    scene.select("o", pane=other)
    scene.human.type("echo half-typed")
    assert poll(lambda: scene.before_cursor(other).endswith("echo half-typed"), 4), scene.screen(other)
    scene.select("o", pane=looked_at)
    synchronize(scene, True)
    scene.human_quiet()
    shown = {p: scene.screen(p) for p in (other, looked_at)}
    command, answer = probe(scene)
    res = call("send", text=command, timeout=4)
    says_synchronized(res)
    assert not poll(lambda: any(answer in scene.history(p) for p in shown), 1.0), \
        explain("the agent's command ran in a synchronized pane", res, scene)
    for pane, screen in shown.items():
        assert scene.screen(pane) == screen, explain(f"pane {pane} changed:\n{scene.screen(pane)}", res, scene)
    assert scene.before_cursor(other).endswith("echo half-typed"), scene.screen(other)
    assert not re.search(r"^half-typed", scene.history(other), re.MULTILINE), "the human's half-typed line was submitted"
    synchronize(scene, False)
    ends_right(scene)


def test_nothing_is_typed_with_vim_open_in_the_other_pane(scene: Scene) -> None:
    notes = scene.file("notes.txt")
    notes.write_text("first line\nsecond line\n")
    other, looked_at = two_panes(scene)
    scene.select("o", pane=other)
    scene.human.line(f"vim -u NONE -N {notes}")
    assert poll(lambda: "first line" in scene.screen(other) and "vim" in scene.front(other), 6), \
        scene.screen(other)
    scene.select("o", pane=looked_at)
    synchronize(scene, True)
    scene.human_quiet()
    shown = {p: scene.screen(p) for p in (other, looked_at)}
    # In the shell two harmless unknown commands; in vim's normal mode `x` deletes a letter and `:w` writes.
    res = call("send", text="x; :w", timeout=4)
    says_synchronized(res)
    assert not poll(lambda: notes.read_text() != "first line\nsecond line\n", 1.0), \
        explain(f"the file vim has open changed on disk: {notes.read_text()!r}", res, scene)
    for pane, screen in shown.items():
        assert scene.screen(pane) == screen, explain(f"pane {pane} changed:\n{scene.screen(pane)}", res, scene)
    synchronize(scene, False)
    scene.select("o", pane=other)
    scene.human.press("Escape")
    scene.human.line(":q!")
    assert scene.at_prompt(target=other), scene.screen(other)
    assert notes.read_text() == "first line\nsecond line\n"
    ends_right(scene)


def test_a_pane_of_an_unsynchronized_window_can_be_named(scene: Scene) -> None:
    """Turning synchronize-panes on in one window does not stop the agent in another it names."""
    other, looked_at = two_panes(scene)
    elsewhere = scene.new_window()
    window = scene.pane_facts(elsewhere)["window"]
    scene.select("p", pane=looked_at)
    synchronize(scene, True)
    scene.human_quiet()
    shown = {p: scene.screen(p) for p in (other, looked_at)}
    command, answer = probe(scene)
    res = call("send", text=command, session=f"shared:{window}.0", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("send to the other window did not run", res, scene)
    assert answer in scene.history(elsewhere)
    for pane, screen in shown.items():
        assert scene.screen(pane) == screen, explain(f"pane {pane} changed:\n{scene.screen(pane)}", res, scene)
    synchronize(scene, False)
    ends_right(scene)


def test_a_named_pane_of_a_synchronized_window_gets_nothing(scene: Scene) -> None:
    """Naming the pane (``shared:0.1``, ``%N``) does not get round synchronize-panes: tmux would still copy."""
    other, looked_at = two_panes(scene)
    scene.select("o", pane=other)
    scene.human.type("echo half-typed")
    assert poll(lambda: scene.before_cursor(other).endswith("echo half-typed"), 4), scene.screen(other)
    scene.select("o", pane=looked_at)
    synchronize(scene, True)
    scene.human_quiet()
    shown = {p: scene.screen(p) for p in (other, looked_at)}
    index = scene.pane_facts(looked_at)["index"]
    for target in (f"shared:0.{index}", looked_at, f"shared:{other}"):
        command, answer = probe(scene)
        res = call("send", text=command, session=target, timeout=3)
        says_synchronized(res)
        assert not poll(lambda answer=answer: any(answer in scene.history(p) for p in shown), 0.5), \
            explain(f"the agent's command to {target} ran", res, scene)
    for pane, screen in shown.items():
        assert scene.screen(pane) == screen, f"pane {pane} changed:\n{scene.screen(pane)}"
    synchronize(scene, False)
    ends_right(scene)
