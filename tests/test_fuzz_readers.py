"""Property-based fuzzing of every reader (hypothesis).

For each input format a small valid document is built here, a
hypothesis-drawn chain of 1-3 mutations is applied (truncation, dropped or
extra fields, junk codes / unknown ids, random bytes incl. NUL and invalid
UTF-8, duplicated / deleted / swapped lines, a very long line, re-encoding as
UTF-16 / latin-1 / ..., entity declarations / external DTDs / entity
references / deep nesting / odd encoding declarations in XML, empty files) and
the reader is called.  The only accepted outcomes are

* a successful parse returning frames that conform to ``qacamp.tables.SCHEMAS``
  (some mutations leave the document valid), or
* :class:`qacamp.errors.InputError` whose message names the file and a place
  (``line N`` / ``byte N`` / ``row N`` / an XML element).

Any other exception fails the test.  Every format runs at least
:data:`MIN_VARIANTS` variants; the counts are checked per test and printed in
the terminal by ``test_every_format_fuzzed`` (also recorded as its properties).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import polars as pl
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from qacamp import tables
from qacamp.errors import InputError
from qacamp.readers import (
    _text,
    _xml,
    answer_keys,
    clef,
    matrix,
    pan,
    qa4mre,
    trec_questions,
    trec_runs,
)

MIN_VARIANTS = 200
VARIANTS: Counter[str] = Counter()
"""Variants run per format (checked >= MIN_VARIANTS, printed at the end)."""
OUTCOMES: Counter[tuple[str, str]] = Counter()
"""(format, "parsed" | "InputError") counts."""

PLACE = re.compile(r"(?:line|byte|row) \d+|<[\w-]+")

# --------------------------------------------------------------------------- valid documents

TOP = """<top>
<num> Number: 1394
<desc> Description:
In what country did the game of croquet originaté?
</top>

<top>
<num> Number: 1395
<desc> Description:
Who is Tom Cruise married to?
</top>
"""

SERIES = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE trecqa [
<!ELEMENT trecqa (target+)>
<!ATTLIST target id CDATA #REQUIRED>
]>
<trecqa year="2005" task="main">
<target id="1" text="Crips">
<qa><q id="1.1" type="FACTOID">When was the Crips gang started?</q></qa>
<qa><q id="1.2" type="LIST">Who are Crips members?</q></qa>
<qa><q id="1.3" type="OTHER">Other &amp; more</q></qa>
</target>
<target id="2" text="Café">
<qa><q id="2.1" type="FACTOID">Where is the café?</q></qa>
</target>
</trecqa>
"""

FACTOID = ("1.1 runA APW19980705.0043 R 1969 in Los Angelés\n"
           "1.2 runA NIL 1\n"
           "# a comment\n"
           "2.1 runA NYT19990101.0001 -1 Paris\n")

LIST = ("1.2 runA APW19980705.0043 1 1 Stanley Williams\n"
        "1.2 runA NYT19990101.0001 -1 0 Raymond é\n"
        "1.2 runA XIE19990101.0002 R 0 Stanley Williams\n"
        "2.2 runA NIL X 0\n")

OTHER1 = ("1.3 runA 1 APW19980705.0043 Crips founded 1969\n"
          "1.3 runA 2 NYT19990101.0001 gang in LA é\n"
          "2.3 runA 1 NIL\n")

OTHER2 = "1.3 runA 1 1\n1.3 runA 2 3\n2.3 runA 1 7\n"

NUGGETS = ("Qid 1.3: 'other' question for target Crips\n"
           "1.3 1\tvital\tfounded in 1969\n"
           "1.3 2\tokay\tLos Angeles gang é\n"
           "\n"
           "Qid 2.3: 'other' question for target Café\n"
           "2.3 1\tvital\tserves coffee\n")

PYRAMID = "1.3\t1\t1.0\tfounded in 1969\n1.3\t2\t0.25\tLos Angeles gang é\n2.3\t1\t0\tcoffee\n"

LIST_KEY = ("# 1.2\nQ: Who are Crips members?\nStanley Williams\nRaymond Washington é\n"
            "Stanley Williams\n# 2.2\nQ: Which cafés?\nFlore\n")

