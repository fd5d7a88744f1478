"""How fast is the screen layer?  Prints the figures the README quotes.

All inputs come from a real tmux pane (200x50, its own socket, killed at the
end): vim with syntax colouring fills the screen, and a python loop prints
2,000 coloured lines into the history.

* ``snapshot_from_capture`` of the captured 200x50 screen: median, first read
  of new rows ("cold") and repeated reads of the same screen ("warm", what a
  poller sees), plus a synthetic worst case with 1,250 style runs;
* a poll as ``wait`` does it: ``tmux capture-pane -p -e`` subprocess + parse,
  next to the subprocess alone;
* ``clean_scrollback`` of ``capture-pane -p -e -J -S -2000``;
* for comparison, the naive way: the same 2,000 lines fed through a plain
  ``pyte.Screen``/``pyte.Stream`` (``\\n`` made ``\\r\\n``), and through our
  tmux-faithful stream renderer;
* ``quick_clean`` of 10 MB and the transcript renderer's throughput.

Usage: ``.venv/bin/python bench/render_bench.py [N]`` (N repetitions, default 50).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import pyte

from python.helpers.tmux_tool.screen import (
    Transcript,
    clean_scrollback,
    quick_clean,
    render_stream,
    snapshot_from_capture,
)
from python.helpers.tmux_tool.screen import capture as capture_module
from tests.fixtures.streams.recorder import SAMPLE_PY, private_tmux

COLOUR_LINES = (
    "import sys\n"
    "for i in range(2000):\n"
    "    sys.stdout.write(f'\\x1b[32m{i:5d}\\x1b[0m \\x1b[1;34mbuild\\x1b[0m step {i} "
    "\\x1b[38;5;208mwarn\\x1b[0m \\x1b[2mdim detail text\\x1b[0m {\"=\" * (i % 60)}\\n')\n"
)


def median_ms(func: Callable[[], object], n: int, before: Callable[[], object] | None = None) -> float:
    timings = []
    for _ in range(n):
        if before is not None:
            before()
        start = time.perf_counter()
        func()
        timings.append(time.perf_counter() - start)
    return statistics.median(timings) * 1000


def report(label: str, ms: float) -> None:
    print(f"{label:<58} median {ms:8.3f} ms")


def parse_twice(ansi: str, n: int, forget: Callable[[], object]) -> None:
    """First reads (row cache emptied each time) and repeated reads."""

    def parse() -> None:
        snapshot_from_capture(ansi, width=200, height=50)

    report("  snapshot_from_capture, cold", median_ms(parse, n, forget))
    report("  snapshot_from_capture, warm (same screen polled)", median_ms(parse, n))


def dense_screen() -> str:
    rows = []
    for y in range(50):
        rows.append("".join(f"\x1b[38;5;{(x * 7 + y) % 256}m\x1b[48;5;{(x + y) % 256}mcell{x:04d}"
                            for x in range(25)))
    return "\n".join(rows) + "\n"


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 50
    forget = capture_module._ROWS.clear
    with private_tmux(200, 50) as pane:
        (pane.workdir / "sample.py").write_text(SAMPLE_PY + SAMPLE_PY.replace("VALUE", "OTHER"))
        (pane.workdir / "lines.py").write_text(COLOUR_LINES)
        pane.shell("python3 lines.py")
        history = pane.capture("-e", "-J", "-S", "-2000")
        raw_lines = pane.record.read_bytes()
        pane.type("vim -N -u NONE -i NONE -c 'syntax on' -c 'set number' sample.py")
        pane.keys("Enter")
        pane.wait_text(r'"sample.py" \d+L')
        pane.wait_stable()
        screen = pane.capture("-e")
        target = ["tmux", "-L", pane.socket, "capture-pane", "-p", "-e", "-t", "rec"]

        def poll() -> None:
            out = subprocess.run(target, capture_output=True, text=True, timeout=10, check=True)
            snapshot_from_capture(out.stdout, width=200, height=50)

        poll_ms = median_ms(poll, n)
        capture_ms = median_ms(lambda: subprocess.run(target, capture_output=True, timeout=10, check=True), n)

    snap = snapshot_from_capture(screen, width=200, height=50)
    runs = sum(len(row) for row in snap.styles)
    print(f"captured 200x50 vim screen: {len(snap.lines)} rows, {runs} style runs, {len(screen)} chars")
    parse_twice(screen, n, forget)
    print("synthetic 200x50 screen, 1250 style runs (worst case)")
    parse_twice(dense_screen(), n, forget)
    report("poll: capture-pane -p -e subprocess + parse", poll_ms)
    report(f"  floor: the capture-pane process alone (ratio {poll_ms / capture_ms:.2f}x)", capture_ms)

    lines = clean_scrollback(history)
    print(f"scrollback: {len(lines)} lines, {len(history)} chars of capture-pane -e -J -S -2000")
    report("  clean_scrollback", median_ms(lambda: clean_scrollback(history), n))

    def naive_pyte() -> None:
        screen = pyte.Screen(200, 2100)
        pyte.Stream(screen).feed(history.replace("\n", "\r\n"))
        screen.display  # noqa: B018

    few = max(3, n // 10)
    report("  naive pyte feed of the same text", median_ms(naive_pyte, few))
    report(f"  render_stream of the raw pane bytes ({len(raw_lines)} bytes)",
           median_ms(lambda: render_stream(raw_lines, width=200, height=50), few))

    big = (raw_lines * (10_000_000 // len(raw_lines) + 1))[:10_000_000]
    start = time.perf_counter()
    quick_clean(big)
    print(f"quick_clean of 10 MB of coloured output: {(time.perf_counter() - start) * 1000:7.1f} ms")
    chunk = big[:2_000_000]
    start = time.perf_counter()
    transcript = Transcript(200, 50)
    transcript.feed(chunk)
    transcript.text()
    elapsed = time.perf_counter() - start
    print(f"Transcript of 2 MB: {elapsed * 1000:7.1f} ms ({len(chunk) / elapsed / 1e6:.1f} MB/s)")


if __name__ == "__main__":
    main()
