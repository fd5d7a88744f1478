"""Tell the human, wherever they are, that a terminal of the agent needs them.

``TMUX_TOOL_NOTIFY`` holds one or more Apprise URLs (``ntfy://``, ``tgram://``,
``json://``..., separated by spaces or commas).  When a result says
``needs_human``, one notification goes out per prompt: the session, the host,
the question's first line and where the human types the answer.  Never the
screen, never anything typed: the secret goes from the human's keyboard to the
terminal and is in no result, so it cannot be in a notification either.

*Once per prompt, whoever looks.*  The agent looks at a prompt many times (its
``run``, then ``status``, then ``wait``), from different processes (a
command-line call, the resident process, the MCP server, the page's server).
So what was sent is remembered in a file of the state folder (0600) that all
of them read: a prompt is its host, session, reading process and question
(:attr:`Prompt.key`).  A later judged result of the same session that no
longer needs the human sends a short "no longer needs you", once.

*Never in the agent's way.*  Apprise and the network are in a detached child
process (this file run as a script, the message on its stdin), not a thread:
a command-line call's process exits right after its answer, which would end a
thread with the notification unsent, while a detached child goes on by itself
(a session of its own, no descriptor of ours but its stdin), bounded by an
alarm.  The agent's call pays for a look at the records; a thread records a
new prompt and starts the child.  Apprise is imported only in that child.  A notifier that fails is
written once to ``notify.log`` in the state folder: the calls' stdout and stderr are what the agent
reads, and a detached child has neither.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

ENV = "TMUX_TOOL_NOTIFY"
RECORDS = "notified.json"
LOG = "notify.log"
KEEP = 256  # prompts remembered; the oldest are forgotten first
LIFETIME = 60  # seconds a sending child may live, whatever its notifiers do
QUESTION_CAP = 200  # characters of the question's first line in a notification
THREAD = "tmux-tool-notify"  # the threads that record and spawn (a test waits for them)
_SPLIT = re.compile(r"[\s,]+")


def urls() -> list[str]:
    """The Apprise URLs of ``TMUX_TOOL_NOTIFY`` (none: nothing is ever sent)."""
    return [u for u in _SPLIT.split(os.environ.get(ENV, "")) if u]


@dataclass(frozen=True, slots=True)
class Prompt:
    """One prompt for the human: where it is, who reads it, what it asks, where to answer it."""

    host: str  # "" for this machine
    session: str
    reader: str  # the process that reads the answer ("" when not known)
    question: str
    where: str
    connecting: bool = False  # ssh's question in its session here as it connects to ``host``

    @property
    def key(self) -> str:
        """What makes two looks the same prompt (the question's first line only is ever kept).

        ssh's question as it connects is seen two ways: the call that connects (its question as ssh
        printed it, no process) and ``status`` of the connection's session (as judged, with ssh's
        process).  The session is one connection's, so it alone names the prompt.
        """
        import hashlib

        said = [] if self.connecting else [self.reader, first_line(self.question)]
        text = json.dumps([self.host, self.session, *said])
        return hashlib.sha256(text.encode()).hexdigest()[:32]


def first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0][:QUESTION_CAP] if lines else ""


def asked(root: Path, prompt: Prompt) -> None:
    """Send ``prompt`` unless it was sent already (that look is all the caller pays)."""
    if prompt.key not in _read(root):
        _aside(root, _ask, root, prompt)


def settled(root: Path, host: str, session: str) -> None:
    """Session ``session`` on ``host`` no longer needs the human: say so, once, for the prompts told
    of."""
    if any(_is(r, host, session) for r in _read(root).values()):
        _aside(root, _settle, root, host, session)


def _ask(root: Path, prompt: Prompt) -> None:
    with _Locked(root) as locked:
        if prompt.key in locked.records:
            return  # another look, here or in another process, was first
        locked.records[prompt.key] = {"host": prompt.host, "session": prompt.session, "open": True}
    _spawn(root, f"{prompt.session} on {_machine(prompt.host)} needs you",
           f"{first_line(prompt.question) or 'a secret is asked'}\nAnswer it at {prompt.where}")


def _settle(root: Path, host: str, session: str) -> None:
    with _Locked(root) as locked:
        told = [r for r in locked.records.values() if _is(r, host, session)]
        for record in told:
            record["open"] = False
    if told:
        _spawn(root, f"{session} on {_machine(host)} no longer needs you",
               f"The prompt in {session} is answered or gone.")


def _aside(root: Path, work: Callable[..., None], *args: Any) -> None:
    """Do ``work`` in a thread, so the agent's call returns before it.

    Not a daemon: a command-line call's process, which exits right after its
    answer, waits at its exit for this thread, which records the prompt and
    starts the sending child (milliseconds; a spawn waits for the child's
    exec, which a loaded machine can delay by a tenth of a second), never for
    the network.  A fault here is the notifier's: written to the log, never
    to stderr, which the agent reads.
    """
    import threading

    def guarded() -> None:
        try:
            work(*args)
        except Exception as exc:  # noqa: BLE001
            # nothing of the notifier's reaches the agent's call
            log_once(root / LOG, f"notifying failed: {type(exc).__name__}: {exc}")

    threading.Thread(target=guarded, name=THREAD).start()


def _machine(host: str) -> str:
    """The host's name, or this machine's: the human may have the tool on several."""
    return host or os.uname().nodename


def _is(record: Any, host: str, session: str) -> bool:
    return (isinstance(record, dict) and record.get("open") is True and record.get("host") == host
            and record.get("session") == session)


def _read(root: Path) -> dict[str, Any]:
    """The prompts told of ({} when none, or the file cannot be read)."""
    try:
        found = json.loads((root / RECORDS).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


class _Locked:
    """The records, read and written back under an exclusive lock of the file (processes and
    threads)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.records: dict[str, Any] = {}
        self.fd = -1

    def __enter__(self) -> Self:
        import fcntl

        from .config import private_path

        private_path(self.root)
        self.fd = os.open(self.root / RECORDS, os.O_RDWR | os.O_CREAT, 0o600)
        fcntl.flock(self.fd, fcntl.LOCK_EX)
        self.records = _read(self.root)
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            if exc[0] is None:
                kept = dict(list(self.records.items())[-KEEP:])
                data = json.dumps(kept).encode()
                os.ftruncate(self.fd, 0)
                os.pwrite(self.fd, data, 0)
        finally:
            os.close(self.fd)  # closing releases the lock


