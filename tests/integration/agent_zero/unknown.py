"""Agent Zero's ``Unknown`` tool (``tools/unknown.py``): what the agent gets for a tool it cannot load."""

from __future__ import annotations

from typing import Any

from agent import V1  # type: ignore[import-not-found]  # the tree's agent.py

if V1:
    from helpers.tool import Response, Tool  # type: ignore[import-not-found]
else:
    from python.helpers.tool import Response, Tool  # type: ignore[import-not-found,no-redef]


class Unknown(Tool):
    async def execute(self, **kwargs: Any) -> Response:
        message = self.agent.read_prompt("fw.tool_not_found.md", tool_name=self.name,
                                         tools_prompt=self.agent.tools_prompt())
        return Response(message=message, break_loop=False)
