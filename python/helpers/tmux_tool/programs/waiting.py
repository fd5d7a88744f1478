"""A program that waits for keys while its screen says nothing: heard from the kernel.

A line program no profile knows (``bc``, ``tclsh``, ``ed``, ``cat``, a
script's ``input()``) often draws no prompt at all, or one no reading can
tell from output.  Its screen then says "running", and an agent would wait
for it until its timeout.  The kernel knows better: a process asleep on a
read of its terminal, or in a poll whose every descriptor is a terminal
(:attr:`..transport.kernel.Terminal.keys_only`), can only be woken by a key.
It waits for input, whatever its screen shows, once it has read all that
was typed.

What that means depends on who asked for the program: one started to be
worked with (``start``) is ``ready`` for its next input; a command run to
its end (``run``) is ``blocked``, waiting for an answer nothing on screen
names.  A full screen is left to its own reading (an unknown one stays
``unknown``), and a shell's own line editor, a relay (ssh, ``sudo -i``) or
a secret asked for is never this case: those have readings of their own.
"""

from __future__ import annotations

from dataclasses import replace

from ..core.status import Status
from ..screen.snapshot import Snapshot
from ..transport import kernel
from .base import Verdict


def heard(verdict: Verdict, term: kernel.Terminal, snap: Snapshot, *, started: bool) -> Verdict:
    """``verdict`` of a screen that shows work, once the kernel says the program only waits for a
    key: ``ready`` for a ``started`` program, ``blocked`` for a command; else ``verdict``."""
    front = term.front
    if verdict.status != Status.BUSY or snap.alternate or front is None or not term.known:
        return verdict
    if not term.keys_only or term.pending or term.editing or term.secret or term.secret_unseen:
        return verdict
    why = (f"{front.comm} waits for input: the kernel has it asleep on its terminal, which only a "
           "key can wake, with nothing typed left unread")
    if started:
        return replace(verdict, status=Status.READY, program=verdict.program or front.comm,
                       evidence=f"{why}; no prompt of its own shows")
    asked = snap.cursor_line.strip()
    return replace(verdict, status=Status.BLOCKED, program=verdict.program or front.comm,
                   evidence=f"{why}; nothing on the screen says what it asks",
                   question=asked or None, options=())
