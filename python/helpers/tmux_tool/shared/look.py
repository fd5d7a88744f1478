"""One look at a pane of the human's session: the kernel's facts, then tmux's picture and records.

The judge (:mod:`.judge`) decides from a look; the sender (:mod:`.send`)
checks a look again at the keystroke.  Both read the same :class:`Look`.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..screen.snapshot import Snapshot
from ..transport import kernel, panes
from ..transport.kernel import Terminal
from ..transport.panes import PaneFacts
from ..transport.tmux import Tmux
from . import records
from .records import Sent


@dataclass(frozen=True, slots=True)
class Look:
    """Everything one look at the shared pane gathered."""

    snap: Snapshot
    facts: PaneFacts
    term: Terminal
    rchar: int  # bytes the shell in front has read (-1: unknown)
    book: dict[str, str]
    sent: Sent
    owned: list[str]
    # where the kernel's facts were read: here, or the pane's host
    kernel: kernel.Source = kernel.HERE


# looks taken at most before one whose kernel facts held still across the picture is given up on
TRIES = 3
# (socket, pane) -> (shell pid, tty), as last seen
_panes: dict[tuple[str, str], tuple[int, str]] = {}


def take(tmux: Tmux, pane: str) -> Look:
    """Look at the pane once: the kernel's facts first, then tmux's picture.

    The order matters: a line editor draws its prompt before it waits for
    keys, so a screen captured after the kernel said "waits for keys" shows
    that prompt; captured before, it might not yet.  The other way round, a
    shell can take a line between the two (a busy machine stalls a look):
    the screen then shows the line accepted, with no prompt yet, and the
    kernel an editor still waiting.  So when the kernel said "editor", it is
    asked again after the picture, and a look whose facts moved meanwhile is
    taken again.  The pane's shell and tty are known from the previous look
    (a pane keeps them for life); the first look at a pane asks tmux for
    them first.
    """
    key = (tmux.key, pane)
    known = _panes.get(key)
    if known is None:
        _snap, facts = panes.look(tmux, pane)
        known = _panes[key] = (facts.pid, facts.tty)
    for _ in range(TRIES):
        term, rchar, src = _kernel(tmux, known)
        snap, facts = panes.look(tmux, pane)
        if (facts.pid, facts.tty) != known:  # the pane was respawned: judge with its new shell
            _panes[key] = (facts.pid, facts.tty)
            return take(tmux, pane)
        if not term.editing or _kernel(tmux, known)[:2] == (term, rchar):
            break
    return Look(
        snap,
        facts,
        term,
        rchar,
        records.prompts(facts.learned_prompt),
        Sent.parse(facts.sent),
        records.owned(facts.owned),
        src,
    )


def _kernel(tmux: Tmux, known: tuple[int, str]) -> tuple[Terminal, int, kernel.Source]:
    """The terminal of the pane's shell, the bytes its process in front has read, and where both
    were read (this machine's ``/proc``, or one dump made on the pane's host)."""
    src = tmux.place.facts(*known)
    term = kernel.look(*known, src)
    return term, kernel.bytes_read(term.front.pid, src) if term.front else -1, src


def key_time(facts: PaneFacts, *, attaches: bool = False) -> int:
    """When the human last pressed a key in the pane's session (tmux's whole seconds), 0 if never.

    tmux stamps a client's activity with each of its keys, and with its attach
    until its first key; the tool's own control clients are not among
    ``facts.clients``.  A key in the same second as its client's attach looks
    like the attach alone: by default it is taken for no key (a page opened is
    not the human typing).  A rule that must fail closed asks with
    ``attaches=True``: the attach's second may hold a key too.
    """
    return max((key for key, attached in facts.clients if attaches or key > attached), default=0)
