"""TREC-2002-like factoid campaign (kind ``trec-factoid``).

Writes::

    OUT/questions.txt                      <top> SGML, ids from 1394
    OUT/judged/<set>/<run>.txt.gz          qid tag docid judgment answer-string

With ``--questions-from`` (:func:`simulate_for_questions`) the runs answer
the factoid questions of a campaign's own ``<top>`` file (TREC 2002, 2003)
and no question file is written.

Each run answers every question once, lines in decreasing confidence (see
:mod:`qacamp.simulate.model`).  NIL questions (no known answer) are right only
when the run answers NIL.  A run answers NIL on the share ``nil_share`` of
questions with its lowest confidence (0 for about a third of the runs) and on
NIL questions where its evidence is positive (it correctly found nothing).

Judgments (adjudicated set): a right answer is R (U with probability
``p_unsupported``: the document does not support it); a wrong answer is X
(an inexact variant of the right answer) with probability ``p_inexact``,
else W.  NIL responses are R or W.

Single-assessor sets ``assessor1..k``: each distinct (question, answer string)
is judged consistently across runs.  At most one assessor disagrees with the
adjudicated judgment on a string (so the adjudicated set is the majority); the
chance of a disagreement depends on the adjudicated label (``DISAGREE``) and
the other label is drawn from ``SWITCH``: mostly R<->X and R<->U, rarely R<->W.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from . import text
from ._files import write_lines, write_text
from .common import check_positive, each_run, letter, run_names
from .model import ModelParams, confidence, draw_difficulty, draw_runs, rng

KIND = "trec-factoid"
LABELS = np.array(["R", "W", "U", "X"])
R, W, U, X = 0, 1, 2, 3
# P(an assessor disagrees with the adjudicated label), by adjudicated label.
DISAGREE = {R: 0.03, W: 0.012, U: 0.15, X: 0.12}
# Which label a disagreeing assessor gives, by adjudicated label.
SWITCH = {R: {X: 0.45, U: 0.42, W: 0.13}, W: {R: 0.15, X: 0.5, U: 0.35},
          U: {R: 0.75, W: 0.25}, X: {R: 0.8, W: 0.2}}
N_RIGHT, N_WRONG, N_DOCS = 3, 6, 3
# answer-string slots per question: right variants, inexact variant, wrong answers, NIL
SLOT_X = N_RIGHT
SLOT_W = N_RIGHT + 1
SLOT_NIL = N_RIGHT + 1 + N_WRONG
N_SLOTS = SLOT_NIL + 1


@dataclass(frozen=True)
class Options:
    """Campaign size and judging parameters."""

    questions: int = 500
    runs: int = 67
    nil_share: float = 46 / 500
    judgment_sets: int = 4
    first_qid: int = 1394
    p_unsupported: float = 0.05
    p_inexact: float = 0.12


def pools(seed: int, n: int, kind: str = KIND) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Question texts, answer strings (n x N_SLOTS; NIL slot empty), docids (n x N_DOCS)."""
    g = rng(seed, kind, "questions")
    texts = [text.factoid_question(g) for _ in range(n)]
    g = rng(seed, kind, "answers")
    answers = np.empty((n, N_SLOTS), dtype=object)
    for q in range(n):
        a = text.short_answer(g)
        answers[q, 0] = a
        answers[q, 1] = f"the {a}" if not a[0].isdigit() else f"in {a}"
        answers[q, 2] = f"{a} {text.pseudo_word(g).capitalize()}"
        answers[q, SLOT_X] = f"{text.phrase(g, 1, 3)} {a.split()[0]}"
        for k in range(N_WRONG):
            answers[q, SLOT_W + k] = text.short_answer(g)
        answers[q, SLOT_NIL] = ""
    docs = text.docids(rng(seed, kind, "docids"), n * N_DOCS).reshape(n, N_DOCS)
    return texts, answers, docs


