"""Kinds judged against a gold standard (qa4mre, clef-qa, pan) and score matrices.

Each kind imports its reader when it is read (a PAN campaign loads no XML parser)."""

from __future__ import annotations

import polars as pl

from ..errors import ConfigError
from ..ordered import in_order
from ..readers import pan
from .checks import Acc, check_known, check_run_name, check_run_unique, coverage, first_place

Where = dict[tuple[str, str, str], str]


def _one(resolved: dict, key: str, what: str) -> str:
    paths = resolved["files"][key]
    if len(paths) != 1:
        raise ConfigError(f"campaigns.{resolved['name']}.{key}", "must name one file",
                          f"give the {what}")
    return paths[0]


def qa4mre_kind(resolved: dict, acc: Acc) -> Where:
    from ..readers import qa4mre

    opts = resolved["options"]
    gold = _one(resolved, "gold", "gold standard XML")
    questions, options = qa4mre.read_gold(gold, opts["main_questions"], opts["language"],
                                          require_correct=True)
    acc.add("questions", questions)
    acc.add("options", options)
    seen: dict[str, str] = {}
    where: Where = {}
    paths = resolved["files"]["runs"]
    reads = in_order((lambda p=p: qa4mre.read_run(p, questions, options) for p in paths),
                     acc.threads)
    for path, read in zip(paths, reads, strict=True):
        resp, judg = read()
        run = resp["run"][0]
        check_run_unique(seen, run, path, "run_id", lambda p=path: qa4mre.run_place(p))
        coverage(acc, path, resp, questions.height, "questions of the gold standard",
                 opts["min_coverage"])
        where[(resolved["primary"], "mc", run)] = path
        acc.add("responses", resp)
        acc.add("judgments", judg)
    return where


def clef_kind(resolved: dict, acc: Acc) -> Where:
    from ..readers import clef
    from .trec import merge_questions

    questions = merge_questions([(p, clef.read_questions(p))
                                 for p in resolved["files"]["questions"]])
    acc.add("questions", questions)
    seen: dict[str, str] = {}
    where: Where = {}
    paths = resolved["files"]["runs"]
    reads = in_order((lambda p=p: clef.read_run(p) for p in paths), acc.threads)
    for path, read in zip(paths, reads, strict=True):
        resp, judg = read()
        run = resp["run"][0]
        # (the place: the first run line, after the header)
        check_run_name(path, run, lambda p=path: first_place(p, header=1))
        check_run_unique(seen, run, path, "run column", lambda p=path: first_place(p, header=1))
        check_known(path, resp, questions["qid"], "the question set", field=1, tab=True)
        coverage(acc, path, resp, questions.height, "questions",
                 resolved["options"]["min_coverage"])
        where[(resolved["primary"], "qa", run)] = path
        acc.add("responses", resp)
        acc.add("judgments", judg)
    return where


def pan_kind(resolved: dict, acc: Acc) -> Where:
    questions, options = pan.read_truth(_one(resolved, "truth", "truth.jsonl file"))
    acc.add("questions", questions)
    acc.add("options", options)
    # each file's rows are added in canonical order (one run and item 1 a file:
    # by problem id, from the positions of the sorted ids), so the campaign's
    # tables need no sort when the files come in run order
    positions = questions.select("qid").sort("qid").with_row_index("_pos")
    seen: dict[str, str] = {}
    where: Where = {}
    paths = resolved["files"]["answers"]
    reads = in_order((lambda p=p: pan.read_answers(p, questions, options) for p in paths),
                     acc.threads)
    for path, read in zip(paths, reads, strict=True):
        run = pan.run_name(path)
        check_run_name(path, run, lambda: "byte 0")
        resp, judg = read()
        check_run_unique(seen, run, path, "runs are named by the answers file's folder")
        coverage(acc, path, resp, questions.height, "problems of the truth file",
                 resolved["options"]["min_coverage"])
        where[(resolved["primary"], "verification", run)] = path
        order = _by_problem(resp, positions)
        acc.add("responses", resp[order])
        # (the reader's judgments: a row per response, in the same order)
        acc.add("judgments", judg[order] if judg["qid"].equals(resp["qid"]) else
                judg[_by_problem(judg, positions)])
    return where


def _by_problem(df: pl.DataFrame, positions: pl.DataFrame) -> pl.Series:
    """The row order of ``df`` by problem id (stable; every id is a problem's)."""
    pos = df.select("qid").join(positions, on="qid", how="left", maintain_order="left")
    return pos.select(pl.arg_sort_by("_pos", maintain_order=True)).to_series()


def score_matrix_kind(resolved: dict, acc: Acc) -> Where:
    from ..readers import matrix

    acc.add("matrix", matrix.read_matrix(_one(resolved, "matrix", "CSV or Parquet score matrix")))
    return {}
