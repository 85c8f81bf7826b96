"""Fixtures shared by several test modules.

The expensive ones are made once, for every module that asks: the demo run
with the README's command (``demo_work``, ``demo``, ``demo_log``; once for
all test processes), the ingest and the scores of single demo campaigns
(``demo_ingest``, ``demo_scores``) and the simulated files of a small CLEF-QA
campaign (``small_campaign`` copies them into the test's own folder; these
once per test process).
"""

from __future__ import annotations

import fcntl
import functools
import json
import shutil
import subprocess
from pathlib import Path

import pytest
from workflow_util import DEMO_OUT, ROOT, demo_run, qacamp_in_root, small_clef_campaign

#: the session's demo run: a test asking for one is slow whatever its marks
DEMO_FIXTURES = {"_demo", "demo_work", "demo", "demo_log"}

#: `make test` runs the tests in a process per core and one more (pytest-xdist),
#: one file at a time per process, except that the files of a group go
#: together to one process: the files reading the session's demo run (made
#: once for all processes, by the first that asks: :func:`_demo`), and the
#: demo killed and resumed (a second demo run, made by another process
#: meanwhile).  These groups come first, then the :data:`LONGEST` files, then
#: the other files holding slow tests, then the rest: the longest work is
#: handed out first, and the last files to be handed out take seconds, so
#: the processes end together (with `-m "not slow"` too).
GROUPS = {
    "demo run": {"test_demo.py", "test_hostile_damage.py", "test_pages_publish.py",
                 "test_report_browser.py", "test_workflow_log.py"},
    "demo resumed": {"test_interrupt_demo.py"},
    # the parametric Tukey HSD of every pair of a real matrix (:func:`real_tukey`)
    "tukey on real matrices": {"test_letters.py", "test_significance_effects.py"},
}
#: after the groups, the files that take longest (a minute or more of a
#: `make test` on 2 cores), longest first
LONGEST = ("test_workflow.py", "test_slurm.py", "test_scoring_parallel.py",
           "test_significance_effects.py", "test_scoring_rowgroups.py", "test_benchmarks.py",
           "test_hostile_limits.py", "test_injection.py", "test_ownership.py",
           "test_hostile_workflow.py", "test_scoring_shards.py")
_GROUP_OF = {name: group for group, names in GROUPS.items() for name in names}
#: session fixtures -> the groups whose files may ask for them
_SESSION_RUN = {"the demo run": (DEMO_FIXTURES, {"demo run", "demo resumed"}),
                "the Tukey HSD of a real matrix": ({"real_tukey"}, {"tukey on real matrices"})}


def _ranks(items: list[pytest.Item]):
    """The order files are handed out in: the groups, the :data:`LONGEST`
    files, then the files with a slow test, then the others (each file's
    tests keep their order)."""
    slow = {item.path.name for item in items if item.get_closest_marker("slow")}
    order = [*GROUPS, *LONGEST]

    def rank(item: pytest.Item) -> int:
        name = item.path.name
        at = _GROUP_OF.get(name, name)
        if at in order:
            return order.index(at)
        return len(order) + (name not in slow)

    return rank


def pytest_collection_modifyitems(items):
    for item in items:
        names = set(getattr(item, "fixturenames", ()))
        if DEMO_FIXTURES & names:
            item.add_marker(pytest.mark.slow)
        for what, (fixtures, groups) in _SESSION_RUN.items():
            if fixtures & names and _GROUP_OF.get(item.path.name) not in groups:
                raise pytest.UsageError(
                    f"{item.nodeid} uses {what}: add {item.path.name} to one of the "
                    f"GROUPS {sorted(groups)} in tests/conftest.py (else each test "
                    "process would wait for it or make it again)")
    items.sort(key=_ranks(items))  # stable: the order within a file is kept


#: deprecations met at qacamp's own code (a library API it still uses): the
#: session fails, before a library release changes what that code does
_OWN_CODE = str(ROOT / "src" / "qacamp") + "/"
_DEPRECATIONS: list[str] = []


