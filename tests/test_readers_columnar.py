"""The columnar line readers: files read in batches of
whole lines give the same tables and the same first error whatever the batch
size; the single-space split and the white-space regular expression give the
same fields; PAN JSON lines and CLEF run TSVs in the canonical shape are read
on columns with the values the format defines, and every other file falls
back to the line reader (which reports the first offending line)."""

from __future__ import annotations

import gzip

import polars as pl
import pytest

from qacamp.errors import InputError
from qacamp.readers import _clef_columns, _pan_columns, _text, clef, pan, trec_runs

FACTOID = ("1.1 runA APW19980705.0043 R 1969 in Los Angelés\n"
           "1.2 runA NIL 1\n"
           "# a comment\n"
           "\n"
           "2.1\trunA   NYT19990101.0001 -1   Paris  \n"
           "2.2 runA D X x\n")

BATCHES = [1, 7, 40, 8 * 1024**2]


def _outcome(read, path):
    try:
        frames = read(path)
    except InputError as exc:
        return ("error", exc.path, exc.place, exc.problem, exc.fix)
    return ("ok", *(f.to_dicts() for f in frames))


def _same_for_every_batch_size(monkeypatch, read, path):
    outcomes = []
    for size in BATCHES:
        monkeypatch.setattr(_text, "BATCH_BYTES", size)
        outcomes.append(_outcome(read, path))
    assert all(o == outcomes[0] for o in outcomes), outcomes
    return outcomes[0]


def test_fields_split_on_spaces_or_white_space_alike(tmp_path, monkeypatch):
    """Hand-read fields: tabs and runs of spaces separate fields like one space;
    the rest of the line keeps its inner spaces and loses the outer ones."""
    p = tmp_path / "run"
    p.write_text(FACTOID, encoding="utf-8")
    out = _same_for_every_batch_size(
        monkeypatch, lambda x: trec_runs.read_judged_factoid(x, "s"), p)
    resp = out[1]
    assert [r["qid"] for r in resp] == ["1.1", "1.2", "2.1", "2.2"]
    assert [r["answer"] for r in resp] == ["1969 in Los Angelés", None, "Paris", "x"]
    assert [r["docid"] for r in resp] == ["APW19980705.0043", "NIL", "NYT19990101.0001", "D"]
    assert [r["rank"] for r in resp] == [1, 2, 3, 4]
    assert [j["judgment"] for j in out[2]] == ["R", "R", "W", "X"]


def test_fields_split_on_python_white_space(tmp_path):
    """Fields are separated by the white space Python's ``str.split()`` sees,
    U+001F (which polars' ``\\s`` lacks) and U+00A0 / U+3000 included, and the
    rest of the line is stripped of it: each line read as ``line.split(None,
    4)`` reads it, on single spaces or not."""
    lines = ["1 tagA D\x1fR x", "2\x1ftagA D W  y z\x1f", "3 tagA\xa0D R\u3000w",
             "4 tagA D R \x1fv\x1f", "5\ttagA D U"]
    p = tmp_path / "run"
    p.write_text("\n".join(lines) + "\n", encoding="utf-8")
    responses, judgments = trec_runs.read_judged_factoid(p, "s")
    want = [line.split(None, 4) + [""] * (5 - len(line.split(None, 4))) for line in lines]
    assert responses["qid"].to_list() == [w[0] for w in want]
    assert responses["docid"].to_list() == [w[2] for w in want]
    assert judgments["judgment"].to_list() == [w[3] for w in want]
    assert responses["answer"].to_list() == [w[4].strip() or None for w in want]


