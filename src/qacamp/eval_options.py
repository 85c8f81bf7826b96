"""The options of ``qacamp eval KIND`` and ``qacamp.evaluate(KIND, ...)``: one
spec, the campaign config they describe, and the checks of both.

The spec is the kind's own options (:attr:`qacamp.kinds.Kind.eval_options`)
and the options every kind shares (:func:`common_options`), as ``argparse``
keywords.  The command line registers them; ``qacamp.evaluate`` takes the same
options as keywords (:func:`python_arguments`: the option's name, ``-m`` as
``measures``, ``-q`` as ``per_question``, ``--judgment-code`` as
``judgment_codes``), each checked by :func:`qacamp.arguments.python_value`
(exact types) and refused with the command line's message.  A keyword that
is no option of the kind (``year=2004`` for clef-qa) is refused, never
ignored.

Both then build the campaign config ``qacamp ingest`` reads
(:func:`campaign_config`), whose files are checked here first, naming the
option (``--questions: 'q.tsv': no such file``), and whose other errors name
the option and the campaign key (:func:`option_of`).
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from .arguments import is_path, python_value
from .errors import UsageError, printable
from .kinds import KINDS, EvalOption, Kind

#: Campaign name of the config built from the options.
NAME = "eval"
#: Options that are campaign config keys as they are (left unset: the preset's
#: or the kind's default).
PASSED_KEYS = ("preset", "year", "main_questions", "language", "pass_threshold", "pass_rule",
               "test_std_ddof", "baseline_seed", "edition", "pan_evaluator", "beta", "max_rank",
               "other_score", "run_format", "min_coverage")
#: an option's name in Python where it differs from the command line's
PYTHON_NAMES = {"measure": "measures", "q": "per_question", "judgment_code": "judgment_codes"}
#: options of the command line only (how it prints)
CLI_ONLY = ("precision", "format")


def common_options(kind: Kind) -> tuple[EvalOption, ...]:
    """The options of ``qacamp eval`` that every kind has."""
    from .presets import PRESETS

    presets = [n for n, pr in PRESETS.items() if kind.name in pr.kinds]
    return (
        (("-m", "--measure"), {"action": "append", "default": None, "metavar": "NAME",
                               "help": "measure to print (repeatable; default all): "
                                       + ", ".join(kind.measures)}),
        (("-q",), {"action": "store_true",
                   "help": "also print per-unit rows: per question for every measure that "
                           "has a per-question value (stderr names those that do not), and per "
                           "question type, series, topic and reading test"}),
        (("--baselines",), {"action": "store_true",
                            "help": "also print the pipeline's baseline runs (baseline:*), "
                                    "after the participants' runs"}),
        (("--judgment-set",), {"default": None, "metavar": "NAME",
                               "help": "judgment set to print (default: the primary one)"}),
        (("--min-coverage",), {"type": float, "default": None, "metavar": "SHARE",
                               "help": "warn about runs answering fewer than this share of "
                                       "their questions (campaign key min_coverage; default "
                                       "0.9)"}),
        *([(("--preset",), {"default": None, "choices": presets,
                            "help": "the campaign's method parameters as its paper set them "
                                    "(campaign key preset; docs/presets.md)"})]
          if presets else []),
        (("--format",), {"default": "tsv", "choices": ("tsv", "trec"),
                         "help": "tsv (default): a header line and run, measure, scope, unit, "
                                 "value rows; trec: trec_eval's measure<TAB>run<TAB>value lines "
                                 "of the overall scores, no header"}),
        (("--precision",), {"default": "4", "metavar": "DIGITS|full",
                            "help": "decimals printed (default 4); 'full' prints every value "
                                    "exactly as stored (shortest repr that reads back to the "
                                    "same float)"}),
    )


def dest(flags: tuple[str, ...]) -> str:
    """The option's name as ``argparse`` stores it (``--list-key``: ``list_key``)."""
    name = next((f for f in flags if f.startswith("--")), flags[0])
    return name.lstrip("-").replace("-", "_")


