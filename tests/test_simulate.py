"""Tests of the campaign simulator (qacamp.simulate): determinism, counts,
the structure the analyses need, and the raw formats (regex and the readers)."""

from __future__ import annotations

import gzip
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from qacamp.simulate import DEMO, DEMO_SEED, simulate
from qacamp.simulate.model import ModelParams, draw_runs

SMALL = {
    "trec-factoid": {"questions": 120, "runs": 8},
    "trec-series": {"series": 12, "runs": 6},
    "qa4mre": {"topics": 2, "tests": 2, "runs": 6},
    "clef-qa": {"questions": 100, "runs": 6},
    "pan": {"questions": 30, "runs": 4},
}


def digest(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def gz_lines(path: Path) -> list[str]:
    return gzip.decompress(path.read_bytes()).decode("utf-8").splitlines()


RESOURCES_DEMO = Path(__file__).resolve().parents[1] / "resources" / "demo"


def readme_command() -> list[str]:
    """The command resources/demo/README.md says made the folder (its words after
    `qacamp`)."""
    text = (RESOURCES_DEMO / "README.md").read_text(encoding="utf-8")
    line = re.search(r"^qacamp simulate demo .*$", text, re.M)
    assert line is not None, "resources/demo/README.md names no `qacamp simulate demo` command"
    return line.group(0).split()[1:]


@pytest.fixture(scope="module")
def demo_dir(tmp_path_factory) -> Path:
    """The demo campaigns written by the command resources/demo/README.md gives,
    with the folder replaced by a new one."""
    from qacamp.cli import main

    out = tmp_path_factory.mktemp("demo") / "demo"
    argv = readme_command()
    assert argv[argv.index("--out") + 1] == "resources/demo"
    argv[argv.index("--out") + 1] = str(out)
    assert main([*argv, "--quiet"]) == 0
    return out


def test_readme_command_reproduces_the_committed_demo_byte_for_byte(demo_dir):
    def files(folder: Path) -> dict[str, Path]:
        # (.qacamp-output: qacamp's records of what it wrote, not committed)
        return {p.relative_to(folder).as_posix(): p for p in sorted(folder.rglob("*"))
                if p.is_file() and ".qacamp-output" not in p.relative_to(folder).parts}

    committed, made = files(RESOURCES_DEMO), files(demo_dir)
    assert len(committed) > 600
    assert sorted(made) == sorted(committed)
    assert [rel for rel in committed if made[rel].read_bytes() != committed[rel].read_bytes()] \
        == []
    # the default seed is the README's: `qacamp simulate demo --out DIR` alone
    # makes the same files
    assert readme_command()[-2:] == ["--seed", str(DEMO_SEED)]


@pytest.mark.parametrize("kind", sorted(SMALL))
def test_same_seed_same_bytes_other_seed_differs(tmp_path, kind):
    simulate(kind, tmp_path / "a", 7, quiet=True, **SMALL[kind])
    simulate(kind, tmp_path / "b", 7, quiet=True, **SMALL[kind])
    simulate(kind, tmp_path / "c", 8, quiet=True, **SMALL[kind])
    a, b, c = (digest(tmp_path / x) for x in "abc")
    assert a and a == b
    assert a != c


def test_rerun_removes_stale_runs(tmp_path):
    simulate("clef-qa", tmp_path, 1, quiet=True, questions=20, runs=6)
    simulate("clef-qa", tmp_path, 1, quiet=True, questions=20, runs=3)
    assert len(list((tmp_path / "runs").glob("*.tsv"))) == 3


def test_demo_layout_and_size(demo_dir):
    assert {p.name for p in demo_dir.iterdir()} == {f for f, _ in DEMO} | {"README.md",
                                                                           ".qacamp-output"}
    assert (demo_dir / "trec2002" / "questions.txt").is_file()
    for s in ("adjudicated", "assessor1", "assessor2", "assessor3"):
        assert len(list((demo_dir / "trec2002" / "judged" / s).glob("*.txt.gz"))) == 67
    for part in ("factoid", "list", "other", "other_nuggets"):
        files = list((demo_dir / "trec2004" / "judged" / "adjudicated" / part).glob("*.txt.gz"))
        assert len(files) == 63
    for f in ("questions.xml", "nuggets.txt", "list_key.txt"):
        assert (demo_dir / "trec2004" / f).is_file()
    assert len(list((demo_dir / "qa4mre2013" / "runs").glob("*.xml"))) == 40
    assert len(list((demo_dir / "clef2009" / "runs").glob("*.tsv"))) == 44
    assert len(list((demo_dir / "pan" / "runs").glob("*/answers.jsonl"))) == 5
    size = sum(p.stat().st_size for p in demo_dir.rglob("*") if p.is_file())
    assert size < 5_000_000
    assert "simulated" in (demo_dir / "README.md").read_text()


def test_trec_factoid_format_and_counts(demo_dir):
    root = demo_dir / "trec2002"
    qtext = (root / "questions.txt").read_text()
    nums = [int(x) for x in re.findall(r"<num> Number: (\d+)", qtext)]
    assert nums == list(range(1394, 1894))
    line = re.compile(r"^(\d+) (\S+) ((?:APW|NYT|XIE)\d{8}\.\d{4}|NIL) ([RWUX])(?: (.+))?$")
    files = sorted((root / "judged" / "adjudicated").glob("*.txt.gz"))
    nil_right = set()
    for f in files:
        lines = gz_lines(f)
        assert len(lines) == 500
        parsed = [line.match(x) for x in lines]
        assert all(parsed), f
        assert {m.group(2) for m in parsed} == {f.name.removesuffix(".txt.gz")}
        nil_right |= {m.group(1) for m in parsed if m.group(3) == "NIL" and m.group(4) == "R"}
        assert all(m.group(5) for m in parsed if m.group(3) != "NIL")
    assert 30 <= len(nil_right) <= 46  # NIL questions answered NIL by some run
    # assessors disagree on a few % of responses; the adjudicated set is the majority
    adj = [x.split(" ")[3] for f in files for x in gz_lines(f)]
    sets = [[x.split(" ")[3] for f in files
             for x in gz_lines(root / "judged" / s / f.name)]
            for s in ("assessor1", "assessor2", "assessor3")]
    adj_a = np.array(adj)
    dis = [np.mean(np.array(s) != adj_a) for s in sets]
    assert all(0.005 < d < 0.06 for d in dis), dis
    agree = sum((np.array(s) == adj_a).astype(int) for s in sets)
    assert agree.min() >= 2
    pairs = {}
    for s in sets:
        for a, b in zip(adj, s, strict=True):
            if a != b:
                key = "".join(sorted(a + b))
                pairs[key] = pairs.get(key, 0) + 1
    assert pairs.get("RX", 0) + pairs.get("RU", 0) > pairs.get("RW", 0)


def _cws(right: np.ndarray) -> float:
    return float(np.mean(np.cumsum(right) / np.arange(1, len(right) + 1)))


def test_ability_accuracy_and_confidence(demo_dir):
    """Better latent ability -> higher accuracy; good calibrators get CWS > accuracy."""
    from qacamp.simulate import trec_factoid

    runs = draw_runs(20250101, trec_factoid.KIND, 67, ModelParams())
    root = demo_dir / "trec2002" / "judged" / "adjudicated"
    files = sorted(root.glob("*.txt.gz"))
    from qacamp.simulate.common import letter, run_names
    names = run_names(20250101, trec_factoid.KIND, runs, lambda t, i: f"{t}02{letter(i)}")
    acc, gain = [], []
    for name in names:
        right = np.array([x.split(" ")[3] == "R" for x in gz_lines(root / f"{name}.txt.gz")])
        acc.append(right.mean())
        gain.append(_cws(right) - right.mean())
    assert len(files) == len(names)
    assert np.corrcoef(runs.ability, acc)[0, 1] > 0.8
    good = runs.calibration > 0.6
    assert np.mean(np.array(gain)[good] > 0) > 0.9


def test_trec_series_format_and_counts(demo_dir):
    root = demo_dir / "trec2004"
    xml = (root / "questions.xml").read_text(encoding="latin-1")
    assert xml.startswith('<?xml version="1.0" encoding="ISO-8859-1"?>\n<!DOCTYPE trecqa [')
    assert '<trecqa year="2004" task="main">' in xml
    types = re.findall(r'<q id = "(\d+)\.\d+" type="(FACTOID|LIST|OTHER)">', xml)
    assert len({s for s, _ in types}) == 65
    counts = {t: sum(1 for _, x in types if x == t) for t in ("FACTOID", "LIST", "OTHER")}
    assert counts == {"FACTOID": 230, "LIST": 56, "OTHER": 65}
    nug = (root / "nuggets.txt").read_text()
    heads = re.findall(r"^Qid (\d+\.\d+): 'other' question for target .+$", nug, re.M)
    assert len(heads) == 64 and not any(h.startswith("7.") for h in heads)
    kinds = re.findall(r"^\d+\.\d+ \d+\t(vital|okay)\t\S.*$", nug, re.M)
    assert 0.3 < kinds.count("vital") / len(kinds) < 0.6
    assert len(re.findall(r"^# \d+\.\d+$", (root / "list_key.txt").read_text(), re.M)) == 55
    base = root / "judged" / "adjudicated"
    run = sorted((base / "list").glob("*.txt.gz"))[0].name
    lst = re.compile(r"^\d+\.\d+ \S+ \S+ (-1|1|2|3) ([01]) \S.*$")
    for x in gz_lines(base / "list" / run):
        m = lst.match(x)
        assert m and (m.group(2) == "0" or m.group(1) == "1")
    assert all(re.match(r"^\d+\.\d+ \S+ \d+ \S+ \S.*$", x) for x in gz_lines(base / "other" / run))
    assert all(re.match(r"^\d+\.\d+ \S+ \d+ \d+$", x)
               for x in gz_lines(base / "other_nuggets" / run))
    assert len(gz_lines(base / "factoid" / run)) == 230
    # response lengths: the allowance (100 chars per matched nugget) bites for some
    over, runs_over = 0, 0
    for f in sorted((base / "other").glob("*.txt.gz")):
        length: dict[str, int] = {}
        for x in gz_lines(f):
            qid, _, _, _, s = x.split(" ", 4)
            length[qid] = length.get(qid, 0) + len(re.sub(r"\s", "", s))
        matched: dict[str, int] = {}
        for x in gz_lines(base / "other_nuggets" / f.name):
            matched[x.split(" ")[0]] = matched.get(x.split(" ")[0], 0) + 1
        n_over = sum(v > 100 * matched.get(k, 0) for k, v in length.items())
        over += n_over
        runs_over += n_over > 10
    assert 0.1 < over / (63 * 64) < 0.9 and runs_over >= 5


def test_qa4mre_counts_and_noa(demo_dir):
    gold = (demo_dir / "qa4mre2013" / "gold.xml").read_text()
    qs = re.findall(r"<q  q_id=\"(\d+)\" >(.*?)</q>", gold, re.S)
    main = [body for q, body in qs if int(q) <= 15]
    assert len(main) == 240 and len(qs) > 240
    noa = [body for _, body in qs
           if re.search(r"a_id='5'  correct=\"Yes\">None of the above<", body)]
    assert abs(len(noa) / len(qs) - 0.39) < 0.01
    answered = unanswered = with_cand = 0
    for f in sorted((demo_dir / "qa4mre2013" / "runs").glob("*.xml")):
        x = f.read_text()
        assert re.search(r'<output run_id="[^"]+">', x)
        answered += len(re.findall(r'answered="YES"><answer a_id="[1-5]"/>', x))
        with_cand += len(re.findall(r'answered="NO"><answer a_id="[1-5]"/>', x))
        unanswered += len(re.findall(r'answered="NO"/>', x))
    assert answered + with_cand + unanswered == 40 * len(qs)
    assert with_cand > 0 and unanswered > 0


def test_clef_abstention_calibration(demo_dir):
    """Well-calibrated abstainers leave unanswered more wrong than right answers."""
    root = demo_dir / "clef2009"
    q = (root / "questions.tsv").read_text().splitlines()
    assert q[0] == "qid\tlanguage\ttext" and len(q) == 501
    line = re.compile(r"^(\S+)\t(\d+)\t([01])\t([RW-])\t(.*)$")
    wrong_unans, wrong_ans = [], []
    for f in sorted((root / "runs").glob("*.tsv")):
        rows = f.read_text().splitlines()
        assert rows[0] == "run\tqid\tanswered\tjudgment\tanswer"
        ms = [line.match(x) for x in rows[1:]]
        assert all(ms) and 490 <= len(ms) <= 500
        ans = [m.group(4) for m in ms if m.group(3) == "1"]
        cand = [m.group(4) for m in ms if m.group(3) == "0" and m.group(4) != "-"]
        assert "-" not in ans
        if len(cand) >= 20:
            wrong_unans.append(cand.count("W") / len(cand))
            wrong_ans.append(ans.count("W") / len(ans))
    assert len(wrong_unans) >= 5
    assert np.mean(np.array(wrong_unans) > np.array(wrong_ans)) > 0.8


def test_pan_format(demo_dir):
    import json

    root = demo_dir / "pan"
    truth = [json.loads(x) for x in (root / "truth.jsonl").read_text().splitlines()]
    assert len(truth) == 100 and all(isinstance(t["same"], bool) for t in truth)
    values, wrapped, lengths = [], 0, []
    for f in sorted((root / "runs").glob("*/answers.jsonl")):
        rows = [json.loads(x) for x in f.read_text().splitlines()]
        lengths.append(len(rows))
        for r in rows:
            v = r["value"]
            if isinstance(v, list):
                wrapped += 1
                v = v[0]
            values.append(v)
    assert 0.5 in values and wrapped == 100 and min(lengths) < 100


def test_cli_and_big_factoid(tmp_path, capsys):
    from qacamp.cli import main

    assert main(["simulate", "trec-factoid", "--out", str(tmp_path / "big"), "--runs", "30",
                 "--questions", "2000", "--judgment-sets", "1", "--seed", "3", "--quiet"]) == 0
    files = list((tmp_path / "big" / "judged" / "adjudicated").glob("*.txt.gz"))
    assert len(files) == 30 and len(gz_lines(files[0])) == 2000
    assert not (tmp_path / "big" / "judged" / "assessor1").exists()
    with pytest.raises(SystemExit) as exc:  # pan's own options have no --series
        main(["simulate", "pan", "--out", str(tmp_path / "p"), "--series", "3"])
    assert exc.value.code == 2 and "--series" in capsys.readouterr().err


def test_demo_reads_back_with_readers(demo_dir):
    """Every demo file is accepted by the colleague's readers."""
    from qacamp.readers import answer_keys, clef, pan, qa4mre, trec_questions, trec_runs

    root = demo_dir
    q = trec_questions.read_top_questions(root / "trec2002" / "questions.txt")
    assert q.height == 500
    for s in ("adjudicated", "assessor1", "assessor2", "assessor3"):
        for f in sorted((root / "trec2002" / "judged" / s).glob("*.txt.gz")):
            resp, judg = trec_runs.read_judged_factoid(f, s)
            assert resp.height == 500 and judg.height == 500
    t = root / "trec2004"
    sq = trec_questions.read_series_xml(t / "questions.xml")
    assert sq.height == 351
    assert answer_keys.read_nuggets(t / "nuggets.txt").height > 0
    assert answer_keys.read_list_key(t / "list_key.txt").height > 0
    base = t / "judged" / "adjudicated"
    for f in sorted((base / "factoid").glob("*.txt.gz")):
        trec_runs.read_judged_factoid(f, "adjudicated")
        trec_runs.read_judged_list(base / "list" / f.name, "adjudicated")
        trec_runs.read_judged_other(base / "other" / f.name, base / "other_nuggets" / f.name,
                                    "adjudicated")
    questions, options = qa4mre.read_gold(root / "qa4mre2013" / "gold.xml")
    assert questions.height > 240
    for f in sorted((root / "qa4mre2013" / "runs").glob("*.xml")):
        qa4mre.read_run(f, questions, options)
    assert clef.read_questions(root / "clef2009" / "questions.tsv").height == 500
    for f in sorted((root / "clef2009" / "runs").glob("*.tsv")):
        clef.read_run(f)
    pq, po = pan.read_truth(root / "pan" / "truth.jsonl")
    for f in sorted((root / "pan" / "runs").glob("*/answers.jsonl")):
        pan.read_answers(f, pq, po)


@pytest.mark.parametrize("seed", ["-1", str(2**63)])
def test_a_seed_out_of_range_is_one_line(seed, tmp_path, capsys):
    """A negative seed was numpy's traceback; the seed is an integer in [0, 2^63 - 1]
    (qacamp.bounds.MAX_SEED), as the analyses' seeds are."""
    from qacamp.cli import main

    assert main(["simulate", "clef-qa", "--out", str(tmp_path / "sim"), "--seed", seed]) == 2
    err = capsys.readouterr().err
    assert err.strip() == (f"qacamp simulate: error: --seed: {seed} is not an integer in "
                           "[0, 9223372036854775807]"), err
    assert not (tmp_path / "sim").exists()
