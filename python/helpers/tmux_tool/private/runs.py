"""``run``: one shell command in a private session, exactly.

The command is pasted as one unit (bracketed paste into readline, via
``load-buffer``/``paste-buffer`` so neither the 16 KB ``send-keys`` limit nor
tmux's ``;`` parsing can touch it) and submitted with a real Enter key.  The
shell's own prompt machinery then marks where the output starts and ends and
with which exit code (see :mod:`markers`), so the result holds exactly this
command's output: no echo, no marker, no prompt.  A command still running at
the timeout is left running and reported ``busy``; ``wait`` collects it later.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from .. import screen
from ..core import masking
from ..core.config import private_path, write_private
from ..core.messages import message
from ..core.result import Result, failure
from ..transport.tmux import NoServer, NoTarget
from . import markers
from .markers import Mark
from .server import PrivateServer, Shell, settle_log

SLICE = 1.0  # longest single wait-for; between slices the log and pane are re-checked
LOG_ROTATE = 8 << 20  # a log this big is emptied between commands
RENDER_LIMIT = 256 << 10  # raw bytes rendered through the emulator, head and tail each
KEEP_OUTPUTS = 20


@dataclass(frozen=True, slots=True)
class RunRecord:
    """The command most recently submitted in a session (kept beside the log)."""

    id: str
    command: str
    offset: int
    started: float
    channel: str
    collected: bool = False


def record_path(srv: PrivateServer, name: str) -> Path:
    return srv.session_dir(name) / "run.json"


def load_record(srv: PrivateServer, name: str) -> RunRecord | None:
    try:
        return RunRecord(**json.loads(record_path(srv, name).read_text()))
    except (FileNotFoundError, ValueError, TypeError):
        return None


def _save_record(srv: PrivateServer, name: str, rec: RunRecord) -> None:
    tmp = record_path(srv, name).with_suffix(".tmp")
    write_private(tmp, json.dumps(asdict(rec)))
    tmp.replace(record_path(srv, name))


def _ensure_shell(srv: PrivateServer, name: str) -> tuple[Shell, Mark | None]:
    """The session's shell at its prompt: created, or respawned if it exited."""
    shell = srv.shell(name)
    if shell is None or not srv.exists(name):
        shell = srv.create(name)
    mark = markers.last_mark(shell.log_path, shell.nonce)
    if (mark is not None and mark.kind == "X") or pane_dead(srv, name):
        srv.respawn(shell, mark.cwd if mark else None)
        mark = markers.last_mark(shell.log_path, shell.nonce)
    if shell.program not in (None, "bash") and mark is not None and mark.kind == "E":
        srv.set_program(name, None)  # the program ended: the shell is back
        shell = srv.shell(name) or shell
    return shell, mark


def pane_dead(srv: PrivateServer, name: str) -> bool:
    """Has the session's shell itself died (killed, crashed) - remain-on-exit keeps the pane?"""
    try:
        return srv.tmux.display(f"={name}:", "#{pane_dead}") == "1"
    except (NoServer, NoTarget):
        return False


