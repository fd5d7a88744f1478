"""Three AI CLIs take turns in a discussion, and no turn passes before its speaker is done.

The failure this guards against (seed 003): an orchestrator passed the turn
while an agent was still answering, because a completion marker matched in
the echoed prompt or in the answer instead of at the end of the screen.
Here Claude Code, Codex and Gemini CLI discuss for three rounds; each
speaker's scripted answer stalls mid-stream and quotes the other CLIs'
markers, and each prompt quotes the previous speaker's answer.  Every turn
must come back only after its answer's last byte was sent, equal to the
script, while the other two sit idle and untouched.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from python.tools.tmux_tool import call
from tests.e2e.conftest import START_TIMEOUT, Cli, TimedReply, explain
from tests.e2e.model_server import ModelServer

pytestmark = pytest.mark.e2e

SPEAKERS = ("claude", "codex", "gemini")
ROUNDS = 3


@pytest.fixture
def servers() -> Iterator[dict[str, ModelServer]]:
    """One scripted model per speaker, so a stray request would show at the wrong server."""
    running = {name: ModelServer().start() for name in SPEAKERS}
    yield running
    for server in running.values():
        server.stop()


def _answer(speaker: str, round_no: int) -> TimedReply:
    text = "\n".join([
        f"{speaker} speaking in round {round_no}.",
        "I agree with the point before mine and add one of my own:",
        "the end of a turn is read at the bottom of the screen.",
        "These lines only look like markers: ✻ Worked for 2s",
        "Worked for 4s • 12:00",
        "(esc to cancel, 1s)",
        f"That is all from {speaker} for round {round_no}.",
    ])
    return TimedReply(text=text, chunk_size=14, chunk_delay=0.02, pauses=((text.index("These lines"), 2.0),))


def test_three_agents_take_turns(prepare: Callable[..., Cli], servers: dict[str, ModelServer]) -> None:
    for name in SPEAKERS:
        # Each CLI gets its own HOME: prepare sets it, start hands it to the CLI it launches.
        cli = prepare(name, server=servers[name])
        started = call("start", program=name, session=name, cwd=cli.cwd, timeout=START_TIMEOUT)
        assert started["ok"] and started["status"] == "ready", explain(started)

    previous = "Topic: how should a tool know that an AI CLI has finished its turn?"
    for round_no in range(1, ROUNDS + 1):
        for speaker in SPEAKERS:
            others = [name for name in SPEAKERS if name != speaker]
            for name in SPEAKERS:
                seen = call("status", session=name)
                why = seen.get("evidence") or seen.get("error")
                assert seen["status"] == "ready", f"{name} is not idle before {speaker}: {why}"
            served = {name: servers[name].script.served for name in others}

            reply = _answer(speaker, round_no)
            servers[speaker].script.push(reply)
            prompt = f"Round {round_no}. Answer the previous speaker, who said:\n\n{previous}"
            res = call("ask", session=speaker, prompt=prompt, timeout=90)
            returned = time.monotonic()

            assert res["ok"] and res["status"] == "ready", explain(res)
            assert reply.last_byte is not None and returned >= reply.last_byte, \
                f"{speaker}'s turn passed before its answer was complete: {res['output']!r}"
            assert res["output"] == reply.text, f"{speaker}, round {round_no}:\n{res['output']!r}\n{res['screen']}"
            assert {name: servers[name].script.served for name in others} == served, "another agent was asked"
            previous = res["output"]

    for name in SPEAKERS:
        gone = call("exit", session=name)
        assert gone["ok"] and gone["status"] == "ready", explain(gone)
