"""Cut the answer to the last submitted input out of a screen.

Two layouts share the same problem - find where our input was echoed, then
keep what the program wrote after it and nothing of the echo itself:

* shells and REPLs (:func:`cut_reply`): a prompt row echoing the input
  (wrapped over several rows, continued on ``... `` rows, or several
  statements each on a prompt of its own), the output, then a fresh bare
  prompt at the bottom.  The answer is every row between the first echo row
  and that final prompt that is not part of the echo.  If the screen does not
  end at a bare prompt the program is not done, and there is no answer yet.
* AI CLIs (:func:`last_echo`, :func:`echo_rows`, :func:`tidy`): the echo of
  the prompt in the transcript, then answer blocks; each CLI's profile says
  which blocks are answer text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from ..screen.cells import text_width
from ..screen.snapshot import Snapshot

Split = Callable[[str], "str | None"]
"""Given a row, the text typed after a prompt at its start, or None."""

QUOTE_BARS = "▎▍▌▏│┃"
QUOTE_ROW = re.compile(rf"^(?P<indent> *)[{QUOTE_BARS}](?: (?P<text>.*))?$")


def squash(text: str) -> str:
    """Text without any whitespace, for comparing wrapped echoes with what was sent."""
    return "".join(text.split())


def _echo_start(rows: list[str], end: int, primary: Split, submitted: str | None) -> int | None:
    first = squash(submitted.strip().splitlines()[0]) if submitted and submitted.strip() else ""
    for i in range(end - 1, -1, -1):
        typed = primary(rows[i])
        if typed is None:
            continue
        squashed = squash(typed)
        wrapped = bool(squashed) and first.startswith(squashed)
        if not first or wrapped or squashed.startswith(first):
            return i
    return None


def cut_reply(
    lines: Sequence[str],
    *,
    primary: Split,
    continuation: Split | None = None,
    submitted: str | None = None,
) -> str | None:
    """The output rows between the echo of the last input and the final bare prompt.

    ``primary``/``continuation`` recognise prompt rows.  With ``submitted``
    the echo starts at the last prompt row whose typed text starts that
    input; from there every prompt row, continuation row or wrapped row that
    continues the submitted text (in order) is echo and left out, so a
    multi-line input (a ``def``, then a call) leaves only what it printed.

    >>> rows = [">>> def f(x):", "...     return x * 2", "... ", ">>> f(21)", "42", ">>> "]
    >>> cut_reply(rows, primary=lambda r: r[4:] if r.startswith(">>>") else None,
    ...           continuation=lambda r: r[4:] if r.startswith("...") else None,
    ...           submitted="def f(x):\\n    return x * 2\\n\\nf(21)")
    '42'
    """
    rows = [r.rstrip() for r in lines]
    while rows and not rows[-1]:
        rows.pop()
    if not rows:
        return None
    end = len(rows) - 1
    if primary(rows[end]) != "":
        return None
    start = _echo_start(rows, end, primary, submitted)
    if start is None:
        return None
    want = squash(submitted or "")
    echoed = squash(primary(rows[start]) or "")
    kept: list[str] = []
    for row in rows[start + 1 : end]:
        typed = primary(row)
        if typed is None and continuation is not None:
            typed = continuation(row)
        remaining = want[len(echoed):] if want.startswith(echoed) else ""
        if typed is not None and (not want or remaining.startswith(squash(typed))):
            echoed += squash(typed)
            continue
        if typed is None and remaining and squash(row) and remaining.startswith(squash(row)):
            echoed += squash(row)  # the wrapped rest of a long echoed row
            continue
        kept.append(row)
    return "\n".join(kept).strip("\n")


def after_echo(lines: Sequence[str], submitted: str | None, prompt_max: int) -> str | None:
    """The output of a line program whose prompt is not known beforehand, from the rows of its turn.

    ``lines`` start at the row the input was typed on.  The echo is the first
    row holding the input's first line after at most ``prompt_max`` columns
    of prompt (``(gdb) ``, ``% ``, ``  DB<1> ``, none for ``bc``); the rows
    after it that end with the input's next lines, in order, are the rest
    of its echo.  What follows is the output, up to a last row drawn as the
    same prompt again (its numbers may count on: ``DB<2>``), which is left
    out.  None when no such echo is found.

    >>> after_echo(["% expr {6*7}", "42", "%"], "expr {6*7}", 24)
    '42'
    >>> after_echo(["6*7", "42"], "6*7", 24)
    '42'
    >>> after_echo(["  DB<1> p 6*7", "42", "", "  DB<2>"], "p 6*7", 24)
    '42'
    """
    texts = [line.strip() for line in (submitted or "").strip().splitlines()]
    rows = [r.rstrip() for r in lines]
    while rows and not rows[-1]:
        rows.pop()
    if not texts or not texts[0]:
        return None
    echo = next((i for i, r in enumerate(rows)
                 if r.endswith(texts[0]) and len(r) - len(texts[0]) <= prompt_max), None)
    if echo is None:
        return None
    prompt = _shape(rows[echo][: len(rows[echo]) - len(texts[0])])
    body = rows[echo + 1:]
    for text in texts[1:]:
        if body and text and body[0].endswith(text):
            body.pop(0)
    if body and prompt and _shape(body[-1]) == prompt:
        body.pop()
    return "\n".join(body).strip("\n")


def _shape(prompt: str) -> str:
    """A prompt with its counts left out: ``DB<1>`` and ``DB<2>`` are one prompt."""
    return re.sub(r"\d+", "#", prompt.strip())


def quoted(row: str) -> str | None:
    """A row of a block quote written back as Markdown (``> text``), or None when ``row`` is none.

    CLIs draw a quote's rows behind a bar (Claude Code ``▎``, OpenCode
    ``│``), often dim or italic like thinking, which an answer leaves out; a
    quote belongs to the answer.  One bar at the left and none further on: a
    table row has several.

    >>> quoted("  ▎ Measure twice, cut once.")
    '  > Measure twice, cut once.'
    >>> quoted("  │ a │ b │") is None
    True
    """
    m = QUOTE_ROW.match(row)
    text = (m.group("text") or "") if m else ""
    if m is None or any(bar in text for bar in QUOTE_BARS):
        return None
    return f"{m.group('indent')}> {text}".rstrip()


def echo_rows(rows: Sequence[str], start: int, prompt: str | None,
              content: Callable[[str], str]) -> int:
    """How many rows from ``start`` the echo of ``prompt`` takes.

    ``content`` strips the CLI's echo decoration from a row.  Rows are taken
    while their text continues the prompt (a wrapped or multi-line echo);
    blank rows inside a multi-line prompt are taken too.  A CLI that shows a
    long paste shortened takes one row.
    """
    want = squash(prompt or "")
    got = squash(content(rows[start]))
    i = start + 1
    while want and len(got) < len(want) and i < len(rows):
        more = squash(content(rows[i]))
        if more and not want.startswith(got + more):
            break
        got += more
        i += 1
    return i - start


def last_echo(rows: Sequence[str], stop: int, is_echo: Callable[[str], str | None],
              prompt: str | None, *, strict: bool = False) -> int | None:
    """The last echo row above ``stop`` that starts ``prompt``.

    Without ``strict`` the last echo row of any prompt stands in when none
    starts ``prompt`` (a CLI may show a long paste shortened).
    """
    want = squash(prompt or "")
    fallback = None
    for y in range(min(stop, len(rows)) - 1, -1, -1):
        text = is_echo(rows[y])
        if text is None:
            continue
        got = squash(text)
        if not want or (got and (want.startswith(got) or got.startswith(want[: len(got)]))):
            return y
        if fallback is None and not strict:
            fallback = y
    return fallback


NUMBERED = re.compile(r"^( *)(\d+)(?: |$)")
FENCE = re.compile(r"^( *)(```|~~~)")


def unnumbered(rows: Sequence[str], y: int, end: int, margin: int | None = None) -> list[str]:
    """``rows`` with the line numbers of code blocks in ``[y, end)`` taken off.

    Gemini CLI and Qwen Code write a code block's lines behind their numbers,
    right-aligned in a column one wider than the largest (``   1 def f():``)
    that starts at the text's ``margin`` (by default the least indentation of
    the rows that start with no digit); a line too long for its row goes on
    under a blank number.  A block is told by numbers that count up from 1,
    all ending in the column that places them so: an answer's own line
    starting with a digit is left alone.

    >>> unnumbered(["  Code:", "   1 def f():", "   2     return 1", "  1 apple"], 0, 4)
    ['  Code:', '  def f():', '      return 1', '  1 apple']
    """
    if margin is None:
        margin = min((len(r) - len(r.lstrip(" ")) for r in rows[y:end]
                      if r.strip() and not r.lstrip()[:1].isdigit()), default=None)
    out = list(rows)
    i = y
    while i < end:
        m = NUMBERED.match(rows[i])
        if m is None or m.group(2) != "1":
            i += 1
            continue
        column = m.end(2)  # where every number of the block ends
        number, stop = 1, i
        for k in range(i, end):
            head, rest = rows[k][:column], rows[k][column:column + 1]
            if head.strip().isdigit() and head.rstrip() == head and int(head) == number and rest in ("", " "):
                number, stop = number + 1, k + 1
            elif not (head.isspace() and rows[k].strip() and number > 1):
                break
        start = column - len(str(number - 1)) - 1
        if start < 0 or (margin is not None and start != margin):
            i += 1
            continue
        for k in range(i, stop):
            out[k] = " " * start + rows[k][column + 1:]
        i = stop
    return out


def fenced_flush(rows: Sequence[str]) -> list[str]:
    """``rows`` with a drawn code fence's lines moved back to the fence's column.

    A CLI that shows a Markdown code block with its fences (pi) indents the
    lines between them by a margin of its own (two columns); the model wrote
    them flush with the fence.  The lines' common indentation beyond the
    fence's is that margin; the code's own indentation stays.

    >>> fenced_flush(["```py", "  def f():", "      return 1", "```"])
    ['```py', 'def f():', '    return 1', '```']
    """
    out = list(rows)
    i = 0
    while i < len(rows):
        m = FENCE.match(rows[i])
        close = next((k for k in range(i + 1, len(rows)) if m and rows[k].strip() == m.group(2)
                      and rows[k].startswith(m.group(1) + m.group(2))), None)
        if m is None or close is None:
            i += 1
            continue
        inner = [r for r in rows[i + 1:close] if r.strip()]
        extra = min((len(r) - len(r.lstrip(" ")) for r in inner), default=0) - len(m.group(1))
        if extra > 0:
            out[i + 1:close] = [r[extra:] if r.strip() else r for r in rows[i + 1:close]]
        i = close + 1
    return out


def tidy(rows: Sequence[str]) -> str:
    """Answer rows as text: common indentation removed, outer blank rows dropped,
    runs of blank rows (left where chrome was cut out) made one."""
    out: list[str] = []
    for r in rows:
        r = r.rstrip()
        if not r and (not out or not out[-1]):
            continue
        out.append(r)
    while out and not out[-1]:
        out.pop()
    indents = [len(r) - len(r.lstrip(" ")) for r in out if r]
    cut = min(indents, default=0)
    return "\n".join(r[cut:] for r in out)


def plain_snapshot(lines: Sequence[str]) -> Snapshot:
    """A style-less snapshot of text rows (scrollback handed over as strings)."""
    rows = tuple(line.rstrip() for line in lines)
    width = max((text_width(r) for r in rows), default=1)
    return Snapshot(rows, max(width, 1), max(len(rows), 1))
