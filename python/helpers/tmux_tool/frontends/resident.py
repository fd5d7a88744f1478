"""The resident process: answers command-line calls with the library loaded and tmux connected.

A command-line call costs a Python start, the imports its action needs and a
tmux process per command; a process that stays pays the imports once and
keeps one control-mode connection per server (:mod:`..transport.connection`),
so a call costs what it costs inside Agent Zero or the MCP server.  The
command line (:mod:`.relay`) starts one on demand; it lives as long as it is
used and no longer:

* it answers only callers of its own identity (library, interpreter, working
  directory, environment; see :mod:`.relay`) and user, on the abstract socket
  named after that identity;
* it leaves when it has had no call for its idle time (``TMUX_TOOL_RESIDENT``
  seconds, default 300), when its library's code changes on disk (a call
  that finds the code changed is declined and runs in its caller), on
  ``stop`` and on SIGTERM or SIGINT; a leaving resident stops listening
  first, so a new caller starts a new one, and lets the calls under way finish;
* it is detached (own session, ``/dev/null`` for stdio) and passes no
  descriptor to the tmux processes it starts; its control-mode clients end
  with it.

Each call runs in a thread of its own, as in the MCP server, so a long
``wait`` never holds up another call.  Run as
``python -m python.helpers.tmux_tool.frontends.resident ADDRESS`` by the
relay only.
"""

from __future__ import annotations

import os
import select
import signal
import socket
import sys
import threading
import time
import traceback
from concurrent.futures import ThreadPoolExecutor
from importlib import import_module
from pathlib import Path

from . import cli, relay

TICK = 1.0  # seconds between two checks for idleness and changed code
READ_TIMEOUT = 10.0  # a caller has this long to send its request and read its answer
MAX_REQUEST = 8 << 20
MAX_CALLS = 256  # calls answered at once (a thread each; a thread is kept for the next call)


def code_stamp(root: Path) -> frozenset[tuple[str, int, int]]:
    """Every module and profile data file of the library with its modification time and size:
    changes when the code or a program's profile does."""
    found = set()
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != "__pycache__"]
        for name in files:
            if name.endswith((".py", ".toml")):
                path = os.path.join(folder, name)
                try:
                    st = os.stat(path)
                except OSError:
                    continue
                found.add((path, st.st_mtime_ns, st.st_size))
    return frozenset(found)


def preload(root: Path, package: str) -> None:
    """Import the library's layers now, so that no call pays for an import (the front ends
    aside)."""
    for path in sorted(root.rglob("*.py")):
        rel = path.relative_to(root).with_suffix("")
        if rel.parts[0] == "frontends" or rel.name == "__main__":
            continue
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        import_module(".".join((package, *parts)))


class Resident:
    """The listening socket, the calls under way, and when to leave."""

    def __init__(
        self, listener: socket.socket, ident: list[bytes], idle: float, root: Path
    ) -> None:
        self.listener = listener
        self.ident = ident
        self.idle = idle
        self.root = root
        self.stamp = code_stamp(root)
        self.cond = threading.Condition()
        self.busy = 0
        self.calls = 0
        self.last = time.monotonic()
        self.leaving = False
        self._wake_r, self._wake_w = os.pipe()

    def leave(self) -> None:
        """Stop taking calls (the main loop wakes at once); calls under way finish."""
        self.leaving = True
        os.write(self._wake_w, b"x")

    def serve(self) -> None:
        """Accept calls until it is time to leave; then let the calls under way finish."""
        # Threads are kept for later calls: a thread's inotify instance (transport.logwatch) lives
        # with it.
        workers = ThreadPoolExecutor(MAX_CALLS, thread_name_prefix="call")
        try:
            next_check = time.monotonic() + TICK
            while not self.leaving:
                ready = select.select([self.listener, self._wake_r], [], [], TICK)[0]
                if self.listener in ready and not self.leaving:
                    conn, _ = self.listener.accept()
                    workers.submit(self.handle, conn)
                if time.monotonic() >= next_check:
                    self.check()
                    next_check = time.monotonic() + TICK
        finally:
            self.listener.close()
            workers.shutdown(wait=False)
        with self.cond:
            while self.busy:
                self.cond.wait()

    def check(self) -> None:
        """Leave when idle for long enough or when the code on disk is not the code running."""
        with self.cond:
            idle = not self.busy and time.monotonic() - self.last >= self.idle
        if idle or code_stamp(self.root) != self.stamp:
            self.leave()

    def handle(self, conn: socket.socket) -> None:
        with conn:
            try:
                conn.settimeout(READ_TIMEOUT)
                if relay.same_user(conn):
                    self.answer(conn, self.read(conn))
            except OSError:
                pass  # the caller went away; it answers for itself or reports it

    @staticmethod
    def read(conn: socket.socket) -> list[bytes] | None:
        chunks, size = [], 0
        while chunk := conn.recv(65536):
            chunks.append(chunk)
            size += len(chunk)
            if size > MAX_REQUEST:
                return None
        return relay.decode(b"".join(chunks))

    def answer(self, conn: socket.socket, fields: list[bytes] | None) -> None:
        if not fields or b"" not in fields:
            return
        end = fields.index(b"")
        kind, ident, argv = fields[0], fields[1:end], [os.fsdecode(a) for a in fields[end + 1:]]
        if ident != self.ident:
            conn.sendall(b"no\n")
            return
        if kind in (b"ping", b"stop"):
            # Leaving is decided before the answer goes out: the caller may ping again at once.
            if kind == b"stop":
                self.leave()
            elif self.leaving:
                conn.sendall(b"no\n")
                return
            conn.sendall(b"pid %d calls %d\n" % (os.getpid(), self.calls))
            return
        if kind != b"call":
            return
        if code_stamp(self.root) != self.stamp:
            self.leave()
        with self.cond:
            if self.leaving:
                conn.sendall(b"no\n")
                return
            self.busy += 1
            self.calls += 1
        try:
            conn.sendall(b"go\n")
            conn.sendall(self.run(argv))
        finally:
            with self.cond:
                self.busy -= 1
                self.last = time.monotonic()
                self.cond.notify_all()

    @staticmethod
    def run(argv: list[str]) -> bytes:
        """The exit status, stdout and stderr of ``argv``, as the command line would print them."""
        try:
            code, out, err = cli.answer(argv)
        except Exception:  # noqa: BLE001
            # answer with what an uncaught error prints in a process of its own
            code, out, err = 1, "", traceback.format_exc()
        out_b = out.encode(sys.stdout.encoding or "utf-8", sys.stdout.errors or "strict")
        err_b = err.encode(sys.stderr.encoding or "utf-8", "backslashreplace")
        return b"%d %d %d\n" % (code, len(out_b), len(err_b)) + out_b + err_b


def _leave(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main(argv: list[str]) -> int:
    """Serve the identity named by ``argv[0]`` (the caller's), unless it is not this process's
    own."""
    ident = relay.identity()
    where = relay.address(ident)
    idle = relay.idle_seconds()
    if argv[:1] != [where[1:].decode()] or idle is None:
        # started for another identity (the caller's Python imports another library): serve nobody
        return 2
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(where)
    except OSError:
        return 0  # another resident serves this identity already
    listener.listen(64)
    signal.signal(signal.SIGTERM, _leave)
    signal.signal(signal.SIGINT, _leave)
    root = Path(relay.library_dir())
    preload(root, __package__.rpartition(".")[0] if __package__ else "")
    Resident(listener, ident, idle, root).serve()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
