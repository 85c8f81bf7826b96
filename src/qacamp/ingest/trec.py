"""TREC kinds: trec-factoid (2002-2003 ``<top>`` files or series XML, judged
factoid and list runs; TREC 2003 definition questions with their nugget list
and judged definition runs) and trec-series (2004-2007 series XML, judged
factoid, list and Other runs, nugget lists, list keys)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import polars as pl

from ..errors import ConfigError, InputError
from ..ordered import in_order
from ..readers import answer_keys, trec_questions, trec_runs
from ..readers._text import data_lines, first_data_line, iter_lines, read_bytes
from ..readers._words import end_of_file
from ..tables import empty
from .checks import PART_QTYPES, Acc, first_place, judged_sets, line_of, line_of_item, word_place

Where = dict[tuple[str, str, str], str]


def _first_tag(path: str) -> str:
    first = first_data_line(path)
    if first is None:
        raise InputError(path, end_of_file(path), "the file has no data lines",
                         "give the file its content")
    no, line = first
    parts = line.split()
    if len(parts) < 2:
        raise InputError(path, f"line {no}", "expected a qid and a run tag",
                         "check the file against docs/formats.md")
    return parts[1]


def _first_qid(path: str) -> str | None:
    first = first_data_line(path)
    return first[1].split()[0] if first is not None else None


def _is_xml(path: str) -> bool:
    name = path.lower()
    if name.endswith(".xml") or name.endswith(".xml.gz"):
        return True
    head = read_bytes(path)[:200].lstrip()
    return head.startswith(b"<?xml") or head.startswith(b"<!DOCTYPE")


def _one(resolved: dict, key: str, what: str) -> str | None:
    paths = resolved["files"].get(key) or []
    if len(paths) > 1:
        raise ConfigError(f"campaigns.{resolved['name']}.{key}",
                          f"names {len(paths)} files", f"give one {what}")
    return paths[0] if paths else None


def merge_questions(qframes: list[tuple[str, pl.DataFrame]]) -> pl.DataFrame:
    """Concatenate question files (positions continue); a qid in two files is an error."""
    seen: dict[str, str] = {}
    out = []
    offset = 0
    for path, q in qframes:
        for qid in q["qid"].to_list():
            if qid in seen:
                raise InputError(path, word_place(path, qid), f"question {qid} is also in {seen[qid]}",
                                 "give every question file its own question ids")
            seen[qid] = path
        out.append(q.with_columns((pl.col("position") + offset).cast(pl.Int32)))
        offset += q.height
    return pl.concat(out)


def _key_qids(path: str, key: pl.DataFrame, qtypes: dict[str, str], want: str | tuple[str, ...],
              what: str) -> None:
    """Every question an answer key (or pattern file) names is a ``want``
    question of the set (a key for unknown questions would be silently unused)."""
    wanted = (want,) if isinstance(want, str) else want
    bad = [q for q in key["qid"].unique(maintain_order=True).to_list()
           if qtypes.get(q) not in wanted]
    if not bad:
        return
    want = " or ".join(wanted)
    qid = bad[0]
    line = None
    for no, text in iter_lines(path):
        fields = text.replace(":", " ").replace("#", " # ").split()
        if qid in fields[:3]:
            line = no
            break
    found = f"a {qtypes[qid]} question" if qid in qtypes else "not in the question set"
    raise InputError(path, f"line {line}" if line else None,
                     f"the {what} lists question {qid}, which is {found}",
                     f"give the {what} of the same year as the questions (it may only name "
                     f"{want} questions)")


def _distinct_within_key(acc: Acc, where: Where, key_path: str, key: pl.DataFrame) -> None:
    """No judged list run marks more right, distinct instances of a question
    than the answer key holds: the key is NIST's final answer set, "compiled
    from the union of the correct responses across all runs plus the instances
    the assessor found" (Voorhees 2005), so D <= S and list recall <= 1."""
    s = key.group_by("qid").agg(pl.len().alias("S"))
    marked = (acc.marked().join(s, on="qid").sort("judgment_set", "run", "qid", "item")
              .with_columns(pl.int_range(1, pl.len() + 1).over("judgment_set", "run", "qid")
                            .alias("D")))
    over = marked.filter(pl.col("D") > pl.col("S"))
    if not over.height:
        return
    row = over.row(0, named=True)
    path = where.get((row["judgment_set"], "list", row["run"]), key_path)
    line = line_of_item(path, "list", row["qid"], row["item"]) if path != key_path else None
    raise InputError(path, f"line {line}" if line else None,
                     f"run '{row['run']}' marks more than {row['S']} right instances of question "
                     f"{row['qid']} distinct, but the list answer key ({key_path}) holds "
                     f"{row['S']}: list recall would exceed 1",
                     "check the distinct flags (one per instance), or give the answer key "
                     "that holds every instance judged right")


