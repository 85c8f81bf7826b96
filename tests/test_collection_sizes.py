"""Defaults that fit the collection: swap sizes, stability size and bootstrap
settings follow the collection's own size (a 160-question QA4MRE 2012 gold is
smaller than 2013's 240), and an impossible configured size names its config
key and the largest possible value."""

from __future__ import annotations

import json

import numpy as np
import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.cli import main
from qacamp.plan import reliability_plan
from qacamp.readers.qa4mre import read_gold

GOLD = SHARED_DATA / "qa4mre" / "QA4MRE-2012-EN_GS.xml"


def write_runs(tmp_path, n_runs: int = 12):
    """Runs over the real 2012 gold: run k answers right with probability 0.2 + 0.05 k."""
    q, o = read_gold(GOLD)
    correct = dict(o.filter(pl.col("correct")).select("qid", "option").iter_rows())
    rng = np.random.default_rng(7)
    paths = []
    for k in range(n_runs):
        by_test: dict[tuple[str, str], list[str]] = {}
        for qid in q["qid"].to_list():
            t, r, n = qid.split(".")
            right = rng.random() < 0.2 + 0.05 * k
            answer = correct[qid] if right else ("1" if correct[qid] != "1" else "2")
            by_test.setdefault((t, r), []).append(
                f'<question q_id="{n}" answered="YES"><answer a_id="{answer}"/></question>')
        body = "".join(f'<topic t_id="{t}"><reading-test r_id="{r}">{"".join(qs)}'
                       f"</reading-test></topic>" for (t, r), qs in by_test.items())
        path = tmp_path / f"run{k:02d}.xml"
        path.write_text(f'<output run_id="run{k:02d}">{body}</output>', encoding="utf-8")
        paths.append(str(path))
    return paths


@pytest.mark.skipif(not GOLD.exists(), reason="../shared/data missing")
def test_defaults_fit_a_160_question_gold(tmp_path, capsys):
    runs = write_runs(tmp_path)
    campaign = {"kind": "qa4mre", "gold": str(GOLD), "runs": runs}
    ingest, scores = tmp_path / "c" / "ingest", tmp_path / "c" / "scores"
    assert main(["ingest", "--campaign-json", json.dumps(campaign), "--name", "q2012",
                 "--out", str(ingest)]) == 0
    assert main(["score", "--ingest", str(ingest), "--out", str(scores)]) == 0
    assert pl.read_parquet(ingest / "questions.parquet").height == 160
    plan = reliability_plan(campaign)
    src = ["--scores", str(scores), "--measure", "c_at_1", "--judgment-set", "gold",
           "--config-prefix", "campaigns.q2012.reliability"]
    # the kind's defaults: sizes 10..half (80) in about 25 steps, stability at half
    assert main(["reliability", "swap", *src, "--sizes", plan["swap"]["sizes"], "--trials", "3",
                 "--out", str(tmp_path / "swap.parquet")]) == 0
    sizes = sorted(set(pl.read_parquet(tmp_path / "swap.parquet")["size"].to_list()))
    assert sizes[0] == 10 and sizes[-1] == 80
    assert main(["reliability", "stability", *src, "--size", plan["stability"]["size"],
                 "--trials", "3", "--out", str(tmp_path / "stab.parquet")]) == 0
    assert pl.read_parquet(tmp_path / "stab.parquet")["size"].unique().to_list() == [80]
    assert main(["reliability", "bootstrap", *src[:6], "--samples", "20",
                 "--out", str(tmp_path / "boot.parquet")]) == 0
    # a configured size the collection cannot hold: the key and the largest value
    capsys.readouterr()
    assert main(["reliability", "swap", *src, "--sizes", "10:120:10", "--trials", "3",
                 "--out", str(tmp_path / "bad.parquet")]) == 2
    err = capsys.readouterr().err
    assert "config key 'campaigns.q2012.reliability.swap.sizes'" in err
    assert "largest possible size: 80" in err and "Traceback" not in err
    assert not (tmp_path / "bad.parquet").exists()
    assert main(["reliability", "stability", *src, "--size", "200", "--trials", "3",
                 "--out", str(tmp_path / "bad2.parquet")]) == 2
    err = capsys.readouterr().err
    assert "campaigns.q2012.reliability.stability.size" in err and "160" in err


def test_size_grammar():
    from qacamp.errors import UsageError
    from qacamp.reliability.seeds import parse_size, parse_sizes

    assert parse_sizes("1:half", 500) == list(range(1, 251))          # Voorhees 2003: 1..250
    assert parse_sizes("5:half", 64) == list(range(5, 33))            # Voorhees 2005: 5..32
    assert parse_sizes("10:half:auto", 500) == list(range(10, 251, 10))
    assert parse_sizes("10:half:auto", 160)[-1] == 80
    assert parse_sizes("half", 160) == [80] and parse_size("half", 500) == 250
    with pytest.raises(UsageError, match="needs the collection size"):
        parse_sizes("1:half")
