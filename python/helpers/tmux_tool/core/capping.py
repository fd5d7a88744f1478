"""What the agent reads of a long output: its head and its tail within the cap, cut on line breaks.

The agent's context is the scarce resource, and the start (what ran, the
first error) and the end (the result, the last error) of an output are what
it needs; the middle is left to the saved file, whose path the cut names.
"""

from __future__ import annotations

HEAD_SHARE = 0.4  # of the cap, for the head of a long output (the rest is its tail)


def cap_text(text: str, cap: int, where: str) -> str:
    """Keep the head and tail of ``text`` within ``cap`` characters, on line breaks."""
    if len(text) <= cap:
        return text
    head_len, tail_len = int(cap * HEAD_SHARE), cap - int(cap * HEAD_SHARE)
    return join_cut(text[:head_len], text[-tail_len:], len(text), text.count("\n"), where)


def join_cut(head: str, tail: str, chars: int, newlines: int, where: str) -> str:
    """Join a head and a tail of a text of ``chars`` characters, cut on line breaks."""
    head = head[: head.rfind("\n") + 1] or head
    tail = tail[tail.find("\n") + 1 :] or tail
    cut = chars - len(head) - len(tail)
    lines = newlines - head.count("\n") - tail.count("\n")
    return f"{head}[... {cut} characters ({lines} lines) cut; full output in {where} ...]\n{tail}"
