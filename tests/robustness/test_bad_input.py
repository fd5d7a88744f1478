"""Bad input: every action, every argument, every shape a careless caller sends.

The catalogue tries each hostile value on each argument of each action in
``ACTIONS`` (the other arguments kept valid and short); hypothesis then throws
random values of every type at random arguments.  Every call must come back
in bounded time with the contract's fields, and either ``ok: false`` with a
sentence (no traceback, no "internal error") or a correct, clean result.
Both servers must be healthy afterwards: the shared session still there, the
private shell still answering.
"""

from __future__ import annotations

import math
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from python.helpers.tmux_tool.actions import ACTIONS, dispatch
from python.helpers.tmux_tool.core.args import MAX_TEXT
from python.helpers.tmux_tool.core.status import Status
from python.helpers.tmux_tool.drive import turns
from python.tools.tmux_tool import call

from ..conftest import SharedTerminal
from .conftest import CONTROL, SLACK, ModuleEnv, assert_sentence, poll, tmux

FIELDS = ("ok", "action", "session", "status", "exit_code", "output", "screen", "error", "hint")
BASE_SESSION = "fz"
# Valid, short, harmless companions for the argument under test.
BASE: dict[str, Any] = {
    "command": "true", "text": "# fuzz", "enter": False, "keys": "End", "prompt": "# fuzz",
    "program": "sh", "timeout": 0.5, "session": BASE_SESSION,
}
# An error is a sentence or two, never a copy of a huge argument.
MAX_ERROR = 2000
# Extra seconds some actions take beyond their timeout: ask waits up to twice
# TURN_START for its turn to visibly begin whatever its timeout; start first
# creates the session's shell.
GRACE = {"ask": 2 * turns.TURN_START, "start": 1.0}

TEXTS: list[Any] = [
    "", " ", "\t", "\n", "a\nb", "\x00", "a\x00b", "\x1b", "\x1b[31mred\x1b[0m", "\x07", "\x08", "\x7f",
    "\x9b31m", "\x03", "\x04", "a;", ";", "a \\;", "'", '"', "`", "$(", "${", "#{", "#(", "~", "\\",
    "ünïcödé ✓ 日本語 🙂", "\u202e\u200b", "\ud800", "\udcff", "x" * 10_240, "y" * MAX_TEXT,
    "z" * (MAX_TEXT + 1),
]
NAMES: list[Any] = [
    "", " ", "a.b", "a:b", "$1", "%1", "@1", "=x", "-t", "-", "a b", "ünï", "日本", "x" * 10_240, "x" * 65,
    "a\nb", "\x00", "a;", ";", "shared", "SHARED", "scratch ", "123",
]
NUMBERS: list[Any] = [
    -1, -0.001, 0, "0", 1e9, 10**30, float("nan"), float("inf"), -float("inf"), "nan", "inf", "1e400",
    "abc", "", " ", "0x10", "1_0", "½", True, False, 3601, "3601",
]
BOOLS: list[Any] = ["maybe", 2, -1, 1.5, "", "yes please", "TRUE ", float("nan")]
LISTS: list[Any] = [
    [], "", "   ", [""], [" "], ["\x00"], [1], [None], [["nested"]], {"a": 1}, 5, 1.5, True, "[", "[1, 2]",
    '["a", 3]', "[]", ["x"] * 1001, ["Enter;"], [";"], ["a b"], ["\ud800"], ["C-"], ["M-"], ["F21"],
    ["Ctrl+"], ["^"], ["^1"], ["x" * 10_240],
]
WRONG: list[Any] = [[], {}, ["a"], {"k": "v"}, (1, 2), b"bytes", object()]
BY_KIND = {"str": TEXTS + NAMES, "float": NUMBERS, "int": NUMBERS + [1.5, "2.5", 10**7], "bool": BOOLS,
           "list": LISTS}


def _args(action: str, overrides: dict[str, Any]) -> dict[str, Any]:
    spec = ACTIONS[action]
    declared = {a.name for a in spec.args}
    args = {k: v for k, v in BASE.items() if k in declared}
    if action == "kill":
        args["session"] = "no-such-session"
    if action == "start":
        args.pop("session")  # a generated name: the base session exists already
    if "sessions" in overrides:
        args.pop("session", None)
    args.update(overrides)
    return args


