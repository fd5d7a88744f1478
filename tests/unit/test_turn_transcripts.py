"""Finding the new turn in real transcripts, read before and after each ``ask``.

The fixtures under tests/fixtures/transcripts/ hold what ``ask`` reads to
find its turn (history and screen, or the screen of a full-screen CLI) right
before each prompt and right after its answer came back, recorded from the
pinned CLIs at 80x24 and 200x50 (see the capture script for how).  The turns
repeat on purpose: the same prompt with the same answer twice, a long answer,
then another prompt whose answer equals an earlier one - and Gemini CLI writes
that echo over the last rows of the long answer.  In a second session a turn
fails and the next one works: OpenCode then drops the failed turn's end line
and lays a notice over the top of its screen.

Before the prompt no new turn may be found (the anchor is where the
transcript ends, and an identical earlier turn must not stand in for it);
after it, the turn found is the last echo of the prompt, and its answer is the
scripted one.  On OpenCode's screen a long answer pushes its own echo
off the top: then no turn is found on the screen and ``ask`` pages back.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python.helpers.tmux_tool.drive import turn_pages as transcript
from python.helpers.tmux_tool.programs import profile_for
from python.helpers.tmux_tool.programs.ai import AiProfile
from python.helpers.tmux_tool.programs.answer import plain_snapshot
from python.helpers.tmux_tool.screen.snapshot import Snapshot
from tests.fixtures.capture_transcripts import SCENARIOS

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "fixtures" / "transcripts").glob("*.json"))


def _snapshot(text: str) -> Snapshot:
    """The capture as rows without styles (the fixtures hold plain text; no answer here has dim rows)."""
    return plain_snapshot(text.split("\n"))


def _steps() -> list[tuple[str, int]]:
    return [(path.name, n) for path in FIXTURES for n in range(len(json.loads(path.read_text())["steps"]))]


@pytest.mark.parametrize(("name", "step"), _steps(), ids=[f"{n}-{s}" for n, s in _steps()])
def test_the_new_turn_is_found_where_the_transcript_ended(name: str, step: int) -> None:
    data = json.loads((FIXTURES[0].parent / name).read_text())
    profile = profile_for(data["program"])
    assert isinstance(profile, AiProfile)
    recorded = data["steps"][step]
    prompt, text = SCENARIOS[data["scenario"]][step]
    assert recorded["prompt"] == prompt

    before = _snapshot(recorded["before"])
    rows = transcript.rows(before, profile)
    mark = transcript.anchor(rows, profile, whole=recorded["alternate"] and bool(profile.page_keys))
    assert transcript.find_turn(rows, mark, profile) is None, "a turn was found before the prompt was sent"

    after = _snapshot(recorded["after"])
    rows = transcript.rows(after, profile)
    ours = [y for y, row in enumerate(rows) if transcript.matches(profile.echo(row) or "", prompt)]
    found = transcript.find_turn(rows, mark, profile)
    if recorded["alternate"] and not ours:
        assert found is None, "the echo scrolled off the screen; no other echo may stand in for it"
        return
    assert found == ours[-1], f"found row {found}, the new turn's echo is row {ours[-1]}"
    turn = transcript.turn_of(after, mark, profile)
    assert turn is not None and (text is None or profile.answer_from(turn, prompt) == text)


def test_anchor_scrolled_off_the_top_of_a_full_screen_cli() -> None:
    """OpenCode's screen scrolls the rows above a new turn off its top: the anchor's last rows,
    found at the very top, still mark where the transcript ended (the recorded screen after the
    repeated "Say A", with its first rows taken away as a longer new turn would push them)."""
    data = json.loads((FIXTURES[0].parent / "opencode-repeats-80x24.json").read_text())
    profile = profile_for("opencode")
    assert isinstance(profile, AiProfile)
    recorded = data["steps"][1]
    mark = transcript.anchor(transcript.rows(_snapshot(recorded["before"]), profile), profile, whole=True)
    assert mark.echoed
    rows = transcript.rows(_snapshot(recorded["after"]), profile)
    echo = max(y for y, row in enumerate(rows) if profile.echo(row) is not None)
    top = next(y for y, row in enumerate(rows) if row.strip())
    assert transcript.find_turn(rows, mark, profile) == echo
    for gone in range(1, len(mark.tail) - transcript.MIN_MATCH + 1):
        kept = rows[top:]
        kept = kept[[y for y, row in enumerate(kept) if row.strip()][gone]:]
        assert transcript.find_turn(kept, mark, profile) == echo - (len(rows) - len(kept)), gone
