"""`qacamp reliability` command line: swap/merge/fit/stability/bootstrap/kendall."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest
from paths import SHARED_DATA
from snakemake.utils import validate

from qacamp.cli import main
from qacamp.io import write_parquet
from qacamp.plan import config_schema, reliability_plan, validate_config
from qacamp.reliability.curves import MODELS
from qacamp.reliability.ranking import VARIANTS

WEB = str(SHARED_DATA / "score-matrices" / "web2004.csv")


def test_cli_swap_shards_merge_fit(tmp_path):
    base = ["reliability", "swap", "--matrix", WEB, "--sizes", "5:30:5", "--trials", "6",
            "--seed", "7", "--measure", "map"]
    assert main([*base, "--out", str(tmp_path / "all.parquet")]) == 0
    shards = []
    for i in range(3):
        out = tmp_path / f"s{i}.parquet"
        assert main([*base, "--shard", f"{i}/3", "--out", str(out)]) == 0
        shards.append(str(out))
    assert main(["reliability", "merge", "--kind", "swap", str(tmp_path / "m.parquet"), *shards]) == 0
    assert (tmp_path / "m.parquet").read_bytes() == (tmp_path / "all.parquet").read_bytes()
    df = pl.read_parquet(tmp_path / "all.parquet")
    assert df.columns == ["size", "bin", "swaps", "comparisons", "max_score"]
    assert df.height == 6 * 21
    assert main(["reliability", "fit", "--counts", str(tmp_path / "all.parquet"), "--matrix", WEB,
                 "--min-fit-size", "5", "--out", str(tmp_path / "fits.parquet"),
                 "--summary", str(tmp_path / "sum.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "sum.parquet")["full_size"].item() == 150


def test_cli_stability_bootstrap_kendall_and_errors(tmp_path, capsys):
    out = tmp_path / "stab.parquet"
    assert main(["reliability", "stability", "--matrix", WEB, "--size", "25", "--trials", "10",
                 "--fuzz", "0.01:0.10:0.01", "--out", str(out)]) == 0
    stab = pl.read_parquet(out)
    assert {"fuzziness", "error_rate", "prop_ties"} <= set(stab.columns) and stab.height == 10
    assert main(["reliability", "bootstrap", "--matrix", WEB, "--samples", "50",
                 "--out", str(tmp_path / "bp.parquet"),
                 "--summary", str(tmp_path / "bs.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "bs.parquet")["n_pairs"].item() == 73 * 72 // 2
    assert main(["reliability", "kendall", f"a={WEB}", f"b={WEB}",
                 "--out", str(tmp_path / "k.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "k.parquet")["tau"].item() == 1.0
    assert main(["reliability", "swap", "--matrix", WEB, "--sizes", "70:80", "--trials", "2",
                 "--out", str(tmp_path / "x.parquet")]) == 2
    assert "impossible" in capsys.readouterr().err
    bad = tmp_path / "bad.csv"
    bad.write_text("a,b\n0.1,x\n")
    assert main(["reliability", "swap", "--matrix", str(bad), "--sizes", "1", "--trials", "1",
                 "--out", str(tmp_path / "y.parquet")]) == 2
    assert "line 2" in capsys.readouterr().err


def test_cli_scores_dir(tmp_path):
    rows = [{"judgment_set": "gold", "run": f"r{r}", "qid": f"q{q}", "rank": q,
             "answered": True, "outcome": "R" if (q * (r + 1)) % 3 else "W"}
            for r in range(4) for q in range(20)]
    write_parquet(pl.DataFrame(rows).cast({"rank": pl.Int32}), tmp_path / "outcomes.parquet")
    assert main(["reliability", "swap", "--scores", str(tmp_path), "--measure", "cws",
                 "--judgment-set", "gold", "--sizes", "2:10:4", "--trials", "3",
                 "--out", str(tmp_path / "sw.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "sw.parquet")["comparisons"].sum() == 3 * 3 * 6


def test_config_keys_of_the_fit_and_kendall_settings_reach_the_plan():
    schema = str(Path(__file__).resolve().parents[1] / "workflow/schemas/config.schema.yaml")
    camp = {"kind": "clef-qa", "questions": "q.tsv", "runs": "r/*.tsv",
            "reliability": {"swap": {"mode": "observed", "observed_at": 250,
                                     "fit": "exp-loglinear", "fitted_bins": "0.01:0.16",
                                     "min_runs": 12, "min_comparisons": 50},
                            "kendall": {"variant": "tau_a_by_name"}}}
    cfg = {"campaigns": {"c": camp}}
    validate_config(cfg, schema)
    plan = reliability_plan(camp, cfg)
    assert {k: plan["swap"][k] for k in ("mode", "observed_at", "fit", "fitted_bins",
                                         "min_runs", "min_comparisons")} == \
        camp["reliability"]["swap"]
    assert plan["kendall"] == {"variant": "tau_a_by_name"}
    default = reliability_plan({"kind": "clef-qa"})
    assert (default["swap"]["fit"], default["swap"]["mode"], default["kendall"]["variant"]) == \
        ("exp-binomial", "extrapolate", "tau_b")
    # every schema value is one the command line accepts
    spec = config_schema(schema)["$defs"]["reliability"]["properties"]
    assert spec["swap"]["properties"]["fit"]["enum"] == list(MODELS)
    assert spec["kendall"]["properties"]["variant"]["enum"] == list(VARIANTS)
    bad = {"campaigns": {"c": {**camp, "reliability": {"swap": {"fit": "exp"}}}}}
    with pytest.raises(Exception, match="exp"):
        validate(bad, schema)
