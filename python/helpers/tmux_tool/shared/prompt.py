"""The shell's prompt in the human's terminal: learned from the screen, matched with tolerance.

No markers may enter the shared session, so the prompt is whatever the
shell draws.  It is learned only at moments when the kernel says a shell's
line editor waits for keys (:mod:`..transport.kernel`), from the text left
of the cursor, and kept per shell process (a nested shell has its own).
A learned prompt becomes a pattern that tolerates what changes between two
prompts: the working directory, digits (clocks, exit codes, counters), the
contents of parentheses (git branch, virtualenv) and a ``(venv) `` prefix.
Everything else must match literally, so ``$ `` in output never passes for
``user@host:~$ ``.

Every function here is pure and total: odd input gives "not found", never an
exception.

>>> p = template("user@host:~/src$ ", "/home/user/src", home="/home/user")
>>> split("user@host:~/docs$ ls -la", 23, p, 80).typed
'ls -la'
>>> split("user@host:~/docs$ ", 18, p, 80).found
True
>>> continuation("> ")
True
>>> continuation("for dquote> "), continuation("box> ")
(True, False)
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.cells import char_width

# bash's and dash's PS2 is "> "; zsh's ("%_> ") names the parser's open constructs, from a fixed set
# of words (zsh's own list), e.g. "dquote> ", "for dquote> ".  A prompt such as "box> " is no
# continuation.
_ZSH_OPEN = (
    "for",
    "foreach",
    "while",
    "repeat",
    "select",
    "until",
    "if",
    "then",
    "else",
    "elif",
    "math",
    "cond",
    "cmdor",
    "cmdand",
    "pipe",
    "errpipe",
    "case",
    "function",
    "subsh",
    "cursh",
    "array",
    "quote",
    "dquote",
    "bquote",
    "cmdsubst",
    "mathsubst",
    "elif-then",
    "heredoc",
    "heredocd",
    "brace",
    "braceparam",
    "always",
)
_CONTINUATION = re.compile(rf"(?:(?:{'|'.join(_ZSH_OPEN)})(?: (?:{'|'.join(_ZSH_OPEN)}))*)?> ?")
# The line editors' own prompts for their modes, drawn where a search or count is typed: readline
# (bash) in place of the prompt on the cursor row, zsh's zle on the row below the edit line, fish's
# history pager (fish 3.6+) on the cursor row below the edit line.  Rows come without their
# trailing blanks.
_MODES = (
    (
        re.compile(r"^\((?:failed )?(?:reverse-)?i-search\)`"),
        0,
        None,
        "searching the shell's history (Ctrl+R)",
    ),
    (re.compile(r"^\(arg: -?\d+\)(?: |$)"), 0, None, "giving a line-editor command a count"),
    (
        re.compile(r"^(?:failing )?(?:bck|fwd)-i-search: "),
        1,
        "zsh",
        "searching the shell's history (Ctrl+R)",
    ),
    (re.compile(r"^execute: "), 1, "zsh", "naming a line-editor command (M-x)"),
    (re.compile(r"^search:(?: |$)"), 0, "fish", "searching the shell's history (Ctrl+R)"),
)
_VENV = r"(?:\([^()]*\) )?"
MAX_PROMPTS = 6  # shells remembered per session (top-level plus nested ones)


@dataclass(frozen=True, slots=True)
class PromptLine:
    """The cursor line split into the shell's prompt, what follows it, and a right-hand prompt."""

    found: bool
    prompt: str = ""
    typed: str = ""
    right: str = ""
    before: str = ""  # output left of the prompt on its row (a last line without a newline)


def template(prompt: str, cwd: str, *, home: str | None = None) -> str:
    """A regex for a learned prompt that survives ``cd``, clocks, branches and virtualenvs."""
    home = home if home is not None else os.path.expanduser("~")
    forms = [cwd]
    if home and cwd.startswith(home):
        forms.append("~" + cwd[len(home):])
    forms.append(os.path.basename(cwd.rstrip("/")) or "/")
    body = _literal(prompt)
    for form in sorted({f for f in forms if f}, key=len, reverse=True):
        i = prompt.find(form)
        if i >= 0 and (len(form) > 1 or form in "~/"):
            body = _literal(prompt[:i]) + ".*?" + _literal(prompt[i + len(form):])
            break
    if prompt.startswith("(") and ") " in prompt:
        return body  # the prompt has its own parenthesised prefix
    return _VENV + body


def _literal(text: str) -> str:
    """Escape ``text``; digit runs and the inside of parentheses become wildcards."""
    out = []
    for part in re.split(r"(\d+|\([^()]*\))", text):
        if not part:
            continue
        if part.isdigit():
            out.append(r"\d+")
        elif part.startswith("(") and part.endswith(")") and len(part) > 2:
            out.append(r"\([^()]*\)")
        else:
            out.append(re.escape(part))
    return "".join(out)


