"""Golden tests: raw output of real programs must render to what tmux showed.

Each ``tests/fixtures/streams/<name>.bin`` holds the bytes ``pipe-pane``
received from a real program in a private tmux 3.3a server (bash with coloured
``ls``/``git log``, the python REPL, a ``\\r`` progress loop, ``pip download``,
``apt-get``, vim, less, top and an Ink app); ``<name>.json`` holds, for
moments when the screen was settled, tmux's own ``capture-pane`` text and
cursor.  Both of our paths - replaying the bytes and parsing the ``-e``
capture - must give tmux's text; the transcript must equal tmux's history
plus screen (``capture-pane -S -``).  See ``recorder.py`` for how they were
made.
"""

from __future__ import annotations

import hashlib
import json
import random
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.screen import (
    Transcript,
    render_stream,
    render_transcript,
    snapshot_from_capture,
)

STREAMS = Path(__file__).resolve().parents[1] / "fixtures" / "streams"
NAMES = sorted(p.stem for p in STREAMS.glob("*.json"))
POINTS = [
    (name, i)
    for name in NAMES
    for i in range(len(json.loads((STREAMS / f"{name}.json").read_text())["checkpoints"]))
]
TRANSCRIPT_POINTS = [
    (name, i) for name, i in POINTS
    if "expected_transcript" in json.loads((STREAMS / f"{name}.json").read_text())["checkpoints"][i]
]
PROVENANCE = ("program", "version", "size", "commands", "date", "tmux", "term", "how", "bytes",
              "sha256", "expected_screen", "checkpoints")


def load(name: str) -> tuple[dict[str, Any], bytes]:
    return json.loads((STREAMS / f"{name}.json").read_text()), (STREAMS / f"{name}.bin").read_bytes()


def test_the_recordings_cover_the_programs_we_promise() -> None:
    programs = {load(name)[0]["program"] for name in NAMES}
    assert {"bash", "python3", "pip", "apt-get", "vim", "less", "top", "node (Ink app)"} <= programs
    sizes = {tuple(load(name)[0]["size"]) for name in NAMES}
    assert (80, 24) in sizes and (200, 50) in sizes


@pytest.mark.parametrize("name", NAMES)
def test_provenance_is_complete_and_matches_the_bytes(name: str) -> None:
    meta, data = load(name)
    assert all(key in meta for key in PROVENANCE), name
    assert meta["bytes"] == len(data)
    assert meta["sha256"] == hashlib.sha256(data).hexdigest()
    assert meta["tmux"].startswith("tmux ")
    offsets = [point["offset"] for point in meta["checkpoints"]]
    assert offsets == sorted(offsets) and offsets[-1] == len(data)


@pytest.mark.parametrize(("name", "index"), POINTS)
def test_stream_replay_gives_tmux_screen(name: str, index: int) -> None:
    meta, data = load(name)
    point = meta["checkpoints"][index]
    width, height = meta["size"]
    snap = render_stream(data[: point["offset"]], width=width, height=height)
    assert list(snap.lines) == point["expected_screen"]
    assert list(snap.cursor) == point["cursor"]
    assert snap.alternate is point["alternate"]


@pytest.mark.parametrize(("name", "index"), POINTS)
def test_capture_parse_gives_tmux_screen_and_same_styles(name: str, index: int) -> None:
    meta, data = load(name)
    point = meta["checkpoints"][index]
    width, height = meta["size"]
    captured = snapshot_from_capture(
        point["ansi"], width=width, height=height, cursor=tuple(point["cursor"]),
        alternate=point["alternate"],
    )
    assert list(captured.lines) == point["expected_screen"]
    replayed = render_stream(data[: point["offset"]], width=width, height=height)
    assert captured == replayed
    assert captured.styles == replayed.styles


@pytest.mark.parametrize(("name", "index"), TRANSCRIPT_POINTS)
def test_transcript_equals_tmux_history_plus_screen(name: str, index: int) -> None:
    meta, data = load(name)
    point = meta["checkpoints"][index]
    width, height = meta["size"]
    assert render_transcript(data[: point["offset"]], width, height) == point["expected_transcript"]


@pytest.mark.parametrize("name", NAMES)
def test_any_chunking_gives_the_same_result(name: str) -> None:
    meta, data = load(name)
    width, height = meta["size"]
    rng = random.Random(name)
    transcript = Transcript(width, height)
    pos = 0
    while pos < len(data):
        step = rng.choice((1, 2, 3, 7, 64, 1000))
        transcript.feed(data[pos:pos + step])
        pos += step
    assert list(transcript.snapshot().lines) == meta["expected_screen"]
    if "expected_transcript" in meta:
        assert transcript.text() == meta["expected_transcript"]


def test_alternate_screen_programs_leave_no_residue() -> None:
    for name in ("vim_edit", "vim_edit_200x50", "less_pager"):
        meta, data = load(name)
        assert any(point["alternate"] for point in meta["checkpoints"]), name
        text = render_transcript(data, *meta["size"])
        assert "VALUE_30" not in text and "typed in vim" not in text, name
        assert text.splitlines()[-1] == "rec:~ $"


def test_top_draws_on_the_main_screen_so_its_last_frame_stays() -> None:
    # procps top does not switch to the alternate screen here (alternate_on
    # stays 0), so tmux keeps its last frame in the history; so do we.
    meta, data = load("top_monitor")
    assert not any(point["alternate"] for point in meta["checkpoints"])
    text = render_transcript(data, *meta["size"])
    assert text.count("Tasks:") == 1
    assert text == meta["expected_transcript"]


def test_progress_bars_end_as_their_final_line() -> None:
    for name, final, partial in (
        ("progress_loop", "Downloading [#########################] 100%", "  4%"),
        ("pip_download", "16.3/16.3 MB", "0.0/16.3 MB"),
    ):
        meta, data = load(name)
        text = render_transcript(data, *meta["size"])
        assert text.count(final) == 1, name
        assert partial not in text, name


def test_ink_redraws_leave_one_frame() -> None:
    meta, data = load("ink_demo")
    text = render_transcript(data, *meta["size"])
    assert text.count("Build — résumé 日本語 ✅") == 1
    assert "esc to interrupt" not in text
    assert "✔ Step 30 of 30" in text
