"""pi, Qwen Code, Continue's cn, GitHub Copilot CLI and Cline CLI as first-class profiles: data files
read by the chat reader, judged on their recorded screens (tests/fixtures/screens/pi/, .../qwen/,
.../cn/, .../copilot/, .../cline/, each with its README's provenance)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python.helpers.tmux_tool.programs import (
    GenericProfile,
    chat,
    detect,
    profile_for,
    profile_or_generic,
)
from python.helpers.tmux_tool.programs.chat import ChatProfile
from python.helpers.tmux_tool.screen import Snapshot, snapshot_from_capture

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"

# (program, recorded state, the status it must get, what the evidence must say)
TABLE = [
    ("pi", "ready", "ready", "the input area is idle"),
    ("pi", "typed", "ready", "the input area is idle"),
    ("pi", "answered", "ready", "the input area is idle"),
    ("pi", "aftertool", "ready", "the input area is idle"),
    ("pi", "busy", "busy", "Working..."),
    ("pi", "streaming", "busy", "Working..."),
    ("pi", "paused", "busy", "Working..."),
    ("pi", "secondturn", "busy", "Working..."),
    ("pi", "starting", "busy", "pi is running"),
    ("pi", "palette", "blocked", "a command list is open"),
    ("pi", "error", "error", "401 scripted bad key"),
    ("qwen", "ready", "ready", "the input area is idle"),
    ("qwen", "typed", "ready", "the input area is idle"),
    ("qwen", "answered", "ready", "the input area is idle"),
    ("qwen", "aftertool", "ready", "the input area is idle"),
    ("qwen", "busy", "busy", "esc to cancel"),
    ("qwen", "streaming", "busy", "esc to cancel"),
    ("qwen", "paused", "busy", "esc to cancel"),
    ("qwen", "secondturn", "busy", "esc to cancel"),
    ("qwen", "permission", "blocked", "the permission dialog"),
    ("qwen", "palette", "blocked", "a command list is open"),
    ("qwen", "error", "error", "401 scripted bad key"),
    ("cn", "starting", "ready", "the input area is idle"),
    ("cn", "ready", "ready", "the input area is idle"),
    ("cn", "typed", "ready", "the input area is idle"),
    ("cn", "quoted", "ready", "the input area is idle"),
    ("cn", "busy", "busy", "esc to interrupt"),
    ("cn", "secondturn", "busy", "esc to interrupt"),
    ("cn", "permission", "blocked", "the permission dialog"),
    ("cn", "aftertool", "ready", "the input area is idle"),
    ("copilot", "ready", "ready", "the input area is idle"),
    ("copilot", "typed", "ready", "the input area is idle"),
    ("copilot", "answered", "ready", "the input area is idle"),
    ("copilot", "aftertool", "ready", "the input area is idle"),
    ("copilot", "quoted", "ready", "the input area is idle"),
    ("copilot", "busy", "busy", "shows work at the input area"),
    ("copilot", "streaming", "busy", "shows work at the input area"),
    ("copilot", "paused", "busy", "shows work at the input area"),
    ("copilot", "secondturn", "busy", "shows work at the input area"),
    ("copilot", "permission", "blocked", "the permission dialog"),
    ("copilot", "trust", "blocked", "the trust dialog"),
    ("copilot", "palette", "blocked", "a command list is open"),
    ("copilot", "error", "error", "Authentication failed with provider"),
    # Cline's empty start screen draws its input area in a column in the middle of the screen
    ("cline", "ready", "ready", "the input area is idle"),
    ("cline", "typed", "ready", "the input area is idle"),
    ("cline", "answered", "ready", "the input area is idle"),
    ("cline", "aftertool", "ready", "the input area is idle"),
    ("cline", "busy", "busy", "esc to cancel"),
    # while it streams (and while its stream stalls) only the spinner as the answer block's mark shows
    ("cline", "streaming", "busy", "shows work at the input area"),
    ("cline", "paused", "busy", "shows work at the input area"),
    ("cline", "error", "error", "Error: scripted bad key"),
    ("cline", "palette", "blocked", "a command list is open"),
    # its questions take the input area's place and are answered by keys no menu shows
    ("cline", "permission", "blocked", "the permission dialog"),
    ("cline", "offer", "blocked", "the offer dialog"),
]


def _snap(path: Path) -> Snapshot:
    fx = json.loads(path.read_text(encoding="utf-8"))
    w, h = fx["size"]
    return snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]),
                                 alternate=fx["alternate"], program=fx["pane_current_command"])


@pytest.mark.parametrize(("program", "state", "status", "evidence"), TABLE,
                         ids=[f"{p}-{s}" for p, s, _, _ in TABLE])
def test_recorded_screens_are_read_by_the_profile(program: str, state: str, status: str,
                                                  evidence: str) -> None:
    paths = sorted((SCREENS / program).glob(f"{state}-*.json"))
    assert paths, f"no recorded {state} screens of {program}"
    for path in paths:
        verdict = detect(_snap(path), program=program)
        assert (verdict.status, verdict.program) == (status, program), (path.name, verdict.evidence)
        assert evidence in verdict.evidence, (path.name, verdict.evidence)


def test_qwen_permission_is_blocked_with_its_own_question_and_the_options_on_screen() -> None:
    for path in sorted((SCREENS / "qwen").glob("permission-*.json")):
        verdict = detect(_snap(path), program="qwen")
        assert verdict.question is not None
        asked = "Qwen Code asks permission to run a tool: Allow execution"
        assert verdict.question.startswith(asked)
        assert verdict.options[0] == "1. Yes, allow once" and len(verdict.options) == 4
        assert verdict.options[-1] == "4. No, suggest changes (esc)"


def test_copilot_permission_is_blocked_with_its_own_question_and_the_options_on_screen() -> None:
    for path in sorted((SCREENS / "copilot").glob("permission-*.json")):
        verdict = detect(_snap(path), program="copilot")
        assert verdict.question is not None
        assert verdict.question.startswith("Copilot CLI asks permission to run a shell command: Do you "
                                           "want to run this command?"), verdict.question
        assert verdict.options[0] == "1. Yes" and len(verdict.options) == 3, verdict.options
        assert verdict.options[1].startswith("2. Yes, and don't ask again for `touch`")
        assert verdict.options[-1] == "3. No, and tell Copilot what to do differently (Esc to stop)"


def test_clines_input_area_in_the_middle_of_its_start_screen_holds_what_is_typed() -> None:
    """Its rules start right of the left edge, bare (a dialog's box has corners): the area is found,
    and what is typed is read from it, the placeholder not."""
    cline = profile_for("cline")
    assert cline is not None
    for state, typed in (("ready", ""), ("typed", "this text is typed but not submitted")):
        for path in sorted((SCREENS / "cline").glob(f"{state}-*.json")):
            snap = _snap(path)
            found = chat.input_area(snap)
            assert found is not None, path.name
            assert snap.lines[found[0]].startswith(" "), path.name  # drawn right of the left edge
            assert chat.speaker(cline).pending_input(snap) == typed, path.name


def test_a_boxed_dialog_in_the_middle_of_the_screen_is_no_input_area() -> None:
    """The rules of a box drawn mid-screen end in corners: no input area, however alike."""
    box = ["", "      ╭" + "─" * 40 + "╮", "      │ ❯ Pick one                              │",
           "      ╰" + "─" * 40 + "╯", ""]
    snap = snapshot_from_capture("\n".join(box), width=80, height=5, cursor=(9, 2))
    assert chat.input_area(snap) is None


def test_clines_answer_has_no_mark_but_a_plain_bullet_keeps_its_star() -> None:
    """Cline marks an answer block with a blue '*' before white text: the mark is no answer.  A
    '* ' in the text's own colour is the answer's (a Markdown bullet left as typed)."""
    cline = profile_for("cline")
    assert isinstance(cline, ChatProfile)
    for path in sorted((SCREENS / "cline").glob("aftertool-*.json")):
        snap = _snap(path)
        got = chat.speaker(cline, "Create a file").answer_from(snap, "Create a file")
        assert got is not None, path.name
        # the text blocks lose their marks; the tool's row, its name as blue as its '*', is left as drawn
        rows = [row.strip() for row in got.splitlines()]
        assert rows[0] == "I will create a file." and rows[-1] == "The file was created.", (path.name, got)
        assert "* run_commands(touch scripted-file.txt)" in rows, (path.name, got)
    rows = ["", " \x1b[38;5;111m❯\x1b[39m Name a colour", "", " \x1b[38;5;111m*\x1b[39m The colour is blue.",
            "   * and a star of the text's own", "", "─" * 40, "❯ ", "─" * 40]
    snap = snapshot_from_capture("\n".join(rows), width=40, height=len(rows), cursor=(2, 7))
    got = chat.speaker(cline, "Name a colour").answer_from(snap, "Name a colour")
    assert got == "The colour is blue.\n* and a star of the text's own", got


def test_clines_questions_are_its_own_dialogs() -> None:
    """The permission question and the start-up offer take the input area's place with no menu:
    blocked all the same, with the data file's question; the offer may be closed unasked."""
    for state, name in (("permission", "permission"), ("offer", "offer")):
        for path in sorted((SCREENS / "cline").glob(f"{state}-*.json")):
            verdict = detect(_snap(path), program="cline")
            assert verdict.status == "blocked" and verdict.question, (path.name, verdict.evidence)
            assert f"the {name} dialog" in verdict.evidence, (path.name, verdict.evidence)
    cline = profile_for("cline")
    assert cline is not None
    assert [(d.name, d.safe, d.accept) for d in cline.dialogs] == [("permission", False, ("y",)),
                                                                    ("offer", True, ("Escape",))]


@pytest.mark.parametrize(("spelling", "name"), [
    ("pi", "pi"), ("@mariozechner/pi-coding-agent@0.73.1", "pi"), ("qwen", "qwen"),
    ("Qwen Code", "qwen"), ("@qwen-code/qwen-code@0.24.4", "qwen"), ("cn", "cn"),
    ("Continue", "cn"), ("cn@1.5.47", "cn"), ("copilot", "copilot"),
    ("@github/copilot@1.0.102", "copilot"), ("GitHub Copilot CLI", "copilot")])
def test_the_profiles_are_found_as_people_write_them(spelling: str, name: str) -> None:
    found = profile_for(spelling)
    assert found is not None and found.name == name


def test_they_are_profiles_of_their_own_not_the_generic_one() -> None:
    for name in ("pi", "qwen", "cn", "copilot"):
        profile = profile_or_generic(name)
        assert isinstance(profile, ChatProfile) and not isinstance(profile, GenericProfile)
        assert profile.kind == "ai" and profile.launch() == [name]
    qwen = profile_for("qwen")
    assert qwen is not None and qwen.exit_steps == (("keys", "C-d"), ("keys", "C-d"))
    assert [d.name for d in qwen.dialogs] == ["permission"]
    assert profile_for("node") is not qwen, "the node REPL keeps its name"
    copilot = profile_for("copilot")
    assert copilot is not None and copilot.exit_steps == (("keys", "C-d"),)
    assert [(d.name, d.safe) for d in copilot.dialogs] == [("permission", False), ("trust", False)]
    cn = profile_for("cn")
    assert cn is not None
    assert [(d.name, d.safe, d.accept) for d in cn.dialogs] == [("permission", False, ("Tab",))]


def test_a_turn_is_driven_with_the_profile_s_own_data() -> None:
    ready = _snap(min((SCREENS / "qwen").glob("ready-*.json")))
    qwen = profile_for("qwen")
    assert qwen is not None and chat.speaks(qwen, ready)
    speaker = chat.speaker(qwen, "Say hello")
    assert speaker.asked == "Say hello" and speaker.dialogs == qwen.dialogs
    assert speaker.exit_steps == qwen.exit_steps and "busy" in speaker.sign_patterns
    plain = chat.speaker(profile_or_generic("some-cli"), "Say hello")
    assert plain.dialogs == () and not plain.sign_patterns


@pytest.mark.parametrize("folder", ["cn", "pi", "qwen", "copilot"])
def test_a_chat_screen_tmux_names_only_node_is_not_claimed_by_pi_or_qwen(folder: str) -> None:
    # Continue's cn and Qwen Code run as `node` (pi too, where its launcher is not on PATH), and
    # they look alike: with nothing but the screen and `node`, the result must not name a CLI it
    # cannot tell apart from the others.
    screens = sorted((SCREENS / folder).glob("*.json"))
    assert screens
    for path in screens:
        fx = json.loads(path.read_text(encoding="utf-8"))
        w, h = fx["size"]
        snap = snapshot_from_capture(fx["ansi"], width=w, height=h, cursor=tuple(fx["cursor"]),
                                     alternate=fx["alternate"], program="node")
        assert detect(snap).program not in ("pi", "qwen", "cn", "copilot"), path.name
        assert detect(_snap(path)).program != "qwen" or folder == "qwen", path.name
