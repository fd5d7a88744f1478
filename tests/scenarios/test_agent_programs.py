"""Programs the agent itself started in the shared terminal answer to the agent.

``keys q`` quits the agent's ``top`` whatever it shows; ``send bob`` answers
the ``read -p 'Name? '`` of the agent's own command; the agent's REPL takes
its lines and lets it leave with ``exit()``.
"""

from __future__ import annotations

import subprocess
import time

from python.tools.tmux_tool import call

from .conftest import Scene, ends_right, explain, poll, refused


def test_agent_answers_its_own_read_question(scene: Scene) -> None:
    res = call("send", text="read -p 'Name? ' n; echo \"hello $n\" > answer", timeout=3)
    assert res["ok"] and res["status"] == "blocked", explain("a read question is blocked", res, scene)
    res = call("send", text="bob", timeout=6)
    assert res["ok"], explain("the answer to the agent's own question was refused", res, scene)
    assert poll(lambda: scene.file("answer").exists(), 5)
    assert scene.file("answer").read_text() == "hello bob\n"
    ends_right(scene)


def test_agent_answers_its_own_yes_no_question(scene: Scene) -> None:
    res = call("send", text="read -n1 -p 'Continue? [y/N] ' a; echo; echo \"got-$a\" > answer", timeout=3)
    assert res["ok"] and res["status"] == "blocked", explain("a y/n question is blocked", res, scene)
    res = call("keys", keys="y")
    assert res["ok"], explain("y to the agent's own question was refused", res, scene)
    assert poll(lambda: scene.file("answer").exists(), 5)
    assert scene.file("answer").read_text() == "got-y\n"
    ends_right(scene)


