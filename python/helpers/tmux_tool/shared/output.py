"""What our command printed in the human's terminal, cut from its screen and scrollback.

The echo of what we typed is found by its text and the output ends at the
prompt now at the cursor; wrapped lines are joined and a multi-line prompt's
upper rows are left out.  No marker is ever printed there, so the screen is
all there is to read.
"""

from __future__ import annotations

import re

from .. import screen
from ..core.errors import TmuxError
from ..judgement.state import State
from ..transport.panes import PaneFacts
from ..transport.target import Target
from ..transport.tmux import Tmux
from . import prompt
from .records import Sent

HEAD_ROWS = 4  # at most this many rows above a prompt can belong to it (multi-line prompts)
TRANSIENT_PROMPT = 40  # at most this many characters of a prompt redrawn short before the echo
# zsh marks output that ended without a newline with a reverse-video % (# for root) at the end of its row.
_EOL_MARK = re.compile(r"\x1b\[[0-9;]*7m[%#]\x1b\[0?m(?:\x1b\[[0-9;]*m)*[ ]*$", re.MULTILINE)


def screen_with_output(st: State) -> PaneFacts | None:
    """The pane's facts when a command's output can be cut from its screen, else None.

    Not from a full-screen program's screen; but a multiplexer nested in the
    terminal (tmux, screen) draws its shell's prompt and output there.
    """
    if st.facts is None or (st.facts.alternate and not st.extra.get("prompt")):
        return None
    return st.facts


def output_of(target: Target, st: State) -> str:
    """The output of the command we last submitted, as the screen shows it now ("" without one)."""
    facts = screen_with_output(st)
    if facts is None:
        return ""
    sent = Sent.parse(facts.sent)
    if not (sent.submitted and sent.text):
        return ""
    return command_output(target.tmux, target.pane, sent, facts, st.extra.get("before", ""))


def command_output(tmux: Tmux, pane: str, sent: Sent, facts: PaneFacts, before: str = "") -> str:
    """What our command printed: the joined rows between its echo and the prompt now at the cursor.

    The echo is found by its text, not by a remembered row, so a clear, a
    resize or the alternate screen in between cannot shift the cut.  Rows
    just above the prompt that repeat just above the echo are the prompt's
    own (a two-line prompt, ``PROMPT_COMMAND`` output) and are left out.
    Text the terminal never showed (an answer to ``read -s``, anything typed
    after ``stty -echo``) has no echo: then the rows below the one we typed
    on are the output, as long as that row still shows the prompt or
    question we typed at (nothing cleared, scrolled away or rewrapped it).
    """
    cursor_y = facts.cursor[1]
    rows = _rows(tmux, pane, "-", cursor_y - 1)  # up to the row above the cursor line (the prompt)
    text = sent.text
    first = next((ln for ln in text.split("\n") if ln.strip()), "").strip()
    echo = _echo_row(rows, sent.head, first)
    if echo is None:
        ours = sent.row - facts.history_size  # the row we typed on, from the top of the screen
        if sent.row >= 0 and sent.width == facts.width and facts.history_size >= sent.history \
                and ours < cursor_y and "".join(_rows(tmux, pane, str(ours), ours)).strip().startswith(sent.head):
            below = _rows(tmux, pane, str(ours + 1), cursor_y - 1) if ours + 1 < cursor_y else []
            return _trim([*below, before])
        # Our echo scrolled away or was cleared: the screen is all we have.
        return _trim([*(_rows(tmux, pane, "0", cursor_y - 1) if cursor_y > 0 else []), before])
    body = rows[echo + _echo_rows(rows[echo:], text):]
    # Rows that stand above every prompt on record (a two-line prompt, PROMPT_COMMAND) are the prompt's.
    starts = [i for i, row in enumerate(rows) if sent.head and row.strip().startswith(sent.head)]
    cut = min((_same_rows_above(rows, i, body) for i in starts), default=0)
    return _trim([*body[: len(body) - cut], before])


def _echo_row(rows: list[str], head: str, first: str) -> int | None:
    """The last row that echoes ``first`` (our text's first line) after the prompt we typed at, or
    after a short prompt: a transient prompt (powerlevel10k's, starship's) is redrawn short on the
    line once it is accepted, so the echo no longer starts with ``head``.
    """
    if not first:
        return None
    for i in range(len(rows) - 1, -1, -1):
        row = rows[i].strip()
        if row.startswith(head) and first in row[len(head):]:
            return i
        at = row.find(first)
        if 0 < at <= TRANSIENT_PROMPT and prompt.common_end(row[:at]):
            return i
    return None


def _echo_rows(rows: list[str], text: str) -> int:
    """How many rows the echo of ``text`` takes (a line editor may break a long line itself)."""
    tail = "".join(text.split())[-40:]
    seen = ""
    for n, row in enumerate(rows[:200], start=1):
        seen += "".join(row.split())
        if tail in seen:
            return n
    return max(1, text.rstrip("\n").count("\n") + 1)


def _same_rows_above(rows: list[str], at: int, body: list[str]) -> int:
    """How many rows right above ``rows[at]`` repeat the last rows of ``body`` (at most HEAD_ROWS)."""
    n = 0
    while n < min(HEAD_ROWS, at, len(body)) and prompt.same_shape(rows[at - 1 - n], body[len(body) - 1 - n]):
        n += 1
    return n


def _trim(body: list[str]) -> str:
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body)


def _rows(tmux: Tmux, pane: str, start: str, end: int) -> list[str]:
    """Rows from ``start`` (``-`` = the top of history, ``0`` = the top of the screen) to row ``end``."""
    try:
        out = tmux.cmd("capture-pane", "-p", "-e", "-J", "-S", start, "-E", str(end), "-t", pane)
    except TmuxError:
        return []  # a vanished pane has no output to give
    return screen.clean_scrollback(_EOL_MARK.sub("", out))
