"""The Node.js REPL: ``> `` prompt, ``... `` continuation; ``debug> `` of ``node inspect``.

The debugger built into Node (``node inspect app.js``) is a REPL of its own
under the same executable and waits at ``debug> `` just the same (as
``(Pdb) `` does inside Python).

While text is typed Node previews the value in grey on the row below the
input; the cursor stays on the input row, so the typed text (not the preview)
is what the detector sees.  ``Uncaught ...`` followed by a new ``> `` is
ready.  Node's REPL never asks for bracketed paste, so a paste reaches it as
plain typed lines (multi-line functions go through ``... `` as typed).
"""

from __future__ import annotations

from .repl import ReplProfile

PROFILES = (
    ReplProfile(
        "node",
        ("node", "nodejs"),
        "repl",
        paste=True,
        exit_steps=(("keys", "C-d"),),
        rank=20,
        prompts=("> ", "debug> "),
        continuations=("... ",),
    ),
)
