"""What each action does, once its arguments are checked (:mod:`.actions` holds the table).

The handlers of ``start``, ``ask`` and ``exit`` live in the drive layer
(:mod:`.drive`), which loads every program profile; these do without it.
A handler returns a :class:`~.core.result.Result` or raises one of the
errors of :mod:`.core.errors`; the dispatcher turns the errors into
results.
"""

from __future__ import annotations

from typing import Any

import regex

from .core.args import brief
from .core.clock import Deadline
from .core.errors import BadArgs, BadName, TmuxError
from .core.messages import message
from .core.result import Extra, Result, failure
from .core.status import Status
from .judgement import human
from .sessions import observe
from .sessions.context import Context
from .sessions.session import Session
from .transport import keyboard, panes


def do_run(ctx: Context, command: str, session: str | None, deadline: Deadline) -> Result:
    ses = ctx.session(session, default=ctx.cfg.scratch_session)
    if not command.strip():
        return failure("the command is empty", session=ses.name, status=Status.UNKNOWN,
                       hint="give the shell command to run, e.g. command: 'ls -la'")
    keyboard.check_text(command)
    return ses.run(command, deadline)


def do_send(ctx: Context, text: str, session: str | None, enter: bool, deadline: Deadline,
            force: bool) -> Result:
    ses = ctx.session(session, default=ctx.cfg.shared_session, fresh=bool(text.strip()))
    keyboard.check_text(text)
    if not text and not enter:
        return failure("nothing to send: the text is empty and enter is false",
                       session=ses.name, status=Status.UNKNOWN)
    if (missing := ses.unavailable()) is not None:
        return missing
    return ses.send(text, enter=enter, deadline=deadline, force=force)


def do_keys(
    ctx: Context, keys: list[str], session: str | None, deadline: Deadline, force: bool
) -> Result:
    ses = ctx.session(session, default=ctx.cfg.shared_session)
    names_ = keyboard.key_names(keys)
    if (missing := ses.unavailable()) is not None:
        return missing
    return ses.keys(names_, deadline=deadline, force=force)


def do_read(ctx: Context, session: str | None, lines: int | None) -> Result:
    ses = ctx.session(session, default=ctx.cfg.shared_session)
    if (missing := ses.unavailable()) is not None:
        return missing
    st = observe.state_of(ses, settle=True)
    if st.snap is None or st.facts is None:
        return failure(st.evidence, session=ses.name)
    facts = st.facts
    rows = panes.scrollback(ses.target.tmux, ses.target.pane, lines) if lines else st.snap.lines
    hint = None
    notes: dict[str, Any] = {}
    if (
        lines
        and len(rows) < lines
        and facts.history_limit
        and facts.history_size >= facts.history_limit * 9 // 10
    ):
        # tmux drops the oldest tenth of its history each time it reaches the limit: what is asked
        # for is gone.
        notes["output_truncated"] = True
        hint = (f"only {len(rows)} of the {lines} lines asked for are left: the pane's "
                f"history-limit is {facts.history_limit} lines and older ones were dropped")
    res = ses.report(st, hint=hint, cursor=list(facts.cursor), size=[facts.width, facts.height],
                     alternate=facts.alternate, lines=lines, **notes)
    if lines:
        res.screen = "\n".join(rows)
    return res


def do_status(ctx: Context, session: str | None) -> Result:
    ses = ctx.session(session, default=ctx.cfg.shared_session)
    if (missing := ses.unavailable()) is not None:
        return missing
    st = observe.state_of(ses, settle=True)
    if st.snap is None:
        return failure(st.evidence, session=ses.name)
    res = ses.report(st, exit_code=st.exit_code)
    if st.options and human.page_looking():
        from .sessions import tap

        # which question the page's buttons answer: a press sends it back
        res.extra["asked"] = tap.asked(st)
    return _heard(ses, res)


def _heard(ses: Session, res: Result) -> Result:
    """A result of status or wait with what the human answered there from the page since the last
    one."""
    ses.heard(res)
    return res