@pytest.mark.parametrize("text, place, problem", [
    # a field error before an invalid byte: the invalid byte is reported (the
    # text is checked whole before its fields), whichever batch holds it
    ("1.1 runA\n" + "1.2 runA D R x\n" * 5 + "1.9 runA D R \xff\n", "line 7", "byte 0xff"),
    # a field error before a line-break character: the break character
    ("1.1 runA\n" + "1.2 runA D R x\n" * 5 + "1.9 runA D R a\vb\n", "line 7", "vertical tab"),
    # an invalid byte after a break character: the invalid byte
    ("1.1 runA D R a\x1cb\n" + "1.2 runA D R x\n" * 5 + "1.9 runA D R \xff\n", "line 7",
     "byte 0xff"),
    # two field errors: the first
    ("1.0 runA D R x\n" * 3 + "1.1 runA\n" + "1.2 runA D R x\n" * 5 + "1.3\n", "line 4",
     "expected 4 fields"),
    # a field error after a tag error: the field error (fields are split first)
    ("1.1 runA D R x\n1.2 runB D R x\n" + "1.3 runA D R x\n" * 5 + "1.4 runA\n", "line 8",
     "expected 4 fields"),
    # CR LF line ends are accepted; a lone CR is not
    ("1.1 runA D R x\r\n" * 4 + "1.2 runA D R a\rb\r\n", "line 5", "carriage return"),
    # only white space (a VT and an FF are white space): empty, not a break
    (" \n\v\f\t\n", "byte 0", "empty"),
])
def test_first_error_whatever_the_batch(tmp_path, monkeypatch, text, place, problem):
    p = tmp_path / "run"
    p.write_bytes(text.encode("utf-8").replace("\xff".encode(), b"\xff"))
    out = _same_for_every_batch_size(monkeypatch,
                                     lambda x: trec_runs.read_judged_factoid(x, "s"), p)
    assert out[0] == "error" and out[1] == str(p) and out[2] == place, out
    assert problem in out[3], out


def test_gzip_and_bom_read_in_batches(tmp_path, monkeypatch):
    p = tmp_path / "run.gz"
    p.write_bytes(gzip.compress(b"\xef\xbb\xbf" + FACTOID.encode("utf-8")))
    out = _same_for_every_batch_size(
        monkeypatch, lambda x: trec_runs.read_judged_factoid(x, "s"), p)
    assert [r["qid"] for r in out[1]] == ["1.1", "1.2", "2.1", "2.2"]


def test_batches_hold_whole_lines_and_stay_bounded(tmp_path, monkeypatch):
    monkeypatch.setattr(_text, "BATCH_BYTES", 1000)
    line = b"1.1 runA D R " + b"x" * 87 + b"\n"  # 100 bytes
    p = tmp_path / "run"
    p.write_bytes(line * 105 + b"1.1 runA D R last")
    pairs = list(_text._batches(p))
    batches = [batch for batch, _ in pairs]
    assert [feeds for _, feeds in pairs] == [batch.count(b"\n") for batch in batches]
    assert b"".join(batches) == p.read_bytes()
    assert all(b.endswith(b"\n") for b in batches[:-1])
    # a batch closes at the first line end past BATCH_BYTES (read chunks are
    # at most MAX_LINE_BYTES, so never more than BATCH_BYTES + one chunk)
    assert max(len(b) for b in batches) <= 1000 + _text.CHUNK_BYTES
    assert len(batches) > 1 or _text.CHUNK_BYTES >= p.stat().st_size


TRUTH = ('{"id": "p1", "same": true}\n{"id": "p2", "same": false}\n'
         '{"id": "p3", "same": true}\n{"id": "p4", "same": false}\n')


