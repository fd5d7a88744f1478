"""A test's trace kept when it fails: what the tool sent to tmux and what it judged, in order.

A directory's conftest takes the hook and the fixture from here
(``from tests.traces import pytest_runtest_makereport, traced``): every test
there runs with ``TMUX_TOOL_TRACE`` on, and a failing one keeps its trace in
tests/artifacts/traces/, so a failure under load is read from the trace,
not guessed at from the assertion.
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from python.helpers.tmux_tool.core import trace

TRACES = Path(__file__).resolve().parent / "artifacts" / "traces"
_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


@pytest.fixture(autouse=True)
def traced(request: pytest.FixtureRequest, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The test runs traced; a failing one keeps its trace in tests/artifacts/traces/."""
    path = tmp_path / "trace.jsonl"
    monkeypatch.setenv(trace.SWITCH, str(path))
    yield path
    if request.node.stash.get(_FAILED, False) and path.exists():
        TRACES.mkdir(parents=True, exist_ok=True)
        kept = TRACES / (re.sub(r"[^A-Za-z0-9_.-]+", "_", request.node.nodeid) + ".jsonl")
        shutil.copyfile(path, kept)
        print(f"the failing test's trace: {kept}")
