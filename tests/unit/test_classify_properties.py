"""``classify`` and ``detect`` answer every input; they never raise.

The detector judges screens it has never seen (new releases, programs nobody
profiled), so odd input must give a verdict - ``unknown`` with a reason at
worst - never an exception: arbitrary text and rows, SGR and other escape
sequences, cursors off the screen, negative or ``(None, None)``, program
names that are empty, unknown, paths or not text at all.
"""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.programs import PROFILES, classify, detect
from python.helpers.tmux_tool.screen import Snapshot

SETTINGS = settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"

# Pieces real screens are made of, so the search reaches the detector's rules instead of bouncing off.
_pieces = st.sampled_from([
    "❯ ", "› ", "> ", "● ", "→ [1] ", "1. ", "2. ", "  ", "│", "┃", "╭─", "─" * 30, "╹▀▀▀▀▀▀▀▀▀▀▀▀", "$ ", "# ",
    ">>> ", "... ", "esc to interrupt", "Enter to confirm · Esc to cancel", "<Ok>", "  <Cancel>", "(12s · ↓ 3)",
    "⠋ Thinking…", "✻ Worked for 3s", "API Error: ", "Not logged in", "Password: ", "[Y/n] ", "(demo): ",
    "▣  Build · model · 1.2s", "Pane is dead (", "Killed", "?", ":", "\t", "\x00", "\u200d", "語", "🌑",
])
_row = st.lists(_pieces | st.text(max_size=12), max_size=8).map("".join)
_rows = st.lists(_row, max_size=30)
_sgr = st.lists(st.integers(0, 400).map(str), max_size=5).map(lambda ps: "\x1b[" + ";".join(ps) + "m")
_ansi = st.lists(_row | _sgr | st.sampled_from(["\x1b[", "\x1b]0;t\x07", "\x1b[38:2::255:0:0m", "\n"]),
                 max_size=40).map("".join)
_int = st.integers(-10**6, 10**6)
_cursor = st.one_of(st.none(), st.tuples(_int, _int), st.just((None, None)), st.tuples(st.floats(), st.floats()),
                    st.lists(_int, max_size=4), st.text(max_size=4), st.just((True, False)))
_program = st.one_of(st.none(), st.sampled_from([p.name for p in PROFILES]),
                     st.sampled_from(["", "npm", "/usr/bin/python3.11", "node", "claude-code", ".opencode", "🦀"]),
                     st.text(max_size=20), _int)
_flag = st.one_of(st.booleans(), st.none(), st.integers(), st.text(max_size=3))


@SETTINGS
@given(screen=st.one_of(st.text(max_size=400), _rows, _rows.map("\n".join)), program=_program, ansi=st.none() | _ansi,
       cursor=_cursor, pane_command=_program, alternate=_flag, before=st.none() | _rows)
def test_classify_never_raises(screen: object, program: object, ansi: object, cursor: object, pane_command: object,
                               alternate: object, before: object) -> None:
    out = classify(screen, program=program, ansi=ansi, cursor=cursor,  # type: ignore[arg-type]
                   pane_command=pane_command, alternate=alternate, before=before)  # type: ignore[arg-type]
    assert out["status"] in list(Status)
    assert isinstance(out["evidence"], str) and out["evidence"]
    json.dumps(out)
    if out["status"] == "blocked":
        assert isinstance(out["question"], str) and isinstance(out["options"], list)


@SETTINGS
@given(screen=st.one_of(st.integers(), st.none(), st.lists(st.integers(), min_size=1), st.binary(max_size=20)))
def test_a_screen_that_is_not_text_is_unknown(screen: object) -> None:
    out = classify(screen)  # type: ignore[arg-type]
    assert out["status"] == "unknown" and "not text" in str(out["evidence"])


@SETTINGS
@given(rows=_rows, x=_int, y=_int, width=st.integers(0, 300), height=st.integers(0, 100), alternate=st.booleans(),
       command=st.none() | st.text(max_size=10), program=st.none() | st.text(max_size=10))
def test_detect_never_raises_on_a_snapshot(rows: list[str], x: int, y: int, width: int, height: int,
                                           alternate: bool, command: str | None, program: str | None) -> None:
    snap = Snapshot(tuple(rows), width, height, (x, y), alternate, command)
    verdict = detect(snap, program=program, before=snap)
    assert verdict.status in list(Status) and verdict.evidence


def test_cursor_none_none_is_answered() -> None:
    out = classify("root@vm:~# ", program="bash", cursor=(None, None))  # type: ignore[arg-type]
    assert out["status"] == "ready", out


def test_every_fixture_survives_a_missing_cursor_and_foreign_program_names() -> None:
    for path in sorted(SCREENS.glob("*/*.json")):
        fx = json.loads(path.read_text())
        for program in (fx["program"], None, "no-such-program"):
            out = classify(fx["lines"], program=program, ansi=fx["ansi"], cursor=(None, None))  # type: ignore[arg-type]
            assert out["status"] in list(Status), path
