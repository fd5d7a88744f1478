"""``start`` / ``ask`` / ``exit`` with real REPLs and editors in private sessions."""

from __future__ import annotations

import os
import re
import shlex
import signal
import subprocess
import time
from pathlib import Path

import pytest

from python.helpers.tmux_tool.drive import launch
from python.helpers.tmux_tool.sessions import observe
from python.tools.tmux_tool import call
from tests.conftest import poll
from tests.gates import Gate


@pytest.mark.parametrize(("program", "prompt", "answer"), [
    ("python3", "print(6 * 7)", "42"),
    ("node", "[1, 2, 3].map(x => x * 2)", "[ 2, 4, 6 ]"),
    ("sqlite3", "select 1 + 2;", "3"),
])
def test_start_ask_exit(private_socket: str, program: str, prompt: str, answer: str) -> None:
    started = call("start", program=program, session="repl")
    assert started["ok"] and started["status"] == "ready" and started["program"] == program, started
    res = call("ask", session="repl", prompt=prompt)
    assert res["ok"] and res["status"] == "ready" and res["output"] == answer, res
    assert call("status", session="repl")["program"] == program
    gone = call("exit", session="repl")
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, gone
    assert call("status", session="repl")["program"] == "bash"


def test_ask_waits_for_slow_output_to_finish(private_socket: str) -> None:
    assert call("start", program="python3", session="py")["ok"]
    res = call("ask", session="py", prompt="import time; [print(i, flush=True) or time.sleep(0.4) for i in range(4)] and None")
    assert res["output"].split() == ["0", "1", "2", "3"], res


def test_generated_names_are_safe_and_distinct(private_socket: str) -> None:
    a = call("start", program="python3")
    b = call("start", program="python3")
    assert a["ok"] and b["ok"] and a["session"] != b["session"]
    for name in (a["session"], b["session"]):
        assert name.startswith("python3-") and all(c.isalnum() or c in "-_" for c in name)


def test_start_refuses_existing_session_and_shared(private_socket: str) -> None:
    assert call("start", program="python3", session="dup")["ok"]
    again = call("start", program="python3", session="dup")
    assert not again["ok"] and "already exists" in again["error"]
    assert not call("start", program="python3", session="shared")["ok"]


def test_program_that_dies_while_starting_is_an_error(private_socket: str) -> None:
    res = call("start", program="python3 -c 'import sys; sys.exit(3)'", session="dies", timeout=10)
    assert not res["ok"] and "ended while starting" in res["error"]


def test_crash_after_start_is_reported(private_socket: str) -> None:
    assert call("start", program="python3", session="crash")["ok"]
    call("send", session="crash", text="import os; os.kill(os.getpid(), 9)", timeout=3)
    st = call("status", session="crash")
    assert st["status"] == "error" and st["exit_code"] == 137, st


def test_arguments_are_never_interpolated_into_a_shell(private_socket: str, tmp_path: Path) -> None:
    canary = tmp_path / "canary"
    res = call("start", program="python3", session="inj",
               args=["-c", f"import time; time.sleep(5) # $(touch {canary}); `touch {canary}`"], timeout=2)
    assert res["session"] == "inj"
    assert not canary.exists()


def test_vim_is_ready_and_exits_the_right_way(private_socket: str, tmp_path: Path) -> None:
    res = call("start", program="vim", session="ed", args=["-u", "NONE", "-N", str(tmp_path / "f.txt")])
    assert res["ok"] and res["status"] == "ready" and res["program"] == "vim", res
    gone = call("exit", session="ed")
    assert gone["ok"] and gone["status"] == "ready", gone



SLOW_READER = """#!/usr/bin/env python3
import os, sys, termios, time, tty
tty.setcbreak(sys.stdin.fileno())  # keys unechoed, one at a time, as a full-screen program reads them
print("Overwrite the file? [y/n] ", end="", flush=True)
go = os.path.join(os.path.dirname(sys.argv[0]), "go")
while not os.path.exists(go):  # at work before it reads: what is typed now waits in the terminal
    time.sleep(0.01)
print(f"you said {sys.stdin.read(1)}")
print("Press Enter to finish ", end="", flush=True)
sys.stdin.read(1)
"""


def test_keys_the_program_has_not_read_yet_keep_it_busy(private_socket: str, tmp_path: Path) -> None:
    """A key typed to a question waits in the terminal until the program reads it; until then
    the question on the screen is out of date: ``busy``, not blocked on it."""
    script = tmp_path / "slow-reader"
    script.write_text(SLOW_READER)
    script.chmod(0o755)
    started = call("start", program=str(script), session="slow")
    assert started["status"] == "blocked" and "Overwrite the file?" in started["question"], started
    subprocess.run(["tmux", "-L", private_socket, "send-keys", "-t", "=slow:", "y"], check=True, timeout=10)
    unread = call("status", session="slow")
    Gate(tmp_path / "go").open()  # the program gets to work on its reading only now
    assert unread["status"] == "busy" and "not read" in unread["evidence"], unread
    res = call("wait", session="slow", until="ready", timeout=10)
    assert res["status"] == "blocked" and "Press Enter to finish" in res["question"], res
    assert "you said y" in res["screen"], res


