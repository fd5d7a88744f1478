"""The CPython interactive interpreter, and the sub-prompts it runs.

``>>> `` is the primary prompt and ``... `` the continuation; ``(Pdb) ``
(after ``breakpoint()``) and ``help> `` (after ``help()``) are REPLs of their
own inside it that wait for input just the same, so they count as ready.  A
traceback followed by a new ``>>> `` is ready: the error was reported and the
interpreter waits for the next input.

Text goes in by paste: the 3.11 REPL never turns bracketed paste on (checked
on both builds here), so tmux delivers the text plainly, each newline acting
as Enter through the continuation prompt exactly as if typed - in one call,
whatever its length; 3.13's new REPL does ask for it and understands it.
"""

from __future__ import annotations

from .repl import ReplProfile

PROFILES = (
    ReplProfile(
        "python3",
        ("python", "python3", "python3.*", "python2*"),
        "repl",
        paste=True,
        exit_steps=(("keys", "C-d"),),
        rank=20,
        prompts=(">>> ", "(Pdb) ", "help> "),
        continuations=("... ",),
    ),
)
