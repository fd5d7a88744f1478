"""The program an AI CLI calls with an event: it appends the event to a session's event file.

An AI CLI that the tool starts is told (by a hook setting, or a notify
program) to run ``python -I hook.py EVENTS [PAYLOAD]`` when a turn starts
or ends or when it waits for a permission.  The payload is the JSON the
CLI hands over: on standard input (Claude Code, Gemini CLI) or as the last
argument (Codex's notify).  It is appended as one line, with the moment it
arrived, by one ``write`` on a file opened for appending, so events from
hooks that run at once never interleave.  The file lives in the session's
private folder (mode 0600) and goes with the session.

This file runs on its own (``-I``: no site packages, no environment
variables read): it imports nothing from the tool, and prints nothing, so
a CLI that reads a hook's output finds an empty answer, which means "go on".
"""

import json
import os
import sys
import time


def main(argv: list[str]) -> int:
    """Append the event; never fail the CLI's turn (a broken event file costs only the event)."""
    if len(argv) < 2:
        return 0
    raw = argv[2] if len(argv) > 2 else sys.stdin.read()
    try:
        payload = json.loads(raw)
    except ValueError:
        payload = {"unreadable": raw[:2000]}
    line = json.dumps({"at": time.time(), "event": payload}, ensure_ascii=False) + "\n"
    try:
        fd = os.open(argv[1], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    except OSError:
        return 0
    try:
        os.write(fd, line.encode("utf-8", "surrogatepass"))
    except OSError:
        pass
    finally:
        os.close(fd)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
