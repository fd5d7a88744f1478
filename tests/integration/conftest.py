"""Every integration test runs traced, and a failing one keeps its trace (tests/traces.py)."""

from tests.traces import pytest_runtest_makereport, traced  # noqa: F401 - every test here runs traced
