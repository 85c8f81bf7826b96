"""TREC 2003 on its real question file: definition questions typed and scored as
definitions (nugget F, beta 5 with the preset), lists by list F, factoids by
accuracy, combined into the final score "FinalScore = .5FactoidAccuracy +
.25ListAveF + .25DefinitionAveF" (Voorhees 2005 on the TREC 2003 evaluation).

The questions (``trec12questions``), the definition nugget list
(``trec12answers_definition``) and the list key (``trec12answers_list``) are the
real files in ``../shared/data``; the judged runs are small hand-written files,
so every expected number below is computed by hand in the comments.
"""

from __future__ import annotations

import re

import polars as pl
import pytest
from paths import SHARED_DATA

from qacamp.errors import ConfigError, InputError
from qacamp.ingest import ingest_campaign, resolved_campaign
from qacamp.scoring import score_campaign

TREC = SHARED_DATA / "trec-qa"
QUESTIONS = TREC / "trec12questions"

FACTOID = """\
1894 runA NYT19990101.0001 1 140 million miles
1895 runA NYT19990101.0002 -1 midnight
1896 runA NYT19990101.0003 1 Quasimodo
1897 runA NYT19990101.0004 1 DFW International
"""
LIST = """\
2108 runA APW19990101.0001 1 1 Cobra
2108 runA APW19990101.0002 1 1 Callaway
2108 runA APW19990101.0003 1 1 Nike
2108 runA APW19990101.0004 1 0 Cobra Golf
2108 runA APW19990101.0005 -1 0 Adidas
"""
# 1901 Who is Aaron Copland? item 1: 33 non-white-space characters, item 2: 14
# 1905 What is a golden parachute? one item of 250 non-white-space characters
DEF_ONE = f"""\
1901 runA 1 NYT19990101.0005 American composer born in Brooklyn 1900
1901 runA 2 NYT19990101.0006 wrote ballets and symphonies
1905 runA 1 NYT19990101.0007 {' '.join(['x' * 25] * 10)}
"""
# 1901: vital nuggets 1 (american composer), 3 (born brooklyn ny 1900) in item 1,
# 2 (musical achievements ballets symphonies) in item 2; 1905: vital nugget 1
DEF_TWO = """\
1901 runA 1 1
1901 runA 1 3
1901 runA 2 2
1905 runA 1 1
"""

#: by hand.  Factoids: 3 of the 4 judged right -> accuracy 0.75.
ACCURACY = 3 / 4
#: list 2108: 5 returned, 3 distinct right, 18 instances in the key ->
#: IP 3/5, IR 3/18, F = 2 IP IR / (IP + IR) = 6/23
LIST_F = 6 / 23
#: 1901: 3 of its 4 vital nuggets (1, 2, 3, 8) -> R 3/4; allowance 3 x 100 > 47
#: characters -> P 1; F(beta 5) = 26 P R / (25 P + R) = 19.5 / 25.75
F_1901 = 26 * 0.75 / (25 + 0.75)
#: 1905: 1 of its 3 vital nuggets -> R 1/3; allowance 100, length 250 ->
#: P = 1 - 150/250 = 0.4; F = 26 * 0.4 / 3 / (25 * 0.4 + 1/3)
F_1905 = 26 * 0.4 * (1 / 3) / (25 * 0.4 + 1 / 3)
#: the definition score averages over all 50 definition questions (48 unanswered: 0)
DEF_F = (F_1901 + F_1905) / 50
FINAL = 0.5 * ACCURACY + 0.25 * LIST_F + 0.25 * DEF_F


def campaign(tmp_path, **extra) -> dict:
    files = {"f": FACTOID, "l": LIST, "d1": DEF_ONE, "d2": DEF_TWO}
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    c = {"kind": "trec-factoid", "preset": "trec2003", "questions": str(QUESTIONS),
         "nuggets": str(TREC / "trec12answers_definition"),
         "list_key": str(TREC / "trec12answers_list"),
         "judgment_sets": {"adjudicated": {"factoid": [str(tmp_path / "f"), str(tmp_path / "l")],
                                           "definition": str(tmp_path / "d1"),
                                           "definition_nuggets": str(tmp_path / "d2")}},
         "min_coverage": 0}
    c.update(extra)
    return c


