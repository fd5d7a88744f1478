"""The human's own programs are the human's: the agent types nothing into them.

With the human's vim, python, less, top, ``cat``, a password question or a
``read`` in the shell in front, ``send`` and ``keys`` answer ``ok: false``
naming what the human is using, and not one character reaches the program:
afterwards the file, the REPL's history or the answer the human gives shows
only the human's keys.  ``force`` (the human asked for it) does type.
"""

from __future__ import annotations

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, probe, refused, settle

VIM = "vim -u NONE -N -i NONE notes.txt"
TEXT = "important line 1\nimportant line 2\nimportant line 3\n"
LOGIN = """import getpass
secret = getpass.getpass("root@10.0.0.5's password: ")
print(f"len={len(secret)}")
"""


def nothing_reaches(scene: Scene, program: str, keys: str | None = None) -> None:
    """``send`` (and ``keys``) are refused, type nothing, and say the human is using ``program``."""
    before = scene.screen()
    command, answer = probe(scene)
    sent = call("send", text=command, timeout=2)
    refused(sent)
    pressed = None
    if keys is not None:
        pressed = call("keys", keys=keys)
        refused(pressed)
    assert program in scene.front(), explain(f"the human's {program} is gone", pressed or sent, scene)
    assert command not in scene.screen() and answer not in scene.history(), \
        explain(f"the agent's text reached the human's {program}", sent, scene)
    if program != "top":  # top redraws by itself
        assert scene.screen() == before, explain("the human's screen changed", pressed or sent, scene)
    for res in (sent, pressed):
        if res is not None:
            assert program in res["error"], explain(f"the refusal does not say the human is using {program}",
                                                    res, scene)


def test_human_vim_in_normal_mode(scene: Scene) -> None:
    scene.file("notes.txt").write_text(TEXT)
    settle(scene)
    scene.human.line(VIM)
    scene.wait_front("vim")
    scene.wait_screen("important line 3")
    nothing_reaches(scene, "vim", keys="Escape")
    scene.human.type(":wq")
    scene.human.press("Enter")
    assert scene.at_prompt()
    assert scene.file("notes.txt").read_text() == TEXT
    ends_right(scene)


def test_human_vim_in_insert_mode(scene: Scene) -> None:
    scene.file("notes.txt").write_text(TEXT)
    settle(scene)
    scene.human.line(VIM)
    scene.wait_screen("important line 3")
    scene.human.press("i")
    scene.human.type("mine ")
    scene.wait_screen("-- INSERT --")
    nothing_reaches(scene, "vim")
    scene.human.press("Escape")
    scene.human.type(":wq")
    scene.human.press("Enter")
    assert scene.at_prompt()
    assert scene.file("notes.txt").read_text() == "mine " + TEXT
    ends_right(scene)


def test_human_python_repl(scene: Scene) -> None:
    settle(scene)
    scene.human.line("python3 -q")
    scene.wait_screen(r"^>>> ?$")
    nothing_reaches(scene, "python3")
    scene.human.line("import readline; print('lines', readline.get_current_history_length())")
    scene.wait_screen(r"^lines \d+$")
    assert "lines 1" in scene.screen(), scene.screen()  # only the human's own line was ever read
    scene.human.line("exit()")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_pager(scene: Scene) -> None:
    settle(scene)
    scene.human.line("seq 1 200 | less")
    scene.wait_front("less")
    scene.wait_screen(r"^1$")
    nothing_reaches(scene, "less", keys="q")
    assert scene.screen().startswith("1\n2\n")  # not scrolled by any key
    scene.human.press("q")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_top(scene: Scene) -> None:
    settle(scene)
    scene.human.line("top -d 0.5")
    scene.wait_front("top")
    scene.wait_screen(r"^top - ")
    nothing_reaches(scene, "top", keys="q")
    scene.human.press("q")
    assert scene.at_prompt()
    ends_right(scene)


def test_human_answers_a_password_question(scene: Scene) -> None:
    scene.file("login.py").write_text(LOGIN)
    settle(scene)
    scene.human.line("python3 login.py")
    scene.wait_screen(r"password: ?$")
    nothing_reaches(scene, "python3")
    scene.human.line("hunter2")
    scene.wait_screen(r"^len=7$")  # nothing but the human's seven keys was read
    assert scene.at_prompt()
    ends_right(scene)


def test_human_cat_reading_the_terminal(scene: Scene) -> None:
    settle(scene)
    scene.human.line("cat > mine.txt")
    scene.wait_front("cat")
    nothing_reaches(scene, "cat")
    scene.human.line("mine")
    scene.human.press("C-d")
    assert scene.at_prompt()
    assert scene.file("mine.txt").read_text() == "mine\n"
    ends_right(scene)


def test_human_answers_a_read_in_the_shell(scene: Scene) -> None:
    """The shell itself reads the terminal here (a builtin), for a question the human asked."""
    settle(scene)
    scene.human.line("read -p 'Name? ' n; echo \"hi $n\" > who")
    scene.wait_screen(r"^Name\? ?$")
    before = scene.screen()
    command, _answer = probe(scene)
    res = call("send", text=command, timeout=2)
    refused(res)
    assert scene.screen() == before, explain("the agent answered the human's question", res, scene)
    scene.human.line("ann")
    assert scene.at_prompt()
    assert scene.file("who").read_text() == "hi ann\n"
    ends_right(scene)


def test_human_sqlite_shell(scene: Scene) -> None:
    settle(scene)
    scene.human.line("sqlite3")
    scene.wait_screen(r"^sqlite> ?$")
    nothing_reaches(scene, "sqlite3")
    scene.human.line(".quit")
    assert scene.at_prompt()
    ends_right(scene)


def test_force_types_into_the_humans_repl_when_asked(scene: Scene) -> None:
    settle(scene)
    scene.human.line("python3 -q")
    scene.wait_screen(r"^>>> ?$")
    res = call("send", text="print(6 * 7)", force=True, timeout=6)
    assert res["ok"], explain("force did not type into the human's REPL", res, scene)
    scene.wait_screen(r"^42$")
    scene.human.line("exit()")
    assert scene.at_prompt()
    ends_right(scene)
