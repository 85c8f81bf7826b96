"""TREC-2004-like question-series campaign (kind ``trec-series``).

Writes::

    OUT/questions.xml        series XML (DOCTYPE with internal DTD, <trecqa year task>)
    OUT/nuggets.txt          Qid N.M: headers, ``qid nugget<TAB>vital|okay<TAB>text``
    OUT/list_key.txt         ``# qid``, ``Q:`` line, one instance per line
    OUT/judged/adjudicated/factoid/<run>.txt.gz        qid tag docid judgment answer
    OUT/judged/adjudicated/list/<run>.txt.gz           qid tag docid correctness distinct string
    OUT/judged/adjudicated/other/<run>.txt.gz          qid tag item docid string
    OUT/judged/adjudicated/other_nuggets/<run>.txt.gz  qid tag item nugget

Layout: each series (target) has 2-6 factoid questions, 0-2 list questions
(about 18% of the series have none) and one Other question, last.  Totals
default to TREC 2004's proportions (65 series: 230 factoid, 56 list).

Model (see :mod:`qacamp.simulate.model`): question difficulty = a series
effect ``N(0, series_sd)`` + a question effect.  Factoid responses follow
:func:`qacamp.simulate.trec_factoid.respond` (lines in question order).  A list
response has ``1 + Poisson(v_r)`` items (``v_r`` the run's verbosity); each is
right with probability ``logistic(a_r - d_q)`` and then names a key instance
drawn with replacement (the first mention of an instance gets distinct = 1);
wrong items are -1 (80%), inexact 3 (12%) or unsupported 2 (8%).  An Other
response has ``1 + Poisson(m_r)`` items of about ``w_r`` filler words each (30% of
the runs are verbose: ``m_r`` in 1-3, ``w_r`` in 8-20; the others terse:
``m_r`` in 0.1-0.8, ``w_r`` in 2-5, so the length allowance bites for some); each
nugget is found with probability ``logistic(a_r - d_q + 0.5 vital)`` and put in
a random item (its text is quoted in the item).  Nuggets: ``3 + Poisson(5)`` per
question, 45% vital, at least one vital.

Unjudged questions: the Other question of series 7 (the last series when there
are fewer) has no nuggets and no judged responses, and one list question has
no answer key and no judged responses, so the scorer drops and reports them.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import polars as pl

from . import text
from ._files import write_lines, write_text
from .common import check_positive, each_run, run_names
from .model import ModelParams, confidence, draw_difficulty, draw_runs, rng
from .trec_factoid import LABELS, N_DOCS, N_SLOTS, pools, respond
from .trec_factoid import Options as FactoidOptions

KIND = "trec-series"
LIST_CODES = {1: "1", -1: "-1", 2: "2", 3: "3"}

DTD = """<?xml version="1.0" encoding="ISO-8859-1"?>
<!DOCTYPE trecqa [

<!-- ======================================================================
      Simulated TREC-style question series (qacamp simulate; not real data)
     ====================================================================== -->

    <!ELEMENT trecqa  (target+)           >
    <!ELEMENT target   (qa+)              >
    <!ELEMENT qa      (q, as?)            >
    <!ELEMENT q       (#PCDATA)           >
    <!ELEMENT as      (a*, nugget*)       >

    <!ATTLIST trecqa
                      year  CDATA #REQUIRED
                      task CDATA #REQUIRED>

    <!ATTLIST target  id    ID    #REQUIRED
                      text  CDATA #REQUIRED>

    <!ATTLIST q       id    ID    #REQUIRED
                      type  (FACTOID|LIST|OTHER) #REQUIRED>
<!-- ====================================================================== -->
]>

"""


@dataclass(frozen=True)
class Options:
    """Campaign size.  ``factoid``/``list`` default to 230/65 and 56/65 per series."""

    series: int = 65
    runs: int = 63
    factoid: int | None = None
    list: int | None = None
    year: int = 2004
    nil_share: float = 0.05
    series_sd: float = 0.7
    unjudged_series: int = 7


@dataclass
class Layout:
    """Questions in file order: ids, types, series index, text."""

    qid: list[str]
    qtype: list[str]
    series: list[int]
    text: list[str]
    targets: list[str]


def layout(seed: int, opts: Options) -> Layout:
    """Draw the series layout and question texts."""
    n_s = opts.series
    n_f = opts.factoid if opts.factoid is not None else round(opts.series * 230 / 65)
    n_l = opts.list if opts.list is not None else round(opts.series * 56 / 65)
    g = rng(seed, KIND, "layout")
    # list questions per series: n0 series with none, n2 with two, the rest one
    n0 = round(0.18 * n_s)
    n2 = n_l - (n_s - n0)
    if n2 < 0:
        n0, n2 = max(n_s - n_l, 0), 0
    n2 = min(n2, n_s - n0)
    lists = np.array([0] * n0 + [2] * n2 + [1] * (n_s - n0 - n2))[g.permutation(n_s)]
    facts = np.full(n_s, 2)
    extra = max(min(n_f, 6 * n_s) - 2 * n_s, 0)
    while extra > 0:
        s = int(g.integers(n_s))
        if facts[s] < 6:
            facts[s] += 1
            extra -= 1
    gt = rng(seed, KIND, "texts")
    targets = [t if gt.random() < 0.7 else t.lower() for t in
               text.unique_names(gt, n_s, parts=2)]
    out = Layout([], [], [], [], targets)
    for s in range(n_s):
        types = ["FACTOID"] * int(facts[s]) + ["LIST"] * int(lists[s])
        types = [types[i] for i in g.permutation(len(types))] + ["OTHER"]
        for k, t in enumerate(types, start=1):
            out.qid.append(f"{s + 1}.{k}")
            out.qtype.append(t)
            out.series.append(s)
            if t == "FACTOID":
                tpl = text.SERIES_FACTOID_TEMPLATES
                out.text.append(tpl[int(gt.integers(len(tpl)))])
            elif t == "LIST":
                tpl = text.SERIES_LIST_TEMPLATES
                out.text.append(tpl[int(gt.integers(len(tpl)))])
            else:
                out.text.append("Other")
    return out


def layout_from_questions(questions: pl.DataFrame) -> Layout:
    """The layout of a campaign's own series XML (read by
    :func:`qacamp.readers.trec_questions.read_series_xml`): its question ids,
    types, series and texts in file order; targets are named by series id."""
    q = questions.sort("position") if "position" in questions.columns else questions
    series_ids = list(dict.fromkeys(str(x) for x in q["series"].to_list()))
    index = {sid: i for i, sid in enumerate(series_ids)}
    return Layout([str(x) for x in q["qid"].to_list()],
                  [str(x).upper() for x in q["qtype"].to_list()],
                  [index[str(x)] for x in q["series"].to_list()],
                  [str(x or "") for x in q["text"].to_list()],
                  [f"series {sid}" for sid in series_ids])


def series_xml(lay: Layout, year: int) -> str:
    parts = [DTD, f'<trecqa year="{year}" task="main">\n']
    for s, target in enumerate(lay.targets):
        parts.append(f'<target id = "{s + 1}" text = "{target}">\n')
        for qid, t, ser, q in zip(lay.qid, lay.qtype, lay.series, lay.text, strict=True):
            if ser == s:
                parts.append(f'    <qa>\n\t<q id = "{qid}" type="{t}">\n\t    {q}\n\t</q>\n'
                             "    </qa>\n\n")
        parts.append("</target>\n\n\n")
    parts.append("</trecqa>\n")
    return "".join(parts)


def simulate(out: str | Path, seed: int = 2004, opts: Options | None = None,
             params: ModelParams | None = None, quiet: bool = False,
             questions: pl.DataFrame | None = None) -> dict[str, int]:
    """Write the campaign to ``out``; return counts.  With ``questions`` (a
    campaign's own series XML read by the reader), the runs, judgments,
    nuggets and list key are simulated for exactly those questions, every
    one of them judged, and ``questions.xml`` is not written (the config
    names the organizer's own file)."""
    opts = opts or Options()
    params = params or ModelParams()
    n_runs = check_positive("runs", opts.runs)
    out = Path(out)
    if questions is None:
        check_positive("series", opts.series)
        lay = layout(seed, opts)
    else:
        lay = layout_from_questions(questions)
        opts = replace(opts, series=len(lay.targets), unjudged_series=0)
    qtype = np.array(lay.qtype)
    qids = np.array(lay.qid, dtype=object)
    ser = np.array(lay.series)
    fq = np.flatnonzero(qtype == "FACTOID")
    lq = np.flatnonzero(qtype == "LIST")
    oq = np.flatnonzero(qtype == "OTHER")
    unjudged_series = min(opts.unjudged_series, opts.series) - 1
    g = rng(seed, KIND, "keys")
    lq_j = lq
    if len(lq) > 1 and questions is None:
        cands = lq[ser[lq] != unjudged_series]
        drop = int(cands[int(g.integers(len(cands)))])
        lq_j = lq[lq != drop]
    oq_j = oq[ser[oq] != unjudged_series] if len(oq) > 1 else oq
    if questions is None:
        write_text(series_xml(lay, opts.year), out / "questions.xml", encoding="latin-1")

    # list keys: 3 + negative binomial instances; a pool of wrong strings
    key_size = 3 + g.negative_binomial(2, 0.25, len(lq_j))
    keys = [text.unique_names(g, int(k), parts=int(g.integers(1, 3))) for k in key_size]
    wrong = [[text.short_answer(g) for _ in range(8)] for _ in lq_j]
    key_txt = []
    for q, inst in zip(lq_j, keys, strict=True):
        key_txt.append(f"# {qids[q]}\nQ:{lay.text[q]}\n" + "\n".join(inst) + "\n\n")
    write_text("".join(key_txt), out / "list_key.txt")

    # nuggets
    gn = rng(seed, KIND, "nuggets")
    nug_n = 3 + gn.poisson(5, len(oq_j))
    nug_vital = [gn.random(k) < 0.45 for k in nug_n]
    for v in nug_vital:
        if not v.any():
            v[int(gn.integers(len(v)))] = True
    nug_text = [[text.phrase(gn, 3, 8, made_up=0.15) for _ in range(k)] for k in nug_n]
    blocks = []
    for i, q in enumerate(oq_j):
        lines = [f"Qid {qids[q]}: 'other' question for target {lay.targets[ser[q]]}"]
        for k in range(nug_n[i]):
            lines.append(f"{qids[q]} {k + 1}\t{'vital' if nug_vital[i][k] else 'okay'}"
                         f"\t{nug_text[i][k]}")
        blocks.append("\n".join(lines) + "\n\n\n")
    write_text("".join(blocks), out / "nuggets.txt")

    # latent model
    n_q = len(qids)
    difficulty = draw_difficulty(seed, KIND, n_q, params)
    difficulty = difficulty + rng(seed, KIND, "series-effect").normal(
        0.0, opts.series_sd, opts.series)[ser]
    fac_nil = np.zeros(len(fq), dtype=bool)
    fac_nil[rng(seed, KIND, "nil").permutation(len(fq))[:round(opts.nil_share * len(fq))]] = True
    _, answers, docs = pools(seed, len(fq), KIND)
    flat_answers, flat_docs = answers.ravel(), docs.ravel()
    other_docs = text.docids(rng(seed, KIND, "other-docs"), 40)
    runs = draw_runs(seed, KIND, n_runs, params)
    names = run_names(seed, KIND, runs, lambda team, i: f"{team}04{'abc'[i % 3]}")
    base = out / "judged" / "adjudicated"
    fopts = FactoidOptions()

    def write_run(r: int, g: np.random.Generator, z_all: np.ndarray) -> list[Path]:
        paths: list[Path] = []
        tag = names[r]
        # factoid
        z = z_all[fq]
        conf = confidence(g, z, float(runs.noise[r]))
        label, slot, says_nil, doc = respond(g, z, conf, fac_nil, fopts, flat_docs)
        ans = flat_answers[np.arange(len(fq)) * N_SLOTS + slot]
        lines = [f"{qids[q]} {tag} {d} {LABELS[lab]} {a}".rstrip()
                 for q, d, lab, a in zip(fq, doc, label, ans, strict=True)]
        paths.append(_write(lines, base / "factoid" / f"{tag}.txt.gz"))
        # list
        verb = g.uniform(1.0, 6.0)
        lines = []
        for i, q in enumerate(lq_j):
            n_items = 1 + int(g.poisson(verb))
            p = 1.0 / (1.0 + np.exp(-(runs.ability[r] - difficulty[q] + 0.3)))
            right = g.random(n_items) < p
            inst = g.integers(0, len(keys[i]), n_items)
            u = g.random(n_items)
            code = np.where(right, 1, np.where(u < 0.8, -1, np.where(u < 0.92, 3, 2)))
            seen: set[int] = set()
            for k in range(n_items):
                d = other_docs[int(g.integers(len(other_docs)))]
                if code[k] == 1:
                    s = keys[i][inst[k]]
                    distinct = int(int(inst[k]) not in seen)
                    seen.add(int(inst[k]))
                elif code[k] == -1:
                    s, distinct = wrong[i][int(g.integers(len(wrong[i])))], 0
                else:
                    s, distinct = keys[i][inst[k]].split()[0] + "s", 0
                lines.append(f"{qids[q]} {tag} {d} {LIST_CODES[int(code[k])]} {distinct} {s}")
        paths.append(_write(lines, base / "list" / f"{tag}.txt.gz"))
        # Other
        verbose = g.random() < 0.3
        n_mean = g.uniform(1.0, 3.0) if verbose else g.uniform(0.1, 0.8)
        w_mean = g.uniform(8.0, 20.0) if verbose else g.uniform(2.0, 5.0)
        one, two = [], []
        for i, q in enumerate(oq_j):
            n_items = 1 + int(g.poisson(n_mean))
            bonus = np.where(nug_vital[i], 0.5, 0.0)
            found = g.random(nug_n[i]) < 1.0 / (1.0 + np.exp(-(runs.ability[r] - difficulty[q]
                                                                 + bonus)))
            where = g.integers(1, n_items + 1, nug_n[i])
            for item in range(1, n_items + 1):
                here = [k for k in range(nug_n[i]) if found[k] and where[k] == item]
                words = [nug_text[i][k] for k in here]
                words.append(text.phrase(g, 1, max(2, int(g.poisson(w_mean))), made_up=0.0))
                d = other_docs[int(g.integers(len(other_docs)))]
                one.append(f"{qids[q]} {tag} {item} {d} {' '.join(words)}")
                two.extend(f"{qids[q]} {tag} {item} {k + 1}" for k in here)
        paths.append(_write(one, base / "other" / f"{tag}.txt.gz"))
        paths.append(_write(two, base / "other_nuggets" / f"{tag}.txt.gz"))
        return paths

    each_run(f"simulate {KIND}", seed, KIND, runs, difficulty, params, quiet,
             out / "judged", ("*.txt.gz",), write_run)
    return {"series": opts.series, "factoid": len(fq), "list": len(lq), "other": len(oq),
            "list_judged": len(lq_j), "other_judged": len(oq_j), "runs": n_runs,
            "nuggets": int(sum(nug_n))}


def simulate_for_questions(out: str | Path, questions_file: str | Path, seed: int = 2004,
                           opts: Options | None = None, quiet: bool = False) -> dict[str, int]:
    """Simulated runs, judgments, nuggets and list key for a campaign's own
    series XML (read by the reader, so a file it refuses is refused here):
    :func:`simulate` with those questions."""
    from ..readers.trec_questions import read_series_xml

    return simulate(out, seed, opts, quiet=quiet, questions=read_series_xml(questions_file))


def _write(lines: list[str], path: Path) -> Path:
    write_lines(pl.Series(lines, dtype=pl.String), path)
    return path


__all__ = ["Options", "simulate", "simulate_for_questions", "layout", "layout_from_questions", "series_xml",
           "N_DOCS"]