def scored(c: dict) -> tuple[dict, dict]:
    tables = ingest_campaign("t", c)
    return tables, score_campaign("trec-factoid", tables, resolved_campaign("t", c))


def value(res, measure, scope="all", unit="all"):
    r = res["runs"].filter((pl.col("measure") == measure) & (pl.col("scope") == scope)
                           & (pl.col("unit") == unit) & (pl.col("run") == "runA"))
    assert r.height == 1, (measure, scope, unit)
    return r["value"][0]


def test_every_definition_question_of_trec12questions_is_typed_and_scored_as_one(tmp_path):
    # the 50 questions the file tags "<type> Type: definition", counted in the raw text
    raw = QUESTIONS.read_text(encoding="utf-8")
    blocks = re.findall(r"<num> Number: (\d+)\s*<type> Type: (\w+)", raw)
    assert len(blocks) == 500
    definitions = sorted(q for q, t in blocks if t == "definition")
    assert len(definitions) == 50 and "1901" in definitions
    tables, res = scored(campaign(tmp_path))
    q = tables["questions"]
    assert sorted(q.filter(pl.col("qtype") == "DEFINITION")["qid"].to_list()) == definitions
    assert q["qtype"].value_counts().sort("qtype").rows() == [
        ("DEFINITION", 50), ("FACTOID", 413), ("LIST", 37)]
    # never scored as factoids: no outcome, no accuracy unit; every one a nugget F unit
    assert not res["outcomes"].filter(pl.col("qid").is_in(definitions)).height
    units = res["units"].filter(pl.col("unit").is_in(definitions))
    assert set(units["measure"].unique()) <= {"other_recall", "other_precision", "other_f",
                                              "other_pyramid_recall", "other_pyramid_f"}
    f = units.filter(pl.col("measure") == "other_f")
    assert sorted(f["unit"].to_list()) == definitions
    got = dict(zip(f["unit"].to_list(), f["value"].to_list(), strict=True))
    assert got["1901"] == pytest.approx(F_1901, abs=1e-15)   # beta 5 (the preset)
    assert got["1905"] == pytest.approx(F_1905, abs=1e-15)
    assert sum(v for k, v in got.items() if k not in ("1901", "1905")) == 0.0


def test_trec2003_final_score_combines_the_three_types_by_hand(tmp_path):
    _, res = scored(campaign(tmp_path))
    assert value(res, "accuracy") == pytest.approx(ACCURACY, abs=1e-15)
    assert value(res, "list_f") == pytest.approx(LIST_F, abs=1e-15)
    assert value(res, "other_f") == pytest.approx(DEF_F, abs=1e-15)
    assert value(res, "other_f", "qtype", "DEFINITION") == pytest.approx(DEF_F, abs=1e-15)
    assert value(res, "type_score") == pytest.approx(FINAL, abs=1e-15)
    # with beta 3 (the 2004 rule) the nugget F is another number
    _, b3 = scored({**campaign(tmp_path), "beta": 3})
    f3 = (10 * 0.75 / (9 + 0.75) + 10 * 0.4 / 3 / (9 * 0.4 + 1 / 3)) / 50
    assert value(b3, "other_f") == pytest.approx(f3, abs=1e-15)
    assert value(b3, "other_f") != pytest.approx(DEF_F)


