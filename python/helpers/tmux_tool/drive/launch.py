"""``start`` and ``exit``: an interactive program in a private session of its own.

A program runs in a private session, started from the session's own shell,
so the shell's markers say exactly when (and with which exit code) it ends.
Its profile (:mod:`programs`) says how it looks ready, busy or blocked, which
first-run dialogs it may show and how it is left.  ``start`` waits until the
program is ready or asks something (answering only the dialogs it was told
to accept); ``exit`` leaves it the program's own way and waits for the shell.
"""

from __future__ import annotations

import os
import shlex
import time
from collections.abc import Sequence

from .. import journals, programs
from ..core import names
from ..core.args import brief
from ..core.clock import Deadline
from ..core.messages import message
from ..core.result import Result, failure
from ..core.status import Status
from ..judgement.state import reported
from ..judgement.stillness import Quiet
from ..private import run_record, runs
from ..private.server import PrivateServer, Shell
from ..programs import Profile, chat, registry
from ..programs.ai import AiProfile, squash
from ..sessions import observe
from ..sessions.context import Context
from ..sessions.observe import POLL
from ..transport import keyboard, panes
from ..transport.target import Target
from .turn_pages import next_screen

SKIP_ENV = frozenset(
    {"TMUX", "TMUX_PANE", "PWD", "OLDPWD", "SHLVL", "_", "TT_NONCE", "TT_DIR", "COLUMNS", "LINES"}
)
TURN_START = 3.0  # seconds for a submitted input to leave the input box and show as started
# quiet needed when the CLI itself signs the end of a turn (on screen, or in its record)
SIGNED_SETTLE = 0.15
ASKED_AGAIN = 2.0  # seconds a program left with its exit key has to end or ask for the key again
# seconds more for one whose screen answered the exit key: it is on its way out (OpenCode, busy
# machine), and a Ctrl+C now would end it by a signal in the middle of its own clean-up
LEAVING = 15.0
PAGERS = ("PAGER", "GIT_PAGER", "MANPAGER", "SYSTEMD_PAGER")  # set to cat in private shells


def settle_for(profile: Profile, *, starting: bool = False) -> float:
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
    server_env = dict(
        line.split("=", 1) for line in base.splitlines() if "=" in line and not line.startswith("-")
    )
    changed = {k: v for k, v in ctx_env.items() if k not in SKIP_ENV and server_env.get(k) != v
               and k.replace("_", "").isalnum()}
    if not changed:
        return None
    path = srv.session_dir(name) / "launch.env"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as fh:
        fh.writelines(f"export {k}={shlex.quote(v)}\n" for k, v in sorted(changed.items()))
    return str(path)


def do_start(ctx: Context, program: str, session: str | None, cwd: str | None,
             args: list[str] | None, deadline: Deadline, accept: list[str] | None,
             skip_permissions: bool) -> Result:
    if len(program) > 8192:
        return failure(f"the program line is {len(program)} characters; the limit is 8192",
                       status=Status.UNKNOWN, hint="put a long script in a file and start that")
    profile = programs.profile_for(program)
    if profile is not None:
        argv = profile.launch(args or (), skip_permissions=skip_permissions)
        if "/" in program:
            argv[0] = program  # the file the caller named, not the profile's executable on PATH
    else:
        try:
            words = shlex.split(program)
        except ValueError as exc:
            return failure(f"the program line cannot be split into words ({exc})", status=Status.UNKNOWN,
                           hint="balance the quotes, or give the arguments in args")
        argv = [*words, *(args or ())]
        if not argv:
            return failure("the program is empty", status=Status.UNKNOWN,
                           hint="name a profile (claude, codex, gemini, opencode, python3, ...) or a command")
        profile = programs.profile_or_generic(argv[0])
    label = profile.name
    label = "".join(c if c.isprintable() else "?" for c in label)[:60]
    srv = ctx.private
    name = names.check(session) if session else names.generate(label, srv.exists)
    if name == ctx.cfg.shared_session:
        return failure("programs start in private sessions, not in the shared terminal",
                       session=name, status=Status.UNKNOWN, hint="leave out session to get a new private one")
    if srv.exists(name):
        return failure(f"session {name!r} already exists", session=name, status=Status.UNKNOWN,
                       hint="use another name, leave it out for a generated one, or kill the old session")
    here = srv.place.keeps_records  # on another host: none of this machine's folders, records or environment
    if here and cwd and not os.path.isdir(cwd):
        return failure(f"the directory {brief(cwd)} does not exist", session=name, status=Status.UNKNOWN)
    srv.create(name, cwd=cwd)
    setup = (journals.setup(profile.name, srv.session_dir(name))
             if here and registry.holds(profile.name) else journals.Setup())
    argv = [argv[0], *setup.args, *argv[1:]]  # the caller's own arguments come after, and win
    if here:
        env_file = _env_file(srv, {**dict(profile.launch_env), **os.environ}, name)
    else:  # the profile's own settings (no secrets) go with the command there
        env_file = None
        if profile.launch_env:
            argv = ["env", *(f"{k}={v}" for k, v in profile.launch_env), *argv]
    if profile.kind == "pager":  # private shells page with cat (a run's output comes whole); this one pages
        argv = ["env", *(w for var in PAGERS for w in ("-u", var)), *argv]
    line = shlex.join(argv)
    if env_file:
        line = f". {shlex.quote(env_file)}; rm -f {shlex.quote(env_file)}; {line}"
    launched = runs.run(srv, name, line, Deadline(0.0))  # typed; the program's start is awaited below
    if not launched.ok:
        return launched
    srv.set_program(name, label)
    target = Target(name, False, srv.tmux)
    res = _await_start(ctx, target, profile, label, deadline, set(accept or _default_accept()))
    res.extra["profile"] = "generic" if isinstance(profile, programs.GenericProfile) else profile.name
    return res


