"""Readers of TREC questions, judged runs and answer keys (real files + bad input)."""

from __future__ import annotations

import gzip

import polars as pl
import pytest
from files_util import write_file
from paths import SHARED_DATA

from qacamp import tables
from qacamp.errors import InputError
from qacamp.readers import answer_keys, trec_questions, trec_runs

DATA = SHARED_DATA
TREC = DATA / "trec-qa"
needs_data = pytest.mark.skipif(not TREC.exists(), reason="shared data not available")


def _schema_ok(name: str, df: pl.DataFrame) -> None:
    assert df.schema == pl.Schema(tables.SCHEMAS[name])


# --------------------------------------------------------------------------- real files

@needs_data
@pytest.mark.parametrize("year,series,counts", [
    (13, 65, (230, 56, 65)), (14, 75, (362, 93, 75)),
    (15, 75, (403, 89, 75)), (16, 70, (360, 85, 70)),
])
def test_series_xml_real(year, series, counts):
    q = trec_questions.read_series_xml(TREC / f"trec{year}questions.xml")
    _schema_ok("questions", q)
    assert q["series"].n_unique() == series
    got = {t: (q["qtype"] == t).sum() for t in ("FACTOID", "LIST", "OTHER")}
    assert (got["FACTOID"], got["LIST"], got["OTHER"]) == counts
    assert q.height == sum(counts)
    assert q["position"].to_list() == list(range(1, q.height + 1))


@needs_data
def test_series_xml_entities_decoded():
    q = trec_questions.read_series_xml(TREC / "trec15questions.xml")
    assert q.filter(pl.col("series") == "172")["text"].str.contains("Ben & Jerry's").any()


@needs_data
def test_a_2002_question_file_given_as_series_xml_is_named_as_such():
    # the real TREC 2002 <top> file (not XML) where a series campaign wants XML
    with pytest.raises(InputError) as err:
        trec_questions.read_series_xml(TREC / "trec11questions")
    assert str(err.value) == (
        f"{TREC / 'trec11questions'}: line 1: a TREC 2002-2003 question file (<top> blocks), "
        "not the question-series XML of TREC 2004-2007. Fix: give the series campaign its XML "
        "file (<trecqa> with <target> elements), or read this file with kind trec-factoid")


@needs_data
def test_top_questions_real():
    q = trec_questions.read_top_questions(TREC / "trec11questions")
    assert q.height == 500
    assert q["qid"][0] == "1394"
    assert q["text"][0] == "In what country did the game of croquet originate?"
    assert set(q["qtype"]) == {"FACTOID"}
    lst = trec_questions.read_top_questions(TREC / "trec11questions_list", "LIST")
    assert lst.height == 25 and set(lst["qtype"]) == {"LIST"}


@needs_data
def test_nuggets_real():
    n = answer_keys.read_nuggets(TREC / "trec13answers_other")
    _schema_ok("nuggets", n)
    assert n.height == 580
    assert n["vital"].sum() == 234
    assert n["qid"].n_unique() == 64
    assert n["weight"].null_count() == 580


@needs_data
@pytest.mark.parametrize("year", [15, 16])
def test_pyramid_real(year):
    p = answer_keys.read_pyramid(TREC / f"trec{year}answers_other_pyramid")
    assert p.height > 600
    assert p["weight"].min() >= 0 and p["weight"].max() <= 1


@needs_data
def test_list_key_real():
    # The README's "54 questions, 486 instances" does not match this copy of the
    # file: it holds 55 `# qid` blocks and 484 non-blank instance lines.
    k = answer_keys.read_list_key(TREC / "trec13answers_list")
    _schema_ok("list_key", k)
    assert k["qid"].n_unique() == 55
    assert k.height == 484
    counts = k.group_by("qid").len()["len"]
    assert counts.min() == 2 and counts.max() == 41


@needs_data
@pytest.mark.parametrize("name", sorted(p.name for p in TREC.glob("*patter*")) if TREC.exists() else [])
def test_patterns_real(name):
    p = answer_keys.read_patterns(TREC / name)
    _schema_ok("patterns", p)
    assert p.height > 100
    if "+docs" in name:
        assert p["docid"].drop_nulls().str.contains(r"^[A-Z_]+\d{8}\.\d{4}$").all()
    else:
        assert p["docid"].null_count() == p.height


