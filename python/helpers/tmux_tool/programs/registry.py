"""The registry of program profiles: a data file per AI CLI, modules that define ``PROFILES``.

A program's profile is a data file in ``profiles/`` (``<name>.toml``, checked
by :mod:`.schema`) naming the reader that reads its screen: a class some
module of this package lists in ``READERS``.  The shells, REPLs, pagers,
editors and monitors, whose data is a line each, stay in their modules'
``PROFILES``.  Adding a program is adding one file, with no list to edit
elsewhere; a file that breaks the schema is an import error naming it.
Names must be unique across files and modules - a clash is an import
error, not a silent override.  :func:`profile_for` finds a profile by name or by the
executable tmux names (``#{pane_current_command}``); :func:`profile_or_generic`
never comes back empty: a program nobody profiled gets the generic profile.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import lru_cache
from pathlib import Path

from .ai import AiProfile
from .base import Profile
from .generic import generic
from .schema import ProfileError, Readers, load

PACKAGE = __name__.rsplit(".", 1)[0]
MACHINERY = {"registry", "detector", "schema"}  # modules that read profiles rather than define them
FOLDER = Path(__file__).parent / "profiles"  # one data file per program


def _modules() -> list[object]:
    found = sorted(pkgutil.iter_modules([str(Path(__file__).parent)]), key=lambda m: m.name)
    return [importlib.import_module(f"{PACKAGE}.{info.name}") for info in found
            if info.name not in MACHINERY and not info.ispkg]


def _readers(modules: list[object]) -> dict[str, type[AiProfile]]:
    readers: dict[str, type[AiProfile]] = {}
    for module in modules:
        for cls in getattr(module, "READERS", ()):
            if cls.READER in readers:
                raise ImportError(f"two readers are named {cls.READER!r}")
            readers[cls.READER] = cls
    return readers


def load_folder(folder: Path, readers: Readers) -> list[Profile]:
    """The profiles of every ``*.toml`` file in ``folder``, in the files' name order."""
    return [load(path, readers) for path in sorted(folder.glob("*.toml"))]


def _discover() -> tuple[Profile, ...]:
    modules = _modules()
    found: list[Profile] = [p for module in modules for p in getattr(module, "PROFILES", ())]
    try:
        found.extend(load_folder(FOLDER, READERS))
    except ProfileError as exc:
        raise ImportError(str(exc)) from exc
    names: set[str] = set()
    for p in found:
        if p.name in names:
            raise ImportError(f"two program profiles are named {p.name!r}")
        names.add(p.name)
    return tuple(sorted(found, key=lambda p: (p.rank, p.name)))


READERS: dict[str, type[AiProfile]] = _readers(_modules())
PROFILES: tuple[Profile, ...] = _discover()
_BY_NAME = {p.name: p for p in PROFILES}


# How people and package managers spell a program beside its command: a version after it
# (``claude@2.1.330``, ``gemini 0.61``), its package's suffix (``claude-code``, ``gemini-cli``,
# ``opencode-ai``, ``aider-chat``), its product name (``Claude Code``, ``Gemini CLI``).
VERSION = re.compile(r"(?:@|\s+|-)v?\d+(?:\.\d+)*\S*$")
SUFFIX = re.compile(r"-(?:cli|code|ai|chat)$")


def profile_for(name_or_executable: object) -> Profile | None:
    """The profile named so, or whose executables match (``python3.11``); None for
    anything else (other programs, empty names, values that are not text).

    A path, an npm scope, a version, a package suffix and capitals are no part
    of the name: ``@google/gemini-cli@0.61.0`` and ``Gemini CLI`` are ``gemini``.
    """
    if not isinstance(name_or_executable, str) or not name_or_executable.strip():
        return None
    return _lookup(name_or_executable.strip().rsplit("/", 1)[-1])


@lru_cache(maxsize=512)
def _lookup(key: str) -> Profile | None:
    """:func:`profile_for` of a plain name; remembered, since every look at a pane asks it for the
    same few names (the foreground command, the program started) and a miss tries every spelling."""
    for spelling in _spellings(key):
        if spelling in _BY_NAME:
            return _BY_NAME[spelling]
        if found := next((p for p in PROFILES if p.runs_as(spelling)), None):
            return found
    return None


def _spellings(key: str) -> list[str]:
    """``key`` as given, then each step further from how it was written toward the command."""
    out = [key]
    for step in (str.lower, lambda k: VERSION.sub("", k), lambda k: "-".join(k.split()),
                 lambda k: SUFFIX.sub("", k)):
        nxt = step(out[-1])
        if nxt and nxt != out[-1]:
            out.append(nxt)
    return out


def profile_or_generic(name_or_executable: str | None) -> Profile:
    """The profile for a program, or the generic one when no profile knows it."""
    return profile_for(name_or_executable) or generic(name_or_executable)
