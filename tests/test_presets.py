"""Presets: each campaign's method parameters with the sentence they follow."""

from __future__ import annotations

import json
import re

import pytest
from paths import ROOT, SHARED

from qacamp import presets
from qacamp.errors import ConfigError
from qacamp.ingest import resolved_campaign
from qacamp.plan import reliability_plan, validate_config

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
#: files each kind needs to pass the schema (never read here)
FILES = {"trec-factoid": {"questions": "q", "judgment_sets": {"adjudicated": "j"}},
         "trec-series": {"questions": "q.xml", "judgment_sets": {"adjudicated": {"factoid": "f"}}},
         "qa4mre": {"gold": "g.xml", "runs": "r.xml"},
         "clef-qa": {"questions": "q.tsv", "runs": "r.tsv"}}


def test_docs_presets_md_is_generated():
    assert (ROOT / "docs" / "presets.md").read_text(encoding="utf-8") == \
        presets.to_markdown() + "\n"


@pytest.mark.parametrize("name", list(presets.PRESETS))
def test_every_preset_setting_is_a_valid_campaign_key(name):
    p = presets.PRESETS[name]
    for kind in p.kinds:
        # the preset named, and its settings written out as the campaign's own keys
        for campaign in ({"kind": kind, "preset": name, **FILES[kind]},
                         {"kind": kind, **FILES[kind], **p.settings}):
            validate_config({"campaigns": {"c": campaign}}, SCHEMA)


def test_campaign_keys_win_and_plan_layers():
    c = {"kind": "trec-series", "preset": "trec2004", "year": 2005,
         "reliability": {"swap": {"trials": 7}}, **FILES["trec-series"]}
    assert presets.apply_preset(c)["year"] == 2005
    plan = reliability_plan(c, {"reliability": {"swap": {"trials": 3, "bins": 30}}})
    assert plan["swap"]["trials"] == 7           # campaign block
    assert plan["swap"]["bins"] == 30            # top level over the preset
    assert plan["swap"]["sizes"] == "5:half"     # the preset (Voorhees 2005: 5..32 series)
    assert plan["kendall"]["variant"] == "tau_b"
    c1 = reliability_plan({"kind": "clef-qa", "preset": "clef2009", **FILES["clef-qa"]})
    assert (c1["swap"]["mode"], c1["swap"]["observed_at"], c1["swap"]["trials"],
            c1["swap"]["pairing"]) == ("observed", 250, 100, "per-pair")


def test_preset_reaches_the_scoring_options(tmp_path):
    q = tmp_path / "q.xml"
    q.write_text("<x/>")
    r = resolved_campaign("c", {"kind": "trec-series", "preset": "trec2007", "questions": str(q),
                                "judgment_sets": {"adjudicated": {"factoid": str(q)}}})
    assert r["options"]["year"] == 2007 and r["options"]["other_score"] == "pyramid"
    assert r["preset"] == "trec2007"
    # no source confirms the code NIST's 2006-2007 files give a locally correct answer:
    # no preset maps one (an unmapped code is refused; judgment_codes maps it)
    assert "judgment_codes" not in r["options"]
    assert not any("judgment_codes" in p.settings for p in presets.PRESETS.values())


def test_unknown_or_mismatched_preset_names_the_key():
    c = {"kind": "qa4mre", "preset": "trec2004", **FILES["qa4mre"]}
    with pytest.raises(ConfigError, match=r"campaigns\.c\.preset"):
        validate_config({"campaigns": {"c": c}}, SCHEMA)
    with pytest.raises(ConfigError, match="preset 'trec2004' is for kind trec-series"):
        presets.apply_preset(c, key="campaigns.c.preset")


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _source_text(rel: str) -> str:
    """A source's text, normalised: a seed paper (S2ORC JSON or plain text) or a
    stored excerpt under docs/sources/."""
    path = (SHARED / rel) if rel.startswith("seeds/") else (ROOT / rel)
    raw = path.read_text(encoding="utf-8", errors="replace")
    if raw.lstrip().startswith("{"):  # S2ORC JSON
        doc = json.loads(raw, strict=False)
        raw = " ".join(p["text"] for p in doc["pdf_parse"]["body_text"])
    return _normal(raw)


def test_every_setting_has_its_own_source_or_is_a_project_choice():
    """No value is covered by a sentence about another key; every entry names a
    known source with a sentence, or is the project's choice with a reason."""
    for p in presets.PRESETS.values():
        keys = [k for k, _ in presets.flatten(p.settings)]
        assert sorted(p.sources) == sorted(keys), p.name
        for key in keys:
            cite, quote, note = p.sources[key]
            if cite == presets.PROJECT:
                assert not quote and len(note) > 20, (p.name, key)
            else:
                assert cite in presets.SOURCE_FILES and quote, (p.name, key)