def test_agent_uses_its_own_python_repl(scene: Scene) -> None:
    res = call("send", text="python3 -q", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the agent's REPL is not ready", res, scene)
    res = call("send", text="print(6 * 7)", timeout=6)
    assert res["ok"] and res["output"] == "42", explain("the agent's REPL did not answer", res, scene)
    res = call("send", text="exit()", timeout=6)
    assert res["ok"], explain("leaving the agent's own REPL was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


def test_agent_uses_its_own_sqlite_shell(scene: Scene) -> None:
    res = call("send", text="sqlite3", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the agent's sqlite3 is not ready", res, scene)
    res = call("send", text="select 6 * 7;", timeout=6)
    assert res["ok"] and res["output"] == "42", explain("the agent's sqlite3 did not answer", res, scene)
    res = call("send", text=".quit", timeout=6)
    assert res["ok"], explain("leaving the agent's own sqlite3 was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


def test_agent_feeds_its_own_cat_and_ends_it(scene: Scene) -> None:
    """cat shows nothing while it waits for lines; the kernel sees it read the terminal, so the send
    comes back blocked once it waits, not at its timeout."""
    begun = time.monotonic()
    res = call("send", text="cat > agent.txt", timeout=20)
    assert res["ok"] and res["status"] == "blocked", explain("cat waiting for lines is blocked", res, scene)
    assert time.monotonic() - begun < 15, explain("the send waited for its timeout", res, scene)
    scene.wait_front("cat")
    res = call("send", text="line one", timeout=2)
    assert res["ok"], explain("a line to the agent's own cat was refused", res, scene)
    res = call("keys", keys="C-d")
    assert res["ok"], explain("Ctrl+D to the agent's own cat was refused", res, scene)
    assert scene.at_prompt()
    assert scene.file("agent.txt").read_text() == "line one\n"
    ends_right(scene)


def test_agent_interrupts_its_own_long_command(scene: Scene) -> None:
    res = call("send", text="sleep 30", timeout=1)
    assert res["ok"] and res["status"] == "busy", explain("sleep 30 is busy", res, scene)
    res = call("interrupt", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("interrupt did not bring the prompt back", res, scene)
    ends_right(scene)


def test_agent_confirms_its_own_rm_question(scene: Scene) -> None:
    scene.file("old.log").write_text("x\n")
    res = call("send", text="rm -i old.log", timeout=3)
    assert res["ok"] and res["status"] == "blocked", explain("rm -i asks a question", res, scene)
    res = call("send", text="y", timeout=6)
    assert res["ok"], explain("the answer to the agent's own rm question was refused", res, scene)
    assert poll(lambda: not scene.file("old.log").exists(), 5)
    ends_right(scene)


def test_agent_interrupts_its_own_command_waiting_on_the_terminal(scene: Scene) -> None:
    """``grep pattern`` without a file reads the terminal forever: the agent's own mistake."""
    res = call("send", text="grep needle", timeout=1)
    assert res["ok"] and res["status"] != "ready", explain("grep reading the terminal is not ready", res, scene)
    scene.wait_front("grep")
    res = call("interrupt", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("interrupt did not end the agent's grep", res, scene)
    ends_right(scene)


def test_agent_stages_a_command_then_presses_enter(scene: Scene) -> None:
    res = call("send", text="printf 'staged-%s\\n' 1", enter=False, timeout=6)
    assert res["ok"], explain("staging the agent's own text was refused", res, scene)
    res = call("keys", keys="Enter")
    assert res["ok"], explain("Enter after the agent's own text was refused", res, scene)
    scene.wait_screen(r"^staged-1$")
    ends_right(scene)


def test_agent_stages_a_command_then_clears_it(scene: Scene) -> None:
    res = call("send", text="rm -rf ./build", enter=False, timeout=6)
    assert res["ok"], explain("staging the agent's own text was refused", res, scene)
    res = call("keys", keys="C-u")
    assert res["ok"], explain("clearing the agent's own text was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


def test_human_types_into_the_agents_repl_then_the_agent_goes_on(scene: Scene) -> None:
    res = call("send", text="python3 -q", timeout=6)
    assert res["ok"] and res["status"] == "ready", explain("the agent's REPL is not ready", res, scene)
    scene.human.line("x = 6 * 7")
    scene.wait_screen(r"^>>> x = 6 \* 7\n>>> ?$")
    res = call("send", text="print(x)", timeout=6)
    assert res["ok"] and res["output"] == "42", explain("the agent's REPL did not answer after the human", res, scene)
    res = call("send", text="exit()", timeout=6)
    assert res["ok"], explain("leaving the agent's own REPL was refused", res, scene)
    assert scene.at_prompt()
    ends_right(scene)


def test_an_attach_while_the_agents_program_starts_is_no_key(scene: Scene) -> None:
    """Attaching a client (a browser tab opened, the tool's own watch client) sets the session's activity
    as a key would.  A look after the agent typed and before any look saw its program must not make the
    program the human's when a tab opens meanwhile."""
    assert call("send", text="true", timeout=6)["status"] == "ready"
    res = call("send", text="sleep 0.3; python3 -q", timeout=0)  # no look of the agent's sees python3 start
    assert res["ok"], explain("the REPL was not started", res, scene)
    typed = int(time.time())
    assert poll(lambda: int(time.time()) > typed, 3)  # tmux keeps whole seconds: the attach comes in a later one
    scene.attach_another(30, 100)
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready" and "python" in (res["program"] or ""), \
        explain("the agent's REPL is not ready", res, scene)
    res = call("send", text="print(6 * 7)", timeout=6)
    assert res["ok"] and res["output"] == "42", explain("the agent's REPL was called the human's", res, scene)
    assert call("send", text="exit()", timeout=6)["ok"]
    assert scene.at_prompt()
    ends_right(scene)


def _repo(scene: Scene) -> str:
    """A git repository with a staged file, and the environment line that makes vim its editor."""
    repo = scene.file("repo")
    subprocess.run(["git", "init", "-q", str(repo)], check=True, timeout=10)
    (repo / "f.txt").write_text("x\n")
    subprocess.run(["git", "-C", str(repo), "add", "f.txt"], check=True, timeout=10)
    return (f"cd {repo} && export GIT_EDITOR='vim -u NONE -N' GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@e "
            "GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@e")


def test_agent_writes_the_message_in_the_editor_its_git_commit_opened(scene: Scene) -> None:
    """git starts the editor as its own child in the same process group: the editor is what waits for keys."""
    res = call("send", text=_repo(scene), timeout=6)
    assert res["ok"] and res["status"] == "ready", res
    res = call("send", text="git commit", timeout=6)
    assert res["ok"] and res["status"] == "ready" and res["program"] == "vim", \
        explain("the editor git opened is not seen", res, scene)
    assert call("keys", keys=["i"])["ok"]
    res = call("send", text="a message from the agent", enter=False, timeout=4)
    assert res["ok"], explain("the agent could not type into its editor", res, scene)
    assert call("keys", keys=["Escape"])["ok"]
    res = call("send", text=":wq", timeout=8)
    assert res["ok"] and res["status"] == "ready" and res["program"] == "bash", \
        explain("the commit did not finish", res, scene)
    log = subprocess.run(["git", "-C", str(scene.file("repo")), "log", "--format=%s"], capture_output=True,
                         text=True, timeout=10, check=True).stdout
    assert log.strip() == "a message from the agent"
    ends_right(scene)


def test_the_editor_the_humans_git_commit_opened_is_theirs(scene: Scene) -> None:
    scene.human.line(_repo(scene))
    assert scene.at_prompt()
    scene.human.line("git commit")
    scene.wait_front("vim")
    res = call("wait", timeout=6)
    assert res["ok"] and res["status"] == "ready" and res["program"] == "vim", \
        explain("the human's editor is not seen", res, scene)
    before = scene.screen()
    refused(call("send", text="iagent text", timeout=2))
    assert scene.screen() == before
    scene.human.press("Escape")
    scene.human.type(":cq")
    scene.human.press("Enter")
    assert scene.at_prompt()
    ends_right(scene)
