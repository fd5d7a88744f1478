"""How soon, and how safely, does ``ask`` come back from a real AI CLI?  Prints the figures.

For each CLI (Claude Code, Codex, Gemini CLI, OpenCode from tests/e2e/clis;
Kimi and aider too when asked for and installed where tests/e2e/clis/homes.py
expects them) against the scripted model server (tests/e2e/model_server):

* latency: from the moment the answer's last byte left the server to the
  moment ``ask`` returned - median, p90 and max (target: median <= 500 ms);
* early turns: turns where ``ask`` returned before that last byte, or with an
  answer other than the scripted one (a shorter one above all) - target 0.

Answers vary in length and stall mid-stream for up to two seconds, the way
a model pauses between tool calls or long thoughts.  Every CLI runs on this
run's own tmux socket, HOME and state directory; nothing else is touched.
Usage: ``.venv/bin/python bench/ai_bench.py [--turns N] [--clis claude,codex,gemini,opencode,kimi,aider]``.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.clis import homes
from tests.e2e.conftest import TimedReply
from tests.e2e.model_server import ModelServer

CLIS = ("claude", "codex", "gemini", "opencode")
# Aider needs its flags (no git, no update check, no analytics) to start offline without questions.
ARGS = {"aider": lambda launch: launch.argv[1:]}
STALLS = (0.0, 0.6, 1.2, 2.0)


@dataclass
class Figures:
    """The measurements of one CLI."""

    name: str
    latencies: list[float] = field(default_factory=list)
    early: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def answer(name: str, turn: int) -> TimedReply:
    """A plain answer of 2 to 12 short paragraphs; most stall once in the middle.

    One line per paragraph: Kimi joins a paragraph's lines and aider spaces
    them out, while a blank line between paragraphs looks the same in all.
    """
    lines = [f"{name} answer {turn}, line {n}: plain words that need no rendering." for n in range(2 + turn % 11)]
    text = "\n\n".join(lines)
    stall = STALLS[turn % len(STALLS)]
    pauses = ((len(text) // 2, stall),) if stall else ()
    return TimedReply(text=text, chunk_size=24, chunk_delay=0.02, pauses=pauses)


def bench_cli(name: str, turns: int, call: object, workdir: Path) -> Figures:
    figures = Figures(name)
    home = workdir / f"home-{name}"
    cwd = home / "project"
    cwd.mkdir(parents=True)
    saved = dict(os.environ)
    with ModelServer() as server:
        launch = getattr(homes, name)(server.url, home, cwd)
        os.environ.update(launch.env)
        try:
            args = ARGS[name](launch) if name in ARGS else []
            started = call("start", program=name, session=name, cwd=str(cwd), args=args, timeout=90)
            if started["status"] != "ready":
                figures.failures.append(f"start: {started['status']}: {started.get('error') or started['evidence']}")
                return figures
            for turn in range(turns):
                reply = answer(name, turn)
                server.script.push(reply)
                res = call("ask", session=name, prompt=f"Question {turn}: tell me something plain.", timeout=120)
                returned = time.monotonic()
                if reply.last_byte is None:
                    figures.failures.append(f"turn {turn}: the answer was never sent ({res['status']})")
                    continue
                figures.latencies.append((returned - reply.last_byte) * 1000)
                if returned < reply.last_byte or res["output"] != reply.text:
                    got = len(res["output"] or "")
                    figures.early.append(f"turn {turn}: {got}/{len(reply.text)} chars, "
                                         f"{(returned - reply.last_byte) * 1000:.0f} ms after the last byte")
            call("exit", session=name)
        finally:
            call("kill", session=name)
            os.environ.clear()
            os.environ.update(saved)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=13, help="turns per CLI (default 13: 52 in all)")
    parser.add_argument("--clis", default=",".join(CLIS))
    args = parser.parse_args()
    socket = f"tt-aibench-{os.getpid()}"
    workdir = tempfile.TemporaryDirectory(prefix="tt-aibench-")
    os.environ["TMUX_TOOL_PRIVATE_SOCKET"] = socket
    os.environ["TMUX_TOOL_STATE_DIR"] = str(Path(workdir.name) / "state")
    from python.tools.tmux_tool import call

    results: list[Figures] = []
    try:
        for name in args.clis.split(","):
            results.append(bench_cli(name, args.turns, call, Path(workdir.name)))
    finally:
        subprocess.run(["tmux", "-L", socket, "kill-server"], capture_output=True, timeout=10, check=False)
        workdir.cleanup()

    every: list[float] = []
    early = 0
    for fig in results:
        every += fig.latencies
        early += len(fig.early)
        if fig.latencies:
            print(f"{fig.name:9} {len(fig.latencies):3} turns: last byte -> ask returned median "
                  f"{statistics.median(fig.latencies):6.0f} ms, p90 {percentile(fig.latencies, 0.9):6.0f} ms, "
                  f"max {max(fig.latencies):6.0f} ms; early {len(fig.early)}")
        for line in fig.early + fig.failures:
            print(f"{'':9} {line}")
    if every:
        print(f"{'all':9} {len(every):3} turns: median {statistics.median(every):.0f} ms (target <= 500), "
              f"early {early} (target 0)")


if __name__ == "__main__":
    main()
