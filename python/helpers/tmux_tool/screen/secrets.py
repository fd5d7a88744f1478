"""A question for a secret, read off the screen: the evidence left when the kernel cannot see the
read.

The kernel tells a secret by the terminal it is read from (a line, echo off;
:mod:`..transport.kernel`).  It cannot when the reader's terminal is not the
pane's: sudo with ``use_pty``, ``ssh -t``, ``podman exec -it``, a nested
tmux or ``script`` relay a terminal of their own, and the pane's is raw.
What is left is what the human sees: a question for a password, a
passphrase, a PIN or a one-time code at the cursor, with nothing after it.
The recorded forms (tests/fixtures/screens/secrets/, made by
tests/fixtures/capture_secrets.py) are those of sudo, su and passwd (in
English and German), ssh, ssh-add, ssh-keygen, gpg's pinentry-curses and
pinentry-tty, git's credential prompt, mysql, psql, openssl, Python's
getpass and bash's ``read -s``; the other words are the names of a secret
in the languages programs' translations use most.

The rule errs toward a secret: a row that only looks like such a question
makes the agent hand it to the human, which costs a moment; a secret
question taken for anything else could let the agent type into it.
"""

from __future__ import annotations

import unicodedata

import regex

from .snapshot import Snapshot

QUESTION_LIMIT = 160  # characters: a question is one short row, never a paragraph
WORDS = (r"""
    \b(?:pass(?:word|wd|phrase|code|kennwort)?s?|pass[ ]phrase|pin|otp|2fa|mfa|one[- ]time|"""
         r"""verification[ ]code
       |security[ ]code|auth(?:entication|enticator)?[ ]code|token|secret|api[ _-]?key|credentials?
       |passwort|kennwort|mot[ ]de[ ]passe|phrase[ ]secr[eè]te|contrase[ñn]a|senha|palavra-passe
       |wachtwoord|has[łl]o|l[öo]senord|adgangskode|passord|salasana|parola|[şs]ifre|"""
         r"""heslo|jelsz[óo]
       |пароль|κωδικός)\b
    |密码|密碼|口令|パスワード|암호|비밀번호
    """)
"""The words that name a secret, as a verbose, case-blind pattern: shared with the screen's question
shapes (:mod:`..programs.questions`) so both take the same rows for a secret's question."""
_WORDS = regex.compile(WORDS, regex.IGNORECASE | regex.VERBOSE)
_ENDS = regex.compile(r"[:：]\s*$")
# a full-screen dialog's border (pinentry-curses draws its field inside a box)
_FRAME = "│┃║|"
_FIELD = "_ .·" + _FRAME  # what may follow the cursor in a field drawn for the answer


def question(snap: Snapshot) -> str | None:
    """The question for a secret at the cursor, or None.

    The row up to the cursor must end in a colon and name a secret, and
    nothing but a drawn field may follow the cursor.  On the alternate screen
    (an editor, a full-screen program) only a question inside a dialog's
    border counts: a ``password:`` key being edited in a YAML file is none.
    """
    row = snap.cursor_line
    if not row:
        return None
    left, right = _split(row, snap.cursor[0])
    if right.strip(_FIELD):
        return None
    text = left.strip()
    if snap.alternate and (not text or text[0] not in _FRAME):
        return None
    text = text.strip(_FRAME + " ").rstrip("_ ")
    if not text or len(text) > QUESTION_LIMIT or not _ENDS.search(text) or not _WORDS.search(text):
        return None
    return text


def _split(row: str, x: int) -> tuple[str, str]:
    """The row's text left of cell ``x`` and from it on (a wide character takes two cells)."""
    cells = 0
    for i, ch in enumerate(row):
        if cells >= x:
            return row[:i], row[i:]
        cells += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
    return row, ""
