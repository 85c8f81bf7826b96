"""Campaign configuration: schema validation as the workflow does it, and the
resolved reliability plan (kind defaults < top level < campaign block)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from snakemake.utils import validate

from qacamp.config import bootstrap_measures, expand_files, primary_judgment_set, reliability_plan
from qacamp.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def campaign(**extra):
    return {"kind": "clef-qa", "questions": "q.tsv", "runs": "r/*.tsv", **extra}


def test_top_level_seed_survives_schema_validation():
    # the workflow validates (and fills schema defaults) before planning: a default
    # seed in the campaign block would silently mask the top-level one
    cfg = {"reliability": {"seed": 7}, "campaigns": {"a": campaign(reliability={"swap": {"trials": 3}})}}
    validate(cfg, SCHEMA)
    plan = reliability_plan(cfg["campaigns"]["a"], cfg)
    assert plan["seed"] == 7
    assert plan["swap"]["trials"] == 3
    assert plan["swap"]["bin_width"] == 0.01 and plan["swap"]["bins"] == 21


def test_campaign_block_overrides_top_level():
    cfg = {"reliability": {"seed": 7, "swap": {"trials": 5}},
           "campaigns": {"a": campaign(reliability={"seed": 9})}}
    validate(cfg, SCHEMA)
    plan = reliability_plan(cfg["campaigns"]["a"], cfg)
    assert (plan["seed"], plan["swap"]["trials"]) == (9, 5)


def test_kind_defaults_are_the_papers_settings():
    trec = reliability_plan({"kind": "trec-factoid", "judgment_sets": {"adjudicated": "x"}})
    assert trec["swap"]["sizes"] == "1:250" and trec["swap"]["trials"] == 10
    assert trec["measures"] == ["cws", "accuracy"] and trec["judgment_set"] == "adjudicated"
    series = reliability_plan({"kind": "trec-series", "judgment_sets": {"a": {}}})
    assert series["swap"]["sizes"] == "5:32" and series["swap"]["trials"] == 50
    assert bootstrap_measures(["c_at_1", "cws", "accuracy"]) == ["accuracy"]


def test_demo_config_is_valid():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    validate(cfg, SCHEMA)
    assert {"trec2002", "trec2004", "qa4mre2013", "clef2009"} <= set(cfg["campaigns"])


def test_unknown_key_is_rejected_with_its_name():
    cfg = {"campaigns": {"a": campaign(judgement_sets={})}}
    with pytest.raises(Exception, match="judgement_sets"):
        validate(cfg, SCHEMA)


def test_primary_judgment_set():
    assert primary_judgment_set({"kind": "trec-factoid",
                                 "judgment_sets": {"a1": "x", "adjudicated": "y"}}) == "adjudicated"
    assert primary_judgment_set({"kind": "trec-factoid", "judgment_sets": {"a1": "x", "a2": "y"},
                                 "primary": "a2"}) == "a2"
    with pytest.raises(ConfigError, match="primary"):
        primary_judgment_set({"kind": "trec-factoid", "judgment_sets": {"a1": "x"},
                              "primary": "zz"})
    assert primary_judgment_set({"kind": "qa4mre"}) == "gold"


def test_glob_matching_nothing_names_the_key(tmp_path):
    with pytest.raises(ConfigError, match="judgment_sets.adjudicated"):
        expand_files("nothing/*.txt", tmp_path, "judgment_sets.adjudicated")
    (tmp_path / "b.txt").write_text("x")
    (tmp_path / "a.txt").write_text("x")
    assert [Path(p).name for p in expand_files("*.txt", tmp_path)] == ["a.txt", "b.txt"]
