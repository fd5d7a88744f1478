"""What each action does, once its arguments are checked (:mod:`.actions` holds the table).

The handlers of ``start``, ``ask`` and ``exit`` live in the drive layer
(:mod:`.drive`), which loads every program profile; these do without it.
A handler returns a :class:`~.core.result.Result` or raises one of the
errors of :mod:`.core.errors`; the dispatcher turns the errors into
results.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

from .core.args import brief
from .core.errors import BadArgs, BadName, TmuxError
from .core.messages import message
from .core.result import Result, failure
from .core.status import Status
from .judgement.state import State, pane_info, reported
from .private import markers, runs
from .sessions.context import Context, Target
from .shared import where
from .transport import keyboard


def _state_result(action: str, target: Target, st: State, *, ok: bool = True, **extra: Any) -> Result:
    """A result that reports a session's state (``status`` also gives the last exit code)."""
    return reported(st, action, target.name, ok=ok, exit_code=st.exit_code if action == "status" else None,
                    pane=target.shared, **extra)


def _unavailable(ctx: Context, target: Target, action: str) -> Result | None:
    """A private session must exist; the shared session's pane must not have been closed under our command."""
    if target.lost:
        return failure(action, target.lost, session=target.name, status=Status.ERROR,
                       hint="ask the human what became of it if it mattered; the next call uses the pane the "
                            "human is looking at, or name one (shared:WINDOW.PANE)")
    if target.shared:
        return None
    if not target.tmux.has_session(target.name):
        return failure(action, f"there is no private session {target.name!r}", session=target.name,
                       hint=message("no_session_hint"))
    return None


def _blocked_early(ctx: Context, target: Target, action: str) -> Callable[[], Result | None]:
    """Between quiet seconds of a running command: stop waiting if it asks a question, or if it opened
    a program that waits for input (the editor of ``git merge``, a REPL): it will not end by itself."""

    def check() -> Result | None:
        from .sessions import observe

        st = observe.state_of(ctx, target)
        if st.status == Status.BLOCKED:
            return _state_result(action, target, st, hint=message("question"))
        if st.status == Status.READY and st.program not in (None, "bash") and not st.exact:
            st.status = Status.BLOCKED
            st.evidence = f"the command opened {st.program}, which waits for input ({st.evidence})"
            return _state_result(action, target, st, hint=message("opened_program", program=st.program))
        return None

    return check


def do_run(ctx: Context, command: str, session: str | None, timeout: float) -> Result:
    target = ctx.target(session, default=ctx.cfg.scratch_session)
    if target.shared:
        named = f"the session name {session!r} names the shared terminal: " if session != target.name else ""
        return failure("run", named + message("shared_run_refused"), session=target.name, status=Status.UNKNOWN,
                       hint=message("shared_run_refused_hint"))
    if not command.strip():
        return failure("run", "the command is empty", session=target.name, status=Status.UNKNOWN,
                       hint="give the shell command to run, e.g. command: 'ls -la'")
    keyboard.check_text(command)
    result = runs.run(ctx.private, target.name, command, timeout,
                         on_slice=_blocked_early(ctx, target, "run"))
    if result.status == Status.BUSY and result.ok:
        from .sessions import observe

        st = observe.state_of(ctx, target)
        result.screen = st.snap.text if st.snap else None
    return result


def do_send(ctx: Context, text: str, session: str | None, enter: bool, timeout: float,
            force: bool) -> Result:
    from . import programs
    from .sessions import observe
    from .shared import send

    target = ctx.target(session, default=ctx.cfg.shared_session, fresh=bool(text.strip()))
    keyboard.check_text(text)
    if not text and not enter:
        return failure("send", "nothing to send: the text is empty and enter is false",
                       session=target.name, status=Status.UNKNOWN)
    if (missing := _unavailable(ctx, target, "send")) is not None:
        return missing
    if target.shared:
        return send.send(ctx.cfg, target, text, enter=enter, timeout=timeout, force=force)
    shell = ctx.private.shell(target.name)
    profile = programs.profile_for(shell.program) if shell and shell.program else None
    before = observe.state_of(ctx, target)
    if before.status == Status.BUSY and len(text.encode("utf-8", "surrogateescape")) >= 4096:
        return failure("send", f"{before.evidence}; it is not reading input, and {len(text)} characters would "
                       "overflow the terminal's 4 KiB input buffer and queue up in front of Ctrl+C",
                       session=target.name, status=Status.BUSY,
                       hint="wait until it asks for input, or interrupt it; pass long text in a file")
    if profile is None and before.program:
        profile = programs.profile_for(before.program)
    submit = list(profile.submit) if profile else ["Enter"]
    keyboard.paste(target.tmux, target.pane, text, bracketed=profile.paste if profile else True,
                   then=submit if enter else ())
    return _settle(ctx, target, "send", timeout, before.snap.digest if before.snap else None)


