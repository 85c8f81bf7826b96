"""Fixtures shared by several test modules."""

from __future__ import annotations

import pytest


@pytest.fixture
def here(tmp_path, monkeypatch):
    """The test's own folder as the current folder (relative paths in configs)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path
