"""Everyday work in a shared terminal with windows and panes, the agent beside the human.

The human keeps working while the agent's command runs: commands, ``top``,
``less`` or ``vim`` in the other pane, a ``clear`` or Ctrl+L in the agent's
pane, another shell opened in a split, a second browser tab of another size,
a zoom or a ``break-pane`` of the agent's pane, a switch to another window
while the agent's command asks a question.  The agent's results stay those of
its own command, in its own pane, whole and exact, and nothing the agent types
lands in the human's pane.

Ground truth: the ``$TMUX_PANE`` a command wrote (:func:`pane_stamp`), stamp
files, the panes' screens and history as ``capture-pane`` has them, the
kernel's foreground process group, and ``tmux list-panes``.
"""

from __future__ import annotations

import re
import secrets
import threading
from collections.abc import Callable

import pytest

from python.tools.tmux_tool import call
from tests.gates import Gate

from .conftest import (
    PLAIN_BASH,
    Scene,
    Shell,
    bash,
    ended,
    ends_right,
    explain,
    pane_stamp,
    poll,
    probe,
    ran_in,
    ready_after_end,
    refused,
    right_pane,
    settle,
    stamp,
)

TWO_LINE = bash(r"'\w\n\$ '", r"^# $", name="bash-cwd-over-prompt")
BLANK_LINE = bash(r"'\n\u@box \w\n\$ '", r"^# $", name="bash-blank-line-two-line")
SHELLS = [PLAIN_BASH, TWO_LINE, BLANK_LINE]


def token() -> int:
    return secrets.randbelow(9000) + 1000


def names(scene: Scene) -> tuple[str, ...]:
    return tuple(p["window_name"] for p in scene.panes())


def lines_command(scene: Scene, name: str = "done") -> tuple[str, str]:
    """A quick command printing three lines only running it makes, its pane stamped last."""
    n = token()
    return (f"printf 'alpha-%s\\nbeta two\\n  gamma\\n' {n}; {pane_stamp(scene, name)}",
            f"alpha-{n}\nbeta two\n  gamma")


def slow_lines(scene: Scene, count: int = 4, pause: float = 0.6, width: int = 0) -> tuple[str, str]:
    """A command printing ``count`` lines, ``pause`` seconds apart, each ``width`` zeros long after its tag."""
    n = token()
    body = f"%0{width}d" if width else ""
    arg = " 0" if width else ""
    command = (f"for i in $(seq 1 {count}); do sleep {pause}; printf 'L%s-{n}-{body}\\n' $i{arg}; done; "
               f"{pane_stamp(scene)}")
    output = "\n".join(f"L{i}-{n}-" + ("0" * width) for i in range(1, count + 1))
    return command, output


def sent_ready(scene: Scene, res: dict, what: str) -> None:
    assert res["ok"] and res["status"] == "ready", explain(f"{what} did not come back ready", res, scene)


def exact(scene: Scene, command: str, output: str, session: str | None = None, timeout: float = 8) -> dict:
    args = {"session": session} if session else {}
    res = call("send", text=command, timeout=timeout, **args)
    sent_ready(scene, res, repr(command))
    assert res["output"] == output, explain(f"the output of {command!r} is not what it printed", res, scene)
    return res


def split_and_come_back(scene: Scene, pane: str) -> str:
    """The human splits left/right and comes back to ``pane``; the new pane's id."""
    other = scene.split("%")
    scene.select("o", pane=pane)
    return other


# --- the human works in the other pane while the agent's command runs -----------------
def human_runs_a_command(scene: Scene, pane: str) -> Callable[[], None]:
    scene.human.line("for i in 1 2 3; do echo human-$i; sleep 0.3; done")
    assert poll(lambda: "human-3" in scene.screen(pane), 5), scene.screen(pane)
    return lambda: None


def human_runs_top(scene: Scene, pane: str) -> Callable[[], None]:
    scene.human.line("top -d 0.3")
    assert poll(lambda: "top" in scene.front(pane) and scene.screen(pane).startswith("top - "), 8), \
        scene.screen(pane)

    def leave() -> None:
        scene.human.press("q")
    return leave


