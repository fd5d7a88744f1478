"""Whether an AI CLI or a REPL may be given a prompt now, and the log ``ask`` keeps to tell.

Each ask records in the session's tmux options how many prompts it sent,
the last one, and whether that turn was still running when ``ask`` returned
(:mod:`..transport.options`).  A busy CLI would queue a new prompt behind its
running turn, so the next ask is refused, naming the turn it would wait for.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..core.args import brief
from ..core.result import Result
from ..core.status import Status
from ..judgement.state import State, reported
from ..private.server import Shell
from ..programs import Profile
from ..programs.ai import AiProfile
from ..screen.snapshot import Snapshot
from ..transport import options
from ..transport.target import Target
from ..transport.tmux import SEP
from . import turn_pages


@dataclass(frozen=True, slots=True)
class AskLog:
    """What ``ask`` last did in a session, kept in tmux so every call sees it."""

    turns: int
    asked: str
    open: bool


def read(target: Target) -> AskLog:
    """The session's ask log as tmux keeps it (nothing asked yet: no turns)."""
    out = target.tmux.display(
        target.pane,
        SEP.join(f"#{{{o}}}" for o in (options.TURNS, options.TURN_OPEN, options.ASKED)),
    )
    turns, is_open, asked = (out.split(SEP) + ["", "", ""])[:3]
    return AskLog(int(turns) if turns.isdigit() else 0, asked, is_open == "1")


_FIELDS = {"turns": options.TURNS, "turn_open": options.TURN_OPEN, "asked": options.ASKED,
           "turn_recorded": options.TURN_RECORDED}


def remember(target: Target, **values: str) -> None:
    """Write the ask log's fields (``turns``, ``turn_open``, ``asked``, ``turn_recorded``) to their
    options."""
    target.tmux.chain(*(["set-option", "-t", f"={target.name}:", _FIELDS[key], value]
                        for key, value in values.items()))


def refuse(target: Target, shell: Shell, profile: Profile, st: State) -> Result | None:
    """Why a prompt cannot be given now, or None.

    An AI CLI back at its input box after a failed turn shows ``error`` but
    takes the next prompt; text already in its input box is someone's
    unsent words (maybe the human's) and is never submitted or erased.  A
    busy CLI would queue the prompt behind its running turn: refused, naming
    the turn ``ask`` left running if there is one.
    """
    program = shell.program or "the program"
    pending = None
    if isinstance(profile, AiProfile) and st.snap is not None and not st.exact:
        pending = profile.pending_input(st.snap)
    if isinstance(profile, AiProfile):
        rec = read(target)
        running = st.status == Status.BUSY or (
            rec.open
            and st.status == Status.READY
            and st.snap is not None
            and not _shows_end(st.snap, profile, rec.asked)
        )
        if running:
            earlier = (f"its turn {rec.turns} ({brief(rec.asked)}), which ask left running when "
                       "its timeout passed" if rec.open else "something no turn of ask left open")
            if st.status != Status.BUSY:
                st.status, st.evidence = (
                    Status.BUSY,
                    "that turn shows neither its end nor an answer yet",
                )
            return reported(
                st,
                target.name,
                ok=False,
                error=f"{program} is still working on {earlier}: {st.evidence}",
                hint="a prompt sent now would only be queued: ask again once that turn has ended "
                "(read shows its answer), or interrupt it",
            )
        if rec.open:
            remember(target, turn_open="0")
    if st.status != Status.READY and not (st.status == Status.ERROR and pending is not None):
        return reported(
            st,
            target.name,
            ok=False,
            error=f"{program} is not ready for a prompt: {st.evidence}",
            hint="answer its question with keys, wait for it, or interrupt it",
        )
    if pending:
        return reported(
            st,
            target.name,
            ok=False,
            error=f"the input box already holds text that was not sent: {pending[:80]!r}",
            hint="it may be the human's: ask before clearing it (keys C-u) or sending it",
        )
    return None


def _shows_end(snap: Snapshot, profile: AiProfile, asked: str) -> bool:
    """Whether the last turn on the screen shows the CLI's end-of-turn sign or an answer.

    Only ``ask`` sends prompts here, and it sends none while a turn it left
    running has not ended, so the last echo on the screen is that turn's
    (when none shows, the whole screen lies below it).
    """
    turn = turn_pages.last_turn(snap, profile) or snap
    return profile.finished(turn) or bool(profile.answer_from(turn, asked))
