"""Run a program behind a link that hands its output on in pieces.

Usage: ``choppy_link.py CUT STALL PROGRAM [ARG...]``.  The program runs in a
pseudo-terminal of its own; what it writes reaches this terminal cut right
after every occurrence of the text CUT, with STALL seconds between the
pieces.  A terminal behind a slow ssh link or a loaded machine sees the same
thing: a frame half drawn, its new rows begun over the old ones.  Keys typed
here go on to the program unchanged, and a resize of this terminal is passed
on to the program's.  :func:`install` puts such a link in front of a
program under the program's own name, so that tmux names the pane after it.
"""

from __future__ import annotations

import fcntl
import os
import pty
import select
import shlex
import signal
import sys
import termios
import time
import tty
from pathlib import Path

PYTHON_HOME = "PYTHONHOME"


def install(directory: Path, name: str, program: str, cut: str, stall: float) -> Path:
    """An executable ``directory/name`` that runs ``program`` behind the link.

    It runs the link as ``name`` (``exec -a``): tmux names a pane after its foreground
    command's first word.  Python finds its own files from that first word unless told
    where they are (``PYTHONHOME``), and would take ``node`` on the PATH for itself."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    here = f"{PYTHON_HOME}={shlex.quote(sys.base_prefix)}"  # an assignment: only its value is quoted
    line = shlex.join(["exec", "-a", name, os.path.realpath(sys.executable), str(Path(__file__).resolve()), cut,
                       str(stall), program])
    path.write_text(f'#!/bin/bash\n{here} {line} "$@"\n')
    path.chmod(0o755)
    return path


def _copy_size(to_fd: int) -> None:
    size = fcntl.ioctl(sys.stdin.fileno(), termios.TIOCGWINSZ, b"\0" * 8)
    fcntl.ioctl(to_fd, termios.TIOCSWINSZ, size)


def _deliver(data: bytes, cut: bytes, stall: float) -> None:
    """Write ``data`` to this terminal, stalling after each ``cut`` in it."""
    pieces = data.split(cut)
    for i, piece in enumerate(pieces):
        last = i == len(pieces) - 1
        os.write(sys.stdout.fileno(), piece if last else piece + cut)
        if not last:
            time.sleep(stall)


def main(argv: list[str]) -> int:
    cut, stall, command = argv[1].encode(), float(argv[2]), argv[3:]
    pid, fd = pty.fork()
    if pid == 0:
        os.environ.pop(PYTHON_HOME, None)  # the program finds its own files, as it would without the link
        os.execvp(command[0], command)
    _copy_size(fd)
    signal.signal(signal.SIGWINCH, lambda *_: _copy_size(fd))
    saved = termios.tcgetattr(sys.stdin.fileno())
    tty.setraw(sys.stdin.fileno())
    try:
        while True:
            try:
                ready, _, _ = select.select([sys.stdin.fileno(), fd], [], [])
            except InterruptedError:
                continue
            if sys.stdin.fileno() in ready:
                os.write(fd, os.read(sys.stdin.fileno(), 65536))
            if fd in ready:
                try:
                    data = os.read(fd, 65536)
                except OSError:  # the program closed its terminal
                    break
                if not data:
                    break
                _deliver(data, cut, stall)
    finally:
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSAFLUSH, saved)
    return os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])


if __name__ == "__main__":
    sys.exit(main(sys.argv))