# --------------------------------------------------------------------------- trec-factoid

def trec_factoid(resolved: dict, acc: Acc) -> Where:
    files = resolved["files"]
    qframes = []
    for path in files["questions"]:
        if _is_xml(path):
            q = trec_questions.read_series_xml(path)
        else:
            qtype = "LIST" if "list" in Path(path).name.lower() else "FACTOID"
            q = trec_questions.read_top_questions(path, qtype)
        qframes.append((path, q))
    questions = merge_questions(qframes)
    acc.add("questions", questions)
    qtypes = dict(questions.select("qid", "qtype").iter_rows())

    codes = resolved["options"].get("judgment_codes")
    ranked = resolved["options"].get("run_format") == "ranked"
    _check_definitions(resolved, questions)
    nugget_keys = None
    npath = _one(resolved, "nuggets", "nugget list")
    if npath is not None:  # TREC 2003: the definition questions' nugget list
        nuggets = answer_keys.read_nuggets(npath)
        _key_qids(npath, nuggets, qtypes, "DEFINITION", "nugget list")
        acc.add("nuggets", nuggets)
        nugget_keys = nuggets.select("qid", "nugget")

    # a NIST judged list run among the factoid files is told by its first
    # question (a scan of the file: only when some question is a list question)
    lists = "LIST" in qtypes.values()

    def read_files(set_name, spec):
        def factoid(path):
            if lists and qtypes.get(_first_qid(path)) == "LIST":
                return "list", *trec_runs.read_judged_list(path, set_name, codes)
            return "factoid", *trec_runs.read_judged_factoid(path, set_name, codes, ranked)

        jobs = [(path, lambda p=path: factoid(p)) for path in spec.get("factoid", [])]
        jobs += [(path, lambda p=path: ("list", *trec_runs.read_judged_list(p, set_name, codes)))
                 for path in spec.get("list", [])]
        yield from _read_in_order(jobs, acc.threads)
        yield from _other_files(acc, set_name, spec, nugget_keys, "definition")

    where = judged_sets(resolved, acc, questions, read_files)
    key = _one(resolved, "list_key", "list answer key")
    has_list = any(part == "list" for (_s, part, _r) in where)
    if has_list and key is None and "list" not in resolved["options"]["skip"]:
        raise ConfigError(f"campaigns.{resolved['name']}.list_key",
                          "the judged runs include list runs but no list answer key is given "
                          "(list recall needs the known instances)",
                          "give list_key (the trecNNanswers_list file), or add skip: [list] to "
                          "leave the list measures out")
    if key is not None:
        lk = answer_keys.read_list_key(key)
        _key_qids(key, lk, qtypes, "LIST", "list answer key")
        _distinct_within_key(acc, where, key, lk)
        acc.add("list_key", lk)
    for path in files.get("patterns", []):
        pats = answer_keys.read_patterns(path)
        _key_qids(path, pats, qtypes, ("FACTOID", "LIST"), "answer pattern file")
        acc.add("patterns", pats)
    return where


