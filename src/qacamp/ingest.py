"""Campaign config -> canonical tables, with the cross-file checks.

:func:`ingest_campaign` reads every raw file of one campaign (its config dict
exactly as in ``workflow/schemas/config.schema.yaml``) and returns *all* the
tables of :data:`qacamp.tables.SCHEMAS` (empty ones for what the kind lacks),
conformed and in canonical row order.  :func:`write_ingest` writes them to
``<outdir>/<table>.parquet`` plus ``campaign.json`` atomically.

Cross-file checks (each raises :class:`~qacamp.errors.InputError`):

* a response to a question id that is not in the question set / gold (names
  the run file and the line of the first offender);
* two files of one judgment set (or two runs of a QA4MRE / CLEF / PAN
  campaign) with the same run name;
* for TREC kinds, every non-primary judgment set judges exactly the responses
  of the primary set (same run, qid, item); responses come from the primary set;
* trec-series: Other part-two files pair with part-one files by run tag (a
  part one without part two has no nugget matches); nugget matches must name
  known nuggets; a nugget list and a pyramid file given together must list
  the same nuggets (the weights come from the pyramid).

trec-factoid ``questions`` may list ``<top>`` files (a file whose name
contains ``list`` holds LIST questions) and/or series XML.  A judged run file
whose first question is a LIST question is read as a NIST judged list run.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import polars as pl

from . import tables
from .config import expand_files, primary_judgment_set
from .errors import ConfigError, InputError
from .io import write_parquet, write_text
from .readers import answer_keys, clef, matrix, pan, qa4mre, trec_questions, trec_runs
from .readers._text import data_lines, read_bytes

KINDS = ("trec-factoid", "trec-series", "qa4mre", "clef-qa", "pan", "score-matrix")

REQUIRED: dict[str, tuple[str, ...]] = {
    "trec-factoid": ("questions", "judgment_sets"),
    "trec-series": ("year", "questions", "judgment_sets"),
    "qa4mre": ("gold", "runs"),
    "clef-qa": ("questions", "runs"),
    "pan": ("truth", "answers"),
    "score-matrix": ("matrix",),
}

#: Per-series weights by TREC year (Voorhees 2005; 2006-2007 guidelines: thirds).
SERIES_WEIGHTS: dict[int, dict[str, float]] = {
    **{y: {"factoid": 0.5, "list": 0.25, "other": 0.25,
           "no_list_factoid": 0.67, "no_list_other": 0.33} for y in (2004, 2005)},
    **{y: {"factoid": 1 / 3, "list": 1 / 3, "other": 1 / 3,
           "no_list_factoid": 0.5, "no_list_other": 0.5} for y in (2006, 2007)},
}

_FILE_KEYS = {
    "trec-factoid": ("questions", "patterns"),
    "trec-series": ("questions", "nuggets", "pyramid", "list_key", "patterns_factoid",
                    "patterns_list"),
    "qa4mre": ("gold", "runs"),
    "clef-qa": ("questions", "runs"),
    "pan": ("truth", "answers"),
    "score-matrix": ("matrix",),
}
SERIES_PARTS = ("factoid", "list", "other", "other_nuggets")


# --------------------------------------------------------------------------- config

def resolved_campaign(name: str, campaign: dict, base_dir: Path = Path(".")) -> dict:
    """The resolved campaign: ``name``, ``kind``, ``options`` (defaults filled),
    ``judgment_sets`` (names), ``primary`` and ``files`` (sorted path lists,
    relative to the current directory when ``base_dir`` is relative)."""
    if not isinstance(campaign, dict):
        raise ConfigError(f"campaigns.{name}", "is not a mapping", "give the campaign's keys")
    kind = campaign.get("kind")
    if kind not in KINDS:
        raise ConfigError(f"campaigns.{name}.kind", f"unknown or missing kind {kind!r}",
                          f"use one of {', '.join(KINDS)}")
    for key in REQUIRED[kind]:
        if key not in campaign:
            raise ConfigError(f"campaigns.{name}.{key}", f"missing (required for kind {kind})",
                              f"add the key '{key}'")
    prefix = f"campaigns.{name}"
    files: dict[str, Any] = {}
    for key in _FILE_KEYS[kind]:
        if campaign.get(key) is not None:
            files[key] = expand_files(campaign[key], base_dir, f"{prefix}.{key}")
    options: dict[str, Any] = {}
    sets: list[str]
    if kind in ("trec-factoid", "trec-series"):
        js = campaign["judgment_sets"]
        if not isinstance(js, dict) or not js:
            raise ConfigError(f"{prefix}.judgment_sets", "must map judgment set names to files",
                              "e.g. judgment_sets: {adjudicated: runs/*.judged}")
        if "automatic" in js:
            raise ConfigError(f"{prefix}.judgment_sets.automatic",
                              "the name 'automatic' is reserved for pattern judging",
                              "rename the judgment set")
        sets = list(js)
        files["judgment_sets"] = {}
        for set_name, spec in js.items():
            key = f"{prefix}.judgment_sets.{set_name}"
            if kind == "trec-factoid":
                files["judgment_sets"][set_name] = expand_files(spec, base_dir, key)
            else:
                if not isinstance(spec, dict) or not set(spec) <= set(SERIES_PARTS) or not spec:
                    raise ConfigError(key, "must map factoid/list/other/other_nuggets to files",
                                      "e.g. {factoid: j/*.factoid, other: j/*.other}")
                files["judgment_sets"][set_name] = {
                    part: expand_files(sub, base_dir, f"{key}.{part}") for part, sub in spec.items()}
        primary = primary_judgment_set({**campaign, "judgment_sets": js})
        # automatic judging with answer patterns: its own judgment set, `automatic`
        options["autojudge"] = bool(campaign.get("autojudge", False))
        if kind == "trec-series":
            year = campaign["year"]
            if year not in SERIES_WEIGHTS:
                raise ConfigError(f"{prefix}.year", f"year {year!r} is not 2004-2007",
                                  "give the TREC year of the question series")
            options["year"] = year
            options["weights"] = {**SERIES_WEIGHTS[year], **(campaign.get("weights") or {})}
    else:
        primary = primary_judgment_set(campaign)
        sets = [primary]
        if kind == "qa4mre":
            options = {"language": campaign.get("language", "EN"),
                       "main_questions": campaign.get("main_questions", 15),
                       "pass_threshold": campaign.get("pass_threshold", 0.5),
                       "baseline_seed": campaign.get("baseline_seed", 1),
                       "edition": campaign.get("edition")}
        elif kind == "score-matrix":
            options = {"measure": campaign.get("measure", "score")}
    out = {"name": name, "kind": kind, "options": options, "judgment_sets": sets,
           "primary": primary, "files": files}
    if "title" in campaign:
        out["title"] = campaign["title"]
    return out


# --------------------------------------------------------------------------- helpers

class _Acc:
    """Accumulates per-table frames; reports ``progress(done, total)`` per run
    file read (``total`` = the campaign's run files)."""

    def __init__(self, total: int = 0, progress: Callable[[int, int], None] | None = None) -> None:
        self.parts: dict[str, list[pl.DataFrame]] = {t: [] for t in tables.SCHEMAS}
        self.total, self.done, self.progress = total, 0, progress

    def add(self, name: str, df: pl.DataFrame) -> None:
        self.parts[name].append(df)
        if name in ("judgments", "nugget_matches", "matrix") and self.progress is not None:
            self.done = min(self.done + 1, max(self.total - 1, 0))
            self.progress(self.done, self.total)

    def result(self) -> dict[str, pl.DataFrame]:
        out = {}
        for name in tables.SCHEMAS:
            frames = [f for f in self.parts[name] if f.height]
            df = pl.concat(frames, how="vertical") if frames else tables.empty(name)
            out[name] = tables.canonical_order(name, tables.conform(name, df))
        return out


def _line_of(path: str, qid: str, field: int, tab: bool = False) -> int | None:
    """Line number of the first data line of ``path`` whose field ``field`` is ``qid``."""
    for no, line in data_lines(path, comments=not tab):
        parts = line.split("\t") if tab else line.split()
        if len(parts) > field and parts[field].strip() == qid:
            return no
    return None


def _check_known(path: str, responses: pl.DataFrame, known: set[str], what: str,
                 field: int = 0, tab: bool = False) -> None:
    bad = responses.filter(~pl.col("qid").is_in(list(known)))
    if bad.height:
        qid = bad["qid"][0]
        line = _line_of(path, qid, field, tab)
        raise InputError(path, f"line {line}" if line else None,
                         f"question {qid} is not in {what}",
                         "answer only questions of the question set (check the qid, or the "
                         "questions file in the config)")


def _check_run_unique(seen: dict[str, str], run: str, path: str, what: str) -> None:
    if run in seen:
        raise InputError(path, None, f"run '{run}' also comes from {seen[run]} ({what})",
                         "give each run one file per judgment set (check for copies)")
    seen[run] = path


def _first_tag(path: str) -> str:
    for no, line in data_lines(path):
        parts = line.split()
        if len(parts) < 2:
            raise InputError(path, f"line {no}", "expected a qid and a run tag",
                             "check the file against docs/formats.md")
        return parts[1]
    raise InputError(path, None, "the file has no data lines", "give the file its content")


def _first_qid(path: str) -> str | None:
    for _no, line in data_lines(path):
        return line.split()[0]
    return None


def _is_xml(path: str) -> bool:
    name = path.lower()
    if name.endswith(".xml") or name.endswith(".xml.gz"):
        return True
    head = read_bytes(path)[:200].lstrip()
    return head.startswith(b"<?xml") or head.startswith(b"<!DOCTYPE")


def _compare_sets(primary: str, name: str, path: str, prim: pl.DataFrame,
                  other: pl.DataFrame) -> None:
    """``other`` (one run's judgments in set ``name``) must cover exactly the
    primary set's responses of that run."""
    keys = ["qid", "item"]
    a = prim.select(keys)
    b = other.select(keys)
    extra = b.join(a, on=keys, how="anti")
    missing = a.join(b, on=keys, how="anti")
    if extra.height or missing.height:
        if extra.height:
            detail = (f"it judges question {extra['qid'][0]} item {extra['item'][0]}, "
                      f"which the primary set '{primary}' does not have")
        else:
            detail = (f"it lacks question {missing['qid'][0]} item {missing['item'][0]} "
                      f"of the primary set '{primary}'")
        raise InputError(path, None, f"judgment set '{name}' does not judge the same "
                         f"responses as the primary set: {detail}",
                         "give every judgment set the same run responses (only the "
                         "judgments may differ)")


def _judged_sets(resolved: dict, acc: _Acc, known: set[str], read_files) -> None:
    """Read every judgment set's files via ``read_files(set_name, spec)``, which
    yields ``(part, path, responses, judgments)``; responses are kept from the
    primary set only, and every other set must judge exactly those responses."""
    primary = resolved["primary"]
    per_set: dict[str, dict[tuple[str, str], pl.DataFrame]] = {}
    where: dict[tuple[str, str, str], str] = {}
    for set_name, spec in resolved["files"]["judgment_sets"].items():
        per_set[set_name] = {}
        for part, path, resp, judg in read_files(set_name, spec):
            if resp.height == 0:
                continue
            run = resp["run"][0]
            key = (part, run)
            if key in per_set[set_name]:
                raise InputError(path, None,
                                 f"run '{run}' also comes from {where[(set_name, part, run)]} "
                                 f"(judgment set '{set_name}')",
                                 "give each run one file per judgment set")
            where[(set_name, part, run)] = path
            _check_known(path, resp, known, "the question set")
            per_set[set_name][key] = resp
            if set_name == primary:
                acc.add("responses", resp)
            if judg is not None:
                acc.add("judgments", judg)
    prim = per_set[primary]
    for set_name, runs in per_set.items():
        if set_name == primary:
            continue
        for key, resp in runs.items():
            path = where[(set_name, *key)]
            if key not in prim:
                raise InputError(path, None, f"run '{key[1]}' ({key[0]}) of judgment set "
                                 f"'{set_name}' is not in the primary set '{primary}'",
                                 "judge the same runs in every judgment set")
            _compare_sets(primary, set_name, path, prim[key], resp)
        for key in prim:
            if key not in runs:
                raise InputError(where[(primary, *key)], None,
                                 f"run '{key[1]}' ({key[0]}) has no file in judgment set "
                                 f"'{set_name}'",
                                 "judge the same runs in every judgment set")


# --------------------------------------------------------------------------- kinds

def _trec_factoid(resolved: dict, acc: _Acc) -> None:
    files = resolved["files"]
    qframes = []
    for path in files["questions"]:
        if _is_xml(path):
            q = trec_questions.read_series_xml(path)
        else:
            qtype = "LIST" if "list" in Path(path).name.lower() else "FACTOID"
            q = trec_questions.read_top_questions(path, qtype)
        qframes.append((path, q))
    questions = _merge_questions(qframes)
    acc.add("questions", questions)
    known = set(questions["qid"].to_list())
    qtypes = dict(questions.select("qid", "qtype").iter_rows())

    def read_files(set_name, paths):
        for path in paths:
            qid = _first_qid(path)
            if qtypes.get(qid) == "LIST":
                resp, judg = trec_runs.read_judged_list(path, set_name)
                yield "list", path, resp, judg
            else:
                resp, judg = trec_runs.read_judged_factoid(path, set_name)
                yield "factoid", path, resp, judg

    _judged_sets(resolved, acc, known, read_files)
    for path in files.get("patterns", []):
        acc.add("patterns", answer_keys.read_patterns(path))


def _merge_questions(qframes: list[tuple[str, pl.DataFrame]]) -> pl.DataFrame:
    seen: dict[str, str] = {}
    out = []
    offset = 0
    for path, q in qframes:
        for qid in q["qid"].to_list():
            if qid in seen:
                raise InputError(path, None, f"question {qid} is also in {seen[qid]}",
                                 "give every question file its own question ids")
            seen[qid] = path
        out.append(q.with_columns((pl.col("position") + offset).cast(pl.Int32)))
        offset += q.height
    return pl.concat(out)


def _trec_series(resolved: dict, acc: _Acc) -> None:
    files = resolved["files"]
    if len(files["questions"]) != 1:
        raise ConfigError(f"campaigns.{resolved['name']}.questions",
                          "trec-series takes exactly one series XML file", "name one file")
    questions = trec_questions.read_series_xml(files["questions"][0])
    acc.add("questions", questions)
    known = set(questions["qid"].to_list())
    nuggets = _series_nuggets(files)
    if nuggets is not None:
        acc.add("nuggets", nuggets)
        nugget_keys = nuggets.select("qid", "nugget")
    else:
        nugget_keys = None

    def read_files(set_name, spec):
        for path in spec.get("factoid", []):
            resp, judg = trec_runs.read_judged_factoid(path, set_name)
            yield "factoid", path, resp, judg
        for path in spec.get("list", []):
            resp, judg = trec_runs.read_judged_list(path, set_name)
            yield "list", path, resp, judg
        twos: dict[str, str] = {}
        for path in spec.get("other_nuggets", []):
            tag = _first_tag(path)
            if tag in twos:
                raise InputError(path, None, f"run '{tag}' also comes from {twos[tag]} "
                                 f"(judgment set '{set_name}', other_nuggets)",
                                 "give each run one part-two file")
            twos[tag] = path
        used: set[str] = set()
        for path in spec.get("other", []):
            tag = _first_tag(path)
            two = twos.get(tag)
            if two is None:
                resp, _ = trec_runs.read_judged_other(path, path, set_name)
                matches = tables.empty("nugget_matches")
            else:
                used.add(tag)
                resp, matches = trec_runs.read_judged_other(path, two, set_name)
                _check_matches(two, matches, nugget_keys)
            acc.add("nugget_matches", matches)
            yield "other", path, resp, None
        for tag, path in twos.items():
            if tag not in used:
                raise InputError(path, None, f"part-two file of run '{tag}' has no part-one "
                                 f"file in judgment set '{set_name}'",
                                 "list the run's part-one file under `other`")

    _judged_sets(resolved, acc, known, read_files)
    if files.get("list_key"):
        acc.add("list_key", answer_keys.read_list_key(files["list_key"][0]))
    for key in ("patterns_factoid", "patterns_list"):
        for path in files.get(key, []):
            acc.add("patterns", answer_keys.read_patterns(path))


def _check_matches(path: str, matches: pl.DataFrame, nugget_keys: pl.DataFrame | None) -> None:
    if nugget_keys is None or matches.height == 0:
        return
    bad = matches.join(nugget_keys, on=["qid", "nugget"], how="anti")
    if bad.height:
        qid, nug = bad["qid"][0], bad["nugget"][0]
        line = None
        for no, text in data_lines(path):
            parts = text.split()
            if len(parts) >= 4 and parts[0] == qid and parts[3] == nug:
                line = no
                break
        raise InputError(path, f"line {line}" if line else None,
                         f"nugget {nug} of question {qid} is not in the nugget list",
                         "name nuggets by their number in the nugget list")


def _series_nuggets(files: dict) -> pl.DataFrame | None:
    nug = answer_keys.read_nuggets(files["nuggets"][0]) if files.get("nuggets") else None
    pyr = answer_keys.read_pyramid(files["pyramid"][0]) if files.get("pyramid") else None
    if nug is None or pyr is None:
        return nug if pyr is None else pyr
    keys = ["qid", "nugget"]
    for a, b, path in ((pyr, nug, files["pyramid"][0]), (nug, pyr, files["nuggets"][0])):
        extra = a.join(b, on=keys, how="anti")
        if extra.height:
            raise InputError(path, None, f"nugget {extra['qid'][0]} {extra['nugget'][0]} is "
                             "in only one of the nugget list and the pyramid file",
                             "give the nugget list and the pyramid file of the same year")
    return nug.drop("weight").join(pyr.select(*keys, "weight"), on=keys, how="left")


def _qa4mre(resolved: dict, acc: _Acc) -> None:
    opts = resolved["options"]
    gold = resolved["files"]["gold"]
    if len(gold) != 1:
        raise ConfigError(f"campaigns.{resolved['name']}.gold", "must name one file",
                          "give the gold standard XML")
    questions, options = qa4mre.read_gold(gold[0], opts["main_questions"], opts["language"])
    acc.add("questions", questions)
    acc.add("options", options)
    seen: dict[str, str] = {}
    for path in resolved["files"]["runs"]:
        resp, judg = qa4mre.read_run(path, questions, options)
        _check_run_unique(seen, resp["run"][0], path, "run_id")
        acc.add("responses", resp)
        acc.add("judgments", judg)


def _clef(resolved: dict, acc: _Acc) -> None:
    qpaths = resolved["files"]["questions"]
    questions = _merge_questions([(p, clef.read_questions(p)) for p in qpaths])
    acc.add("questions", questions)
    known = set(questions["qid"].to_list())
    seen: dict[str, str] = {}
    for path in resolved["files"]["runs"]:
        resp, judg = clef.read_run(path)
        _check_run_unique(seen, resp["run"][0], path, "run column")
        _check_known(path, resp, known, "the question set", field=1, tab=True)
        acc.add("responses", resp)
        acc.add("judgments", judg)


def _pan(resolved: dict, acc: _Acc) -> None:
    truth = resolved["files"]["truth"]
    if len(truth) != 1:
        raise ConfigError(f"campaigns.{resolved['name']}.truth", "must name one file",
                          "give the truth.jsonl file")
    questions, options = pan.read_truth(truth[0])
    acc.add("questions", questions)
    acc.add("options", options)
    seen: dict[str, str] = {}
    for path in resolved["files"]["answers"]:
        resp, judg = pan.read_answers(path, questions, options)
        _check_run_unique(seen, Path(path).resolve().parent.name, path,
                          "runs are named by the answers file's folder")
        acc.add("responses", resp)
        acc.add("judgments", judg)


def _score_matrix(resolved: dict, acc: _Acc) -> None:
    paths = resolved["files"]["matrix"]
    if len(paths) != 1:
        raise ConfigError(f"campaigns.{resolved['name']}.matrix", "must name one file",
                          "give one CSV or Parquet score matrix")
    acc.add("matrix", matrix.read_matrix(paths[0]))


_KIND_READERS = {"trec-factoid": _trec_factoid, "trec-series": _trec_series, "qa4mre": _qa4mre,
                 "clef-qa": _clef, "pan": _pan, "score-matrix": _score_matrix}


def _run_file_count(files: dict) -> int:
    n = sum(len(files.get(k, [])) for k in ("runs", "answers", "matrix"))
    for spec in (files.get("judgment_sets") or {}).values():
        parts = spec.values() if isinstance(spec, dict) else [spec]
        n += sum(len(v) for v in parts)
    return n


def ingest_campaign(name: str, campaign: dict, base_dir: Path = Path("."),
                    progress: Callable[[int, int], None] | None = None) -> dict[str, pl.DataFrame]:
    """Read one campaign's raw files -> every table of ``tables.SCHEMAS``
    (conformed, canonical order; empty frames for tables the kind lacks).
    ``progress(done, total)`` is called after each run file is read."""
    resolved = resolved_campaign(name, campaign, Path(base_dir))
    acc = _Acc(_run_file_count(resolved["files"]), progress)
    _KIND_READERS[resolved["kind"]](resolved, acc)
    if progress is not None:
        progress(acc.total, acc.total)
    return acc.result()


# --------------------------------------------------------------------------- writing

def write_ingest(tabs: dict[str, pl.DataFrame], resolved: dict, outdir: str | Path) -> None:
    """Write ``<outdir>/<table>.parquet`` for every canonical table and
    ``<outdir>/campaign.json`` (sorted keys, indent 2).

    Everything is written into a temporary sibling directory that is renamed
    onto ``outdir`` at the end, so a failure leaves no partial ``outdir``
    (an existing ``outdir`` is replaced only on success).
    """
    outdir = Path(outdir)
    outdir.parent.mkdir(parents=True, exist_ok=True)
    # folders an earlier writer left when it was killed (SIGKILL skips the cleanup below)
    for stale in outdir.parent.glob(f".{outdir.name}.*"):
        if stale.is_dir() and stale.suffix in (".tmp", ".old"):
            shutil.rmtree(stale, ignore_errors=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.", suffix=".tmp", dir=outdir.parent))
    try:
        for name in tables.SCHEMAS:
            df = tabs.get(name)
            df = tables.empty(name) if df is None else tables.conform(name, df)
            write_parquet(tables.canonical_order(name, df), tmp / f"{name}.parquet")
        write_text(json.dumps(resolved, sort_keys=True, indent=2) + "\n", tmp / "campaign.json")
        old = None
        if outdir.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{outdir.name}.", suffix=".old",
                                        dir=outdir.parent))
            os.replace(outdir, old / outdir.name)
        os.replace(tmp, outdir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            shutil.rmtree(tmp)
        raise


__all__ = ["ingest_campaign", "resolved_campaign", "write_ingest", "SERIES_WEIGHTS"]
