"""Fixtures for driving the real AI coding CLIs against the scripted model server.

Every test gets its own private tmux server (``private_socket``), its own
model server on a free loopback port, and a fresh HOME written by
``tests/e2e/clis/homes.py`` (``model_server`` and ``prepare``, from
tests/ai_clis.py, which the page's tests share).

A :class:`TimedReply` remembers when its last piece of text left the
server, so a test can tell whether ``ask`` came back before the answer was
complete.  Every test here runs traced, and a failing one keeps its trace
(tests/traces.py).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from tests.ai_clis import Cli, explain, stop_leftovers  # noqa: F401 - the e2e modules take them from here
from tests.e2e.clis import versions
from tests.e2e.model_server import ApiError, Reply
from tests.traces import pytest_runtest_makereport, traced  # noqa: F401 - every test here runs traced

CLIS = ("claude", "codex", "gemini", "opencode")
# Bounds, not waits: a call returns as soon as the CLI is there.  OpenCode in a fresh HOME works ~60 s
# before it takes input on a machine at load 9 (its garbage collector busy the whole time), so a start
# is given three times that; an answer streams in seconds, a turn is bounded by the ask's own deadline.
START_TIMEOUT = 180
ASK_TIMEOUT = 90
RECORDED = ("claude", "codex", "gemini", "opencode")  # the CLIs whose own record ``ask`` reads answers from

# A failed turn for each CLI that it does not retry (its retries are switched
# off in homes.py where it has a switch; OpenCode retries 4xx/5xx except 401).
ERRORS = {
    "claude": ApiError(500, "scripted failure"),
    "codex": ApiError(500, "scripted failure"),
    "gemini": ApiError(400, "scripted failure"),
    "opencode": ApiError(401, "scripted failure"),
}

# Markdown with a block quote and a code block: each CLI draws them its own way (a dim bar,
# '│', '> ', numbered code lines); the answer is the text without the code fences.
CODE = ("def cut(board, times):", "    left = board", "    for _ in range(times):", "        left -= 1", "",
        "    return left", "", "def main():", "    print(cut(10, 3))", "    return 0")
QUOTE = ("The proverb says:", "", "> Measure twice, cut once.", "> It saves wood and time.", "", "In code:", "")
QUOTED = "\n".join((*QUOTE, "```python", *CODE, "```", "", "That is all."))
QUOTED_SHOWN = "\n".join((*QUOTE, *CODE, "", "That is all."))


def answer_of(program: str, text: str, shown: str) -> str:
    """The answer ``ask`` gives: the model's ``text`` where the CLI's record is read (Gemini CLI saves
    it without leading and trailing blank lines), else as ``shown``."""
    if program not in RECORDED:
        return shown
    return text.strip() if program == "gemini" else text


@dataclass(frozen=True)
class TimedReply(Reply):
    """A scripted reply that notes (``time.monotonic()``) when its last text piece was sent.

    The protocol writers send each piece as soon as :meth:`pieces` yields it
    and close the stream right after the generator ends, so the moment the
    generator is exhausted is the moment the answer's last byte left.
    """

    sent: list[float] = field(default_factory=list, compare=False, repr=False)

    def pieces(self) -> Iterator[tuple[float, str]]:
        yield from super().pieces()
        self.sent.append(time.monotonic())

    @property
    def last_byte(self) -> float | None:
        return self.sent[-1] if self.sent else None


@dataclass(frozen=True)
class HeldReply(Reply):
    """A scripted reply whose first byte waits until the test lets it go (``go``), however long the
    test takes to get there: the CLI shows its request under way meanwhile."""

    go: threading.Event = field(default_factory=threading.Event, compare=False, repr=False)

    def pieces(self) -> Iterator[tuple[float, str]]:
        self.go.wait(60)
        yield from super().pieces()


@pytest.fixture
def terminal_size(monkeypatch: pytest.MonkeyPatch) -> Callable[[int, int], None]:
    """Set the size of the private sessions ``start`` creates from now on."""

    def size(width: int, height: int) -> None:
        monkeypatch.setenv("TMUX_TOOL_WIDTH", str(width))
        monkeypatch.setenv("TMUX_TOOL_HEIGHT", str(height))

    return size


@pytest.fixture
def newest(prepare: Callable[..., Cli], monkeypatch: pytest.MonkeyPatch,
           request: pytest.FixtureRequest) -> Callable[..., Cli]:
    """``newest(name, **flags)``: :func:`prepare`, with the newest install first on PATH; what the CLI
    leaves running is ended by the newest install's own ``stop`` (a newer Cline's hub daemon may
    not answer the pinned one's ``cline hub stop``), before the pinned one's runs as a fallback."""

    def make(name: str, **flags: bool) -> Cli:
        assert (versions.NEWEST / name).exists(), (
            f"{versions.NEWEST / name} is missing: install the newest CLIs (tests/run.sh, or npm install "
            "--engine-strict=false in tests/e2e/clis/newest)")
        cli = prepare(name, **flags)
        launch = versions.on(cli.launch, versions.NEWEST)
        request.addfinalizer(lambda: stop_leftovers(launch))
        monkeypatch.setenv("PATH", launch.env["PATH"])
        return cli

    return make
