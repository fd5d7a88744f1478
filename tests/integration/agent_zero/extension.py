"""Agent Zero's ``Extension`` base class (``helpers/extension.py``), which extension files subclass."""

from __future__ import annotations

from abc import abstractmethod
from typing import Any


class Extension:
    def __init__(self, agent: Any, **kwargs: Any) -> None:
        self.agent = agent
        self.kwargs = kwargs

    @abstractmethod
    def execute(self, **kwargs: Any) -> Any:
        pass
