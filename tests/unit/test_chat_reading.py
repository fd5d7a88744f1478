"""The chat reading on recorded screens of chat CLIs (pi, Qwen Code, Continue's cn).

pi and Qwen Code have profiles of their own that name this reading as their reader
(programs/profiles/pi.toml, qwen.toml); cn is known by no profile.

Each screen under tests/fixtures/screens/pi, .../qwen and .../cn was captured from
the real CLI against the scripted model server (see the READMEs there).  The
reading must find the input area, what is typed in it, the answer of a turn,
and must never take a working CLI's prompt echo and spinner for a menu.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python.helpers.tmux_tool.programs import (
    GenericProfile,
    answer,
    chat,
    detect,
    menus,
    profile_or_generic,
)
from python.helpers.tmux_tool.screen import Snapshot, snapshot_from_capture

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"
CHATS = ("pi", "qwen", "cn", "copilot")
TYPED = "this text is typed but not submitted"
LONG_PROMPT = "Say hello and show me a short list"
# tests/e2e/conftest.py's QUOTED as a CLI shows it: the quote's '> ' kept, the code's fence not
QUOTE_ROWS = ("The proverb says:", "", "> Measure twice, cut once.", "> It saves wood and time.", "",
              "In code:", "", "def cut(board, times):", "    left = board", "    for _ in range(times):",
              "        left -= 1", "", "    return left", "", "def main():", "    print(cut(10, 3))",
              "    return 0", "", "That is all.")
QUOTED_SHOWN = "\n".join(QUOTE_ROWS)
# and as the model wrote it (the fences kept): what a CLI that draws the fences shows
QUOTED = "\n".join((*QUOTE_ROWS[:7], "```python", *QUOTE_ROWS[7:17], "```", *QUOTE_ROWS[17:]))


def _snap(path: Path) -> Snapshot:
    fx = json.loads(path.read_text(encoding="utf-8"))
    w, h = fx["size"]
    return snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]),
                                 alternate=fx["alternate"], program=fx["pane_current_command"])


def _screens(program: str, pattern: str) -> list[Path]:
    found = sorted((SCREENS / program).glob(pattern))
    assert found, f"no recorded {pattern} screens of {program}"
    return found


@pytest.mark.parametrize("program", CHATS)
def test_the_input_area_and_what_is_typed_in_it(program: str) -> None:
    speaker = chat.speaker(profile_or_generic(program))
    for path in _screens(program, "typed-*.json"):
        assert speaker.pending_input(_snap(path)) == TYPED, path.name
    for path in _screens(program, "ready-*.json"):
        assert speaker.pending_input(_snap(path)) == "", path.name
    for path in _screens(program, "starting-*.json"):  # cn draws its input box first, the others later
        assert (chat.input_area(_snap(path)) is None) == (program != "cn"), path.name


@pytest.mark.parametrize("program", CHATS)
def test_a_working_cli_is_busy_never_blocked(program: str) -> None:
    """Busy screens of the first and a second turn: the echo of the prompt with answer rows above it
    and the spinner's key hint below it are no menu; the spinner decides."""
    paths = [*_screens(program, "busy-*.json"), *_screens(program, "secondturn-*.json"),
             *sorted((SCREENS / program).glob("paused-*.json"))]
    for path in paths:
        snap = _snap(path)
        assert menus.find_menu(snap) is None, path.name
        verdict = detect(snap, program=program)
        assert verdict.status == "busy", (path.name, verdict.evidence)


@pytest.mark.parametrize("program", CHATS)
def test_a_working_cli_no_profile_knows_is_busy(program: str) -> None:
    """The same busy screens read by a program of no profile: the signs any CLI shows decide
    (Copilot CLI's footer ' ◎ Working esc esc edit prompt' has no spinner, timer or 'to interrupt':
    a working word leading a row with an Esc hint beside it)."""
    paths = [*_screens(program, "busy-*.json"), *_screens(program, "secondturn-*.json")]
    for path in paths:
        verdict = detect(_snap(path), program="some-new-program")
        assert verdict.status == "busy", (path.name, verdict.evidence)


def test_a_spinners_key_hint_is_no_menu_hint() -> None:
    """Qwen Code's spinner row ends in '(Ns · esc to cancel)': a sign of work, not keys that answer a menu."""
    rows = [row for path in _screens("qwen", "secondturn-*.json") for row in _snap(path).lines
            if "esc to cancel" in row]
    assert rows
    assert all(menus.HINT.search(row) and not menus._hint(row) for row in rows)