def do_wait(ctx: Context, session: str | None, sessions: list[str] | None, mode: str, until: str,
            pattern: str | None, deadline: Deadline) -> Result:
    if session and sessions:
        raise BadArgs("give either session or sessions, not both")
    wanted = sessions or [session if session is not None else ctx.cfg.shared_session]
    found = [ctx.session(n, default=ctx.cfg.shared_session) for n in wanted]
    for ses in found:
        if (missing := ses.unavailable()) is not None:
            return missing
    compiled = None
    if pattern:
        try:
            compiled = regex.compile(pattern, regex.MULTILINE)
        except regex.error as exc:
            raise BadArgs(
                f"pattern {brief(pattern)} is not a valid regular expression: {exc}"
            ) from None
    if len(found) == 1 and until == "ready" and compiled is None:
        exact = found[0].wait_exact(deadline)
        if exact is not None:
            return _heard(found[0], exact)
    watches = [observe.Watch(ses, until, compiled, observe.DEFAULT_STABLE) for ses in found]
    ok = observe.wait_all(watches, mode, deadline)
    if len(watches) == 1:
        w = watches[0]
        res = w.session.report(w.last, ok=ok)
        w.session.waited(res, w.last)
        if res.error is None and not ok:
            res.error = (f"{_not_seen(w.session.name, until, pattern)} within {deadline.seconds:g}s (it is "
                         f"{w.last.status})")
            res.hint = message("wait_timeout_hint")
        elif ok:
            res.extra["reason"] = w.reason
        return _heard(w.session, res)
    rows = [
        {
            "session": w.session.name,
            "status": w.last.status,
            "done": w.done,
            "evidence": w.last.evidence,
            "program": w.last.program,
            **w.session.where(w.last),
        }
        for w in watches
    ]
    done = [w.session.name for w in watches if w.done]
    status = (
        watches[0].last.status
        if len(done) == len(watches)
        else (Status.READY if done else Status.BUSY)
    )
    seen = f"showed the pattern {brief(pattern)}" if pattern else f"became {until}"
    return Result(
        ok=ok,
        session=",".join(wanted),
        status=status,
        error=None if ok else f"not {mode} of {', '.join(wanted)} {seen} within {deadline.seconds:g}s",
        extra={"sessions": rows, "done": done, "mode": mode},
    )


def _not_seen(who: str, until: str, pattern: str | None) -> str:
    """What a wait waited for and did not see, in words: the agent chooses its next step from it."""
    if pattern:
        return f"the pattern {brief(pattern)} did not appear on the screen of {who}"
    if until == "ready":
        return f"{who} did not become ready"
    return f"the screen of {who} did not {'change' if until == 'change' else 'hold still'}"


def do_interrupt(ctx: Context, session: str | None, deadline: Deadline) -> Result:
    ses = ctx.session(session, default=ctx.cfg.shared_session)
    if (missing := ses.unavailable()) is not None:
        return missing
    return ses.interrupt(deadline)


def do_list(ctx: Context) -> Result:
    """The sessions here (with the shared one), or on the action's host; here, also those of every
    host connected now.  A host used before but not connected is named, not reached: that could take
    long."""
    rows: list[dict[str, Any]] = []
    local = ctx.host_name is None
    contexts = (
        [ctx, *(Context(ctx.cfg, name) for name in ctx.connected_hosts())] if local else [ctx]
    )
    away: list[str] = []
    for each in contexts:
        try:
            found = each.private.names()
        except TmuxError:
            away.append(each.host_name or "")
            continue
        for name in ([ctx.cfg.shared_session] if each is ctx and local else []) + found:
            try:
                ses = each.session(name, default=name)
                if ses.unavailable() is None:
                    rows.append(ses.row())
            except (BadName, TmuxError):
                continue
    extra = Extra(sessions=rows)
    if local and (idle := sorted(set(ctx.known_hosts()) - set(ctx.connected_hosts()) | set(away))):
        extra["hosts_not_connected"] = idle
    return Result(
        status=Status.READY,
        extra=extra,
        output="" if rows else "no sessions",
        hint=None
        if rows
        else "start the shared terminal with apps/shared-terminal/start.sh, "
        "or create a private session with run or start",
    )


def do_kill(ctx: Context, session: str) -> Result:
    return ctx.session(session, default=session).kill()
