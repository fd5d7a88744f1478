"""Run the scripted model server by hand: `python -m tests.e2e.model_server [--port N] [--log FILE]`.

It prints its base URL and serves until interrupted; queue replies with
`POST /_control/push` (see `control.py`).
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path

from .server import ModelServer


def main() -> None:
    """Parse arguments, serve, and block until Ctrl+C."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--log", type=Path, default=None, help="append one JSON line per request")
    args = parser.parse_args()
    server = ModelServer(log_path=args.log, port=args.port).start()
    print(server.url, flush=True)
    try:
        threading.Event().wait()
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
