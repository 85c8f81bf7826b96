"""Fixtures shared by several test modules.

The expensive ones are made once per session, for every module that asks:
the demo run with the README's command (``demo_work``, ``demo``,
``demo_log``), the ingest and the scores of single demo campaigns
(``demo_ingest``, ``demo_scores``) and the simulated files of a small CLEF-QA campaign
(``small_campaign`` copies them into the test's own folder).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from workflow_util import DEMO_OUT, ROOT, demo_run, qacamp_in_root, small_clef_campaign

#: the session's demo run
DEMO_FIXTURES = {"_demo", "demo_work", "demo", "demo_log"}
#: fixtures that run the workflow: a test asking for one is slow whatever its marks
WORKFLOW_FIXTURES = DEMO_FIXTURES

#: `make test` runs the tests in a process per core and one more (pytest-xdist),
#: one file at a time per process, except that the files whose tests read a
#: session run go as one group to one process, so that run is made once.
#: These groups come first, then the other files holding slow tests, then the
#: rest: the longest work is handed out first, and the last files to be handed
#: out take seconds, so the processes end together.
GROUPS = {
    "demo run": {"test_demo.py", "test_hostile_damage.py", "test_interrupt_demo.py",
                 "test_pages_publish.py", "test_report_browser.py", "test_workflow_log.py"},
    "demo campaigns": {"test_scoring_parallel.py", "test_scoring_rowgroups.py",
                       "test_scoring_shards.py"},
}
_GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}
_SESSION_RUN = {"demo run": DEMO_FIXTURES, "demo campaigns": {"demo_ingest", "demo_scores"}}


def _ranks(items: list[pytest.Item]):
    """The order files are handed out in: the groups, then the files with a
    slow test, then the others (each file's tests keep their order)."""
    slow = {item.path.name for item in items if item.get_closest_marker("slow")}

    def rank(item: pytest.Item) -> int:
        group = _GROUP_OF.get(item.path.name)
        if group:
            return list(GROUPS).index(group)
        return len(GROUPS) + (item.path.name not in slow)

    return rank


def pytest_collection_modifyitems(items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if WORKFLOW_FIXTURES & names:
            item.add_marker(pytest.mark.slow)
        for group, fixtures in _SESSION_RUN.items():
            if fixtures & names and item.path.name not in GROUPS[group]:
                raise pytest.UsageError(
                    f"{item.nodeid} uses the session's {group}: add {item.path.name} to "
                    f"GROUPS[{group!r}] in tests/conftest.py (else each test process "
                    "would make that run again)")
    items.sort(key=_ranks(items))  # stable: the order within a file is kept


def pytest_xdist_make_scheduler(config, log):
    """Under `make test` (``-n N --dist loadscope``): one work unit per file,
    or per group of :data:`GROUPS`."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class FileGroups(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return _GROUP_OF.get(path.rsplit("/", 1)[-1], path)

    return FileGroups(config, log)


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


# --------------------------------------------------------------------------- demo campaigns

@pytest.fixture(scope="session")
def demo_ingest(tmp_path_factory):
    """``demo_ingest(name)``: the ingest folder of config/config.yaml's
    campaign ``name`` (`qacamp ingest`), made once per session; tests only
    read it."""
    made: dict[str, Path] = {}

    def ingest(name: str) -> Path:
        if name not in made:
            out = tmp_path_factory.mktemp(name) / "ingest"
            assert qacamp_in_root("ingest", "--config", ROOT / "config" / "config.yaml",
                                  "--campaign", name, "--out", out) == 0
            made[name] = out
        return made[name]

    return ingest


@pytest.fixture(scope="session")
def demo_scores(demo_ingest):
    """``demo_scores(name)``: (ingest folder, folder of one default `qacamp
    score`) of the demo campaign ``name``, made once per session; tests only
    read them."""
    made: dict[str, tuple[Path, Path]] = {}

    def scores(name: str) -> tuple[Path, Path]:
        if name not in made:
            ingest = demo_ingest(name)
            out = ingest.parent / "scores"
            assert qacamp_in_root("score", "--ingest", ingest, "--out", out) == 0
            made[name] = ingest, out
        return made[name]

    return scores


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
