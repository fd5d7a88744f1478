"""Each browser tab becomes one tmux client of the shared session.

terminado runs one pty per WebSocket (UniqueTermManager). The program in that
pty is a tmux client that attaches to the shared session, so tmux itself does
the terminal emulation and keeps the session alive when tabs come and go; the
browser only draws what the client prints.

The pty is opened at the size the page measured before connecting. Opening it
at terminado's default 80x24 and resizing a moment later would, under tmux's
`window-size latest`, shrink the shared window for everyone (and reflow the
screen the tool is reading) every time a tab opens.
"""

from __future__ import annotations

import codecs
import signal
from collections import deque
from typing import Any

from ptyprocess import PtyProcessUnicode
from terminado import TermSocket, UniqueTermManager
from terminado.management import PtyWithClients

from python.helpers.tmux_tool.frontends.page import Tmux

DEFAULT_SIZE = (50, 200)
"""(rows, cols) when the page did not say; matches tmux.conf's default-size."""


def tmux_client_argv(tmux: Tmux, session: str) -> list[str]:
    """The command run in each tab's pty.

    `new-session -A` attaches when the session exists and otherwise creates it
    with our configuration, the same command ttyd would run. `-u` makes the
    client speak UTF-8 whatever the server's locale says; xterm.js is UTF-8.
    On a host, the client runs there in a terminal the host's command opens.
    """
    return tmux.client_argv("new-session", "-A", "-s", session)


def _restore_sigpipe() -> None:
    """Python ignores SIGPIPE and children would inherit that; tmux should not."""
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)


class SizedPty(PtyWithClients):
    """A PtyWithClients whose pty starts at a given size instead of 24x80."""

    def __init__(self, argv: list[str], env: dict[str, str], size: tuple[int, int]) -> None:
        # The parent's __init__ would spawn at 24x80; this sets up the same
        # attributes around a spawn at the right size.
        self.clients: list[Any] = []
        self.read_buffer: deque[str] = deque([], maxlen=1000)
        self.ptyproc = PtyProcessUnicode.spawn(argv, env=env, dimensions=size, preexec_fn=_restore_sigpipe)
        # Programs may print bytes that are not UTF-8; show U+FFFD, do not crash.
        self.ptyproc.decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")


class TmuxTermManager(UniqueTermManager):
    """One tmux client per WebSocket, each in a pty sized like its page."""

    def new_sized_terminal(self, size: tuple[int, int], argv: list[str] | None = None,
                           env_extra: dict[str, str] | None = None) -> PtyWithClients:
        """Start a tmux client (the shared session's, or `argv` with `env_extra`) in a pty of `size`
        (rows, cols) and read from it."""
        if self.max_terminals and len(self.ptys_by_fd) >= self.max_terminals:
            raise RuntimeError(f"at most {self.max_terminals} browser terminals at once")
        env = self.make_term_env(height=size[0], width=size[1])
        # A tmux client refuses to attach from inside tmux ("sessions should be
        # nested with care") when it inherits TMUX from whoever started us.
        env.pop("TMUX", None)
        env.pop("TMUX_PANE", None)
        env.update(env_extra or {})
        term = SizedPty(argv or self.shell_command, env, size)
        self.start_reading(term)
        return term


def _dimension(raw: str | None, default: int) -> int:
    if raw is None or not raw.isdigit():
        return default
    return max(2, min(int(raw), 1000))


class TmuxTermSocket(TermSocket):
    """terminado's socket, taking the page's size from `?rows=&cols=`."""

    term_manager: TmuxTermManager

    def open(self, *args: Any, **kwargs: Any) -> None:
        rows = _dimension(self.get_query_argument("rows", None), DEFAULT_SIZE[0])
        cols = _dimension(self.get_query_argument("cols", None), DEFAULT_SIZE[1])
        self.term_name = "tmux"
        self.terminal = self.term_manager.new_sized_terminal((rows, cols))
        self.terminal.clients.append(self)
        self.size = (rows, cols)
        self.send_json_message(["setup", {}])
