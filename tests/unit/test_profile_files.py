"""Profiles as data: every file in programs/profiles/ holds to the schema, and a broken one is an
error that names the file and the key."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from python.helpers.tmux_tool.programs import PROFILES, profile_for, registry
from python.helpers.tmux_tool.programs.ai import AiProfile
from python.helpers.tmux_tool.programs.chat import ChatProfile
from python.helpers.tmux_tool.programs.schema import ProfileError, load

FILES = sorted(registry.FOLDER.glob("*.toml"))
GOOD = """\
name = "demo"
executables = ["demo"]
reader = "chat"
exit = [{ keys = "C-d" }]
"""


def write(folder: Path, text: str, name: str = "demo") -> Path:
    path = folder / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_the_ai_clis_are_data_files() -> None:
    names = {path.stem for path in FILES}
    assert {"claude", "codex", "gemini", "opencode", "kimi", "aider", "pi", "qwen"} <= names


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_data_file_loads_to_its_registered_profile(path: Path) -> None:
    loaded = load(path, registry.READERS)
    registered = profile_for(path.stem)
    assert registered is not None and registered == loaded
    assert isinstance(registered, AiProfile) and type(registered).READER in registry.READERS
    assert isinstance(loaded, AiProfile)
    assert dict(registered.sign_patterns) == dict(loaded.sign_patterns)
    assert set(type(registered).SIGNS) <= set(registered.sign_patterns)


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_data_files_keep_lines_short(path: Path) -> None:
    assert all(len(line) <= 100 for line in path.read_text(encoding="utf-8").splitlines())


def test_readers_are_the_code_left() -> None:
    readers = {"claude", "codex", "gemini", "opencode", "kimi", "aider", "chat"}
    assert readers <= set(registry.READERS)
    assert registry.READERS["chat"] is ChatProfile


def test_a_minimal_file_gives_a_chat_profile(tmp_path: Path) -> None:
    profile = load(write(tmp_path, GOOD), registry.READERS)
    assert isinstance(profile, ChatProfile)
    assert profile.name == "demo" and profile.kind == "ai" and profile.launch() == ["demo"]
    assert profile.exit_steps == (("keys", "C-d"),) and profile.submit == ("Enter",)


@pytest.mark.parametrize(
    ("text", "key", "why"),
    [
        (GOOD + "colour = 'red'\n", "colour", "is no key of the schema"),
        (GOOD.replace('["demo"]', '"demo"'), "executables", "must be a list of strings"),
        (GOOD + "rank = 'first'\n", "rank", "must be a whole number"),
        (GOOD + "settle = -1\n", "settle", "must be a number of seconds"),
        (GOOD.replace('"chat"', '"nosuch"'), "reader", "names no reader"),
        (GOOD.replace('"C-d"', '"Hyper-D"'), "exit[0].keys", "is no key name"),
        (GOOD.replace('"C-d"', '"enter"'), "exit[0].keys", "must be written as tmux names it"),
        (GOOD.replace('{ keys = "C-d" }', '{ keys = "C-d", text = "x" }'), "exit[0]",
         "exactly one"),
        (GOOD.replace('exit = [{ keys = "C-d" }]\n', ""), "exit", "is missing"),
        (GOOD + "kind = 'robot'\n", "kind", "must be one of"),
        (GOOD + "[signs]\nbusy = '(unclosed'\n", "signs.busy", "is not a valid regular expression"),
        (GOOD + "[signs]\nsmile = 'x'\n", "signs.smile", "is no sign the 'chat' reader reads"),
        (GOOD + "[launch_env]\nHOME = 1\n", "launch_env.HOME", "must be a string"),
        (GOOD + "[[dialogs]]\nname = 'x'\npattern = '['\nsafe = false\nquestion = 'q'\n",
         "dialogs[0].pattern", "is not a valid regular expression"),
        (GOOD + "[[dialogs]]\nname = 'x'\npattern = 'y'\nquestion = 'q'\n", "dialogs[0].safe",
         "is missing"),
        (GOOD + "[[dialogs]]\nname = 'x'\npattern = 'y'\nsafe = 'no'\nquestion = 'q'\n",
         "dialogs[0].safe", "must be true or false"),
        (GOOD + "[[dialogs]]\nname = 'x'\npattern = 'y'\nsafe = false\nquestion = 'q'\n"
         "accept = ['Entr']\n", "dialogs[0].accept[0]", "is no key name"),
        (GOOD + "[[dialogs]]\nname = 'x'\npattern = 'y'\nsafe = false\nquestion = 'q'\nkeys = []\n",
         "dialogs[0].keys", "is no key of the schema"),
        (GOOD.replace('name = "demo"', 'name = "other"'), "name", "must be the file's name"),
        (GOOD + "exit = 3\n", "TOML", "cannot be read as TOML"),
        (GOOD + "page_keys = ['PageUp']\n", "page_keys", "must hold two entries"),
        (GOOD + "page_keys = ['PageUp S-Dwn', 'End']\n", "page_keys[0]", "is no key name"),
    ],
    ids=lambda v: v if isinstance(v, str) and "\n" not in v and " " not in v else "",
)
def test_a_broken_file_names_the_file_and_the_key(tmp_path: Path, text: str, key: str,
                                                  why: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ProfileError) as raised:
        load(path, registry.READERS)
    message = str(raised.value)
    assert message.startswith(f"profile file {path}: ")
    assert key == "TOML" or re.search(rf"(?:^|: ){re.escape(key)} ", message), message
    assert why in message, message


def test_page_keys_may_be_keys_in_turn(tmp_path: Path) -> None:
    loaded = load(write(tmp_path, GOOD + "page_keys = ['PageUp S-Down S-Down', 'C-End']\n"), registry.READERS)
    assert isinstance(loaded, AiProfile) and loaded.page_keys == ("PageUp S-Down S-Down", "C-End")


def test_a_reader_s_required_signs_and_groups_are_checked(tmp_path: Path) -> None:
    text = (registry.FOLDER / "codex.toml").read_text(encoding="utf-8")
    without = write(tmp_path, re.sub(r"(?m)^worked = .*\n", "", text), "codex")
    with pytest.raises(ProfileError,
                       match=r"signs\.worked is missing: the 'codex' reader needs it"):
        load(without, registry.READERS)
    ungrouped = write(tmp_path, text.replace("(?P<text>.*)", "(.*)"), "codex")
    with pytest.raises(ProfileError, match=r"signs\.composer must have the named group\(s\) text"):
        load(ungrouped, registry.READERS)


def test_the_registry_refuses_a_broken_file(tmp_path: Path) -> None:
    for path in FILES:
        write(tmp_path, path.read_text(encoding="utf-8"), path.stem)
    assert registry._discover((tmp_path,)) == PROFILES
    write(tmp_path, GOOD + "[signs]\nbusy = '(unclosed'\n", "broken")
    broken = re.escape(str(tmp_path / "broken.toml"))
    with pytest.raises(ProfileError, match=rf"profile file {broken}: "):
        registry._discover((tmp_path,))


def test_a_name_given_twice_is_refused(tmp_path: Path) -> None:
    write(tmp_path, GOOD.replace('"demo"', '"bash"', 1), "bash")
    with pytest.raises(ProfileError, match="name 'bash' is a built-in program's"):
        registry._discover((registry.FOLDER, tmp_path))
