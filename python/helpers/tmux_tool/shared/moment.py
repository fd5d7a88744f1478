"""Whether now is the agent's moment to type into the human's terminal.

A send looks, then asks here: is it refused outright (the human paused the
agent, the window synchronizes its panes, the command would end the human's
shell or leave it half-typed), and if not, may it type now (:mod:`.guard`'s
verdict on the state, then the human's quiet and a resize under way,
:mod:`.seen`)?  Every answer is a :class:`.guard.Leave` or a result saying
why nothing was typed.
"""

from __future__ import annotations

from ..core import trace
from ..core.clock import Deadline
from ..core.config import Config
from ..core.messages import message
from ..core.result import Extra, Result, failure
from ..core.status import Status
from ..judgement.state import State, pane_info
from ..transport.target import Target
from . import control, guard, seen
from .look import Look

SYNCHRONIZED = ("the window has synchronize-panes on: tmux would send every key the agent typed to "
                "all of its panes, into what the human has open there")
SYNCHRONIZED_HINT = ("ask the human to turn it off (prefix key, then `:setw synchronize-panes "
                     "off`), or name a pane in another window (session shared:WINDOW.PANE)")
LAST_MOMENT = guard.Leave(False, "the human pressed a key at the last moment")
RESIZING = guard.Leave(
    False, "the window is being resized and the shell has not been told its new size yet"
)


def refusal(target: Target, st: State, lk: Look, text: str, enter: bool, force: bool, *,
            checked: bool) -> Result | None:
    """Why nothing may be typed at all, whatever the moment (None: nothing stands in the way).
    ``checked``: the command line was already checked at this shell's prompt."""
    if lk.facts.paused:
        return failure(
            control.PAUSED, session=target.name, status=st.status, hint=control.PAUSED_HINT
        )
    if lk.facts.synchronized:
        return failure(f"nothing was typed: {SYNCHRONIZED}", session=target.name, status=st.status,
                       hint=SYNCHRONIZED_HINT, pane=pane_info(lk.facts))
    if not checked and (why := _shell_checks(st, lk, text, enter, force)):
        return failure(
            f"nothing was typed: {why}",
            session=target.name,
            status=st.status,
            hint="change the command; to leave a shell the agent started, exit only that one",
        )
    return None


def verdict(cfg: Config, st: State, lk: Look, text: str, keys: tuple[str, ...], force: bool,
            resizing: Deadline | None) -> tuple[guard.Leave, Deadline | None]:
    """May we type now?  The guard on the state, then the human's quiet, then a resize being told.

    ``resizing`` bounds the wait for a resize the shell has not been told yet
    (:data:`.seen.RESIZE_WAIT` from the first look that saw it); it is given
    back for the next look.
    """
    leave = guard.may_type(st, text=text, keys=keys, force=force)
    if leave.go:
        leave = seen.human_quiet(cfg, lk, force)
    if leave.go and seen.size_untold(lk):
        resizing = resizing or Deadline(seen.RESIZE_WAIT)
        if not resizing.passed:
            return RESIZING, resizing
    return leave, resizing


def refused(target: Target, st: State, verdict: guard.Leave) -> Result:
    """The answer when nothing was typed: the human's line, a secret's question, or the reason."""
    trace.event(
        "refused", session=target.name, pane=target.pane, reason=verdict.reason, final=verdict.final
    )
    human_text = st.notes.human_text
    if human_text and not verdict.final:
        return failure(
            message(
                "human_typing",
                text=f"{human_text!r} "
                + (f"in {st.program}" if st.notes.in_program else "at the prompt"),
            ),
            session=target.name,
            status=st.status,
            hint=message("human_typing_hint"),
            pane=pane_info(st.facts),
        )
    hint = ("ask the human; type there only if the human asked you to (force)" if verdict.final
            else "wait a moment and try again, or check with status")
    fields = Extra(evidence=st.evidence, program=st.program, pane=pane_info(st.facts))
    if st.needs_human:
        fields.update(Extra(needs_human=True, question=st.question, secret_reader=st.secret_reader))
    return failure(
        f"nothing was typed: {verdict.reason}",
        session=target.name,
        status=st.status,
        hint=hint,
        **fields,
    )


def _shell_checks(st: State, lk: Look, text: str, enter: bool, force: bool) -> str | None:
    """A command line for a shell at its prompt: would it end the shell, is it complete?"""
    front = lk.term.front
    if front is None or not (
        text and front.shell and st.status == Status.READY and st.notes.owner != "human"
    ):
        return None
    top = lk.term.shell_in_front
    if top and (
        why := guard.ends_shell(text)
        or (
            "`kill` of the shell's own process would end the human's shell"
            if guard.own_pid(text, front.pid)
            else None
        )
    ):
        return why
    if enter and not force and (err := guard.syntax_error(text, front.comm)):
        return (
            f"the command is incomplete or invalid for {front.comm.lstrip('-')} ({err}); typed as "
            "it is, it would leave the shell waiting for the rest"
        )
    return None


