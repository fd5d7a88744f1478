"""What an AI CLI itself records of a session, and what the tool reads from it.

The screen shows a CLI's rendering of an answer; the CLI's own record holds
the model's text (fences, long lines and trailing newlines as they came),
and the CLI's own events say when a turn started and ended, failed, or
waits for a permission.  For a CLI it starts, the tool decides where that
record goes (:meth:`Journal.setup`), so it finds it without guessing.

During one ``ask`` a :class:`Reading` follows what was added since the
prompt was sent: only the bytes appended after where the record stood,
never a whole file read again.  What it has learned is a :class:`Turn`.
Odd or half-written lines are skipped, never raised.
"""

from __future__ import annotations

import glob
import json
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any, ClassVar, Protocol, Self

EVENTS = "events.jsonl"  # in the session's folder, written by hook.py
FACTS = "record.json"  # in the session's folder: what the tool knows of the CLI's record
MAX_PROCESSES = 200  # a process tree bigger than this is not searched further
HOOK = str(Path(__file__).resolve().with_name("hook.py"))
TAIL_CHUNK = 65536


def hook_argv(folder: Path) -> list[str]:
    """The command a CLI runs to report an event into ``folder``'s event file."""
    return [sys.executable, "-I", HOOK, str(folder / EVENTS)]


@dataclass(frozen=True, slots=True)
class Setup:
    """What a launch gets so the CLI reports to the tool: more arguments."""

    args: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Turn:
    """What the CLI's own record says of the turn of one prompt.

    ``started``: the CLI took this prompt; ``ended``: it said the turn is
    over, with ``answer`` the model's final text (None when the record has
    none); ``ending``: it said so, and the rest of its record is on the way;
    ``error``: the turn ended failed, in the CLI's words; ``asking``: it
    waits for a permission (what for); ``note``: what the reader could not
    do, said for the result.
    """

    started: bool = False
    ended: bool = False
    ending: bool = False
    answer: str | None = None
    error: str | None = None
    asking: str | None = None
    note: str | None = None


@dataclass(slots=True)
class Feed:
    """New complete lines of an append-only JSON-lines file, from an offset on."""

    path: Path
    offset: int = 0
    _partial: bytes = b""

    def __iter__(self) -> Iterator[dict[str, Any]]:
        try:
            with open(self.path, "rb") as fh:
                fh.seek(self.offset)
                data = fh.read()
        except OSError:
            return
        self.offset += len(data)
        data = self._partial + data
        lines = data.split(b"\n")
        self._partial = lines.pop()
        for line in lines:
            item = _json(line)
            if item is not None:
                yield item


@dataclass(slots=True)
class Rewritten:
    """A JSON file a CLI writes anew, whole, at each change (cn's session, Cline's session files):
    read again only when its time or size changed.  The CLI truncates the file, then writes it: a
    read that catches it half-written keeps what the last whole one said, and ``whole`` tells the
    reader that this look did not see the file as it is (a reader whose end is proved by a second
    file, written after this one, must not take the two as one moment)."""

    path: Path
    stamp: tuple[int, int] | None = None
    data: dict[str, Any] | None = None
    whole: bool = False

    def read(self) -> dict[str, Any] | None:
        """The file's object as last read whole (None while it never was)."""
        try:
            st = os.stat(self.path)
            stamp = (st.st_mtime_ns, st.st_size)
            if stamp != self.stamp:
                with open(self.path, "rb") as fh:
                    item = _json(fh.read())
                self.whole = item is not None
                if item is not None:
                    # the stamp is never newer than the data: a later change always reads again
                    self.stamp, self.data = stamp, item
        except OSError:
            self.whole = False
        return self.data


def _json(line: bytes) -> dict[str, Any] | None:
    try:
        item = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return item if isinstance(item, dict) else None


def size(path: Path | str | None) -> int:
    """A file's size now (0 when there is none)."""
    try:
        return os.stat(path).st_size if path else 0
    except OSError:
        return 0


def last_event(folder: Path) -> dict[str, Any] | None:
    """The last event in ``folder``'s event file, read from its end (events carry the
    record's current path; the file grows with every answer)."""
    path = folder / EVENTS
    end = size(path)
    tail = b""
    try:
        with open(path, "rb") as fh:
            while end > 0:
                start = max(0, end - TAIL_CHUNK)
                fh.seek(start)
                tail = fh.read(end - start) + tail
                end = start
                lines = tail.rstrip(b"\n").split(b"\n")
                if len(lines) > 1 or start == 0:
                    item = _json(lines[-1])
                    return item.get("event") if item and isinstance(item.get("event"), dict) \
                        else None
    except OSError:
        return None
    return None


