"""Presets: each campaign's method parameters with the sentence they follow."""

from __future__ import annotations

import json
import re

import pytest
from paths import ROOT, SHARED

from qacamp import presets
from qacamp.config import reliability_plan, validate_config
from qacamp.errors import ConfigError
from qacamp.ingest import resolved_campaign

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
SEEDS = SHARED / "seeds"
#: the papers among the seeds: citation -> seed file
PAPERS = {presets.V2003: "002_45b8ebc9b01ee613.txt", presets.V2005: "004_ed8c83526d7859a2.txt",
          presets.C1: "001_f8690b08cd629139.txt", presets.QA4MRE: "003_f931decfb23d779d.txt"}
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
    assert plan["kendall"]["variant"] == "tau_a"
    c1 = reliability_plan({"kind": "clef-qa", "preset": "clef2009", **FILES["clef-qa"]})
    assert (c1["swap"]["mode"], c1["swap"]["observed_at"], c1["swap"]["trials"],
            c1["swap"]["pairing"]) == ("observed", 250, 100, "per-pair")


def test_preset_reaches_the_scoring_options(tmp_path):
    q = tmp_path / "q.xml"
    q.write_text("<x/>")
    r = resolved_campaign("c", {"kind": "trec-series", "preset": "trec2007", "questions": str(q),
                                "judgment_sets": {"adjudicated": {"factoid": str(q)}}})
    assert r["options"]["year"] == 2007 and r["options"]["other_score"] == "pyramid"
    assert r["options"]["judgment_codes"] == {"4": "L"} and r["preset"] == "trec2007"


def test_unknown_or_mismatched_preset_names_the_key():
    c = {"kind": "qa4mre", "preset": "trec2004", **FILES["qa4mre"]}
    with pytest.raises(ConfigError, match=r"campaigns\.c\.preset"):
        validate_config({"campaigns": {"c": c}}, SCHEMA)
    with pytest.raises(ConfigError, match="preset 'trec2004' is for kind trec-series"):
        presets.apply_preset(c, key="campaigns.c.preset")


def _normal(text: str) -> str:
    return re.sub(r"[^a-z0-9]", "", text.lower())


def _seed_text(name: str) -> str:
    raw = (SEEDS / name).read_text(encoding="utf-8", errors="replace")
    if raw.lstrip().startswith("{"):  # S2ORC JSON
        doc = json.loads(raw, strict=False)
        raw = " ".join(p["text"] for p in doc["pdf_parse"]["body_text"])
    return _normal(raw)


@pytest.mark.skipif(not SEEDS.exists(), reason="../shared/seeds missing")
def test_every_quoted_sentence_is_in_its_paper():
    """The quotes of the presets are the papers' own words (ellipses mark cuts)."""
    texts = {cite: _seed_text(f) for cite, f in PAPERS.items()}
    checked = 0
    for p in presets.PRESETS.values():
        for key, (cite, quote, _note) in p.sources.items():
            if cite not in texts or not quote:
                continue
            for fragment in quote.split("..."):
                frag = _normal(fragment)
                assert frag in texts[cite], (p.name, key, fragment)
                checked += 1
    assert checked >= 30
