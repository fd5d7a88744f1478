"""Secrets never reach the agent or the logs in clear.

Terminals print secrets all the time: ``env``, ``cat .env``, a CLI echoing its
API key, a ``curl -H "Authorization: Bearer ..."``.  Everything the tool
returns or writes down passes through :func:`mask`, which hides

* tokens of well-known shapes (OpenAI/Anthropic ``sk-``, GitHub, GitLab,
  Slack, AWS access keys, Google API keys, JWTs, bearer tokens, PEM private
  keys);
* the value in ``NAME=value`` / ``NAME: value`` when NAME looks secret
  (``*_KEY``, ``*_TOKEN``, ``*_SECRET``, ``PASSWORD`` and the like);
* the literal values of such variables in the tool's own environment,
  wherever they appear.
"""

from __future__ import annotations

import os
import re
from functools import lru_cache

MASK = "[masked]"

_SECRET_NAME = (r"(?:[A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIALS?)"
                r"|(?i:password|passwd|api[_-]?key|secret|token|access[_-]token|auth[_-]token|client[_-]secret))")
_TOKEN_SHAPES = (
    r"-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----",
    r"\bsk-(?:ant-|proj-)?[A-Za-z0-9_-]{20,}",
    r"\bgh[pousr]_[A-Za-z0-9]{30,}",
    r"\bgithub_pat_[A-Za-z0-9_]{30,}",
    r"\bglpat-[A-Za-z0-9_-]{20,}",
    r"\bxox[abposr]-[A-Za-z0-9-]{10,}",
    r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    r"\bAIza[0-9A-Za-z_-]{35}",
    r"\beyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}",
    r"(?<=Bearer )[A-Za-z0-9._~+/=-]{16,}",
)
_SHAPES = re.compile("|".join(_TOKEN_SHAPES))
_ASSIGNMENT = re.compile(
    r"(?P<name>\b" + _SECRET_NAME + r")\b(?P<sep>\s*[=:]\s*)(?P<q>[\"']?)(?P<value>[^\s\"']{4,})"
)


@lru_cache(maxsize=8)
def _env_values(snapshot: tuple[tuple[str, str], ...]) -> re.Pattern[str] | None:
    values = sorted({v for k, v in snapshot if len(v) >= 8}, key=len, reverse=True)
    return re.compile("|".join(re.escape(v) for v in values)) if values else None


def _env_pattern() -> re.Pattern[str] | None:
    name = re.compile(_SECRET_NAME + r"$")
    return _env_values(tuple(sorted((k, v) for k, v in os.environ.items() if name.match(k))))


def mask(text: str | None) -> str | None:
    """``text`` with every recognisable secret replaced by ``[masked]``."""
    if not text:
        return text
    env = _env_pattern()
    if env is not None:
        text = env.sub(MASK, text)
    text = _SHAPES.sub(MASK, text)
    return _ASSIGNMENT.sub(lambda m: f"{m['name']}{m['sep']}{m['q']}{MASK}"
                           if m["value"] != MASK else m[0], text)
