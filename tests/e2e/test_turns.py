"""Ten turns in one session: every answer belongs to its own prompt.

Each CLI runs in one private session at 80x24 and at 200x50 and is asked
ten prompts in a row, in an order that puts the hard neighbours together: a
120-line answer (three screens at 80x24, paged back on OpenCode), a bare
"OK", the same prompt twice, the same answer twice (and, at 200x50, the same
prompt with the same answer twice), an answer that stalls for seconds,
fenced code with ``$ `` and ``>>> `` lines, wide characters and a
600-character line (asked with ``unwrap``).

The scripted model server is the ground truth: every ``ask`` must be
answered by exactly one new model request that carries its prompt, must
return after that request's last byte left the server, and must return the
answer scripted for it - rendered the way the CLI renders it (fences
dropped; Gemini CLI's code line numbers left out).  The test counts the answers
returned early and those taken from an earlier turn, and both must be 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

import pytest

from python.tools.tmux_tool import call
from tests.e2e.conftest import ASK_TIMEOUT, CLIS, START_TIMEOUT, Cli, HeldReply, answer_of, explain
from tests.e2e.model_server import Reply

LONG = "\n".join(f"Line {n:03d} of the long answer keeps going with plain words." for n in range(1, 121))
CODE_LINES = ("Here is a short session:", "", "```", "$ echo hello", "hello", ">>> 6 * 7", "42", "```", "",
              "That was the session.")
CODE = "\n".join(CODE_LINES)
WIDE = "Wide characters: 日本語のテキスト, 한국어 문장, emoji 🎉🚀 and ✓ marks."
LINE = " ".join(f"word{n:03d}" for n in range(75))[:600]
ONE_LINE = f"Here comes one long line:\n\n{LINE}\n\nThat was the long line."
PAUSED_LINES = ("This answer stops for a while.", "The stream stalls after this line.",
                "It goes on after the stall, and ends here.")
PAUSED = "\n".join(PAUSED_LINES)
SAME = "This answer is given twice, word for word."


@dataclass(frozen=True)
class Turn:
    """One ask: its prompt, its scripted reply, whether lines are joined again."""

    name: str
    prompt: str
    reply: Reply
    unwrap: bool = False


def _turns(size: tuple[int, int]) -> list[Turn]:
    """Ten turns in an order chosen per size; each prompt names its turn unless it repeats on purpose."""
    long = Turn("long", "Answer at length", Reply(text=LONG, chunk_size=120, chunk_delay=0.01))
    short = Turn("short", "Just say OK", Reply(text="OK"))
    paused = Turn("pause", "Answer with a stall", Reply(text=PAUSED, chunk_size=12, chunk_delay=0.02,
                                                        pauses=((PAUSED.index("It goes on"), 3.0),)))
    code = Turn("code", "Show a shell and a Python session", Reply(text=CODE))
    wide = Turn("wide", "Use wide characters", Reply(text=WIDE))
    line = Turn("line600", "Write one very long line", Reply(text=ONE_LINE, chunk_size=40), unwrap=True)
    if size == (80, 24):
        return [
            short, long,
            Turn("same-prompt-1", "Tell me the colour", Reply(text="The colour is blue.")),
            Turn("same-prompt-2", "Tell me the colour", Reply(text="Now the colour is green.")),
            code,
            Turn("same-answer-1", "Repeat the sentence", Reply(text=SAME)),
            Turn("same-answer-2", "Repeat the sentence once more", Reply(text=SAME)),
            paused, wide, line,
        ]
    return [
        long,
        Turn("same-answer-1", "Repeat the sentence", Reply(text=SAME)),
        Turn("same-answer-2", "Repeat the sentence once more", Reply(text=SAME)),
        paused, line,
        Turn("same-both-1", "Say the same again", Reply(text="Same prompt, same answer.")),
        Turn("same-both-2", "Say the same again", Reply(text="Same prompt, same answer.")),
        wide, code, short,
    ]


def rendered(text: str) -> str:
    """``text`` as the answer gives it back: code fences dropped (the CLIs draw code without them;
    Gemini CLI's line numbers beside code are the screen's, not the answer's)."""
    out: list[str] = []
    for row in text.split("\n"):
        if row.startswith("```"):
            continue
        out.append(row)
    return "\n".join(out)


@dataclass
class Outcome:
    """What one ask returned, held against the model server's record."""

    turn: Turn
    number: int
    program: str
    res: dict
    requests: int
    received: bool
    early: bool
    earlier: bool

    @property
    def good(self) -> bool:
        return (self.res["ok"] and self.res["status"] == "ready" and self.res.get("turn") == self.number
                and self.requests == 1 and self.received and not self.early and not self.earlier
                and self.res["output"] == self.want)

    @property
    def want(self) -> str:
        return answer_of(self.program, self.turn.reply.text, rendered(self.turn.reply.text))

    def line(self) -> str:
        return (f"{self.number:2} {self.turn.name:14} ok={self.res['ok']!s:5} status={self.res['status']:7} "
                f"turn={self.res.get('turn')} "
                f"model calls={self.requests} prompt received={self.received} early={self.early} "
                f"earlier={self.earlier} equal={self.res['output'] == self.want}")


def _ask(cli: Cli, number: int, turn: Turn, earlier: list[str]) -> Outcome:
    before = len(cli.server.calls("main"))
    cli.server.script.push(turn.reply)
    res = call("ask", session=cli.name, prompt=turn.prompt, timeout=ASK_TIMEOUT, unwrap=turn.unwrap)
    returned = time.monotonic()
    new = cli.server.calls("main")[before:]
    received = len(new) == 1 and turn.prompt in (new[0].prompt or "")
    early = not new or new[-1].ended is None or returned < new[-1].ended
    want = answer_of(cli.name, turn.reply.text, rendered(turn.reply.text))
    from_earlier = res["output"] != want and res["output"] in earlier
    return Outcome(turn, number, cli.name, res, len(new), received, early, from_earlier)


@pytest.mark.e2e
@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
@pytest.mark.parametrize("program", CLIS)
def test_ten_turns_each_answer_its_own(program: str, size: tuple[int, int], prepare: Callable[..., Cli],
                                       terminal_size: Callable[[int, int], None]) -> None:
    terminal_size(*size)
    cli = prepare(program)
    started = call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)

    outcomes: list[Outcome] = []
    earlier: list[str] = []
    for number, turn in enumerate(_turns(size), start=1):
        outcome = _ask(cli, number, turn, earlier)
        outcomes.append(outcome)
        earlier.append(outcome.want)

    bad = [o for o in outcomes if not o.good]
    report = "\n".join(o.line() for o in outcomes)
    details = "\n\n".join(f"{o.turn.name}: {o.res['output']!r}\n!=\n{o.want!r}\n{explain(o.res)}" for o in bad)
    assert sum(o.early for o in outcomes) == 0, f"answers returned early:\n{report}\n\n{details}"
    assert sum(o.earlier for o in outcomes) == 0, f"answers from an earlier turn:\n{report}\n\n{details}"
    assert not bad, f"{len(bad)} of {len(outcomes)} turns wrong:\n{report}\n\n{details}"
    call("kill", session=cli.name)


