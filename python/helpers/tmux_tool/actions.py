"""The actions: one table of names and arguments, one dispatcher.

Every front end (Agent Zero tool, command line, MCP server, ``call()``) goes
through :func:`dispatch`, which checks the arguments against the table, runs
the action and turns every failure into a result with ``ok: false`` and a
sentence - it never raises and never hangs past the action's timeout.
"""

from __future__ import annotations

import errno
import importlib
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from . import handlers
from .core import config, masking, names, notify, trace
from .core.args import MAX_PATTERN, Arg, bind, brief
from .core.clock import Deadline
from .core.errors import BadInput, NoServer, NoTarget, TmuxError
from .core.messages import message
from .core.result import Result, failure
from .core.status import Status
from .judgement import human
from .programs import registry
from .sessions.context import Context
from .transport import hosts
from .transport.hosts import HostWaits, LinkLost
from .transport.tmux import Tmux

_SESSION = Arg(
    "session",
    "str",
    "session name (default: the shared session; for run: the scratch session); "
    "a pane of the shared session as shared:WINDOW.PANE or %N",
)
_TIMEOUT = "seconds to wait"
_HOST = Arg(
    "host",
    "str",
    "where: an ssh destination (user@name, a Host of ~/.ssh/config) or a name of the "
    "hosts file (a container); default: this machine",
)


@dataclass(frozen=True, slots=True)
class Action:
    """One action of the tool: its name, what it does, its arguments, and what it may change.

    ``read_only`` actions only look; ``destructive`` ones can end or discard
    something (a program, a session, a line).  Front ends show these to
    their users (the MCP server as tool annotations).
    """

    name: str
    summary: str
    args: tuple[Arg, ...]
    handler: Callable[..., Result]
    read_only: bool = False
    destructive: bool = False


def _drive(module: str, name: str) -> Callable[..., Result]:
    """A handler of the drive layer, imported on its first call: it loads every program profile,
    which the other actions (and the command line's start) do without."""

    def handler(ctx: Context, **args: Any) -> Result:
        found: Callable[..., Result] = getattr(
            importlib.import_module(f"{__package__}.drive.{module}"), name
        )
        return found(ctx, **args)

    handler.__name__ = name
    return handler