def test_pan_canonical_lines_read_on_columns(tmp_path, monkeypatch):
    """Hand-made expectations: > 0.5 answers Y, < 0.5 N, 0.5 is no answer, a
    one-element list is unwrapped; R when the answer matches the truth."""
    t = tmp_path / "truth.jsonl"
    t.write_text(TRUTH, encoding="utf-8")
    q, o = pan.read_truth(t)
    assert _pan_columns.truth(t, pan.OPTIONS) is not None
    assert q["qid"].to_list() == ["p1", "p2", "p3", "p4"] and q["position"].to_list() == [1, 2, 3, 4]
    assert o.select("qid", "option", "correct").rows() == [
        ("p1", "Y", True), ("p1", "N", False), ("p2", "Y", False), ("p2", "N", True),
        ("p3", "Y", True), ("p3", "N", False), ("p4", "Y", False), ("p4", "N", True)]
    a = tmp_path / "teamX" / "answers.jsonl"
    a.parent.mkdir()
    a.write_text('{"id": "p2", "value": 0.7}\n{"id": "p1", "value": [0.9]}\n\n'
                 '{"id": "p3", "value": 0.5}\n{"id":"p4","value":0}\n', encoding="utf-8")
    for size in BATCHES:
        monkeypatch.setattr(_text, "BATCH_BYTES", size)
        assert _pan_columns.answers(a, "teamX", q, o, pan.JUDGMENT_SET) is not None
        resp, judg = pan.read_answers(a, q, o)
        assert resp.select("run", "qid", "rank", "answer", "answered", "score").rows() == [
            ("teamX", "p2", 1, "Y", True, 0.7), ("teamX", "p1", 2, "Y", True, 0.9),
            ("teamX", "p3", 3, None, False, 0.5), ("teamX", "p4", 4, "N", True, 0.0)]
        assert judg["judgment"].to_list() == ["W", "R", None, "R"]


def test_pan_answers_judged_against_truth_tables_in_any_order(tmp_path):
    """The columnar reader judges against the options whatever their row order
    (the truth reader's tables list the problems in file order; other tables
    may not): hand-made expectations, the same frames both ways, and a problem
    outside the questions still falls back to the line reader's error."""
    t = tmp_path / "truth.jsonl"
    t.write_text(TRUTH, encoding="utf-8")
    q, o = pan.read_truth(t)
    a = tmp_path / "teamX" / "answers.jsonl"
    a.parent.mkdir()
    a.write_text('{"id": "p3", "value": 0.2}\n{"id": "p1", "value": 0.9}\n'
                 '{"id": "p4", "value": 0.1}\n{"id": "p2", "value": 0.5}\n', encoding="utf-8")
    shuffled = o.reverse()
    resp, judg = _pan_columns.answers(a, "teamX", q, shuffled, pan.JUDGMENT_SET)
    assert resp.select("qid", "rank", "answer", "answered", "score").rows() == [
        ("p3", 1, "N", True, 0.2), ("p1", 2, "Y", True, 0.9), ("p4", 3, "N", True, 0.1),
        ("p2", 4, None, False, 0.5)]
    assert judg["judgment"].to_list() == ["W", "R", "R", None]
    same = _pan_columns.answers(a, "teamX", q, o, pan.JUDGMENT_SET)
    assert resp.equals(same[0]) and judg.equals(same[1])
    fewer = q.filter(pl.col("qid") != "p4")
    assert _pan_columns.answers(a, "teamX", fewer, shuffled, pan.JUDGMENT_SET) is None
    assert _pan_columns.answers(a, "teamX", fewer, o, pan.JUDGMENT_SET) is None
    with pytest.raises(InputError, match="problem p4 is not in the truth file"):
        pan.read_answers(a, fewer, shuffled)


