"""How soon, and how safely, does ``ask`` come back from a real AI CLI?  Prints the figures.

For each CLI (Claude Code, Codex, Gemini CLI, OpenCode from tests/e2e/clis;
pi, Qwen Code, Continue's ``cn``, GitHub Copilot CLI (``copilot``), Cline CLI
(``cline``) and Kilo CLI (``kilo``) when asked for; Kimi and aider too when
asked for and installed where tests/e2e/clis/homes.py expects them), in each
of its versions - the pinned install and the newest (tests/e2e/clis/versions.py;
a CLI whose newest release is the pinned one is said so and measured once) -
and at 80x24 and at 200x50, one session takes
``--turns`` prompts (at least 10; 25 by default, so 50 per version) against
the scripted model server (tests/e2e/model_server), whose record of
requests is the ground truth:

* latency: from the moment the answer's last byte left the server to the
  moment ``ask`` returned - median, p90 and max per CLI, version and size,
  and the median per version against its target (300 ms), each next to the
  floors measured in this run (a bare tmux round trip, one capture of the
  pane, ``python -c pass``) and its ratio to one capture;
* early: turns where ``ask`` returned before the last byte of its own
  model request, or before the CLI sent the prompt at all - target 0;
* earlier: turns answered with the answer of an earlier turn - target 0;
* exact: answers equal to the scripted text byte for byte - half the
  answers carry a fenced code block with its language, a line of 300
  characters and a trailing newline, which a screen cannot give back - and
  where each answer came from (``answer_source``: the CLI's own record, or
  the screen) - target: all exact;
* wrong: any other answer than the scripted one (a screen's rendering of it
  included).

Answers vary in length (up to three screens at 80x24) and most stall once
mid-stream for up to two seconds; every third prompt repeats the one before
and every fourth answer repeats the one before, so an answer can only be
told apart by the turn it belongs to.  Every CLI runs on this run's own tmux
socket, HOME and state directory, and what it leaves running after it exits
(Cline's hub daemon) is ended with its launch's ``stop``; nothing else is touched.
``--installs latest`` installs each npm CLI's newest release from the
registry into a scratch folder first (``npm install --prefix``), so a
release that came out today is measured today.  ``--generic`` measures the
CLIs with no profile file at all (``TMUX_TOOL_PROFILES`` naming an empty
folder): each is read as any chat CLI no profile knows, its answers off the
screen.  A CLI the generic reading cannot drive by design (:data:`NOT_GENERIC`:
Kilo, read by OpenCode's reader) is named as such and not measured then.
Usage: ``.venv/bin/python bench/ai_bench.py [--turns N]
[--clis claude,codex,gemini,opencode,pi,qwen,cn,copilot,cline,kilo,kimi,aider]
[--installs pinned,newest,latest] [--generic]``.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from floors import kill_server

from tests.e2e.clis import homes, versions
from tests.e2e.model_server import ModelServer, Reply

CLIS = ("claude", "codex", "gemini", "opencode")
SIZES = ((80, 24), (200, 50))
# Aider needs its flags (no git, no update check, no analytics) to start offline without questions.
# Continue's cn is told its config file (the scripted model server).  Without profiles (--generic)
# every CLI is started with the argv tests/e2e/clis/homes.py gives it.
ARGS = {"aider": lambda launch: launch.argv[1:], "cn": lambda launch: launch.argv[1:]}
STALLS = (0.0, 0.6, 1.2, 2.0)
MIN_TURNS = 10
TURNS = 25
TARGET_MS = 300.0
TARGET_RECORD_MS = 100.0  # where the answer comes from the CLI's own record
PACKAGES = {"claude": "@anthropic-ai/claude-code", "codex": "@openai/codex", "gemini": "@google/gemini-cli",
            "opencode": "opencode-ai", "pi": "@mariozechner/pi-coding-agent",
            "qwen": "@qwen-code/qwen-code", "cn": "@continuedev/cli", "copilot": "@github/copilot",
            "cline": "cline", "kilo": "@kilocode/cli"}
NPM = tuple(PACKAGES)  # the CLIs from npm: a pinned install, a newest one where installed
# The CLIs the generic reading gives up by design (tests/e2e/test_generic_path.py): measured with
# their profile only, since without it ``start`` would wait out its deadline for nothing.
NOT_GENERIC = {"kilo": "Kilo is an OpenCode fork read by OpenCode's reader: its input is a box framed "
                       "by a bar and shading, not a band between two rules, so the generic reading "
                       "cannot drive it"}


@dataclass(frozen=True)
class Version:
    """One install of a CLI to measure: which one, where its executables are, what it says it is."""

    install: str
    bin_dir: Path | None  # None: the CLI's own install, where tests/e2e/clis/homes.py finds it
    number: str = ""
    note: str = ""


def versions_of(name: str, installs: list[str], latest: Path | None) -> list[Version]:
    """The installs of ``name`` to measure; one measured once when it is the same release as another."""
    if name not in NPM:
        return [Version("own", None, note="not from npm: one install")]
    dirs = {**versions.INSTALLS, **({"latest": latest / "node_modules" / ".bin"} if latest else {})}
    found: list[Version] = []
    for install in installs:
        number = versions.version(dirs[install], name)
        if not number and install != "pinned":
            continue  # not in that install (tests/e2e/clis/newest has no Kilo: see its package.json)
        same = next((v for v in found if v.number == number), None)
        if same is not None:
            found[found.index(same)] = dataclasses.replace(same, note=f"{install} is the same release: measured once")
        else:
            found.append(Version(install, dirs[install], number))
    return found


def install_latest(clis: list[str], folder: Path) -> Path:
    """Each npm CLI's newest release from the registry, installed into ``folder`` (not the project)."""
    packages = [f"{PACKAGES[name]}@latest" for name in clis if name in PACKAGES]
    subprocess.run(["npm", "install", "--prefix", str(folder), "--no-save", "--no-audit", "--no-fund",
                    "--engine-strict=false", *packages], check=True, timeout=1800, capture_output=True)
    return folder


