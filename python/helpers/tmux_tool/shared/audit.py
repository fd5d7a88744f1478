"""The audit trail: one line per injection of the agent's into the human's terminal, and how it
ended.

The trail is a file in the tool's private state directory with one JSON
line per injection (written as it happens, with an ``id``, masked); how each
one ended (its result status and the rendered screen after it) goes to a
sibling file (:func:`results_path`), so the trail itself stays one short
line per injection.  The tool names the trail in the session
(:data:`.control.AUDIT_OPTION`), so the page's activity panel finds it
whatever the tool's environment.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path
from typing import Any

from ..core import masking
from ..core.config import private_path, write_private
from ..transport.tmux import Tmux
from . import control


def _append(log: Path, entry: dict[str, Any]) -> None:
    entry = {k: masking.mask(v) if isinstance(v, str) else v for k, v in entry.items()}
    write_private(private_path(log.parent) / log.name, json.dumps(entry) + "\n", append=True)


def injection_telling(target: str, log: Path, what: str, *, submitted: bool) -> list[list[str]]:
    """The tmux commands that name the audit trail in the session (so the page finds it even after
    the session was recreated) and announce the agent as typing, or, once it pressed Enter, as
    waiting for the prompt: the injecting command runs them with its keystrokes."""
    state, reason = ("waiting", "for the prompt") if submitted else ("typing", "")
    return control.telling(
        target,
        state,
        what,
        reason,
        ["set-option", "-t", target, control.AUDIT_OPTION, str(log.resolve())],
    )


def record_injection(tmux: Tmux, target: str, log: Path, entry: dict[str, Any], *, submitted: bool,
                     told: bool = False) -> str:
    """Write down an injection that just happened and tell the page (unless the injecting command
    already did: ``told``, see :func:`injection_telling`); return its id.

    The entry goes to the audit trail (masked, this user only).
    """
    entry_id = secrets.token_hex(8)
    _append(log, {"id": entry_id, **entry})
    keys = entry.get("keys") or []
    what = str(entry.get("text") or "") or " ".join(str(k) for k in keys)
    state, reason = ("waiting", "for the prompt") if submitted else ("typing", "")
    if not told:
        tmux.chain(*injection_telling(target, log, what, submitted=submitted))
    control.said(tmux, target, state, what, reason)
    return entry_id


def record_answer(log: Path, entry: dict[str, Any]) -> None:
    """Write down an answer the human gave from the page to a question of an agent's terminal."""
    _append(log, {"id": secrets.token_hex(8), **entry})


def results_path(log: Path) -> Path:
    """Where the results of the injections in ``log`` are kept (``audit.log`` →
    ``audit-results.log``)."""
    return log.with_name(f"{log.stem}-results{log.suffix}")


def record_result(log: Path, entry_id: str, status: str, screen: str | None) -> None:
    """Append how the injection ``entry_id`` of ``log`` ended: its status and the screen after
    it."""
    _append(results_path(log), {"id": entry_id, "result": status, "screen": screen or ""})
