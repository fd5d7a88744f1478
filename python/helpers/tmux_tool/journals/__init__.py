"""The AI CLIs' own records of their sessions: hook events, transcripts, rollouts, databases,
saved chats."""

from __future__ import annotations

from pathlib import Path

from .claude import ClaudeJournal
from .cline import ClineJournal
from .cn import CnJournal
from .codex import CodexJournal
from .copilot import CopilotJournal
from .gemini import GeminiJournal
from .journal import Journal, Reading, Setup, Turn
from .kimi import KimiJournal
from .opencode import KILO_DATABASE, OpencodeJournal
from .pi import PiJournal
from .qwen import QwenJournal

JOURNALS: dict[str, Journal] = {"claude": ClaudeJournal(), "cline": ClineJournal(), "cn": CnJournal(),
                               "codex": CodexJournal(), "copilot": CopilotJournal(), "gemini": GeminiJournal(),
                               "kilo": OpencodeJournal("Kilo CLI", KILO_DATABASE),
                               "kimi": KimiJournal(), "opencode": OpencodeJournal(),
                               "pi": PiJournal(), "qwen": QwenJournal()}


def for_program(profile_name: str) -> Journal | None:
    """The journal of the CLI a profile names, if the tool knows how to read its record."""
    return JOURNALS.get(profile_name)


def setup(profile_name: str, folder: Path) -> Setup:
    """What the launch of this program gets so that it reports into ``folder`` (nothing for a
    program whose record the tool cannot read, or that needs nothing to keep it)."""
    journal = JOURNALS.get(profile_name)
    return journal.setup(folder) if journal else Setup()


__all__ = ["Journal", "Reading", "Setup", "Turn", "for_program"]