@dataclass
class Figures:
    """The measurements of one CLI at one size."""

    name: str
    version: Version
    size: tuple[int, int]
    latencies: list[float] = field(default_factory=list)
    early: list[str] = field(default_factory=list)
    earlier: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    exact: int = 0
    sources: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Floors:
    """What the machine costs before the tool does anything (milliseconds, medians)."""

    tmux: float
    capture: float
    python: float


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _median_ms(action: Callable[[], object], times: int) -> float:
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        action()
        spent.append((time.perf_counter() - began) * 1000)
    return statistics.median(spent)


def floors(socket: str) -> Floors:
    """A bare tmux round trip, one capture of a 200x50 pane, and ``python -c pass``."""
    tmux = ["tmux", "-L", socket]

    def run(*argv: str) -> None:
        subprocess.run(argv, capture_output=True, timeout=30, check=True)

    run(*tmux, "new-session", "-d", "-s", "floor", "-x", "200", "-y", "50")
    try:
        round_trip = _median_ms(lambda: run(*tmux, "display-message", "-p", ""), 30)
        capture = _median_ms(lambda: run(*tmux, "capture-pane", "-p", "-e", "-t", "floor"), 30)
    finally:
        run(*tmux, "kill-session", "-t", "floor")
    python = _median_ms(lambda: run(sys.executable, "-c", "pass"), 5)
    return Floors(round_trip, capture, python)


