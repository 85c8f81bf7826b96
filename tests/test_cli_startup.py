"""The command starts fast: only the subcommand being run is imported."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("polars", "numpy", "scipy", "matplotlib", "duckdb", "pyarrow")
PROBE = """
import sys
from qacamp.cli import main
try:
    main({argv!r})
except SystemExit:
    pass
print("MODULES:" + ",".join(m for m in {heavy!r} if m in sys.modules))
"""


def loaded(argv: list[str]) -> set[str]:
    res = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=HEAVY)],
                         capture_output=True, text=True, timeout=120)
    line = [ln for ln in res.stdout.splitlines() if ln.startswith("MODULES:")][-1]
    return set(filter(None, line.removeprefix("MODULES:").split(",")))


def test_version_and_help_import_no_heavy_library():
    assert loaded(["--version"]) == set()
    assert loaded(["--help"]) == set()


def test_a_subcommand_imports_what_it_needs_only():
    # presets and measures' help: no dataframe library needed to list them
    assert loaded(["presets", "--help"]) == set()
    # eval needs polars, never matplotlib or duckdb
    assert not {"matplotlib", "duckdb"} & loaded(["eval", "pan", "--help"])


def test_every_subcommand_still_parses(capsys):
    from qacamp.cli import HELP, build_parser

    parser = build_parser()  # all registered
    for name in HELP:
        try:
            parser.parse_args([name, "--help"])
        except SystemExit as exc:
            assert exc.code == 0
    assert "qacamp eval" in capsys.readouterr().out


def test_a_reliability_step_imports_no_scipy_matplotlib_or_duckdb():
    # every reliability shard and merge is a process of its own (a demo run
    # starts ~200): the analysis registry imports every kernel module, so a
    # kernel imports scipy inside the function that needs it
    for analysis in ("swap", "merge", "design", "significance"):
        assert not {"scipy", "matplotlib", "duckdb"} & loaded(["reliability", analysis, "--help"])


def test_scoring_loads_no_pandas_scipy_matplotlib_or_duckdb(demo_ingest, tmp_path):
    # pyarrow loads pandas (0.2 s) on some calls (Schema.empty_table, Array.to_numpy)
    # when it is installed: scoring avoids them; a demo run scores in 6 processes
    probe = ("pandas", "scipy", "matplotlib", "duckdb")
    for name in ("trec2002", "qa4mre2013"):
        argv = ["score", "--ingest", str(demo_ingest(name)), "--out", str(tmp_path / name)]
        res = subprocess.run([sys.executable, "-c", PROBE.format(argv=argv, heavy=probe)],
                             capture_output=True, text=True, timeout=300)
        assert (tmp_path / name / "runs.parquet").is_file(), res.stderr[-2000:]
        line = [ln for ln in res.stdout.splitlines() if ln.startswith("MODULES:")][-1]
        assert line == "MODULES:", (name, line)