def run(
    srv: PrivateServer,
    name: str,
    command: str,
    timeout: float,
    on_slice: Callable[[], Result | None] | None = None,
) -> Result:
    """Run ``command`` in private session ``name`` and report how it ended."""
    command = command.rstrip("\n")
    try:
        shell, mark = _ensure_shell(srv, name)
    except (NoServer, NoTarget):
        shell, mark = _ensure_shell(srv, name)  # the server died between two calls: once more
    if shell.program not in (None, "bash"):
        return failure(
            "run", f"session {name!r} runs {shell.program}, not a shell prompt",
            session=name, status="unknown",
            hint=f"use ask or send for {shell.program}, or run without a session to use the scratch shell",
        )
    if mark is not None and mark.kind == "S":
        rec = load_record(srv, name)
        what = f"`{_short(rec.command)}` (started {time.time() - rec.started:.0f}s ago)" if rec else "a command"
        return failure(
            "run", f"session {name!r} is still running {what}",
            session=name, status="busy",
            hint=message("session_busy_hint"),
        )
    log = shell.log_path
    size = log.stat().st_size if log.exists() else 0
    if size > LOG_ROTATE:
        os.truncate(log, 0)  # pipe-pane appends (O_APPEND): the next bytes land at 0
        size = 0
    run_id = secrets.token_hex(4)
    rec = RunRecord(id=run_id, command=command, offset=size, started=time.time(),
                    channel=f"{shell.channel}-{run_id}")
    _save_record(srv, name, rec)
    shell.arm(rec.channel)
    buf = f"tt-{os.getpid()}-{rec.id}"
    srv.tmux.chain(
        ["send-keys", "-t", f"={name}:", "C-u"],
        ["load-buffer", "-b", buf, "-"],
        ["paste-buffer", "-p", "-d", "-b", buf, "-t", f"={name}:"],
        ["send-keys", "-t", f"={name}:", "Enter"],
        input=command.encode("utf-8", "surrogateescape"),
    )
    return collect(srv, shell, rec, timeout, action="run", on_slice=on_slice, recheck=False)


def _end_after(data: bytes, nonce: str, base: int) -> tuple[Mark | None, Mark | None]:
    """The first start marker and the first end marker of the run in ``data``."""
    start = end = None
    for m in markers.scan(data, nonce, base):
        if m.kind == "S" and start is None:
            start = m
        elif m.kind in "EX":
            end = m
            break
    return start, end


def collect(
    srv: PrivateServer,
    shell: Shell,
    rec: RunRecord,
    timeout: float,
    *,
    action: str,
    on_slice: Callable[[], Result | None] | None = None,
    recheck: bool = True,
) -> Result:
    """Wait up to ``timeout`` for the run to end, then shape its result.

    ``on_slice`` is asked after every quiet second; a result from it (the
    command is asking a question, say) ends the wait early.
    """
    deadline = time.monotonic() + max(0.0, timeout)
    log = shell.log_path

    def ended() -> Mark | None:
        return _end_after(markers.read_from(log, rec.offset), shell.nonce, rec.offset)[1]

    # The run's own channel is signalled exactly when its prompt (or the
    # shell's exit) comes back.  One waiter stays registered for the whole
    # wait; every quiet second the log and the pane are checked as well.
    end = ended() if recheck else None
    waiter = srv.tmux.waiter(rec.channel) if end is None else None
    try:
        while end is None and waiter is not None:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                end = ended()
                break
            signalled = waiter.wait(min(remaining, SLICE))
            if signalled:
                settle_log(shell, lambda _m: ended() is not None, budget=0.5)
            end = ended()
            if end is not None:
                break
            if signalled:  # a stray signal: listen again
                waiter.close()
                waiter = srv.tmux.waiter(rec.channel)
                continue
            if not srv.exists(shell.name):
                return failure(action, f"session {shell.name!r} was closed while the command ran",
                               session=shell.name, hint="run the command again in a new session")
            if pane_dead(srv, shell.name):
                return failure(action, f"the shell of session {shell.name!r} died while the command ran "
                               "(killed or crashed)", session=shell.name,
                               hint="run the command again; the session gets a fresh shell")
            early = on_slice() if on_slice else None
            if early is not None:
                return early
    except NoServer:
        return failure(action, "the private tmux server stopped while the command ran",
                       session=shell.name,
                       hint="run the command again; a new server and shell start by themselves")
    finally:
        if waiter is not None:
            waiter.close()
    if end is not None:
        shell.arm(shell.channel)
        if not rec.collected:
            _save_record(srv, shell.name, RunRecord(**{**asdict(rec), "collected": True}))
    data = markers.read_from(log, rec.offset)
    start, end = _end_after(data, shell.nonce, rec.offset)
    body_from = (start.end if start else (end.start if end else len(data) + rec.offset)) - rec.offset
    body_to = (end.start - rec.offset) if end else len(data)
    raw = markers.strip_marks(data[body_from:body_to], shell.nonce)
    text, extra = render_output(srv, shell.name, rec.id, raw)
    if end is None:
        return Result(
            action=action, session=shell.name, status="busy", output=text,
            hint=message("busy_after_timeout", timeout=f"{timeout:g}"),
            extra={"command": rec.command, **extra},
        )
    extra["cwd"] = end.cwd
    hint = None
    if end.kind == "X":
        hint = message("shell_exited")
    return Result(action=action, session=shell.name, status="ready", exit_code=end.exit_code,
                  output=text, hint=hint, extra={"command": rec.command, **extra})