ACTIONS: dict[str, Action] = {
    a.name: replace(a, args=(*a.args, _HOST))
    for a in (
        Action("run", "run one shell command in a private scratch session; output and exit code", (
            Arg("command", "str", "the shell command to run", required=True),
            Arg("session", "str", "private session name (default: the scratch session)"),
            Arg("timeout", "float", _TIMEOUT + " before returning busy (the command keeps running)",
                default=30.0),
        ), handlers.do_run),
        Action("send", "type text into a session (guarded in the shared one) and press Enter", (
            Arg("text", "str", "the text to type", required=True),
            _SESSION,
            Arg("enter", "bool", "press Enter after the text", default=True),
            Arg("timeout", "float", _TIMEOUT + " for a quiet moment and for the result",
                default=10.0),
            Arg("force", "bool", "shared session: type even though the human seems active",
                default=False),
        ), handlers.do_send),
        Action("keys", "press named keys (C-c, Enter, Escape, Up, Tab, y, ...)", (
            Arg("keys", "list", "key names, a list or separated by spaces", required=True),
            _SESSION,
            Arg("timeout", "float", _TIMEOUT + " for the screen to settle", default=2.0),
            Arg("force", "bool", "shared session: allow C-c/C-u etc. on what the human runs",
                default=False),
        ), handlers.do_keys, destructive=True),
        Action("read", "the rendered screen, or the last N lines of history, cleaned", (
            _SESSION,
            Arg("lines", "int", "how many lines of history and screen (default: the screen)"),
        ), handlers.do_read, read_only=True),
        Action("wait", "wait until a session is ready (or blocked), stable, changed, or shows a "
               "pattern", (
            _SESSION,
            Arg("sessions", "list", "several sessions to wait on"),
            Arg("mode", "str", "with sessions: any or all", default="any", choices=("any", "all")),
            Arg("until", "str", "ready, stable or change", default="ready",
                choices=("ready", "stable", "change")),
            Arg("pattern", "str", "a regular expression to wait for on the screen",
                limit=MAX_PATTERN,
                shorter="wait for a short, distinctive part of the line you expect"),
            Arg("timeout", "float", _TIMEOUT, default=30.0),
        ), handlers.do_wait, read_only=True),
        Action("status", "the state of a session, the program in it, and the evidence",
               (_SESSION,), handlers.do_status, read_only=True),
        Action("start", "start a program in a new private session; wait until it is ready or "
               "blocked", (
            Arg("program", "str", "a profile name (claude, codex, gemini, opencode, python3, vim, "
                "...) or a command line", required=True),
            Arg("session", "str", "name of the new private session (default: generated)"),
            Arg("cwd", "str", "directory to start in"),
            Arg("args", "list", "extra arguments for the program"),
            Arg("timeout", "float", _TIMEOUT + " for the program to be ready", default=60.0),
            Arg("accept", "list",
                "start-up dialogs to accept by name (trust, theme, ...) or 'safe'"),
            Arg("skip_permissions", "bool", "launch with the program's permission-skipping flag",
                default=False),
        ), _drive("launch", "do_start")),
        Action("ask", "give an interactive program one prompt; return its answer when it is done", (
            Arg("session", "str", "the program's private session", required=True),
            Arg("prompt", "str", "the prompt to give", required=True),
            Arg("timeout", "float", _TIMEOUT + " for the answer", default=300.0),
            Arg("unwrap", "bool", "join the lines the program broke to fit the terminal",
                default=False),
        ), _drive("turns", "do_ask")),
        Action("exit", "leave an interactive program the right way for it", (
            Arg("session", "str", "the program's private session", required=True),
            Arg("timeout", "float", _TIMEOUT + " for the shell to come back", default=20.0),
        ), _drive("launch", "do_exit"), destructive=True),
        Action("interrupt", "press Ctrl+C and wait for the prompt to come back",
               (_SESSION, Arg("timeout", "float", _TIMEOUT, default=10.0)),
               handlers.do_interrupt, destructive=True),
        Action("list", "sessions, their programs and states", (), handlers.do_list, read_only=True),
        Action("kill", "end a private session and what runs in it (never the shared one; a "
               "`setsid` process stays)",
               (Arg("session", "str", "private session name", required=True),),
               handlers.do_kill, destructive=True),
    )
}


TYPING = frozenset({"run", "send", "keys", "ask", "interrupt", "exit", "kill"})
"""The actions that type into a session (or end it): none while the human holds it."""
_UNWRITABLE = frozenset({errno.EACCES, errno.EPERM, errno.EROFS, errno.ENOSPC, errno.EDQUOT})
"""Why a file cannot be made or written that the person can fix (any other failure is the
tool's)."""
NOT_ON_CONNECTIONS = (TYPING - {"kill"}) | {"wait"}
"""What the agent never does in the session of an ssh connection here: its keys could end the
connection, and a wait there never ends (once connected, ssh shows nothing more); ``kill`` ends it
on purpose."""


def _held(ctx: Context, session: str | None) -> str:
    """Who of the humans holds private session ``session`` ("" when none does, it is the shared one,
    or it is no usable name: the action itself says so)."""
    cfg = ctx.cfg
    if not session or session.partition(":")[0] == cfg.shared_session:
        return ""
    try:
        tmux = Tmux(cfg.private_socket) if ctx.host_name is None else ctx.private.tmux
        return human.held(tmux, names.check(session))
    except BadInput:
        return ""


def _masked(result: Result) -> Result:
    """Hide secrets in everything the agent will read."""
    mask = masking.Masker()
    result.output = mask(result.output) or ""
    result.screen = mask(result.screen)
    result.error = mask(result.error)
    result.extra = _mask_all(result.extra, mask)
    return result


def _mask_all(value: Any, mask: masking.Masker) -> Any:
    """Every string in the extra fields, however nested (list and wait rows too)."""
    if isinstance(value, str):
        return mask(value)
    if isinstance(value, dict):
        return {k: _mask_all(v, mask) for k, v in value.items()}
    if isinstance(value, list):
        return [_mask_all(v, mask) for v in value]
    return value


