"""PAN 2020 as published: the 13 real PAN 2020 submissions give the organizers'
published table (opt-in: ``realdata`` marker, ``QACAMP_PAN20_DIR``).

The submissions and the truth are third-party data (pan-webis-de/pan-code,
``clef20/authorship-verification/``: ``submissions/*/answers.jsonl`` and
``datasets/pan20-authorship-verification-test/truth.jsonl``).  They are not in
``../shared/data``, must not be copied into this repository, and CI has no
network, so this test cannot run in CI: it runs where ``QACAMP_PAN20_DIR``
names a local copy of that folder (a clone of pan-code, or the two parts
copied out of it), and is skipped with that reason otherwise.  CI checks the
same rules on generated campaigns with 0.5 answers against both evaluator
versions (``tests/test_pan_differential.py``).

The expected numbers are the published table itself, written here as facts:
the organizers' ``metrics.xlsx`` in the same folder (pan-code commit eba0ecc
"spreadsheets", 2020-07-16), every cell as stored (full precision).  Besides
the facts, the test runs both evaluator versions of ``../shared/peers/pan`` as
they are on the same submissions: the 2020-06 script (before "Fix F_0.5
calculation", 2021-05-28) must give the published table and qacamp's default,
today's script qacamp's ``--pan-evaluator current``.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from test_pan_differential import EVALUATORS, KEYS, run_peers

from qacamp.cli import main

ENV = "QACAMP_PAN20_DIR"
#: run: (AUC, c@1, F1, F0.5u, overall) as stored in pan-code's
#: clef20/authorship-verification/metrics.xlsx (Sheet1, rows 2-14)
PUBLISHED = {
    "boenninghoff20-large": (0.9692368658551107, 0.9282692804722993, 0.9363490792634107, 0.9066653490785118, 0.9351301436673332),
    "weerasinghe20-large": (0.9533722675437689, 0.8797428551463908, 0.8914811778800682, 0.8819052846948451, 0.9016253963162683),
    "boenninghoff20-small": (0.9399862805133096, 0.8890605456306839, 0.9057619816908993, 0.8534519271495129, 0.8970651837461014),
    "weerasinghe20-small": (0.9387134487384272, 0.8328558451540773, 0.8599695585996957, 0.8166555481432066, 0.8620486001588518),
    "halvani20-small": (0.8775680782778403, 0.7961948836130589, 0.8069121964238057, 0.8189168860473862, 0.8248980110905229),
    "kipnis20-small": (0.8659700434909696, 0.8009786063476535, 0.8086276780544296, 0.8145461409848443, 0.8225306172194742),
    "araujo20-small": (0.873920003779256, 0.7700370344490252, 0.8113715825070212, 0.7622227008399741, 0.8043878303938191),
    "niven20-small": (0.7946894760514254, 0.7856194535671861, 0.7783236994219653, 0.8415099056308981, 0.8000356336678688),
    "gagala20-small": (0.786437637846887, 0.7864579693941723, 0.8003397360512217, 0.8087730417789045, 0.7955020962677963),
    "araujo20-large": (0.8587091970754069, 0.751310180979666, 0.7995268405339941, 0.7446384353884249, 0.788546163494373),
    "ordonez20-large": (0.6962814679653921, 0.6404164628607365, 0.7482141109697622, 0.6546905503990136, 0.6849006480487261),
    "ikae20-small": (0.8403790672520577, 0.5447557822653902, 0.7048697621744054, 0.5989960272242925, 0.6722501597290365),
    "faber20-small": (0.293359059831331, 0.3313076703930081, 0.2615993665874901, 0.3135431568907964, 0.2999523134256564),
}
COLUMNS = ("auc", "c_at_1", "f1", "f_05_u", "overall")
#: the submissions with answers of exactly 0.5, whose F0.5u (and overall) today's
#: evaluator changes
WITH_HALF = {"boenninghoff20-large", "boenninghoff20-small", "faber20-small",
             "halvani20-small", "kipnis20-small"}


def _folder() -> Path:
    value = os.environ.get(ENV)
    if not value:
        pytest.skip(f"{ENV} is not set: the 13 PAN 2020 submissions and their truth are "
                    "third-party data (pan-webis-de/pan-code, clef20/authorship-verification/), "
                    "not in ../shared/data and not in this repository, and CI has no network; "
                    f"set {ENV} to a local copy of that folder to run this check")
    folder = Path(value)
    if not (folder / "submissions").is_dir():
        pytest.fail(f"{ENV}={value}: no submissions/ folder there (expected pan-code's "
                    "clef20/authorship-verification/ layout)")
    return folder


def _truth(folder: Path) -> Path:
    for cand in (folder / "datasets" / "pan20-authorship-verification-test" / "truth.jsonl",
                 folder / "truth.jsonl"):
        if cand.exists():
            return cand
    pytest.fail(f"{ENV}: no truth.jsonl under {folder}")


def _eval(capsys, truth: Path, answers: list[Path], *option: str) -> dict[str, dict[str, float]]:
    capsys.readouterr()
    assert main(["eval", "pan", "--truth", str(truth), "--edition", "2020", *option,
                 "--precision", "full", *map(str, answers)]) == 0
    out: dict[str, dict[str, float]] = {}
    for line in capsys.readouterr().out.splitlines()[1:]:
        run, measure, _scope, _unit, value = line.split("\t")
        out.setdefault(run, {})[measure] = float(value)
    return out


@pytest.mark.realdata
def test_pan2020_submissions_give_the_published_table(tmp_path, capsys):
    folder = _folder()
    truth = _truth(folder)
    answers = sorted(folder.glob("submissions/*/answers.jsonl"))
    assert {a.parent.name for a in answers} == set(PUBLISHED)
    # a campaign {kind: pan, edition: "2020"}: the published evaluator by default
    mine = _eval(capsys, truth, answers)
    for run, row in PUBLISHED.items():
        for measure, want in zip(COLUMNS, row, strict=True):
            assert mine[run][measure] == pytest.approx(want, abs=1e-9, rel=0), (run, measure)
    # both evaluator versions of ../shared/peers/pan, run as they are
    peers = run_peers({k: EVALUATORS[k] for k in ("2020-06", "2020")}, truth.parent,
                      {a.parent.name: a.parent for a in answers}, tmp_path / "peers")
    current = _eval(capsys, truth, answers, "--pan-evaluator", "current")
    changed = set()
    for run in PUBLISHED:
        for key, measure in KEYS.items():
            if key not in peers["2020"][run]:
                continue
            assert peers["2020-06"][run][key] == pytest.approx(
                PUBLISHED[run][COLUMNS.index(measure)], abs=1e-9, rel=0), (run, key)
            assert mine[run][measure] == pytest.approx(peers["2020-06"][run][key], abs=1e-12,
                                                       rel=0), (run, key)
            assert current[run][measure] == pytest.approx(peers["2020"][run][key], abs=1e-12,
                                                          rel=0), (run, key)
            if abs(current[run][measure] - mine[run][measure]) > 1e-9:
                changed.add((run, measure))
    assert {run for run, _ in changed} == WITH_HALF
    assert {m for _, m in changed} == {"f_05_u", "overall"}


def test_published_table_transcribed_consistently():
    """Without the data: the facts above are consistent with the evaluator of 2020
    (overall = the mean of the four measures, in its order AUC, c@1, F0.5u, F1), so
    a mistyped cell fails here."""
    for run, (auc, c1, f1, f05, overall) in PUBLISHED.items():
        assert (auc + c1 + f05 + f1) / 4 == pytest.approx(overall, abs=1e-15), run
