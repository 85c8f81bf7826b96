"""Campaign configuration: schema validation as the workflow does it
(qacamp.plan.validate_config: one-line errors naming the key, strict
patterns, registry measures), and the resolved reliability plan (kind
defaults < top level < campaign block)."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from qacamp.config import DEFAULT_OUTDIR, expand_files, primary_judgment_set
from qacamp.errors import ConfigError
from qacamp.plan import reliability_plan, validate_config

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = str(ROOT / "workflow" / "schemas" / "config.schema.yaml")


def validate(cfg, schema=SCHEMA):
    validate_config(cfg, schema)


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
    # sizes follow the collection: 1..half (250 for TREC 2002's 500 questions)
    assert trec["swap"]["sizes"] == "1:half" and trec["swap"]["trials"] == 10
    assert trec["swap"]["min_fit_size"] == 21  # "only question set sizes greater than 20"
    assert trec["measures"] == ["cws", "accuracy"] and trec["judgment_set"] == "adjudicated"
    series = reliability_plan({"kind": "trec-series", "judgment_sets": {"a": {}}})
    assert series["swap"]["sizes"] == "5:half" and series["swap"]["trials"] == 50


def test_significance_block_defaults_and_validation():
    plan = reliability_plan({"kind": "clef-qa", "questions": "q", "runs": "r"})
    assert plan["significance"] == {"test": "tukey-hsd", "correction": None,
                                    "permutations": 10_000, "alpha": 0.05, "baseline": None}
    cfg = {"campaigns": {"a": campaign(reliability={"significance": {
        "test": "randomisation", "correction": "bh", "permutations": 2000, "alpha": 0.01}})}}
    validate(cfg, SCHEMA)
    plan = reliability_plan(cfg["campaigns"]["a"], cfg)
    assert plan["significance"]["correction"] == "bh"
    assert plan["significance"]["permutations"] == 2000
    for bad in ({"test": "wilcoxon"}, {"correction": "sidak"}, {"permutations": 0},
                {"alpha": 1.5}, {"samples": 10}, {"baseline": ""}, {"baseline": 3}):
        with pytest.raises(ConfigError):
            validate({"campaigns": {"a": campaign(reliability={"significance": bad})}}, SCHEMA)
    demo = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    assert demo["reliability"]["significance"]["permutations"] == 1000


def test_demo_config_is_valid():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    validate(cfg, SCHEMA)
    assert sorted(cfg["campaigns"]) == ["clef2009", "pan", "qa4mre2012", "qa4mre2013",
                                        "trec2002", "trec2004"]
    assert cfg["outdir"] == "results-demo"


def test_defaults_are_filled_and_outdir_defaults_to_results():
    cfg = {"campaigns": {"a": campaign()}}
    validate(cfg)
    assert cfg["outdir"] == DEFAULT_OUTDIR == "results"
    assert cfg["shards"] == 4
    schema = yaml.safe_load(Path(SCHEMA).read_text())
    assert schema["properties"]["outdir"]["default"] == DEFAULT_OUTDIR


def one_line_error(cfg) -> str:
    with pytest.raises(ConfigError) as info:
        validate(cfg)
    msg = str(info.value)
    assert "\n" not in msg, msg
    return msg


def test_unknown_key_is_rejected_with_its_name():
    msg = one_line_error({"campaigns": {"a": campaign(judgement_sets={})}})
    assert "campaigns.a" in msg and "unknown key 'judgement_sets'" in msg, msg


def test_unknown_key_run_names_campaign_key_and_allowed_keys():
    msg = one_line_error({"campaigns": {"mine": campaign(run="x.tsv")}})
    assert msg == ("config key 'campaigns.mine': unknown key 'run'. Fix: did you mean 'runs'? "
                   "allowed here: kind, min_coverage, preset, questions, reliability, report, runs, title"), msg


@pytest.mark.parametrize(("spec", "typo", "key"), [
    ({"kind": "trec-factoid", "questions": "q.txt", "judgment_sets": {"a": "j/*"}},
     "judgement_sets", "judgment_sets"),
    ({"kind": "clef-qa", "questions": "q.tsv", "runs": "r/*.tsv"}, "run", "runs")])
def test_a_misspelt_required_key_is_named_not_the_key_it_was_meant_to_be(spec, typo, key):
    # the misspelt key is unknown and the one meant is missing: the first
    # names the mistake, the second does not
    spec = dict(spec)
    spec[typo] = spec.pop(key)
    msg = one_line_error({"campaigns": {"mine": spec}})
    assert f"unknown key '{typo}'. Fix: did you mean '{key}'?" in msg, msg


@pytest.mark.parametrize("mutate, key, words", [
    (lambda c: c["campaigns"]["a"].pop("runs"), "campaigns.a", "missing required key 'runs'"),
    (lambda c: c["campaigns"]["a"].update(kind="trec"), "campaigns.a.kind", "use one of"),
    (lambda c: c.update(shards="4"), "shards", "not of type integer"),
    (lambda c: c["campaigns"].update({"b c": campaign()}), "campaigns", "'b c' is not allowed"),
    (lambda c: c["campaigns"].update({"overview": campaign()}), "campaigns",
     "'overview' is reserved"),
    (lambda c: c["campaigns"]["a"].update(reliability={"measures": ["cws"]}),
     "campaigns.a.reliability.measures[0]", "'cws' is not a measure of a clef-qa campaign"),
    (lambda c: c.update(reliability={"measures": ["series_score"]}),
     "reliability.measures[0]", "not a measure of a clef-qa campaign"),
    (lambda c: c["campaigns"].update({"t": {"kind": "trec-factoid", "questions": "q",
                                           "judgment_sets": {"a1": "x"}, "primary": "a2"}}),
     "campaigns.t.primary", "'a2' is not one of the judgment sets"),
    (lambda c: c["campaigns"]["a"].update(reliability={"swap": {"sizes": "5:32\n"}}),
     "campaigns.a.reliability.swap.sizes", "'5:32\\n' is not allowed"),
])
def test_errors_name_the_key_in_one_line(mutate, key, words):
    cfg = {"campaigns": {"a": campaign()}}
    mutate(cfg)
    msg = one_line_error(cfg)
    assert msg.startswith(f"config key '{key}'"), msg
    assert words in msg, msg


def test_measures_come_from_the_registry():
    from qacamp.kinds import KINDS
    from qacamp.measures import REGISTRY

    KIND_MEASURES = {k.name: k.measures for k in KINDS.values()}

    for kind, names in KIND_MEASURES.items():
        assert set(names) <= set(REGISTRY), kind
    cfg = {"campaigns": {"a": campaign(reliability={"measures": ["c_at_1", "utility"]}),
                         "m": {"kind": "score-matrix", "matrix": "m.csv", "measure": "ndcg_10"}}}
    validate(cfg)
    assert reliability_plan(cfg["campaigns"]["m"], cfg)["measures"] == ["ndcg_10"]


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


def test_report_run_table_is_validated_and_merged_top_level_then_campaign():
    from qacamp.plan import report_settings

    top = {"run_table": {"columns": ["utility"], "decimals": 4}}
    cfg = {"report": top, "campaigns": {"a": campaign(report={"run_table": {
        "headline": "accuracy"}})}}
    validate(cfg, SCHEMA)
    assert report_settings(cfg["campaigns"]["a"], cfg) == {"run_table": {
        "columns": ["utility"], "decimals": 4, "headline": "accuracy"}}
    bad = {"campaigns": {"a": campaign(report={"run_table": {"columns": ["c_at_1", "cws"]}})}}
    with pytest.raises(ConfigError, match=r"campaigns\.a\.report\.run_table\.columns\[1\]': "
                                          r".*'cws' is not a measure of a clef-qa campaign"):
        validate(bad, SCHEMA)
    with pytest.raises(ConfigError, match=r"report\.run_table\.headline"):
        validate({"report": {"run_table": {"headline": "series_score"}},
                  "campaigns": {"a": campaign()}}, SCHEMA)
    for wrong in ({"decimals": 9}, {"width": 3}, {"columns": "c_at_1"}):
        with pytest.raises(ConfigError):
            validate({"campaigns": {"a": campaign(report={"run_table": wrong})}}, SCHEMA)


@pytest.mark.parametrize("sizes, ok", [
    ("10:5", False), ("0:5", False), ("10:20:0", False), ("10:half:auto", True),
    ("1:half", True), ("half", True), ("5,10,20", True), ("10:40:10", True),
])
def test_swap_sizes_out_of_order_stop_the_run_before_it_starts(sizes, ok):
    """`sizes: '10:5'` passed the config check and failed at the swap jobs;
    the form and order of the sizes are checked with the config (whether the
    collection holds them, the jobs check: they need its size)."""
    cfg = {"campaigns": {"a": campaign(reliability={"swap": {"sizes": sizes}})}}
    if ok:
        validate(cfg)
        return
    with pytest.raises(ConfigError) as e:
        validate(cfg)
    assert e.value.key == "campaigns.a.reliability.swap.sizes"
    assert str(e.value.problem) == (f"sizes {sizes!r}: expected a:b or a:b:step with 1 <= a <= "
                                    "b (inclusive; step >= 1 or auto; b may be half) or a comma "
                                    "list of integers >= 1")
