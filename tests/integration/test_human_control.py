"""The human-control protocol on a real tmux session: pause, approval, activity.

The page, agent.sh and the tool agree only through user options of the
shared session, so each rule is checked where it lives: in tmux.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

import pytest

from python.helpers.tmux_tool.shared import control, keystroke
from python.helpers.tmux_tool.transport.tmux import NoTarget, Tmux
from tests.conftest import SharedTerminal

TARGET = "=shared:"
# A second answer to one request: while the first waits to be read, and once the asker has read it.
REFUSED_AGAIN = ("this request has already been answered",
                 "no such request is waiting: it was answered, withdrawn or has expired")


@pytest.fixture
def tmux(shared_terminal: SharedTerminal) -> Tmux:
    return Tmux(shared_terminal.socket)


class Asking:
    """await_approval in a thread, as the tool waits while the page answers."""

    def __init__(self, tmux: Tmux, text: str, keys: list[str], enter: bool, timeout: float) -> None:
        self.outcome: list[str | None] = []
        self.thread = threading.Thread(
            target=lambda: self.outcome.append(control.await_approval(tmux, TARGET, text, keys, enter, timeout)),
            daemon=True,
        )
        self.thread.start()

    def pending(self, tmux: Tmux) -> dict[str, Any]:
        deadline = time.monotonic() + 5
        while (found := control.read(tmux, TARGET).pending) is None:
            assert time.monotonic() < deadline, "the request never appeared"
            time.sleep(0.02)
        return found

    def result(self) -> str | None:
        self.thread.join(15)
        assert self.outcome, "await_approval did not return"
        return self.outcome[0]


def test_a_pause_in_the_condition_stops_the_keystroke_inside_tmux(shared_terminal: SharedTerminal,
                                                                  tmux: Tmux) -> None:
    """The fragment refuses inside tmux, whatever the caller looked at before."""
    def typed_if_allowed(text: str) -> str:
        return tmux.cmd("if-shell", "-F", "-t", TARGET, control.ALLOWED,
                        f"send-keys -t {TARGET} -l {text}", "display-message -p refused")

    control.set_paused(tmux, TARGET, True)
    assert control.paused(tmux, TARGET)
    assert typed_if_allowed("paused-text").strip() == "refused"
    assert "paused-text" not in shared_terminal.screen()
    control.set_paused(tmux, TARGET, False)
    assert not control.paused(tmux, TARGET)
    assert typed_if_allowed("resumed-text") == ""
    deadline = time.monotonic() + 5
    while "resumed-text" not in shared_terminal.screen():
        assert time.monotonic() < deadline
        time.sleep(0.02)


def test_approve_and_reject_are_bound_to_one_request(tmux: Tmux) -> None:
    control.set_approve(tmux, TARGET, True)
    asking = Asking(tmux, "ls -la", [], True, 10)
    pending = asking.pending(tmux)
    assert (pending["text"], pending["keys"], pending["enter"]) == ("ls -la", [], True)
    digest = control.pending_digest(pending)
    assert control.answer(tmux, TARGET, pending["id"], "approve", digest) is None
    # A second answer is refused, before the asker has read the first (answered) or after (it cleared the
    # request): which one depends on how the machine schedules the asker's poll.
    assert control.answer(tmux, TARGET, pending["id"], "approve", digest) in REFUSED_AGAIN
    assert asking.result() is None
    state = control.read(tmux, TARGET)
    assert state.pending is None and state.approval is None
    assert control.answer(tmux, TARGET, pending["id"], "approve", digest) is not None, "no replay"

    asking = Asking(tmux, "", ["C-c"], False, 10)
    second = asking.pending(tmux)
    assert second["id"] != pending["id"]
    # The first request's answer, written straight into tmux, does not count for the second.
    tmux.cmd("set-option", "-t", TARGET, control.APPROVAL_OPTION,
             json.dumps({"id": pending["id"], "verdict": "approve", "digest": digest}))
    # Nor does an answer for the second with the digest of other keys.
    assert control.answer(tmux, TARGET, second["id"], "approve",
                          control.digest(second["id"], "", ["C-d"], False)) is not None
    assert asking.thread.is_alive()
    assert control.answer(tmux, TARGET, second["id"], "reject", control.pending_digest(second)) is None
    refusal = asking.result()
    assert refusal == "the human rejected typing C-c into the shared terminal; nothing was typed"


def test_an_answered_request_takes_no_second_answer(tmux: Tmux) -> None:
    """The first answer stands until the asker reads it; another answer in between is refused (no asker
    here, so the request waits for as long as the test needs)."""
    pending = {"id": "c" * 24, "text": "ls", "keys": [], "enter": True, "expires": time.time() + 60}
    tmux.cmd("set-option", "-t", TARGET, control.PENDING_OPTION, json.dumps(pending))
    digest = control.pending_digest(pending)
    assert control.answer(tmux, TARGET, pending["id"], "approve", digest) is None
    assert control.answer(tmux, TARGET, pending["id"], "reject", digest) == "this request has already been answered"
    assert control.read(tmux, TARGET).approval == {"id": pending["id"], "verdict": "approve", "digest": digest}


def test_no_answer_before_the_timeout_is_a_refusal(tmux: Tmux) -> None:
    control.set_approve(tmux, TARGET, True)
    started = time.monotonic()
    refusal = control.await_approval(tmux, TARGET, "make", [], True, 0.5)
    assert refusal is not None and "did not approve typing 'make' and Enter within 0.5 s" in refusal
    assert time.monotonic() - started < 3
    assert control.read(tmux, TARGET).pending is None


def test_an_expired_request_takes_no_answer(tmux: Tmux) -> None:
    pending = {"id": "b" * 24, "text": "x", "keys": [], "enter": False, "expires": time.time() - 1}
    tmux.cmd("set-option", "-t", TARGET, control.PENDING_OPTION, json.dumps(pending))
    assert control.answer(tmux, TARGET, pending["id"], "approve", control.pending_digest(pending)) == \
        "the request has expired"
    assert control.read(tmux, TARGET).approval is None


def test_a_pause_ends_the_wait_for_approval(tmux: Tmux) -> None:
    control.set_approve(tmux, TARGET, True)
    asking = Asking(tmux, "echo hi", [], True, 10)
    asking.pending(tmux)
    control.set_paused(tmux, TARGET, True)
    assert asking.result() == control.PAUSED
    assert control.await_approval(tmux, TARGET, "echo hi", [], True, 10) == control.PAUSED


def test_without_approve_mode_nothing_is_asked(tmux: Tmux) -> None:
    assert control.await_approval(tmux, TARGET, "echo hi", [], True, 10) is None
    assert control.read(tmux, TARGET).pending is None


def test_announce_keeps_its_start_and_masks_secrets(tmux: Tmux) -> None:
    control.announce(tmux, TARGET, "waiting", "sleep 5", "for the prompt")
    first = control.read(tmux, TARGET).activity
    assert first is not None and first["state"] == "waiting" and first["reason"] == "for the prompt"
    control.announce(tmux, TARGET, "waiting", "sleep 5", "for the prompt")
    assert control.read(tmux, TARGET).activity == first, "the same state keeps its start time"
    secret = "sk-" + "a1B2c3D4" * 4
    control.announce(tmux, TARGET, "typing", f"export OPENAI_API_KEY={secret}")
    shown = control.read(tmux, TARGET).activity
    assert shown is not None and secret not in json.dumps(shown) and shown["state"] == "typing"


def test_a_missing_session_is_an_error_not_an_empty_state(tmux: Tmux) -> None:
    with pytest.raises(NoTarget):
        control.read(tmux, "=no-such-session:")


def test_the_status_line_is_off_by_default_and_shows_the_agent_when_on(tmux: Tmux) -> None:
    def shown() -> str:
        return tmux.display(TARGET, "#{status}|#{E:status-right}")

    assert shown().startswith("off|")
    control.set_status_line(tmux, TARGET, True)
    control.announce(tmux, TARGET, "typing", "grep -n '#[a-z]' notes.md")
    assert shown() == "on|agent typing `grep -n '##[a-z]' notes.md`", "a # in the text is no style for tmux"
    control.announce(tmux, TARGET, "held", "ls", "you are typing")
    assert shown() == "on|agent held back: you are typing"
    control.set_paused(tmux, TARGET, True)
    assert shown() == "on|#[reverse] agent paused #[default]"
    control.set_status_line(tmux, TARGET, False)
    assert shown().startswith("off|")


@pytest.mark.parametrize("args", [{"action": "send", "text": "echo late-pause"},
                                  {"action": "keys", "keys": "e c h o Space l a t e Enter"}])
def test_a_pause_between_the_last_look_and_the_keystroke_still_stops_it(
        shared_terminal: SharedTerminal, tmux: Tmux, monkeypatch: pytest.MonkeyPatch, args: dict[str, str]) -> None:
    """The human pauses at the worst moment: after every check in Python, just before tmux types."""
    from python.tools.tmux_tool import call

    wait_ready = call("wait", timeout=10)
    assert wait_ready["ok"], wait_ready
    before = shared_terminal.screen()
    inject = keystroke.inject

    def pause_first(target: Any, *args: Any, **kw: Any) -> bool:
        control.set_paused(target.tmux, TARGET, True)
        return inject(target, *args, **kw)

    monkeypatch.setattr(keystroke, "inject", pause_first)
    args = dict(args)
    result = call(args.pop("action"), timeout=5, **args)
    assert not result["ok"] and result["error"] == control.PAUSED, result
    assert (control.read(tmux, TARGET).activity or {}).get("state") == "idle"
    # A key typed now reaches the pane after anything tmux took before it: if the
    # agent's keys had got through, they would show before this one.
    shared_terminal.type("Z")
    deadline = time.monotonic() + 5
    while (screen := shared_terminal.screen()) == before:
        assert time.monotonic() < deadline, "the human's key never showed"
        time.sleep(0.02)
    prompt_line, line = before.rstrip().split("\n")[-1], screen.rstrip().split("\n")[-1]
    assert line.startswith(prompt_line) and line[len(prompt_line):].strip() == "Z", screen
    assert "late" not in screen