@needs_data
def test_patterns_docs_split():
    p = answer_keys.read_patterns(TREC / "trec13patterns+docs_factoid")
    rows = p.filter(pl.col("qid") == "2.1")
    assert set(rows["pattern"]) == {"Limp Bizkit"} and rows.height >= 5
    t = answer_keys.read_patterns(TREC / "trec15patterns+docs_factoid")
    assert t.filter(pl.col("qid") == "141.2")["pattern"][0] == "University of Washington"


# --------------------------------------------------------------------------- runs

FACTOID = """\
1.1 runA NYT1 R Los Angeles
1.2 runA NIL 1
# comment
1.3 runA APW2 -1 blue and red
1.4 runA XIE3 X
"""


def test_judged_factoid(tmp_path):
    resp, judg = trec_runs.read_judged_factoid(write_file(tmp_path, "a.txt", FACTOID), "adjudicated")
    _schema_ok("responses", resp)
    _schema_ok("judgments", judg)
    assert resp["rank"].to_list() == [1, 2, 3, 4]
    assert resp["nil"].to_list() == [False, True, False, False]
    assert resp["answer"].to_list() == ["Los Angeles", None, "blue and red", None]
    assert judg["judgment"].to_list() == ["R", "R", "W", "X"]
    assert set(judg["judgment_set"]) == {"adjudicated"} and set(resp["run"]) == {"runA"}


def test_judged_factoid_gz(tmp_path):
    p = tmp_path / "a.txt.gz"
    p.write_bytes(gzip.compress(FACTOID.encode()))
    resp, _ = trec_runs.read_judged_factoid(p, "s")
    assert resp.height == 4


def test_judged_list(tmp_path):
    text = ("5.3 L1 D1 1 1 Boston\n5.3 L1 D2 1 0 boston\n5.3 L1 D3 -1 0 Paris\n"
            "6.2 L1 D4 3 0 x\n")
    resp, judg = trec_runs.read_judged_list(write_file(tmp_path, "l", text), "adj")
    assert resp["item"].to_list() == [1, 2, 3, 1]
    assert resp["rank"].to_list() == [1, 1, 1, 2]
    assert judg["distinct"].to_list() == [True, False, False, False]
    assert judg["judgment"].to_list() == ["R", "R", "W", "X"]


def test_judged_other(tmp_path):
    one = write_file(tmp_path, "o1", "1.6 O1 1 D1 Crips slang\n1.6 O1 2 D2 blue bandanna\n")
    two = write_file(tmp_path, "o2", "1.6 O1 2 6\n1.6 O1 2 5\n")
    resp, matches = trec_runs.read_judged_other(one, two, "adj")
    assert resp.height == 2 and resp["answer"][1] == "blue bandanna"
    _schema_ok("nugget_matches", matches)
    assert matches["nugget"].to_list() == ["6", "5"]


def _err(fn, *args) -> InputError:
    with pytest.raises(InputError) as ei:
        fn(*args)
    return ei.value


def test_bad_field_count(tmp_path):
    p = write_file(tmp_path, "bad", "1.1 runA NYT1 R x\n1.2 runA\n")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert str(p) in str(e) and e.place == "line 2" and "fields" in e.problem


def test_bad_judgment_code(tmp_path):
    p = write_file(tmp_path, "bad", "1.1 runA NYT1 R x\n\n1.2 runA NYT1 Q x\n")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert e.place == "line 3" and "'Q'" in e.problem and str(p) in str(e)


def test_duplicate_response(tmp_path):
    p = write_file(tmp_path, "bad", "1.1 runA NYT1 R x\n1.2 runA NYT1 W y\n1.1 runA NYT2 W z\n")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert e.place == "line 3" and "duplicate" in e.problem


def test_other_run_tag(tmp_path):
    p = write_file(tmp_path, "bad", "1.1 runA NYT1 R x\n1.2 runB NYT1 W y\n")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert e.place == "line 2" and "runB" in e.problem


@pytest.mark.parametrize("fn, header, line", [
    (trec_runs.read_judged_factoid, "qid tag docid judgment answer", "1.1 runA NYT1 R x"),
    (trec_runs.read_judged_list, "qid tag docid correctness distinct string",
     "1.1 runA NYT1 1 1 x"),
])
def test_a_header_line_is_named_at_line_1(fn, header, line, tmp_path):
    """A header line gave "line 2: the line names run tag 'runA' but the file's
    first line names 'tag'": the header itself is named."""
    body = "\n".join(line.replace("1.1", q) for q in ("1.1", "1.2", "1.3")) + "\n"
    p = write_file(tmp_path, "run", f"{header}\n{body}")
    e = _err(fn, p, "s")
    assert e.place == "line 1", e
    assert e.problem == "the first line names run tag 'tag' and every other line 'runA' (a " \
        "header line?)"
    assert e.fix == "remove the header line: a run file holds only its runs' lines"


