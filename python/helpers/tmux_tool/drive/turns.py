"""``start``, ``ask`` and ``exit``: driving an interactive program by its profile.

A program runs in a private session, started from the session's own shell,
so the shell's markers say exactly when (and with which exit code) it ends.
Its profile (:mod:`programs`) says how it looks ready, busy or blocked, how
text reaches it (bracketed paste for TUIs), which key submits, how it is left
and how its last answer is cut out of the screen.

``ask`` is the careful turn: the input must be ready, the prompt is pasted
and submitted, the turn must visibly start (else one more submit), and
"done" needs the program's ready state *after* the turn started, holding
still - never just "an idle prompt is visible", which Ink TUIs show even
while they work.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Sequence

from .. import programs, screen
from ..core import names
from ..core.args import brief
from ..core.messages import message
from ..core.result import Result, failure
from ..core.state import State
from ..private import markers, runs
from ..private.server import PrivateServer, Shell
from ..programs import Profile
from ..programs.ai import AiProfile, squash
from ..screen.snapshot import Snapshot, Span
from ..sessions import observe
from ..sessions.context import Context, Target
from ..transport import keyboard, panes

SKIP_ENV = frozenset({"TMUX", "TMUX_PANE", "PWD", "OLDPWD", "SHLVL", "_", "TT_NONCE", "TT_DIR", "COLUMNS",
                      "LINES"})
TURN_START = 3.0  # seconds for a submitted prompt to visibly start a turn
PASTE_SHOWN = 3.0  # seconds for pasted text to show in an input box
POLL = 0.05
SIGNED_SETTLE = 0.15  # quiet needed when the screen shows the program's own end-of-turn sign
UNSEEN_BUSY_SETTLE = 2.0  # quiet needed when a turn was never seen busy and shows no end sign
TRANSCRIPT_LINES = 3000
MAX_PAGES = 60


def _settle_for(profile: Profile, *, starting: bool = False) -> float:
    """How long a program's ready screen must hold still to count as done.

    AI CLIs may stream with no busy marker and pause between chunks, and
    draw their first screen in stages, so their profiles say how long; a
    REPL's prompt needs only a short look.
    """
    if isinstance(profile, AiProfile):
        return profile.start_settle if starting else profile.settle
    return 0.15


def _env_file(srv: PrivateServer, ctx_env: dict[str, str], name: str) -> str | None:
    """Write the caller's environment changes to a 0600 file the launch line sources.

    The tmux server keeps the environment it was started with; a program
    started now should see the caller's (HOME, PATH, API keys).  Values never
    go on a command line, where other users could read them.
    """
    try:
        base = srv.tmux.cmd("show-environment", "-g")
    except Exception:  # noqa: BLE001 - a missing server just means no base
        base = ""
    server_env = dict(line.split("=", 1) for line in base.splitlines() if "=" in line and not line.startswith("-"))
    changed = {k: v for k, v in ctx_env.items() if k not in SKIP_ENV and server_env.get(k) != v
               and k.replace("_", "").isalnum()}
    if not changed:
        return None
    path = srv.session_dir(name) / "launch.env"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.writelines(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(changed.items()))
    return str(path)


def do_start(ctx: Context, program: str, session: str | None, cwd: str | None, args: list[str] | None,
             timeout: float, accept: list[str] | None, skip_permissions: bool) -> Result:
    if len(program) > 8192:
        return failure("start", f"the program line is {len(program)} characters; the limit is 8192",
                       status="unknown", hint="put a long script in a file and start that")
    profile = programs.profile_for(program)
    if profile is not None:
        argv = profile.launch(args or (), skip_permissions=skip_permissions)
        if "/" in program:
            argv[0] = program  # the file the caller named, not the profile's executable on PATH
    else:
        try:
            words = shlex.split(program)
        except ValueError as exc:
            return failure("start", f"the program line cannot be split into words ({exc})", status="unknown",
                           hint="balance the quotes, or give the arguments in args")
        argv = [*words, *(args or ())]
        if not argv:
            return failure("start", "the program is empty", status="unknown",
                           hint="name a profile (claude, codex, gemini, opencode, python3, ...) or a command")
        profile = programs.profile_or_generic(argv[0])
    label = profile.name
    label = "".join(c if c.isprintable() else "?" for c in label)[:60]
    name = names.check(session) if session else names.generate(label)
    if name == ctx.cfg.shared_session:
        return failure("start", "programs start in private sessions, not in the shared terminal",
                       session=name, status="unknown", hint="leave out session to get a new private one")
    srv = ctx.private
    if srv.exists(name):
        return failure("start", f"session {name!r} already exists", session=name, status="unknown",
                       hint="use another name, leave it out for a generated one, or kill the old session")
    if cwd and not os.path.isdir(cwd):
        return failure("start", f"the directory {brief(cwd)} does not exist", session=name, status="unknown")
    srv.create(name, cwd=cwd)
    env_file = _env_file(srv, dict(os.environ), name)
    line = shlex.join(argv)
    if env_file:
        line = f". {shlex.quote(env_file)}; rm -f {shlex.quote(env_file)}; {line}"
    launched = runs.run(srv, name, line, timeout=0)
    if not launched.ok:
        return launched
    srv.set_program(name, label)
    target = Target(name, False, srv.tmux)
    return _await_start(ctx, target, profile, label, timeout, set(accept or _default_accept()))


def _default_accept() -> list[str]:
    raw = os.environ.get("TMUX_TOOL_ACCEPT_DIALOGS", "")
    return [w for w in raw.replace(",", " ").split() if w]


def _await_start(ctx: Context, target: Target, profile: Profile, label: str, timeout: float,
                 accept: set[str]) -> Result:
    """Wait until the program is ready or asks something; answer only dialogs allowed."""
    deadline = time.monotonic() + timeout
    last, since = None, time.monotonic()
    answered: list[str] = []
    settle = _settle_for(profile, starting=True)
    while True:
        st = observe.state_of(ctx, target)
        now = time.monotonic()
        digest = st.snap.digest if st.snap else None
        if digest != last:
            last, since = digest, now
        blank = st.snap is None or not "".join(st.snap.lines[1:]).strip()
        if st.status == "error" or (st.exact and st.status == "ready"):
            return _result("start", target, st, ok=False, error=f"{label} ended while starting: {st.evidence}",
                           hint="read the session's screen for its message", answered=answered)
        dialog = profile.find_dialog(st.snap.text) if (st.snap and st.status == "blocked") else None
        # The keys come from the screen: releases move a dialog's default (see Profile.accept_keys).
        keys = profile.accept_keys(st.snap, dialog) if (st.snap and dialog) else ()
        allowed = dialog is not None and bool(keys) and dialog.name not in answered and (
            dialog.name in accept or ("safe" in accept and dialog.safe))
        if dialog and allowed and now - since >= min(settle, 0.3):
            _press_one_by_one(ctx, target, list(keys))
            if dialog.choose is None or keys[-1] == "Enter":  # else one step toward its option: look again
                answered.append(dialog.name)
            last = None
            time.sleep(POLL)
            continue
        if st.status in ("ready", "blocked") and not blank and now - since >= settle:
            if st.status != "blocked":
                return _result("start", target, st, answered=answered)
            hint = message("blocked", program=label)
            if not dialog:
                return _result("start", target, st, hint=hint, answered=answered)
            how = (f"keys {' '.join(keys)} accept it" if dialog.choose is None else
                   f"the option matching {dialog.choose.pattern!r} accepts it (now: {' '.join(keys)})")
            hint += (f". It is the {dialog.name!r} dialog: {how} (start answers it by itself when given "
                     f"accept=[{dialog.name!r}])" if keys else f". It is the {dialog.name!r} dialog, which needs the human")
            return _result("start", target, st, hint=hint, answered=answered, dialog=dialog.name, safe=dialog.safe)
        if now >= deadline:
            return _result("start", target, st, ok=False,
                           error=f"{label} was not ready within {timeout:g}s (it is {st.status}: {st.evidence})",
                           hint="wait for it with wait, or read its screen", answered=answered)
        time.sleep(POLL)


def _press_one_by_one(ctx: Context, target: Target, keys: list[str]) -> None:
    """Press keys one at a time, each after the screen answered the one before.

    Ink TUIs read a burst such as Up+Enter as one unknown sequence, so the
    Enter of "move to Yes, confirm" would land on the default (No).
    """
    for i, key in enumerate(keys):
        before = panes.look(target.tmux, target.pane)[0].digest
        keyboard.press(target.tmux, target.pane, [key])
        if i < len(keys) - 1:
            _next_screen(ctx, target, before)


def _result(action: str, target: Target, st: State, *, ok: bool = True, error: str | None = None,
            hint: str | None = None, output: str = "", **extra: object) -> Result:
    data: dict[str, object] = {"evidence": st.evidence, "program": st.program, **extra}
    if st.question:
        data["question"], data["options"] = st.question, list(st.options)
    return Result(action=action, ok=ok, session=target.name, status=st.status, output=output,
                  screen=st.snap.text if st.snap else None, error=error, hint=hint, extra=data)


def _program_session(ctx: Context, session: str, action: str) -> tuple[Target, Shell, Profile] | Result:
    name = names.check(session)
    if name == ctx.cfg.shared_session:
        return failure(action, f"{action} drives programs in private sessions; the shared terminal is the "
                       "human's", session=name, status="unknown", hint="use send in the shared terminal")
    srv = ctx.private
    shell = srv.shell(name)
    if shell is None or not srv.exists(name):
        return failure(action, f"there is no private session {name!r}", session=name, status="unknown",
                       hint="start a program with start; list shows the sessions that exist")
    return Target(name, False, srv.tmux), shell, programs.profile_or_generic(shell.program)


def do_ask(ctx: Context, session: str, prompt: str, timeout: float) -> Result:
    found = _program_session(ctx, session, "ask")
    if isinstance(found, Result):
        return found
    target, shell, profile = found
    keyboard.check_text(prompt)
    if not prompt.strip():
        return failure("ask", "the prompt is empty", session=target.name, status="unknown")
    st = observe.state_of(ctx, target)
    if refused := _refuse_ask(target, shell, profile, st):
        return refused
    deadline = time.monotonic() + timeout
    before = st.snap.digest if st.snap else ""
    keyboard.paste(target.tmux, target.pane, prompt, bracketed=profile.paste)
    if isinstance(profile, AiProfile):
        before = _await_pasted(ctx, target, profile, before)
    _press_submit(target, profile)
    started = _await_turn_start(ctx, target, profile, before, prompt)
    if not started:
        _press_submit(target, profile)  # one more submit: the first was swallowed
        started = _await_turn_start(ctx, target, profile, before, prompt)
    if not started:
        st = observe.state_of(ctx, target)
        return _result("ask", target, st, ok=False, error="the prompt was pasted but the turn did not start",
                       hint="read the screen; press Enter with keys if the prompt is still in the input box")
    st = _await_done(ctx, target, profile, deadline)
    answer = _answer(ctx, target, profile, prompt)
    done = st.status in ("ready", "blocked", "error")
    hint = None
    if not done:
        hint = "still working after the timeout: wait for it, then read; or interrupt it"
    elif st.status == "blocked":
        hint = message("blocked", program=shell.program or "the program")
    elif answer is None:
        hint = "the answer could not be cut out of the screen; read the session to see it"
    return _result("ask", target, st, ok=done and st.status != "error", output=answer or "", hint=hint,
                   error=None if done and st.status != "error" else
                   (f"the turn ended with an error: {st.evidence}" if done else
                    f"no answer within {timeout:g}s"))


def _refuse_ask(target: Target, shell: Shell, profile: Profile, st: State) -> Result | None:
    """Why a prompt cannot be given now, or None.

    An AI CLI back at its input box after a failed turn shows ``error`` but
    takes the next prompt; text already in its input box is someone's
    unsent words (maybe the human's) and is never submitted or erased.
    """
    pending = None
    if isinstance(profile, AiProfile) and st.snap is not None and not st.exact:
        pending = profile.pending_input(st.snap)
    if st.status != "ready" and not (st.status == "error" and pending is not None):
        return _result("ask", target, st, ok=False,
                       error=f"{shell.program or 'the program'} is not ready for a prompt: {st.evidence}",
                       hint="answer its question with keys, wait for it, or interrupt it")
    if pending:
        return _result("ask", target, st, ok=False,
                       error=f"the input box already holds text that was not sent: {pending[:80]!r}",
                       hint="it may be the human's: ask before clearing it (keys C-u) or sending it")
    return None


def _press_submit(target: Target, profile: Profile) -> None:
    keys = list(profile.submit)
    keyboard.press(target.tmux, target.pane, keys)


def _await_pasted(ctx: Context, target: Target, profile: AiProfile, before: str) -> str:
    """Wait until the pasted prompt sits in the input box and stopped changing.

    Ink TUIs take a paste in pieces; an Enter that arrives before the last
    piece submits half a prompt, or becomes a newline inside it.  Returns
    the digest of the screen to compare against once submitted.
    """
    deadline = time.monotonic() + PASTE_SHOWN
    last = None
    while time.monotonic() < deadline:
        st = observe.state_of(ctx, target)
        snap = st.snap
        if snap is not None and snap.digest != before and profile.pending_input(snap):
            if snap.digest == last:
                return snap.digest
            last = snap.digest
        time.sleep(POLL)
    return last or before


def _await_turn_start(ctx: Context, target: Target, profile: Profile, before: str, prompt: str) -> bool:
    """The turn started: the program went busy, or the screen moved on without our text pending."""
    deadline = time.monotonic() + TURN_START
    tail = prompt.strip().splitlines()[-1][-24:] if prompt.strip() else ""
    while time.monotonic() < deadline:
        st = observe.state_of(ctx, target)
        if st.status in ("busy", "blocked"):
            return True
        if st.snap is not None and st.snap.digest != before:
            if isinstance(profile, AiProfile):
                # An emptied input box is not yet a turn: until the prompt's echo is drawn the
                # screen may still end with the previous turn's end sign (OpenCode clears first).
                drawn = not profile.finished(st.snap) or profile.shows_echo(st.snap, prompt)
                if st.status in ("ready", "error") and not profile.pending_input(st.snap) and drawn:
                    return True
            elif st.status == "error" or (st.status == "ready" and not (tail and tail in st.snap.cursor_line)):
                return True
        time.sleep(POLL)
    return False


def _await_done(ctx: Context, target: Target, profile: Profile, deadline: float) -> State:
    """Ready (or blocked, or dead) and holding still; busy signals always win.

    How long "still" must last depends on what the screen says: the
    program's own end-of-turn sign needs a glance, a turn never seen busy
    needs a long quiet spell (its busy phase may simply not have been drawn
    yet), anything else the profile's settle time, which covers an AI CLI's
    pauses between streamed chunks.
    """
    settle = _settle_for(profile)
    last, since = None, time.monotonic()
    seen_busy = False
    while True:
        st = observe.state_of(ctx, target)
        now = time.monotonic()
        digest = st.snap.digest if st.snap else None
        if digest != last:
            last, since = digest, now
        seen_busy = seen_busy or st.status == "busy"
        if st.status in ("ready", "blocked", "error") and now - since >= _quiet_needed(profile, st, settle, seen_busy):
            return st
        if now >= deadline:
            return st
        time.sleep(POLL)


def _quiet_needed(profile: Profile, st: State, settle: float, seen_busy: bool) -> float:
    if not isinstance(profile, AiProfile) or st.snap is None or st.exact:
        return settle
    if st.status == "ready" and profile.finished(st.snap):
        return min(settle, SIGNED_SETTLE)
    return settle if seen_busy else max(settle, UNSEEN_BUSY_SETTLE)


def _answer(ctx: Context, target: Target, profile: Profile, prompt: str) -> str | None:
    """The answer cut out of the transcript: tmux's scrollback, or for a CLI on the
    alternate screen (no scrollback) the pages it shows when scrolled back."""
    if not isinstance(profile, AiProfile):
        lines = panes.scrollback(target.tmux, target.pane, 2000)
        return profile.extract_answer(lines, prompt)
    transcript = _styled_scrollback(target)
    answer = profile.answer_from(transcript, prompt)
    if answer is None and profile.page_keys:
        snap, facts = panes.look(target.tmux, target.pane)
        if facts.alternate:
            answer = _page_back(ctx, target, profile, prompt, snap)
    return answer


def _styled_scrollback(target: Target) -> Snapshot:
    """Scrollback plus screen as one snapshot that keeps per-cell styles (dim thinking lines)."""
    out = target.tmux.cmd("capture-pane", "-p", "-e", "-J", "-S", f"-{TRANSCRIPT_LINES}", "-t", target.pane)
    rows = out.count("\n") + 1
    return screen.snapshot_from_capture(out, width=10_000, height=rows)


Row = tuple[str, tuple[Span, ...]]


def _page_back(ctx: Context, target: Target, profile: AiProfile, prompt: str, first: Snapshot) -> str | None:
    """Scroll a full-screen CLI's transcript up page by page until the prompt's echo
    shows, stitching the pages by their overlap; then scroll back to the end."""
    up, back = profile.page_keys
    end = profile.transcript_end(first)
    width = profile.transcript_width(first)
    rows: list[Row] = _rows(first, end, width)
    chrome: list[Row] = [(first.lines[y], first.spans(y)) for y in range(end, len(first.lines))]
    answer = None
    shown = first.digest
    try:
        for _ in range(MAX_PAGES):
            keyboard.press(target.tmux, target.pane, [up])
            page = _next_screen(ctx, target, shown)
            if page is None:
                break
            shown = page.digest
            rows = _stitch(_rows(page, profile.transcript_end(page), width), rows)
            answer = profile.answer_from(_joined(rows + chrome, first), prompt)
            if answer is not None:
                break
    finally:
        keyboard.press(target.tmux, target.pane, [back])
    return answer


def _rows(snap: Snapshot, end: int, width: int) -> list[Row]:
    """The transcript rows of a screen, cut at the transcript's width: a side panel
    stays put while the transcript scrolls, so it must not take part in the overlap."""
    return [(snap.lines[y][:width].rstrip(), snap.spans(y)) for y in range(min(end, len(snap.lines)))]


def _joined(rows: list[Row], like: Snapshot) -> Snapshot:
    return Snapshot(tuple(r for r, _ in rows), like.width, len(rows), styles=tuple(s for _, s in rows))


def _next_screen(ctx: Context, target: Target, shown: str) -> Snapshot | None:
    """The screen once it differs from ``shown`` and holds still a moment (None if it never moves)."""
    deadline = time.monotonic() + 1.5
    last = None
    while time.monotonic() < deadline:
        snap, _ = panes.look(target.tmux, target.pane)
        if snap.digest != shown:
            if last is not None and snap.digest == last.digest:
                return snap
            last = snap
        time.sleep(POLL)
    return last


def _stitch(earlier: list[Row], later: list[Row]) -> list[Row]:
    """``earlier`` (a page scrolled up) placed above ``later`` by their longest overlap.

    A scrolled-up page ends with blank padding rows that are not part of the
    transcript, so its trailing blank rows never take part in the overlap.
    """
    while earlier and not earlier[-1][0].strip():
        earlier = earlier[:-1]
    texts_e = [r for r, _ in earlier]
    texts_l = [r for r, _ in later]
    for k in range(min(len(earlier), len(later)), 0, -1):
        if texts_e[-k:] == texts_l[:k]:
            return earlier[:-k] + later
    return earlier + later


def _await_typed(ctx: Context, target: Target, profile: Profile, text: str) -> None:
    """Wait (bounded) until typed ``text`` shows where input goes, so the key that
    follows (Enter) acts on all of it - a palette filters as it is typed."""
    want = squash(text)
    deadline = time.monotonic() + PASTE_SHOWN
    while time.monotonic() < deadline:
        snap, _ = panes.look(target.tmux, target.pane)
        typed = profile.pending_input(snap) if isinstance(profile, AiProfile) else snap.cursor_line
        if typed and want in squash(typed):
            return
        time.sleep(POLL)


def do_exit(ctx: Context, session: str, timeout: float) -> Result:
    found = _program_session(ctx, session, "exit")
    if isinstance(found, Result):
        return found
    target, shell, profile = found
    srv = ctx.private
    mark = markers.last_mark(shell.log_path, shell.nonce)
    if mark is None or mark.kind != "S":
        st = observe.state_of(ctx, target)
        return _result("exit", target, st, ok=False, error="no program is running in this session",
                       hint="kill the session to end its shell")
    steps: Sequence[tuple[str, str]] = profile.exit_steps or (("keys", "C-d"),)
    for kind, value in steps:
        if kind == "text":
            keyboard.paste(target.tmux, target.pane, value, bracketed=False)
            _await_typed(ctx, target, profile, value)
        else:
            keyboard.press(target.tmux, target.pane, [keyboard.key_name(k) for k in value.split()])
        time.sleep(POLL)
    rec = runs.load_record(srv, target.name)
    if rec is not None:
        res = runs.collect(srv, shell, rec, timeout, action="exit")
        if res.status == "ready":
            srv.set_program(target.name, None)
            res.output = ""
            res.extra["evidence"] = f"{shell.program} exited; the session's shell is back"
            return res
    st = observe.state_of(ctx, target)
    return _result("exit", target, st, ok=False, error=f"{shell.program} did not exit within {timeout:g}s",
                   hint="read the screen; interrupt it, or kill the session")
