"""Starting the programs the tool runs: tmux, ssh, a container engine, a log follower.

Every process is started here.  One that is run to its end and read
(:func:`run`) goes through ``subprocess``: a hand-made ``posix_spawn`` and
``select`` loop measured no faster (``bench/cold_bench.py``), and every
action loads ``subprocess`` anyway (pyte's ``wcwidth`` does).  One that
lives on beside the tool (a control-mode client, a log follower) is started
by :func:`spawn` with its standard files given as descriptors of ours, and
is known by its PID: it is ended only by that PID.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import time
from collections.abc import Mapping, Sequence

from ..core import trace
from ..core.clock import Deadline
from ..core.errors import TmuxError


def program(name: str) -> str:
    """The file of a program named by path or found on ``PATH`` (``ssh``, ``podman``)."""
    if "/" in name:
        return name
    found = shutil.which(name)
    if found is None:
        raise TmuxError(f"{name} is not installed here; install it to reach that host")
    return found


def spawn(
    argv: Sequence[str],
    *,
    stdin: int | None = None,
    stdout: int | None = None,
    stderr: int | None = None,
    env: Mapping[str, str] | None = None,
    file: str | None = None,
) -> int:
    """Start ``argv`` (the file ``file``, else ``argv[0]`` as given) with these descriptors as its
    standard input, output and error (None: ``/dev/null``); its PID.  :class:`OSError` when it
    cannot start."""
    actions: list[tuple[int, ...] | tuple[int, int, str, int, int]] = []
    for fd, target, flags in (
        (stdin, 0, os.O_RDONLY),
        (stdout, 1, os.O_WRONLY),
        (stderr, 2, os.O_WRONLY),
    ):
        actions.append((os.POSIX_SPAWN_DUP2, fd, target) if fd is not None
                       else (os.POSIX_SPAWN_OPEN, target, os.devnull, flags, 0))
    return os.posix_spawn(
        file or argv[0], list(argv), os.environ if env is None else env, file_actions=actions
    )


def ended(pid: int) -> bool:
    """Has our child ``pid`` ended (and is it reaped now if it has)?"""
    try:
        return os.waitpid(pid, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return True


def end(pid: int, grace: float) -> None:
    """Wait up to ``grace`` seconds for our child ``pid`` to exit, then kill it by its PID; reaped
    either way."""
    deadline = Deadline(grace)
    while not ended(pid):
        if deadline.passed:
            os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            return
        time.sleep(0.005)


def run(
    argv: Sequence[str], data: bytes, timeout: float, file: str | None = None
) -> tuple[int, bytes, bytes]:
    """:func:`_run`, traced when a trace is asked for (:mod:`..core.trace`)."""
    if not trace.on():
        return _run(argv, data, timeout, file)
    begun = time.monotonic()
    try:
        status, out, err = _run(argv, data, timeout, file)
    except (OSError, TimeoutError) as exc:
        trace.event("process", argv=list(argv), seconds=time.monotonic() - begun, error=repr(exc))
        raise
    trace.event(
        "process",
        argv=list(argv),
        stdin=data.decode("utf-8", "replace"),
        status=status,
        seconds=round(time.monotonic() - begun, 6),
        out=len(out),
        err=err.decode("utf-8", "replace"),
    )
    return status, out, err


def _run(
    argv: Sequence[str], data: bytes, timeout: float, file: str | None
) -> tuple[int, bytes, bytes]:
    """Run ``argv`` with ``data`` on its stdin; its exit status, stdout and stderr.

    A process still running at ``timeout`` is killed (our own child) and
    :class:`TimeoutError` raised; a process that cannot start raises
    :class:`OSError`.
    """
    try:
        done = subprocess.run(list(argv), input=data, capture_output=True, timeout=timeout,
                              executable=file, check=False)
    except subprocess.TimeoutExpired as exc:
        raise TimeoutError(f"{argv[0]} did not end within {timeout:g}s") from exc
    return done.returncode, done.stdout, done.stderr