@pytest.mark.parametrize("block, place, problem", [
    ("<num> Number: 1\n<num> Number: 2\n<desc> Description:\nQ?\n", "line 3",
     "a second <num> line in the <top> block of line 1 (question 1)"),
    ("<num> Number: 1\n<type> Type: factoid\n<type> Type: list\n<desc> Description:\nQ?\n",
     "line 4", "a second <type> line in the <top> block of line 1 (question 1)"),
    ("<num> Number: 1395 1396\n<desc> Description:\nQ?\n", "line 2",
     "the <num> line holds more than a number ('1396' after 1395)"),
])
def test_top_block_with_two_numbers_or_types_is_refused(block, place, problem, tmp_path):
    """A <top> block with two <num> (or <type>) lines was read with the first
    number (the last type), and `<num> Number: 1395 1396` as question 1395:
    two questions merged into one block lost one without a word."""
    p = write_file(tmp_path, "q", f"<top>\n{block}</top>\n")
    e = _err(trec_questions.read_top_questions, p)
    assert (e.place, e.problem) == (place, problem)


def test_top_number_line_may_close_its_tag(tmp_path):
    p = write_file(tmp_path, "q", "<top>\n<num> Number: 7 </num>\n<desc> Description:\nQ?\n"
                                  "</top>\n")
    assert trec_questions.read_top_questions(p)["qid"].to_list() == ["7"]


def test_invalid_bytes(tmp_path):
    p = write_file(tmp_path, "bad", b"1.1 runA NYT1 R x\n1.2 runA NYT1 W caf\xe9\n")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert e.place == "line 2" and "utf-8" in e.problem


def test_empty_file(tmp_path):
    p = write_file(tmp_path, "empty", "")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert str(p) in str(e) and "empty" in e.problem
    p2 = write_file(tmp_path, "comments", "# only a comment\n\n")
    assert "no data" in _err(trec_runs.read_judged_factoid, p2, "s").problem


def test_line_too_long(tmp_path, monkeypatch):
    from qacamp.readers import _text
    monkeypatch.setattr(_text, "MAX_LINE_BYTES", 20)
    p = write_file(tmp_path, "long", "1.1 runA D R x\n1.2 runA D R " + "y" * 50 + "\n")
    e = _err(trec_runs.read_judged_factoid, p, "s")
    assert e.place == "line 2" and "longer" in e.problem


def test_file_too_big(tmp_path, monkeypatch):
    from qacamp.readers import _text
    monkeypatch.setattr(_text, "MAX_FILE_BYTES", 10)
    p = write_file(tmp_path, "big", FACTOID)
    assert "larger" in _err(trec_runs.read_judged_factoid, p, "s").problem


def test_list_bad_distinct(tmp_path):
    p = write_file(tmp_path, "l", "5.3 L1 D1 -1 1 Boston\n")
    e = _err(trec_runs.read_judged_list, p, "s")
    assert e.place == "line 1" and "distinct" in e.problem


def test_other_duplicate_item(tmp_path):
    one = write_file(tmp_path, "o1", "1.6 O1 1 D1 a\n1.6 O1 1 D2 b\n")
    two = write_file(tmp_path, "o2", "1.6 O1 1 6\n")
    e = _err(trec_runs.read_judged_other, one, two, "s")
    assert str(one) in str(e) and e.place == "line 2" and "duplicate item" in e.problem


def test_other_part_two_unknown_item(tmp_path):
    one = write_file(tmp_path, "o1", "1.6 O1 1 D1 a\n")
    two = write_file(tmp_path, "o2", "1.6 O1 1 6\n1.6 O1 3 6\n")
    e = _err(trec_runs.read_judged_other, one, two, "s")
    assert str(two) in str(e) and e.place == "line 2"


def test_other_part_two_other_tag(tmp_path):
    one = write_file(tmp_path, "o1", "1.6 O1 1 D1 a\n")
    two = write_file(tmp_path, "o2", "1.6 O2 1 6\n")
    assert "O2" in _err(trec_runs.read_judged_other, one, two, "s").problem


