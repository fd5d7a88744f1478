"""``ask`` with input of several lines: the answer is what the REPL printed, never the echo of the input."""

from __future__ import annotations

import pytest

from python.tools.tmux_tool import call


@pytest.mark.parametrize(("program", "prompt", "answer"), [
    ("python3", "def f(x):\n    return x * 2\n\nf(21)", "42"),
    ("python3", "x = 5\nprint(x)\nprint(x * 3)", "5\n15"),
    ("python3", "for i in range(3):\n    print(i)\n", "0\n1\n2"),
    ("python3", "class A:\n    def g(self):\n        return 42\n\nA().g()", "42"),
    # Output whose rows look like the echo's prompts, and an input row wider than the terminal.
    ("python3", "s = '''a\n... b\n>>> c'''\nprint(s)", "a\n... b\n>>> c"),
    ("python3", "total = " + " + ".join(["1"] * 80) + "\ntotal", "80"),
    ("sqlite3", "create table t(a);\ninsert into t values (1), (2);\nselect sum(a) from t;", "3"),
])
def test_multi_line_ask_returns_only_the_output(private_socket: str, program: str, prompt: str,
                                                answer: str) -> None:
    assert call("start", program=program, session="multi")["ok"]
    res = call("ask", session="multi", prompt=prompt)
    assert res["ok"] and res["status"] == "ready", res
    assert res["output"] == answer, res
