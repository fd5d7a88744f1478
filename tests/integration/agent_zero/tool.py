"""Agent Zero's ``Tool`` and ``Response``, as a tool file meets them.

Copied into a temporary Agent Zero tree as ``helpers/tool.py`` (v0.9.9 and
later) or ``python/helpers/tool.py`` (v0.9.8), following those files: the
constructor, ``before_execution`` making the log item, ``after_execution``
adding the result to the history, and ``set_progress`` - a coroutine from
v0.9.9 (it passes the text through the ``tool_output_update`` extensions
first), a plain method before.
"""

from __future__ import annotations

import uuid
from abc import abstractmethod
from dataclasses import dataclass
from typing import Any

from agent import V1, call_extensions  # type: ignore[import-not-found]  # the tree's agent.py


@dataclass
class Response:
    message: str
    break_loop: bool
    additional: dict[str, Any] | None = None


class Tool:
    def __init__(self, agent: Any, name: str, method: str | None, args: dict[str, Any], message: str,
                 loop_data: Any, **kwargs: Any) -> None:
        self.agent = agent
        self.name = name
        self.method = method
        self.args = args
        self.loop_data = loop_data
        self.message = message
        self.progress = ""

    @abstractmethod
    async def execute(self, **kwargs: Any) -> Response:
        pass

    if V1:
        async def set_progress(self, content: str | None) -> None:
            ctx = {"content": content or ""}
            await call_extensions("tool_output_update", self.agent, ctx=ctx)
            self.progress = ctx["content"]
    else:
        def set_progress(self, content: str | None) -> None:
            self.progress = content or ""

    async def before_execution(self, **kwargs: Any) -> None:
        self.log = self.get_log_object()

    async def after_execution(self, response: Response, **kwargs: Any) -> None:
        text = response.message.strip()
        self.agent.hist_add_tool_result(self.name, text, id=self.log.id, **(response.additional or {}))
        self.log.update(content=text)

    def get_log_object(self) -> Any:
        label = f"{self.name}:{self.method}" if self.method else self.name
        return self.agent.context.log.log(type="tool", heading=f"icon://construction A0: Using tool '{label}'",
                                          content="", kvps=self.args, id=str(uuid.uuid4()))
