"""Wait until a just-launched web server answers, or tell why it never will.

start.sh launches the server in the background and must not print a URL that
does not work yet, nor report success when the server died (port taken,
missing files). This polls the URL in short steps while checking that the
launched process is still alive, so it returns as soon as either is known.
With `--expect-pid`, the JSON answer must also carry that pid: a different
program already listening on the port does not count as ours.

Exit status: 0 ready, 1 the process died, 2 no answer before the deadline.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request

STEP = 0.05


def alive(pid: int) -> bool:
    """The process exists and is not a zombie waiting to be reaped."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except OSError:
        return False


def answer(url: str, token: str | None) -> bytes | None:
    """The body of a 200 answer from `url`, or None."""
    request = urllib.request.Request(url)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=1.0) as response:
            return response.read() if response.status == 200 else None
    except (urllib.error.URLError, OSError):
        return None


def is_ours(body: bytes, pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        return json.loads(body).get("pid") == pid
    except (ValueError, AttributeError):
        return False


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("url")
    parser.add_argument("--pid", type=int, required=True, help="the launched process")
    parser.add_argument("--expect-pid", action="store_true", help="answer must name --pid")
    parser.add_argument("--timeout", type=float, default=15.0)
    args = parser.parse_args(argv)
    token = os.environ.get("TMUX_TOOL_WEB_TOKEN") or None
    deadline = time.monotonic() + args.timeout
    while time.monotonic() < deadline:
        if not alive(args.pid):
            return 1
        body = answer(args.url, token)
        if body is not None and is_ours(body, args.pid if args.expect_pid else None):
            return 0
        time.sleep(STEP)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