def turn(name: str, number: int) -> tuple[str, str, Reply]:
    """The prompt and scripted reply of turn ``number``: 1 to 36 lines, most stalling once; every
    other one with a fenced code block, a line of 300 characters and a trailing newline.

    One line per paragraph: Kimi joins a paragraph's lines and aider spaces
    them out, while a blank line between paragraphs looks the same in all.
    Every third prompt repeats the one before; every fourth answer does.
    """
    asked = number - 1 if number % 3 == 2 else number
    said = number - 1 if number % 4 == 3 else number
    lines = [f"{name} answer {said}, line {n}: plain words that need no rendering." for n in range(1 + said * 7 % 36)]
    if said % 2:
        lines += [f"```python\nprint('answer {said}')\n```", " ".join(f"w{n:03d}" for n in range(60)) + "\n"]
    text = "\n\n".join(lines)
    stall = STALLS[said % len(STALLS)]
    pauses = ((len(text) // 2, stall),) if stall else ()
    return f"Question {asked}: tell me something plain.", text, Reply(text=text, chunk_size=24, chunk_delay=0.02,
                                                                      pauses=pauses)


def bench_session(name: str, version: Version, size: tuple[int, int], turns: int, call: Callable[..., dict],
                  workdir: Path, generic: bool = False) -> Figures:
    figures = Figures(name, version, size)
    home = workdir / f"home-{name}-{version.install}-{size[0]}x{size[1]}"
    cwd = home / "project"
    cwd.mkdir(parents=True)
    saved = dict(os.environ)
    session = f"{name}-{version.install}-{size[0]}x{size[1]}"
    with ModelServer() as server:
        launch = getattr(homes, name)(server.url, home, cwd)
        if version.bin_dir is not None:
            launch = versions.on(launch, version.bin_dir)
        os.environ.update(launch.env)
        os.environ["TMUX_TOOL_WIDTH"], os.environ["TMUX_TOOL_HEIGHT"] = str(size[0]), str(size[1])
        try:
            args = launch.argv[1:] if generic else ARGS[name](launch) if name in ARGS else []
            started = call("start", program=name, session=session, cwd=str(cwd), args=args, timeout=90)
            if started["status"] != "ready":
                figures.failures.append(f"start: {started['status']}: {started.get('error') or started['evidence']}")
                return figures
            given: list[str] = []
            for number in range(turns):
                prompt, text, reply = turn(name, number)
                before = len(server.calls("main"))
                server.script.push(reply)
                res = call("ask", session=session, prompt=prompt, timeout=120)
                returned = time.monotonic()
                _judge(figures, number, prompt, text, res, returned, server.calls("main")[before:], given)
                given.append(text)
            call("exit", session=session)
        finally:
            call("kill", session=session)
            if launch.stop:  # Cline's hub daemon outlives the TUI; another session must not reach it
                subprocess.run(launch.stop, env=launch.env, cwd=launch.cwd, timeout=60, capture_output=True,
                               check=False)
            os.environ.clear()
            os.environ.update(saved)
    return figures


def _judge(figures: Figures, number: int, prompt: str, text: str, res: dict, returned: float,
           requests: list, given: list[str]) -> None:
    """File one turn under early, earlier or wrong (or none), by the model server's record."""
    mine = next((r for r in requests if prompt in (r.prompt or "")), None)
    output = res["output"] or ""
    if mine is None or mine.ended is None or returned < mine.ended:
        figures.early.append(f"turn {number}: {res['status']}, the model had "
                             f"{'not got the prompt' if mine is None else 'not sent its last byte'}")
        return
    figures.latencies.append((returned - mine.ended) * 1000)
    source = str(res.get("answer_source") or "none")
    figures.sources[source] = figures.sources.get(source, 0) + 1
    figures.exact += output == text
    if output != text and output in given:
        figures.earlier.append(f"turn {number}: the answer of turn {given.index(output)}")
    elif output != text:
        figures.wrong.append(f"turn {number}: {len(output)}/{len(text)} chars from the {source} "
                             f"({res['status']}: {res.get('error')})")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=TURNS,
                        help=f"turns per session, two sessions per version (at least {MIN_TURNS}; default {TURNS})")
    parser.add_argument("--clis", default=",".join(CLIS))
    parser.add_argument("--installs", default=",".join(versions.INSTALLS),
                        help="pinned, newest (tests/e2e/clis), latest (installed from the registry now)")
    parser.add_argument("--generic", action="store_true",
                        help="no profile file (TMUX_TOOL_PROFILES an empty folder): the generic reading")
    args = parser.parse_args()
    turns = max(MIN_TURNS, args.turns)
    socket = f"tt-aibench-{os.getpid()}"
    workdir = tempfile.TemporaryDirectory(prefix="tt-aibench-")
    os.environ["TMUX_TOOL_PRIVATE_SOCKET"] = socket
    os.environ["TMUX_TOOL_STATE_DIR"] = str(Path(workdir.name) / "state")
    os.environ.pop("CI", None)  # Gemini CLI leaves its interactive UI out under CI=true
    if args.generic:
        (Path(workdir.name) / "no-profiles").mkdir()
        os.environ["TMUX_TOOL_PROFILES"] = str(Path(workdir.name) / "no-profiles")
    from python.tools.tmux_tool import call

    results: list[Figures] = []
    installs = args.installs.split(",")
    names = args.clis.split(",")
    skipped = {name: NOT_GENERIC[name] for name in names if args.generic and name in NOT_GENERIC}
    try:
        latest = install_latest(names, Path(workdir.name) / "latest") if "latest" in installs else None
        floor = floors(socket)
        for name in (name for name in names if name not in skipped):
            for version in versions_of(name, installs, latest):
                for size in SIZES:
                    results.append(bench_session(name, version, size, turns, call, Path(workdir.name),
                                                 args.generic))
    finally:
        kill_server(socket)
        workdir.cleanup()
    report(results, floor, args.generic, skipped)


def report(results: list[Figures], floor: Floors, generic: bool = False,
           skipped: dict[str, str] | None = None) -> None:
    """Each session's figures, then each version's against the target, then all of them; a CLI
    left out (``skipped``) is named with why, so a missing row is never read as a pass."""
    print("profiles: none, every CLI read by the generic chat reading (--generic)" if generic else
          "profiles: the built-in ones (a CLI none knows is read by the generic chat reading)")
    for name, why in (skipped or {}).items():
        print(f"{name}: not measured: {why}")
    print(f"floors: tmux round trip {floor.tmux:.1f} ms, one capture {floor.capture:.1f} ms, "
          f"python -c pass {floor.python:.0f} ms")
    for fig in results:
        where = f"{fig.name:9} {fig.version.install:7} {fig.size[0]}x{fig.size[1]:<3}"
        if fig.latencies:
            median = statistics.median(fig.latencies)
            print(f"{where} {len(fig.latencies) + len(fig.early):3} turns: last byte -> ask returned median "
                  f"{median:5.0f} ms ({median / floor.capture:4.0f}x one capture), p90 "
                  f"{percentile(fig.latencies, 0.9):5.0f} ms, max {max(fig.latencies):5.0f} ms; "
                  f"exact {fig.exact} ({_sources(fig.sources)}), early {len(fig.early)}, "
                  f"earlier {len(fig.earlier)}, wrong {len(fig.wrong)}")
        for line in fig.early + fig.earlier + fig.wrong + fig.failures:
            print(f"{'':25} {line}")
    print()
    groups: dict[tuple[str, str], list[Figures]] = {}
    for fig in results:
        groups.setdefault((fig.name, fig.version.install), []).append(fig)
    every: list[float] = []
    early = earlier = wrong = 0
    for (name, _), figs in groups.items():
        version = figs[0].version
        lat = [x for f in figs for x in f.latencies]
        n_early, n_earlier, n_wrong = (sum(len(getattr(f, k)) for f in figs) for k in ("early", "earlier", "wrong"))
        failed = sum(len(f.failures) for f in figs)
        every += lat
        early, earlier, wrong = early + n_early, earlier + n_earlier, wrong + n_wrong
        label = f"{name} {version.number or ''} ({version.install}{'; ' + version.note if version.note else ''})"
        if not lat:
            print(f"{label}: no turn measured ({failed} session failures)")
            continue
        median = statistics.median(lat)
        sources: dict[str, int] = {}
        for f in figs:
            for key, count in f.sources.items():
                sources[key] = sources.get(key, 0) + count
        exact = sum(f.exact for f in figs)
        target = TARGET_RECORD_MS if sources.get("transcript", 0) == len(lat) else TARGET_MS
        verdict = "ok" if median <= target and not n_early and not failed and exact == len(lat) else "MISSED"
        print(f"{label}: {len(lat) + n_early} turns, median {median:.0f} ms ({median / floor.capture:.0f}x one "
              f"capture; target <= {target:.0f} ms), exact {exact}/{len(lat)} ({_sources(sources)}), "
              f"early {n_early}, earlier {n_earlier}, wrong {n_wrong}"
              f"{f', {failed} session failures' if failed else ''}: {verdict}")
    if every:
        median = statistics.median(every)
        print(f"all: {len(every) + early} turns, median {median:.0f} ms ({median / floor.capture:.0f}x one capture), "
              f"early {early}, earlier {earlier} (target 0 each), wrong {wrong}")


def _sources(sources: dict[str, int]) -> str:
    return ", ".join(f"{count} from the {key}" for key, count in sorted(sources.items())) or "none"


if __name__ == "__main__":
    main()