class Reading(Protocol):
    """One ask's view of the record: what was appended since the prompt was sent, read as it
    comes."""

    def turn(self) -> Turn:
        """What the record says so far of this prompt's turn."""
        ...

    def watched(self) -> Path | None:
        """The file whose growth may bring this turn's end (None while there is none to watch)."""
        ...


class Journal:
    """How one CLI is told to report, and how its record is read.  Subclasses teach both.

    ``announces_end``: the CLI says itself when a turn is over (a hook, an
    end-of-turn entry); where it does not, the record gives the answer and
    the screen says when the turn is over.  ``records_failures``: the CLI
    writes a failed turn down; where it does not, a failure the screen shows
    is the screen's to tell.
    """

    cli: str = "the CLI"
    announces_end: bool = True
    records_failures: bool = True

    def setup(self, folder: Path) -> Setup:
        """Arguments that make the CLI report into ``folder``."""
        return Setup()

    def begin(self, folder: Path, prompt: str, pid: int) -> Reading | None:
        """Start following before ``prompt`` is sent (only what comes after counts), for the CLI
        started in ``folder``'s session, under the shell ``pid``; None when the CLI has recorded
        nothing the tool can find (it was not started to, or cannot)."""
        return None


def remember(folder: Path, **facts: str) -> None:
    """Keep facts about the session's record (its id, its home) for later calls, privately."""
    path = folder / FACTS
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump({**recalled(folder), **facts}, fh)


def recalled(folder: Path) -> dict[str, str]:
    """The facts :func:`remember` kept ({} when there are none)."""
    try:
        data = json.loads((folder / FACTS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str)} \
        if isinstance(data, dict) else {}


