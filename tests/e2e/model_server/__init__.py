"""A scripted model server for driving real AI coding CLIs offline.

One loopback HTTP server answers the Anthropic Messages API, Gemini
`generateContent`/`streamGenerateContent`, OpenAI Responses and OpenAI chat
completions from a queue of scripted replies, with controllable timing and
errors, so the CLIs' real screens can be produced on demand.
"""

from .script import ApiError, Reply, Script, ToolCall
from .server import LoggedRequest, ModelServer

__all__ = ["ApiError", "LoggedRequest", "ModelServer", "Reply", "Script", "ToolCall"]