def _cell_index(line: str, cells: int) -> int:
    """The string index at cell column ``cells`` (wide characters take two)."""
    col = 0
    for i, ch in enumerate(line):
        if col >= cells:
            return i
        col += max(0, char_width(ch))
    return len(line)


def _padded(line: str, cells: int) -> str:
    """``line`` with the blanks a screen row ends in restored up to cell column ``cells``.

    Captured rows lose their trailing blanks, but a prompt's final space is
    part of it: the cursor column says how many there were.
    """
    width = sum(max(0, char_width(ch)) for ch in line)
    return line + " " * (cells - width) if cells > width else line


def _right_prompt(line: str, cut: int, width: int) -> tuple[str, str]:
    """Split a right-hand prompt off the text right of the cursor.

    zsh's ``RPROMPT`` and clocks drawn at the right edge sit apart from the
    cursor (two or more spaces) and end near the edge; text the human typed
    starts at the cursor.  Returns (text at the cursor, right prompt).
    """
    after = line[cut:]
    stripped = after.rstrip()
    lead = len(after) - len(after.lstrip(" "))
    if (
        stripped.strip()
        and lead >= 2
        and sum(max(0, char_width(c)) for c in line.rstrip()) >= width - 3
    ):
        return "", stripped.strip()
    return after, ""


def split(line: str, cursor_x: int, pattern: str, width: int) -> PromptLine:
    """Find the learned prompt at the start of the cursor line; what follows it is typed text."""
    if not pattern or not isinstance(line, str):
        return PromptLine(False)
    try:
        regex = re.compile(pattern)
    except re.error:
        return PromptLine(False)
    line = _padded(line, max(0, int(cursor_x)))
    cut = _cell_index(line, max(0, int(cursor_x)))
    # Output without a final newline can sit left of the real prompt: take the last match.
    found = [m for m in regex.finditer(line) if m.end() > m.start() and m.end() <= max(cut, 1)]
    if not found:
        return PromptLine(False)
    m = found[-1]
    rest, right = _right_prompt(line, cut, width)
    typed = (line[m.end():cut] + rest).strip()
    return PromptLine(True, line[: m.end()], typed, right, line[: m.start()])


def candidate(line: str, cursor_x: int, width: int) -> str | None:
    """The text left of the cursor when nothing but a right-hand prompt follows it."""
    if not isinstance(line, str):
        return None
    line = _padded(line, max(0, int(cursor_x)))
    cut = _cell_index(line, max(0, int(cursor_x)))
    rest, _right = _right_prompt(line, cut, width)
    if rest.strip():
        return None
    return line[:cut]


def editor_mode(rows: Sequence[str], y: int, shell: str) -> str | None:
    """What the human does in a mode of ``shell``'s line editor shown at cursor row ``y``, or None.

    A search or a count takes the keys typed now, and Enter accepts what it
    found: the shell waits for keys as at its prompt, but is not at it.

    >>> editor_mode(["(reverse-i-search)`ec': echo abc"], 0, "bash")
    "searching the shell's history (Ctrl+R)"
    >>> editor_mode(["root@box:~# ", "bck-i-search: _"], 0, "zsh")
    "searching the shell's history (Ctrl+R)"
    >>> editor_mode(["user@host:~$ "], 0, "bash") is None
    True
    """
    if not isinstance(rows, (list, tuple)) or not isinstance(y, int) or not 0 <= y < len(rows):
        return None
    for pattern, below, only, what in _MODES:
        row = rows[y + below] if y + below < len(rows) else ""
        if (only is None or only == shell) and isinstance(row, str) and pattern.match(row):
            return what
    return None


def looks_like_prompt(text: str) -> bool:
    """A prompt ends in a space or a mark; text the human typed usually ends in a word."""
    stripped = text.rstrip()
    return bool(stripped) and (text != stripped or not stripped[-1].isalnum())


def common_end(text: str) -> bool:
    """The end most prompts share: ``$``, ``#``, ``%``, ``>`` or a prompt glyph, then a space.

    A percentage is progress, not zsh's ``%`` (``12%``, ``[###]  2%``).

    >>> common_end("host% "), common_end("[x]   2%"), common_end("done 12.5 %")
    (True, False, False)
    """
    if re.search(r"\d(?:\.\d+)?\s*%\s*$", text):
        return False
    return bool(re.search(r"[$#%>❯➜»λ→] ?$", text.rstrip(" ") + " "))


def continuation(text: str) -> bool:
    """``> `` (bash, sh) or ``dquote> ``/``for heredoc> `` (zsh): the shell wants the rest of a
    command."""
    return bool(_CONTINUATION.fullmatch(text.strip() + " ")) if text.strip() else False


