"""``ask``: one prompt, one turn, and that turn's own answer.

A turn is proven, never assumed.  Before the prompt is sent, the rows the
transcript ends with are kept (:class:`~.turn_pages.Anchor`).  After Enter
the turn has started only when the prompt has left the input box and its
echo stands *below* those rows: OpenCode clears its input box tens of
milliseconds before it draws the echo, and in between its screen is idle,
with the previous turn's end-of-turn line and answer on it.  The CLI must
then show work (busy) after the echo, and "done" is its ready state holding
still after that - never just "an idle prompt is visible", which Ink TUIs
show even while they work.  The answer is cut from this turn's echo down to
the next echo (or the input box), so it cannot be the previous answer, even
when the prompt or the answer repeat.

Each ask leaves a record in the session (:mod:`.ask_log`), so the next call
can say which earlier turn a busy CLI is still working on instead of typing
a second prompt into its queue.

A REPL has no transcript of turns; :mod:`.repl` gives it its input.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

from .. import journals
from ..core.args import brief
from ..core.clock import Deadline
from ..core.messages import message
from ..core.result import Result, failure
from ..core.status import Status
from ..judgement.state import State, reported
from ..judgement.stillness import ENDED, Quiet
from ..private.server import Shell
from ..programs import chat, registry
from ..programs.ai import AiProfile
from ..screen.snapshot import Snapshot
from ..sessions import observe
from ..sessions.context import Context
from ..sessions.observe import POLL
from ..transport import keyboard, panes
from ..transport.target import Target
from . import ask_log, recorded, repl_turn, turn_pages
from .launch import SIGNED_SETTLE, TURN_START, press_submit, program_session, settle_for
from .turn_pages import Anchor

SWALLOWED = 1.0  # seconds a CLI idles with the input still in its box: it did not take the Enter
EMPTY_SETTLE = 2.0  # quiet needed before a turn that shows no answer is taken as answered
AT_REST = 10.0  # seconds ask waits for a CLI only the kernel sees at work, with no turn of its own open


def do_ask(ctx: Context, session: str, prompt: str, deadline: Deadline,
           unwrap: bool = False) -> Result:
    found = program_session(ctx, session, "ask")
    if isinstance(found, Result):
        return found
    target, shell, profile = found
    keyboard.check_text(prompt)
    if not prompt.strip():
        return failure("the prompt is empty", session=target.name, status=Status.UNKNOWN)
    st = _at_rest(ctx, target, observe.state_of(ctx.open(target)), deadline)
    if chat.speaks(profile, st.snap):  # a CLI no profile knows, at its input area: driven as a chat
        # the last turn's, to see its end
        profile = chat.speaker(profile, ask_log.read(target).asked)
    if refused := ask_log.refuse(target, shell, profile, st):
        return refused
    if isinstance(profile, chat.ChatProfile):
        profile = chat.speaker(profile, prompt)
    if isinstance(profile, AiProfile):
        return _ask_ai(ctx, target, shell, profile, prompt, deadline, unwrap)
    return repl_turn.ask(ctx, target, shell, profile, prompt, deadline)


def _at_rest(ctx: Context, target: Target, st: State, deadline: Deadline) -> State:
    """The CLI once at rest, where only the kernel sees it at work behind its idle input area and
    no turn of ``ask`` is open: work of its own (Cline's, in the seconds after ``start``, longer on
    a busy machine) that a prompt would have to wait behind.  ``ask`` waits for it, up to
    :data:`AT_REST` seconds of its own timeout, before it refuses."""
    if st.status != Status.BUSY or not st.notes.working or ask_log.read(target).open:
        return st
    for _ in Deadline(min(AT_REST, deadline.left())).ticks(POLL):
        st = observe.state_of(ctx.open(target))
        if st.status != Status.BUSY or not st.notes.working:
            break
    return st


# --- AI CLIs
# ----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Started:
    """How a turn was seen to start: its echo found below the anchor, the CLI busy."""

    echoed: bool
    busy: bool


def _ask_ai(ctx: Context, target: Target, shell: Shell, profile: AiProfile, prompt: str, deadline: Deadline,
            unwrap: bool) -> Result:
    screen, facts = panes.look(target.tmux, target.pane)
    before = screen.digest
    paged = facts.alternate and bool(profile.page_keys)
    mark = turn_pages.anchor(turn_pages.rows(turn_pages.capture(target, turn_pages.HISTORY_LINES), profile),
                             profile, whole=paged)
    # A CLI's record is read here, where it writes; one on another host is judged by its screen.
    journal = (journals.for_program(profile.name)
               if target.tmux.place.keeps_records and registry.holds(profile.name) else None)
    reading = journal.begin(ctx.private.session_dir(target.name), prompt, facts.pid) if journal else None
    keyboard.paste(target.tmux, target.pane, prompt, bracketed=profile.paste)
    keyboard.await_paste(target.tmux, target.pane, before, lambda snap: bool(profile.pending_input(snap)))
    turn = ask_log.read(target).turns + 1
    ask_log.remember(target, turns=str(turn), asked=" ".join(prompt.split())[:200], turn_open="1",
                     turn_recorded="0")
    press_submit(target, profile)
    started = _await_turn(ctx, target, profile, mark, prompt, deadline)
    if isinstance(started, Result):
        started.extra["turn"] = turn
        return started
    if reading is not None and journal is not None:
        seen = recorded.wait(ctx, target, profile, journal, reading, deadline,
                             profile.first_settle if turn == 1 else 0.0)
        if seen is not None:
            return recorded.result(seen, target, shell, deadline, turn)
    glance = Glance(paged, profile.first_settle if turn == 1 else 0.0)
    st, answer = _await_answer(ctx, target, profile, mark, prompt, deadline, started, unwrap, glance)
    done = st.status in (Status.READY, Status.BLOCKED, Status.ERROR)
    if done:
        ask_log.remember(target, turn_open="0")
    if not done:
        return reported(st, target.name, ok=False, error=f"no answer within {deadline.seconds:g}s",
                        hint="still working after the timeout: wait for it, then read; or interrupt it", turn=turn)
    if st.status == Status.BLOCKED:
        return reported(st, target.name, hint=message("blocked", program=shell.program or "the program"),
                        turn=turn)
    if st.status == Status.ERROR:
        return reported(st, target.name, ok=False, error=f"the turn ended with an error: {st.evidence}",
                        hint="read the screen for the CLI's message", turn=turn)
    if answer is None:
        return reported(st, target.name, ok=False,
                        error="the turn ended, but its answer could not be told apart from the transcript",
                        hint="read the session to see it", turn=turn, answer_source="screen")
    why = (f"{journal.cli} recorded nothing of this turn" if journal and reading is not None else
           f"no record of this {journal.cli} session was found (the tool did not start it to keep one)"
           if journal else "the tool reads no record of this program")
    return reported(st, target.name, output=answer, turn=turn, answer_source="screen",
                    record=f"{why}: the answer is read off the screen, as drawn")


def _screen(target: Target) -> Snapshot:
    return panes.look(target.tmux, target.pane)[0]


def _transcript_rows(target: Target, profile: AiProfile) -> tuple[list[str], bool]:
    """The recent transcript (the last history lines and the screen, above the input box),
    and whether the input box was drawn at all: without it, every row counts as transcript,
    and a half-drawn box (OpenCode's agent row ``┃  Build · <model>``) passes for an echo."""
    snap = turn_pages.capture(target, turn_pages.RECENT_LINES)
    return turn_pages.rows(snap, profile), profile.frame(snap) is not None


def _await_turn(ctx: Context, target: Target, profile: AiProfile, mark: Anchor, prompt: str,
                deadline: Deadline) -> Started | Result:
    """Wait until the prompt has left the input box and its echo shows below ``mark``.

    Enter is pressed once more if the prompt still sits in the box after
    :data:`TURN_START` and the CLI has been idle for :data:`SWALLOWED` (the
    first one was swallowed); never on an emptied box, and never while the
    CLI works (:class:`~..judgement.stillness.Quiet`): on a loaded machine it
    may take the first Enter seconds late, and a second one would reach its
    next turn.  Once the box let the prompt go, the echo is waited for
    up to the ask's own deadline while the CLI shows nothing: OpenCode takes
    seconds to open the session of its first prompt.  A CLI that asks
    something (a dialog) has started too, and so has a busy CLI whose echo
    does not show within the bound (it may have scrolled off already); the
    answer is then only given if the echo is found in the transcript.
    """
    begun = time.monotonic()
    retry_at, give_up = begun + TURN_START, begun + 2 * TURN_START
    resubmitted = busy = False
    other: tuple[str, float] | None = None  # another prompt's echo, and since when it has shown
    quiet = Quiet()
    while True:
        st = observe.state_of(ctx.open(target))
        holds = bool(st.snap is not None and profile.pending_input(st.snap))
        busy = busy or (st.status == Status.BUSY and not holds)
        now = time.monotonic()
        if st.facts is not None:
            quiet.see(now, target.tmux.place.activity(st.facts.pid))
        working = not quiet.held(now, SWALLOWED)
        if not holds:
            rows, framed = _transcript_rows(target, profile)
            y = turn_pages.find_turn(rows, mark, profile)
            shown = (profile.echo(rows[y]) or "") if y is not None else ""
            if y is not None and turn_pages.matches(shown, prompt):
                return Started(True, busy)
            # An echo of something else counts once it has shown for the profile's settle time
            # with the input box drawn: a frame caught half drawn (OpenCode's echo bar drawn, the
            # old answer row still behind it) shows one for a moment only.
            if y is None or not framed:
                other = None
            elif other is None or other[0] != shown:
                other = (shown, now)
            if other is not None and now - other[1] >= settle_for(profile):
                return reported(
                    st,
                    target.name,
                    ok=False,
                    error=f"another prompt started a turn before this one: {brief(shown)}",
                    hint="read the session: the CLI may have had a queued prompt; this prompt "
                    "may be queued behind it",
                )
            if st.status == Status.BLOCKED:
                return Started(False, busy)
        if holds and not resubmitted and now >= retry_at and not working:
            press_submit(target, profile)
            resubmitted, give_up = True, max(give_up, now + TURN_START)
        elif now >= (
            give_up
            if (busy and not holds) or (holds and not working)
            else max(give_up, deadline.at)
        ):
            if busy and not holds:
                return Started(False, True)
            return _not_started(target, st, holds, 2 if resubmitted else 1)
        time.sleep(POLL)


def _not_started(target: Target, st: State, holds: bool, pressed: int) -> Result:
    if holds:
        ask_log.remember(target, turn_open="0")
        error = (
            "the prompt is still in the input box after Enter was pressed "
            f"{'twice' if pressed > 1 else 'once'}"
            + ("" if pressed > 1 else " (the CLI was at work all the while)")
        )
        hint = "read the screen; the CLI may not take input now"
    else:
        error = ("the prompt left the input box, but no turn for it shows yet (the screen: "
                 f"{st.evidence})")
        hint = "the program took the prompt: read the session later for its turn and answer"
        st.status = Status.BUSY
    return reported(st, target.name, ok=False, error=error, hint=hint)


@dataclass(frozen=True, slots=True)
class Glance:
    """How a turn's end is confirmed: ``paged`` - its answer is read back from pages while the
    end holds still; ``least`` - the least time the end must hold still (a first turn)."""

    paged: bool
    least: float


@dataclass(frozen=True, slots=True)
class Ended:
    """How a turn was seen to end: the state, whether it was seen busy, and until when the screen
    must still show unchanged for the end to count (0: it has held long enough already)."""

    state: State
    seen_busy: bool
    still_until: float = 0.0


def _await_done(
    ctx: Context,
    target: Target,
    profile: AiProfile,
    deadline: Deadline,
    seen_busy: bool,
    glance: Glance,
) -> Ended:
    """Ready (or blocked, or failed) and holding still after the turn started; busy always wins.

    How long "still" must last depends on what was seen: a turn seen busy
    that now shows the CLI's own end-of-turn sign needs a glance; anything
    else needs the profile's settle time, which covers a CLI's pauses
    between streamed chunks; a first turn at least the profile's
    ``first_settle``.  A paged CLI's answer takes a while to read back, so its
    end-of-turn sign is taken at once and its glance is owed (``still_until``):
    reading the pages overlaps with it.
    """
    settle = settle_for(profile)
    looks = observe.looks(ctx.open(target))
    while True:
        st, now, still = next(looks)
        seen_busy = seen_busy or st.status == Status.BUSY
        # A failed turn is judged from the screen too, which may be caught mid-redraw (OpenCode
        # tells a failed turn only by the duration missing from its end line): it must hold still.
        quiet = max(_quiet_needed(profile, st, settle, seen_busy), glance.least)
        if (st.status in ENDED and (st.exact or still.steady(now) >= quiet)) or now >= deadline.at:
            return Ended(st, seen_busy)
        if glance.paged and st.status == Status.READY and quiet < settle:
            return Ended(st, seen_busy, now - still.steady(now) + quiet)


def _still_until(target: Target, shown: str, until: float) -> bool:
    """Whether the screen still shows ``shown`` now and at every look up to ``until``."""
    return all(
        _screen(target).digest == shown for _ in Deadline(until - time.monotonic()).ticks(POLL)
    )


def _await_change(target: Target, shown: str, seconds: float) -> bool:
    """Whether the screen moves on from ``shown`` within ``seconds``."""
    return any(_screen(target).digest != shown for _ in Deadline(seconds).ticks(POLL))


def _quiet_needed(profile: AiProfile, st: State, settle: float, seen_busy: bool) -> float:
    if (
        seen_busy
        and st.status == Status.READY
        and st.snap is not None
        and profile.finished(st.snap)
    ):
        return min(settle, SIGNED_SETTLE)
    return settle


def _await_answer(
    ctx: Context,
    target: Target,
    profile: AiProfile,
    mark: Anchor,
    prompt: str,
    deadline: Deadline,
    started: Started,
    unwrap: bool,
    glance: Glance,
) -> tuple[State, str | None]:
    """The state the turn ended in and its answer (None when it could not be cut out).

    A CLI may draw its end-of-turn line before the answer's text (OpenCode
    does), and OpenCode shows the echo of its first prompt for seconds before
    anything tells that it works: an empty answer stands only for a turn seen
    busy or showing the CLI's own end-of-turn sign after its echo, and only
    once the screen has held still a while longer.  A turn that shows
    neither by the deadline is reported ``busy``.  An answer read back from
    pages before the end's glance was over stands only if the screen is the
    same when the glance is over: else the turn had not ended.
    """
    seen_busy = started.busy
    while True:
        seen = _await_done(ctx, target, profile, deadline, seen_busy, glance)
        st, seen_busy = seen.state, seen.seen_busy
        if st.status != Status.READY or st.snap is None:
            return st, None
        turn = _turn(target, profile, mark, prompt, started.echoed)
        if seen.still_until and not _still_until(target, st.snap.digest, seen.still_until):
            continue
        answer = _answer_in(turn, target, profile, prompt, unwrap)
        if answer:
            return st, answer
        ended = seen_busy or (turn is not None and profile.finished(turn))
        left = deadline.left()
        if left <= 0 or (
            not _await_change(target, st.snap.digest, min(EMPTY_SETTLE, left)) and ended
        ):
            if not ended:
                st.status, st.evidence = (
                    Status.BUSY,
                    (
                        "the prompt's turn has started (its echo shows), but the CLI "
                        "shows neither work nor an answer yet"
                    ),
                )
            return st, answer


def _answer_in(
    turn: Snapshot | None, target: Target, profile: AiProfile, prompt: str, unwrap: bool
) -> str | None:
    """The answer in a turn cut out of the transcript; None when there is no turn or its
    echo is not this prompt's."""
    if turn is None or not turn_pages.matches(profile.echo(turn.lines[0]) or "", prompt):
        return None
    answer = profile.answer_from(turn, prompt)
    if answer is not None and unwrap:
        answer = turn_pages.unwrap_answer(answer, turn, profile.transcript_width(_screen(target)))
    return answer


def _turn(
    target: Target, profile: AiProfile, mark: Anchor, prompt: str, echoed: bool
) -> Snapshot | None:
    """This turn cut out of the scrollback, or for a CLI on the alternate screen (no
    scrollback) out of its pages read back.

    Once the echo was seen below the anchor, and ``ask`` sends nothing while a
    turn runs, this turn is the last one: it is cut from the last echo, which
    stays right when a CLI later redraws rows above it.  Otherwise it is found
    by the anchor - by the whole anchor where more is read than before the
    prompt (pages above the screen, all of a long history).
    """
    def find(snap: Snapshot, beyond: bool) -> Snapshot | None:
        last = turn_pages.last_turn(snap, profile) if echoed else None
        if last is not None and turn_pages.matches(profile.echo(last.lines[0]) or "", prompt):
            return last
        return turn_pages.turn_of(snap, mark, profile, whole=beyond)

    screen, facts = panes.look(target.tmux, target.pane)
    if facts.alternate and profile.page_keys:
        turn = find(screen, False)
        if turn is None:
            pages = turn_pages.page_back(
                target, profile, screen, lambda joined: find(joined, True) is not None
            )
            turn = find(pages, True) if pages is not None else None
        return turn
    turn = find(turn_pages.capture(target, turn_pages.HISTORY_LINES, styled=True), False)
    if turn is None and facts.history_size > turn_pages.HISTORY_LINES:
        turn = find(turn_pages.capture(target, None, styled=True), True)
    return turn

