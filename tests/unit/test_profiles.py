"""The profile registry and what each profile promises: argv, keys, exits, answers, dialogs."""

from __future__ import annotations

import dataclasses
import importlib
import json
import pkgutil
import re
from pathlib import Path

import pytest

from python.helpers.tmux_tool import programs
from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.programs import PROFILES, Profile, Verdict, profile_for, registry

SCREENS = Path(__file__).resolve().parents[1] / "fixtures" / "screens"
KEY_NAME = re.compile(r"^(?:[CMS]-\S+|Enter|Escape|Space|Tab|BSpace|Up|Down|Left|Right|[a-zA-Z])$")


def fixture_lines(name: str) -> list[str]:
    return json.loads((SCREENS / name).read_text())["lines"]


def test_registry_holds_every_module_profile_and_data_file_once() -> None:
    declared: list[str] = []
    for info in pkgutil.iter_modules(programs.__path__):
        if info.name in registry.MACHINERY or info.ispkg:
            continue
        module = importlib.import_module(f"{programs.__name__}.{info.name}")
        declared += [p.name for p in getattr(module, "PROFILES", ())]
    declared += [path.stem for path in registry.FOLDER.glob("*.toml")]
    assert sorted(declared) == sorted(p.name for p in PROFILES)
    assert len(declared) == len(set(declared))


@pytest.mark.parametrize(
    ("key", "name"),
    [
        ("bash", "bash"),
        ("dash", "sh"),
        ("python3.11", "python3"),
        ("/usr/bin/python3", "python3"),
        ("vim.basic", "vim"),
        ("nvim", "vim"),
        ("pager", "less"),
        ("git", "git"),
        ("man", "man"),
        ("sqlite3", "sqlite3"),
        ("htop", "htop"),
        # As people and package managers write them: product names, packages, versions.
        ("Claude Code", "claude"),
        ("@anthropic-ai/claude-code", "claude"),
        ("claude@2.1.330", "claude"),
        ("Gemini CLI", "gemini"),
        ("@google/gemini-cli@0.61.0", "gemini"),
        ("@openai/codex", "codex"),
        ("OpenCode", "opencode"),
        ("opencode-ai", "opencode"),
        ("aider-chat", "aider"),
        ("kimi-cli", "kimi"),
        ("Kilo CLI", "kilo"),
        ("Kilo Code", "kilo"),
        ("kilocode", "kilo"),
        ("kilo@7.7.7", "kilo"),
        ("Python 3.11", "python3"),
        ("bash-5.2", "bash"),
    ],
)
def test_profile_for_names_and_executables(key: str, name: str) -> None:
    found = profile_for(key)
    assert found is not None and found.name == name


def test_profile_for_unknown() -> None:
    assert profile_for("no-such-program") is None
    assert profile_for("no-such-cli 1.0") is None
    assert profile_for("   ") is None
    assert profile_for(None) is None
    assert profile_for("") is None


@pytest.mark.parametrize("profile", PROFILES, ids=lambda p: p.name)
def test_profile_contract(profile: Profile) -> None:
    assert profile.kind in ("shell", "repl", "pager", "editor", "monitor", "ai")
    assert profile.executables and all(isinstance(e, str) and e for e in profile.executables)
    assert profile.submit and all(KEY_NAME.match(k) for k in profile.submit)
    assert profile.exit_steps, f"{profile.name} has no way out"
    for kind, value in profile.exit_steps:
        assert kind in ("text", "keys")
        if kind == "keys":
            assert KEY_NAME.match(value), value
    argv = profile.launch(["--flag", "a b; rm -rf /"])
    assert isinstance(argv, list) and all(isinstance(a, str) for a in argv)
    assert argv[-2:] == ["--flag", "a b; rm -rf /"], "arguments must stay separate argv items"
    assert profile.runs_as(argv[0]) or profile_for(argv[0]) is profile
    with pytest.raises(dataclasses.FrozenInstanceError):
        profile.name = "other"  # type: ignore[misc]


def test_exit_steps_of_well_known_programs() -> None:
    def steps(name: str) -> tuple[tuple[str, str], ...]:
        p = profile_for(name)
        assert p is not None
        return p.exit_steps

    assert steps("python3") == (("keys", "C-d"),)
    assert steps("less") == (("keys", "q"),)
    assert steps("vim") == (("keys", "Escape"), ("text", ":q!"), ("keys", "Enter"))
    assert steps("bash") == (("text", "exit"), ("keys", "Enter"))
    assert steps("sqlite3") == (("text", ".quit"), ("keys", "Enter"))


def test_paste_choices() -> None:
    pasted = {p.name for p in PROFILES if p.paste}
    assert {"bash", "zsh", "python3", "node", "sqlite3"} <= pasted
    assert not {"vim", "less", "top", "watch"} & pasted, "keys to full-screen programs are typed, never pasted"