def after_continuation(row: str) -> str | None:
    """The text after a continuation prompt that starts ``row`` (``> ``, zsh's ``dquote> ``), else
    None.

    >>> after_continuation("> do echo hi"), after_continuation("for dquote> x"), after_continuation("hi")
    ('do echo hi', 'x', None)
    """
    if not isinstance(row, str):
        return None
    m = _CONTINUATION.match(row)
    return row[m.end():].rstrip() if m else None


def after_common_end(row: str) -> str | None:
    """What follows the first prompt-like end (``$ ``, ``# ``, ``% ``, ``> ``) on ``row``, else
    None: the command on a prompt row the tool has not learned.

    >>> after_common_end('user@host:~$ echo "'), after_common_end("total 12")
    ('echo "', None)
    """
    if not isinstance(row, str):
        return None
    m = re.search(r"[$#%>❯➜»λ→] ", row)
    return row[m.end():].rstrip() if m else None


def same_row(a: str, b: str) -> bool:
    """Two rows drawn by the same part of a prompt, a command apart.

    Digits and paths change (clocks, exit codes, ``cd``), and so may a word
    (a git branch, a changed directory's name); what stays is how the row
    begins (its indent and first word, often a box-drawing or powerline
    glyph) and its glyphs (the marks, brackets and symbols between words).

    >>> same_row("╭─  root  share", "╭─  root  tmp")
    True
    >>> same_row("user@box ~/src (main)", "user@box ~/src (main *)")
    True
    >>> same_row("╭─  root  share", "total 12")
    False
    >>> same_row("1997", "20"), same_row("", ""), same_row("~", "~")
    (False, True, True)
    """
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    if any(c.isdigit() for c in a) and not any(c.isalpha() or ord(c) > 0x7f for c in a):
        return False  # a row of digits and signs is output (a count, a sum), not a prompt's
    if same_shape(a, b):
        return True
    lead_a, lead_b = a[: len(a) - len(a.lstrip())], b[: len(b) - len(b.lstrip())]
    first_a, first_b = (a.split() or [""])[0], (b.split() or [""])[0]
    if (
        lead_a != lead_b
        or not first_a
        or re.sub(r"\d+", "0", first_a) != re.sub(r"\d+", "0", first_b)
    ):
        return False
    marks_a, marks_b = _marks(a), _marks(b)
    return bool(marks_a) and marks_a[:3] == marks_b[:3]


def _marks(row: str) -> str:
    """The glyphs of a row: what is neither a letter, a digit nor a blank."""
    return "".join(c for c in row if not (c.isalnum() or c.isspace() or c in "_-."))


def same_shape(a: str, b: str) -> bool:
    """Two screen rows that differ only in digits and paths (a prompt's upper rows, a clock)."""
    return _shape(a) == _shape(b)


def _shape(row: str) -> list[str]:
    """A row's words with every path made ``/`` and every digit run ``0``."""
    return [
        "/" if "/" in tok or tok.startswith("~") else re.sub(r"\d+", "0", tok)
        for tok in row.split()
    ]


def kin(a: str, b: str) -> bool:
    """The same prompt drawn in another state: the same words but for one mark.

    Prompts show the last command's status (``✓``/``✗``, ``[1]``) and the
    line editor's mode (fish's ``[I]``/``[N]``, ``[INSERT]``/``[NORMAL]``):
    after a command the prompt may differ from the one it was typed at by
    that one mark, changed, added or dropped.  A question a program asks
    differs in its words.

    >>> kin("✗ ~ # ", "✓ ~ #"), kin("[I] fish> ", "[N] fish>"), kin("~ [1] $ ", "~ $"), kin("~ [1]# ", "~#")
    (True, True, True, True)
    >>> kin("Name: ", "✓ ~ #"), kin("read> ", "fish>"), kin("", "")
    (False, False, False)
    """
    if not isinstance(a, str) or not isinstance(b, str):
        return False
    sa, sb = _shape(a), _shape(b)
    if not sa or not sb or sa == sb:
        return bool(sa) and sa == sb
    if len(sa) == len(sb):
        diff = [(x, y) for x, y in zip(sa, sb, strict=True) if x != y]
        return len(diff) == 1 and _mark(diff[0][0]) and _mark(diff[0][1])
    longer, shorter = (sa, sb) if len(sa) > len(sb) else (sb, sa)
    if len(longer) != len(shorter) + 1:
        return False
    return any(
        longer[:i] + longer[i + 1:] == shorter and _mark(longer[i]) for i in range(len(longer))
    )


def _mark(token: str) -> bool:
    """A token that shows a state rather than a place or a name: glyphs, or a short tag in
    brackets."""
    if re.fullmatch(r"[\[(<{]\w{1,8}[\])>}][$#%>❯]?", token):
        return True
    return len(token) <= 3 and not any(c.isalpha() and c.isascii() for c in token)
