"""How often is the detector right on recorded screens?  Prints accuracy and cost.

Every fixture under tests/fixtures/screens/ is a real capture labelled by a
person (program, version, size, how it was made).  Each is judged three ways:

* **as recorded**: the SGR capture plus tmux's facts (foreground command,
  alternate screen, cursor) and the program the session was started for -
  what ``status`` sees on a live pane;
* **plain text**: the same without any style (no colours, no dim);
* **no profile** (AI CLIs and unprofiled programs only): the program and the
  foreground command renamed to a name no profile knows, so only the
  generic signs (menus, key hints, buttons, spinners, timers, progress,
  questions at the cursor, errors above the prompt) can decide - a stand-in
  for a program nobody profiled.  An idle input box is no generic sign, so
  ``ready`` screens of AI CLIs are expected wrong here; what matters is
  that no busy or blocked screen reads ``ready``.

The held-out folder (``heldout/``: prompt libraries, terminal tools,
debuggers, failed commands) was recorded and labelled before any rule was
written for it; it gets its own line in every mode, so a change that helps
the screens the rules were built from but hurts unseen ones shows.

For each: accuracy per program folder and per labelled status, the wrong
verdicts, and the count of **premature ready** - a screen labelled busy or
blocked that the detector calls ``ready`` (the costly mistake: an agent would
type into a program still working or still asking; target 0).  Then the cost
of one ``classify`` next to the cost of only rendering the capture (the floor
every judgement pays), with the ratio.

Usage: ``.venv/bin/python bench/detect_bench.py [--wrong] [--mode recorded|plain|generic]``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.programs import classify, profile_for
from python.helpers.tmux_tool.screen import snapshot_from_capture

SCREENS = Path(__file__).resolve().parents[1] / "tests" / "fixtures" / "screens"
HELD_OUT = "heldout"
UNKNOWN = "some-new-program"
MODES = ("recorded", "plain", "generic")


def profile_kind(fx: dict[str, object]) -> str | None:
    profile = profile_for(str(fx["program"]))
    return profile.kind if profile else None


def load() -> list[tuple[str, dict[str, object]]]:
    return [(f"{p.parent.name}/{p.stem}", json.loads(p.read_text())) for p in sorted(SCREENS.glob("*/*.json"))]


def judge(fx: dict[str, object], mode: str) -> dict[str, object]:
    generic = mode == "generic"
    command = fx["pane_current_command"]
    if generic and command not in ("bash", "sh", "zsh", "fish", "dash"):
        command = UNKNOWN  # a shell stays a shell: it is no profile of the program's
    return classify(fx["lines"], program=UNKNOWN if generic else fx["program"],  # type: ignore[arg-type]
                    ansi=None if mode == "plain" else fx["ansi"], cursor=tuple(fx["cursor"]),  # type: ignore[arg-type]
                    pane_command=command, alternate=bool(fx["alternate"]))  # type: ignore[arg-type]


def report(fixtures: list[tuple[str, dict[str, object]]], mode: str, show_wrong: bool) -> None:
    if mode == "generic":
        fixtures = [(n, fx) for n, fx in fixtures
                    if n.split("/")[0] in ("unprofiled", HELD_OUT) or profile_kind(fx) == "ai"]
    by_program: dict[str, Counter[str]] = defaultdict(Counter)
    by_status: dict[str, Counter[str]] = defaultdict(Counter)
    held_out: dict[str, Counter[str]] = defaultdict(Counter)
    wrong: list[str] = []
    premature: list[str] = []
    for name, fx in fixtures:
        got = judge(fx, mode)
        want = str(fx["status"])
        ok = got["status"] == want
        folder = name.split("/")[0]
        by_program[folder]["right" if ok else "wrong"] += 1
        by_status[want]["right" if ok else "wrong"] += 1
        if folder == HELD_OUT:
            held_out[want]["right" if ok else "wrong"] += 1
        if not ok:
            wrong.append(f"  {name}: labelled {want}, said {got['status']} ({str(got['evidence'])[:90]})")
            if got["status"] == "ready" and want in ("busy", "blocked"):
                premature.append(name)
    total = sum(sum(c.values()) for c in by_program.values())
    right = sum(c["right"] for c in by_program.values())
    print(f"\n== {mode}: {right}/{total} right ({100 * right / total:.1f}%), premature ready: {len(premature)}")
    print("  per program: " + ", ".join(f"{k} {c['right']}/{c['right'] + c['wrong']}"
                                        for k, c in sorted(by_program.items())))
    print("  per status:  " + ", ".join(f"{k} {by_status[k]['right']}/{sum(by_status[k].values())}"
                                        for k in list(Status) if by_status[k]))
    if held_out:
        early = sum(n.startswith(HELD_OUT + "/") for n in premature)
        print(f"  held-out:    {sum(c['right'] for c in held_out.values())}/{sum(sum(c.values()) for c in held_out.values())}"
              " right, " + ", ".join(f"{k} {held_out[k]['right']}/{sum(held_out[k].values())}"
                                     for k in list(Status) if held_out[k]) + f"; premature ready {early}")
    if premature:
        print("  premature ready: " + ", ".join(premature))
    if show_wrong and wrong:
        print("\n".join(wrong))


def cost(fixtures: list[tuple[str, dict[str, object]]], rounds: int = 3) -> None:
    """Median time per screen: render only (the floor), and render plus judge."""
    def timed(fn: object) -> float:
        samples = []
        for _ in range(rounds):
            start = time.perf_counter()
            for _, fx in fixtures:
                fn(fx)  # type: ignore[operator]
            samples.append((time.perf_counter() - start) / len(fixtures))
        return statistics.median(samples)

    def render(fx: dict[str, object]) -> None:
        w, h = fx["size"]  # type: ignore[misc]
        snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]))  # type: ignore[arg-type]

    floor = timed(render)
    full = timed(lambda fx: judge(fx, "recorded"))
    print(f"\n== cost per screen over {len(fixtures)} fixtures: classify {full * 1e3:.2f} ms, "
          f"render only (floor) {floor * 1e3:.2f} ms, ratio {full / floor:.1f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--wrong", action="store_true", help="list every wrong verdict")
    parser.add_argument("--mode", choices=MODES, action="append", help="only these modes (default: all)")
    args = parser.parse_args()
    fixtures = load()
    for mode in args.mode or MODES:
        report(fixtures, mode, args.wrong)
    cost(fixtures)


if __name__ == "__main__":
    main()
