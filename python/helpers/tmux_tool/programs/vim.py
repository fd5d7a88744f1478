"""Vim: an editor waiting for input is ready; its modal questions are blocked.

Vim's state lives on its last rows.  Normal mode shows the ruler
(``1,1  Top``) or a file message there; insert/visual/replace mode show
``-- INSERT --`` and the like; ``:`` starts the command line.  All of these
are ``ready`` (DESIGN: an editor waiting for input).  An error such as
``E37: No write since last change`` leaves Vim in normal mode: ready too.

Blocked are the prompts that swallow the next key as an answer, found on the
cursor row:

* the swap-file question after ``E325: ATTENTION`` -
  ``[O]pen Read-Only, (E)dit anyway, (R)ecover, (D)elete it, (Q)uit, (A)bort:``
  (accepting - editing anyway - may clobber another session's work: unsafe);
* the hit-enter prompt ``Press ENTER or type command to continue`` (after
  long messages or ``:!cmd``; Enter only dismisses it: safe);
* the more prompt ``-- More --`` while a long message is paged (safe);
* ``:confirm``'s ``Save changes to "file"?`` / ``[Y]es, (N)o, (C)ancel:``
  (yes writes the file: not safe to accept on the user's behalf).

Text is typed, never pasted: what is sent to Vim is mostly commands
(``:wq``), and a bracketed paste in normal mode would insert them as text.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..core.status import Status
from ..screen.snapshot import Snapshot
from .base import Dialog, Profile, Verdict, bottom_row, cursor_line, quote, row

DIALOGS = (
    Dialog(
        "swap-file",
        re.compile(r"\[O\]pen Read-Only, \(E\)dit anyway, .*\(Q\)uit, \(A\)bort:"),
        ("e",),
        False,
        "Vim found a swap file: another Vim may be editing this file, or one crashed",
    ),
    Dialog(
        "hit-enter",
        re.compile(r"Press ENTER or type command to continue"),
        ("Enter",),
        True,
        "Vim shows a message and waits for Enter",
    ),
    Dialog(
        "more",
        re.compile(r"^-- More --"),
        ("Space",),
        True,
        "Vim pages a long message and waits for a key (Space: more, q: stop)",
    ),
    Dialog(
        "save-changes",
        re.compile(r"\[Y\]es, \(N\)o, (?:.*, )?\(C\)ancel:"),
        ("y",),
        False,
        "Vim asks whether to save the changed buffer",
    ),
)
CHOICE = re.compile(r"[\[(](\w)[\])]([\w -]*\w)")
MODE = re.compile(
    r"^-- (?:\(insert\) )?(INSERT|VISUAL|VISUAL LINE|VISUAL BLOCK|REPLACE|SELECT)[ A-Z]* --")
RULER = re.compile(r"\b\d+,\d+(?:-\d+)?\s+(?:All|Top|Bot|\d+%)$")
INTRO = re.compile(r"^~?\s+VIM - Vi IMproved$")


@dataclass(frozen=True)
class VimProfile(Profile):
    """Vim (and vi/view/nvim started as it)."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        cl = cursor_line(snap)
        here = cl.text
        if dialog := self.find_dialog(here):
            above = row(snap, cl.row - 1).strip()
            question = f"{dialog.question}: {above}" if above and dialog.name == "save-changes" \
                else dialog.question
            options = tuple(f"{k.lower()}: {k}{rest}" for k, rest in CHOICE.findall(here)) \
                or dialog.accept
            return self.verdict(Status.BLOCKED,
                                f"Vim's {dialog.name} prompt {quote(here)} is at the cursor",
                                question, options)
        last = row(snap, bottom_row(snap)).rstrip()
        if m := MODE.match(last):
            return self.verdict(Status.READY, f"Vim is in {m.group(1).lower()} mode "
                                f"({quote(m.group(0))} on the last row)")
        if cl.row == bottom_row(snap) and cl.before.startswith((":", "/", "?")):
            return self.verdict(Status.READY, f"Vim's command line {quote(here)} is being typed")
        if ruler := RULER.search(last):
            return self.verdict(Status.READY,
                                f"Vim is in normal mode (ruler {quote(ruler.group(0))})")
        if any(INTRO.match(r) for r in snap.lines):
            return self.verdict(Status.READY, "Vim shows its intro screen in normal mode")
        return None


PROFILES = (
    VimProfile(
        "vim",
        ("vim", "vim.*", "vi", "view", "vimdiff", "nvim"),
        "editor",
        paste=False,
        exit_steps=(("keys", "Escape"), ("text", ":q!"), ("keys", "Enter")),
        dialogs=DIALOGS,
        rank=50,
    ),
)
