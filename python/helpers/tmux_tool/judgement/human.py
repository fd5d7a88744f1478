"""What only the human does in the agent's terminals: type a secret, and hold a session for a while.

A secret (a password, a passphrase, a PIN, a one-time code) is asked for
with the terminal's echo off: the kernel knows it, whatever the question's
wording (:attr:`..transport.kernel.Terminal.secret`).  Such a terminal is
``blocked`` with ``needs_human``, and the result says where the human types
it: the page, whose address the page itself keeps in the shared server
(:data:`PAGE`), at ``#session=NAME``; else a terminal of their own with
``agent.sh take NAME``.  The secret then goes from the human's keyboard to
the terminal, never through the agent.

A wait that begins while a secret is asked waits for the answer (the agent
was told, and the human is typing); a secret asked for while the agent
waits ends the wait, so the agent can tell the human.

A session the human took (:data:`HELD`, set by the page or ``agent.sh
take``) takes no keys from the agent until it is handed back; the agent
still reads it.
"""

from __future__ import annotations

from ..core.config import Config
from ..core.errors import TmuxError
from ..core.messages import message
from ..core.status import Status
from ..screen.snapshot import Snapshot
from ..transport import kernel
from ..transport.options import HELD, PAGE
from ..transport.panes import PaneFacts
from ..transport.tmux import Tmux
from .state import State

__all__ = ["HELD", "PAGE", "answering", "asks_secret", "held", "hint", "page", "where_to_type"]


def asks_secret(term: kernel.Terminal, snap: Snapshot, facts: PaneFacts, program: str | None) -> State | None:
    """The state of a terminal that waits for a secret, or None when it does not."""
    if not term.secret or term.front is None:
        return None
    question = snap.cursor_line.strip() or "a secret"
    return State(Status.BLOCKED, f"{term.front.comm} reads a secret with the terminal's echo off: {question!r}",
                 program or term.front.comm, snap, facts, question=question,
                 secret_reader=term.front.pid)


def answering(st: State, asked: State | None) -> bool:
    """Whether ``st`` is still the human's part of a secret ``asked`` for when a wait began: the same
    process reads it, or its question is still on screen while the program works on the answer."""
    if asked is None or not asked.needs_human:
        return False
    if st.needs_human:
        return st.secret_reader == asked.secret_reader
    return st.status == Status.BLOCKED and st.question == asked.question


def hint(cfg: Config, session: str, program: str | None, host: str | None = None) -> str:
    """What the agent is told of a secret asked for in ``session`` (on ``host``, when it names one)."""
    return message("needs_human", program=program or "the program", where=where_to_type(cfg, session, host))


def page(cfg: Config) -> str:
    """The page's address, as the page keeps it in the shared server ("" when no page serves)."""
    try:
        return Tmux(cfg.shared_socket).cmd("show-options", "-gqv", PAGE).strip()
    except TmuxError:
        return ""


def where_to_type(cfg: Config, session: str, host: str | None = None) -> str:
    """Where the human types a secret asked in ``session``: the page's view of it, or a terminal.

    A session of the agent on a host is in the page as ``SESSION@HOST``; the
    human's shared session on a host is served by that host's page (``start.sh
    --host``), whose address this machine's shared server does not keep.
    """
    url = page(cfg)
    if session == cfg.shared_session:
        if host is not None:
            return f"the shared terminal on {host} (its page: apps/shared-terminal/start.sh --host {host})"
        return url or "the shared terminal"
    if url:
        return f"{url.rstrip('/')}/#session={session}" + (f"@{host}" if host else "")
    if host is not None:
        return (f"the page (apps/shared-terminal/start.sh), session {session}@{host}, or a terminal on {host}: "
                f"tmux -L {cfg.private_socket} attach -t {session}")
    return f"a terminal of their own: apps/shared-terminal/agent.sh take {session}"


def held(tmux: Tmux, session: str) -> str:
    """Who holds ``session`` ("" when the agent has it)."""
    try:
        return tmux.cmd("show-options", "-qv", "-t", f"={session}:", HELD).strip()
    except TmuxError:
        return ""
