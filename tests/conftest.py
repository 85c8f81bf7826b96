"""Fixtures shared by several test modules.

The expensive ones are made once per session, for every module that asks:
the demo run with the README's command (``demo_work``, ``demo``,
``demo_log``), the clean run of a small two-campaign config
(``reference_run``), and the simulated files of a small CLEF-QA campaign
(``small_campaign`` copies them into the test's own folder).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from workflow_util import DEMO_OUT, demo_run, run_clean, small_clef_campaign

#: the session's demo run: its tests share one group (one worker, one run)
DEMO_FIXTURES = {"_demo", "demo_work", "demo", "demo_log"}
#: fixtures that run the workflow: a test asking for one is slow whatever its marks
WORKFLOW_FIXTURES = DEMO_FIXTURES | {"reference_run"}


def _group(item: pytest.Item) -> tuple[int, str]:
    """(rank, name) of the worker group of a test under `make test`
    (pytest-xdist, ``--dist loadgroup``): the tests of the session's demo run,
    those of the reference run, then one group per file, so a session or
    module fixture is built once, by the one worker that runs its tests.  The
    two workflow groups come first: they are the longest."""
    names = set(getattr(item, "fixturenames", ()))
    if DEMO_FIXTURES & names:
        return 0, "demo"
    if "reference_run" in names:
        return 1, "reference"
    return 2, item.path.name


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups
def pytest_collection_modifyitems(items):
    ranks = {}
    for item in items:
        if WORKFLOW_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
        rank, name = _group(item)
        ranks[item.nodeid] = rank
        if not any(item.iter_markers("xdist_group")):
            item.add_marker(pytest.mark.xdist_group(name))
    items.sort(key=lambda item: ranks[item.nodeid])  # stable: file order kept within


@pytest.fixture
def here(tmp_path, monkeypatch):
    """The test's own folder as the current folder (relative paths in configs)."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


# --------------------------------------------------------------------------- workflow runs

@pytest.fixture(scope="session")
def _demo(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    work = tmp_path_factory.mktemp("demo")
    return work, demo_run(work)


@pytest.fixture(scope="session")
def demo_work(_demo) -> Path:
    """The workdir of the session's one clean demo run (`make run
    CONFIG=config/config.yaml`, the README's command); tests only read it (copy
    it to change anything)."""
    return _demo[0]


@pytest.fixture(scope="session")
def demo(demo_work) -> Path:
    """The results folder of the session's demo run (``demo_work / DEMO_OUT``)."""
    return demo_work / DEMO_OUT


@pytest.fixture(scope="session")
def demo_log(_demo) -> subprocess.CompletedProcess:
    """What the session's demo run printed (as a person sees it)."""
    return _demo[1]


@pytest.fixture(scope="session")
def reference_run(tmp_path_factory) -> Path:
    """The workdir of one clean, uninterrupted run of the small two-campaign
    config (workflow_util.campaign_config); tests only read it."""
    return run_clean(tmp_path_factory.mktemp("reference"))


# --------------------------------------------------------------------------- a small campaign

@pytest.fixture(scope="session")
def _small_campaign_files(tmp_path_factory) -> Path:
    base = tmp_path_factory.mktemp("small_campaign")
    small_clef_campaign(base, runs=3, questions=30)
    return base


@pytest.fixture
def small_campaign(_small_campaign_files, tmp_path) -> Path:
    """A small CLEF-QA campaign (3 runs x 30 questions, simulated once per
    session) in the test's own folder: ``data/`` and the config ``mine.yaml``
    (workflow_util.small_clef_campaign), whose path is returned."""
    shutil.copytree(_small_campaign_files / "data", tmp_path / "data")
    return Path(shutil.copy(_small_campaign_files / "mine.yaml", tmp_path / "mine.yaml"))
