"""A pane log on another host, copied here as it grows, so that runs there are read as runs here
are.

A private shell on a host logs its pane there (``pipe-pane``), and that log is
the record of every run: its marks, its output, its exit code.  This module
keeps a byte-exact copy of it in this machine's state folder: one follower
per log, a ``tail -c +N -f`` over the host's connection, writes what it reads
at the offset it belongs to.  Everything that reads a log (the marks, a run's
output) then reads the copy, unchanged; the follower's arrival of new bytes
is the event a waiting run wakes on.

* **Caught up**: a follower first says how long the log is, so the first
  look after it starts waits for the copy to reach that size: nothing
  written before the look is missed.
* **Dropped connection**: the follower ends with the connection; the next
  wait starts one again from the copy's length (the log on the host is
  whole: the command ran on inside tmux), so the copy stays exact.
* **Kept**: a follower outlives its wait by :data:`LINGER` seconds (at most
  :data:`KEPT` per host), so consecutive runs start nothing; they are ended
  by PID when this process exits.
* **Within sshd's channels**: sshd allows ten channels per connection
  (``MaxSessions``); a host has at most :data:`FOLLOWERS` followers, and a
  wait beyond them fetches the log every :data:`POLL` seconds over a short
  channel instead (``hosts.CHANNELS`` bounds what this process opens).
* Two processes following the same log write the same bytes at the same
  offsets: the copy stays right.
"""

from __future__ import annotations

import atexit
import os
import shlex
import threading
import time
from pathlib import Path
from typing import Self

from ..core.clock import Deadline
from ..core.errors import TmuxError
from .hosts import Host, HostError, end_followers
from .process import program, spawn

LINGER = 60.0
KEPT = 2  # idle followers kept per host: each holds a channel (see hosts.CHANNELS)
FOLLOWERS = 4  # followers per host at once; further waits fetch the log every POLL seconds
POLL = 0.1
CATCH_UP = 10.0  # seconds for a new follower to copy what the log already holds, at most


class _Follower:
    """One ``tail -f`` of a log on a host, copying into a file here."""

    def __init__(self, host: Host, far: str, copy: Path, deadline: Deadline) -> None:
        self.host, self.far, self.copy = host, far, copy
        self._channel = host.channel(deadline)
        self._channel.__enter__()  # held until the follower ends (released by its reader)
        self.cond = threading.Condition()
        self.size = self.start = copy.stat().st_size if copy.exists() else 0
        self.target = -1  # the log's length when the follower started: caught up at it
        self.alive = True
        self.users = 0
        self.last_used = time.monotonic()
        script = (f"f={shlex.quote(far)}; [ -f \"$f\" ] || exit 3; wc -c < \"$f\"; "
                  f"exec tail -c +{self.size + 1} -f -- \"$f\"")
        argv = host.argv(script)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        try:
            self.pid = spawn(argv, stdout=out_w, stderr=err_w, file=program(argv[0]))
        except OSError as exc:
            for fd in (out_r, err_r):
                os.close(fd)
            self._channel.__exit__(None, None, None)
            raise HostError(
                f"could not follow the log on {host.name}: {exc.strerror or exc}"
            ) from exc
        finally:
            os.close(out_w)
            os.close(err_w)
        self.said = b""
        self._err = err_r
        threading.Thread(
            target=self._read,
            args=(out_r,),
            name=f"tmux-tool-follow-{copy.parent.name}",
            daemon=True,
        ).start()

    def _read(self, fd: int) -> None:
        """Copy the follower's output into the file, at the offset each byte belongs to."""
        head = b""
        copy = os.open(self.copy, os.O_WRONLY | os.O_CREAT, 0o600)
        try:
            while chunk := os.read(fd, 1 << 16):
                if self.target < 0:
                    head += chunk
                    if b"\n" not in head:
                        continue
                    line, _, chunk = head.partition(b"\n")
                    with self.cond:
                        self.target = int(line.strip() or b"0")
                        self.cond.notify_all()
                if chunk:
                    os.pwrite(copy, chunk, self.size)
                    with self.cond:
                        self.size += len(chunk)
                        self.cond.notify_all()
        except (OSError, ValueError):
            pass
        finally:
            os.close(copy)
            os.close(fd)
            try:
                self.said = os.read(self._err, 4096)
            except OSError:
                pass
            os.close(self._err)
            self._channel.__exit__(None, None, None)
            with self.cond:
                self.alive = False
                self.cond.notify_all()

    def end(self) -> None:
        if self.alive:
            end_followers([self.pid])
        else:
            try:
                os.waitpid(self.pid, 0)
            except ChildProcessError:
                pass


_followers: dict[tuple[str, str], _Follower] = {}
_lock = threading.Lock()


def _acquire(host: Host, far: str, copy: Path, deadline: Deadline) -> _Follower | None:
    """The live follower of this log, started now if there is none (a dropped one is started again);
    None when this host has ``FOLLOWERS`` already or no channel is free: the log is fetched
    instead."""
    host.ensure(deadline)
    key = (host.name, far)
    with _lock:
        found = _followers.get(key)
        if found is not None and found.alive:
            found.users += 1
            return found
        if found is not None:
            del _followers[key]
            found.end()
        _retire(host)
        if sum(f.host.name == host.name for f in _followers.values()) >= FOLLOWERS:
            return None
        try:
            found = _followers[key] = _Follower(host, far, copy, Deadline(0))
        except TimeoutError:
            return None
        found.users += 1
        return found