def _default_accept() -> list[str]:
    raw = os.environ.get("TMUX_TOOL_ACCEPT_DIALOGS", "")
    return [w for w in raw.replace(",", " ").split() if w]


def _await_start(ctx: Context, target: Target, profile: Profile, label: str, deadline: Deadline,
                 accept: set[str]) -> Result:
    """Wait until the program is ready or asks something; answer only dialogs allowed.

    A screen counts once it has held still, and the program behind it has been
    idle, for the profile's settle time (:class:`~..judgement.stillness.Quiet`):
    a CLI that draws its input box and goes on working may yet put a question
    over it, and one still busy with the last key has not drawn what it brings.
    At the deadline a still screen is taken as it is.
    """
    answered: list[str] = []
    quiet = Quiet()
    looks = observe.looks(ctx.open(target))
    while True:
        st, now, still = next(looks)
        if st.facts is not None:
            quiet.see(now, target.tmux.place.activity(st.facts.pid))
        steady = still.steady(now)
        # A program no profile knows that shows an input area starts like an AI CLI: in stages.
        settle = settle_for(chat.speaker(profile) if chat.speaks(profile, st.snap) else profile,
                            starting=True)
        # nothing drawn yet below the launch line: unless the kernel says the program reads keys
        # (bc, ed, cat draw nothing before their first input)
        blank = st.snap is None or (not "".join(st.snap.lines[1:]).strip() and not st.notes.reading)
        if st.status == Status.ERROR or (st.exact and st.status == Status.READY):
            return reported(st, target.name, ok=False, error=f"{label} ended while starting: {st.evidence}",
                            hint="read the session's screen for its message", answered=answered)
        dialog = profile.find_dialog(st.snap.text) if (st.snap and st.status == Status.BLOCKED) else None
        # The keys come from the screen: releases move a dialog's default (see Profile.accept_keys).
        keys = profile.accept_keys(st.snap, dialog) if (st.snap and dialog) else ()
        allowed = dialog is not None and bool(keys) and dialog.name not in answered and (
            dialog.name in accept or ("safe" in accept and dialog.safe))
        glance = min(settle, 0.3)
        if dialog and allowed and steady >= glance and quiet.held(now, glance):
            _press_one_by_one(ctx, target, list(keys))
            if dialog.choose is None or keys[-1] == "Enter":  # else one step toward its option: look again
                answered.append(dialog.name)
            still.restart()  # what the keys bring is a new screen
            continue
        if profile.kind == "monitor" and st.snap is not None and profile.classify(st.snap) is not None:
            # Its own frame is drawn (after it took the terminal for its keys); it never holds still.
            return reported(st, target.name, hint=f"{label} redraws by itself and stays busy: read it, drive it "
                            "with keys, leave it with exit", answered=answered)
        shown = st.status in (Status.READY, Status.BLOCKED) and not blank and steady >= settle
        idle = quiet.held(now, settle)
        if shown and (idle or now >= deadline.at):
            working = "" if idle else (f"{label} is still at work behind this screen (it asks for the CPU): "
                                       "what it shows may change, and what is typed may wait")
            if st.status != Status.BLOCKED:
                return reported(st, target.name, answered=answered, hint=working or None)
            hint = message("blocked", program=label) + (f"; {working}" if working else "")
            if not dialog:
                return reported(st, target.name, hint=hint, answered=answered)
            how = (f"keys {' '.join(keys)} accept it" if dialog.choose is None else
                   f"the option matching {dialog.choose.pattern!r} accepts it (now: {' '.join(keys)})")
            hint += (f". It is the {dialog.name!r} dialog: {how} (start answers it by itself when given "
                     f"accept=[{dialog.name!r}])" if keys else f". It is the {dialog.name!r} dialog, which needs the human")
            return reported(st, target.name, hint=hint, answered=answered, dialog=dialog.name, safe=dialog.safe)
        if now >= deadline.at:
            return reported(st, target.name, ok=False,
                            error=f"{label} was not ready within {deadline.seconds:g}s (it is {st.status}: {st.evidence})",
                            hint="wait for it with wait, or read its screen", answered=answered)


