"""Shells (bash, sh/dash, zsh, fish): the prompt at the cursor decides.

A shell is ready only when the cursor row *starts with* a prompt, the cursor
sits right after it, and nothing was typed after it.  A prompt is recognised
by its end, not by knowing PS1: the first prompt character (``$ # % > ❯ ➜ »
λ``) on the row that is followed by a space or by the cursor.  Taking the
*first* such character is what tells ``root@vm:~# echo price $ `` (typed text
that itself ends like a prompt) from a bare prompt.

Lines that merely contain ``$ `` or ``> `` anywhere else on the screen - the
echo of an earlier command, output of ``cat`` or ``printf`` - never count,
because only the cursor row is read, and rows below the cursor must be empty.

Known limits, stated rather than hidden:

* a program that prints a perfect copy of the prompt without a newline and
  then pauses cannot be told from the shell by the screen alone; the
  detector uses tmux's ``#{pane_current_command}`` (the printing program is
  in the foreground, not the shell) to tell them apart;
* zsh's right prompt (RPROMPT) sits on the cursor row after a wide gap and
  ends at the right edge; it is not taken for typed text.

Continuation prompt (PS2): bash/sh show ``> `` and zsh ``dquote>``,
``heredoc>``... after an unclosed quote, here-document or trailing ``\\``.
DESIGN calls a REPL's continuation prompt ``ready``, because there the next
line is usually meant to continue the block being typed.  A shell's PS2 is
reported ``blocked`` instead: the shell is not ready for a new command - any
command sent now is swallowed into the unfinished one - and in practice PS2
appears by accident (an unbalanced quote in a command).  The question says
so and offers C-c, which abandons the unfinished command without running it.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..core.status import Status
from ..screen.cells import char_width
from ..screen.snapshot import Snapshot
from .answer import cut_reply
from .base import CursorLine, Profile, Step, Verdict, cursor_line, quote
from .questions import ask

PROMPT_CHARS = "$#%>❯➜»λ"

# zsh's PS2 is "%_> ": the parser states that are still open, e.g. "dquote> ",
# "cmdsubst dquote> ", "heredoc> ".  bash and dash print a bare "> ".
ZSH_STATES = (
    "for|while|repeat|select|until|if|then|else|elif|math|cond|cmdor|cmdand|pipe|heredoc|heredocd|"
    "brace|case|function|subsh|cursh|array|quote|dquote|bquote|cmdsubst|mathsubst|braceparam|always"
)
CONTINUATION = re.compile(rf"^(?:(?:{ZSH_STATES})(?: (?:{ZSH_STATES}))*)?>(?: |$)")
RIGHT_PROMPT_GAP = "  "


def split_prompt(text: str) -> tuple[str, str] | None:
    """``(prompt, typed)`` when ``text`` starts with a shell prompt, else None.

    The prompt ends at the first prompt character followed by a space or by
    the end of ``text``; everything after it is what was typed.
    """
    for i, ch in enumerate(text):
        if ch in PROMPT_CHARS and (i + 1 == len(text) or text[i + 1] == " "):
            return text[: i + 1], text[i + 1 :].strip()
    return None


def continuation(text: str) -> str | None:
    """The text typed after a PS2 prompt at the start of ``text``, or None."""
    m = CONTINUATION.match(text)
    return text[m.end() :].strip() if m else None


def _width(text: str) -> int:
    return sum(char_width(ch) for ch in text)


def _right_prompt(cl: CursorLine, snap: Snapshot) -> bool:
    """The text right of the cursor is a right prompt (zsh RPROMPT)."""
    after = cl.after.rstrip()
    return after.startswith(RIGHT_PROMPT_GAP) \
        and _width(cl.before) + _width(after) >= snap.width - 2


def _below_is_empty(snap: Snapshot, y: int) -> bool:
    return not any(r.strip() for r in snap.lines[y + 1 :])


@dataclass(frozen=True)
class ShellProfile(Profile):
    """A POSIX-style interactive shell."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        cl = cursor_line(snap)
        if not cl.text or not _below_is_empty(snap, cl.row):
            return None
        # A password or yes/no question may contain "$ " or "% " itself; its
        # shape wins over the prompt characters in it.
        if strong := ask(snap, self.name, strong_only=True):
            return strong
        line = cl.before + ("" if _right_prompt(cl, snap) else cl.after)
        after = line[len(cl.before) :].strip()
        typed_ps2 = continuation(cl.before.rstrip())
        if typed_ps2 is not None:
            if typed_ps2 or after:
                return self.verdict(Status.BUSY,
                                    f"text is typed at the continuation prompt: {quote(line)}")
            return self.verdict(
                Status.BLOCKED,
                f"continuation prompt {quote(cl.text)} at the cursor: the previous command is "
                "unfinished",
                "the shell waits for the rest of an unfinished command (open quote, here-document "
                "or trailing backslash); finish it, or press C-c to abandon it",
                ("C-c",),
            )
        split = split_prompt(cl.before.rstrip())
        if split is None:
            return None
        prompt, typed = split
        if typed or after:
            return self.verdict(Status.BUSY, f"text is typed after the prompt, not submitted: "
                                f"{quote(line[len(prompt) :])}")
        return self.verdict(Status.READY, f"shell prompt {quote(prompt)} at the cursor with "
                            "nothing typed after it")

    def extract_answer(self, lines: Sequence[str], prompt: str | None) -> str | None:
        def primary(row: str) -> str | None:
            split = split_prompt(row)
            return split[1] if split else None

        return cut_reply(lines, primary=primary, continuation=continuation, submitted=prompt)


EXIT: tuple[Step, ...] = (("text", "exit"), ("keys", "Enter"))

PROFILES = (
    ShellProfile("bash", ("bash",), "shell", paste=True, exit_steps=EXIT, rank=30),
    ShellProfile("sh", ("sh", "dash", "ash"), "shell", paste=True, exit_steps=EXIT, rank=30),
    ShellProfile("zsh", ("zsh",), "shell", paste=True, exit_steps=EXIT, rank=30),
    ShellProfile("fish", ("fish",), "shell", paste=True, exit_steps=EXIT, rank=30),
)
