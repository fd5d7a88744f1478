"""What every kind of session offers the actions: one interface, one implementation per kind.

A handler resolves the session an action is about (:meth:`.Context.session`)
and calls one of these; how the session is judged and typed into is its own
business: :class:`..private.session.PrivateSession` (the agent's shells,
judged from their markers) and :class:`..shared.session.SharedSession` (the
human's terminal, judged from the kernel and tmux, typed into politely).
The transport below both is a :class:`..transport.tmux.Tmux`; a viewer lists
and describes sessions through :meth:`Session.row`.
"""

from __future__ import annotations

from typing import Any, Protocol, Unpack

from ..core.clock import Deadline
from ..core.result import Extra, Result
from ..judgement.state import State
from ..transport.target import Target


class Session(Protocol):
    """The operations every action needs of a session."""

    target: Target

    @property
    def name(self) -> str: ...

    def state(self) -> State:
        """Look once and decide the status, with the evidence."""
        ...

    def report(
        self,
        st: State,
        *,
        ok: bool = True,
        error: str | None = None,
        hint: str | None = None,
        exit_code: int | None = None,
        **extra: Unpack[Extra],
    ) -> Result:
        """The result that reports ``st``, with an error, a hint, an exit code and more fields."""
        ...

    def where(self, st: State) -> dict[str, Any]:
        """Which part of the session a result concerns (the pane, in the shared session)."""
        ...

    def unavailable(self) -> Result | None:
        """Why the session cannot be used now, as a failure; None when it can."""
        ...

    def row(self) -> dict[str, Any]:
        """What ``list`` says of the session."""
        ...

    def run(self, command: str, deadline: Deadline) -> Result: ...

    def send(self, text: str, *, enter: bool, deadline: Deadline, force: bool) -> Result: ...

    def keys(self, keys: list[str], *, deadline: Deadline, force: bool) -> Result: ...

    def interrupt(self, deadline: Deadline) -> Result: ...

    def kill(self) -> Result: ...

    def wait_exact(self, deadline: Deadline) -> Result | None:
        """Wait on facts better than the screen (a private shell's markers), if the session has
        them."""
        ...

    def waited(self, res: Result, st: State) -> None:
        """Complete the result of a wait that judged the screen (output owed by an earlier call)."""
        ...

    def heard(self, res: Result) -> None:
        """Add to a result of status or wait what the human answered from the page since the last
        one."""
        ...
