"""Line programs no profile knows, judged from the kernel where their screens say nothing.

``bc`` and ``ed`` draw no prompt at all, ``tclsh`` a bare ``%``, ``gdb`` and
Perl's debugger a prompt of their own; ``cat`` and a script's silent
``input()`` wait for a line with nothing on the screen.  A screen cannot
tell such a program waiting from one at work, but the kernel can: asleep on
a read of its terminal, or in a poll of nothing but terminals with no
timeout, only a key wakes it.  So ``start`` finds each ready, ``ask`` gives
exactly what it printed for that input (also when the output repeats the
input, or is nothing), ``run`` of a command that waits so comes back
``blocked`` long before its timeout, and a program whose poll also ends by a
timer (``top``) or waits on something besides the terminal stays ``busy``.
"""

from __future__ import annotations

import shlex
import time
from pathlib import Path

import pytest

from python.tools.tmux_tool import call

TURNS = {
    # program and arguments -> (input, exactly what it prints) in order
    ("bc", "-q"): (("6*7", "42"), ("5", "5"), ("x=5", ""), ("x", "5"), ("scale=3; 1/3", ".333"),
                   ("6*7", "42")),
    ("tclsh",): (("expr {6*7}", "42"), ('puts "a\\nb"', "a\nb"), ("puts 42", "42"), ("set x 5", "5")),
    ("gdb", "-q", "-nx"): (("p 6*7", "$1 = 42"), ("p 6*7", "$2 = 42"), ("echo\\n", "")),
    ("perl", "-de", "0"): (("p 6*7", "42"), ('print "a\\nb\\n"', "a\nb"), ("p 6*7", "42")),
    ("ed",): (("=", "0"), ("a\nline one\nline two\n.", ""), (",p", "line one\nline two"), ("=", "2"),
               ("w /dev/null", "18")),
}


@pytest.mark.parametrize("argv", list(TURNS), ids=[a[0] for a in TURNS])
def test_an_unknown_line_program_is_started_asked_and_left(private_socket: str, argv: tuple[str, ...]) -> None:
    started = call("start", program=argv[0], args=list(argv[1:]), session="line", timeout=20)
    assert started["ok"] and started["status"] == "ready" and started["profile"] == "generic", started
    for text, printed in TURNS[argv]:
        res = call("ask", session="line", prompt=text, timeout=15)
        assert res["ok"] and res["status"] == "ready", res
        assert res["output"] == printed, f"{text!r} printed {printed!r}, ask gave {res['output']!r}"
    gone = call("exit", session="line", timeout=15)
    assert gone["ok"] and gone["status"] == "ready" and gone["exit_code"] == 0, gone
    assert call("status", session="line")["program"] == "bash"


def test_a_program_without_a_prompt_says_the_kernel_told(private_socket: str) -> None:
    started = call("start", program="bc", args=["-q"], session="bc", timeout=20)
    assert started["ok"] and started["status"] == "ready", started
    assert "the kernel has it asleep on its terminal" in started["evidence"], started
    call("kill", session="bc")


@pytest.mark.parametrize("command", [
    "cat",
    "python3 -c 'import sys; print(\"got\", sys.stdin.readline().strip())'",
    "read -r line; echo \"got $line\"",
])
def test_a_command_waiting_silently_for_a_line_comes_back_blocked(private_socket: str, command: str) -> None:
    begun = time.monotonic()
    res = call("run", command=command, session="scratch", timeout=30)
    assert res["ok"] and res["status"] == "blocked", res
    assert time.monotonic() - begun < 15, "run waited for its timeout"
    answered = call("send", session="scratch", text="hello", timeout=5)
    assert answered["ok"], answered
    if command == "cat":
        answered = call("keys", session="scratch", keys="C-d", timeout=5)
    # the run's result is given once: to the typing that saw it end, else to a wait
    done = answered if answered["exit_code"] is not None else call("wait", session="scratch", timeout=15)
    assert done["ok"] and done["exit_code"] == 0 and done["output"].splitlines()[-1] in ("hello", "got hello"), done


# Programs that look the same on the screen but are not waiting only for a key.
WORKING = {
    # its poll ends every second by itself
    "timer": "import select, sys\nwhile True:\n    select.select([sys.stdin], [], [], 1.0)\n",
    # it waits on a pipe of its own beside the terminal: a thread may write to it any moment
    "pipe": "import os, select, sys\nr, w = os.pipe()\nselect.select([sys.stdin, r], [], [])\n",
}


@pytest.mark.parametrize("kind", list(WORKING))
def test_a_program_a_timer_or_another_descriptor_can_wake_stays_busy(private_socket: str, kind: str,
                                                                     tmp_path: Path) -> None:
    script = tmp_path / f"{kind}.py"
    script.write_text(WORKING[kind])
    res = call("run", command=f"python3 {shlex.quote(str(script))}", session="scratch", timeout=4)
    assert res["ok"] and res["status"] == "busy", res
    assert call("interrupt", session="scratch", timeout=10)["ok"]
