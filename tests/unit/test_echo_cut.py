"""Where the echo of what the agent typed ends, on screens recorded where it was hard to tell.

``shared/output.py`` cuts a command's output below the echo of the text the
tool typed.  A shell without a line editor (dash) reads a pasted text's lines
while the terminal still echoes them, so on a busy machine its continuation
prompts land inside the echo, mid-line.  The screen here was recorded by a
scenario test in a loaded run (tests/fixtures/echo/, with its provenance).
"""

from __future__ import annotations

import json
from pathlib import Path

from python.helpers.tmux_tool.shared import output

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "echo" / "dash-heredoc-interleaved.json"


def test_continuation_marks_printed_into_the_echo_are_neither_echo_nor_output() -> None:
    fx = json.loads(FIXTURE.read_text())
    rows = [fx["first_row"], *fx["rows_below"]]
    found = output._echo_end(rows, 0, output._solid(fx["typed"]), output._solid(fx["head"]))
    assert found is not None, "the echo was not found"
    end, marks = found
    assert rows[end:] == rows[-1:], rows[end:]
    prompts = len(fx["typed"].split("\n")) - 1 - marks
    assert output._unprompted(rows[end], prompts, fx["head"]) == fx["output"]


def test_an_echo_that_differs_by_more_than_marks_is_not_the_echo() -> None:
    fx = json.loads(FIXTURE.read_text())
    below = list(fx["rows_below"])
    assert below[5] == "line 5 of the file"
    below[5] = "line 5 of the fiXe"
    rows = [fx["first_row"], *below]
    assert output._echo_end(rows, 0, output._solid(fx["typed"]), output._solid(fx["head"])) is None