def _retire(host: Host) -> None:
    """End followers nobody waits on: those idle past ``LINGER``, the oldest beyond ``KEPT`` per
    host, and one more when the host has ``FOLLOWERS`` (a new wait needs its place)."""
    now = time.monotonic()
    idle = sorted((f for f in _followers.values() if f.users == 0), key=lambda f: f.last_used)
    mine = [f for f in idle if f.host.name == host.name]
    busy = sum(f.host.name == host.name for f in _followers.values())
    extra = max(len(mine) - KEPT + 1, busy - FOLLOWERS + 1, 0)
    for f in [f for f in idle if now - f.last_used > LINGER] + mine[:extra]:
        if _followers.get((f.host.name, f.far)) is f:
            del _followers[(f.host.name, f.far)]
            f.end()


@atexit.register
def _end_all() -> None:
    with _lock:
        for f in _followers.values():
            f.end()
        _followers.clear()


def forget(host: Host, far: str) -> None:
    """Stop following a log (it was emptied or removed there)."""
    with _lock:
        found = _followers.pop((host.name, far), None)
    if found is not None:
        found.end()


class Mirror:
    """Wait for a log on a host to grow, reading it from its copy here (a context manager, like
    LogWatch).

    With a follower the wait is an event; without one (the host has ``FOLLOWERS`` waits already) the
    log is fetched every ``POLL`` seconds over a channel of its own.
    """

    def __init__(self, host: Host, far: str, copy: Path, deadline: Deadline | None = None) -> None:
        self.host, self.far, self.copy = host, far, copy
        deadline = deadline or Deadline(CATCH_UP)
        self._follower = _acquire(host, far, copy, deadline)
        self._seen = -1
        try:
            self.catch_up(deadline)
        except BaseException:
            self._release()
            raise

    def catch_up(self, deadline: Deadline) -> None:
        """Wait until the copy holds everything the log held when its follower started (or now).

        A log shorter than the copy was emptied or made anew there: the copy
        starts again from nothing.
        """
        while (f := self._follower) is not None:
            with f.cond:
                while (
                    f.alive
                    and (f.target < 0 or f.size < f.target)
                    and (left := deadline.left()) > 0
                ):
                    f.cond.wait(left)
                caught, shorter = f.target >= 0 and f.size >= f.target, 0 <= f.target < f.start
            if caught and not shorter:
                self._seen = f.size
                return
            if shorter:
                forget(self.host, self.far)
                os.truncate(self.copy, 0)
            elif not f.alive and not self.host.refused(f.said):
                raise HostError(self._why(f.said))
            elif f.alive:
                raise HostError(f"the log of a session on {self.host.name} did not arrive in time; "
                                "the connection may be slow: try again")
            self._swap(deadline)
        self._fetch(deadline)

    def _fetch(self, deadline: Deadline) -> bool:
        """Copy what the log holds beyond the copy, with one command there; whether anything
        came."""
        size = self.copy.stat().st_size if self.copy.exists() else 0
        script = (f"f={shlex.quote(self.far)}; [ -f \"$f\" ] || exit 3; wc -c < \"$f\"; "
                  f"exec tail -c +{size + 1} -- \"$f\"")
        try:
            status, out, err = self.host.call(script, b"", max(0.1, deadline.left()))
        except TimeoutError as exc:
            raise HostError(
                f"{self.host.name} did not answer in time; the next call connects again"
            ) from exc
        except OSError as exc:
            raise HostError(f"could not reach {self.host.name}: {exc.strerror or exc}") from exc
        head, _, data = out.partition(b"\n")
        if status != 0 or not head.strip().isdigit():
            raise HostError(self._why(err or b"the log is gone"))
        if int(head) < size:  # emptied or made anew there
            os.truncate(self.copy, 0)
            return self._fetch(deadline)
        if data:
            fd = os.open(self.copy, os.O_WRONLY | os.O_CREAT, 0o600)
            try:
                os.pwrite(fd, data, size)
            finally:
                os.close(fd)
        self._seen = size + len(data)
        return bool(data)

    def _why(self, said_bytes: bytes) -> str:
        said = said_bytes.decode("utf-8", "replace").strip()
        if "tail" in said or "No such file" in said or "log is gone" in said:
            return (f"the log of a session on {self.host.name} is gone ({said}); kill the session "
                    "to start afresh")
        return self.host.says(said, 255) if said else f"the connection to {self.host.name} was lost"

    def wait(self, timeout: float) -> bool:
        """Sleep until the copy grows, or at most ``timeout``; False if nothing arrived.

        A follower that ended (the connection dropped) is started again;
        while that cannot be done, the wait sleeps a moment and says nothing
        arrived, so the caller's own look at the session reports the host.
        """
        deadline = Deadline(timeout)
        try:
            if self._follower is None or not self._follower.alive:
                self._swap(deadline)
                if self._follower is None:
                    deadline.sleep(POLL)
                    return self._fetch(deadline)
                self.catch_up(deadline)
        except TmuxError:
            deadline.sleep(0.1)  # the caller looks at the session meanwhile, and says what is wrong
            return False
        f = self._follower
        assert f is not None
        with f.cond:
            while f.size == self._seen and f.alive and (left := deadline.left()) > 0:
                f.cond.wait(left)
            grew = f.size != self._seen
            self._seen = f.size
        return grew

    def _swap(self, deadline: Deadline) -> None:
        """Follow again, with a live follower if one can be had."""
        self._release()
        self._follower = _acquire(self.host, self.far, self.copy, deadline)

    def _release(self) -> None:
        with _lock:
            if self._follower is not None:
                self._follower.users -= 1
                self._follower.last_used = time.monotonic()
                self._follower = None

    def close(self) -> None:
        self._release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
