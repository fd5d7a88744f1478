"""The command line's short way: hand the call to this user's resident process.

A command-line call is a new Python process; importing the library and
starting tmux processes cost it several times what the action itself costs in
a process that lives on (see :mod:`.resident`).  So the command line first
asks a resident process that already holds the library and its tmux
connections, and prints its answer; when there is none it runs the action
itself and starts one for the next call.

The resident process is exactly the caller's: it serves only callers with
the same library, interpreter, working directory and environment (but for
``PWD``, ``OLDPWD``, ``SHLVL`` and ``_``, which shells change as they go), so the action sees
everything the caller's own process would, down to the secrets masking reads
from the environment.  Its address is an abstract Unix socket (Linux) named
after that identity: no file to leave behind, bound by one process at a time,
and both ends check that the other runs as the same user.

This module is on every command-line call's path, so it imports only what a
bare interpreter has loaded already, plus ``_socket`` and ``zlib`` (C
modules).
"""

from __future__ import annotations

import _socket
import os
import sys
import zlib

TYPE_CHECKING = False  # typing's, without importing typing
if TYPE_CHECKING:
    from collections.abc import Mapping

SWITCH = "TMUX_TOOL_RESIDENT"
"""``off``: every call runs in its own process; a number: the resident's idle seconds."""
IDLE = 300.0
"""Seconds a resident process stays after its last call (``TMUX_TOOL_RESIDENT`` overrides)."""
PROTOCOL = b"tmux-tool-resident 1"
_VOLATILE = (b"PWD=", b"OLDPWD=", b"SHLVL=", b"_=")  # environment entries shells change as they go
_CRED = 12  # struct ucred: pid, uid, gid


def library_dir() -> str:
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def identity(env: Mapping[str, str] | None = None, cwd: str | None = None) -> list[bytes]:
    """What a resident process must share with a caller (this process, unless told) to answer for
    it."""
    pairs = (
        os.environb.items()
        if env is None
        else ((os.fsencode(k), os.fsencode(v)) for k, v in env.items())
    )
    entries = sorted(k + b"=" + v for k, v in pairs)
    return [
        PROTOCOL,
        os.fsencode(library_dir()),
        os.fsencode(sys.executable),
        os.fsencode(cwd or os.getcwd()),
        *(e for e in entries if not e.startswith(_VOLATILE)),
    ]


def address(ident: list[bytes]) -> bytes:
    """The abstract socket name of the resident process for ``ident``."""
    return b"\0tmux-tool-%d-%08x" % (os.getuid(), zlib.crc32(b"\0".join(ident)))


def idle_seconds() -> float | None:
    """How long a resident stays after its last call; None when none is wanted."""
    raw = os.environ.get(SWITCH, "").strip().lower()
    if raw in ("off", "0", "no", "false"):
        return None
    try:
        return float(raw) if raw else IDLE
    except ValueError:
        return IDLE


def encode(fields: list[bytes]) -> bytes:
    """Fields as one message: a count, then the fields, each ended by a NUL (none can hold one)."""
    return b"%d\0" % len(fields) + b"".join(f + b"\0" for f in fields)


def decode(data: bytes) -> list[bytes] | None:
    head, _, rest = data.partition(b"\0")
    fields = rest.split(b"\0")
    if not head.isdigit() or len(fields) != int(head) + 1 or fields[-1]:
        return None
    return fields[:-1]


def same_user(sock: _socket.socket) -> bool:
    """Does the process at the other end of ``sock`` run as this user?"""
    cred = sock.getsockopt(_socket.SOL_SOCKET, _socket.SO_PEERCRED, _CRED)
    return int.from_bytes(cred[4:8], sys.byteorder) == os.getuid()


def _connect(where: bytes) -> _socket.socket | None:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(where)
        if same_user(sock):
            return sock
    except OSError:
        pass
    sock.close()
    return None


def _exchange(sock: _socket.socket, request: bytes) -> bytes | None:
    """Send ``request``, read the whole answer; None if the resident went away before it began."""
    chunks = []
    try:
        sock.sendall(request)
        sock.shutdown(_socket.SHUT_WR)
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except OSError:
        if not chunks:
            return None
    finally:
        sock.close()
    return b"".join(chunks)


def call(argv: list[str]) -> int | None:
    """Have the resident process answer ``argv``: print its answer, return the exit status.

    None when this process must answer itself: a front end that is not an
    action (``mcp``, ``install``), no resident wanted, none running (one is
    started for the next call), or the one there declined (it serves another
    identity, or its code changed and it is leaving).
    """
    if argv[:1] in (["mcp"], ["install"]) or sys.platform != "linux" or idle_seconds() is None:
        return None
    ident = identity()
    where = address(ident)
    sock = _connect(where)
    if sock is None:
        start(where)
        return None
    answer = _exchange(sock, encode([b"call", *ident, b"", *map(os.fsencode, argv)]))
    if answer is None or answer.startswith(b"no\n"):
        return None
    if not answer.startswith(b"go\n"):
        answer = b""
    head, _, body = answer[3:].partition(b"\n")
    parts = head.split()
    if (
        len(parts) != 3
        or not all(p.isdigit() for p in parts)
        or len(body) != int(parts[1]) + int(parts[2])
    ):
        msg = ("FAILED · status: error\nerror: the tool's resident process ended before it "
               "answered; the action may have run\nhint: look with status or read before trying "
               "again\n")
        write(1, msg.encode())
        return 1
    code, out_len = int(parts[0]), int(parts[1])
    write(1, body[:out_len])
    write(2, body[out_len:])
    return code


def write(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd``; a reader that has gone (``| head``) ends the output
    quietly."""
    view = memoryview(data)
    try:
        while view:
            view = view[os.write(fd, view):]
    except BrokenPipeError:
        pass


def start(where: bytes) -> None:
    """Start the resident process for this identity, detached (it outlives this call).

    It binds ``where`` itself, so of several callers starting one at once
    only one stays; stdin, stdout and stderr are ``/dev/null`` and no other
    descriptor is passed on, so nobody waiting on this call's output waits
    on the resident.
    """
    import subprocess

    subprocess.Popen([sys.executable, "-m", f"{__package__}.resident", where[1:].decode()],
                     stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                     close_fds=True, start_new_session=True)


def ask(
    kind: bytes, env: Mapping[str, str] | None = None, cwd: str | None = None
) -> tuple[int, int] | None:
    """``ping`` or ``stop`` the resident process of a caller's identity: its pid and how many calls
    it answered, or None if none runs.

    The caller is this process, or one started with ``env`` in ``cwd``.
    """
    ident = identity(env, cwd)
    sock = _connect(address(ident))
    if sock is None:
        return None
    answer = _exchange(sock, encode([kind, *ident, b""]))
    words = (answer or b"").split()
    if len(words) != 4 or words[0] != b"pid" or not (words[1].isdigit() and words[3].isdigit()):
        return None
    return int(words[1]), int(words[3])