def _spawn(root: Path, title: str, body: str) -> None:
    """Hand one notification to a detached child (see the module's docstring for why not a thread).

    ``posix_spawn`` as the tool spawns tmux: no ``subprocess`` to import, and a
    child in a session of its own without a fork of this process, whose size
    (the resident, Agent Zero) would cost tens of milliseconds.  This file runs
    as a script (``-P``: its folder not on the path), whatever name the library
    was loaded under.
    """
    import sys
    import threading

    payload = json.dumps({"title": title, "body": body, "log": str(root / LOG)}).encode()
    read_end, write_end = os.pipe()
    try:
        pid = os.posix_spawn(
            sys.executable,
            [sys.executable, "-P", __file__],
            os.environ,
            setsid=True,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, read_end, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, 1, 2),
            ],
        )
    except OSError as exc:
        os.close(write_end)
        log_once(root / LOG, f"no notification could be sent: {exc.strerror or exc}")
        return
    finally:
        os.close(read_end)
    try:
        with open(write_end, "wb") as pipe:
            pipe.write(payload)  # a few hundred bytes: the pipe takes them at once
    except OSError:
        pass  # the child ended before reading (killed): it has nothing to send
    # no zombie
    threading.Thread(target=os.waitpid, args=(pid, 0), name=f"{THREAD}-reaper", daemon=True).start()


def log_once(path: Path, line: str) -> None:
    """Append ``line`` to the log unless it is there already: a notifier that keeps failing is said
    once."""
    try:
        known = path.read_text(encoding="utf-8").splitlines() if path.exists() else []
        if any(k.partition(" ")[2] == line for k in known):
            return
        import time

        # the child runs without the library
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        with os.fdopen(fd, "a", encoding="utf-8") as out:
            out.write(f"{time.strftime('%Y-%m-%dT%H:%M:%S')} {line}\n")
    except OSError:
        pass  # the state folder cannot be written: the calls themselves say so


def _deliver(index: int, url: str, title: str, body: str) -> str | None:
    """Send to one Apprise URL; why it failed, or None.  The URL is named by its place and scheme
    only: the rest of it may be a token, a password or a topic that is as good as one (ntfy)."""
    import apprise

    named = f"item {index} of {ENV} ({url.partition('://')[0][:20]}://...)"
    box = apprise.Apprise()
    if not box.add(url):
        return f"{named} is no Apprise URL that this apprise knows"
    if not box.notify(body=body, title=title):
        return f"{named} did not take the notification (unreachable or refused)"
    return None


def main() -> int:
    """The detached child: read the message on stdin, send it to every URL, log each failure
    once."""
    import signal
    import sys

    os.nice(10)  # apprise's import and the sending yield the CPU to the agent's calls
    signal.alarm(LIFETIME)
    message = json.loads(sys.stdin.read())
    try:
        import apprise  # noqa: F401 - present, or said once
    except ImportError:
        log_once(
            Path(message["log"]),
            f"{ENV} is set but {sys.executable} has no apprise: pip install apprise",
        )
        return 1
    for index, url in enumerate(urls(), 1):
        try:
            failed = _deliver(index, url, message["title"], message["body"])
        except Exception as exc:  # noqa: BLE001 - one notifier's fault must not stop the others
            failed = f"item {index} of {ENV} failed: {type(exc).__name__}"
        if failed:
            log_once(Path(message["log"]), failed)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