def _assessor_tables(seed: int, n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (question, slot): a uniform deciding disagreement, which assessor
    disagrees (0..k-1) and a uniform choosing the other label."""
    g = rng(seed, KIND, "assessors")
    return g.random((n, N_SLOTS)), g.integers(0, max(k, 1), (n, N_SLOTS)), g.random((n, N_SLOTS))


def _switch(adjudicated: np.ndarray, u_flip: np.ndarray, u_label: np.ndarray,
            nil: np.ndarray, scale: float) -> np.ndarray:
    """Labels of a disagreeing assessor, or the adjudicated label."""
    out = adjudicated.copy()
    for lab, p in DISAGREE.items():
        sel = (adjudicated == lab) & (u_flip < p * scale)
        # NIL responses are only ever R or W
        sel_nil = sel & nil
        out[sel_nil] = np.where(adjudicated[sel_nil] == R, W, R)
        sel &= ~nil
        targets = np.array(list(SWITCH[lab].keys()))
        cum = np.cumsum(list(SWITCH[lab].values()))
        out[sel] = targets[np.minimum(np.searchsorted(cum, u_label[sel] * cum[-1]), len(cum) - 1)]
    return out


def respond(g: np.random.Generator, z: np.ndarray, conf: np.ndarray, nil_q: np.ndarray,
            opts: Options, flat_docs: np.ndarray
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """One run's responses: adjudicated label, answer slot, NIL flag and docid per
    question (see the module docstring)."""
    n = len(z)
    right = z > 0
    nil_share = 0.0 if g.random() < 0.3 else g.uniform(0.0, 0.15)
    low = conf < np.quantile(conf, nil_share) if nil_share > 0 else np.zeros(n, bool)
    says_nil = low | (nil_q & right)
    u = g.random(n)
    # adjudicated labels and answer slots
    label = np.where(right, np.where(u < opts.p_unsupported, U, R),
                     np.where(u < opts.p_inexact, X, W))
    slot = np.where(right, g.integers(0, N_RIGHT, n),
                    np.where(label == X, SLOT_X, SLOT_W + g.integers(0, N_WRONG, n)))
    # NIL questions: any non-NIL answer is wrong (W); NIL answers judged by the key
    label = np.where(nil_q & ~says_nil, W, label)
    slot = np.where(nil_q & ~says_nil, SLOT_W + g.integers(0, N_WRONG, n), slot)
    label = np.where(says_nil, np.where(nil_q, R, W), label)
    slot = np.where(says_nil, SLOT_NIL, slot)
    doc = flat_docs[np.arange(n) * N_DOCS + g.integers(0, N_DOCS, n)]
    doc = np.where(says_nil, "NIL", doc)
    return label, slot, says_nil, doc


def simulate(out: str | Path, seed: int = 2002, opts: Options | None = None,
             params: ModelParams | None = None, quiet: bool = False,
             questions: pl.DataFrame | None = None) -> dict[str, int]:
    """Write the campaign to ``out``; return counts (questions, nil, runs, files).
    With ``questions`` (a campaign's own, :func:`simulate_for_questions`) the
    runs answer its factoid questions and no question file is written."""
    opts = opts or Options()
    params = params or ModelParams()
    if questions is None:
        n = check_positive("questions", opts.questions)
        qids = np.array([str(opts.first_qid + i) for i in range(n)], dtype=object)
    else:
        qids = np.array(questions.filter(pl.col("qtype") == "FACTOID")["qid"].to_list(),
                        dtype=object)
        n = check_positive("factoid questions in the file", len(qids))
    n_runs = check_positive("runs", opts.runs)
    n_sets = check_positive("judgment-sets", opts.judgment_sets)
    out = Path(out)
    texts, answers, docs = pools(seed, n)
    n_nil = int(round(opts.nil_share * n))
    nil_q = np.zeros(n, dtype=bool)
    nil_q[rng(seed, KIND, "nil").permutation(n)[:n_nil]] = True

    if questions is None:
        write_text("".join(f"<top>\n\n<num> Number: {qid}\n\n<desc> Description:\n{t}\n\n"
                           "</top>\n\n\n" for qid, t in zip(qids, texts, strict=True)),
                   out / "questions.txt")

    difficulty = draw_difficulty(seed, KIND, n, params)
    runs = draw_runs(seed, KIND, n_runs, params)
    names = run_names(seed, KIND, runs, lambda team, i: f"{team}02{letter(i)}")
    sets = ["adjudicated"] + [f"assessor{i}" for i in range(1, n_sets)]
    n_assessors = n_sets - 1
    u_flip, who, u_label = _assessor_tables(seed, n, n_assessors)
    flat_answers = answers.ravel()
    flat_docs = docs.ravel()

    def write_run(r: int, g: np.random.Generator, z: np.ndarray) -> list[Path]:
        paths = []
        conf = confidence(g, z, float(runs.noise[r]))
        label, slot, says_nil, doc = respond(g, z, conf, nil_q, opts, flat_docs)
        order = np.argsort(-conf, kind="stable")
        ans = flat_answers[np.arange(n) * N_SLOTS + slot]
        base = pl.DataFrame({"qid": qids[order], "docid": doc[order].astype(object),
                             "answer": ans[order]}, schema={"qid": pl.String, "docid": pl.String,
                                                           "answer": pl.String})
        qi = order
        si = slot[order]
        for s, set_name in enumerate(sets):
            lab = label[order]
            if s > 0:
                mine = who[qi, si] == s - 1
                flipped = _switch(lab, np.where(mine, u_flip[qi, si], 1.0), u_label[qi, si],
                                  says_nil[order], float(n_assessors))
                lab = flipped
            lines = base.select(pl.concat_str(
                [pl.col("qid"), pl.lit(names[r]), pl.col("docid"),
                 pl.Series(LABELS[lab].astype(object), dtype=pl.String), pl.col("answer")],
                separator=" ").str.strip_chars_end(" ")).to_series()
            path = out / "judged" / set_name / f"{names[r]}.txt.gz"
            write_lines(lines, path)
            paths.append(path)
        return paths

    written = each_run(f"simulate {KIND}", seed, KIND, runs, difficulty, params, quiet,
             out / "judged", ("*.txt.gz",), write_run)
    return {"questions": n, "nil": n_nil, "runs": n_runs,
            "files": len(written) + (questions is None)}


def simulate_for_questions(out: str | Path, questions_file: str | Path, seed: int = 2002,
                           opts: Options | None = None, quiet: bool = False) -> dict[str, int]:
    """Simulated judged runs for a campaign's own ``<top>`` question file (TREC
    2002's trec11questions, TREC 2003's trec12questions; read by the reader, so
    a file it refuses is refused here): :func:`simulate` answering its factoid
    questions.  A TREC 2003 file's list and definition questions get no runs:
    the counts say how many (``other_questions``), and the campaign sets
    ``skip: [list, definition]``."""
    from ..readers.trec_questions import read_top_questions

    questions = read_top_questions(questions_file)
    counts = simulate(out, seed, opts, quiet=quiet, questions=questions)
    return {**counts, "other_questions": int((questions["qtype"] != "FACTOID").sum())}