def _press_one_by_one(ctx: Context, target: Target, keys: list[str]) -> None:
    """Press keys one at a time, each after the screen answered the one before.

    Ink TUIs read a burst such as Up+Enter as one unknown sequence, so the
    Enter of "move to Yes, confirm" would land on the default (No).
    """
    for i, key in enumerate(keys):
        before = panes.look(target.tmux, target.pane)[0].digest
        keyboard.press(target.tmux, target.pane, [key])
        if i < len(keys) - 1:
            next_screen(target, before)


def press_submit(target: Target, profile: Profile) -> None:
    """Press the program's submit key."""
    keyboard.press(target.tmux, target.pane, list(profile.submit))


def program_session(
    ctx: Context, session: str, action: str
) -> tuple[Target, Shell, Profile] | Result:
    """The private session a program runs in, its shell record and the program's profile."""
    name = names.check(session)
    if name == ctx.cfg.shared_session:
        return failure(
            f"{action} drives programs in private sessions; the shared terminal is the human's",
            session=name,
            status=Status.UNKNOWN,
            hint="use send in the shared terminal",
        )
    srv = ctx.private
    shell = srv.shell(name)
    if shell is None or not srv.exists(name):
        return failure(f"there is no private session {name!r}", session=name, status=Status.UNKNOWN,
                       hint="start a program with start; list shows the sessions that exist")
    return Target(name, False, srv.tmux), shell, programs.profile_or_generic(shell.program)


def _await_typed(ctx: Context, target: Target, profile: Profile, text: str) -> None:
    """Wait (bounded) until typed ``text`` shows where input goes, so the key that
    follows (Enter) acts on all of it - a palette filters as it is typed."""
    want = squash(text)
    for _ in Deadline(keyboard.PASTE_SHOWN).ticks(POLL):
        snap, _facts = panes.look(target.tmux, target.pane)
        typed = profile.pending_input(snap) if isinstance(profile, AiProfile) else snap.cursor_line
        if typed and want in squash(typed):
            return


def _press_again(srv: PrivateServer, shell: Shell, target: Target, seconds: float = ASKED_AGAIN) -> bool:
    """Press the exit key once more if the program, still running, asks for it again (Qwen Code:
    "Press Ctrl+D again to exit.", for about a second); False when it runs on and asks nothing."""
    for _ in Deadline(seconds).ticks(POLL):
        mark = srv.last_mark(shell)
        if mark is None or mark.kind != "S":
            return True  # it has ended
        if (
            key := programs.GenericProfile.asks_again(panes.look(target.tmux, target.pane)[0])
        ) is not None:
            keyboard.press(target.tmux, target.pane, [key])
            return True
    return False


def _leave_chat(srv: PrivateServer, shell: Shell, target: Target, before: str) -> None:
    """After its Ctrl+D: a second one if asked (it may come too soon, or be lost), or, for a CLI
    deaf to Ctrl+D (Claude Code), Ctrl+C and once more when asked ("Press Ctrl-C again to exit").
    A CLI whose screen is no longer ``before`` (its digest when the exit began) heard the key: it
    gets longer to end before the Ctrl+C."""
    if _press_again(srv, shell, target):
        return
    if panes.look(target.tmux, target.pane)[0].digest != before and _press_again(srv, shell, target, LEAVING):
        return
    if (m := srv.last_mark(shell)) and m.kind == "S":
        keyboard.press(target.tmux, target.pane, ["C-c"])
        _press_again(srv, shell, target)


def do_exit(ctx: Context, session: str, deadline: Deadline) -> Result:
    found = program_session(ctx, session, "exit")
    if isinstance(found, Result):
        return found
    target, shell, profile = found
    srv = ctx.private
    mark = srv.last_mark(shell)
    if mark is None or mark.kind != "S":
        st = observe.state_of(ctx.open(target))
        return reported(st, target.name, ok=False, error="no program is running in this session",
                        hint="kill the session to end its shell")
    birth = srv.birth(target.name)
    chatty = isinstance(profile, (programs.GenericProfile, chat.ChatProfile))
    before = panes.look(target.tmux, target.pane)[0].digest if chatty else ""  # a chat's screen, to see it heard
    steps: Sequence[tuple[str, str]] = profile.exit_steps or (("keys", "C-d"),)
    for kind, value in steps:
        if kind == "text":
            keyboard.paste(target.tmux, target.pane, value, bracketed=False)
            _await_typed(ctx, target, profile, value)
        else:
            keyboard.press(target.tmux, target.pane, [keyboard.key_name(k) for k in value.split()])
        time.sleep(POLL)
    rec = run_record.load_record(srv, target.name)
    if rec is not None:
        if chatty:
            _leave_chat(srv, shell, target, before)
        res = runs.collect(srv, shell, rec, deadline)
        if res.status == Status.READY:
            srv.set_program(target.name, None)
            res.output = ""
            res.extra["evidence"] = f"{shell.program} exited; the session's shell is back"
            if left := srv.end_left(birth):
                res.extra["ended"] = left
                res.extra["evidence"] += f"; what it left running was ended: {', '.join(left)}"
            return res
    st = observe.state_of(ctx.open(target))
    return reported(
        st,
        target.name,
        ok=False,
        error=f"{shell.program} did not exit within {deadline.seconds:g}s",
        hint="read the screen; interrupt it, or kill the session",
    )
