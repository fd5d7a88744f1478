"""The human's page (``apps/shared-terminal/web``) enters the library here, and only here.

The page is a front end of its own: a web server that shows the shared
terminal and the agent's sessions, with the human's switches over the agent,
and start.sh's hand on a host.  It takes from the library only what this
module offers, each name with the reason the page needs it, so what the page
relies on is in one place and the layers below may change without it
(``tests/unit/test_layers.py`` holds the page to this module, and this module
to what the page uses).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeAlias

from ..actions import dispatch
from ..core import config, errors
from ..core.clock import Deadline
from ..judgement import human
from ..sessions import tap
from ..sessions.context import Context
from ..shared import audit, control
from ..transport import hosts, tmux
from ..transport.place import Place
from ..transport.target import Target

__all__ = [
    "HELD",
    "PAGE",
    "SEP",
    "Control",
    "HostWaits",
    "NoServer",
    "NoTarget",
    "Tapped",
    "Tmux",
    "TmuxError",
    "ToolError",
    "agent_socket",
    "agent_tmux",
    "answer_approval",
    "answer_question",
    "audit_results",
    "connect",
    "connected_hosts",
    "holder",
    "names_a_host",
    "pending_digest",
    "private_folder",
    "read_control",
    "set_approve",
    "set_paused",
    "status_of",
]

# --- what the page holds and catches ---------------------------------------------------------
Tmux: TypeAlias = tmux.Tmux
"""A tmux server as the tool reaches it, here or on a host: the page's few tmux commands are bounded
as the tool's are, and its tabs and views are that server's clients (``client_argv``)."""

Control: TypeAlias = control.Control
"""The shared session's control options at one moment: what the page's switches and activity panel
show (pause, approve mode, what the agent is doing, the request waiting, the audit trail's path)."""

TmuxError: TypeAlias = errors.TmuxError
"""A tmux command that failed or got no answer: the page then says the session is not there, or
answers the request with the sentence."""

NoServer: TypeAlias = errors.NoServer
"""No tmux server on that socket: start.sh's hand on a host tells a server not started from a host
that fails."""

NoTarget: TypeAlias = errors.NoTarget
"""No such session: start.sh's hand on a host tells a session to make from a host that fails."""

ToolError: TypeAlias = errors.ToolError
"""Any failure the tool has a sentence for: the page's server and start.sh's hand say it when the
shared session's host cannot be used."""

Tapped: TypeAlias = tap.Tapped
"""How the human's tap on an option ended: typed (with the keys), or the sentence saying why nothing
was typed; the page says it beside the buttons."""

HostWaits: TypeAlias = hosts.HostWaits
"""The connection to a host waits for the human (a password, a passphrase, a new host key):
start.sh's hand names the session where the human answers it."""

# --- the options the page reads and writes itself --------------------------------------------
SEP = tmux.SEP
"""What separates the fields of a tmux format's output, as the tool's own formats do: the page lists
sessions with one such format."""

HELD = human.HELD
"""The option of a private session that says which human holds it: the page sets it to take a
session's keyboard, unsets it to hand the keyboard back, and shows it in its list."""

PAGE = human.PAGE
"""The shared server's option that keeps the page's address: the page sets it while it serves, so
the tool can tell the agent where the human types a secret."""


# --- the agent's servers ---------------------------------------------------------------------
def agent_socket() -> str:
    """The socket of the agent's private tmux server here: the page lists, views and holds its
    sessions."""
    return config.load().private_socket


def agent_tmux(host: str) -> Tmux:
    """The agent's private server on ``host``: the page lists, views and holds the agent's sessions
    there too."""
    return Context(config.load(), host).private.tmux


def connected_hosts() -> list[str]:
    """The hosts the agent has sessions on whose connection is up now: the page lists their sessions
    without ever connecting anywhere itself."""
    return Context(config.load()).connected_hosts()


def names_a_host(name: str) -> bool:
    """Whether ``name`` may name a host: the page refuses any other ``HOST`` in a session's
    ``NAME@HOST`` before it reaches tmux, ssh or a container's command."""
    try:
        hosts.check(name)
    except errors.BadName:
        return False
    return True


def connect(host: str) -> Place:
    """The place ``host`` names, its connection made now unless it is up: the shared session the
    page shows may live there (``start.sh --host``; a :data:`Tmux` there is made with ``place=``),
    and the app's configuration is copied there over it (``run``).

    Raises :data:`HostWaits` while the connection waits for the human, and :data:`ToolError` with a
    sentence when the host cannot be used.
    """
    place = Context(config.load(), host).place
    assert place.link is not None  # a name (checked by Context) always means a host
    place.link.ensure(Deadline(hosts.CONNECT_TIMEOUT))
    return place


def private_folder(name: str) -> Path:
    """The folder ``name`` of the tool's state, made readable by this user only: the page compiles
    the terminal description of its views there."""
    return config.private_path(config.load().state_root / name)


# --- the agent's sessions as the agent sees them -----------------------------------------------
def status_of(session: str, host: str | None = None) -> dict[str, Any]:
    """The tool's own ``status`` of ``session`` (here, or on ``host``), as the contract's dict: the
    page shows each terminal with the facts the agent gets, and sees when a secret is no longer
    asked for."""
    with human.page_looks():  # an answer the human tapped stays for the agent's own next result
        return dispatch(
            "status", {"session": session, **({"host": host} if host else {})}
        ).to_dict()


def answer_question(
    session: str, host: str | None, question: str, option: str, asked: str | None = None
) -> Tapped:
    """The human taps ``option`` of the ``question`` the agent's ``session`` (here, or on ``host``)
    is blocked on (``asked``: the digest the page's look gave the question, its result's ``asked``):
    typed only if that question is still asked at the keystroke, never for a secret, and audited."""
    cfg = config.load()
    ctx = Context(cfg, host)
    target = Target(session, False, ctx.private.tmux)
    opened = ctx.open(target)
    return tap.answer(target, opened.state(), question, option, cfg.shared_dir / "audit.log",
                      look=opened.state, seen=asked)


def holder(server: Tmux, session: str) -> str:
    """Who holds ``session`` ("" when the agent has it): a view of it types only while the page
    does."""
    return human.held(server, session)


# --- the human's say over the agent in the shared session ------------------------------------
def read_control(server: Tmux, target: str) -> Control:
    """All control options of ``target``'s session in one tmux call, for every open tab (raises
    :data:`TmuxError`, :data:`NoTarget` when the session is not there)."""
    return control.read(server, target)


def set_paused(server: Tmux, target: str, on: bool) -> None:
    """The page's pause switch: pause (or resume) the agent in the shared session."""
    control.set_paused(server, target, on)


def set_approve(server: Tmux, target: str, on: bool) -> None:
    """The page's approve switch: every injection of the agent then waits for the human's answer."""
    control.set_approve(server, target, on)


def pending_digest(pending: dict[str, Any]) -> str:
    """The digest an answer to the ``pending`` request must carry: the page hands it out with the
    request, so an answer names exactly the text the human was shown."""
    return control.pending_digest(pending)


def answer_approval(
    server: Tmux, target: str, request_id: str, verdict: str, digest: str
) -> str | None:
    """The human's answer from the page to the request waiting for approval: None when recorded,
    else why not (answered already, withdrawn, expired, or for other text)."""
    return control.answer(server, target, request_id, verdict, digest)


def audit_results(trail: Path) -> Path:
    """The file beside the audit trail ``trail`` where each injection's end (its status, the screen
    after it) is written: the page's activity panel reads both."""
    return audit.results_path(trail)
