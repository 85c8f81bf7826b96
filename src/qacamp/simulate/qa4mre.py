"""QA4MRE-2013-like multiple-choice campaign (kind ``qa4mre``).

Writes::

    OUT/gold.xml          <test-set><topic><reading-test><doc/><q><q_str/><answer .../>
    OUT/runs/<run>.xml    <output run_id><topic><reading-test><question answered><answer/>

Layout: ``topics`` x ``tests`` reading tests, each with ``main`` questions
(q_id 1..15) plus 0-2 auxiliary questions (q_id 16+).  Every question has five
options; option 5 is "None of the above" (NCA) and is the gold answer for
``round(noa_share * n)`` questions (39% by default, as in 2013), the others a
random option 1-4.

Model (see :mod:`qacamp.simulate.model`): difficulty = reading-test effect
``N(0, test_sd)`` + question effect.  A run chooses the gold option when its
evidence is positive; otherwise a wrong option, "None of the above" with
probability ``nca_bias_r`` when it is among the wrong options (1/4 for most
runs; 0.6-0.9 for the ~20% of runs that over-choose NCA).  It abstains
(``answered="NO"``) on the share ``u_r`` of questions with its lowest
confidence (``u_r = 0`` for 40% of the runs); an abstention carries the option
it would have chosen as candidate with the run's ``p_candidate_r`` (0, 1, or in
between).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import text
from ._files import write_text
from .common import check_positive, each_run, run_names
from .model import (
    ModelParams,
    confidence,
    draw_difficulty,
    draw_runs,
    lowest_share,
    rng,
)

KIND = "qa4mre"
NCA = "None of the above"
TOPIC_NAMES = ("Urban Beekeeping", "Tidal Energy", "Folk Music Archives", "Desert Agriculture",
               "Glacier Monitoring", "Public Libraries", "Rail Freight", "Coral Reefs")


@dataclass(frozen=True)
class Options:
    """Campaign size and the NCA share."""

    topics: int = 4
    tests: int = 4
    main: int = 15
    max_aux: int = 1
    runs: int = 40
    noa_share: float = 0.39
    test_sd: float = 0.6


@dataclass
class Gold:
    """Questions in file order with their gold option (1-5)."""

    topic: np.ndarray
    test: np.ndarray
    q_id: np.ndarray
    correct: np.ndarray


def gold(seed: int, opts: Options) -> tuple[Gold, str]:
    """Draw the test set; return it and the gold XML."""
    g = rng(seed, KIND, "gold")
    topic, test, q_id = [], [], []
    for t in range(opts.topics):
        for r in range(opts.tests):
            n = opts.main + int(g.integers(0, opts.max_aux + 1))
            topic += [t + 1] * n
            test += [r + 1] * n
            q_id += list(range(1, n + 1))
    n = len(q_id)
    correct = g.integers(1, 5, n)
    correct[g.permutation(n)[:round(opts.noa_share * n)]] = 5
    gd = Gold(np.array(topic), np.array(test), np.array(q_id), correct)
    gt = rng(seed, KIND, "texts")
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n<test-set>\n']
    i = 0
    for t in range(opts.topics):
        name = TOPIC_NAMES[t] if t < len(TOPIC_NAMES) else f"Topic {t + 1}"
        parts.append(f'\t<topic t_id="{t + 1}" t_name="{name}">\n')
        for r in range(opts.tests):
            parts.append(f'\t\t<reading-test r_id="{r + 1}">\n')
            doc = ". ".join(text.phrase(gt, 8, 16).capitalize() for _ in range(6)) + "."
            parts.append(f'\t\t\t<doc d_id="{r + 1}">\n{doc}\n\t\t\t</doc>\n')
            while i < n and gd.topic[i] == t + 1 and gd.test[i] == r + 1:
                parts.append(f'\t\t\t\t<q  q_id="{gd.q_id[i]}" >\n'
                             f"\t\t\t\t\t<q_str>{text.mc_question(gt)}</q_str>\n")
                for a in range(1, 6):
                    txt = NCA if a == 5 else text.phrase(gt, 1, 4)
                    mark = ' correct="Yes"' if a == correct[i] else ""
                    parts.append(f"\t\t\t\t\t<answer a_id='{a}' {mark}>{txt}</answer>\n")
                parts.append("\t\t\t\t</q>\n")
                i += 1
            parts.append("\t\t</reading-test>\n")
        parts.append("\t</topic>\n")
    parts.append("</test-set>\n")
    return gd, "".join(parts)


def behaviour(g: np.random.Generator) -> tuple[float, float, float]:
    """A run's habits, drawn from its generator: its bias towards "None of the
    above" when wrong, the share of questions it leaves unanswered, and the
    probability that an abstention carries a candidate answer."""
    nca_bias = g.uniform(0.6, 0.9) if g.random() < 0.2 else 0.25
    share = 0.0 if g.random() < 0.4 else g.uniform(0.02, 0.4)
    u = g.random()
    p_cand = 0.0 if u < 0.3 else 1.0 if u < 0.6 else g.uniform(0.2, 0.8)
    return nca_bias, share, p_cand


def run_xml(run_id: str, items: list[tuple[str, str, str, bool, str | None]]) -> str:
    """A QA4MRE run file: ``items`` are (t_id, r_id, q_id, unanswered, a_id or
    None) in gold order; an unanswered question with an ``a_id`` carries it as
    its candidate answer."""
    parts = ['<?xml version="1.0" encoding="UTF-8"?>\n', f'<output run_id="{run_id}">\n']
    prev: tuple[str | None, str | None] = (None, None)
    for t, rt, q, unanswered, a in items:
        if (t, rt) != prev:
            if prev[1] is not None:
                parts.append("\n</reading-test>\n")
            if t != prev[0]:
                if prev[0] is not None:
                    parts.append("</topic>\n")
                parts.append(f'<topic t_id="{t}">\n')
            parts.append(f'<reading-test r_id="{rt}">\n')
            prev = (t, rt)
        if not unanswered:
            parts.append(f'<question q_id="{q}" answered="YES"><answer a_id="{a}"/></question>')
        elif a is not None:
            parts.append(f'<question q_id="{q}" answered="NO"><answer a_id="{a}"/></question>')
        else:
            parts.append(f'<question q_id="{q}" answered="NO"/>')
    parts.append("\n</reading-test>\n</topic>\n</output>\n")
    return "".join(parts)


def simulate(out: str | Path, seed: int = 2013, opts: Options | None = None,
             params: ModelParams | None = None, quiet: bool = False) -> dict[str, int]:
    """Write the campaign to ``out``; return counts."""
    opts = opts or Options()
    params = params or ModelParams(ability_mean=0.0, ability_sd=0.8, difficulty_sd=1.0)
    check_positive("topics", opts.topics)
    check_positive("tests", opts.tests)
    check_positive("main", opts.main)
    n_runs = check_positive("runs", opts.runs)
    out = Path(out)
    gd, xml = gold(seed, opts)
    write_text(xml, out / "gold.xml")
    n = len(gd.q_id)
    test_index = (gd.topic - 1) * opts.tests + gd.test - 1
    difficulty = draw_difficulty(seed, KIND, n, params) + rng(seed, KIND, "test-effect").normal(
        0.0, opts.test_sd, opts.topics * opts.tests)[test_index]
    runs = draw_runs(seed, KIND, n_runs, params)
    names = run_names(seed, KIND, runs, lambda team, i: f"{team}13{i + 1:02d}enen")

    def write_run(r: int, g: np.random.Generator, z: np.ndarray) -> list[Path]:
        conf = confidence(g, z, float(runs.noise[r]))
        nca_bias, share, p_cand = behaviour(g)
        # a wrong choice: NCA with nca_bias when NCA is wrong, else one of the other wrong ones
        others = (gd.correct[:, None] + np.arange(1, 4)[None, :] - 1) % 4 + 1  # 3 non-gold of 1-4
        pick = others[np.arange(n), g.integers(0, 3, n)]
        wrong = np.where((gd.correct != 5) & (g.random(n) < nca_bias), 5, pick)
        wrong = np.where(gd.correct == 5, g.integers(1, 5, n), wrong)
        chosen = np.where(z > 0, gd.correct, wrong)
        unanswered = lowest_share(conf, share)
        with_cand = g.random(n) < p_cand
        items = [(str(gd.topic[i]), str(gd.test[i]), str(gd.q_id[i]), bool(unanswered[i]),
                  str(chosen[i]) if not unanswered[i] or with_cand[i] else None)
                 for i in range(n)]
        path = out / "runs" / f"{names[r]}.xml"
        write_text(run_xml(names[r], items), path)
        return [path]

    each_run(f"simulate {KIND}", seed, KIND, runs, difficulty, params, quiet,
             out / "runs", ("*.xml",), write_run)
    return {"topics": opts.topics, "tests": opts.topics * opts.tests, "questions": n,
            "main": int((gd.q_id <= opts.main).sum()), "nca": int((gd.correct == 5).sum()),
            "runs": n_runs}


def simulate_for_questions(out: str | Path, gold_path: str | Path, seed: int = 2013,
                      opts: Options | None = None, params: ModelParams | None = None,
                      quiet: bool = False) -> dict[str, int]:
    """Simulated runs for a campaign's own QA4MRE gold standard: ``OUT/runs/<run>.xml``
    over exactly the gold's topics, reading tests, questions and answer ids
    (read by :func:`qacamp.readers.qa4mre.read_gold`, so a gold the reader refuses
    is refused here, naming the file and the element).  The gold itself is not
    rewritten: the campaign's config names the organizer's own file.

    The model is the synthetic campaign's (difficulty = reading-test effect +
    question effect; a run picks the gold option when its evidence is positive,
    otherwise a wrong option, "None of the above" with the run's bias where the
    gold has one; it abstains on its least confident questions, with or
    without a candidate).  Questions without a gold answer (a test set) get a
    random "gold" for the simulation only."""
    from ..readers.qa4mre import read_gold

    opts = opts or Options()
    params = params or ModelParams(ability_mean=0.0, ability_sd=0.8, difficulty_sd=1.0)
    n_runs = check_positive("runs", opts.runs)
    out = Path(out)
    questions, options = read_gold(gold_path, opts.main)
    qids = questions["qid"].to_list()
    tests = questions["test"].to_list()
    by_q: dict[str, list[tuple[str, bool, bool]]] = {}
    for qid, opt, correct, noa in options.select("qid", "option", "correct", "is_noa").iter_rows():
        by_q.setdefault(qid, []).append((str(opt), bool(correct), bool(noa)))
    g0 = rng(seed, KIND, "real-gold")
    gold_idx, nca_idx = [], []
    for qid in qids:
        opts_q = by_q.get(qid, [])
        right = [i for i, (_, c, _) in enumerate(opts_q) if c]
        gold_idx.append(right[0] if right else int(g0.integers(len(opts_q))))
        noa = [i for i, (_, _, x) in enumerate(opts_q) if x]
        nca_idx.append(noa[0] if noa else None)
    n = len(qids)
    test_ids = list(dict.fromkeys(tests))
    test_index = np.array([test_ids.index(t) for t in tests])
    difficulty = draw_difficulty(seed, KIND, n, params) + rng(seed, KIND, "test-effect").normal(
        0.0, opts.test_sd, len(test_ids))[test_index]
    runs = draw_runs(seed, KIND, n_runs, params)
    names = run_names(seed, KIND, runs, lambda team, i: f"{team}{i + 1:02d}enen")
    where = [(str(q).split(".")[0], str(t).split(".", 1)[1], str(q).rsplit(".", 1)[1])
             for q, t in zip(qids, tests, strict=True)]

    def write_run(r: int, g: np.random.Generator, z: np.ndarray) -> list[Path]:
        conf = confidence(g, z, float(runs.noise[r]))
        nca_bias, share, p_cand = behaviour(g)
        unanswered = lowest_share(conf, share)
        items = []
        for i, qid in enumerate(qids):
            opts_q = by_q.get(qid, [])
            if z[i] > 0 or len(opts_q) < 2:
                pick = gold_idx[i]
            else:
                wrong = [k for k in range(len(opts_q)) if k != gold_idx[i]]
                nca = nca_idx[i]
                if nca is not None and nca in wrong and g.random() < nca_bias:
                    pick = nca
                else:
                    others = [k for k in wrong if k != nca] or wrong
                    pick = others[int(g.integers(len(others)))]
            cand = not unanswered[i] or g.random() < p_cand
            items.append((*where[i], bool(unanswered[i]), opts_q[pick][0] if cand and opts_q
                          else None))
        path = out / "runs" / f"{names[r]}.xml"
        write_text(run_xml(names[r], items), path)
        return [path]

    each_run(f"simulate {KIND} for {Path(gold_path).name}", seed, KIND, runs, difficulty,
             params, quiet, out / "runs", ("*.xml",), write_run, stream="real-run")
    return {"topics": questions["topic"].n_unique(), "tests": len(test_ids), "questions": n,
            "nca": sum(x is not None for x in nca_idx), "runs": n_runs}
