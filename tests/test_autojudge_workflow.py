"""Automatic judging end to end: a TREC-2004 factoid campaign with the real
answer patterns and `autojudge: true` gets an extra judgment set `automatic`,
scored separately from (never mixed into) the human judgments; a pathological
pattern cannot hang evaluation."""

from __future__ import annotations

import subprocess
import sys

import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.ingest import ingest_campaign, resolved_campaign
from qacamp.scoring import score_campaign

DATA = SHARED_DATA / "trec-qa"


@pytest.mark.skipif(not DATA.exists(), reason="../shared/data missing")
def test_autojudge_is_its_own_judgment_set(tmp_path):
    # three questions of the real TREC 2004 set; patterns: 1.4 black, 1.5 blue, 2.1 Limp Bizkit
    run = tmp_path / "run1.txt"
    run.write_text("1.4 run1 NYT19980619.0373 R they are mostly black\n"
                   "1.5 run1 NYT19981021.0298 W red\n"
                   "2.1 run1 APW20000908.0051 R Limp Bizkit\n")
    campaign = {"kind": "trec-factoid", "questions": str(DATA / "trec13questions.xml"),
                "judgment_sets": {"adjudicated": str(run)},
                "patterns": str(DATA / "trec13patterns_factoid"), "autojudge": True}
    tables = ingest_campaign("t", campaign, tmp_path)
    options = resolved_campaign("t", campaign, tmp_path)
    assert options["options"]["autojudge"] is True
    result = score_campaign("trec-factoid", tables, options)
    units = result["units"].filter(pl.col("measure") == "accuracy")
    human = dict(units.filter(pl.col("judgment_set") == "adjudicated")
                 .select("unit", "value").iter_rows())
    auto = dict(units.filter(pl.col("judgment_set") == "automatic")
                .select("unit", "value").iter_rows())
    # the human judgments are untouched by the patterns
    assert (human["1.4"], human["1.5"], human["2.1"]) == (1.0, 0.0, 1.0)
    # patterns: "black" matches, "red" does not match "blue", "Limp Bizkit" matches
    assert (auto["1.4"], auto["1.5"], auto["2.1"]) == (1.0, 0.0, 1.0)
    assert set(result["runs"]["judgment_set"].unique()) == {"adjudicated", "automatic"}


def test_without_autojudge_no_automatic_set(tmp_path):
    run = tmp_path / "run1.txt"
    run.write_text("1.4 run1 NYT19980619.0373 R black\n")
    campaign = {"kind": "trec-factoid", "questions": str(DATA / "trec13questions.xml"),
                "judgment_sets": {"adjudicated": str(run)},
                "patterns": str(DATA / "trec13patterns_factoid")}
    tables = ingest_campaign("t", campaign, tmp_path)
    result = score_campaign("trec-factoid", tables, resolved_campaign("t", campaign, tmp_path))
    assert set(result["units"]["judgment_set"].unique()) == {"adjudicated"}


def test_pathological_pattern_is_bounded():
    # (a+)+$ is refused when compiled (a repeated group that repeats inside);
    # (?:a|a)x30 b passes that check but backtracks 2^30 steps on "a"*30 + "c"
    # without a bound; in a child process so that a regression fails the test
    # instead of hanging it
    code = ("from qacamp.autojudge import compile_pattern, matches\n"
            "from qacamp.errors import InputError\n"
            "try:\n"
            "    compile_pattern('(a+)+$', 'x')\n"
            "except InputError as exc:\n"
            "    print('refused' if 'repeated' in exc.problem else exc)\n"
            "evil = compile_pattern('(?:a|a)' * 30 + 'b', 'x')\n"
            "print(matches(evil, 'a' * 30 + 'c', timeout=0.05))\n")
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert res.returncode == 0, res.stderr
    assert res.stdout.split() == ["refused", "False"]  # a timed-out search counts as no match