def dispatch(action: str, args: Mapping[str, Any] | None = None) -> Result:
    """Run one action by name; every failure becomes ``ok: false`` with a sentence.  The result is
    named after the action here, once: what made it (a run, a send, a refusal) does not say."""
    name = str(action or "").strip()
    given = dict(args or {})
    result = _dispatch(name, given)
    result.action = name[:40] or "?"
    _name_host(result, given.get("host"))
    if trace.on():
        trace.event("result", action=result.action, session=result.session, ok=result.ok,
                    status=str(result.status), error=result.error, exit_code=result.exit_code,
                    evidence=result.extra.get("evidence"), host=result.extra.get("host"))
    if notify.urls():
        _tell_the_human(result)
    return result


def _tell_the_human(result: Result) -> None:
    """The human learns of a prompt only the human answers, wherever they are
    (``TMUX_TOOL_NOTIFY``): once per prompt, and once more when a later judged result of its session
    no longer needs them.  A failure here is the notifier's, never the agent's call's."""
    session, connection = result.session, result.extra.get("connection")
    host = str(connection or result.extra.get("host") or "")
    if not session:
        return
    try:
        root = config.load().state_root
        if result.extra.get("needs_human"):
            notify.asked(root, notify.Prompt(host=host, session=session,
                                             reader=str(result.extra.get("secret_reader") or ""),
                                             question=str(result.extra.get("question") or ""),
                                             where=str(result.extra.get("where") or ""),
                                             connecting=connection is not None))
        elif result.ok and result.status != Status.UNKNOWN:
            notify.settled(root, host, session)
    except Exception as exc:  # noqa: BLE001 - the tool must never raise into the agent loop
        notify.log_once(
            config.load().state_root / notify.LOG, f"notifying failed: {type(exc).__name__}"
        )


def _connection(ctx: Context, session: str | None) -> str | None:
    """The host whose ssh connection runs in ``session`` here (None: the session is no
    connection)."""
    if ctx.host_name is not None or not session:
        return None
    return hosts.connection_in(Tmux(ctx.cfg.private_socket), session)


def _then_call_again(host: str) -> str:
    return f"once the human has answered ssh there, make your call on {host} again"


def _connecting(exc: HostWaits, host: str | None, then: str, error: str = "") -> Result:
    """ssh asks the human something in its session here as it connects to ``host`` (a password, a
    passphrase, a new host key): what the agent is told (``error``, else ssh's question), and what
    to call once the human has answered (``then``)."""
    where = human.where_to_type(config.load(), exc.session)
    return failure(error or str(exc), session=exc.session, status=Status.BLOCKED, needs_human=True,
                   question=exc.question, program="ssh", where=where, connection=host,
                   hint=_connection_hint(exc.session, secret=exc.secret, where=where,
                                         then=f"once they have answered, {then}"))


def _connection_hint(session: str, *, secret: bool, where: str, then: str) -> str:
    """What the agent does about ssh's question in ``session`` (the connection to a host).

    The call made again is what proceeds: it finds the connection up and goes on, or, made before
    the human has answered, says the same.  Nothing is to be waited for in the session: once
    connected, ssh shows nothing more.  The session is the connection itself: a key the agent
    sends there, an interrupt above all, would end it.  The human answers at ``where``
    (:func:`human.where_to_type`).
    """
    if secret:
        ask = ("ssh asks for a secret to connect (a password or a key's passphrase): the human "
               "types it, never you (never ask for it in chat). Tell the human in one sentence to "
               f"type it at {where}")
    else:
        ask = ("ssh asks the human a question to connect (for a new host key: whether to trust it, "
               "a yes/no question, not a secret: the human checks the key's fingerprint first). "
               f"Tell the human in one sentence to answer it at {where}")
    return (f"{ask}; {then}: it goes on over the new connection (made before that, it answers "
            f"blocked again). Leave {session} to the human: it is the connection itself, and any "
            "key the agent sends there can end it")


def _name_host(result: Result, host: object) -> None:
    """Every answer about a host names it, a failure too: an agent working on several hosts at once
    must know where a result (and what it tells to do) comes from.  A name that cannot be a host is
    left out: the error says what is wrong with it."""
    if host is None or host == "":
        return
    try:
        result.extra.setdefault("host", hosts.check(host))
    except BadInput:
        pass