PATTERNS = ("1.1 1969\n"
            "1.1 (Los )?Angel[eé]s APW19980705.0043 NYT19990101.0001\n"
            "2.1\tParis|Pariß\tNYT19990101.0001 none\n"
            "2.2\tFlore\n")

GOLD = """<?xml version="1.0" encoding="UTF-8"?>
<test-set>
<topic t_id="1" t_name="AIDS">
<reading-test r_id="2">
<doc d_id="3">Some text about é.</doc>
<q q_id="1"><q_str>What is <b>it</b>?</q_str>
<answer a_id="1" correct="Yes">a virus</answer>
<answer a_id="2">None of the above</answer>
</q>
<q q_id="16" aux_of="1"><q_str>Is it a virus?</q_str>
<answer a_id="1">yes é</answer>
<answer a_id="2" correct="Yes">no</answer>
</q>
</reading-test>
</topic>
</test-set>
"""

RUN = """<?xml version="1.0" encoding="UTF-8"?>
<output run_id="team1">
<topic t_id="1">
<reading-test r_id="2">
<question q_id="1" answered="YES"><answer a_id="1"/></question>
<question q_id="16" answered="NO"><answer a_id="1"/></question>
</reading-test>
</topic>
</output>
"""

CLEF_Q = "qid\tlanguage\ttext\n1\tEN\tWhy é?\n2\tDE\tWie?\n3\tEN\tWho?\n"
CLEF_RUN = ("run\tqid\tanswered\tjudgment\tanswer\n"
            "r1\t1\t1\tR\tbecause é\nr1\t2\t0\tW\tmaybe\nr1\t3\t0\t-\t\n")

TRUTH = "\n".join(json.dumps(r) for r in [
    {"id": "a", "same": True}, {"id": "b", "same": False}, {"id": 3, "same": True}]) + "\n"
ANSWERS = ('{"id": "a", "value": 0.9}\n{"id": "b", "value": [0.5]}\n'
           '{"id": 3, "value": 0.1, "note": "é"}\n')

MATRIX = "unit,a,résumé\nq1,0.5,1\nq2,0,0.25\nq3,1e-3,-2\n"


# --------------------------------------------------------------------------- mutations

JUNK = ["", " ", "Q", "r", "-1", "0", "1", "2", "3", "4", "-0", "99", "99999999999", "0.5",
        "1.5", "-0.1", "NaN", "nan", "inf", "-inf", "1e309", "1e-400", "1_0", "١", "true",
        "null", "[]", "{}", "[0.7, 0.2]", '"x"', "unknown_id", "9.9.9", "NIL", "YES", "NO",
        "Yes", "\x00", "\x00\x00", "é", "\ufeff", "\u2028", "\x85", "<", ">", "&", "&amp;",
        "&x;", "&#0;", "&#xD800;", '"', "'", "\t", "\t\t", ",", "\r", "#", "Qid", "# 1.2",
        "</top>", "<top>", "<q>", "</q>", "<![CDATA[x]]>", "a" * 300]

ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "cp500",
             "utf-8-sig", "shift_jis"]

XML_DECL_ENCODINGS = ["shift_jis", "utf-7", "euc-jp", "bogus-enc", "UTF-16", "utf-32",
                      "ascii", "cp1252", "ISO-8859-1", "UTF-8", ""]

XML_INJECTIONS = [
    '<!DOCTYPE x [<!ENTITY e "boom">]>',
    '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;">]>',
    '<!DOCTYPE x SYSTEM "http://example.invalid/x.dtd">',
    '<!DOCTYPE x PUBLIC "-//X//DTD X//EN" "file:///etc/passwd">',
    '<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>',
    '<!DOCTYPE x [<!ENTITY % pe SYSTEM "http://example.invalid/p.dtd"> %pe;]>',
    '<!DOCTYPE x [<!ENTITY e SYSTEM "http://example.invalid/" NDATA gif>]>',
    "&xxe;", "&e;", "&unknown;", "&#0;", "&#xD800;", "&#x110000;", "&amp;", "&lt;",
    '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd"/>',
    "<?xml-stylesheet href='x'?>", "<!-- c -->", "<![CDATA[<q q_id='9'>]]>",
    "</topic>", "<topic>", "<q q_id=\"1\">", "<answer/>", '<question q_id="1"/>',
    '<target id="1">', "]]>", "<", "<!", "<?", "\x00", "\x0c",
]


