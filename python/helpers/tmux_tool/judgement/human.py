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

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from ..core.config import Config
from ..core.errors import TmuxError
from ..core.messages import message
from ..core.status import Status
from ..screen import secrets
from ..screen.snapshot import Snapshot
from ..transport import kernel
from ..transport.options import ANSWERED, HELD, PAGE
from ..transport.panes import PaneFacts
from ..transport.place import HERE, Place
from ..transport.tmux import Tmux
from .state import State

__all__ = [
    "ANSWERED",
    "HELD",
    "LEAVE_KEYS",
    "PAGE",
    "answering",
    "asks_secret",
    "heard",
    "held",
    "hint",
    "page",
    "page_looking",
    "page_looks",
    "refusal",
    "where_to_type",
]


UNKNOWN_READER = -1  # ``State.secret_reader`` of a secret told by the screen alone


def asks_secret(
    term: kernel.Terminal, snap: Snapshot, facts: PaneFacts, program: str | None
) -> State | None:
    """The state of a terminal that waits for a secret, or None when it does not.

    One judgement from all the evidence, failing closed: the kernel's facts
    where they can be read (a member of the foreground group reads a line
    with the echo off); the terminal set as for a secret while a member
    sleeps where this user cannot see (setuid sudo and su); and, where the
    read happens on a terminal the kernel facts do not cover (a relay's own
    pty), a secret's question at the cursor while nothing in front runs.
    """
    asked = secrets.question(snap)
    shown = asked or snap.cursor_line.strip() or "a secret"
    asker = term.asker
    if asker is not None and term.secret:
        why = f"{asker.comm} reads a secret with the terminal's echo off: {shown!r}"
    elif asker is not None and term.secret_unseen:
        why = (f"the terminal is set for a secret (a line, echo off) and {asker.comm} waits where "
               f"this user cannot see (another user's or a setuid program): {shown!r}")
    elif asked is not None and (term.waits or not term.known):
        who = term.front.comm if term.front else "the program in front"
        why = (f"a question for a secret is at the cursor ({asked!r}) and {who} waits; the kernel "
               "does not show the read (a relay's own terminal, as sudo's or ssh -t's, or a read "
               "in raw mode), so the screen decides")
        asker = asker or term.front or term.leader
    else:
        return None
    reader = asker.pid if asker is not None else UNKNOWN_READER
    return State(
        Status.BLOCKED,
        why,
        program or (asker.comm if asker else None),
        snap,
        facts,
        question=shown,
        secret_reader=reader,
    )


LEAVE_KEYS = frozenset({"Escape", "C-c", "C-d"})
"""Keys the agent may still press at a secret's prompt: they leave it, they answer nothing."""


def refusal(st: State, text: str, keys: Sequence[str] = ()) -> str | None:
    """Why nothing may be typed into ``st`` now (None: it is no secret's prompt, or only leave
    keys)."""
    if not st.needs_human or (not text and set(keys) <= LEAVE_KEYS):
        return None
    return (f"{st.program or 'a program'} asks for a secret ({st.question!r}), which only the "
            "human types; the agent may only leave it (Escape, C-c, C-d)")


def answering(st: State, asked: State | None) -> bool:
    """Whether ``st`` is still the human's part of a secret ``asked`` for when a wait began: the
    same process reads it, or its question is still on screen while the program works on the
    answer."""
    if asked is None or not asked.needs_human:
        return False
    # a relay (ssh -t) reads every secret behind it: a new question is a new secret
    if st.needs_human:
        return st.secret_reader == asked.secret_reader and st.question == asked.question
    return st.status == Status.BLOCKED and st.question == asked.question


def hint(program: str | None, where: str) -> str:
    """What the agent is told of a secret asked for by ``program``, which the human types at
    ``where`` (:func:`where_to_type`)."""
    return message("needs_human", program=program or "the program", where=where)


def page(cfg: Config) -> str:
    """The page's address, as the page keeps it in the shared server ("" when no page serves)."""
    try:
        return Tmux(cfg.shared_socket).cmd("show-options", "-gqv", PAGE).strip()
    except TmuxError:
        return ""


def where_to_type(cfg: Config, session: str, place: Place = HERE) -> str:
    """Where the human types a secret asked in ``session`` at ``place``: the page's view of it, or a
    terminal, as the place says.

    A session of the agent on a host is in the page as ``SESSION@HOST``; the
    human's shared session on a host is served by that host's page (``start.sh
    --host``), whose address this machine's shared server does not keep.
    """
    url = page(cfg)
    if session == cfg.shared_session:
        return place.shared_terminal(url)
    if url:
        return f"{url.rstrip('/')}/#session={place.page_name(session)}"
    return place.own_terminal(cfg.private_socket, session)


def held(tmux: Tmux, session: str) -> str:
    """Who holds ``session`` ("" when the agent has it)."""
    try:
        return tmux.cmd("show-options", "-qv", "-t", f"={session}:", HELD).strip()
    except TmuxError:
        return ""


_page_looks: ContextVar[bool] = ContextVar("tmux_tool_page_looks", default=False)


@contextmanager
def page_looks() -> Iterator[None]:
    """Within the block, results are the page's own looks (it judges sessions with ``status`` too):
    an answer the human gave from the page (:data:`ANSWERED`) stays there for the agent's result."""
    token = _page_looks.set(True)
    try:
        yield
    finally:
        _page_looks.reset(token)


def page_looking() -> bool:
    """The result being made is one of the page's own looks (:func:`page_looks`)."""
    return _page_looks.get()


def heard(tmux: Tmux, session: str) -> str:
    """The option the human answered ``session``'s question with from the page since the agent's
    last result ("" when none), read and cleared in one tmux command so that it is told once."""
    if page_looking():
        return ""
    target = f"={session}:"
    return tmux.chain(["show-options", "-qv", "-t", target, ANSWERED],
                      ["set-option", "-qu", "-t", target, ANSWERED]).rstrip("\n")