def _check_definitions(resolved: dict, questions: pl.DataFrame) -> None:
    """TREC 2003 definition questions need the nugget list and judged definition
    runs (part one and part two) in the primary set, unless ``skip: [definition]``:
    never scored as factoids, never silently dropped."""
    n = questions.filter(pl.col("qtype") == "DEFINITION").height
    if not n or "definition" in resolved["options"]["skip"]:
        return
    files, prefix = resolved["files"], f"campaigns.{resolved['name']}"
    fix = "add skip: [definition] to leave the definition questions out of every score"
    if not files.get("nuggets"):
        raise ConfigError(f"{prefix}.nuggets", f"the questions include {n} DEFINITION "
                          "questions but no nugget list is given",
                          f"give nuggets (the definition nugget list, e.g. "
                          f"trec12answers_definition), or {fix}")
    for set_name, spec in files["judgment_sets"].items():
        for need in ("definition", "definition_nuggets"):
            if (set_name == resolved["primary"] or spec.get("definition")) \
                    and not spec.get(need):
                raise ConfigError(f"{prefix}.judgment_sets.{set_name}.{need}",
                                  f"the questions include {n} DEFINITION questions but "
                                  f"judgment set '{set_name}' has no {need} files",
                                  f"give the judged {need} files (docs/formats.md, judged "
                                  f"definition runs), or {fix}")


# --------------------------------------------------------------------------- trec-series

def _check_needs(resolved: dict, questions: pl.DataFrame) -> None:
    """Every question type present needs its answer key and judged files in the
    primary set, unless the campaign skips it explicitly (``skip:``): a missing
    component is never silently left out of (renormalised in) the series score."""
    files, prefix = resolved["files"], f"campaigns.{resolved['name']}"
    primary = resolved["primary"]
    skip = set(resolved["options"]["skip"])
    counts = dict(questions["qtype"].value_counts().iter_rows())
    for part, qtype in PART_QTYPES.items():
        n = counts.get(qtype, 0)
        if not n or part in skip:
            continue
        fix = f"add skip: [{part}] to leave the {part} component out of every score"
        if part == "list" and not files.get("list_key"):
            raise ConfigError(f"{prefix}.list_key", f"the questions include {n} LIST questions "
                              "but no list answer key is given", f"give list_key, or {fix}")
        if part == "other" and not (files.get("nuggets") or files.get("pyramid")):
            raise ConfigError(f"{prefix}.nuggets", f"the questions include {n} OTHER questions "
                              "but no nugget list (or pyramid file) is given",
                              f"give nuggets (or pyramid), or {fix}")
        for need in ("other", "other_nuggets") if part == "other" else (part,):
            for set_name, spec in files["judgment_sets"].items():
                if set_name == primary or (need == "other_nuggets" and spec.get("other")):
                    if not spec.get(need):
                        raise ConfigError(f"{prefix}.judgment_sets.{set_name}.{need}",
                                          f"the questions include {n} {qtype} questions but "
                                          f"judgment set '{set_name}' has no {need} files",
                                          f"give the judged {need} files, or {fix}")


def _series_nuggets(resolved: dict) -> pl.DataFrame | None:
    npath = _one(resolved, "nuggets", "nugget list")
    ppath = _one(resolved, "pyramid", "pyramid file")
    nug = answer_keys.read_nuggets(npath) if npath else None
    pyr = answer_keys.read_pyramid(ppath) if ppath else None
    if nug is None or pyr is None:
        return nug if pyr is None else pyr
    keys = ["qid", "nugget"]
    for a, b, path in ((pyr, nug, ppath), (nug, pyr, npath)):
        extra = a.join(b, on=keys, how="anti")
        if extra.height:
            qid, nug = extra["qid"][0], extra["nugget"][0]
            line = next((no for no, text in data_lines(path) if text.split()[:2] == [qid, nug]),
                        None)
            raise InputError(path, f"line {line}" if line else None, f"nugget {qid} {nug} is "
                             "in only one of the nugget list and the pyramid file",
                             "give the nugget list and the pyramid file of the same year")
    return nug.drop("weight").join(pyr.select(*keys, "weight"), on=keys, how="left")


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