def human_reads_in_less(scene: Scene, pane: str) -> Callable[[], None]:
    scene.human.line("seq 1 500 | less")
    assert poll(lambda: "less" in scene.front(pane) and scene.screen(pane).startswith("1\n"), 8), \
        scene.screen(pane)
    for _ in range(3):
        scene.human.press("Space")
    assert poll(lambda: not scene.screen(pane).startswith("1\n"), 3), scene.screen(pane)

    def leave() -> None:
        scene.human.press("q")
    return leave


def human_edits_in_vim(scene: Scene, pane: str) -> Callable[[], None]:
    scene.human.line("vim -u NONE -N -i NONE notes.txt")
    assert poll(lambda: "vim" in scene.front(pane), 8), scene.screen(pane)
    scene.human.press("i")
    scene.human.type("written by the human")
    assert poll(lambda: "written by the human" in scene.screen(pane), 5), scene.screen(pane)

    def leave() -> None:
        scene.human.press("Escape")
        scene.human.type(":wq")
        scene.human.press("Enter")
        assert poll(lambda: scene.file("notes.txt").exists(), 5)
        assert scene.file("notes.txt").read_text() == "written by the human\n", \
            f"the human's file holds more than the human typed: {scene.file('notes.txt').read_text()!r}"
    return leave


HUMAN_WORK = {
    "command": human_runs_a_command,
    "top": human_runs_top,
    "less": human_reads_in_less,
    "vim": human_edits_in_vim,
}


