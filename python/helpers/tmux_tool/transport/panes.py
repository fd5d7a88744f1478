"""Looking at a pane: one tmux process for the picture and the facts about it.

A snapshot needs the screen text (with SGR, for style) and what tmux knows
about the pane: cursor, alternate screen, copy mode, the foreground program,
whether the pane is dead, and the human's recent activity.  Asking for all of
it in one chained command keeps a look to a single process (a few ms).

While ``wait`` listens to a server through a control-mode client, its looks
are served by that client instead (:func:`served_by`): the same two commands
and the same text, without a process.  The choice is scoped to the waiting
context, so every other caller keeps its own transport.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Protocol

from .. import screen
from ..screen.snapshot import Snapshot
from . import options
from .tmux import DEFAULT_TIMEOUT, SEP, Tmux

_FIELDS = (
    "cursor_x", "cursor_y", "alternate_on", "pane_in_mode", "pane_dead", "pane_width",
    "pane_height", "session_attached", "window_activity",
    "pane_current_command", "pane_pid", "history_size", "session_activity",
    "pane_current_path", options.PROMPTS, options.SENT,
    "pane_tty", options.OWNED, options.PAUSED, options.APPROVE,
    "pane_id", "window_index", "window_name", "pane_index", "synchronize-panes", "history_limit",
    options.UPPER, "pane_active", "window_active",
)
_FORMAT = SEP.join(f"#{{{f}}}" for f in _FIELDS)
# One line per client attached to the pane's session, before the pane's facts: the human's keys are
# told from the tool's own control clients, whose attaches also stamp the session's activity.
_CLIENT = "client" + SEP
_CLIENTS = _CLIENT + SEP.join(("#{client_control_mode}", "#{client_activity}", "#{client_created}"))


@dataclass(frozen=True, slots=True)
class PaneFacts:
    """What tmux reports about a pane besides its text."""

    cursor: tuple[int, int]
    alternate: bool
    in_mode: bool
    dead: bool
    width: int
    height: int
    attached: int
    window_activity: int
    command: str
    pid: int
    history_size: int = 0
    session_activity: int = 0
    path: str = ""
    learned_prompt: str = ""
    sent: str = ""
    tty: str = ""
    owned: str = ""
    paused: bool = False  # the human has paused the agent (shared session)
    approve: bool = False  # each injection waits for the human's approval (shared session)
    pane_id: str = ""  # tmux's id of the pane (%N): stable while the human moves it around
    window: int = 0  # the index of its window
    window_name: str = ""
    index: int = 0  # its index in the window
    synchronized: bool = False  # synchronize-panes: keys sent to it go to every pane of its window
    history_limit: int = 0  # lines tmux keeps above the screen before it drops the oldest
    upper: str = ""  # the learned upper rows of each shell's prompt (shared session)
    # the active pane of the session's current window: where the human's keys go
    focused: bool = True
    # The human's clients of the session (not the tool's control clients): (last key, attach), whole
    # seconds. A client's activity is its attach until its first key.
    clients: tuple[tuple[int, int], ...] = ()

    @property
    def abs_cursor_line(self) -> int:
        """The cursor row counted from the top of history (grows as output scrolls)."""
        return self.history_size + self.cursor[1]


class Transport(Protocol):
    """Anything that runs chained tmux commands like :meth:`Tmux.chain`."""

    def chain(self, *commands: Sequence[str], input: bytes | None = None,
              timeout: float = DEFAULT_TIMEOUT) -> str: ...


_served: ContextVar[Mapping[str, Transport] | None] = ContextVar("tmux_tool_served", default=None)


@contextmanager
def served_by(transports: Mapping[str, Transport]) -> Iterator[None]:
    """Within the block, looks at these servers (keyed by socket name) use these transports."""
    token = _served.set({**(_served.get() or {}), **transports})
    try:
        yield
    finally:
        _served.reset(token)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        return 0


def look(tmux: Tmux, target: str) -> tuple[Snapshot, PaneFacts]:
    """Capture the visible screen of ``target`` and the facts about its pane."""
    transport: Transport = tmux if tmux.host else (_served.get() or {}).get(tmux.socket, tmux)
    out = transport.chain(
        ["list-clients", "-t", target, "-F", _CLIENTS],
        ["display-message", "-p", "-t", target, _FORMAT],
        ["capture-pane", "-p", "-e", "-t", target],
    )
    clients: list[tuple[int, int]] = []
    head, _, body = out.partition("\n")
    while head.startswith(_CLIENT):
        control, activity, created = (head.removeprefix(_CLIENT).split(SEP) + ["", "", ""])[:3]
        if control != "1":
            clients.append((_int(activity), _int(created)))
        head, _, body = body.partition("\n")
    v = head.split(SEP)
    v += [""] * (len(_FIELDS) - len(v))
    facts = PaneFacts(
        cursor=(_int(v[0]), _int(v[1])),
        alternate=v[2] == "1",
        in_mode=v[3] not in ("", "0"),
        dead=v[4] == "1",
        width=_int(v[5]),
        height=_int(v[6]),
        attached=_int(v[7]),
        window_activity=_int(v[8]),
        command=v[9],
        pid=_int(v[10]),
        history_size=_int(v[11]),
        session_activity=_int(v[12]),
        path=v[13],
        learned_prompt=v[14],
        sent=v[15],
        tty=v[16],
        owned=v[17],
        paused=v[18] == "1",
        approve=v[19] == "1",
        pane_id=v[20],
        window=_int(v[21]),
        window_name=v[22],
        index=_int(v[23]),
        synchronized=v[24] == "1",
        history_limit=_int(v[25]),
        upper=v[26],
        focused=v[27] != "0" and v[28] != "0",
        clients=tuple(clients),
    )
    body = body.removesuffix("\n")
    snap = screen.snapshot_from_capture(
        body, width=facts.width, height=facts.height, cursor=facts.cursor,
        alternate=facts.alternate, program=facts.command or None,
    )
    return snap, facts


def scrollback(tmux: Tmux, target: str, lines: int) -> list[str]:
    """The last ``lines`` rendered lines of history plus screen, cleaned."""
    out = tmux.cmd("capture-pane", "-p", "-e", "-J", "-S", f"-{max(1, lines)}", "-t", target)
    rows = screen.clean_scrollback(out)
    while rows and not rows[-1].strip():
        rows.pop()
    return rows[-lines:]