def test_trec2003_rules_apply_without_the_preset_and_say_so(tmp_path):
    """The definition questions say the campaign is TREC 2003: without the preset
    (and without beta) their nugget F still uses beta 5 and the final score is the
    same, and the ingest says which beta it used and why, once."""
    bare = {k: v for k, v in campaign(tmp_path).items() if k != "preset"}
    tables, res = scored(bare)
    assert value(res, "other_f") == pytest.approx(DEF_F, abs=1e-15)
    assert value(res, "type_score") == pytest.approx(FINAL, abs=1e-15)
    notes = tables["warnings"].filter(pl.col("kind") == "edition")
    assert notes.height == 1
    assert notes["file"][0] == str(QUESTIONS) and notes["message"][0] == (
        'beta 5 (TREC 2003): TREC 2003 scored definition questions by the nugget F with beta 5 '
        '(from 2004 on, 3; docs/semantics.md, "Year rules"); the campaign key beta (qacamp '
        'eval --beta) sets another')
    # the preset, or a beta of the campaign's own, says it already: no note
    for c in (campaign(tmp_path), {**bare, "beta": 3}):
        assert not ingest_campaign("t", c)["warnings"].filter(pl.col("kind") == "edition").height


def test_eval_prints_the_same_final_score(tmp_path, capsys):
    from qacamp.cli import main

    c = campaign(tmp_path)
    capsys.readouterr()
    assert main(["eval", "trec-factoid", "--preset", "trec2003", "--questions", str(QUESTIONS),
                 "--nuggets", c["nuggets"], "--list-key", c["list_key"],
                 "--definition", str(tmp_path / "d1"), "--definition-nuggets",
                 str(tmp_path / "d2"), "--min-coverage", "0", "--precision", "full",
                 "-m", "type_score", "-m", "other_f", str(tmp_path / "f"),
                 str(tmp_path / "l")]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()[1:]]
    got = {m: float(v) for _run, m, _s, _u, v in rows}
    assert got == {"type_score": pytest.approx(FINAL, abs=1e-15),
                   "other_f": pytest.approx(DEF_F, abs=1e-15)}
    # without --preset: the same numbers, and one line saying which beta and why
    assert main(["eval", "trec-factoid", "--questions", str(QUESTIONS),
                 "--nuggets", c["nuggets"], "--list-key", c["list_key"],
                 "--definition", str(tmp_path / "d1"), "--definition-nuggets",
                 str(tmp_path / "d2"), "--min-coverage", "0", "--precision", "full",
                 "-m", "type_score", "-m", "other_f", str(tmp_path / "f"),
                 str(tmp_path / "l")]) == 0
    cap = capsys.readouterr()
    rows = [line.split("\t") for line in cap.out.splitlines()[1:]]
    assert {m: float(v) for _run, m, _s, _u, v in rows} == got
    assert [ln for ln in cap.err.splitlines() if "beta" in ln] == [
        f"qacamp eval: warning: {QUESTIONS}: beta 5 (TREC 2003): TREC 2003 scored definition "
        'questions by the nugget F with beta 5 (from 2004 on, 3; docs/semantics.md, "Year '
        'rules"); the campaign key beta (qacamp eval --beta) sets another']


def test_definitions_need_their_files_or_an_explicit_skip(tmp_path):
    c = campaign(tmp_path)
    no_nuggets = {k: v for k, v in c.items() if k != "nuggets"}
    with pytest.raises(ConfigError, match=r"campaigns\.t\.nuggets.*50 DEFINITION questions"):
        ingest_campaign("t", no_nuggets)
    no_runs = dict(c, judgment_sets={"adjudicated": [str(tmp_path / "f"), str(tmp_path / "l")]})
    with pytest.raises(ConfigError, match=r"judgment_sets\.adjudicated\.definition"):
        ingest_campaign("t", no_runs)
    skipped = dict(no_runs, skip=["definition"])
    skipped.pop("nuggets")
    _, res = scored(skipped)
    assert not res["runs"].filter(pl.col("measure") == "other_f").height
    reasons = res["dropped"].filter(pl.col("unit") == "1901")["reason"].to_list()
    assert reasons == ["definition questions skipped by the config (skip: [definition])"]
    # the final score renormalises the two remaining weights, never silently
    assert value(res, "type_score") == pytest.approx(
        (0.5 * ACCURACY + 0.25 * LIST_F) / 0.75, abs=1e-15)