@pytest.mark.parametrize("program", CHATS)
def test_the_answer_is_the_rows_between_the_echo_and_the_input_area(program: str) -> None:
    cut: list[str] = []
    for path in sorted((SCREENS / program).glob("answered-*.json")):
        snap = _snap(path)
        answer = chat.speaker(profile_or_generic(program), LONG_PROMPT).answer_from(snap, LONG_PROMPT)
        if answer is None:  # the echo scrolled off the screen (into the history, which a fixture does not hold)
            assert not any(LONG_PROMPT in row for row in snap.lines), path.name
            continue
        assert answer.endswith("That is the end of the long answer."), (path.name, answer[-200:])
        assert "Working" not in answer and "─" * 20 not in answer and "◆" not in answer, path.name
        cut.append(path.name)
    for path in _screens(program, "quoted-*.json"):
        snap = _snap(path)
        answer = chat.speaker(profile_or_generic(program), "Quote a proverb").answer_from(snap, "Quote a proverb")
        if answer is None:
            assert not any("Quote a proverb" in row for row in snap.lines), path.name
            continue
        assert answer.startswith("The proverb says:"), path.name
        assert answer.rstrip().endswith("That is all."), path.name
        cut.append(path.name)
    assert cut, "no recorded answer whose echo is still in view"


def test_qwen_permission_question_is_blocked_with_its_options() -> None:
    for path in _screens("qwen", "permission-*.json"):
        verdict = detect(_snap(path), program="qwen")
        assert verdict.status == "blocked", verdict.evidence
        assert verdict.question and "Allow execution" in verdict.question
        assert len(verdict.options) >= 3
        # the options as a person reads them: no padding, no scroll bar's cell from the screen's edge
        assert all(option == option.strip() and not option.endswith("█") for option in verdict.options)


CN_OPTIONS = ("Continue (tab)", "Continue + don't ask again (shift+tab)",
              "No, and tell Continue what to do differently (esc)")


@pytest.mark.parametrize("program", ["cn", "some-new-program"])
def test_cns_permission_question_is_blocked_with_its_options(program: str) -> None:
    """cn's question takes its input box's place in a framed box, its spinner row still above the box
    and its folder row under it; the options are unnumbered, with nothing but that status row
    below them, but each names the key that takes it ("> Continue (tab)"): a menu, by cn's profile
    and by a program no profile knows alike.  It was once read as busy, a turn waiting its whole
    timeout on the question."""
    for path in _screens("cn", "permission-*.json"):
        verdict = detect(_snap(path), program=program)
        assert verdict.status == "blocked", (path.name, verdict.evidence)
        assert (verdict.question or "").endswith("Would you like to continue?"), verdict.question
        assert verdict.options == CN_OPTIONS, (path.name, verdict.options)


FENCES_SHOWN = {"pi"}  # the chat CLIs that draw a code block's fences as the model wrote them
CLAUDES = ("claude", "claude-2.1.330", "claude-2.1.332")  # read here as if no profile knew them


@pytest.mark.parametrize("folder", CLAUDES)
def test_a_turn_s_summary_over_and_under_the_answer_is_left_out(folder: str) -> None:
    """Claude Code's rows over and under an answer ("Thought for 1s (ctrl+o to expand)", "✻ Cogitated
    for 27s · done 1:47 AM"), read by the chat reading (its profile file removed): not the answer."""
    for path in _screens(folder, "answered-200x*.json"):
        answer = chat.speaker(profile_or_generic("claude"), LONG_PROMPT).answer_from(_snap(path), LONG_PROMPT)
        assert answer is not None and answer.startswith("Plan\n"), (path.name, answer)
        assert answer.endswith("That is the end of the long answer."), (path.name, answer[-200:])


def test_a_summary_quoted_inside_an_answer_stays() -> None:
    """The same words inside the answer (the model quoting them) are the answer's."""
    assert chat.SUMMARY.match("✻ Cogitated for 27s · done 1:47 AM")
    assert chat.SUMMARY.match("  Thought for 1s (ctrl+o to expand)")
    assert chat.SUMMARY.match("  Worked for 27s • 05:46")
    assert not chat.SUMMARY.match("  I waited for 3s and went on.")
    rows = ["  First line.", "  ✻ Worked for 3s", "  Last line."]
    assert chat.speaker(profile_or_generic("x")).cut(_snap(_screens("pi", "ready-*.json")[0]), rows, 0, 3) == (
        "First line.\n  Worked for 3s\nLast line.")  # its mark is a block's mark


@pytest.mark.parametrize("said", ["  Press Ctrl+D again to exit.", "  Press Ctrl-D again to exit",
                                  "Press ^D again to quit"])
