"""What our command printed in the human's terminal, cut from its screen and scrollback.

No marker is ever printed there, so the screen is all there is to read, and
it is read from facts the tool recorded when it typed (:class:`.records.Sent`):

* **where the echo is**: the row the cursor was on (counted from the top of
  tmux's history), the width then, and the text typed.  While tmux still
  holds that row unchanged, the echo is checked there; rows are compared
  without their blanks, so tabs drawn as spaces, lines the terminal wrapped
  and the padding a wide character leaves at the edge change nothing.  A
  resize (rows rewrapped) or a history that dropped its oldest rows moves
  it; the echo is then searched for by its text, from the bottom up.
  A text of several lines may be drawn in part or after continuation
  prompts: it is then found line by line (:func:`_echo_lines`).
* **where the output ends**: at the cursor's whole line (wrapped parts of a
  long prompt included), or at the prompt the human's clear-screen key
  pushed into the history, minus the prompt's upper rows: the rows that
  stood right above the prompt when we typed, found again right above the
  new one.  A row of output that looks like the prompt is output.
* **when it is not whole**: the echo is no longer in tmux's history (the
  history limit dropped it, or the screen was cleared): the result says the
  output was cut (:attr:`Cut.truncated`) and gives what is left.  When the
  end of a tall echo cannot be found, it says so (:attr:`Cut.with_echo`).
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass

from .. import screen
from ..core import masking
from ..core.capping import cap_text
from ..core.config import Config, private_path, write_private
from ..core.errors import TmuxError
from ..core.result import Extra
from ..judgement.state import State
from ..transport.panes import PaneFacts
from ..transport.target import Target
from ..transport.tmux import Tmux
from . import prompt, records
from .look import key_time
from .records import Sent

HEAD_ROWS = 4  # at most this many rows above a prompt can belong to it (multi-line prompts)
TRANSIENT_PROMPT = 40  # at most this many characters of a prompt redrawn short before the echo
# rows above our echo read with it: earlier prompts, to confirm a prompt's upper rows
CONTEXT_ROWS = 60
CONFIRM_PROMPTS = 3
# rows above the cursor searched for the echo before the whole history  # earlier prompts that must
# show the same upper rows
SEARCH_REACHES = (2_000, 20_000)
ECHO_ROWS = 400  # an echo longer than this many rows is not looked for past it
# zsh marks output that ended without a newline with a reverse-video % (# for root) at the end of
# its row.
_EOL_MARK = re.compile(r"\x1b\[[0-9;]*7m[%#]\x1b\[0?m(?:\x1b\[[0-9;]*m)*[ ]*$", re.MULTILINE)
_BLANKS = re.compile(r"\s+")
# zle's mark after the prompt when the text being edited is taller than the screen
ZLE_CUT = ">...."


@dataclass(frozen=True, slots=True)
class Cut:
    """A command's output as the terminal still holds it, whether its start is gone, and whether the
    echo of the text typed may be part of it."""

    text: str = ""
    truncated: bool = False
    # the end of a tall echo could not be found: the text may hold typed lines
    with_echo: bool = False


def deliver(cfg: Config, cut: Cut, facts: PaneFacts | None) -> tuple[str, str | None, Extra]:
    """The output as the agent gets it (capped; the whole of it saved to a file when long), a hint,
    and the fields that go with it: ``output_truncated`` with a hint when its start is gone,
    ``output_with_echo`` when it may begin with the text typed."""
    text = cut.text
    if len(text) > cfg.output_cap:
        saved = private_path(cfg.shared_dir / "outputs") / f"shared-{time.time_ns()}.txt"
        write_private(saved, masking.mask(text) or "")
        text = cap_text(text, cfg.output_cap, str(saved))
    if cut.with_echo:
        return text, ("the shell drew the text typed only in part, so where its echo ends and the "
                      "output begins cannot be told: this is all below its first line, typed lines "
                      "among it. To read the output alone, write the text to a file and run that "
                      "file"), Extra(output_with_echo=True)
    if not cut.truncated:
        return text, None, Extra()
    limit = (
        f" (its history-limit is {facts.history_limit} lines)"
        if facts and facts.history_limit
        else ""
    )
    return (
        text,
        (
            "the output is cut: its start is no longer in the terminal's history"
            + limit
            + ", or the screen "
            "was cleared; this is only its end. To read it whole, run the command again with its "
            "output in a file (COMMAND > /tmp/out.txt 2>&1) and read the file"
        ),
        Extra(output_truncated=True),
    )


def screen_with_output(st: State) -> PaneFacts | None:
    """The pane's facts when a command's output can be cut from its screen, else None.

    Not from a full-screen program's screen; but a multiplexer nested in the
    terminal (tmux, screen) draws its shell's prompt and output there.
    """
    if st.facts is None or (st.facts.alternate and not st.notes.prompt):
        return None
    return st.facts


def output_of(target: Target, st: State) -> Cut:
    """The output of the command we last submitted, as the pane shows it now (empty without one)."""
    facts = screen_with_output(st)
    if facts is None:
        return Cut()
    sent = Sent.parse(facts.sent)
    if not (sent.submitted and sent.text):
        return Cut()
    return command_output(target.tmux, target.pane, sent, facts, st.notes.before)


def command_output(tmux: Tmux, pane: str, sent: Sent, facts: PaneFacts, before: str = "") -> Cut:
    """What our command printed: the joined rows between its echo and the prompt now at the cursor.

    ``before`` is output left of the prompt on the cursor's row (a last line
    without a newline).  Text the terminal never showed (an answer to ``read
    -s``, anything typed after ``stty -echo``) has no echo: then the rows below
    the one we typed on are the output, as long as that row still shows the
    prompt or question we typed at.
    """
    cursor_y = facts.cursor[1]
    typed, head = _solid(sent.text), _solid(sent.head)
    lines = [_solid(line) for line in sent.text.split("\n")]
    # A clear-screen key (C-l) of the human's since we typed: a client's attach since may hide one.
    keyed = key_time(facts, attaches=True) >= int(sent.at)
    start = sent.row - facts.history_size  # the row we typed on, from the top of the screen
    holds = _row_holds(sent, facts)
    top = -facts.history_size
    book = records.uppers(facts.upper)
    learned = book.get(str(sent.shell))
    # From the row we typed on when it holds; else from the bottom up, in growing reaches, so a long
    # history (tens of thousands of rows) is read whole only when the echo is not near its end.
    windows = [max(start - CONTEXT_ROWS, top)] if holds else []
    # the rows below the echo's first line, when its end is not found
    drawn_in_part: list[str] | None = None
    reaches = [max(cursor_y - reach, top) for reach in SEARCH_REACHES]
    for first in dict.fromkeys(
        [*windows, *(r for r in reaches if not windows or r < windows[0]), top]
    ):
        rows = _rows(tmux, pane, str(first), cursor_y)
        blank_cursor, rows = not (rows[-1].strip() if rows else ""), rows[:-1]
        # a reach may begin inside a joined line
        for i in range(len(rows) - 1, -1 if first <= top else 0, -1):
            found = _echo_end(rows, i, typed, head)
            end, marks = found if found is not None else (_echo_lines(rows, i, lines, head), 0)
            if end is None:
                if (
                    drawn_in_part is None
                    and len(lines) > 1
                    and _echo_end(rows, i, lines[0], head) is not None
                ):
                    drawn_in_part = rows[i + 1:]
                continue
            body = _to_cleared_prompt(rows[end:], head, cursor_y) if keyed else rows[end:]
            if blank_cursor:
                body = _to_last_prompt(body, sent.head)
            prompts = len(lines) - 1 - marks  # those not printed into the echo
            if learned is not None:
                return Cut(
                    _unprompted(_body(body, _repeats(learned, body), before), prompts, sent.head)
                )
            upper, proven = _upper(sent, rows[:i + 1], body, head, top=first <= top)
            if proven:
                _learn(
                    tmux,
                    pane,
                    book,
                    sent.shell,
                    list(sent.above[len(sent.above) - upper:]) if upper else [],
                )
            return Cut(_unprompted(_body(body, upper, before), prompts, sent.head))
        if windows and first == windows[0]:
            ours = _rows(tmux, pane, str(start), start, joined=False)
            # typed where the terminal does not echo
            if ours and _solid(ours[0]) == head and start < cursor_y:
                return Cut(_body(_rows(tmux, pane, str(start + 1), cursor_y)[:-1], 0, before))
    if drawn_in_part is not None:
        return Cut(_body(drawn_in_part, 0, before), with_echo=True)
    # The echo is gone: dropped by the history limit, or cleared.  What is left is the end of the
    # output.
    while rows and not rows[0].strip():
        rows = rows[1:]
    return Cut(_body(rows, _repeats(learned or [], rows), before), truncated=True)


def _to_cleared_prompt(body: list[str], head: str, screen_rows: int) -> list[str]:
    """The rows up to the shell's own prompt after our command, when the human's clear-screen key
    (C-l) pushed it into the history with the screen it cleared.

    Such a prompt is a bare prompt row above the screen (at least the
    ``screen_rows`` rows above the cursor follow it), and all that follows it
    is the prompt drawn again: bare prompt rows, blank rows, and the rows that
    stood right above it (a prompt's upper rows).  Any other row that looks
    like the bare prompt is the command's output: a command may print the
    prompt's text, and the output goes on below it.
    """
    for j, row in enumerate(body):
        if not head or _solid(row) != head:
            continue
        after = body[j + 1:]
        if len(after) < screen_rows:
            break  # on the screen, not pushed up by a clear
        upper = body[max(0, j - HEAD_ROWS):j]
        if all(
            not r.strip() or _solid(r) == head or any(prompt.same_row(u, r) for u in upper)
            for r in after
        ):
            return body[:j]
    return body


def _to_last_prompt(body: list[str], head: str) -> list[str]:
    """The rows up to the last prompt below the echo, when the cursor is on a blank row: the shell
    drew its prompt after our command, and what stands on and below it was printed after it (a
    background job's output), not by our command."""
    for j in range(len(body) - 1, -1, -1):
        if head and (body[j].rstrip() == head or body[j].startswith(head + " ")):
            return body[:j]
    return body


def _repeats(rows: list[str], body: list[str]) -> int:
    """``len(rows)`` if the last rows of ``body`` are the proven upper rows ``rows`` of the prompt,
    else 0."""
    k = len(rows)
    if (
        not k
        or k > len(body)
        or not all(prompt.same_row(rows[-1 - m], body[-1 - m]) for m in range(k))
    ):
        return 0
    return k


def _learn(tmux: Tmux, pane: str, book: dict[str, list[str]], shell: int, rows: list[str]) -> None:
    """Keep the proven upper rows of ``shell``'s prompt: later commands need no new proof."""
    if shell and book.get(str(shell)) != rows:
        book = {k: v for k, v in book.items() if k != str(shell)}
        records.save(
            tmux,
            pane,
            records.UPPER,
            dict(list({**book, str(shell): rows}.items())[-prompt.MAX_PROMPTS:]),
        )


def _row_holds(sent: Sent, facts: PaneFacts) -> bool:
    """Can the row we typed on still be found where it was?  Not after a resize (tmux rewraps its
    rows), nor once the history was cleared or cut back by its limit (rows moved up)."""
    if sent.row < 0 or sent.width != facts.width or facts.history_size < sent.history:
        return False
    full = facts.history_limit and facts.history_size >= facts.history_limit * 9 // 10
    return not full and 0 <= sent.row <= facts.history_size + facts.cursor[1]


def _solid(text: str) -> str:
    """Text without its blanks: what two renderings of the same line have in common."""
    return _BLANKS.sub("", text)


def _echo_end(rows: list[str], i: int, typed: str, head: str) -> tuple[int, int] | None:
    """If ``rows[i]`` starts the echo of ``typed``: the index of the row after the echo, and how
    many continuation marks (``>``) the shell printed into it.

    The echo starts after the prompt we typed at (its part on this row, or
    all of a long prompt that wrapped), or after a short prompt: a transient
    prompt (powerlevel10k's, starship's) is redrawn short on the line once it
    is accepted.  A right-hand prompt may follow it on its last row.  A shell
    without a line editor (dash) reads a pasted text's lines while the
    terminal still echoes them, and its continuation prompts land between the
    echo's characters, on a busy machine mid-line.
    """
    if not typed or not 0 <= i < len(rows):
        return None
    first = _solid(rows[i])
    at = first.find(typed[0])
    while at >= 0:
        rest, lead = first[at:], first[:at]
        if (typed.startswith(rest) or rest.startswith(typed)) and (
                head.endswith(lead) or (head and lead.endswith(head))
                or (at <= TRANSIENT_PROMPT and prompt.common_end(lead))):
            seen, n = rest, i + 1
            while (marks := _through(seen, typed)) is None and n < len(rows) and n - i < ECHO_ROWS:
                seen += _solid(rows[n])
                n += 1
            if marks is not None and marks >= 0:
                return n, marks
        at = first.find(typed[0], at + 1)
    return None


def _through(seen: str, typed: str) -> int | None:
    """If ``seen`` (without blanks) holds all of ``typed`` from its start with only continuation
    marks (``>``) between its characters: how many marks, with those right after it.  None while
    ``seen`` holds a start of it only (more rows may finish it), -1 when it is not the echo.  What
    follows on the echo's last row (a right-hand prompt) is not the echo's."""
    k = marks = 0
    for at, ch in enumerate(seen):
        if k == len(typed):
            return marks + len(seen[at:]) - len(seen[at:].lstrip(">"))
        if ch == typed[k]:
            k += 1
        elif ch == ">":
            marks += 1
        else:
            return -1
    return marks if k == len(typed) else None


def _echo_lines(rows: list[str], i: int, lines: list[str], head: str) -> int | None:
    """If ``rows[i]`` starts the echo of a text of several ``lines`` drawn line by line, the index
    of the row after it.

    A line editor draws a text taller than the screen only in part: readline
    the rows that fit, then its last line over the bottom row; zle a ``>....``
    mark after the prompt, then the rows that fit at the end.  Typed without
    bracketed paste, each line after the first follows a continuation prompt
    (``> ``), or the prompt once a command before it ended.  So every row
    below the first holds one of the lines, in order, though some may be
    missing, and the echo ends at the row of the last line.
    """
    if len(lines) < 2 or not 0 <= i < len(rows):
        return None
    first = _solid(rows[i])
    if first != head + ZLE_CUT and _echo_end(rows[i:i + 1], 0, lines[0], head) is None:
        return None
    k = 0
    for n in range(i + 1, min(len(rows), i + ECHO_ROWS)):
        k = next((m for m in range(k + 1, len(lines)) if _holds_line(rows[n], lines[m], head)), -1)
        if k < 0:
            return None
        if k == len(lines) - 1:
            return n + 1
    return None


def _holds_line(row: str, line: str, head: str) -> bool:
    """Does ``row`` show the typed ``line`` (without blanks), after a continuation prompt, the
    prompt, or nothing?  A line drawn over an older row leaves that row's end after it."""
    solid = _solid(row)
    after = prompt.after_continuation(row)
    shown = [solid, _solid(after) if after is not None else None,
             solid[len(head):] if head and solid.startswith(head) else None]
    return any(text is not None and (text.startswith(line) if line else not text) for text in shown)


def _unprompted(text: str, lines: int, head: str) -> str:
    """``text`` without the prompts a shell without a line editor (dash) prints after the terminal
    echoed a text of several lines: one for each line it reads after the first, all before the
    output."""
    if lines < 1 or not head:
        return text
    m = re.match(rf"(?:(?:> |{re.escape(head)} ?)){{{lines}}}", text)
    return text[m.end():] if m else text


def _upper(
    sent: Sent, earlier: list[str], body: list[str], head: str, *, top: bool = False
) -> tuple[int, bool]:
    """How many of the last rows of ``body`` are the upper rows of the prompt now at the cursor (a
    two-line prompt, ``PROMPT_COMMAND`` output), and whether that is proven.

    Candidates repeat, bottom up, the rows that stood right above the prompt
    we typed at (recorded then).  Outputs can end alike (the same command run
    twice), so they count only with proof from the rows up to our echo
    (``earlier``): they stand at the top of the pane (``top``: nothing but
    blank rows was there before the first prompt), or they stand above earlier
    prompts too, and at least one of those saw something else above them
    (another command's output), which a repeated output would not.  A prompt
    at the very top of the pane with nothing above it proves it has no upper
    rows.
    """
    above = list(sent.above)
    ours = len(earlier) - 1  # our echo's row
    if top and ours >= 0 and not any(row.strip() for row in earlier[:ours]):
        return 0, True
    n = 0
    while n < min(HEAD_ROWS, len(above), len(body)) and prompt.same_row(
        above[-1 - n], body[-1 - n]
    ):
        n += 1
    if not n or ours < 0:
        return 0, False
    older = [j for j in range(ours - 1, -1, -1) if head and _solid(earlier[j]).startswith(head)][
        :CONFIRM_PROMPTS
    ]
    for k in range(n, 0, -1):
        if not all(
            prompt.same_row(above[-1 - m], earlier[ours - 1 - m])
            for m in range(k)
            if ours - 1 - m >= 0
        ):
            continue
        if top and not any(row.strip() for row in earlier[:ours - k]):
            return k, True
        context = earlier[ours - 1 - k] if ours - 1 - k >= 0 else ""
        alike = [
            j
            for j in older
            if j - k >= 0
            and all(prompt.same_row(above[-1 - m], earlier[j - 1 - m]) for m in range(k))
        ]
        if len(alike) == len(older) and any(
            not prompt.same_row(context, earlier[j - 1 - k] if j - 1 - k >= 0 else "")
            for j in alike
        ):
            return k, True
    return 0, False


def _body(rows: list[str], upper: int, before: str) -> str:
    body = rows[: len(rows) - upper] if upper else list(rows)
    body.append(before)
    while body and not body[-1].strip():
        body.pop()
    return "\n".join(body)


def _rows(tmux: Tmux, pane: str, start: str, end: int, *, joined: bool = True) -> list[str]:
    """Rows from ``start`` (``-`` = the top of history, ``0`` = the top of the screen) to row
    ``end`` (joined: a line tmux wrapped is one row, and the last row is the whole line ``end`` is
    part of)."""
    try:
        out = tmux.cmd(
            "capture-pane",
            "-p",
            "-e",
            *(["-J"] if joined else []),
            "-S",
            start,
            "-E",
            str(end),
            "-t",
            pane,
        )
    except TmuxError:
        return []  # a vanished pane has no output to give
    return screen.clean_scrollback(_EOL_MARK.sub("", out), trim=False)
