"""The shape every line-oriented REPL shares: a fixed prompt at column 0.

Python, Node and sqlite3 print a known prompt string at the start of the row
where input goes, plus a continuation prompt while a statement is open.  The
REPL is ready when the cursor row starts with one of them, the cursor is
right after it, and nothing was typed; continuation counts as ready (DESIGN:
the next line is meant to continue the block).  The prompt must start the
row: output such as ``Loading... `` ending in a prompt-like word is not one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..core.status import Status
from ..screen.snapshot import Snapshot
from .answer import cut_reply
from .base import Profile, Verdict, cursor_line, quote


def _typed_after(row: str, prompts: Sequence[str]) -> str | None:
    """Text typed after one of ``prompts`` at the start of ``row``, or None."""
    for p in prompts:
        if row.startswith(p):
            return row[len(p) :].strip()
        if row.rstrip() == p.rstrip():
            return ""
    return None


@dataclass(frozen=True)
class ReplProfile(Profile):
    """A REPL known by its primary and continuation prompt strings."""

    prompts: tuple[str, ...] = ()
    continuations: tuple[str, ...] = ()

    def classify(self, snap: Snapshot) -> Verdict | None:
        cl = cursor_line(snap)
        for group, what in ((self.prompts, "prompt"), (self.continuations, "continuation prompt")):
            for prompt in group:
                typed = _typed_after(cl.before, (prompt,))
                if typed is None:
                    continue
                typed = f"{typed} {cl.after.strip()}".strip()
                if typed:
                    return self.verdict(Status.BUSY, f"text is typed at the {what}, not "
                                        f"submitted: {quote(typed)}")
                return self.verdict(Status.READY, f"{self.name} {what} {prompt!r} at the cursor "
                                    "with nothing typed")
        return None

    def pending_input(self, snap: Snapshot) -> str | None:
        cl = cursor_line(snap)
        for prompt in (*self.prompts, *self.continuations):
            typed = _typed_after(cl.before, (prompt,))
            if typed is not None:
                return f"{typed} {cl.after.strip()}".strip()
        return None

    def extract_answer(self, lines: Sequence[str], prompt: str | None) -> str | None:
        return cut_reply(
            lines,
            primary=lambda row: _typed_after(row, self.prompts),
            continuation=lambda row: _typed_after(row, self.continuations),
            submitted=prompt,
        )
