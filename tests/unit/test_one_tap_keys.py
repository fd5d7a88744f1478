"""The keys one tap types for each kind of question: the library's own knowledge of how each is answered."""

from __future__ import annotations

import pytest

from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.judgement.state import State
from python.helpers.tmux_tool.programs import menus, questions
from python.helpers.tmux_tool.screen.snapshot import Snapshot
from python.helpers.tmux_tool.sessions import tap


def _asking(*rows: str) -> Snapshot:
    """A screen whose cursor stands after the last row's text."""
    return Snapshot(rows, 80, 24, (len(rows[-1]), len(rows) - 1))


@pytest.mark.parametrize(("rows", "option", "typed"), [
    (("Continue? [y/N] ",), "y", ("y", ("Enter",))),
    (("Continue? [y/N] ",), "N", ("N", ("Enter",))),
    (("Are you sure (yes/no/[fingerprint])? ",), "yes", ("yes", ("Enter",))),
    (("replace a.txt? [y]es, [n]o, [A]ll, [N]one, [r]ename: ",), "rename", ("r", ("Enter",))),
    (("Press ENTER to continue",), "Enter", ("", ("Enter",))),
    (("1) apple", "2) banana", "3) cherry", "#? "), "2) banana", ("2", ("Enter",))),
])
def test_each_question_is_answered_as_it_reads_its_answer(rows: tuple[str, ...], option: str,
                                                         typed: tuple[str, tuple[str, ...]]) -> None:
    snap = _asking(*rows)
    verdict = questions.ask(snap, None)
    assert verdict is not None and option in verdict.options, verdict
    assert questions.typed_answer(snap, option) == typed


def test_no_keys_for_a_secret_or_an_option_not_offered() -> None:
    assert questions.typed_answer(_asking("[sudo] password for bob: "), "y") is None
    assert questions.typed_answer(_asking("Continue? [y/N] "), "maybe") is None


def test_a_numbered_list_counts_up_from_one() -> None:
    assert questions.numbered_above(_asking("2) banana", "3) cherry", "#? "), 2) == ()
    assert questions.numbered_above(_asking("1) apple", "#? "), 1) == ()


def test_a_menu_is_chosen_by_moving_its_marker_then_enter() -> None:
    menu = menus.Menu("Pick one?", ("a", "b", "c"), "b", 1, 3, False)
    assert menus.keys_to(menu, 0) == ("Up", "Enter")
    assert menus.keys_to(menu, 1) == ("Enter",)
    assert menus.keys_to(menu, 2) == ("Down", "Enter")


def test_answers_named_after_their_keys_are_given_by_the_key_alone() -> None:
    """Cline's ``[y] Approve   [n] Deny``: y or n answers at once (Enter would take the highlighted
    one); the rows above say what is asked."""
    snap = Snapshot(("Approve tool call?", "  $ touch f", "  [y] Approve   [n] Deny"), 80, 24, (2, 2))
    keyed = menus.find_keyed(snap)
    assert keyed == menus.Keyed(2, ("[y] Approve", "[n] Deny"), ("y", "n"))
    st = State(Status.BLOCKED, "the permission dialog", snap=snap, question="Cline asks permission",
               options=keyed.options)
    found = tap.choice(st, "[n] Deny")
    assert found is not None and (found.text, found.keys, found.menu, found.subject) == ("", ("n",), False, (0, 1))


@pytest.mark.parametrize("row", ["  [y] Approve", "see [1] the note   [2] the other one, and more text here x",
                                 "[y]es, [n]o", "  [y] Approve   [n] Deny   then words", ""])
def test_a_row_that_is_not_only_key_named_answers_offers_none(row: str) -> None:
    assert menus.find_keyed(Snapshot((row,), 80, 24, (0, 0))) is None
