"""Blocked screens name their question and options as shown, and dialogs are accepted by their option.

Recorded screens of both releases of Claude Code (numbered options in 2.1.197,
unnumbered in 2.1.330, with the trust question's default moved), Codex,
Gemini CLI, Cline CLI (answers named after their keys) and programs no profile
knows (curses dialogs, prompt libraries, unzip, nano).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from python.helpers.tmux_tool.programs import classify, profile_for
from python.helpers.tmux_tool.screen import snapshot_from_capture

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"


def _fixture(name: str) -> dict[str, object]:
    return json.loads((SCREENS / name).read_text())


def _classify(fx: dict[str, object]) -> dict[str, object]:
    return classify(fx["lines"], program=fx["program"], ansi=fx["ansi"], cursor=tuple(fx["cursor"]),  # type: ignore[arg-type]
                    pane_command=fx["pane_current_command"], alternate=bool(fx["alternate"]))  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "question", "options"), [
    ("claude/trust-80x24.json", "Is this a project you created or one you trust?",
     ["1. Yes, I trust this folder", "2. No, exit"]),
    ("claude-2.1.330/trust-80x24.json", "Is this a project you created or one you trust?",
     ["No, exit", "Yes, I trust this folder"]),
    ("claude-2.1.330/keyapproval-200x50.json", "Do you want to use this API key?", ["Yes", "No (recommended)"]),
    ("claude-2.1.330/automode-80x24.json", "Make auto mode your default permission mode?",
     ["Yes, set auto mode as my default permission mode", "No, keep manual mode"]),
    ("codex/trust-80x24.json", "Trust this folder?", ["1. Trust and continue", "2. Back to Agent Command Center"]),
    ("codex/login-200x50.json", "Sign in with ChatGPT", ["1. Sign in with ChatGPT", "2. Sign in with Device Code",
                                                         "3. Sign in another way"]),
    ("gemini/auth-80x24.json", "How would you like to authenticate for this project?",
     ["1. Sign in with Google", "2. Use Gemini API Key", "3. Vertex AI"]),
    ("unprofiled/question-80x24-npm-init-name.json", "package name: (demo-app)", []),
    ("unprofiled/dialog-80x24-whiptail-menu.json", "Choose an install mode",
     ["quick Quick install", "full Everything", "custom Pick the parts"]),
    ("unprofiled/dialog-80x24-whiptail-yesno.json", "Overwrite the existing configuration?", ["Yes", "No"]),
    ("heldout/question-80x24-unzip-replace.json", "replace index.html?", ["yes", "no", "All", "None", "rename"]),
    ("heldout/question-200x50-clack-confirm.json", "Install dependencies?", ["Yes", "No"]),
    ("heldout/question-80x24-clack-select.json", "Pick a project type.", ["TypeScript", "JavaScript", "CoffeeScript"]),
    ("heldout/question-80x24-clack-text.json", "What is your project named?", []),
    ("heldout/question-80x24-nano-search.json", "Search:", []),
    ("heldout/question-200x50-read-prompt.json", "Deploy to which host:", []),
    ("cline/permission-80x24.json", "Cline asks permission to run a tool", ["[y] Approve", "[n] Deny"]),
    ("cline/permission-200x50.json", "Cline asks permission to run a tool", ["[y] Approve", "[n] Deny"]),
])
def test_blocked_screen_names_question_and_options(name: str, question: str, options: list[str]) -> None:
    out = _classify(_fixture(name))
    assert out["status"] == "blocked", out
    assert question in str(out["question"]), out
    assert out["options"] == options, out


@pytest.mark.parametrize(("name", "dialog", "keys"), [
    ("claude/trust-80x24.json", "trust", ("Enter",)),
    ("claude-2.1.330/trust-80x24.json", "trust", ("Down",)),
    ("claude/keyapproval-80x24.json", "api-key", ("Up",)),
    ("claude-2.1.330/keyapproval-80x24.json", "api-key", ("Up",)),
    ("claude-2.1.330/automode-80x24.json", "auto-mode", ("Down",)),
    ("codex/trust-80x24.json", "trust", ("Enter",)),
    ("gemini/trust-80x24.json", "trust", ("Enter",)),
])
def test_dialog_is_accepted_by_moving_to_its_option(name: str, dialog: str, keys: tuple[str, ...]) -> None:
    fx = _fixture(name)
    profile = profile_for(str(fx["program"]))
    assert profile is not None
    w, h = fx["size"]  # type: ignore[misc]
    snap = snapshot_from_capture(str(fx["ansi"]), width=w, height=h, cursor=tuple(fx["cursor"]),  # type: ignore[arg-type]
                                 alternate=bool(fx["alternate"]), program=str(fx["pane_current_command"]))
    found = profile.find_dialog(snap.text)
    assert found is not None and found.name == dialog
    assert profile.accept_keys(snap, found) == keys
