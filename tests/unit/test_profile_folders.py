"""``TMUX_TOOL_PROFILES``: the user's own folders of profile data files, the built-in one by the
word ``builtin``, a later folder's file replacing an earlier one's, and a broken file (or a missing
folder) an answer to every action, never a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from python.helpers.tmux_tool.api import call
from python.helpers.tmux_tool.programs import GenericProfile, profile_for, profile_or_generic, registry
from python.helpers.tmux_tool.programs.chat import ChatProfile

DEMO = """\
name = "demo"
executables = ["demo-cli"]
reader = "chat"
command = ["demo-cli", "--local"]
rank = 70
exit = [{ keys = "C-d" }]
"""


@pytest.fixture
def profiles(monkeypatch: pytest.MonkeyPatch) -> Iterator[pytest.MonkeyPatch]:
    """Set ``TMUX_TOOL_PROFILES`` with ``profiles.setenv``; the built-in profiles come back after."""
    yield monkeypatch
    monkeypatch.undo()
    assert registry.refresh() is None


def use(monkeypatch: pytest.MonkeyPatch, *parts: object) -> str | None:
    monkeypatch.setenv(registry.VARIABLE, os.pathsep.join(str(p) for p in parts))
    return registry.refresh()


def test_unset_means_the_built_in_folder(profiles: pytest.MonkeyPatch) -> None:
    profiles.delenv(registry.VARIABLE, raising=False)
    assert registry.folders() == (registry.FOLDER,)
    assert registry.refresh() is None and profile_for("claude") is not None
    assert registry.folders(f"builtin{os.pathsep}~/x") == (registry.FOLDER,
                                                            Path.home() / "x")


def test_a_user_folder_adds_a_profile(profiles: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "demo.toml").write_text(DEMO, encoding="utf-8")
    assert use(profiles, "builtin", tmp_path) is None
    demo = profile_for("demo-cli")
    assert isinstance(demo, ChatProfile) and demo.name == "demo"
    assert demo.command == ("demo-cli", "--local")
    assert profile_for("claude") is not None and profile_for("bash") is not None


def test_a_user_file_replaces_the_built_in_one(profiles: pytest.MonkeyPatch,
                                               tmp_path: Path) -> None:
    built_in = (registry.FOLDER / "qwen.toml").read_text(encoding="utf-8")
    (tmp_path / "qwen.toml").write_text(built_in.replace("rank = 70", "rank = 71"),
                                        encoding="utf-8")
    assert use(profiles, "builtin", tmp_path) is None
    qwen = profile_for("qwen")
    assert qwen is not None and qwen.rank == 71
    assert [p.name for p in registry.PROFILES].count("qwen") == 1
    assert use(profiles, tmp_path, "builtin") is None  # the later folder wins
    assert (found := profile_for("qwen")) is not None and found.rank == 70


def test_without_builtin_only_the_generic_reading_is_left(profiles: pytest.MonkeyPatch,
                                                          tmp_path: Path) -> None:
    assert use(profiles, tmp_path) is None
    for name in ("claude", "codex", "gemini", "opencode", "kimi", "aider", "pi", "qwen"):
        assert profile_for(name) is None
        assert isinstance(profile_or_generic(name), GenericProfile)
    assert profile_for("bash") is not None and profile_for("less") is not None  # modules stay
    assert not any(p.name == "claude" for p in registry.PROFILES)


def test_a_file_written_later_counts_on_the_next_call(profiles: pytest.MonkeyPatch,
                                                      tmp_path: Path) -> None:
    assert use(profiles, tmp_path) is None and profile_for("demo-cli") is None
    (tmp_path / "demo.toml").write_text(DEMO, encoding="utf-8")
    assert registry.refresh() is None and profile_for("demo-cli") is not None
    (tmp_path / "demo.toml").unlink()
    assert registry.refresh() is None and profile_for("demo-cli") is None


def test_a_broken_user_file_is_every_action_s_answer(profiles: pytest.MonkeyPatch,
                                                     tmp_path: Path) -> None:
    path = tmp_path / "demo.toml"
    path.write_text(DEMO + "[signs]\nbusy = '(unclosed'\n", encoding="utf-8")
    trouble = use(profiles, "builtin", tmp_path)
    sentence = f"profile file {path}: signs.busy is not a valid regular expression"
    assert trouble is not None and trouble.startswith(sentence)
    for action, args in (("run", {"command": "true"}), ("list", {}),
                         ("ask", {"session": "x", "text": "hi"})):
        result = call(action, **args)
        assert result["ok"] is False and result["error"].startswith(sentence), result
        assert "fix or remove that file" in result["hint"]
    # the built-in profiles are not lost meanwhile, and the fixed file counts at once
    assert profile_for("bash") is not None
    path.write_text(DEMO, encoding="utf-8")
    assert registry.refresh() is None and profile_for("demo") is not None


def test_a_missing_folder_is_named(profiles: pytest.MonkeyPatch, tmp_path: Path) -> None:
    missing = tmp_path / "nowhere"
    assert use(profiles, "builtin", missing) == (
        f"{registry.VARIABLE} names the folder {missing}, which does not exist")
    result = call("list")
    assert result["ok"] is False and str(missing) in result["error"]
    assert registry.VARIABLE in result["hint"]