def _budget(action: str, args: dict[str, Any]) -> float:
    """The longest a call may take: its timeout (if it is a usable one) and slack."""
    spec = ACTIONS[action]
    default = next((a.default for a in spec.args if a.name == "timeout"), 0.0) or 0.0
    raw = args.get("timeout", default)
    try:
        timeout = float(raw)
    except (TypeError, ValueError):
        timeout = 0.0
    if isinstance(raw, bool) or not math.isfinite(timeout) or timeout < 0 or timeout > 3600:
        timeout = 0.0
    return timeout + SLACK + GRACE.get(action, 0.0)


def answer(action: str, args: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """One call that must be answered well: its result, and what was wrong with it."""
    started = time.monotonic()
    res = dispatch(action, args).to_dict()
    return res, problem(action, args, res, time.monotonic() - started)


def problem(action: str, args: dict[str, Any], res: dict[str, Any], took: float) -> str | None:
    """What is wrong with this answer (None: nothing)."""
    shown = {str(k)[:30]: repr(v)[:50] for k, v in args.items()}
    budget = _budget(action, args)
    if took > budget:
        return f"{action} {shown}: took {took:.1f}s, more than {budget:.1f}s"
    if not all(f in res for f in FIELDS) or res["status"] not in list(Status) or not isinstance(res["ok"], bool):
        return f"{action} {shown}: not the result contract: {res}"
    if res["ok"] and res["error"] is not None:
        return f"{action} {shown}: ok with an error: {res['error']}"
    if not res["ok"]:
        try:
            assert_sentence(res)
        except AssertionError:
            return f"{action} {shown}: not a sentence: {str(res['error'])[:300]}"
        if len(res["error"]) > MAX_ERROR:
            return f"{action} {shown}: an error of {len(res['error'])} characters: {res['error'][:100]!r}..."
    for field in ("output", "screen", "error", "hint"):
        value = res[field]
        if value is not None and not isinstance(value, str):
            return f"{action} {shown}: {field} is {type(value).__name__}"
        if value and CONTROL.search(value):
            return f"{action} {shown}: control characters in {field}: {value[:120]!r}"
        try:
            (value or "").encode("utf-8")
        except UnicodeEncodeError:
            return f"{action} {shown}: {field} is not valid text"
    return None


def check(action: str, args: dict[str, Any]) -> dict[str, Any]:
    """:func:`answer`, asserted to be a good one; returns the result."""
    res, found = answer(action, args)
    assert found is None, found
    return res


def _cleanup(env: ModuleEnv) -> None:
    """End private sessions the calls created (ours only, by name, on our server)."""
    listed = tmux(env.private, "list-sessions", "-F", "#{session_name}").stdout.split()
    for name in listed:
        if name != BASE_SESSION:
            tmux(env.private, "kill-session", "-t", f"={name}")


CATALOGUE = [(action, arg.name, i)
             for action, spec in ACTIONS.items()
             for arg in spec.args
             for i in range(len(BY_KIND[arg.kind] + WRONG))]


def _value(action: str, arg_name: str, i: int) -> Any:
    arg = next(a for a in ACTIONS[action].args if a.name == arg_name)
    return (BY_KIND[arg.kind] + WRONG)[i]


@pytest.fixture(scope="module")
def fz(module_env: ModuleEnv) -> ModuleEnv:
    res = call("run", command="true", session=BASE_SESSION)
    assert res["ok"], (res["status"], res["error"])
    return module_env


def _fresh(env: ModuleEnv) -> None:
    """A clean base session: an earlier value may have left its shell mid-line."""
    call("kill", session=BASE_SESSION)
    _cleanup(env)
    res = call("run", command="true", session=BASE_SESSION)
    assert res["ok"], (res["status"], res["error"])


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_every_argument_with_every_hostile_value(fz: ModuleEnv, action: str) -> None:
    _fresh(fz)
    started = time.monotonic()
    tried, problems = 0, []
    for name, arg_name, i in CATALOGUE:
        if name != action:
            continue
        value = _value(action, arg_name, i)
        if action == "start" and arg_name == "program" and isinstance(value, str) and len(value) > 10_240:
            continue  # its own test below: too slow to repeat here while it is quadratic
        _, found = answer(action, _args(action, {arg_name: value}))
        if found:
            problems.append(found)
        tried += 1
        if action in ("start", "kill", "run"):
            _cleanup(fz)
    print(f"\n{action}: {tried} hostile values in {time.monotonic() - started:.1f}s, "
          f"{len(problems)} answered badly")
    _healthy(fz)
    assert not problems, "\n".join(problems)


def _healthy(env: ModuleEnv) -> None:
    assert tmux(env.shared.socket, "has-session", "-t", "=shared").returncode == 0, "the shared session is gone"
    res = call("run", command="echo alive", session="healthy", timeout=10)
    assert res["ok"] and res["output"] == "alive", res
    call("kill", session="healthy")


UNKNOWN_ACTIONS: list[Any] = ["", " ", "RUN", "Run", "runn", "kill-server", "run-shell", "__init__",
                              "dispatch", "list;", "x" * 10_240, "\x00", None, 5, ["run"], {"a": 1}]


@pytest.mark.parametrize("action", UNKNOWN_ACTIONS, ids=lambda a: repr(a)[:20])
def test_unknown_actions(fz: ModuleEnv, action: Any) -> None:
    res = dispatch(action, {"command": "true"}).to_dict()
    assert_sentence(res)
    assert "unknown action" in res["error"] and "run" in res["error"]
    assert len(res["error"]) < MAX_ERROR


@pytest.mark.parametrize("action", sorted(ACTIONS))
def test_unknown_arguments(fz: ModuleEnv, action: str) -> None:
    for extra in ({"bogus": 1}, {"Session": "x"}, {"cmd": "ls"}, {"": 1}, {"timeout ": 1}, {"x" * 10_240: 1},
                  {"action": "kill"}):
        res = check(action, {**_args(action, {}), **extra})
        assert not res["ok"] and "does not take" in res["error"], (action, extra, res)


def test_huge_program_to_start_is_answered_in_time(fz: ModuleEnv) -> None:
    """A 1 MiB program line must not take minutes to be turned down or started."""
    for program in ("x" * MAX_TEXT, "x " * (MAX_TEXT // 2)):
        check("start", _args("start", {"program": program, "timeout": 1.0}))
        _cleanup(fz)


def test_shared_session_takes_a_large_text_whole_or_not_at_all(shared_terminal: SharedTerminal) -> None:
    """200 KB typed at the shared prompt: either typed and known as ours, or never typed."""
    assert call("status")["status"] == "ready"
    res = check("send", {"text": "# " + "w" * 200_000, "enter": False, "timeout": 10})
    if res["ok"]:
        again = check("send", {"text": "# after", "enter": False, "timeout": 10})
        assert again["ok"], again  # our own leftover is ours to clear
    else:  # give a paste in flight time to show: it must not
        typed = poll(lambda: "w" * 100 in shared_terminal.screen().replace("\n", ""), 3)
        assert not typed, f"the text was typed, yet the call failed: {res['error']}"


# --- hypothesis: random values of any type on any argument ---------------------
ANY_TEXT = st.text(alphabet=st.characters(codec=None, min_codepoint=0, max_codepoint=0x10FFFF,
                                          exclude_categories=()), max_size=40)
ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=True, allow_infinity=True), ANY_TEXT,
    st.lists(ANY_TEXT, max_size=4), st.dictionaries(ANY_TEXT, ANY_TEXT, max_size=2), st.binary(max_size=8),
)
PAIRS = [(action, arg.name) for action, spec in ACTIONS.items() for arg in spec.args]


@settings(max_examples=150, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(pair=st.sampled_from(PAIRS), value=ANY_VALUE, second=st.sampled_from(PAIRS), value2=ANY_VALUE)
def test_random_values_on_random_arguments(fz: ModuleEnv, pair: tuple[str, str], value: Any,
                                           second: tuple[str, str], value2: Any) -> None:
    action, arg_name = pair
    overrides = {arg_name: value}
    if second[0] == action and second[1] != arg_name:
        overrides[second[1]] = value2
    if "timeout" in overrides and isinstance(overrides["timeout"], (int, float)) \
            and not isinstance(overrides["timeout"], bool) and overrides["timeout"] > 2:
        overrides["timeout"] = 2  # a valid long wait proves nothing here and costs time
    if action == "kill" and overrides.get("session") in (None, BASE_SESSION):
        overrides["session"] = "no-such-session"
    check(action, _args(action, overrides))
    if action in ("start", "run"):
        _cleanup(fz)


def test_servers_survive_the_fuzzing(fz: ModuleEnv) -> None:
    _healthy(fz)
    res = call("status")
    assert res["ok"] and res["session"] == "shared", res