def _settle(ctx: Context, target: Target, action: str, timeout: float, before: str | None) -> Result:
    """After typing into a private session: wait until it has reacted and settled."""
    from .sessions import observe

    deadline = time.monotonic() + timeout
    watch = observe.Watch(target, "ready", None, observe.DEFAULT_STABLE)
    changed = False
    while True:
        watch.step(ctx, time.monotonic())
        st = watch.last
        changed = changed or (st.snap is not None and st.snap.digest != before)
        if changed and watch.done:
            if st.exact:  # the shell's marker comes just before it draws the prompt
                time.sleep(observe.POLL)
                st = observe.state_of(ctx, target)
            break
        if time.monotonic() >= deadline:
            break
        watch.done = False
        time.sleep(observe.POLL)
    return _state_result(action, target, st)


def do_keys(ctx: Context, keys: list[str], session: str | None, timeout: float, force: bool) -> Result:
    from .sessions import observe
    from .shared import send

    target = ctx.target(session, default=ctx.cfg.shared_session)
    names_ = keyboard.key_names(keys)
    if (missing := _unavailable(ctx, target, "keys")) is not None:
        return missing
    if target.shared:
        return send.send(ctx.cfg, target, "", enter=False, timeout=max(timeout, 2.0), force=force,
                         action="keys", keys=tuple(names_))
    before = observe.state_of(ctx, target)
    keyboard.press(target.tmux, target.pane, names_)
    return _settle(ctx, target, "keys", timeout, before.snap.digest if before.snap else None)


def do_read(ctx: Context, session: str | None, lines: int | None) -> Result:
    from .sessions import observe
    from .shared import judge
    from .transport import panes

    target = ctx.target(session, default=ctx.cfg.shared_session)
    if target.shared and not target.tmux.has_session(target.name):
        return failure("read", judge.missing(target.name, target.tmux.socket), session=target.name)
    if (missing := _unavailable(ctx, target, "read")) is not None:
        return missing
    st = observe.state_of(ctx, target, settle=True)
    if st.snap is None or st.facts is None:
        return failure("read", st.evidence, session=target.name)
    rows = panes.scrollback(target.tmux, target.pane, lines) if lines else st.snap.lines
    facts = st.facts
    extra: dict[str, Any] = {"program": st.program, "evidence": st.evidence, "cursor": list(facts.cursor),
                             "size": [facts.width, facts.height], "alternate": facts.alternate, "lines": lines}
    if target.shared:
        extra["pane"] = pane_info(facts)
    hint = None
    if lines and len(rows) < lines and facts.history_limit and facts.history_size >= facts.history_limit * 9 // 10:
        # tmux drops the oldest tenth of its history each time it reaches the limit: what is asked for is gone.
        extra["output_truncated"] = True
        hint = (f"only {len(rows)} of the {lines} lines asked for are left: the pane's history-limit is "
                f"{facts.history_limit} lines and older ones were dropped")
    text = "\n".join(rows) if lines else st.snap.text
    return Result(action="read", session=target.name, status=st.status, screen=text, hint=hint, extra=extra)


def do_status(ctx: Context, session: str | None) -> Result:
    from .sessions import observe
    from .shared import control

    target = ctx.target(session, default=ctx.cfg.shared_session)
    if (missing := _unavailable(ctx, target, "status")) is not None:
        return missing
    st = observe.state_of(ctx, target, settle=True)
    if st.snap is None:
        return failure("status", st.evidence, session=target.name)
    if target.shared and st.facts is not None and st.facts.paused:
        res = _state_result("status", target, st, paused=True)
        res.hint = f"{control.PAUSED}: {control.PAUSED_HINT}"
        return res
    return _state_result("status", target, st)


def do_wait(ctx: Context, session: str | None, sessions: list[str] | None, mode: str, until: str,
            pattern: str | None, timeout: float) -> Result:
    from .sessions import observe
    from .shared import judge, output, send

    if session and sessions:
        raise BadArgs("give either session or sessions, not both")
    wanted = sessions or [session if session is not None else ctx.cfg.shared_session]
    targets = [ctx.target(n, default=ctx.cfg.shared_session) for n in wanted]
    for t in targets:
        if t.shared and not t.tmux.has_session(t.name):
            return failure("wait", judge.missing(t.name, t.tmux.socket), session=t.name)
        if (missing := _unavailable(ctx, t, "wait")) is not None:
            return missing
    regex = None
    if pattern:
        try:
            regex = re.compile(pattern, re.MULTILINE)
        except re.error as exc:
            raise BadArgs(f"pattern {brief(pattern)} is not a valid regular expression: {exc}") from None
    if len(targets) == 1 and until == "ready" and regex is None and not targets[0].shared:
        exact = _wait_run(ctx, targets[0], timeout)
        if exact is not None:
            return exact
    watches = [observe.Watch(t, until, regex, observe.DEFAULT_STABLE) for t in targets]
    ok = observe.wait_all(ctx, watches, mode, timeout)
    if len(watches) == 1:
        w = watches[0]
        res = _state_result("wait", w.target, w.last, ok=ok)
        if w.target.shared and w.last.status in (Status.READY, Status.BLOCKED):
            # A command of ours that outlived its send: its output is given here, once, when its prompt is back.
            res.output, res.hint, notes = output.deliver(ctx.cfg, send.owed_output(w.target, w.last), w.last.facts)
            res.extra.update(notes)
        if w.target.shared and w.last.status == Status.ERROR and (w.last.facts is None or w.last.facts.dead):
            res.error = w.last.evidence  # the pane was closed, or its shell exited: what ran there is over
            res.hint = "ask the human what became of it; the next call uses the pane the human is looking at"
        elif not ok:
            res.error = f"{w.target.name} did not become {until} within {timeout:g}s (it is {w.last.status})"
            res.hint = message("wait_timeout_hint")
        else:
            res.extra["reason"] = w.reason
        return res
    rows = [{"session": w.target.name, "status": w.last.status, "done": w.done,
             "evidence": w.last.evidence, "program": w.last.program,
             **({"pane": pane_info(w.last.facts)} if w.target.shared else {})} for w in watches]
    done = [w.target.name for w in watches if w.done]
    status = watches[0].last.status if len(done) == len(watches) else (Status.READY if done else Status.BUSY)
    return Result(action="wait", ok=ok, session=",".join(wanted), status=status,
                  error=None if ok else f"not {mode} of {', '.join(wanted)} became {until} "
                                        f"within {timeout:g}s",
                  extra={"sessions": rows, "done": done, "mode": mode})