def test_every_quoted_sentence_is_in_its_source():
    """The quotes of the presets are their sources' own words (ellipses mark cuts),
    found in the seed paper or in the excerpt stored under docs/sources/; never
    skipped."""
    texts = {cite: [_source_text(f) for f in files]
             for cite, files in presets.SOURCE_FILES.items()}
    checked = set()
    for p in presets.PRESETS.values():
        for key, (cite, quote, _note) in p.sources.items():
            if cite == presets.PROJECT:
                continue
            for fragment in quote.split("..."):
                frag = _normal(fragment)
                assert frag and any(frag in t for t in texts[cite]), (p.name, key, fragment)
            checked.add(cite)
    assert checked == set(presets.SOURCE_FILES)


def test_presets_command_shows_a_quote_or_the_project_choice_for_every_value(capsys):
    from qacamp.cli import main

    assert main(["presets"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == ["preset", "kinds", "key", "value", "source",
                                     "sentence or reason"]
    rows = [line.split("\t") for line in lines[1:]]
    assert len(rows) == sum(len(presets.flatten(p.settings)) for p in presets.PRESETS.values())
    for name, _kinds, key, _value, cite, text in rows:
        if cite == presets.PROJECT:
            assert text.startswith("project choice: "), (name, key)
        else:
            assert text.startswith('"') and cite in presets.SOURCE_FILES, (name, key)


def test_presets_match_their_papers_settings():
    by = {n: dict(p.sources) for n, p in presets.PRESETS.items()}
    flat = {n: dict(presets.flatten(p.settings)) for n, p in presets.PRESETS.items()}
    # "bins where differences were greater than 0.16": the last fitted bin is 0.15-0.16
    assert flat["trec2002"]["reliability.swap.fitted_bins"] == "0.01:0.15"
    # TREC 2005-2007 published no swap analysis: the carried-over settings are the
    # project's choice, and 'half' is said of the campaign's own series
    for name, series in (("trec2005", 75), ("trec2006", 75), ("trec2007", 70)):
        for key, (cite, _q, note) in by[name].items():
            if key.startswith("reliability."):
                assert cite == presets.PROJECT, (name, key)
                assert "TREC 2004" in note or key == "reliability.kendall.variant", (name, key)
        assert f"{series // 2} of TREC {name[4:]}'s {series} series" in \
            by[name]["reliability.swap.sizes"][2]
    for name in ("trec2005", "trec2006", "trec2007"):
        assert not any(cite == presets.V2005 for cite, _q, _n in by[name].values())
    # QA4MRE: the overview's accuracy is (nR + nUR) / n; each reliability key its own
    # entry, the sentence about half the collection only behind sizes: half
    for name in ("qa4mre2011", "qa4mre2012", "qa4mre2013"):
        assert flat[name]["reliability.measures"] == ["c_at_1", "qa4mre_accuracy"]
        half = [k for k, (_c, q, _n) in by[name].items() if "half of the size" in q]
        assert half == ["reliability.swap.sizes"]
    # beta = 5 of TREC 2003 is unconfirmed: marked as the project's choice
    assert by["trec2003"]["beta"][0] == presets.PROJECT


def test_qa4mre_preset_measures_are_resampled_from_the_outcomes():
    """The QA4MRE presets analyse the overview's accuracy, (nR + nUR) / n: a
    question-level matrix built from the outcomes, by hand."""
    import polars as pl

    from qacamp.reliability.builders import from_outcomes

    outcomes = pl.DataFrame({
        "judgment_set": "gold", "run": ["a"] * 4 + ["b"] * 4, "qid": ["q1", "q2", "q3", "q4"] * 2,
        "rank": [1, 2, 3, 4] * 2, "answered": [True, False, False, True] * 2,
        "outcome": ["R", "UR", "UW", "W", "W", "UE", "UR", "R"]})
    m = from_outcomes(outcomes, "qa4mre_accuracy")
    assert m.runs == ("a", "b") and m.units == ("q1", "q2", "q3", "q4")
    assert m.values.T.tolist() == [[1, 1, 0, 0], [0, 0, 1, 1]]
    assert from_outcomes(outcomes, "accuracy").values.T.tolist() == [[1, 0, 0, 0], [0, 0, 0, 1]]