def test_launch_is_an_argv() -> None:
    python = profile_for("python3")
    assert python is not None
    assert python.launch() == ["python3"]
    assert python.launch(["-q"], skip_permissions=True) == ["python3", "-q"]


# --- extract_answer ------------------------------------------------------------------------------


def answer(program: str, lines: list[str], prompt: str | None) -> str | None:
    p = profile_for(program)
    assert p is not None
    return p.extract_answer(lines, prompt)


def test_python_answer_from_real_screens() -> None:
    assert answer("python3", fixture_lines("python3/idle-80x24-after-output.json"), "print(6 * 7)") == "42"
    tb = answer("python3", fixture_lines("python3/idle-80x24-traceback.json"), "1/0")
    assert tb is not None and tb.startswith("Traceback") and tb.endswith("ZeroDivisionError: division by zero")
    assert answer("python3", fixture_lines("python3/idle-80x24-after-output.json"), None) == "42"


def test_answers_of_other_repls_and_the_shell_from_real_screens() -> None:
    assert answer("node", fixture_lines("node/idle-80x24-after-output.json"), "6 * 7") == "42"
    assert answer("sqlite3", fixture_lines("sqlite3/idle-80x24-after-output.json"), "select 6 * 7;") == "42"
    err = answer("bash", fixture_lines("bash/idle-80x24-failed-command.json"), "ls /nonexistent")
    assert err == "ls: cannot access '/nonexistent': No such file or directory"


def test_answer_skips_continuation_rows_and_wrapped_echo() -> None:
    lines = [">>> for i in range(2):", "...     print(i)", "... ", "0", "1", ">>> "]
    assert answer("python3", lines, "for i in range(2):\n    print(i)\n") == "0\n1"
    long_cmd = "echo " + "x" * 90
    echo = "root@vm:~# " + long_cmd
    lines = [echo[:80], echo[80:], "x" * 90, "root@vm:~# "]
    assert answer("bash", lines, long_cmd) == "x" * 90


def test_no_answer_before_the_prompt_is_back() -> None:
    assert answer("python3", [">>> import time; time.sleep(9)", ""], "import time; time.sleep(9)") is None
    assert answer("python3", [">>> print(1)", "1", ">>> x"], "print(1)") is None
    assert answer("less", ["line", ":"], None) is None


def test_answer_picks_the_last_submission() -> None:
    lines = [">>> 1 + 1", "2", ">>> 2 + 2", "4", ">>> "]
    assert answer("python3", lines, "2 + 2") == "4"
    assert answer("python3", lines, "1 + 1") == "2\n>>> 2 + 2\n4"


# --- dialogs and verdicts -----------------------------------------------------------------------


def test_vim_dialogs_match_their_real_screens_and_say_if_accepting_is_safe() -> None:
    vim = profile_for("vim")
    assert vim is not None
    cases = {
        "vim/swap-80x24.json": ("swap-file", False),
        "vim/hit-enter-80x24.json": ("hit-enter", True),
        "vim/more-80x24.json": ("more", True),
        "vim/save-changes-80x24.json": ("save-changes", False),
    }
    for name, (dialog_name, safe) in cases.items():
        fx = json.loads((SCREENS / name).read_text())
        cursor_row = fx["lines"][fx["cursor"][1]]
        dialog = vim.find_dialog(cursor_row)
        assert dialog is not None and dialog.name == dialog_name, name
        assert dialog.safe is safe and dialog.accept


def test_vim_swap_question_lists_the_choices_on_screen() -> None:
    fx = json.loads((SCREENS / "vim/swap-80x24.json").read_text())
    v = programs.classify(fx["lines"], program="vim", cursor=tuple(fx["cursor"]))
    assert v["status"] == "blocked"
    assert v["options"] == ["o: Open Read-Only", "e: Edit anyway", "r: Recover", "q: Quit", "a: Abort"]


def test_verdict_dict_and_immutability() -> None:
    v = Verdict(Status.BLOCKED, "bash", "a password prompt", "Password:", ())
    assert v.as_dict() == {"status": "blocked", "program": "bash", "evidence": "a password prompt",
                           "question": "Password:", "options": []}
    assert Verdict(Status.READY, "bash", "prompt").as_dict() == {"status": "ready", "program": "bash",
                                                             "evidence": "prompt"}
    with pytest.raises(dataclasses.FrozenInstanceError):
        v.status = Status.READY  # type: ignore[misc]


def test_output_that_looks_like_a_continuation_row_is_kept() -> None:
    lines = ["root@vm:~# cat mail.txt", "> quoted line", "reply", "root@vm:~# "]
    assert answer("bash", lines, "cat mail.txt") == "> quoted line\nreply"