def test_a_factoid_run_cannot_answer_a_definition_question(tmp_path):
    c = campaign(tmp_path)
    (tmp_path / "f").write_text(FACTOID + "1901 runA NYT19990101.0009 1 composer\n")
    with pytest.raises(InputError, match="question 1901 is a DEFINITION question, but this is "
                                         "a judged factoid run"):
        ingest_campaign("t", c)


# runB: the same three factoids right as runA but in a better confidence order
# (CWS (1 + 1 + 1 + 3/4) / 4 = 0.9375 against runA's (1 + 1/2 + 2/3 + 3/4) / 4),
# no list and no definition answers: final score 0.5 x 0.75 = 0.375, below runA's
FACTOID_B = """\
1894 runB NYT19990101.0011 1 140 million miles
1896 runB NYT19990101.0013 1 Quasimodo
1897 runB NYT19990101.0014 1 DFW International
1895 runB NYT19990101.0012 -1 midnight
"""


def report_folder(tmp_path, preset=True, definitions=True):
    """A TREC 2003 campaign ingested and scored by the commands the workflow
    runs (without its preset; without its definitions: skipped)."""
    import json

    from qacamp.cli import main

    tmp_path.mkdir(exist_ok=True)
    c = campaign(tmp_path)
    if not preset:
        c.pop("preset")
    if not definitions:
        c.pop("nuggets")
        for part in ("definition", "definition_nuggets"):
            c["judgment_sets"]["adjudicated"].pop(part)
        c["skip"] = ["definition"]
    (tmp_path / "fb").write_text(FACTOID_B)
    c["judgment_sets"]["adjudicated"]["factoid"].append(str(tmp_path / "fb"))
    (tmp_path / "config.json").write_text(json.dumps({"campaigns": {"t": c}}))
    out = tmp_path / "t"
    assert main(["ingest", "--config", str(tmp_path / "config.json"), "--campaign", "t",
                 "--out", str(out / "ingest")]) == 0
    assert main(["score", "--ingest", str(out / "ingest"), "--out", str(out / "scores")]) == 0
    return out


def test_a_trec2003_page_is_headed_ranked_and_titled_by_its_final_score(tmp_path):
    from qacamp.report.campaign import Campaign
    from qacamp.report.overview import campaign_context, index_row
    from qacamp.report.page import render

    c = Campaign(report_folder(tmp_path), reliability=False)
    ctx = campaign_context(c, {})
    assert ctx["facts"]["kind_name"].startswith("TREC 2003 question answering")
    assert ctx["main_measure"] == "final score"
    assert ctx["best"] == {"run": "runA", "measure": "final score", "value": f"{FINAL:.3f}"}
    table = ctx["results"][0]
    assert [h["text"] for h in table["headers"]][:5] == [
        "Run", "Final score", "Factoid accuracy", "List F", "Definition F"]
    assert [r[0]["text"] for r in table["blocks"][0]["rows"]] == ["runA", "runB"]
    assert "sorted by the final score" in table["caption"]
    page = render("campaign.html.j2", ctx)
    assert "TREC 2002" not in page and "the run table is sorted by final score" in page
    assert index_row(c, "t/report.html")["measure"] == "final score"


def test_trec2003_rules_come_from_the_preset_or_the_definition_questions(tmp_path):
    from qacamp.report.campaign import Campaign
    from qacamp.report.overview import campaign_context

    # definitions scored, no preset: still TREC 2003's rules (beta 3 is another number)
    c = Campaign(report_folder(tmp_path / "a", preset=False), reliability=False)
    assert c.headline == "type_score" and c.rules.name == "TREC 2003"
    # no definitions, no preset: TREC 2002's run table, ranked by CWS (runB first)
    c = Campaign(report_folder(tmp_path / "b", preset=False, definitions=False),
                 reliability=False)
    assert c.rules is None and c.headline == "cws"
    ctx = campaign_context(c, {})
    assert ctx["facts"]["kind_name"].startswith("TREC factoid question answering (as TREC 2002")
    assert [r[0]["text"] for r in ctx["results"][0]["blocks"][0]["rows"]] == ["runB", "runA"]
