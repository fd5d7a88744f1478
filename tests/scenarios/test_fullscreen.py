"""Full-screen programs (vim, less, man, top, htop, watch) entered and left by either side.

A program on the alternate screen gives the shell's screen back when it
ends; the cursor lands wherever the shell left it, often far from where the
agent last looked.  Whoever leaves the program, the shell is then at its
prompt and the agent goes on without a key from anyone.
"""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, settle

VIM = "vim -u NONE -N -i NONE notes.txt"


def notes(scene: Scene, lines: int = 100) -> str:
    text = "".join(f"important line {i}\n" for i in range(1, lines + 1))
    scene.file("notes.txt").write_text(text)
    return text


def low_prompt(scene: Scene) -> None:
    """The agent's last command left the prompt low on the screen."""
    res = call("send", text="seq 1 30", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("seq did not run", res, scene)
    assert int(scene.fmt("#{cursor_y}")) >= 30


@pytest.mark.parametrize("where", ["top", "low"])
def test_human_quits_vim_with_the_cursor_low(scene: Scene, where: str) -> None:
    text = notes(scene)
    if where == "low":
        low_prompt(scene)
    else:
        settle(scene)
    scene.human.line(VIM)
    scene.wait_front("vim")
    scene.wait_screen("important line 1")
    scene.human.press("G")  # the cursor to the last line of the window
    scene.wait_screen(r"important line 100")
    scene.human.type(":q")
    scene.human.press("Enter")
    assert scene.at_prompt()
    assert scene.file("notes.txt").read_text() == text
    ends_right(scene)


def test_agent_opens_and_quits_vim(scene: Scene) -> None:
    notes(scene)
    low_prompt(scene)
    res = call("send", text=VIM, timeout=6)
    assert res["ok"], explain("the agent could not open vim", res, scene)
    scene.wait_front("vim")
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready" and res["program"] == "vim", \
        explain("the agent's vim is not ready as vim", res, scene)
    for keys in (["G"], ["o"]):
        assert call("keys", keys=keys)["ok"]
    res = call("send", text="added by the agent", enter=False, timeout=4)
    assert res["ok"], explain("text to the agent's own vim was refused", res, scene)
    res = call("keys", keys=["Escape", ":", "w", "q", "Enter"])
    assert res["ok"], explain("keys to the agent's own vim were refused", res, scene)
    assert scene.at_prompt()
    assert scene.file("notes.txt").read_text().endswith("important line 100\nadded by the agent\n")
    ends_right(scene)


def test_agent_opens_vim_and_the_human_quits_it(scene: Scene) -> None:
    notes(scene)
    res = call("send", text=VIM, timeout=6)
    assert res["ok"], explain("the agent could not open vim", res, scene)
    scene.wait_front("vim")
    scene.wait_screen("important line 1")
    scene.human.press("G")
    scene.human.type(":q")
    scene.human.press("Enter")
    assert scene.at_prompt()
    ends_right(scene)


@pytest.mark.parametrize("where", ["top", "low"])
def test_agent_pages_with_less_and_presses_q(scene: Scene, where: str) -> None:
    if where == "low":
        low_prompt(scene)
    res = call("send", text="seq 1 200 | less", timeout=6)
    assert res["ok"] and res["status"] == "blocked", explain("less is not blocked on its key", res, scene)
    res = call("keys", keys="q")
    assert res["ok"], explain("q to the agent's own less was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


def test_human_pages_with_less_and_quits(scene: Scene) -> None:
    low_prompt(scene)
    scene.human.line("seq 1 200 | less")
    scene.wait_front("less")
    scene.human.press("G")
    scene.human.press("q")
    assert scene.at_prompt()
    ends_right(scene)


def test_agent_opens_man_and_presses_q(scene: Scene) -> None:
    res = call("send", text="man ls", timeout=8)
    assert res["ok"] and res["status"] == "blocked", explain("man is not blocked on its pager", res, scene)
    res = call("keys", keys="q")
    assert res["ok"], explain("q to the agent's own man page was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


def test_human_reads_a_man_page(scene: Scene) -> None:
    settle(scene)
    scene.human.line("man ls")
    scene.wait_screen(r"LS\(1\)")
    scene.human.press("Space")
    scene.human.press("q")
    assert scene.at_prompt()
    ends_right(scene)


def test_agent_starts_top_and_quits_it_with_q(scene: Scene) -> None:
    res = call("send", text="top -d 0.5", timeout=2)
    assert res["ok"] and res["status"] == "busy", explain("top is a monitor: busy", res, scene)
    scene.wait_front("top")
    res = call("keys", keys="q")
    assert res["ok"], explain("q to the agent's own top was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


@pytest.mark.parametrize("monitor", ["htop -d 5", "watch -n 0.5 date", "top -d 0.5"])
def test_agent_ends_a_monitor_with_interrupt(scene: Scene, monitor: str) -> None:
    res = call("send", text=monitor, timeout=2)
    assert res["ok"], explain(f"{monitor} could not be started", res, scene)
    scene.wait_front(monitor.split()[0])
    res = call("interrupt", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain(f"interrupt did not end {monitor}", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


@pytest.mark.parametrize(("monitor", "key"), [("htop", "F10"), ("watch -n 0.5 date", "C-c"), ("top", "q")])
def test_human_runs_a_monitor_and_ends_it(scene: Scene, monitor: str, key: str) -> None:
    low_prompt(scene)
    scene.human.line(monitor)
    scene.wait_front(monitor.split()[0])
    res = call("status")
    assert res["status"] == "busy", explain("a monitor that redraws by itself is busy", res, scene)
    scene.human.press(key)
    assert scene.at_prompt()
    ends_right(scene)
