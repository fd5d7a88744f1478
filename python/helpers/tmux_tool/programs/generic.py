"""The profile of a program no other profile knows: ``npm init``, ``apt-get``, ``ssh``, a curses
menu.

It reads only the signs every program shows (:mod:`signs`, :mod:`questions`):

* an input area between two rules at the bottom (a coding CLI no profile
  knows: pi, Qwen Code) is read as a chat by :mod:`chat` - busy while it
  shows work, a menu there ``blocked``, else ``ready`` - before anything
  else, since text typed into it may look like a question;
* its own REPL prompt at the cursor - one that names it (``(gdb)``) or
  counts its inputs (``DB<1>``, ``In [2]:`` after ``In [1]:``) - is ``ready``;
* a question at the cursor (password, yes/no, ``label: (default)``,
  ``Username for …:``, a prompt library's ``? `` row) or over a rail field
  is ``blocked``, the question quoted;
* a dialog - a menu with one marked option, an inline choice (``● Yes / ○
  No``), curses buttons (``<Ok>`` ``<Cancel>``), a key hint (``Enter to
  confirm``) - is ``blocked``;
* a spinner, a running timer or a progress percentage is ``busy``;
* on the full screen, a bar of shortcuts (``^X Exit``) under the text the
  cursor is in is an editor waiting for keys, ``ready``, and a label at the
  cursor right above that bar (``Search:``) its question, ``blocked``; a
  status row telling which entry of how many is shown (``commit 1 of 3
  100%``) is a browser waiting for a key like a pager, ``blocked``;
* anything else says nothing (the detector then decides from the facts:
  a full screen it cannot read is ``unknown``, a line program without a
  question is ``busy``).

Callers that need a profile for any program get this one instead of
``None`` (:func:`registry.profile_or_generic`), so driving code needs no
"if there is a profile" branches: it submits with Enter, sends text by
bracketed paste (the terminal passes it through when the program never
asked for it) and leaves with ``C-d`` - pressed again when the program asks
for it again (:meth:`GenericProfile.asks_again`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from . import answer, chat, unprofiled
from .base import Profile, Verdict

# Qwen Code's "Press Ctrl+D again to exit.", Claude Code's "Press Ctrl-D again to exit"
AGAIN = re.compile(
    r"(?i)\bpress\s+(?:ctrl\s*[+-]\s*|\^)(?P<key>[cd])\s+again\s+to\s+(?:exit|quit)\b"
)


@dataclass(frozen=True)
class GenericProfile(Profile):
    """Any program, judged by the signs all programs share."""

    def classify(self, snap: Snapshot) -> Verdict | None:
        if chat.input_area(snap) is not None and (v := chat.speaker(self).classify(snap)):
            return v
        return unprofiled.read(self, snap)

    @staticmethod
    def asks_again(snap: Snapshot) -> str | None:
        """The key a program asks to be pressed again to leave it (``Press Ctrl+D again to
        exit.``), or None."""
        # Gemini CLI writes it over its input band, its hints and two status rows: the 7th row up
        texts = [snap.lines[y] for y in snap.text_rows(2 * unprofiled.LOOK_ROWS)]
        m = next((m for row in texts if (m := AGAIN.search(row))), None)
        return f"C-{m.group('key').lower()}" if m else None

    def when_silent(self, snap: Snapshot) -> Verdict:
        return unprofiled.silent(self, snap)

    def extract_answer(self, lines: Sequence[str], prompt: str | None) -> str | None:
        return answer.after_echo(lines, prompt, unprofiled.PROMPT_MAX)


def generic(name: str | None) -> GenericProfile:
    """The generic profile speaking for ``name`` (an executable or a command's first word)."""
    label = (name or "program").rsplit("/", 1)[-1] or "program"
    return GenericProfile(label, (label,), "program", paste=True, exit_steps=(("keys", "C-d"),),
                          rank=99)
