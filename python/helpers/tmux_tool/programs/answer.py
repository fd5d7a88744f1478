"""Cut the output of the last submitted input out of a prompt-based screen.

Shells and REPLs share one layout: a prompt row echoing the input (possibly
wrapped over several rows, or continued on ``... `` rows), the output, then a
fresh bare prompt at the bottom.  The answer is what lies strictly between the
echo and that final prompt.  If the screen does not end at a bare prompt the
program is not done, and there is no answer yet.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

Split = Callable[[str], "str | None"]
"""Given a row, the text typed after a prompt at its start, or None."""


def _squash(text: str) -> str:
    return "".join(text.split())


def _echo_start(rows: list[str], end: int, primary: Split, submitted: str | None) -> int | None:
    first = _squash(submitted.strip().splitlines()[0]) if submitted and submitted.strip() else ""
    for i in range(end - 1, -1, -1):
        typed = primary(rows[i])
        if typed is None:
            continue
        squashed = _squash(typed)
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
    """The rows between the echo of the last input and the final bare prompt.

    ``primary``/``continuation`` recognise prompt rows.  With ``submitted``
    the echo is the last prompt row whose typed text starts that input, and
    the rows its wrapped remainder takes are skipped too.
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
    echoed = _squash(primary(rows[start]) or "")
    want = _squash(submitted or "")
    i = start + 1
    while i < end:
        more = continuation(rows[i]) if continuation else None
        covered = bool(want) and len(echoed) >= len(want)
        if covered and more != "":
            break  # the input is all echoed; only an empty block-closing row may follow
        if more is not None:
            echoed += _squash(more)
        elif want and len(echoed) < len(want) and want.startswith(echoed + _squash(rows[i])[:1]):
            echoed += _squash(rows[i])
        else:
            break
        i += 1
    return "\n".join(rows[i:end]).strip("\n")