def _lines(b: bytes) -> list[bytes]:
    return b.split(b"\n")


def _pick(draw, n: int, label: str) -> int:
    return draw(st.integers(0, max(n - 1, 0)), label=label)


@st.composite
def _mutation(draw, doc: bytes, encoding: str) -> bytes:
    kind = draw(st.sampled_from([
        "truncate", "truncate_line", "drop_field", "add_field", "replace_token", "junk_bytes",
        "dup_line", "del_line", "swap_lines", "long_line", "reencode", "xml_inject",
        "xml_decl", "deep_nest", "empty", "crlf_bom", "random_line", "deep_json",
    ]), label="mutation")
    lines = _lines(doc)
    if kind == "truncate":
        return doc[:draw(st.integers(0, len(doc)))]
    if kind == "truncate_line":
        i = _pick(draw, len(lines), "line")
        lines[i] = lines[i][:draw(st.integers(0, len(lines[i])))]
        return b"\n".join(lines)
    if kind in ("drop_field", "add_field", "replace_token"):
        i = _pick(draw, len(lines), "line")
        line = lines[i].decode(encoding, "replace")
        sep = "\t" if "\t" in line else ("," if "," in line else " ")
        if kind == "replace_token":
            parts = re.split(r'([\s,<>="]+)', line)
        else:
            parts = line.split(sep)
        j = _pick(draw, len(parts), "field")
        junk = draw(st.one_of(st.sampled_from(JUNK), st.text(max_size=6)), label="junk")
        if kind == "drop_field" and parts:
            del parts[j]
        elif kind == "add_field":
            parts.insert(j, junk)
        elif parts:
            parts[j] = junk
        joined = ("" if kind == "replace_token" else sep).join(parts)
        lines[i] = joined.encode(encoding, "replace") if encoding != "utf-8" else \
            joined.encode("utf-8", "surrogatepass")
        return b"\n".join(lines)
    if kind == "junk_bytes":
        pos = draw(st.integers(0, len(doc)))
        junk = draw(st.one_of(
            st.binary(min_size=1, max_size=8),
            st.sampled_from([b"\x00", b"\xff", b"\xc3", b"\xc3\x28", b"\xed\xa0\x80",
                             b"\xef\xbb\xbf", b"\xfe\xff", b"\x80\x80", b"\r", b"\x1a"]),
        ), label="bytes")
        return doc[:pos] + junk + doc[pos:]
    if kind == "dup_line":
        i = _pick(draw, len(lines), "line")
        j = _pick(draw, len(lines) + 1, "at")
        lines.insert(j, lines[i])
        return b"\n".join(lines)
    if kind == "del_line":
        del lines[_pick(draw, len(lines), "line")]
        return b"\n".join(lines)
    if kind == "swap_lines":
        i, j = _pick(draw, len(lines), "i"), _pick(draw, len(lines), "j")
        lines[i], lines[j] = lines[j], lines[i]
        return b"\n".join(lines)
    if kind == "long_line":
        i = _pick(draw, len(lines) + 1, "at")
        prefix = lines[min(i, len(lines) - 1)][:draw(st.integers(0, 40))]
        fill = draw(st.sampled_from([b"x", b" ", b"\t", b"9", b",", b"a\t"]))
        n = draw(st.sampled_from([_text.MAX_LINE_BYTES + 1, 200_000, 5_000]))
        lines.insert(i, prefix + fill * n)
        return b"\n".join(lines)
    if kind == "reencode":
        target = draw(st.sampled_from(ENCODINGS), label="encoding")
        return doc.decode(encoding, "replace").encode(target, "replace")
    if kind == "xml_inject":
        pos = draw(st.integers(0, len(doc)))
        inj = draw(st.sampled_from(XML_INJECTIONS), label="injection").encode()
        return doc[:pos] + inj + doc[pos:]
    if kind == "xml_decl":
        enc = draw(st.sampled_from(XML_DECL_ENCODINGS), label="declared")
        decl = f'<?xml version="1.0" encoding="{enc}"?>'.encode() if enc else b'<?xml version="1.0"?>'
        body = re.sub(rb"^<\?xml[^>]*\?>", b"", doc)
        return decl + body
    if kind == "deep_nest":
        pos = draw(st.integers(0, len(doc)))
        depth = draw(st.sampled_from([50, 3000, 20_000]))
        return doc[:pos] + b"<b>" * depth + b"t" + b"</b>" * depth + doc[pos:]
    if kind == "empty":
        return draw(st.sampled_from([b"", b"\n", b"  \n\t\n", b"\xef\xbb\xbf", b"# c\n", b"\x00"]))
    if kind == "crlf_bom":
        return b"\xef\xbb\xbf" + doc.replace(b"\n", b"\r\n")
    if kind == "random_line":
        i = _pick(draw, len(lines), "line")
        lines[i] = draw(st.text(max_size=40), label="text").encode("utf-8", "surrogatepass")
        return b"\n".join(lines)
    # deep_json: deeply nested JSON / brackets / huge number on a line
    i = _pick(draw, len(lines) + 1, "at")
    lines.insert(i, draw(st.sampled_from([
        b"[" * 50_000, b'{"id": "a", "value": ' + b"[" * 5000 + b"]" * 5000 + b"}",
        b'{"id": ' + b"7" * 5000 + b', "same": true}', b'{"id": "a", "value": 1' + b"0" * 5000 + b"}",
        b"a{99999999999}", b"(" * 3000 + b")" * 3000, b"1.1 " + b"(" * 3000 + b")" * 3000,
        b'"' + b"x" * 140_000 + b'"'])))
    return b"\n".join(lines)


