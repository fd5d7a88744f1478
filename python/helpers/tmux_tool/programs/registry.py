"""The registry of program profiles: data files per AI CLI, modules that define ``PROFILES``.

A program's profile is a data file (``<name>.toml``, checked by :mod:`.schema`)
naming the reader that reads its screen: a class some module of this package
lists in ``READERS``.  The shells, REPLs, pagers, editors and monitors, whose
data is a line each, stay in their modules' ``PROFILES``.  Adding a program is
adding one file, with no list to edit elsewhere.

The data files come from the folders ``TMUX_TOOL_PROFILES`` names (separated by
``os.pathsep``; ``builtin`` is this package's ``profiles/``, ``~`` is expanded),
the built-in folder alone when it is unset or empty; a later folder's file
replaces an earlier one's of the same name, and a list without ``builtin`` has
no built-in data profile at all (a folder with no file: only the generic
reading is left).  A file that breaks the schema, a folder that does not exist,
a data profile named as a module's: the registry keeps the module profiles and
:data:`TROUBLE` says what is wrong, in one sentence naming the file and key, so
every action answers with it (``actions.dispatch``) instead of a traceback.
:func:`refresh` reloads when the variable or a file changed (one ``stat`` a
file), so a fixed file counts on the next call.  Names must be unique across
modules - a clash is an import error, not a silent override.  :func:`profile_for`
finds a profile by name or by the executable tmux names
(``#{pane_current_command}``); :func:`profile_or_generic` never comes back
empty: a program nobody profiled gets the generic profile.
"""

from __future__ import annotations

import importlib
import os
import pkgutil
import re
import threading
from functools import lru_cache
from pathlib import Path

from .ai import AiProfile
from .base import Profile
from .generic import generic
from .schema import ProfileError, Readers, load

PACKAGE = __name__.rsplit(".", 1)[0]
MACHINERY = {"registry", "detector", "schema"}  # modules that read profiles rather than define them
FOLDER = Path(__file__).parent / "profiles"  # one data file per program
VARIABLE = "TMUX_TOOL_PROFILES"
BUILTIN = "builtin"  # the word in VARIABLE that names FOLDER


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


def folders(value: str | None = None) -> tuple[Path, ...]:
    """The folders of data files ``value`` (``TMUX_TOOL_PROFILES`` unless given) names, in order."""
    raw = os.environ.get(VARIABLE, "") if value is None else value
    parts = [p.strip() for p in raw.split(os.pathsep) if p.strip()]
    if not parts:
        return (FOLDER,)
    return tuple(FOLDER if p == BUILTIN else Path(p).expanduser() for p in parts)


def stamp(where: tuple[Path, ...]) -> tuple[object, ...]:
    """What changes when a data file of ``where`` is added, removed or written."""
    out: list[object] = []
    for folder in where:
        try:
            names = sorted(n for n in os.listdir(folder) if n.endswith(".toml"))
        except OSError:
            out.append((str(folder), None))
            continue
        for name in names:
            try:
                st = os.stat(folder / name)
            except OSError:
                continue
            out.append((str(folder / name), st.st_mtime_ns, st.st_size))
    return tuple(out)


def _data(where: tuple[Path, ...]) -> dict[str, tuple[Path, Profile]]:
    """The data profiles of ``where`` by name, with their files; a later folder's file replaces
    an earlier one's."""
    found: dict[str, tuple[Path, Profile]] = {}
    for folder in where:
        if not folder.is_dir():
            what = "is no folder" if folder.exists() else "does not exist"
            raise ProfileError(f"{VARIABLE} names the folder {folder}, which {what}")
        for path in sorted(folder.glob("*.toml")):
            profile = load(path, READERS)
            found[profile.name] = (path, profile)
    return found


def _module_profiles() -> list[Profile]:
    found: list[Profile] = [p for m in _modules() for p in getattr(m, "PROFILES", ())]
    names: set[str] = set()
    for p in found:
        if p.name in names:
            raise ImportError(f"two program profiles are named {p.name!r}")
        names.add(p.name)
    return found


def _discover(where: tuple[Path, ...] | None = None) -> tuple[Profile, ...]:
    """Every profile: the modules' and the data files' of ``where`` (the variable's folders unless
    given); :class:`ProfileError` for a broken file, a missing folder or a clash with a module."""
    found = _module_profiles()
    names = {p.name for p in found}
    for name, (path, profile) in _data(folders() if where is None else where).items():
        if name in names:
            raise ProfileError(f"profile file {path}: name {name!r} is a built-in program's "
                               "(a shell, REPL, pager or editor); choose another")
        found.append(profile)
    return tuple(sorted(found, key=lambda p: (p.rank, p.name)))


READERS: dict[str, type[AiProfile]] = _readers(_modules())
PROFILES: tuple[Profile, ...] = ()
TROUBLE: str | None = None
"""Why the profile files could not be loaded (the schema's sentence), or None."""
_BY_NAME: dict[str, Profile] = {}
_LOADED: tuple[object, ...] | None = None  # the variable and the stamp PROFILES were loaded from
_LOCK = threading.Lock()


def refresh() -> str | None:
    """Load the profiles again when ``TMUX_TOOL_PROFILES`` or one of its files changed since the
    last load; :data:`TROUBLE` (None when every file holds to the schema)."""
    global PROFILES, TROUBLE, _BY_NAME, _LOADED
    value = os.environ.get(VARIABLE, "")
    where = folders(value)
    key = (value, stamp(where))
    if key == _LOADED:
        return TROUBLE
    with _LOCK:
        if key == _LOADED:
            return TROUBLE
        try:
            profiles, trouble = _discover(where), None
        except ProfileError as exc:
            profiles = tuple(sorted(_module_profiles(), key=lambda p: (p.rank, p.name)))
            trouble = str(exc)
        PROFILES, TROUBLE, _BY_NAME = profiles, trouble, {p.name: p for p in profiles}
        _lookup.cache_clear()
        _LOADED = key
    return TROUBLE


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


def holds(name: str) -> bool:
    """Whether a profile of this exact name is loaded: only such a CLI's own record is read (its
    profile file removed, a CLI is read off its screen alone, as any CLI no profile knows)."""
    return name in _BY_NAME


def profile_or_generic(name_or_executable: str | None) -> Profile:
    """The profile for a program, or the generic one when no profile knows it."""
    return profile_for(name_or_executable) or generic(name_or_executable)


refresh()