def pytest_warning_recorded(warning_message, when, nodeid, location):
    if issubclass(warning_message.category, (DeprecationWarning, FutureWarning)) \
            and str(warning_message.filename).startswith(_OWN_CODE):
        _DEPRECATIONS.append(f"{nodeid or when}: {warning_message.filename}:"
                             f"{warning_message.lineno}: {warning_message.message}")


def pytest_sessionfinish(session, exitstatus):
    if _DEPRECATIONS:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter):
    if _DEPRECATIONS:
        lines = sorted(set(_DEPRECATIONS))
        terminalreporter.section("deprecations at qacamp's own code: fix the calls", red=True)
        for line in lines[:20]:
            terminalreporter.line(line)


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
def _demo(tmp_path_factory, worker_id) -> tuple[Path, subprocess.CompletedProcess]:
    """(workdir, what it printed) of the clean demo run, made once per `pytest`
    run: under pytest-xdist by the first test process that asks, in the folder
    shared by the processes' temporary folders, while the others wait on a
    lock beside it and then read what it made."""
    if worker_id == "master":
        work = tmp_path_factory.mktemp("demo")
        return work, demo_run(work)
    shared = tmp_path_factory.getbasetemp().parent
    work, done = shared / "demo", shared / "demo.json"
    with open(shared / "demo.lock", "w") as lock:
        # released when the file closes; a wait past the per-test limit
        # (pytest-timeout, pyproject.toml) fails the test
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.is_file():  # (a process whose run failed left no record)
            shutil.rmtree(work, ignore_errors=True)
            work.mkdir()
            res = demo_run(work)
            done.write_text(json.dumps([res.args, res.returncode, res.stdout, res.stderr]))
        args, code, out, err = json.loads(done.read_text())
    return work, subprocess.CompletedProcess(args, code, out, err)


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


# --------------------------------------------------------------------------- real matrices

@pytest.fixture(scope="session")
def real_tukey():
    """``real_tukey(name, runs=None)``: (matrix, pairs, summary) of the
    parametric ANOVA and Tukey HSD (`anova-tukey`, alpha 0.05) on the real
    score matrix ``name`` of ../shared/data (its first ``runs`` runs), made
    once per test process: scipy's studentized range takes about 10 ms a
    pair, 10 s for the 1,081 pairs of Genomics 2004, so the files asking for
    it go to one process (:data:`GROUPS`).  Tests only read it."""
    from paths import SHARED_DATA

    from qacamp.loader import read_matrix_file
    from qacamp.reliability.significance import significance_test

    @functools.cache
    def tukey(name: str, runs: int | None = None):
        m = read_matrix_file(SHARED_DATA / "score-matrices" / f"{name}.csv", measure="ap")
        if runs:
            m = m.select_runs(list(m.runs[:runs]))
        return (m, *significance_test(m, "anova-tukey", alpha=0.05))

    return tukey


# --------------------------------------------------------------------------- demo campaigns

@pytest.fixture(scope="session")
def demo_ingest(tmp_path_factory):
    """``demo_ingest(name)``: the ingest folder of config/config.yaml's
    campaign ``name`` (`qacamp ingest`), made once per test process; tests
    only read it."""
    @functools.cache
    def ingest(name: str) -> Path:
        out = tmp_path_factory.mktemp(name) / "ingest"
        assert qacamp_in_root("ingest", "--config", ROOT / "config" / "config.yaml",
                              "--campaign", name, "--out", out) == 0
        return out

    return ingest


@pytest.fixture(scope="session")
def demo_scores(demo_ingest):
    """``demo_scores(name)``: (ingest folder, folder of one default `qacamp
    score`) of the demo campaign ``name``, made once per test process; tests
    only read them."""
    @functools.cache
    def scores(name: str) -> tuple[Path, Path]:
        ingest = demo_ingest(name)
        out = ingest.parent / "scores"
        assert qacamp_in_root("score", "--ingest", ingest, "--out", out) == 0
        return ingest, out

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