def _mutated(doc: str, encoding: str) -> st.SearchStrategy[bytes]:
    raw = doc.encode(encoding)

    @st.composite
    def chain(draw) -> bytes:
        data = raw
        for _ in range(draw(st.integers(1, 3), label="n_mutations")):
            data = draw(_mutation(data, encoding))
        return data

    return chain()


# --------------------------------------------------------------------------- harness

def _check_frames(result, names: list[str]) -> None:
    frames = result if isinstance(result, tuple) else (result,)
    assert len(frames) == len(names)
    for df, name in zip(frames, names, strict=True):
        assert isinstance(df, pl.DataFrame)
        assert df.schema == pl.Schema(tables.SCHEMAS[name]), name


def _fuzz(fmt: str, target: Path, doc: str, read: Callable[[Path], object], names: list[str],
          encoding: str = "utf-8") -> None:
    """Run ``read`` on at least MIN_VARIANTS mutated variants of ``doc`` written to ``target``."""
    target.parent.mkdir(parents=True, exist_ok=True)
    # the valid document itself parses
    target.write_bytes(doc.encode(encoding))
    _check_frames(read(target), names)

    @settings(max_examples=MIN_VARIANTS, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(data=_mutated(doc, encoding))
    def prop(data: bytes) -> None:
        VARIANTS[fmt] += 1
        target.write_bytes(data)
        try:
            result = read(target)
        except InputError as exc:
            msg = str(exc)
            assert str(target) in msg, msg
            assert exc.place and PLACE.search(exc.place), f"no place in {msg!r}"
            assert exc.place in msg
            OUTCOMES[(fmt, "InputError")] += 1
            return
        _check_frames(result, names)
        OUTCOMES[(fmt, "parsed")] += 1

    start = VARIANTS[fmt]
    for _ in range(10):  # hypothesis may stop early on a small search space
        prop()
        if VARIANTS[fmt] - start >= MIN_VARIANTS:
            break
    assert VARIANTS[fmt] - start >= MIN_VARIANTS, VARIANTS[fmt] - start


def _summary() -> list[str]:
    lines = ["fuzzed reader variants (format: total = parsed + InputError):"]
    for fmt in sorted(VARIANTS):
        lines.append(f"  {fmt}: {VARIANTS[fmt]} = {OUTCOMES[(fmt, 'parsed')]} + "
                     f"{OUTCOMES[(fmt, 'InputError')]}")
    lines.append(f"  total: {sum(VARIANTS.values())}")
    return lines


# --------------------------------------------------------------------------- one test per format

@pytest.fixture(scope="module")
def gold(tmp_path_factory):
    p = tmp_path_factory.mktemp("gold") / "gold.xml"
    p.write_text(GOLD, encoding="utf-8")
    return qa4mre.read_gold(p)


@pytest.fixture(scope="module")
def truth(tmp_path_factory):
    p = tmp_path_factory.mktemp("truth") / "truth.jsonl"
    p.write_text(TRUTH, encoding="utf-8")
    return pan.read_truth(p)


def test_fuzz_top_questions(tmp_path):
    _fuzz("trec top questions", tmp_path / "trec11questions", TOP,
          trec_questions.read_top_questions, ["questions"])


def test_fuzz_series_xml(tmp_path):
    _fuzz("trec series xml", tmp_path / "trec14questions.xml", SERIES,
          trec_questions.read_series_xml, ["questions"], encoding="latin-1")


def test_fuzz_judged_factoid(tmp_path):
    _fuzz("judged factoid", tmp_path / "runA.factoid", FACTOID,
          lambda p: trec_runs.read_judged_factoid(p, "adjudicated"), ["responses", "judgments"])


def test_fuzz_judged_list(tmp_path):
    _fuzz("judged list", tmp_path / "runA.list", LIST,
          lambda p: trec_runs.read_judged_list(p, "adjudicated"), ["responses", "judgments"])


def test_fuzz_judged_other_part_one(tmp_path):
    two = tmp_path / "runA.other2"
    two.write_text(OTHER2, encoding="utf-8")

    def read(p):
        try:
            return trec_runs.read_judged_other(p, two, "adjudicated")
        except InputError as exc:
            # a mutated part one can make the (valid) part two refer to missing items
            if exc.path == str(two):
                assert str(p) in str(exc) and exc.place
                raise InputError(p, exc.place, exc.problem, exc.fix) from exc
            raise

    _fuzz("judged other part one", tmp_path / "runA.other1", OTHER1, read,
          ["responses", "nugget_matches"])


def test_fuzz_judged_other_part_two(tmp_path):
    one = tmp_path / "runA.other1"
    one.write_text(OTHER1, encoding="utf-8")
    _fuzz("judged other part two", tmp_path / "runA.other2", OTHER2,
          lambda p: trec_runs.read_judged_other(one, p, "adjudicated"),
          ["responses", "nugget_matches"])


def test_fuzz_nuggets(tmp_path):
    _fuzz("nuggets", tmp_path / "trec13answers_other", NUGGETS, answer_keys.read_nuggets,
          ["nuggets"])


def test_fuzz_pyramid(tmp_path):
    _fuzz("pyramid", tmp_path / "trec15answers_other_pyramid", PYRAMID,
          answer_keys.read_pyramid, ["nuggets"])


def test_fuzz_list_key(tmp_path):
    _fuzz("list key", tmp_path / "trec13answers_list", LIST_KEY, answer_keys.read_list_key,
          ["list_key"])


def test_fuzz_patterns(tmp_path):
    _fuzz("patterns", tmp_path / "trec13patterns+docs", PATTERNS, answer_keys.read_patterns,
          ["patterns"])


def test_fuzz_qa4mre_gold(tmp_path):
    _fuzz("qa4mre gold xml", tmp_path / "gold.xml", GOLD, qa4mre.read_gold,
          ["questions", "options"])


def test_fuzz_qa4mre_run(tmp_path, gold):
    q, o = gold
    _fuzz("qa4mre run xml", tmp_path / "run.xml", RUN, lambda p: qa4mre.read_run(p, q, o),
          ["responses", "judgments"])


def test_fuzz_clef_questions(tmp_path):
    _fuzz("clef questions tsv", tmp_path / "questions.tsv", CLEF_Q, clef.read_questions,
          ["questions"])


def test_fuzz_clef_run(tmp_path):
    _fuzz("clef run tsv", tmp_path / "r1.tsv", CLEF_RUN, clef.read_run,
          ["responses", "judgments"])


def test_fuzz_pan_truth(tmp_path):
    _fuzz("pan truth jsonl", tmp_path / "truth.jsonl", TRUTH, pan.read_truth,
          ["questions", "options"])


def test_fuzz_pan_answers(tmp_path, truth):
    q, o = truth
    _fuzz("pan answers jsonl", tmp_path / "teamX" / "answers.jsonl", ANSWERS,
          lambda p: pan.read_answers(p, q, o), ["responses", "judgments"])


def test_fuzz_matrix_csv(tmp_path):
    _fuzz("score matrix csv", tmp_path / "matrix.csv", MATRIX, matrix.read_matrix, ["matrix"])


def test_every_format_fuzzed(capsys, record_property):
    """Runs after the format tests: every format ran at least MIN_VARIANTS variants;
    the counts are printed to the terminal and recorded as test properties."""
    with capsys.disabled():
        print("\n" + "\n".join(_summary()))
    for fmt, n in sorted(VARIANTS.items()):
        record_property(f"variants[{fmt}]", n)
    assert len(VARIANTS) == 17, sorted(VARIANTS)
    assert all(n >= MIN_VARIANTS for n in VARIANTS.values()), dict(VARIANTS)


# --------------------------------------------------------------------------- limits

def test_limit_line_length_monkeypatched(tmp_path, monkeypatch):
    monkeypatch.setattr(_text, "MAX_LINE_BYTES", 32)
    cases = [
        ("f", lambda p: trec_runs.read_judged_factoid(p, "s"), "1.1 r D R x\n1.2 r D R " + "y" * 40),
        ("n", answer_keys.read_nuggets, "Qid 1.3: x\n1.3 1\tvital\t" + "y" * 40),
        ("c.tsv", clef.read_run, "\t".join(clef.RUN_HEADER) + "\nr1\t1\t1\tR\t" + "y" * 40),
        ("m.csv", matrix.read_matrix, "a,b\n1,2\n" + "1," + "2" * 40),
        ("t", trec_questions.read_top_questions, "<top>\n<num> Number: 1\n<desc> " + "y" * 40 + "\n</top>"),
    ]
    for name, read, text in cases:
        p = tmp_path / name
        p.write_text(text + "\n", encoding="utf-8")
        with pytest.raises(InputError) as ei:
            read(p)
        assert str(p) in str(ei.value) and "longer than 32 bytes" in ei.value.problem
        assert re.fullmatch(r"line \d+", ei.value.place), ei.value.place


def test_limit_file_size_monkeypatched(tmp_path, monkeypatch):
    monkeypatch.setattr(_text, "MAX_FILE_BYTES", 40)
    import gzip
    for name, read, text in [
        ("f", lambda p: trec_runs.read_judged_factoid(p, "s"), FACTOID),
        ("g.xml", qa4mre.read_gold, GOLD),
        ("m.csv", matrix.read_matrix, MATRIX),
    ]:
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        with pytest.raises(InputError) as ei:
            read(p)
        assert str(p) in str(ei.value) and "larger than 40 bytes" in ei.value.problem
        assert ei.value.place == "byte 40"
    gz = tmp_path / "f.gz"
    gz.write_bytes(gzip.compress(FACTOID.encode()))
    with pytest.raises(InputError) as ei:
        trec_runs.read_judged_factoid(gz, "s")
    assert "larger than 40 bytes" in ei.value.problem and ei.value.place == "byte 40"


def test_limit_xml_depth_monkeypatched(tmp_path, monkeypatch):
    monkeypatch.setattr(_xml, "MAX_XML_DEPTH", 5)
    p = tmp_path / "gold.xml"
    p.write_text(GOLD.replace("<b>it</b>", "<b><i>it</i></b>"), encoding="utf-8")
    with pytest.raises(InputError) as ei:
        qa4mre.read_gold(p)
    assert str(p) in str(ei.value) and "nested more than 5 deep" in ei.value.problem
    assert ei.value.place == "line 6"