# --------------------------------------------------------------------------- questions / keys (bad)

DTD = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE trecqa [
<!ELEMENT trecqa (target+)>
<!ATTLIST target id ID #REQUIRED text CDATA #REQUIRED>
]>
"""


def test_series_xml_latin1(tmp_path):
    body = DTD + ('<trecqa year="2004" task="main"><target id="1" text="Caf\xe9">'
                  '<qa><q id="1.1" type="FACTOID">Where is the caf\xe9?</q></qa></target></trecqa>')
    p = write_file(tmp_path, "q.xml", body.encode("latin-1"))
    q = trec_questions.read_series_xml(p)
    assert q["text"][0] == "Where is the café?"


def test_series_xml_entity_refused(tmp_path):
    body = ('<?xml version="1.0"?>\n<!DOCTYPE trecqa [\n<!ENTITY x "boom">\n]>\n'
            '<trecqa><target id="1" text="a"><qa><q id="1.1" type="FACTOID">&x;</q></qa>'
            '</target></trecqa>')
    p = write_file(tmp_path, "q.xml", body)
    e = _err(trec_questions.read_series_xml, p)
    assert str(p) in str(e) and e.place.startswith("line ") and "entities" in e.problem


def test_series_xml_external_dtd_refused(tmp_path):
    body = ('<?xml version="1.0"?>\n<!DOCTYPE trecqa SYSTEM "http://example.org/x.dtd">\n'
            '<trecqa><target id="1" text="a"><qa><q id="1.1" type="FACTOID">x</q></qa>'
            '</target></trecqa>')
    p = write_file(tmp_path, "q.xml", body)
    e = _err(trec_questions.read_series_xml, p)
    assert e.place == "line 2" and "external" in e.problem


def test_series_xml_external_entity_refused(tmp_path):
    body = ('<?xml version="1.0"?>\n<!DOCTYPE trecqa [\n<!ENTITY x SYSTEM "file:///etc/passwd">\n]>\n'
            '<trecqa><target id="1" text="a"><qa><q id="1.1" type="FACTOID">&x;</q></qa>'
            '</target></trecqa>')
    e = _err(trec_questions.read_series_xml, write_file(tmp_path, "q.xml", body))
    assert "entities" in e.problem or "external" in e.problem


def test_series_xml_bad_type_names_element(tmp_path):
    body = DTD + ('<trecqa><target id="1" text="a"><qa><q id="1.3" type="WHAT">x</q></qa>'
                  '</target></trecqa>')
    e = _err(trec_questions.read_series_xml, write_file(tmp_path, "q.xml", body))
    assert e.place == "<q id='1.3'> in <target id='1'>"


def test_series_xml_malformed(tmp_path):
    body = '<?xml version="1.0"?>\n<trecqa>\n<target id="1">\n</trecqa>'
    e = _err(trec_questions.read_series_xml, write_file(tmp_path, "q.xml", body))
    assert e.place.startswith("line 4") and "malformed" in e.problem


def test_top_duplicate(tmp_path):
    text = ("<top>\n<num> Number: 1\n<desc> Description:\nA?\n</top>\n\n"
            "<top>\n<num> Number: 1\n<desc> Description:\nB?\n</top>\n")
    e = _err(trec_questions.read_top_questions, write_file(tmp_path, "t", text))
    assert e.place == "line 7" and "twice" in e.problem


def test_nuggets_bad(tmp_path):
    p = write_file(tmp_path, "n", "Qid 1.6: x\n1.6 1\tvital\ta\n1.6 2\tmaybe\tb\n")
    e = _err(answer_keys.read_nuggets, p)
    assert e.place == "line 3" and "maybe" in e.problem
    p = write_file(tmp_path, "n2", "Qid 1.6: x\n1.6 1\tvital\ta\n1.6 1\tokay\tb\n")
    assert "duplicate" in _err(answer_keys.read_nuggets, p).problem


def test_pyramid_bad_weight(tmp_path):
    p = write_file(tmp_path, "p", "1.6\t1\t0.5\ta\n1.6\t2\t1.5\tb\n")
    e = _err(answer_keys.read_pyramid, p)
    assert e.place == "line 2" and "1.5" in e.problem


def test_list_key_instance_before_header(tmp_path):
    e = _err(answer_keys.read_list_key, write_file(tmp_path, "k", "Boston\n# 1.3\nQ:x?\nParis\n"))
    assert e.place == "line 1"