def trec_series(resolved: dict, acc: Acc) -> Where:
    files = resolved["files"]
    if len(files["questions"]) != 1:
        raise ConfigError(f"campaigns.{resolved['name']}.questions",
                          "trec-series takes exactly one series XML file", "name one file")
    questions = trec_questions.read_series_xml(files["questions"][0])
    acc.add("questions", questions)
    qtypes = dict(questions.select("qid", "qtype").iter_rows())
    _check_needs(resolved, questions)
    nuggets = _series_nuggets(resolved)
    nugget_keys = None
    if nuggets is not None:
        _key_qids(_one(resolved, "nuggets", "") or _one(resolved, "pyramid", ""), nuggets,
                  qtypes, "OTHER", "nugget list")
        acc.add("nuggets", nuggets)
        nugget_keys = nuggets.select("qid", "nugget")

    codes = resolved["options"].get("judgment_codes")

    def read_files(set_name, spec):
        jobs = [(path, lambda p=path: ("factoid",
                                       *trec_runs.read_judged_factoid(p, set_name, codes)))
                for path in spec.get("factoid", [])]
        jobs += [(path, lambda p=path: ("list", *trec_runs.read_judged_list(p, set_name, codes)))
                 for path in spec.get("list", [])]
        yield from _read_in_order(jobs, acc.threads)
        yield from _other_files(acc, set_name, spec, nugget_keys)

    where = judged_sets(resolved, acc, questions, read_files)
    key = _one(resolved, "list_key", "list answer key")
    if key is not None:
        lk = answer_keys.read_list_key(key)
        _key_qids(key, lk, qtypes, "LIST", "list answer key")
        _distinct_within_key(acc, where, key, lk)
        acc.add("list_key", lk)
    for name, want in (("patterns_factoid", "FACTOID"), ("patterns_list", "LIST")):
        for path in files.get(name, []):
            pats = answer_keys.read_patterns(path)
            _key_qids(path, pats, qtypes, want, f"{name.replace('_', ' ')} file")
            acc.add("patterns", pats)
    return where


def _read_in_order(jobs: list[tuple[str, Callable[[], tuple]]],
                   threads: int | None) -> Iterator[tuple]:
    """``(part, path, responses, judgments)`` of each ``(path, read)`` job in
    order, the files read ahead in ``threads`` threads (:func:`qacamp.ordered.in_order`: the
    same tables and the same first error as reading them one by one)."""
    for (path, _read), result in zip(jobs, in_order((read for _path, read in jobs), threads),
                                  strict=True):
        part, resp, judg = result()
        yield part, path, resp, judg


def _other_files(acc: Acc, set_name: str, spec: dict, nugget_keys: pl.DataFrame | None,
                 part: str = "other"):
    """Judged Other (or TREC 2003 definition, ``part="definition"``) runs:
    part-two files (``<part>_nuggets``) pair with part-one files by run tag."""
    twos: dict[str, str] = {}
    for path in spec.get(f"{part}_nuggets", []):
        tag = _first_tag(path)
        if tag in twos:
            raise InputError(path, first_place(path), f"run '{tag}' also comes from {twos[tag]} "
                             f"(judgment set '{set_name}', {part}_nuggets)",
                             "give each run one part-two file")
        twos[tag] = path
    used: set[str] = set()
    for path in spec.get(part, []):
        tag = _first_tag(path)
        two = twos.get(tag)
        if two is None:
            resp, _ = trec_runs.read_judged_other(path, None, set_name)
            matches = empty("nugget_matches")
            if spec.get(f"{part}_nuggets"):
                acc.warn(path, "line 1", "other-no-part-two",
                         f"run '{tag}' has no part-two file in judgment set '{set_name}': no "
                         f"nugget counts as found in its {part} responses (they score 0)")
        else:
            used.add(tag)
            resp, matches = trec_runs.read_judged_other(path, two, set_name)
            _check_matches(two, matches, nugget_keys)
        acc.add("nugget_matches", matches)
        yield part, path, resp, None
    for tag, path in twos.items():
        if tag not in used:
            raise InputError(path, first_place(path), f"part-two file of run '{tag}' has no part-one "
                             f"file in judgment set '{set_name}'",
                             f"list the run's part-one file under `{part}`")


__all__ = ["trec_factoid", "trec_series", "merge_questions", "line_of"]