def _answered(cli: Cli, prompt: str, timeout: float) -> bool:
    """Whether the model server sent the last byte of its answer to ``prompt`` within ``timeout``."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(prompt in (r.prompt or "") and r.ended is not None for r in cli.server.calls("main")):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.e2e
@pytest.mark.parametrize("program", CLIS)
def test_a_busy_cli_gets_no_second_prompt(program: str, prepare: Callable[..., Cli],
                                          terminal_size: Callable[[int, int], None]) -> None:
    """An ask whose timeout passes leaves its turn running; the next ask is refused, naming that
    turn, and types nothing (a CLI would queue it); once the turn ended, the next ask gets its own answer."""
    terminal_size(80, 24)
    cli = prepare(program)
    started = call("start", program=cli.name, session=cli.name, cwd=cli.cwd, timeout=START_TIMEOUT)
    assert started["ok"] and started["status"] == "ready", explain(started)

    slow_text = "The slow answer arrives at last."
    slow_reply = HeldReply(text=slow_text)  # the model answers once the refusal was seen
    cli.server.script.push(slow_reply)
    try:
        slow = call("ask", session=cli.name, prompt="Take your time", timeout=2)
        assert not slow["ok"] and slow["status"] == "busy" and slow["turn"] == 1, explain(slow)

        refused = call("ask", session=cli.name, prompt="Are you done yet", timeout=ASK_TIMEOUT)
        assert not refused["ok"] and refused["status"] == "busy", explain(refused)
        assert "turn 1" in refused["error"] and "Take your time" in refused["error"], refused["error"]
        assert "Are you done yet" not in (call("read", session=cli.name)["screen"] or "")
    finally:
        slow_reply.go.set()

    assert _answered(cli, "Take your time", 60), "the slow turn never reached its end at the model server"
    waited = call("wait", session=cli.name, timeout=60)
    assert waited["ok"] and waited["status"] == "ready", explain(waited)
    assert not any("Are you done yet" in (r.prompt or "") for r in cli.server.calls("main")), \
        "the refused prompt reached the model"

    reply = Reply(text="This answer is the third prompt's own.")
    outcome = _ask(cli, 2, Turn("after", "Now answer this", reply), [rendered(slow_text)])
    assert outcome.good, outcome.line() + "\n" + explain(outcome.res)
    call("kill", session=cli.name)