NOTICE = ("import os, sys, threading, time\n"
          "def later(go):\n"
          "    while not os.path.exists(go): time.sleep(0.01)\n"
          "    sys.stdout.write('\\x1b7\\x1b[1;1Ha notice of its own\\x1b8'); sys.stdout.flush()\n"
          "\n")


def test_an_idle_program_that_changes_its_screen_between_two_looks_is_ready(
        private_socket: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An idle CLI redraws now and then by itself (Claude Code shows a notice some seconds after a turn and
    takes it away later): ``status`` whose two looks fall on either side of such a change looks again,
    and says ``ready``, not "still changing".  A loaded machine stretches the time between the two looks,
    so a change falls between them often there; here it is made to fall there every time."""
    assert call("start", program="python3", session="idle")["status"] == "ready"
    gate = Gate(tmp_path / "go")
    begin = f"threading.Thread(target=later, args=({str(gate.path)!r},), daemon=True).start()"
    for line in [*NOTICE.splitlines(), begin]:
        assert call("send", session="idle", text=line, timeout=5)["ok"]
    assert call("wait", session="idle", until="ready", timeout=5)["status"] == "ready"

    def shown() -> str:
        return subprocess.run(["tmux", "-L", private_socket, "capture-pane", "-p", "-t", "=idle:"],
                              capture_output=True, text=True, timeout=10, check=False).stdout

    class Between:
        """The clock of the look, but the pause between the two looks of ``status`` lets the change happen."""

        def __getattr__(self, name: str) -> object:
            return getattr(time, name)

        def sleep(self, seconds: float) -> None:
            if not gate.path.exists():
                gate.open()
                deadline = time.monotonic() + 5
                while "a notice of its own" not in shown() and time.monotonic() < deadline:
                    time.sleep(0.01)
            time.sleep(seconds)

    monkeypatch.setattr(observe, "time", Between())
    res = call("status", session="idle")
    assert gate.path.exists() and "a notice of its own" in shown()
    assert res["status"] == "ready", res["evidence"]
    call("kill", session="idle")


@pytest.mark.parametrize("program", ["top", "htop"])
def test_a_monitor_is_started_once_it_draws_its_frame(private_socket: str, program: str) -> None:
    """A monitor is busy for ever (it redraws by itself): start must answer once it is up, not at its timeout."""
    started = time.monotonic()
    res = call("start", program=program, session="mon", timeout=20)
    took = time.monotonic() - started
    assert res["ok"] and res["status"] == "busy" and res["program"] == program, res
    assert "redraws by itself" in res["evidence"], res  # its frame is up, not just its process
    assert took < 10, f"start waited {took:.1f}s for a monitor that was up"
    gone = call("exit", session="mon")
    assert gone["ok"] and gone["status"] == "ready", gone


@pytest.mark.parametrize(("program", "args", "shows"), [
    ("man", ["ls"], r"LS\(1\)"),
    ("git", ["-C", str(Path(__file__).parent), "log"], r"^commit [0-9a-f]{40}"),
])
def test_a_pager_program_started_opens_its_pager(private_socket: str, program: str, args: list[str],
                                                 shows: str) -> None:
    """Private shells page with cat (run's output is whole); a pager started on purpose still pages."""
    res = call("start", program=program, args=args, session="pg", timeout=20)
    assert res["ok"] and res["status"] == "blocked", res
    assert re.search(shows, res["screen"], re.MULTILINE), res["screen"]
    gone = call("exit", session="pg")
    assert gone["ok"] and gone["status"] == "ready", gone


@pytest.mark.parametrize("shell", ["bash", "zsh", "fish"])
def test_a_shell_started_as_a_program(private_socket: str, shell: str) -> None:
    """`start bash` (or zsh, fish) is a program like any other: ready at its prompt, asked, left with exit."""
    res = call("start", program=shell, session="sh", timeout=15)
    assert res["ok"] and res["status"] == "ready", res
    asked = call("ask", session="sh", prompt="printf 'from-%s\\n' 42", timeout=15)
    assert asked["ok"] and asked["output"] == "from-42", asked
    gone = call("exit", session="sh", timeout=15)
    assert gone["ok"] and gone["status"] == "ready", gone


def _alive(pid: int) -> bool:
    """Is ``pid`` a live process (not a zombie)?"""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


# A daemon the way Node's `spawn(..., {detached: true}).unref()` makes one: a session of its own
# (setsid), its parent not waiting for it; and a plain child that outlives nothing by itself.
DAEMONS = ("import subprocess; d = subprocess.Popen(['sleep', '600'], start_new_session=True); "
           "c = subprocess.Popen(['sleep', '601']); print(d.pid, c.pid)")


@pytest.mark.parametrize("leave", ["exit", "kill"])
def test_what_a_started_program_left_running_ends_with_it(private_socket: str, leave: str) -> None:
    """A coding CLI's daemon (Cline's) outlives the CLI in a session of its own: ``exit`` and
    ``kill`` end it with the program, by the pane's environment it still carries, and say so; a
    daemon started in another pane is not the program's and is kept (one started in the same pane
    before the program: ``tests/integration/test_born_in.py``)."""
    own = "import subprocess; print(subprocess.Popen(['sleep', '602'], start_new_session=True).pid)"
    kept = int(call("run", session="elsewhere", command=f"python3 -c {shlex.quote(own)}", timeout=10)["output"])
    assert call("start", program="python3", session="daemons")["ok"]
    asked = call("ask", session="daemons", prompt=DAEMONS)
    daemon, child = (int(pid) for pid in asked["output"].split())
    assert _alive(daemon) and _alive(child)
    if leave == "exit":
        gone = call("exit", session="daemons")
        assert gone["ok"] and gone["status"] == "ready", gone
        assert sorted(gone["ended"]) == sorted([f"sleep (pid {daemon})", f"sleep (pid {child})"]), gone
        assert "what it left running was ended" in gone["evidence"], gone
    else:
        assert call("kill", session="daemons")["ok"]
    assert poll(lambda: not _alive(daemon) and not _alive(child), 5), (daemon, child)
    assert _alive(kept), "a daemon the shell started before the program was ended"
    os.kill(kept, signal.SIGKILL)
    call("kill", session="elsewhere")


SLOW_TO_LEAVE = """#!/usr/bin/env python3
# A full-screen program that hears Ctrl+D at once, then takes seconds to clean up; a Ctrl+C that
# comes meanwhile ends it with 130, as a signal would.
import os, select, sys, termios, time, tty
old = termios.tcgetattr(0)
tty.setraw(0)
os.write(1, b"\\x1b[?1049h\\x1b[Hslow to leave > ")
while os.read(0, 1) != b"\\x04":
    pass
os.write(1, b"\\x1b[?1049lcleaning up\\r\\n")
code, end = 0, time.monotonic() + 3 * %(asked)s
while code == 0 and (left := end - time.monotonic()) > 0:
    if select.select([0], [], [], left)[0] and b"\\x03" in os.read(0, 64):
        code = 130
termios.tcsetattr(0, termios.TCSADRAIN, old)
sys.exit(code)
"""


def test_a_program_that_heard_its_exit_key_is_left_to_end_by_itself(private_socket: str, tmp_path: Path) -> None:
    """A CLI with no profile leaves with Ctrl+D, and Ctrl+C only when deaf to it: one whose screen
    answered the key is on its way out, however long its clean-up takes on a busy machine, and
    ends with its own exit code, not a Ctrl+C's."""
    script = tmp_path / "slow-to-leave"
    script.write_text(SLOW_TO_LEAVE % {"asked": launch.ASKED_AGAIN})
    script.chmod(0o755)
    call("start", program=str(script), session="slow", timeout=3)
    assert poll(lambda: "slow to leave" in (call("read", session="slow").get("screen") or ""), 10)
    gone = call("exit", session="slow", timeout=30)
    assert gone["ok"] and gone["exit_code"] == 0, gone


BUSY_AFTER_START = """#!/usr/bin/env python3
# A chat CLI of no profile, between two rules: once the gate opens, it works on something of its
# own for 5 s (on the CPU, its screen unchanged), as Cline does after start, longer on a busy
# machine; between times it waits in select, as an event loop does, not in a read of the tty.
import os, select, sys, time
RULE = "\\u2500" * 60
def band():
    sys.stdout.write(RULE + "\\n> \\n" + RULE + "\\n  ? for shortcuts\\x1b[2A\\x1b[3G")
    sys.stdout.flush()
sys.stdout.write("A chat CLI of no profile\\n\\n")
band()
worked = False
while True:
    if not worked and os.path.exists(sys.argv[1]):
        end = time.monotonic() + 5
        while time.monotonic() < end:
            pass
        worked = True
    if select.select([0], [], [], 0.05)[0]:
        line = sys.stdin.readline()
        if not line:
            break
        sys.stdout.write("\\x1b[J\\nThe answer to " + line.strip() + " is 42.\\n\\n")
        band()
"""


def test_ask_waits_for_a_cli_at_work_of_its_own_with_no_turn_open(private_socket: str, tmp_path: Path) -> None:
    """Ready at start, then only the kernel sees the CLI at work behind its idle input area: no turn
    of ask is open, so ask waits for that work to end (bounded) and takes its turn, instead of
    refusing as if an earlier turn still ran."""
    script = tmp_path / "chat-cli"
    script.write_text(BUSY_AFTER_START)
    script.chmod(0o755)
    gate = Gate(tmp_path / "work")
    started = call("start", program=str(script), args=[str(gate.path)], session="chat", timeout=15)
    assert started["ok"] and started["status"] == "ready", started
    gate.open()
    assert poll(lambda: call("status", session="chat")["status"] == "busy", 10), "the kernel never saw its work"
    res = call("ask", session="chat", prompt="six times seven", timeout=30)
    assert res["ok"] and res["output"] == "The answer to six times seven is 42.", res
    call("kill", session="chat")