def _children(pid: int) -> list[int]:
    """The children of every thread of ``pid`` (a thread that ends meanwhile has none)."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as fh:
                found += [int(c) for c in fh.read().split() if c.isdigit()]
        except OSError:
            continue
    return found


def processes(pid: int) -> list[int]:
    """``pid`` and every process under it, as the kernel has them now (at most
    :data:`MAX_PROCESSES`): where a CLI that relaunches itself runs, among them."""
    seen: list[int] = []
    todo = [pid]
    while todo and len(seen) < MAX_PROCESSES:
        p = todo.pop()
        if p not in seen:
            seen.append(p)
            todo += _children(p)
    return seen


@dataclass(frozen=True, slots=True)
class Process:
    """What ``/proc`` says of a program: its arguments, environment and working directory."""

    argv: list[str]
    env: dict[str, str]
    cwd: str


def program(pid: int) -> Process | None:
    """The program under the shell ``pid`` (its first child: a node script's node, a Bun binary),
    as the kernel has it: where it keeps its files follows from its arguments, its environment and
    its working directory (None when there is none)."""
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as fh:
            child = fh.read().split()[0]
        with open(f"/proc/{child}/cmdline", "rb") as fh:
            argv = [a.decode(errors="surrogateescape") for a in fh.read().split(b"\0") if a]
        with open(f"/proc/{child}/environ", "rb") as fh:
            raw = fh.read()
        cwd = os.readlink(f"/proc/{child}/cwd")
    except (OSError, IndexError):
        return None
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    env = {k.decode(errors="replace"): v.decode(errors="surrogateescape") for k, v in pairs}
    return Process(argv, env, cwd)


def environ(pid: int) -> dict[str, str]:
    """The environment of the program under the shell ``pid`` (its first child), as the kernel
    has it: where that program keeps its files ({} when there is none)."""
    found = program(pid)
    return found.env if found else {}


def holders(pid: int, match: Callable[[str], bool]) -> list[tuple[int, str]]:
    """(process, file) for the files that ``pid`` or a process under it holds open and ``match``
    accepts: the kernel's word on where a program writes, where the program does not say."""
    found: list[tuple[int, str]] = []
    seen: set[int] = set()
    todo = [pid]
    while todo and len(seen) < MAX_PROCESSES:
        p = todo.pop()
        if p in seen:
            continue
        seen.add(p)
        todo += _children(p)
        try:
            fds = os.listdir(f"/proc/{p}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                path = os.readlink(f"/proc/{p}/fd/{fd}")
            except OSError:
                continue
            if match(path) and (p, path) not in found:
                found.append((p, path))
    return found


def open_files(pid: int, match: Callable[[str], bool]) -> list[str]:
    """The files of :func:`holders`, each once."""
    return list(dict.fromkeys(path for _, path in holders(pid, match)))


@dataclass(slots=True)
class AppendedReading:
    """One prompt's turn read from the one file a CLI appends its session to as it goes (Gemini
    CLI's and Qwen Code's saved chats, pi's session file): the file found once (:meth:`_look`),
    then each new line taken (:meth:`_take`) at every look."""

    prompt: str
    pid: int
    folder: Path
    since: float
    feeds: list[Feed] = field(default_factory=list)
    record: Feed | None = None
    started: bool = False
    closed: bool = False
    answer: str | None = None
    error: str | None = None
    NOTE: ClassVar[str | None] = None  # what every answer of this reader leaves out

    def turn(self) -> Turn:
        if self.record is None:
            self._look()
        if self.record is not None:
            for line in self.record:
                self._take(line)
        if not self.started:
            return Turn()
        return Turn(started=True, answer=self.answer, error=self.error, note=self.NOTE)

    def watched(self) -> Path | None:
        return self.record.path if self.record else None

    def resume(self, key: str) -> Self:
        """This reading, following on from the end of the file an earlier turn of the session
        found (remembered under ``key``) while that file is there."""
        known = recalled(self.folder).get(key)
        if known and os.path.exists(known):
            self.record = Feed(Path(known), size(known))
        return self

    def _look(self) -> None:
        """Find the file of this prompt's turn (``record``)."""
        raise NotImplementedError

    def _take(self, line: dict[str, Any]) -> bool:
        """Take one line; True when it is this prompt's own record."""
        raise NotImplementedError


def holding_prompt(feeds: list[Feed], pattern: str | None, since: float,
                   take: Callable[[dict[str, Any]], bool]) -> Feed | None:
    """The record, among the files ``pattern`` matches that were written since the ask began
    (``since``), where this prompt appears: each new file joins ``feeds`` and is followed from its
    start, every line read is given to ``take`` (True for the prompt's own line), even after the
    prompt's."""
    known = {str(f.path) for f in feeds}
    for path in glob.glob(pattern) if pattern else []:
        try:
            fresh = os.stat(path).st_mtime >= since - 1
        except OSError:
            continue
        if fresh and path not in known:
            feeds.append(Feed(Path(path), 0))
    for feed in feeds:
        found = False
        # every line, not only up to the prompt's: a reader learns from all it reads
        for line in feed:
            found = take(line) or found
        if found:
            return feed
    return None


def events(feed: Feed) -> Iterator[dict[str, Any]]:
    """The CLI's payloads among the new lines of an event file (see hook.py)."""
    for item in feed:
        event = item.get("event")
        if isinstance(event, dict):
            yield event


def written_after(record: dict[str, Any], since: float, key: str = "timestamp") -> bool:
    """Whether a record's time (``key``: ISO 8601, or a number of milliseconds since the epoch as
    JavaScript's ``Date.now()`` gives it) is ``since`` or later: a prompt repeated from an earlier
    turn is older, even when a file is first read from its start."""
    stamp = record.get(key)
    if isinstance(stamp, int | float) and not isinstance(stamp, bool):
        return stamp >= since * 1000
    try:
        return isinstance(stamp, str) and datetime.fromisoformat(stamp).timestamp() >= since
    except ValueError:
        return False


def message_text(content: object) -> str | None:
    """A chat message's text as the model wrote it: a string, or its ``text`` blocks joined (the
    shape of an OpenAI or Anthropic message, which pi, cn and Cline keep); None when it has none."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return None
    texts = [b["text"] for b in content
             if isinstance(b, dict) and b.get("type") == "text" and isinstance(b.get("text"), str)]
    return "".join(texts) if texts else None


def same_prompt(recorded: object, prompt: str) -> bool:
    """Whether a CLI's record of a prompt is ``prompt`` (spacing aside: a CLI may trim it)."""
    return isinstance(recorded, str) and recorded.split() == prompt.split()
