"""The sqlite3 command-line shell: ``sqlite> `` and ``   ...> ``.

A statement runs only once its ``;`` arrives; until then the shell shows the
continuation prompt, which counts as ready.  An error (``Parse error: ...``)
followed by a new ``sqlite> `` is ready too.  Input goes in by bracketed
paste: readline takes a multi-line paste as one input and sqlite3 splits it
at each ``;`` itself.
"""

from __future__ import annotations

from .repl import ReplProfile

PROFILES = (
    ReplProfile(
        "sqlite3",
        ("sqlite3", "sqlite"),
        "repl",
        paste=True,
        exit_steps=(("text", ".quit"), ("keys", "Enter")),
        rank=20,
        prompts=("sqlite> ",),
        continuations=("   ...> ",),
    ),
)
