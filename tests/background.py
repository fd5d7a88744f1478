"""One tool call in a thread, so the test can act (in the page, in the terminal) while it runs."""

from __future__ import annotations

import threading
from typing import Any

from python.tools.tmux_tool import call


class Background:
    """A tool call started at once; :meth:`join` gives its result."""

    def __init__(self, action: str, **args: Any) -> None:
        self.result: dict[str, Any] = {}
        self.thread = threading.Thread(target=lambda: self.result.update(call(action, **args)), daemon=True)
        self.thread.start()

    def join(self, timeout: float = 60.0) -> dict[str, Any]:
        self.thread.join(timeout)
        assert not self.thread.is_alive(), "the tool call did not return"
        return self.result
