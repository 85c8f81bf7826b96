"""Hostile input, part 4: command-line options and config files.

Tracebacks became one ``qacamp ...: error:`` line naming the option or key;
unbounded values (trials, sizes, bins, grids, YAML alias bombs, a named pipe
as the config) are refused before anything is allocated or read, naming the
limit; values that were silently accepted (``--trials 0``, ``--bins 1``,
``--bin-width inf``, ``--fuzz nan``, ``fit --full-size 0``, shards of
different runs, duplicate YAML keys) are refused.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from hostile_util import clef, error_line, run_ingest, w

from qacamp import bounds
from qacamp.cli import main
from qacamp.configfile import MAX_CONFIG_NODES
from qacamp.io import write_text

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def here(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    w(tmp_path, "m.csv", "unit,a,b,c,d\n" + "".join(
        f"q{i},{(i * 7 % 10) / 10},{(i * 3 % 10) / 10},{(i * 5 % 10) / 10},{(i % 10) / 10}\n"
        for i in range(40)))
    return tmp_path


def refused(capsys, argv: list[str], command: str = "reliability") -> str:
    """``qacamp argv`` exits 2 with one error line (no traceback); returns it."""
    rc = main(argv)
    msg = error_line(capsys.readouterr().err, command)
    assert rc == 2, msg
    return msg


SWAP = ["reliability", "swap", "--matrix", "m.csv", "--sizes", "2:10:4", "--trials", "3"]
STAB = ["reliability", "stability", "--matrix", "m.csv", "--size", "10", "--trials", "3"]


# --------------------------------------------------------------------------- item 2 and 5: options

#: (argv, problem): the Python API gets the same cases (tests/test_api.py)
SILENT = [
    (SWAP + ["--trials", "0"], "--trials: 0 is not an integer >= 1"),
    (SWAP + ["--bins", "1"], "--bins: 1 is not an integer in [2, 10000]"),
    (SWAP + ["--seed", "-1"], "--seed: -1 is not an integer in [0, 9223372036854775807]"),
    # a seed past 64 bits was a traceback where a shard records it (and not without --shard)
    (SWAP + ["--seed", str(2**63), "--shard", "0/2"], "--seed: 9223372036854775808 is not an integer in [0, 9223372036854775807]"),
    (SWAP + ["--seed", str(2**63)], "--seed: 9223372036854775808 is not an integer in [0, 9223372036854775807]"),
    (["reliability", "significance", "--matrix", "m.csv", "--permutations", "20", "--seed",
      str(2**63)], "--seed: 9223372036854775808 is not an integer in [0, 9223372036854775807]"),
    (STAB + ["--trials", "0"], "--trials: 0 is not an integer >= 1"),
    (["reliability", "bootstrap", "--matrix", "m.csv", "--samples", "0"],
     "--samples: 0 is not an integer >= 1"),
]


@pytest.mark.parametrize("argv, problem", SILENT)
def test_values_that_were_silently_accepted(argv, problem, here, capsys):
    """`--trials 0` and `--bins 1` exited 0 with empty or one-bin counts."""
    assert problem in refused(capsys, argv + ["--out", "o.parquet"])
    assert not (here / "o.parquet").exists()


def test_fit_full_size_must_hold_the_counted_subsets(here, capsys):
    assert main([*SWAP, "--out", "c.parquet"]) == 0
    capsys.readouterr()
    fit = ["reliability", "fit", "--counts", "c.parquet", "--out", "f.parquet"]
    assert "--full-size: 0 is not an integer >= 1" in refused(capsys, fit + ["--full-size", "0"])
    msg = refused(capsys, fit + ["--full-size", "12"])
    assert "the counts hold subsets of size 10, and two disjoint subsets of that size need 20" \
        in msg
    assert not (here / "f.parquet").exists()
    assert main(fit + ["--full-size", "40"]) == 0


#: each was a MemoryError traceback; the limit is this machine's memory
HUGE = [
    (SWAP + ["--trials", "1000000000000"], "would need about"),
    (STAB + ["--trials", "100000000000"], "would need about"),
    (["reliability", "bootstrap", "--matrix", "m.csv", "--samples", "1000000000000"],
     "would need about"),
]


@pytest.mark.parametrize("argv, problem", HUGE)
def test_huge_trials_are_bounded_by_memory(argv, problem, here, capsys):
    msg = refused(capsys, argv + ["--out", "o.parquet"])
    assert problem in msg and "of memory, more than the" in msg and "this machine has (the limit)" \
        in msg and "more shards" in msg


def test_memory_limit_is_the_machines_or_the_environments(here, capsys, monkeypatch):
    """The limit is the machine's memory; QACAMP_MEMORY_LIMIT lowers it, which
    proves the check runs before the arrays are allocated."""
    assert bounds.memory_limit() > 2**30
    monkeypatch.setenv("QACAMP_MEMORY_LIMIT", str(10**6))
    msg = refused(capsys, SWAP + ["--out", "o.parquet"])
    assert "more than the 0.0 GiB this machine has (the limit)" in msg


def test_sizes_and_bins_beyond_what_memory_allows(here, capsys):
    msg = refused(capsys, [*SWAP[:5], "1:99999999999", "--out", "o.parquet"])
    assert "subset size 99999999999 is impossible" in msg and "largest possible size: 20" in msg
    msg = refused(capsys, SWAP + ["--bins", "2000000000", "--out", "o.parquet"])
    assert "--bins: 2000000000 is not an integer in [2, 10000]" in msg


def test_fuzz_grid_is_bounded(here, capsys):
    msg = refused(capsys, STAB + ["--fuzz", "0:1:0.0000001", "--out", "o.parquet"])
    assert "10,000,001 values, more than 1000 (the limit)" in msg
    msg = refused(capsys, STAB + ["--fuzz", "0:1:1e-300", "--out", "o.parquet"])
    assert "more than 1000 (the limit)" in msg


def test_workflow_errors_name_the_config_key(here, capsys):
    """With --config-prefix (the workflow) a bad value names the config key."""
    prefix = ["--config-prefix", "campaigns.c.reliability"]
    msg = refused(capsys, SWAP + prefix + ["--trials", "1000000000000", "--out", "o.parquet"])
    assert msg.startswith("config key 'campaigns.c.reliability.swap.trials': --trials ")
    msg = refused(capsys, STAB + prefix + ["--fuzz", "nan", "--out", "o.parquet"])
    assert msg.startswith("config key 'campaigns.c.reliability.stability.fuzz': ")


# --------------------------------------------------------------------------- item 5: merge

def _shards(here, capsys, kind: str, seed: int, n: int = 3) -> list[str]:
    extra = {"swap": SWAP[4:], "stability": STAB[4:] + ["--counts"],
             "bootstrap": ["--samples", "30", "--counts"]}[kind]
    paths = []
    for i in range(n):
        out = f"{kind}{seed}_{i}.parquet"
        assert main(["reliability", kind, "--matrix", "m.csv", *extra, "--seed", str(seed),
                     "--shard", f"{i}/{n}", "--out", out]) == 0
        paths.append(out)
    capsys.readouterr()
    return paths


@pytest.mark.parametrize("kind", ["swap", "stability", "bootstrap"])
def test_merge_checks_completeness_and_consistency(kind, here, capsys):
    """`reliability merge` summed a shard given twice and shards of different
    seeds: shard files carry their identity and merge checks it."""
    s7, s8 = _shards(here, capsys, kind, 7), _shards(here, capsys, kind, 8)
    merge = ["reliability", "merge", "--kind", kind, "out.parquet"]
    msg = refused(capsys, merge + [s7[0], s7[1], s7[1], s7[2]])
    assert msg.startswith(f"{s7[1]}: column shard: shard 1/3 is given twice")
    msg = refused(capsys, merge + [s7[0], s7[1]])
    assert "1 of the 3 shards are missing (2/3)" in msg
    msg = refused(capsys, merge + [s7[0], s7[1], s8[2]])
    assert msg.startswith(f"{s8[2]}: column seed: seed 8 differs from the seed 7 of {s7[0]}")
    assert not (here / "out.parquet").exists()
    assert main(merge + s7) == 0
    assert not {"shard", "n_shards", "seed", "settings"} & set(
        pl.read_parquet(here / "out.parquet").columns)


def test_merge_refuses_other_settings_and_unsharded_files(here, capsys):
    a = _shards(here, capsys, "swap", 7, n=2)
    assert main([*SWAP, "--bins", "30", "--seed", "7", "--shard", "1/2", "--out", "b.parquet"]) == 0
    assert main([*SWAP, "--seed", "7", "--out", "whole.parquet"]) == 0
    capsys.readouterr()
    merge = ["reliability", "merge", "--kind", "swap", "out.parquet"]
    msg = refused(capsys, merge + [a[0], "b.parquet"])
    assert "column settings: the settings differ from those of" in msg and "bins" in msg
    msg = refused(capsys, merge + ["whole.parquet"])
    assert msg.startswith("whole.parquet: column shard: not a shard file")
    msg = refused(capsys, ["reliability", "merge", "--kind", "stability", "out.parquet", *a])
    assert "not a stability shard file" in msg


# --------------------------------------------------------------------------- item 2: ingest, score

@pytest.mark.parametrize("runs, problem", [
    (5, "5 is not a path or a list of paths"),
    (None, "is null (required for kind clef-qa)"),
    ([5], "[5] is not a path or a list of paths"),
    ([], "[] is not a path or a list of paths"),
])
def test_campaign_json_with_runs_of_another_type(runs, problem, here, capsys):
    camp, _argv = clef(here)
    camp["runs"] = runs
    rc, err = run_ingest(capsys, camp, here / "results" / "ingest")
    assert rc == 2
    assert error_line(err, "ingest") == f"config key 'campaigns.eval.runs': {problem}. Fix: " + (
        "give the key 'runs' its value" if runs is None else
        "give a path or glob (text), or a list of them")
    assert not (here / "results").exists()


@pytest.mark.parametrize("content", ["[]", '"x"', '{"kind": "clef-qa", "options": []}'])
def test_score_when_campaign_json_is_not_an_object(content, here, capsys):
    camp, _argv = clef(here)
    out = here / "c" / "ingest"
    assert run_ingest(capsys, camp, out)[0] == 0
    (out / "campaign.json").write_text(content)
    argv = ["score", "--ingest", str(out), "--out", str(here / "c" / "scores")]
    # qacamp's record of the file says it changed since ingest wrote it
    msg = refused(capsys, argv, "score")
    assert msg.startswith(f"{out / 'campaign.json'}: changed since `qacamp ingest` wrote it")
    # recorded as it is (written by qacamp's own writer): the content itself is refused
    write_text(content, out / "campaign.json")
    capsys.readouterr()
    msg = refused(capsys, argv, "score")
    assert msg.startswith(f"{out / 'campaign.json'}: ")
    assert ("not a JSON object" in msg) if content != '{"kind": "clef-qa", "options": []}' \
        else ("key 'options': the resolved campaign's options are not a JSON object" in msg)
    assert not (here / "c" / "scores").exists()


# --------------------------------------------------------------------------- config files

def _config(here, text: str | bytes, name: str = "c.yaml") -> Path:
    path = here / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


CONFIG = ("campaigns:\n  mine:\n    kind: clef-qa\n    questions: q.tsv\n"
          "    runs: runs/*.tsv\n")


def ingest_config(capsys, path: Path, campaign: str = "mine") -> str:
    return refused(capsys, ["ingest", "--config", str(path), "--campaign", campaign, "--out",
                            "out"], "ingest")


def test_duplicate_yaml_key_is_refused(here, capsys):
    clef(here)
    path = _config(here, CONFIG + "    runs: runs/a.tsv\n")
    msg = ingest_config(capsys, path)
    assert msg.startswith(f"{path}: line 6: the key 'runs' appears twice in one mapping "
                          "(first at line 5)")
    # a merge key (`<<: *base`) may be overridden: that is no duplicate
    path = _config(here, "base: &b {kind: clef-qa, questions: q.tsv, runs: runs/b.tsv}\n"
                   "campaigns:\n  mine:\n    <<: *b\n    runs: runs/*.tsv\n")
    assert main(["ingest", "--config", str(path), "--campaign", "mine", "--out", "out"]) == 0


def test_utf16_config_is_one_line(here, capsys):
    path = _config(here, CONFIG.encode("utf-16"))
    msg = ingest_config(capsys, path)
    assert msg == (f"{path}: byte 0: the config file is UTF-16 (it starts with a UTF-16 "
                   "byte-order mark); Snakemake and qacamp read UTF-8 only. Fix: save the "
                   "file as UTF-8")


def test_yaml_alias_bomb_is_bounded(here, capsys):
    """Nine levels of nine aliases: a billion values once expanded.  Refused
    after counting the shared values once each (milliseconds)."""
    lines = ["x0: &a0 [q, q, q, q, q, q, q, q, q]"]
    lines += [f"x{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]" for i in range(1, 10)]
    path = _config(here, "\n".join(lines) + "\n" + CONFIG.replace("runs/*.tsv", "*a9"))
    msg = ingest_config(capsys, path)
    assert f"holds more than {MAX_CONFIG_NODES} values once its YAML aliases are expanded" in msg
    assert msg.startswith("config key 'campaigns.mine.runs")


def test_integer_and_boolean_campaign_names(here, capsys):
    msg = ingest_config(capsys, _config(here, CONFIG.replace("mine:", "2013:")), "2013")
    assert msg == ("config key 'campaigns': the key 2013 is a YAML number (int), not a name. "
                   "Fix: quote it, e.g. '2013':")
    msg = ingest_config(capsys, _config(here, CONFIG.replace("mine:", "yes:")), "yes")
    assert "the key True is a YAML boolean" in msg


def test_config_file_too_large(here, capsys):
    path = _config(here, CONFIG + "# " + "x" * (1024**2) + "\n")
    assert "larger than 1048576 bytes (the limit)" in ingest_config(capsys, path)


def test_config_naming_a_fifo_does_not_block(here):
    """`ingest --config` naming a named pipe without writer blocked forever."""
    os.mkfifo(here / "c.yaml")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    res = subprocess.run([sys.executable, "-c", "import sys; from qacamp.cli import main; "
                          "sys.exit(main(sys.argv[1:]))", "ingest", "--config", "c.yaml",
                          "--campaign", "mine", "--out", "out"], cwd=here, capture_output=True,
                         text=True, timeout=60, env=env)
    assert res.returncode == 2
    assert error_line(res.stderr, "ingest") == (
        "c.yaml: byte 0: the path is a named pipe, not a regular file. Fix: give the path of a "
        "regular file (qacamp never reads pipes or devices)")


def test_config_with_non_finite_number_through_ingest(here, capsys):
    clef(here)
    msg = ingest_config(capsys, _config(here, CONFIG + "    min_coverage: .nan\n"))
    assert msg == ("config key 'campaigns.mine.min_coverage': nan is not a finite number. Fix: "
                   "give a finite number (.nan and .inf are never valid)")


def test_schema_and_bounds_agree():
    from qacamp.plan import config_schema

    schema = config_schema(ROOT / "workflow/schemas/config.schema.yaml")
    assert schema["properties"]["shards"]["maximum"] == bounds.MAX_SHARDS
    swap = schema["$defs"]["reliability"]["properties"]["swap"]["properties"]
    assert swap["bins"]["maximum"] == bounds.MAX_BINS
    assert schema["$defs"]["reliability"]["properties"]["seed"]["maximum"] == bounds.MAX_SEED
    json.dumps(schema)  # plain data