def render_output(srv: PrivateServer, name: str, run_id: str, raw: bytes) -> tuple[str, dict]:
    """Render raw output as a human saw it; cap it, saving the whole to a file.

    Rendering goes through the terminal emulator so progress bars and cursor
    motion collapse to what was finally shown.  Its cost is bounded: beyond
    ``RENDER_LIMIT`` bytes only the head and tail are emulated and the full
    text is saved by the cheap cleaner.
    """
    width = srv.cfg.width
    plain = _plain(raw)
    if plain is not None:
        text = full = plain
    elif len(raw) <= 2 * RENDER_LIMIT:
        text = screen.render_transcript(raw, width)
        full = text
    else:
        cut = len(raw) - 2 * RENDER_LIMIT
        text = (screen.render_transcript(raw[:RENDER_LIMIT], width)
                + f"\n[... {cut} bytes of output not shown ...]\n"
                + screen.render_transcript(raw[-RENDER_LIMIT:], width))
        full = screen.quick_clean(raw)
    cap = srv.cfg.output_cap
    if len(text) <= cap and full is text:
        return text, {}
    out_dir = private_path(srv.dir / "outputs")
    path = out_dir / f"{name}-{run_id}.txt"
    write_private(path, masking.mask(full) or "", errors="replace")
    _prune(out_dir, name)
    return cap_text(text, cap, str(path)), {"output_file": str(path), "output_chars": len(full)}


_NOT_PLAIN = re.compile(rb"[\x00-\x08\x0b-\x0c\x0e-\x1f\x7f]|\r(?!\n)")


def _plain(raw: bytes) -> str | None:
    """The text of output that needs no terminal emulation, else None.

    Most command output is lines of plain text; emulating it costs seconds per
    megabyte for nothing.  Anything with an escape sequence, a bare carriage
    return, a backspace or another control byte goes through the emulator.
    """
    if _NOT_PLAIN.search(raw):
        return None
    text = raw.decode("utf-8", "replace").replace("\r\n", "\n")
    return "\n".join(line.rstrip() for line in text.rstrip().split("\n")) if text.strip() else ""


def cap_text(text: str, cap: int, where: str) -> str:
    """Keep the head and tail of ``text`` within ``cap`` characters, on line breaks."""
    if len(text) <= cap:
        return text
    head_len, tail_len = int(cap * 0.4), int(cap * 0.6)
    head = text[:head_len]
    head = head[: head.rfind("\n") + 1] or head
    tail = text[-tail_len:]
    tail = tail[tail.find("\n") + 1 :] or tail
    cut = len(text) - len(head) - len(tail)
    lines = text.count("\n", len(head), len(text) - len(tail))
    return f"{head}[... {cut} characters ({lines} lines) cut; full output in {where} ...]\n{tail}"


def _prune(out_dir: Path, name: str) -> None:
    files = sorted(out_dir.glob(f"{name}-*.txt"), key=lambda p: p.stat().st_mtime)
    for old in files[:-KEEP_OUTPUTS]:
        old.unlink(missing_ok=True)


def _short(command: str, limit: int = 80) -> str:
    one = " ".join(command.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"