def eval_kind(kind: object) -> Kind:
    """The record of an evaluable kind, else a usage error listing them."""
    if isinstance(kind, str) and kind in KINDS and KINDS[kind].eval_help is not None:
        return KINDS[kind]
    raise UsageError(f"evaluate: kind {kind!r} is not one of "
                     + ", ".join(x.name for x in KINDS.values() if x.eval_help))


def python_options(kind: Kind) -> dict[str, tuple[str, Mapping[str, Any]]]:
    """Python name -> (the command line's name, ``argparse`` keywords) of every
    option ``qacamp.evaluate`` takes for ``kind``."""
    out = {}
    for flags, spec in (*kind.eval_options, *common_options(kind)):
        name = dest(flags)
        if name in CLI_ONLY:
            continue
        shown = flags[0] if flags[0].startswith("-") else f"the {spec.get('metavar', name)} " \
            "arguments"
        out[PYTHON_NAMES.get(name, name)] = (shown, spec)
    return out


def _path_keys(kind: Kind) -> set[str]:
    return {*kind.path_keys, kind.questions_key, "runs",
            *(p for p in kind.judgment_parts if p != kind.plain_part)}


def python_arguments(kind: Kind, given: Mapping[str, Any]) -> dict[str, Any]:
    """The keywords of ``qacamp.evaluate`` checked by the options' spec: the
    values ``argparse`` would have made of the same options' text (None: not
    given).  A keyword that is no option of the kind is refused."""
    spec = python_options(kind)
    unknown = sorted(k for k, v in given.items() if k not in spec
                     and not (k == "runs" and isinstance(v, list | tuple) and not v))
    if unknown:
        hint = "" if "runs" not in unknown else (
            f" ({kind.name} takes its judged runs by part: "
            + ", ".join(f"{p}=[...]" for p in kind.judgment_parts) + ")")
        raise UsageError(f"evaluate {kind.name}: unknown option(s) {', '.join(unknown)}; "
                         f"allowed: {', '.join(spec)}{hint}")
    paths = _path_keys(kind)
    out: dict[str, Any] = {}
    for key, value in given.items():
        if key not in spec:
            continue
        shown, keywords = spec[key]
        if key == "judgment_codes":
            out[key] = _codes(shown, value)
            continue
        if value is None and key != "runs":
            continue  # not given: the default
        many = keywords.get("action") == "append" or keywords.get("nargs") in ("+", "*")
        if key in paths and many and is_path(value):
            value = [value]  # one file for a list of files
        out[key] = python_value(shown, keywords, value, paths=key in paths)
    return out