@pytest.mark.parametrize("line, outcome", [
    ('{"id": "p1", "value": 0.7, "note": "x"}', ("ok", 0.7)),   # extra key: accepted
    ('{"value": 0.7, "id": "p1"}', ("ok", 0.7)),                # other key order
    ('{"id": 1, "value": 0.7}', ("error", "problem 1 is not in the truth file")),
    ('{"id": "p1", "value": -0}', ("ok", 0.0)),                 # JSON's -0 is the integer 0
    ('{"id": "p1", "value": 1.5}', ("error", "value 1.5 is not a number in [0, 1]")),
    ('{"id": "p1", "value": [0.7}', ("error", "not valid JSON")),
    ('{"id": "p\\u0031", "value": 0.2}', ("ok", 0.2)),          # an escape in the id
    ('# {"id": "p1", "value": 0.2}', ("error", "no comment lines")),
])
def test_pan_other_lines_fall_back_to_the_line_reader(tmp_path, line, outcome):
    """Lines outside the canonical shape are not read on columns; the line
    reader gives them the format's meaning or the error at their line."""
    t = tmp_path / "truth.jsonl"
    t.write_text(TRUTH, encoding="utf-8")
    q, o = pan.read_truth(t)
    a = tmp_path / "teamX" / "answers.jsonl"
    a.parent.mkdir()
    a.write_text('{"id": "p2", "value": 0.1}\n' + line + "\n", encoding="utf-8")
    assert _pan_columns.answers(a, "teamX", q, o, pan.JUDGMENT_SET) is None
    if outcome[0] == "ok":
        resp, _ = pan.read_answers(a, q, o)
        assert resp.filter(pl.col("qid") == "p1")["score"].to_list() == [outcome[1]]
        assert str(resp["score"][1]) == str(outcome[1])  # (0.0, never -0.0)
    else:
        with pytest.raises(InputError) as ei:
            pan.read_answers(a, q, o)
        assert ei.value.place == "line 2" and outcome[1] in ei.value.problem


CLEF_RUN = ("run\tqid\tanswered\tjudgment\tanswer\n"
            "r1\t1\t1\tR\tParis\n"
            "r1\t2\t0\tw\tLos  Angeles\n"
            "\n"
            "r1\t3\t0\t-\t\n"
            "r1\t4\t0\t\n")


def test_clef_canonical_run_read_on_columns(tmp_path, monkeypatch):
    """Hand-made expectations: an answered line's text is its answer, an
    unanswered line's text its candidate; ``-`` (or nothing) judges no candidate."""
    p = tmp_path / "r1.tsv"
    p.write_text(CLEF_RUN, encoding="utf-8")
    for size in BATCHES:
        monkeypatch.setattr(_text, "BATCH_BYTES", size)
        assert _clef_columns.run(p, clef.JUDGMENT_SET, clef.RUN_HEADER) is not None
        resp, judg = clef.read_run(p)
        assert resp.select("run", "qid", "rank", "answer", "answered", "candidate").rows() == [
            ("r1", "1", 1, "Paris", True, None), ("r1", "2", 2, None, False, "Los  Angeles"),
            ("r1", "3", 3, None, False, None), ("r1", "4", 4, None, False, None)]
        assert judg["judgment"].to_list() == ["R", "W", None, None]


@pytest.mark.parametrize("line, outcome", [
    ("r1\t5\t1\tR\t Rome ", ("ok", "Rome")),          # padded fields: stripped
    ("#r1\t5\t1\tR\tRome", ("error", "line 7", "no comment lines")),
    ("r1\t5\t1\t-\tRome", ("error", "line 7", "judgment '-' for an answered question")),
    ("r1\t2\t1\tR\tRome", ("error", "line 7", "question 2 answered twice (first at line 3)")),
    ("r2\t5\t1\tR\tRome", ("error", "line 7", "names run 'r2'")),
])
def test_clef_other_lines_fall_back_to_the_line_reader(tmp_path, line, outcome):
    p = tmp_path / "r1.tsv"
    p.write_text(CLEF_RUN + line + "\n", encoding="utf-8")
    assert _clef_columns.run(p, clef.JUDGMENT_SET, clef.RUN_HEADER) is None
    if outcome[0] == "ok":
        resp, _ = clef.read_run(p)
        assert resp["answer"].to_list()[-1] == outcome[1] and resp.height == 5
    else:
        with pytest.raises(InputError) as ei:
            clef.read_run(p)
        assert ei.value.place == outcome[1] and outcome[2] in ei.value.problem, ei.value