@pytest.mark.parametrize("work", list(HUMAN_WORK))
def test_the_human_works_in_the_other_pane_while_the_agents_command_runs(scene: Scene, work: str) -> None:
    settle(scene)
    a = scene.active_pane()
    b = split_and_come_back(scene, a)
    scene.human_quiet()
    command, answer = slow_lines(scene, count=4, pause=0.7)
    res = call("send", text=command, timeout=0.5)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    right_pane(scene, res, a, names(scene))
    scene.select("o", pane=b)
    leave = HUMAN_WORK[work](scene, b)
    res = call("wait", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == a, f"the command ran in {ran_in(scene)}, not {a}"
    assert res["output"] == answer, explain("wait's output is not the command's", res, scene)
    right_pane(scene, res, a, names(scene))
    assert "human-" not in scene.history(a), "the human's command's output is in the agent's pane"

    # the human's program still runs in b: the agent goes on in its own pane, by naming it
    command, answer = lines_command(scene, "second")
    res = exact(scene, command, answer, session=a)
    assert ran_in(scene, "second") == a, f"the second command ran in {ran_in(scene, 'second')}, not {a}"
    right_pane(scene, res, a, names(scene))
    for tag in re.findall(r"L1-\d+|alpha-\d+", scene.history(a)):
        assert tag not in scene.history(b), f"the agent's {tag} shows in the human's pane {b}"
    assert scene.active_pane() == b
    leave()
    assert scene.at_prompt(target=b), scene.screen(b)
    ends_right(scene)


# --- the human clears the agent's pane ------------------------------------------------
@pytest.mark.parametrize("shell", [PLAIN_BASH, TWO_LINE], ids=str)
@pytest.mark.parametrize("delivered", [True, False], ids=["output-taken", "output-pending"])
@pytest.mark.parametrize("way", ["clear", "C-l"])
def test_the_human_clears_the_agents_pane_then_the_agent_sends_again(make_scene, shell: Shell, way: str,
                                                                     delivered: bool) -> None:
    """The agent works in pane a by name while the human sits in b; the human steps into a, clears it, goes back."""
    scene: Scene = make_scene(shell)
    settle(scene)
    a = scene.active_pane()
    b = scene.split("%")
    exact(scene, "seq 1 20", "\n".join(str(i) for i in range(1, 21)), session=a)
    n = token()
    answer = f"pending-{n}\nline two"
    res = call("send", text=f"sleep 0.5; printf 'pending-%s\\nline two\\n' {n}; {pane_stamp(scene)}", session=a,
               timeout=0.2 if not delivered else 6)
    assert res["ok"], explain("the command was not typed", res, scene)
    if delivered:
        sent_ready(scene, res, "the command")
        assert res["output"] == answer, explain("the output is not the command's", res, scene)
    assert poll(lambda: ended(scene), 6), scene.screen(a)
    assert scene.at_prompt(target=a), scene.screen(a)
    scene.select("o", pane=a)
    if way == "C-l":
        scene.human.press("C-l")
    else:
        scene.human.line("clear")
    assert poll(lambda: "pending-" not in scene.screen(a) and re.search(scene.shell.prompt, scene.before_cursor(a)),
                5), scene.screen(a)
    scene.select("o", pane=b)
    scene.human_quiet()
    if not delivered:
        res = call("wait", session=a, timeout=6)
        assert res["ok"] and res["status"] == "ready", explain("wait after the human's clear", res, scene)
        if res.get("output_truncated"):
            assert answer.endswith(res["output"]), explain("a cut output that is not the output's end", res, scene)
        else:
            assert res["output"] == answer, explain("the pending output after the human's clear", res, scene)
        right_pane(scene, res, a, names(scene))
    for name in ("one", "two"):
        command, answer = lines_command(scene, name)
        res = exact(scene, command, answer, session=a)
        assert ran_in(scene, name) == a
        assert not res.get("output_truncated"), explain("a whole output is said to be cut", res, scene)
    assert "alpha-" not in scene.history(b)
    ends_right(scene)


# --- another shell in a split pane ------------------------------------------------------
ZSHRC = "PROMPT='%n@zbox %~ %# '\nHISTFILE=/dev/null\n"
FISH_CONFIG = "set -g fish_greeting ''\n"
INNER = {"bash": "bash", "zsh": "zsh", "fish": "fish"}


@pytest.mark.parametrize("inner", list(INNER))
def test_the_agent_opens_another_shell_in_a_split_pane_and_works_in_both(scene: Scene, inner: str) -> None:
    scene.file(".zshrc").write_text(ZSHRC)
    scene.file(".config/fish").mkdir(parents=True, exist_ok=True)
    scene.file(".config/fish/config.fish").write_text(FISH_CONFIG)
    settle(scene)
    a = scene.active_pane()
    b = scene.split('"')  # the human looks at b
    outer_b = scene.tpgid(b)
    scene.human_quiet()
    res = call("send", text=INNER[inner], session=b, timeout=8)
    sent_ready(scene, res, f"the agent's {inner}")
    assert poll(lambda: scene.foreground(b) == inner and scene.tpgid(b) != outer_b, 5), \
        f"{inner} is not in front in {b}: {scene.foreground(b)!r}"
    for turn, pane in enumerate([b, a, b, a, b]):
        name = f"t{turn}"
        command, answer = lines_command(scene, name)
        res = exact(scene, command, answer, session=pane)
        assert ran_in(scene, name) == pane, f"turn {turn} ran in {ran_in(scene, name)}, not {pane}"
        right_pane(scene, res, pane, names(scene))
    assert scene.foreground(a) == "bash" and scene.tpgid(a) == scene.pane_pid(a)
    res = call("send", text="exit", session=b, timeout=8)
    assert res["ok"], explain(f"the agent could not leave its own {inner}", res, scene)
    assert poll(lambda: scene.tpgid(b) == scene.pane_pid(b), 5), f"{inner} is still in front in {b}"
    assert scene.at_prompt(target=b), scene.screen(b)
    command, answer = lines_command(scene, "after")
    exact(scene, command, answer, session=b)
    assert ran_in(scene, "after") == b
    ends_right(scene)


def test_the_humans_nested_shell_in_one_pane_and_the_agent_in_the_other(scene: Scene) -> None:
    """The human opens bash inside bash in b: b is the human's until the human leaves; a takes commands."""
    settle(scene)
    a = scene.active_pane()
    b = scene.split("%")
    outer_b = scene.tpgid(b)
    scene.human.line("bash")
    assert poll(lambda: scene.foreground(b) == "bash" and scene.tpgid(b) != outer_b
                and re.search(scene.shell.prompt, scene.before_cursor(b)), 8), scene.screen(b)
    scene.human_quiet()
    command, answer = lines_command(scene, "in-a")
    exact(scene, command, answer, session=a)
    assert ran_in(scene, "in-a") == a
    before = scene.screen(b)
    command, answer = lines_command(scene, "in-b")
    refused(call("send", text=command, session=b, timeout=2))
    assert scene.screen(b) == before and ran_in(scene, "in-b") is None, "the agent typed into the human's bash"
    scene.human.line("exit")
    assert poll(lambda: scene.tpgid(b) == outer_b, 5), "the human's nested bash did not end"
    assert scene.at_prompt(target=b)
    scene.human_quiet()
    exact(scene, command, answer, session=b)
    assert ran_in(scene, "in-b") == b
    ends_right(scene)


# --- sizes: a smaller second client, a zoom, a break-pane --------------------------------
def test_a_smaller_second_client_types_while_long_lines_print(scene: Scene) -> None:
    settle(scene)
    a = scene.active_pane()
    b = split_and_come_back(scene, a)
    width_before = scene.fmt("#{pane_width}", a)
    scene.human_quiet()
    command, answer = slow_lines(scene, count=6, pause=0.4, width=250)
    res = call("send", text=command, timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    small = scene.attach_another(30, 90)
    human = scene.human
    scene.human = small  # the small tab is the one typing: the window follows it
    try:
        scene.select("o", pane=b)
        scene.human.line("echo from-the-small-tab")
    finally:
        scene.human = human
    assert poll(lambda: scene.fmt("#{window_width}", a) == "90", 5), "the window did not follow the small client"
    assert scene.fmt("#{pane_width}", a) != width_before
    res = call("wait", timeout=12)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == a
    assert res["output"] == answer, explain("long lines printed across a resize are not exact", res, scene)
    right_pane(scene, res, a, names(scene))
    # the big tab types again (the window grows back), the agent prints long lines once more
    scene.select("o", pane=a)
    assert poll(lambda: scene.fmt("#{window_width}", a) == "120", 5), "the window did not follow the big client"
    scene.human_quiet()
    command, answer = slow_lines(scene, count=3, pause=0.1, width=300)
    res = call("send", text=command, timeout=8)
    sent_ready(scene, res, "long lines at the big size")
    assert res["output"] == answer, explain("long lines after the resize back are not exact", res, scene)
    ends_right(scene)


def zoom_it(scene: Scene, pane: str) -> None:
    scene.prefix("z")
    assert poll(lambda: scene.fmt("#{window_zoomed_flag}", pane) == "1", 3), "the agent's pane was not zoomed"


def unzoom_it(scene: Scene, pane: str) -> None:
    scene.prefix("z")
    assert poll(lambda: scene.fmt("#{window_zoomed_flag}", pane) == "0", 3), "the agent's pane stayed zoomed"


def split_it(scene: Scene, pane: str) -> None:
    """The human splits the agent's pane (the human looks at it): it becomes half as wide."""
    scene.split("%")


def close_the_other(scene: Scene, pane: str) -> None:
    """The human goes to the other pane and closes it: the agent's pane takes the whole width."""
    other = next(p["id"] for p in scene.panes() if p["id"] != pane)
    scene.select("o", pane=other)
    scene.prompted("x", "kill-pane")
    scene.human.press("y")
    assert poll(lambda: other not in scene.pane_ids(), 5), scene.panes()


def break_it(scene: Scene, pane: str) -> None:
    window = (scene.pane_facts(pane) or {})["window"]
    scene.prefix("!")
    assert poll(lambda: (scene.pane_facts(pane) or {}).get("window") != window, 3), scene.panes()


# name -> (before the command, while it prints)
SIZE_MOVES: dict[str, tuple[Callable[[Scene, str], None] | None, Callable[[Scene, str], None]]] = {
    "zoom": (None, zoom_it),
    "unzoom": (zoom_it, unzoom_it),
    "break-pane": (None, break_it),
    "split": (None, split_it),
    "close-other-pane": (None, close_the_other),
}


@pytest.mark.parametrize("move", list(SIZE_MOVES))
def test_the_agents_pane_changes_width_while_long_lines_print(scene: Scene, move: str) -> None:
    before, during = SIZE_MOVES[move]
    settle(scene)
    a = scene.active_pane()
    split_and_come_back(scene, a)
    if before:
        before(scene, a)
    width = scene.fmt("#{pane_width}", a)
    scene.human_quiet()
    command, answer = slow_lines(scene, count=6, pause=0.45, width=180)
    res = call("send", text=command, timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    assert poll(lambda: "L2-" in scene.screen(a), 5), scene.screen(a)
    during(scene, a)
    assert scene.fmt("#{pane_width}", a) != width, "the pane's width did not change"
    assert ended(scene) is None, "the command ended before the move: the case shows nothing"
    res = call("wait", timeout=10)
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == a
    assert res["output"] == answer, explain(f"long lines across a {move} are not exact", res, scene) + (
        "\nrows as joined lines (-J):\n" + "\n".join(
            repr(row) for row in scene.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", a).splitlines()[:10])
        + "\nthe same rows as the screen has them (-N):\n" + "\n".join(
            repr(row) for row in scene.tmux("capture-pane", "-p", "-N", "-S", "-", "-t", a).splitlines()[:30]))
    right_pane(scene, res, a, names(scene))
    scene.human_quiet()
    command, answer = lines_command(scene, "after")
    exact(scene, command, answer, session=a)
    ends_right(scene)


# --- the agent's question, the human elsewhere --------------------------------------------
def went_idle(scene: Scene, pane: str) -> None:
    pass


def ran_something(scene: Scene, pane: str) -> None:
    scene.human.line("echo elsewhere")
    assert poll(lambda: re.search(r"^elsewhere$", scene.screen(pane), re.MULTILINE), 5), scene.screen(pane)
    assert scene.at_prompt(target=pane)


def half_typed(scene: Scene, pane: str) -> None:
    scene.human.type("echo mine")
    assert poll(lambda: scene.before_cursor(pane).endswith("echo mine"), 4), scene.screen(pane)


def own_question(scene: Scene, pane: str) -> None:
    """The human's own command asks the human a question there (answered at the end of the case)."""
    scene.human.line(f"read -p 'Name? ' n; echo \"hi $n\" > {scene.file('who')}")
    assert poll(lambda: scene.before_cursor(pane).endswith("Name? "), 5), scene.screen(pane)


ELSEWHERE = {"idle": went_idle, "ran-a-command": ran_something, "half-typed": half_typed,
             "own-question": own_question}


@pytest.mark.parametrize("named", [False, True], ids=["unnamed", "named"])
@pytest.mark.parametrize("elsewhere", list(ELSEWHERE))
def test_the_agent_answers_its_question_after_the_human_went_to_another_window(scene: Scene, elsewhere: str,
                                                                                named: bool) -> None:
    settle(scene)
    a = scene.active_pane()
    res = call("send", text=f"read -p 'Continue? ' x; echo got-$x; {pane_stamp(scene)}", timeout=3)
    assert res["ok"] and res["status"] == "blocked", explain("the question is not seen", res, scene)
    right_pane(scene, res, a, names(scene))
    c = scene.new_window()
    ELSEWHERE[elsewhere](scene, c)
    scene.human_quiet()
    shown = scene.screen(c)
    status = call("status")
    assert status["status"] == "blocked" and status["pane"]["id"] == a, \
        explain("status does not follow the question's pane", status, scene)
    res = call("send", text="y", timeout=6, **({"session": "shared:0.0"} if named else {}))
    assert res["ok"], explain("the answer to the agent's own question was refused", res, scene)
    assert poll(lambda: ended(scene), 5), explain("the question was never answered", res, scene)
    assert ran_in(scene) == a
    assert re.search(r"^got-y$", scene.history(a), re.MULTILINE), scene.history(a)
    assert scene.screen(c) == shown, explain(f"the pane the human looks at ({c}) changed", res, scene)
    if res["status"] != "ready":
        res = call("wait", timeout=5)
    assert res["ok"] and res["status"] == "ready", explain("the answered command is not over", res, scene)
    assert res["output"] == "got-y", explain("the output after the answer is not the command's", res, scene)
    right_pane(scene, res, a, names(scene))
    if elsewhere == "half-typed":
        assert scene.before_cursor(c).endswith("echo mine"), scene.screen(c)
        scene.human.press("C-u")
        assert scene.at_prompt(target=c)
    if elsewhere == "own-question":
        assert not scene.file("who").exists(), "the human's question got an answer from the agent"
        scene.human.line("ann")
        assert poll(lambda: scene.file("who").exists(), 5)
        assert scene.file("who").read_text() == "hi ann\n", "the human's answer got the agent's keys"
        assert scene.at_prompt(target=c)
    ends_right(scene)


def test_a_half_typed_line_in_the_looked_at_pane_and_the_agent_names_another(scene: Scene) -> None:
    settle(scene)
    a = scene.active_pane()
    b = scene.split("%")
    scene.human.type("echo mine")
    assert poll(lambda: scene.before_cursor(b).endswith("echo mine"), 4), scene.screen(b)
    scene.human_quiet()
    command, answer = lines_command(scene)
    refused(call("send", text=command, timeout=2))  # the looked-at pane has the human's line
    assert ran_in(scene) is None
    for target in (a, "shared:0.0"):
        scene.file("done").unlink(missing_ok=True)
        command, answer = lines_command(scene)
        res = exact(scene, command, answer, session=target)
        assert ran_in(scene) == a, f"send to {target!r} ran in {ran_in(scene)}"
        assert scene.before_cursor(b).endswith("echo mine"), explain("the human's line changed", res, scene)
    scene.human.press("Enter")
    assert poll(lambda: re.search(r"^mine$", scene.screen(b), re.MULTILINE), 5), scene.screen(b)
    assert scene.at_prompt(target=b)
    ends_right(scene)


def test_two_commands_of_the_agent_in_two_panes_at_once(scene: Scene) -> None:
    """A long one in a, a quick one in b meanwhile: each answer is its own command's, each in its pane."""
    settle(scene)
    a = scene.active_pane()
    b = split_and_come_back(scene, a)
    scene.human_quiet()
    command, long_answer = slow_lines(scene, count=4, pause=0.6)
    res = call("send", text=command, session=a, timeout=0.3)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    quick, quick_answer = lines_command(scene, "quick")
    res = exact(scene, quick, quick_answer, session=b)
    assert ran_in(scene, "quick") == b
    right_pane(scene, res, b, names(scene))
    status = call("status", session=a)
    assert status["ok"] and status["status"] == "busy" or ended(scene) is not None, \
        explain("the long command is not busy", status, scene)
    res = call("wait", session=a, timeout=8)
    assert res["ok"] and res["status"] == "ready", explain("wait on a did not see its command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == a
    assert res["output"] == long_answer, explain("the long command's output", res, scene)
    right_pane(scene, res, a, names(scene))
    ends_right(scene)


# --- repeated commands, empty outputs, two-line prompts ------------------------------------

GIT_STATUS = ("On branch main\nYour branch is up to date with 'origin/main'.\n\n"
              "nothing to commit, working tree clean")
REPEATED = {
    "echo-same": ("echo same", "same", 5),
    "git-status-like": (("printf '%s\\n' 'On branch main' \"Your branch is up to date with 'origin/main'.\" '' "
                         "'nothing to commit, working tree clean'"), GIT_STATUS, 5),
    "pwd-in-tmp": ("pwd", "/tmp", 3),
    "seq-3": ("seq 1 3", "1\n2\n3", 4),
}


@pytest.mark.parametrize("shell", SHELLS, ids=str)
@pytest.mark.parametrize("case", list(REPEATED))
def test_a_repeated_command_gives_its_whole_output_each_time(make_scene, shell: Shell, case: str) -> None:
    scene: Scene = make_scene(shell)
    command, output, times = REPEATED[case]
    settle(scene)
    if case == "pwd-in-tmp":
        exact(scene, "cd /tmp", "")
    for i in range(times):
        res = call("send", text=command, timeout=8)
        sent_ready(scene, res, f"repeat {i + 1} of {command!r}")
        assert res["output"] == output, explain(f"repeat {i + 1} of {command!r} lost or gained lines", res, scene)
    ends_right(scene)


@pytest.mark.parametrize("shell", SHELLS, ids=str)
def test_commands_printing_nothing_then_lines(make_scene, shell: Shell) -> None:
    scene: Scene = make_scene(shell)
    steps = [
        ("true", ""),
        ("cd /tmp", ""),
        ("printf 'one\\ntwo\\n'", "one\ntwo"),
        (":", ""),
        ("cd -  >/dev/null", ""),
        ("printf 'three\\n'", "three"),
        ("true", ""),
        ("true", ""),
        ("echo same; echo same", "same\nsame"),
        ("cd /tmp", ""),
        ("pwd", "/tmp"),
    ]
    for command, output in steps:
        exact(scene, command, output)
    ends_right(scene)


@pytest.mark.parametrize("shell", SHELLS, ids=str)
@pytest.mark.parametrize("before", [20, 70, 300])
def test_a_command_after_a_long_output(make_scene, shell: Shell, before: int) -> None:
    """``seq 1 N`` (a long listing, a log), then a command of three lines: exactly those three lines."""
    scene: Scene = make_scene(shell)
    settle(scene)
    exact(scene, f"seq 1 {before}", "\n".join(str(i) for i in range(1, before + 1)))
    for name in ("one", "two"):
        command, answer = lines_command(scene, name)
        exact(scene, command, answer)
    ends_right(scene)


def test_repeated_commands_in_two_panes_by_turns(scene: Scene) -> None:
    """The same git-status-like lines, asked again and again in two panes by name: every answer whole."""
    settle(scene)
    a = scene.active_pane()
    b = scene.split('"')
    scene.human_quiet()
    command, output, _ = REPEATED["git-status-like"]
    for turn in range(6):
        pane = (a, b)[turn % 2]
        res = exact(scene, f"{command}; {stamp(scene, f't{turn}')}", output, session=pane)
        right_pane(scene, res, pane, names(scene))
    ends_right(scene)


@pytest.mark.parametrize("shell", [PLAIN_BASH, TWO_LINE], ids=str)
def test_the_agent_runs_what_the_human_just_ran_three_times(make_scene, shell: Shell) -> None:
    """The human runs a git-status-like command three times in a; the agent then runs it there too:
    the agent's answer is that output, whole, once."""
    scene: Scene = make_scene(shell)
    settle(scene)
    a = scene.active_pane()
    command, output, _ = REPEATED["git-status-like"]
    for _ in range(3):
        scene.human.line(command)
        assert poll(lambda: re.search(scene.shell.prompt, scene.before_cursor(a))
                    and scene.screen(a).count("nothing to commit") >= 1, 5)
        assert scene.at_prompt(target=a)
    scene.human_quiet()
    exact(scene, command, output, session=a)
    command, answer = probe(scene)
    exact(scene, command, answer)
    ends_right(scene)


# --- the human busy in one pane, the agent in another ----------------------------------------
def test_the_human_runs_a_command_in_the_looked_at_pane_and_the_agent_names_another(scene: Scene) -> None:
    settle(scene)
    a = scene.active_pane()
    b = split_and_come_back(scene, a)  # the human looks at a
    gate = Gate(scene.file("human.go"))  # the human's command runs until the agent's has answered
    scene.human.line(f"{gate.shell}; {stamp(scene, 'human')}")
    assert poll(lambda: "sleep" in scene.front(a), 5), scene.screen(a)
    scene.human_quiet()
    command, answer = lines_command(scene)
    res = exact(scene, command, answer, session=b)
    assert ended(scene, "human") is None
    assert ran_in(scene) == b
    right_pane(scene, res, b, names(scene))
    assert "alpha-" not in scene.history(a), "the agent's text reached the human's running command"
    gate.open()
    assert poll(lambda: ended(scene, "human"), 8)
    assert scene.at_prompt(target=a)
    ends_right(scene)


def test_the_human_keeps_typing_in_vim_in_one_pane_while_the_agent_works_in_the_other(scene: Scene) -> None:
    """Typing in b is no reason to hold back a command for a: nothing the agent types can mix with it."""
    settle(scene)
    a = scene.active_pane()
    b = scene.split("%")
    scene.human.line("vim -u NONE -N -i NONE notes.txt")
    assert poll(lambda: "vim" in scene.front(b), 8), scene.screen(b)
    scene.human.press("i")
    text = " ".join(f"word{i}" for i in range(40))  # about 5 seconds of typing at the human's pace
    typist = threading.Thread(target=scene.human.type, args=(text,), daemon=True)
    typist.start()
    try:
        assert poll(lambda: "word3" in scene.screen(b), 5), scene.screen(b)
        command, answer = lines_command(scene)
        res = call("send", text=command, session=a, timeout=3)
        typing = typist.is_alive()
        assert res["ok"] and res["status"] == "ready", \
            explain(f"the agent was held back in {a} while the human typed in {b}", res, scene)
        assert typing, "the case is void: the human had stopped typing"
        assert res["output"] == answer and ran_in(scene) == a, explain("the agent's command in a", res, scene)
    finally:
        typist.join(15)
    scene.human.press("Escape")
    scene.human.type(":wq")
    scene.human.press("Enter")
    assert poll(lambda: scene.file("notes.txt").exists(), 5)
    assert scene.file("notes.txt").read_text() == text + "\n", "the human's file holds more than the human typed"
    assert scene.at_prompt(target=b)
    ends_right(scene)


@pytest.mark.parametrize("waits_on", ["default", "same-name"])
def test_the_agent_names_a_window_and_the_human_changes_its_active_pane(scene: Scene, waits_on: str) -> None:
    """``send`` to ``shared:1`` runs in window 1's active pane; the human then picks the other pane of window 1.
    The agent's wait (without a name, or with the same ``shared:1``) is about its command."""
    settle(scene)
    a = scene.active_pane()
    c1 = scene.new_window()
    c2 = scene.split("%")  # window 1's active pane
    scene.select("n", pane=a)  # the human is back in window 0
    scene.human_quiet()
    command, answer = slow_lines(scene, count=3, pause=1.2)
    # c2 was drawn a moment ago: the tool may first wait for a quiet moment there
    res = call("send", text=command, session="shared:1", timeout=2)
    assert res["ok"] and res["status"] == "busy", explain("a slow command is busy at first", res, scene)
    right_pane(scene, res, c2, names(scene))
    scene.select("n", pane=c2)
    scene.select("o", pane=c1)  # window 1's active pane is now c1
    res = call("wait", timeout=8, **({"session": "shared:1"} if waits_on == "same-name" else {}))
    assert res["ok"] and res["status"] == "ready", explain("wait did not see the command's end", res, scene)
    ready_after_end(scene, res)
    assert ran_in(scene) == c2, f"the command ran in {ran_in(scene)}, not {c2}"
    assert res["output"] == answer, explain("wait's output is not the command's", res, scene)
    right_pane(scene, res, c2, names(scene))
    ends_right(scene)