def test_the_exit_key_asked_for_again_is_read_however_it_is_spelled(said: str) -> None:
    """Qwen Code writes Ctrl+D, Claude Code Ctrl-D: either way, ``exit`` presses it once more."""
    snap = snapshot_from_capture(f"some answer\n\n{said}\n", width=80, height=6, cursor=(0, 4),
                                 alternate=False, program="node")
    assert GenericProfile.asks_again(snap) == "C-d"


@pytest.mark.parametrize("folder", ["/home/me/project", "~/project", "~/project [⎇ main]"])
def test_a_folder_row_drawn_on_the_input_area_is_not_the_answer(folder: str) -> None:
    """Copilot CLI draws the working folder right on the input area's upper rule: the input area's
    own row, not the answer's last one (a failed turn's message is the block above it)."""
    rows = [" ❯ Name a colour", "", " ● The colour is blue.", "", "   That is all.", "", f" {folder}",
            "─" * 80, "❯", "─" * 80, " ← open sidebar · Interactive · / commands     scripted-model"]
    speaker = chat.speaker(profile_or_generic("some-cli"), "Name a colour")
    assert speaker.extract_answer(rows, "Name a colour") == "The colour is blue.\n\nThat is all."
    kept = [*rows[:6], "   /usr/bin is where it lives", *rows[7:]]
    assert speaker.extract_answer(kept, "Name a colour").endswith("/usr/bin is where it lives")


def test_a_failed_turn_is_read_from_the_head_of_the_last_block_past_a_scroll_bar() -> None:
    """The error heads a block of several rows, and the rows between it and the input area hold only
    a scroll bar's cell (Copilot CLI's ``┃``): the turn failed all the same."""
    rows = [" ❯ Fail now" + " " * 60 + "┃", " " * 70 + "┃",
            " ✗ Authentication failed with provider (HTTP 401)." + " " * 19 + "┃",
            "     Check your COPILOT_PROVIDER_API_KEY or" + " " * 27 + "┃",
            "   COPILOT_PROVIDER_BEARER_TOKEN." + " " * 37 + "┃", " " * 70 + "┃", " ~/project",
            "─" * 71, "❯", "─" * 71, " ← open sidebar · Interactive · / commands"]
    verdict = chat.speaker(profile_or_generic("some-cli")).classify(answer.plain_snapshot(rows))
    assert verdict is not None and verdict.status == "error", verdict
    assert "Authentication failed" in verdict.evidence
    calm = [*rows[:2], " ● The key works now." + " " * 49 + "┃", *rows[5:]]
    verdict = chat.speaker(profile_or_generic("some-cli")).classify(answer.plain_snapshot(calm))
    assert verdict is not None and verdict.status == "ready", verdict


@pytest.mark.parametrize("program", ["cn", "copilot", "qwen", "pi"])
def test_a_quote_behind_a_bar_is_written_back_as_markdown(program: str) -> None:
    """A block quote drawn behind a bar (Copilot CLI's '│' with a scroll bar '┃' at the row's end,
    Qwen Code's a column in) comes back as '> ' rows at the text's margin, a code block as the
    model wrote it: without Qwen Code's line numbers, and where the CLI shows the fences (pi)
    with them, its lines flush with them again."""
    prompt = "Quote a proverb and show the code"
    read = 0
    for path in _screens(program, "quoted-*.json"):
        answer = chat.speaker(profile_or_generic(program), prompt).answer_from(_snap(path), prompt)
        if answer is not None:
            assert answer == (QUOTED if program in FENCES_SHOWN else QUOTED_SHOWN), (path.name, answer)
            read += 1
    assert read, "no recorded quote whose echo is still in view"


@pytest.mark.parametrize(("screen", "status", "program"), [
    ("cn/permission-200x50.json", "blocked", "node"),  # a menu any program shows: not Codex's
    ("copilot/ready-200x50.json", "ready", None),  # a chat CLI's idle screen is no Codex menu
    ("codex/keyentry-80x24.json", "blocked", "codex"),  # its own API key dialog: Codex's face
    ("gemini/keyentry-80x24.json", "blocked", "gemini"),
])
def test_programs_under_one_command_name_are_told_by_their_own_face(screen: str, status: str,
                                                                    program: str | None) -> None:
    """tmux names Codex, Gemini CLI, Qwen Code, cn, Copilot CLI and the node REPL all ``node``: the
    screen alone (no program named) speaks for a profile only where it shows that profile's own
    input area or one of its own dialogs; a menu any program draws is read for ``node``."""
    verdict = detect(_snap(SCREENS / screen), program=None)
    assert verdict.status == status, verdict.evidence
    if program is not None:
        assert verdict.program == program, (verdict.program, verdict.evidence)