def _dispatch(name: str, args: dict[str, Any]) -> Result:
    spec = ACTIONS.get(name)
    if spec is None:
        return failure(f"unknown action {brief(name)}; the actions are: {', '.join(ACTIONS)}",
                       status=Status.UNKNOWN)
    session = args.get("session") if isinstance(args.get("session"), str) else None
    if trouble := registry.refresh():
        fix = (f"make that folder or take it out of {registry.VARIABLE}"
               if trouble.startswith(registry.VARIABLE) else "fix or remove that file")
        return failure(trouble, session=session, status=Status.UNKNOWN,
                       hint=f"{fix}, then call again (no action runs until then); tell the human "
                       "if the file is not yours")
    ctx: Context | None = None
    try:
        bound = bind(name, spec.args, args)
        if "timeout" in bound:  # the call's one deadline, made here and carried by every step
            bound["deadline"] = Deadline(bound.pop("timeout"))
        cfg = config.load()
        ctx = Context(cfg, bound.pop("host"))
        if name in TYPING and (holder := _held(ctx, session)):
            return failure(
                message("human_holds", session=session),
                session=session,
                status=Status.UNKNOWN,
                hint=message("human_holds_hint"),
                held_by=holder,
            )
        connection = _connection(ctx, session)
        if connection is not None and name in NOT_ON_CONNECTIONS:
            return failure(f"session {session} is the ssh connection to {connection}: the agent "
                           "never types or waits there (ssh asks the human there what it needs to "
                           "connect)", session=session,
                           status=Status.UNKNOWN, hint=_then_call_again(connection))
        result = spec.handler(ctx, **bound)
        if connection is not None:
            result.extra["connection"] = connection
        if result.extra.get("needs_human") and result.session:
            where = result.extra["where"] = human.where_to_type(cfg, result.session, ctx.place)
            result.hint = (human.hint(result.extra.get("program"), where) if connection is None else
                           _connection_hint(result.session, secret=True, where=where,
                                            then=_then_call_again(connection)))
        return _masked(result)
    except LinkLost as exc:
        if isinstance(exc.cause, HostWaits):
            return _masked(
                _connecting(exc.cause, ctx.host_name if ctx else None, f"call {exc.then}", str(exc))
            )
        return _masked(
            failure(
                str(exc),
                session=exc.session,
                status=Status.BUSY,
                started=True,
                hint=f"do not run the command again: once the host is reachable, call {exc.then}",
            )
        )
    except HostWaits as exc:
        return _masked(
            _connecting(exc, ctx.host_name if ctx else None, f"make this call ({name}) again")
        )
    except BadInput as exc:
        return failure(str(exc), session=session, status=Status.UNKNOWN)
    except NoServer as exc:
        return failure(f"{exc}; a private server starts by itself on the next run or start",
                       session=session)
    except NoTarget as exc:
        return failure(f"{exc}", session=session, hint="list shows the sessions that exist")
    except TmuxError as exc:
        return failure(str(exc), session=session)
    except OSError as exc:
        if (unwritable := _state_trouble(exc)) is None:
            return _internal(exc, session)
        return failure(unwritable, session=session)
    except Exception as exc:  # noqa: BLE001 - the tool must never raise into the agent loop
        return _internal(exc, session)


def _internal(exc: Exception, session: str | None) -> Result:
    """A failure the tool has no sentence for: where it happened, for the report."""
    import traceback

    where = traceback.extract_tb(exc.__traceback__)[-1]
    return failure(f"internal error {type(exc).__name__}: {exc} (at "
                   f"{where.filename.rsplit('/', 1)[-1]}:{where.lineno}); please "
                   "report it", session=session)


def _state_trouble(exc: OSError) -> str | None:
    """The sentence for a file of the tool's own state folder that cannot be made or written (None
    when the file is elsewhere): the person fixes the folder, or names another, and calls again."""
    root = config.load().state_root
    path = Path(os.fsdecode(exc.filename)) if isinstance(exc.filename, (str, bytes)) else None
    if exc.errno not in _UNWRITABLE or path is None or not (path == root or root in path.parents):
        return None
    return (f"the tool cannot write its state folder {root} ({exc.strerror or exc}: {path}): make "
            "it writable for this user (or free space there), or set TMUX_TOOL_STATE_DIR to a "
            "folder that is, then call again")