def _wait_run(ctx: Context, target: Target, timeout: float) -> Result | None:
    """A private shell running a command: wait on its markers, return its output."""
    srv = ctx.private
    shell = srv.shell(target.name)
    rec = runs.load_record(srv, target.name)
    if shell is None or rec is None or shell.program is not None:
        return None
    mark = markers.last_mark(shell.log_path, shell.nonce)
    running = mark is not None and mark.kind == "S" and mark.start >= rec.offset
    if not running and rec.collected:
        return None  # nothing of ours is pending: judge the screen instead
    if running and mark is not None:
        rec = runs.running_record(srv, target.name, mark)
    res = runs.collect(srv, shell, rec, timeout, action="wait",
                          on_slice=_blocked_early(ctx, target, "wait"))
    if res.status == Status.BUSY:
        res.ok = False
        res.error = f"{runs.describe(rec)} is still running after {timeout:g}s"
    return res


def do_interrupt(ctx: Context, session: str | None, timeout: float) -> Result:
    from .shared import guard, send

    target = ctx.target(session, default=ctx.cfg.shared_session)
    if (missing := _unavailable(ctx, target, "interrupt")) is not None:
        return missing
    if target.shared:
        if not guard.ours(send.state(target)):
            return failure("interrupt", message("shared_interrupt_refused"), session=target.name,
                           status=Status.UNKNOWN, hint="ask the human to stop it")
        return send.send(ctx.cfg, target, "", enter=False, timeout=timeout, force=True, action="interrupt",
                         keys=("C-c",))
    keyboard.press(target.tmux, target.pane, ["C-c"])
    exact = _wait_run(ctx, target, timeout)
    if exact is not None:
        exact.action = "interrupt"
        return exact
    return _settle(ctx, target, "interrupt", timeout, None)


def do_list(ctx: Context) -> Result:
    from .sessions import observe

    rows: list[dict[str, Any]] = []
    shared_t = ctx.target(ctx.cfg.shared_session, default=ctx.cfg.shared_session)
    if shared_t.tmux.has_session(shared_t.name):
        st = observe.state_of(ctx, shared_t)
        rows.append({"session": shared_t.name, "server": f"shared ({ctx.cfg.shared_socket})",
                     "program": st.program, "status": st.status, "evidence": st.evidence,
                     "pane": pane_info(st.facts), "panes": where.panes(shared_t.tmux, shared_t.name)})
    for name in ctx.private.names():
        try:
            t = ctx.target(name, default=name)
            st = observe.state_of(ctx, t)
            rows.append({"session": name, "server": f"private ({ctx.cfg.private_socket})",
                         "program": st.program, "status": st.status, "evidence": st.evidence})
        except (BadName, TmuxError):
            continue
    return Result(action="list", status=Status.READY, extra={"sessions": rows},
                  output="" if rows else "no sessions",
                  hint=None if rows else "start the shared terminal with apps/shared-terminal/start.sh, "
                                        "or create a private session with run or start")


def do_kill(ctx: Context, session: str) -> Result:
    target = ctx.target(session, default=session)
    if target.shared:
        return failure("kill", "the shared session is the human's terminal; the tool never ends it",
                       session=target.name, status=Status.UNKNOWN,
                       hint="stop it yourself with apps/shared-terminal/stop.sh --kill-session if you must")
    existed = ctx.private.kill(target.name)
    if not existed:
        return failure("kill", f"there is no private session {target.name!r}", session=target.name,
                       status=Status.UNKNOWN, hint="list shows the sessions that exist")
    return Result(action="kill", session=target.name, status=Status.READY, output=f"session {target.name} ended")
