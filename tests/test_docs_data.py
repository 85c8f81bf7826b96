"""Facts that docs/ states about the real data files hold on those files.

Each claim is the sentence as ``docs/`` prints it (so a reworded claim fails
here until its check is looked at again) and a check computed on the files of
``../shared/data`` with the standard library and simple counting, not with the
readers under test (except where the claim is about what a qacamp rule does to
the real files: the answer-pattern claims).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from paths import ROOT, SHARED_DATA

TREC = SHARED_DATA / "trec-qa"
QA4MRE = SHARED_DATA / "qa4mre"


def _flat(text: str) -> str:
    return " ".join(text.split())


def _series(year: int) -> dict[str, list[str]]:
    """target id -> question types of ``trecNNquestions.xml`` (regex over the XML)."""
    text = (TREC / f"trec{year - 1991}questions.xml").read_text(encoding="latin-1")
    out: dict[str, list[str]] = {}
    for tid, body in re.findall(r'<target id\s*=\s*"([^"]+)"[^>]*>(.*?)</target>', text, re.S):
        out[tid] = [t.upper() for t in re.findall(r'<q id\s*=\s*"[^"]+"\s+type\s*=\s*"([^"]+)"',
                                                  body)]
    return out


def no_list_series_2006_2007() -> bool:
    no_list = {y: sorted(t for t, types in _series(y).items() if "LIST" not in types)
               for y in (2006, 2007)}
    return no_list == {2006: [], 2007: ["242"]}


def trec2004_counts() -> bool:
    # Voorhees 2005 scores "64 rather than 65 question series" and counts "212 of
    # the 230 factoid questions": 65 targets, 230 factoid questions, and no nugget
    # for series 7's Other question (the one left unjudged)
    series = _series(2004)
    types = [t for ts in series.values() for t in ts]
    other = (TREC / "trec13answers_other").read_text(encoding="latin-1")
    judged = set(re.findall(r"^Qid\s+(\d+)\.\d+:", other, re.M))
    return (len(series), types.count("FACTOID"), "7" in judged,
            len([t for t in series if t not in judged])) == (65, 230, False, 1)


def trec2003_types() -> bool:
    text = (TREC / "trec12questions").read_text(encoding="utf-8")
    types = re.findall(r"<type>\s*Type:\s*(\w+)", text)
    counts = {t: types.count(t) for t in set(types)}
    return counts == {"factoid": 413, "list": 37, "definition": 50}


def trec2003_nugget_header() -> bool:
    text = (TREC / "trec12answers_definition").read_text(encoding="utf-8")
    return "Qid 1901: Who is Aaron Copland?\n1901 1\tvital\tamerican composer" in text


def longest_xml_line() -> bool:
    longest = max(len(line) for path in SHARED_DATA.glob("*/*.xml")
                  for line in path.read_bytes().split(b"\n"))
    return 60_000 < longest <= 66_000


def split_pattern() -> bool:
    lines = (TREC / "trec14patterns+docs_factoid").read_text(encoding="utf-8").splitlines()
    first, second = lines[335], lines[336]          # lines 336 and 337
    try:
        re.compile(first.split(None, 1)[1])
    except re.error:
        broken = True
    else:
        broken = False
    return broken and first.startswith("136.6 (10 percent|about 15") and second.split() == \
        ["136.6", ")"]


def pattern_shapes() -> bool:
    # what qacamp's rule does to every real pattern: 8,482 distinct (file, qid, pattern)
    # compile (the two halves of the split pattern do not), none is refused as a
    # repeated risky group
    from qacamp.autojudge import repeated_risky_group, translate

    seen = set()
    for path in sorted(TREC.glob("*patt*")):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if not line.strip():
                continue
            qid, _, rest = line.partition("\t") if "\t" in line else line.partition(" ")
            pattern = rest.split("\t")[0].strip()
            if "\t" not in line:  # space-separated +docs files: docids trail the pattern
                pattern = re.sub(r"(\s+[A-Z][A-Z_]*\d{8}\.\d{4})+\s*$", "", rest).strip()
            seen.add((path.name, qid, pattern))
    compiled = []
    for _f, _q, pattern in seen:
        try:
            re.compile(translate(pattern))
        except re.error:
            continue
        compiled.append(pattern)
    return len(compiled) == 8482 and not any(repeated_risky_group(translate(p)) is not None
                                             for p in compiled)


def aboe_typo() -> bool:
    text = (QA4MRE / "QA4MRE-2013-EN_test.xml").read_text(encoding="utf-8")
    return len(re.findall(r"none of the aboe", text, re.I)) == 1


def correct_values() -> bool:
    values = {v for path in QA4MRE.glob("*.xml")
              for v in re.findall(r'correct\s*=\s*"([^"]*)"', path.read_text(encoding="utf-8"))}
    return values == {"Yes"}


def gold_files_mark_one_per_question() -> bool:
    # every <q> of each gold file (a file with any correct mark) has exactly one
    golds = 0
    for path in sorted(QA4MRE.glob("*.xml")):
        text = path.read_text(encoding="utf-8")
        if 'correct="Yes"' not in text:
            continue
        golds += 1
        blocks = re.findall(r"<q\s.*?</q>", text, re.S)
        if not blocks or any(b.count('correct="Yes"') != 1 for b in blocks):
            return False
    return golds == 4


def qa4mre_2012_questions() -> bool:
    text = (QA4MRE / "QA4MRE-2012-EN_GS.xml").read_text(encoding="utf-8")
    return len(re.findall(r"<q\s", text)) == 160


def pyramid_2007_has_no_labels() -> bool:
    rows = [line.split("\t") for line in
            (TREC / "trec16answers_other_pyramid").read_text(encoding="utf-8").splitlines()
            if line.strip()]
    return all(len(r) >= 4 for r in rows) and all(0 <= float(r[2]) <= 1 for r in rows) \
        and not any(r[2].strip().lower() in ("vital", "okay") for r in rows)


def genomics_baseline_comparisons() -> bool:
    """The Genomics 2004 matrix has a run `sys10` and 46 others to compare with
    it (the comparison itself: test_significance_effects, checked against scipy
    and statsmodels)."""
    import csv

    with open(SHARED_DATA / "score-matrices" / "genomics2004.csv", newline="",
              encoding="utf-8") as fh:
        header = next(csv.reader(fh))
    runs = [c for c in header if c not in ("unit", "topic")]
    return "sys10" in runs and len(runs) - 1 == 46


def trec2002_list_layout() -> bool:
    return (TREC / "trec11answers_list").read_text(encoding="utf-8").startswith(
        "26.  What are 3 residences")


#: (file under docs/, the claim as the file prints it, its check on the data)
CLAIMS = [
    ("semantics.md", "the real TREC 2006 test set has none, the TREC 2007 one has one, series "
     "242 of `trec16questions.xml`", no_list_series_2006_2007),
    ("semantics.md", "Voorhees 2005 computes \"final scores for runs ... over 64 rather than 65 "
     "question series\" yet counts \"212 of the 230 factoid questions (92.2%)\"",
     trec2004_counts),
    ("semantics.md", "(`trec12questions`: 413 factoid, 37 list, 50 definition questions)",
     trec2003_types),
    ("formats.md", "(`Qid 1901: Who is Aaron Copland?`, then `1901 1<TAB>vital<TAB>american "
     "composer`)", trec2003_nugget_header),
    ("formats.md", "the real XML files have lines of at most 66 kB", longest_xml_line),
    ("formats.md", "the real `trec14patterns+docs_factoid` has one, a pattern split over "
     "lines 336-337", split_pattern),
    ("formats.md", "none of the 8,482 real patterns has this shape", pattern_shapes),
    ("formats.md", "a one-letter typo such as the 2013 file's \"none of the aboe\" is tolerated",
     aboe_typo),
    ("formats.md", "the real files use `Yes`", correct_values),
    ("reliability.md", "on the real 160-question QA4MRE 2012 gold", qa4mre_2012_questions),
    ("semantics.md", "the real 2012 and 2013 gold files at hand mark exactly one in every "
     "question", gold_files_mark_one_per_question),
    ("semantics.md", "the TREC 2007 pyramid file has weights but no vital/okay labels",
     pyramid_2007_has_no_labels),
    ("formats.md", "(`26.  question text`, used by `trec11answers_list`) is not read",
     trec2002_list_layout),
    ("reliability.md", "the t-test against `sys10` on the real Genomics 2004 matrix equals "
     "scipy's `ttest_rel` and statsmodels' Holm correction over the 46 comparisons",
     genomics_baseline_comparisons),
]


@pytest.mark.parametrize("doc, claim, check", CLAIMS, ids=[c[2].__name__ for c in CLAIMS])
def test_docs_claim_holds_on_the_data(doc, claim, check):
    text = _flat((ROOT / "docs" / doc).read_text(encoding="utf-8"))
    assert _flat(claim) in text, f"docs/{doc} no longer says: {claim}"
    assert check(), f"docs/{doc}: {claim!r} does not hold on {SHARED_DATA}"


def test_every_real_data_claim_of_the_docs_is_checked():
    """Sentences of docs/ that talk about 'the real' files are all in CLAIMS."""
    checked = {(doc, _flat(claim)) for doc, claim, _ in CLAIMS}
    found = []
    for path in sorted(Path(ROOT / "docs").glob("*.md")):
        text = _flat(path.read_text(encoding="utf-8"))
        for m in re.finditer(r"\bthe real\b(?! formats)", text):
            found.append((path.name, m.start(), text[max(0, m.start() - 80):m.end() + 80]))
    uncovered = [(doc, ctx) for doc, pos, ctx in found
                 if not any(d == doc and c in _flat((ROOT / "docs" / d).read_text(
                     encoding="utf-8"))[max(0, pos - 400):pos + 400] for d, c in checked)]
    assert not uncovered, uncovered