def _codes(shown: str, value: Any) -> dict[str, str] | None:
    """``judgment_codes={"4": "L"}``: ``--judgment-code 4=L``."""
    if value is None:
        return None
    if not isinstance(value, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        raise UsageError(f"{shown}: {value!r} is not a mapping of raw codes to codes (give e.g. "
                         "{'4': 'L'})")
    return dict(value)


def check_measures(kind: Kind, measures: Iterable[str]) -> list[str]:
    """The measures asked for, each one of the kind's; a measure of other kinds
    is named as such ("not a qa4mre measure")."""
    names = list(measures)
    for m in names:
        if m in kind.measures:
            continue
        others = [k.name for k in KINDS.values() if m in k.measures]
        what = (f"not a {kind.name} measure (it is a measure of {' and '.join(others)})" if others
                else "unknown measure")
        raise UsageError(f"-m {m}: {what}; the {kind.name} measures are "
                         + ", ".join(kind.measures))
    return names


def option_of(key: str) -> str:
    """The option behind config key ``campaigns.eval.<key>``."""
    key = key.removeprefix(f"campaigns.{NAME}").lstrip(".")
    if key.startswith("judgment_sets"):
        part = key.split(".")[2] if key.count(".") >= 2 else None
        return f"--{part.replace('_', '-')}" if part else "the judged run arguments"
    special = {"runs": "the RUN arguments", "answers": "the ANSWERS arguments",
               "autojudge": "--patterns", "primary": "--set-name", "judgment_codes":
               "--judgment-code", "": "the options"}
    return special.get(key, f"--{key.replace('_', '-')}")


def check_files(key: str, paths: Iterable[str | os.PathLike]) -> list[str]:
    """Each path names an existing file (checked here, so that the error names
    the option and the current folder, not the campaign key and its glob);
    returned as the config's literal (escaped) patterns."""
    out = []
    for p in paths:
        text = os.fspath(p)
        if not os.path.exists(text):
            shown = printable(text)
            if os.path.lexists(text):
                raise UsageError(f"{option_of(key)}: '{shown}' is a symbolic link to no readable "
                                 "file (its target is missing, or it links to itself). Fix: "
                                 "give the file itself")
            raise UsageError(f"{option_of(key)}: '{shown}': no such file (a relative path is "
                             f"read from the current folder, {printable(os.getcwd())}). Fix: "
                             "check the path")
        out.append(glob.escape(text))  # the config's paths are globs: this one is literal
    return out


def campaign_config(kind: str, runs: Iterable[str | Path] = (), *,
                    set_name: str = "adjudicated", judgment_codes: dict | None = None,
                    skip: Iterable[str] | None = None, **options) -> dict:
    """The campaign config (the keys of ``qacamp ingest``) of checked options
    (:func:`python_arguments`, or the parsed command line) for ``kind``: the
    runs and the kind's files (``gold``, ``truth``, ``questions``, answer keys,
    the judged parts of TREC campaigns), plus any of :data:`PASSED_KEYS`."""
    k = eval_kind(kind)
    unknown = sorted(key for key in options if key not in python_options(k))
    if unknown:
        raise UsageError(f"evaluate {kind}: unknown option(s) {', '.join(unknown)}")
    c: dict = {"kind": kind}
    if k.judged:
        _judged(c, k, list(runs), set_name, options)
    else:
        c[k.questions_key] = _need(options, k.questions_key, k)
        c[k.runs_key] = check_files(k.runs_key, runs)
    for key in PASSED_KEYS:
        if options.get(key) is not None:
            c[key] = options[key]
    if judgment_codes:
        c["judgment_codes"] = dict(judgment_codes)
    if skip:
        c["skip"] = sorted(set(skip))
    return c


def _judged(c: dict, k: Kind, runs: list, set_name: str, options: dict) -> None:
    """The questions, the judgment set of the judged runs (``runs`` are the
    kind's plain part, e.g. trec-factoid's factoid and list runs; the other
    parts are keywords, e.g. TREC 2003's ``definition``), the answer keys and
    patterns (autojudge) of a judged TREC campaign."""
    key = f"judgment_sets.{set_name}"
    if k.plain_part is None:
        c["questions"] = _need(options, "questions", k)
    else:  # one file or several
        q = options.get("questions")
        qs = [q] if is_path(q) else list(q or [])
        if not qs:
            raise UsageError(f"--questions: evaluate {k.name} needs the question file(s)")
        c["questions"] = check_files("questions", qs)
    parts = {part: check_files(f"{key}.{part}", options.get(part) or [])
             for part in k.judgment_parts if part != k.plain_part}
    judged: list | dict = {part: files for part, files in parts.items() if files}
    if k.plain_part is not None:
        plain = check_files(key, runs)
        judged = {k.plain_part: plain, **judged} if judged else plain
    c.update(judgment_sets={set_name: judged}, primary=set_name)
    for name in k.path_keys:
        if name != "questions" and options.get(name):
            c[name] = check_files(name, [options[name]])[0]
    if any(options.get(name) for name in k.pattern_keys):
        c["autojudge"] = True


def _need(options: dict, key: str, kind: Kind) -> str:
    if not options.get(key):
        raise UsageError(f"--{key.replace('_', '-')}: evaluate {kind.name} needs it")
    return check_files(key, [options[key]])[0]


__all__ = ["NAME", "PASSED_KEYS", "common_options", "dest", "eval_kind", "python_options",
           "python_arguments", "check_measures", "option_of", "check_files", "campaign_config"]
