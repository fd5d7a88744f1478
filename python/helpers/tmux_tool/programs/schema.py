"""The schema of a profile data file (``profiles/<name>.toml``) and the one way to read one.

A data file says everything about a program that is data: its name and
executables, the argv that starts it, its rank, how to leave it, how long
its screen must hold still, the environment and skip-permission arguments
it is launched with, the dialogs it may show and how to answer them, which
screen reader reads it (``reader``) and that reader's sign patterns
(``[signs]``).  Code is left only for what data cannot say: the reader's
class (:data:`READERS` of a module, e.g. :class:`~.claude.ClaudeProfile`).

:func:`load` checks a file whole before it builds anything: an unknown key,
a value of the wrong type, a regex that does not compile (or lacks a named
group the reader reads), an unknown reader or sign, a key name tmux would
not take - each is a :class:`ProfileError` naming the file and the key, in
one sentence.  The keys, with their types::

    name = "claude"                      # required: the profile's name
    executables = ["claude"]             # required: #{pane_current_command} values (wildcards)
    reader = "claude"                    # required: a reader (see READERS), "chat" for any chat CLI
    command = ["claude"]                 # the argv that starts it (default: [name])
    kind = "ai"                          # default "ai"
    rank = 10                            # default 50: lower is tried first on a screen alone
    paste = true                         # text by bracketed paste (default true)
    submit = ["Enter"]                   # the keys that submit (default ["Enter"])
    exit = [{ text = "/exit" }, { keys = "Enter" }]   # required: the steps that leave it
    settle = 0.6                         # seconds (see AiProfile); also start_settle, first_settle
    page_keys = ["PageUp", "End"]        # paging an alternate-screen transcript: a page up, back to
                                         # the end (each may be keys in turn: "PageUp S-Down")
    skip_permission_args = ["--yolo"]
    launch_env = { NAME = "value" }      # set where the caller's environment does not
    [signs]                              # the reader's patterns, each a regex
    summary = '^✻ \\S+ for \\d'
    [[dialogs]]                          # start-up and permission dialogs, in order
    name = "trust"                       # required, as are pattern, question and safe
    pattern = 'Do you trust this folder\\?'
    accept = ["Enter"]                   # keys that accept it (default [])
    safe = false                         # whether it may be accepted without asking anyone
    question = "... asks whether to trust this folder"
    choose = '^Trust folder\\b'          # the option that accepts it, in a menu
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import get_args

from ..transport.keyboard import key_name
from .ai import AiProfile
from .base import Dialog, Kind, Profile, Step

__all__ = ["ProfileError", "check", "load"]

Readers = Mapping[str, type[AiProfile]]


class ProfileError(ValueError):
    """A profile data file that does not hold to the schema (the message names file and key)."""


class _Check:
    """The checks of one file; each failure names the file and the key."""

    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, key: str, why: str) -> ProfileError:
        return ProfileError(f"profile file {self.source}: {key} {why}")

    def text(self, key: str, value: object, *, empty: bool = False) -> str:
        if not isinstance(value, str) or (not empty and not value):
            raise self.fail(key, f"must be {'a' if empty else 'a non-empty'} string, not {value!r}")
        return value

    def texts(self, key: str, value: object) -> tuple[str, ...]:
        if not isinstance(value, list):
            raise self.fail(key, f"must be a list of strings, not {value!r}")
        return tuple(self.text(f"{key}[{i}]", v) for i, v in enumerate(value))

    def number(self, key: str, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0:
            raise self.fail(key, f"must be a number of seconds (0 or more), not {value!r}")
        return float(value)

    def integer(self, key: str, value: object) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.fail(key, f"must be a whole number, not {value!r}")
        return value

    def flag(self, key: str, value: object) -> bool:
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def regex(self, key: str, value: object, groups: tuple[str, ...] = ()) -> re.Pattern[str]:
        try:
            pattern = re.compile(self.text(key, value))
        except re.error as exc:
            raise self.fail(key, f"is not a valid regular expression ({exc}): {value!r}") from None
        if missing := [g for g in groups if g not in pattern.groupindex]:
            raise self.fail(key, f"must have the named group(s) {', '.join(missing)} its reader "
                            "reads")
        return pattern

    def key(self, key: str, value: object) -> str:
        name = self.text(key, value)
        try:
            canonical = key_name(name)
        except ValueError as exc:
            raise self.fail(key, f"is no key name: {exc}") from None
        if canonical != name:
            raise self.fail(key, f"must be written as tmux names it: {canonical!r}, not {name!r}")
        return name

    def keys(self, key: str, value: object) -> tuple[str, ...]:
        return tuple(self.key(f"{key}[{i}]", v) for i, v in enumerate(self.texts(key, value)))

    def presses(self, key: str, value: object) -> tuple[str, ...]:
        """Entries of key names pressed one after another, separated by spaces (``"PageUp S-Down"``)."""
        texts = self.texts(key, value)
        for i, text in enumerate(texts):
            for word in text.split():
                self.key(f"{key}[{i}]", word)
        return texts

    def table(self, key: str, value: object,
              known: Mapping[str, object] | None = None) -> dict[str, object]:
        if not isinstance(value, dict):
            raise self.fail(key, f"must be a table, not {value!r}")
        if known is not None and (unknown := sorted(set(value) - set(known))):
            raise self.fail(f"{key}.{unknown[0]}" if key else unknown[0],
                            f"is no key of the schema (known: {', '.join(sorted(known))})")
        return value


TOP: dict[str, object] = dict.fromkeys((
    "name", "executables", "reader", "command", "kind", "rank", "paste", "submit", "exit", "settle",
    "start_settle", "first_settle", "page_keys", "skip_permission_args", "launch_env", "signs",
    "dialogs"))
REQUIRED = ("name", "executables", "reader", "exit")
DIALOG: dict[str, object] = dict.fromkeys(
    ("name", "pattern", "accept", "safe", "question", "choose"))
DIALOG_REQUIRED = ("name", "pattern", "safe", "question")
SECONDS = ("settle", "start_settle", "first_settle")


def _steps(c: _Check, value: object) -> tuple[Step, ...]:
    if not isinstance(value, list) or not value:
        raise c.fail("exit", "must be a non-empty list of steps such as { text = \"/exit\" } or "
                     "{ keys = \"Enter\" }")
    out: list[Step] = []
    for i, item in enumerate(value):
        step = c.table(f"exit[{i}]", item, {"text": None, "keys": None})
        if len(step) != 1:
            raise c.fail(f"exit[{i}]", "must hold exactly one of text or keys")
        if "text" in step:
            out.append(("text", c.text(f"exit[{i}].text", step["text"])))
        else:
            out.append(("keys", c.key(f"exit[{i}].keys", step["keys"])))
    return tuple(out)


def _dialogs(c: _Check, value: object) -> tuple[Dialog, ...]:
    if not isinstance(value, list):
        raise c.fail("dialogs", f"must be a list of tables ([[dialogs]]), not {value!r}")
    out: list[Dialog] = []
    for i, item in enumerate(value):
        where = f"dialogs[{i}]"
        d = c.table(where, item, DIALOG)
        if missing := [k for k in DIALOG_REQUIRED if k not in d]:
            raise c.fail(f"{where}.{missing[0]}", "is missing")
        choose = d.get("choose")
        out.append(Dialog(c.text(f"{where}.name", d["name"]),
                          c.regex(f"{where}.pattern", d["pattern"]),
                          c.keys(f"{where}.accept", d.get("accept", [])),
                          c.flag(f"{where}.safe", d["safe"]),
                          c.text(f"{where}.question", d["question"]),
                          None if choose is None else c.regex(f"{where}.choose", choose)))
    return tuple(out)


def _signs(c: _Check, value: object, reader: str,
           cls: type[AiProfile]) -> dict[str, re.Pattern[str]]:
    table = c.table("signs", value)
    known = {**cls.SIGNS, **cls.MAY_SIGN}
    if unknown := sorted(set(table) - set(known)):
        raise c.fail(f"signs.{unknown[0]}", f"is no sign the {reader!r} reader reads (it reads: "
                     f"{', '.join(sorted(known)) or 'none'})")
    if missing := sorted(set(cls.SIGNS) - set(table)):
        raise c.fail(f"signs.{missing[0]}", f"is missing: the {reader!r} reader needs it")
    return {k: c.regex(f"signs.{k}", v, known[k]) for k, v in table.items()}


def check(data: Mapping[str, object], source: str, readers: Readers) -> Profile:
    """The profile ``data`` (a parsed file) describes, or :class:`ProfileError`."""
    c = _Check(source)
    c.table("", dict(data), TOP)
    if missing := [k for k in REQUIRED if k not in data]:
        raise c.fail(missing[0], "is missing")
    name = c.text("name", data["name"])
    reader = c.text("reader", data["reader"])
    if reader not in readers:
        raise c.fail("reader", f"names no reader: {reader!r} (known: {', '.join(sorted(readers))})")
    cls = readers[reader]
    kind = c.text("kind", data.get("kind", "ai"))
    if kind not in get_args(Kind):
        raise c.fail("kind", f"must be one of {', '.join(get_args(Kind))}, not {kind!r}")
    executables = c.texts("executables", data["executables"])
    if not executables:
        raise c.fail("executables", "must name at least one executable")
    env = c.table("launch_env", data.get("launch_env", {}))
    fields: dict[str, object] = {
        "executables": executables,
        "kind": kind,
        "paste": c.flag("paste", data.get("paste", True)),
        "submit": c.keys("submit", data.get("submit", ["Enter"])),
        "exit_steps": _steps(c, data["exit"]),
        "dialogs": _dialogs(c, data.get("dialogs", [])),
        "command": c.texts("command", data.get("command", [name])),
        "rank": c.integer("rank", data.get("rank", 50)),
        "skip_permission_args": c.texts("skip_permission_args",
                                        data.get("skip_permission_args", [])),
        "launch_env": tuple((c.text("launch_env", k), c.text(f"launch_env.{k}", v, empty=True))
                            for k, v in env.items()),
        "sign_patterns": _signs(c, data.get("signs", {}), reader, cls),
    }
    fields.update((key, c.number(key, data[key])) for key in SECONDS if key in data)
    if "page_keys" in data:
        fields["page_keys"] = pages = c.presses("page_keys", data["page_keys"])
        if len(pages) != 2:
            raise c.fail("page_keys", "must hold two entries: the keys of a page up, then those back to the end")
    if not fields["command"]:
        raise c.fail("command", "must not be empty")
    build: Callable[..., Profile] = cls
    return build(name, **fields)


def load(path: Path, readers: Readers) -> Profile:
    """Read and check one profile data file."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ProfileError(f"profile file {path}: cannot be read as TOML ({exc})") from None
    profile = check(data, str(path), readers)
    if profile.name != path.stem:
        raise ProfileError(f"profile file {path}: name {profile.name!r} must be the file's name "
                           f"({path.stem!r})")
    return profile
