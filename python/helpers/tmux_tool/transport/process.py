"""Starting the programs the tool runs: tmux, ssh, a container engine, a log follower.

Every process is started here, with ``posix_spawn`` and its standard files
given as descriptors of ours (a pipe's end) or ``/dev/null``.  The command
line runs a few tmux processes per call, and would otherwise spend more
importing ``subprocess`` than running them.  A process is ended only by the
PID it was started with.
"""

from __future__ import annotations

import contextlib
import os
import select
import shutil
import signal
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

    What ``subprocess.run`` does, with pipes read by one ``select`` loop.  A
    process still running at ``timeout`` is killed (our own child, by PID) and
    :class:`TimeoutError` raised; a process that cannot start raises
    :class:`OSError`.
    """
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    try:
        pid = spawn(argv, stdin=in_r, stdout=out_w, stderr=err_w, file=file)
    except OSError:
        for fd in (in_w, out_r, err_r):
            os.close(fd)
        raise
    finally:
        for fd in (in_r, out_w, err_w):
            os.close(fd)
    outputs = {out_r: bytearray(), err_r: bytearray()}
    reading = dict(outputs)
    todo = memoryview(data)
    if not todo:
        os.close(in_w)
        in_w = -1
    else:
        os.set_blocking(in_w, False)
    deadline = Deadline(timeout)
    try:
        while reading or in_w >= 0:
            left = deadline.left()
            if left <= 0:
                raise TimeoutError
            readable, writable, _ = select.select(
                list(reading), [in_w] if in_w >= 0 else [], [], left
            )
            for fd in readable:
                chunk = os.read(fd, 1 << 16)
                if chunk:
                    reading[fd] += chunk
                else:
                    del reading[fd]
            if writable:
                try:
                    todo = todo[os.write(in_w, todo):]
                except BlockingIOError:
                    continue
                except BrokenPipeError:
                    todo = todo[:0]
                if not todo:
                    os.close(in_w)
                    in_w = -1
        while (done := os.waitpid(pid, os.WNOHANG))[0] == 0:  # it closed its outputs: it is ending
            if deadline.passed:
                raise TimeoutError
            time.sleep(0.0005)
    except BaseException:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    finally:
        for fd in (in_w, out_r, err_r):
            if fd >= 0:
                os.close(fd)
    return os.waitstatus_to_exitcode(done[1]), bytes(outputs[out_r]), bytes(outputs[err_r])
