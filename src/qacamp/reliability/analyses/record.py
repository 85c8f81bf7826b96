"""The shape of an analysis record, and the options every analysis shares.

An :class:`Analysis` says everything the command line, the loader, the
workflow and the report need to know about one reliability analysis:

- its command-line options (:class:`Option`: argparse's words and help, the
  bounds checked before anything is read, the plan key the workflow takes the
  value from, which is also the config key an error names under
  ``--config-prefix``);
- what it reads (:attr:`Analysis.matrix`: a score matrix; :attr:`Analysis.files`:
  other files, read by the one outer loader, :mod:`qacamp.loader`, with their
  declared schemas) and what it writes (:class:`Output`: the option naming the
  file, its name in a campaign's ``reliability/`` folder, its schema);
- its kernel (:attr:`Analysis.run`: the loaded inputs and the parsed options
  in, a :class:`Result` of frames out), and for analyses run in shards the
  shard's counts (:attr:`Analysis.shard_schema`) and their merge
  (:attr:`Analysis.merge`);
- how the workflow runs it: once per campaign and measure or once per
  campaign (:attr:`Analysis.per`), in shards or in one job for a given plan
  (:attr:`Analysis.sharded`), and the outputs of other analyses it reads
  (:attr:`Analysis.after`).

Kernels take and return frames: nothing here opens a file.
"""

from __future__ import annotations

import contextlib
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import polars as pl

from ...bounds import SEED_BOUNDS, check_option
from ...errors import ConfigError, InputError, UsageError
from .. import shards
from ..matrix import ScoreMatrix
from ..seeds import fit_sizes, parse_size, parse_sizes
from ..swap import check_sizes

#: the words that name a config key's documentation in an error's fix
SCHEMA_FIX = "see the key's description in workflow/schemas/config.schema.yaml"


@dataclass(frozen=True)
class Option:
    """One command-line option (``argparse.add_argument``'s words).

    ``bounds``: the range :func:`qacamp.bounds.check_option` checks before
    anything is read.  ``key``: ``section.name`` of the reliability plan the
    workflow passes as the option's value (and the config key a bad value
    names when the command runs with ``--config-prefix``); ``when``: the
    workflow passes it only for plans where ``when(plan)`` is true; ``fitted``:
    with ``--fit-to-collection`` when the plan's value is the kind's default."""

    flags: tuple[str, ...]
    help: str = ""
    type: Callable | None = None
    default: Any = None
    choices: tuple | None = None
    required: bool = False
    action: str | None = None
    metavar: str | None = None
    nargs: str | None = None
    group: str | None = None
    bounds: Mapping[str, Any] | None = None
    key: str | None = None
    when: Callable[[dict], bool] | None = None
    #: a size the collection must hold: the kind's default (a plan value the
    #: campaign did not configure) is fitted to the collection
    fitted: bool = False
    #: the notebook API (:mod:`.python`): the Python values the option takes
    #: besides its command-line text, as ``python(flag, value) -> text``
    #: (:func:`size_text`, :func:`sizes_text`, :func:`grid_text`); None: text only
    python: Callable[[str, Any], str] | None = None

    @property
    def dest(self) -> str:
        name = next((f for f in self.flags if f.startswith("--")), self.flags[0])
        return name.lstrip("-").replace("-", "_")

    def argparse_kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {"help": self.help}
        for name in ("type", "choices", "metavar", "nargs", "action"):
            value = getattr(self, name)
            if value is not None:
                kw[name] = list(value) if name == "choices" else value
        if self.required:
            kw["required"] = True
        if self.action not in ("store_true",) or self.default is not None:
            kw["default"] = self.default
        return kw


@dataclass(frozen=True)
class Output:
    """One output: the option naming its file (``dest``), its name in a
    campaign's ``reliability/`` folder (``file``, ``{measure}`` filled in; None
    for an output the workflow does not write) and its columns."""

    dest: str
    file: str | None
    schema: Mapping[str, Any]


@dataclass(frozen=True)
class InputFile:
    """Files an option names, read by the loader before the kernel runs:
    ``read`` is ``parquet`` (one or more files with the declared ``schema``;
    ``strict=False``: only the declared columns present are checked),
    ``rankings`` (``LABEL=matrix`` files) or ``campaign`` (a campaign's
    ``--ingest`` and ``--scores`` folders)."""

    dest: str
    read: str = "parquet"
    schema: Mapping[str, Any] | None = None
    strict: bool = True
    fix: str = ""


@dataclass
class Result:
    """What a kernel returns: output ``dest`` (or, for a folder output, file
    stem) -> frame; the one-line summary and the warnings for stderr."""

    frames: dict[str, pl.DataFrame]
    message: str | None = None
    warnings: Sequence[str] = ()


@dataclass(frozen=True)
class CampaignTables:
    """A campaign's resolved config facts and the frames the campaign-level
    analyses read (``runs``, ``units`` of its scores; ``questions``,
    ``judgments`` of its ingest)."""

    kind: str
    primary: str
    order: list[str]
    tables: Mapping[str, pl.DataFrame]


@dataclass(frozen=True)
class Inputs:
    """What the loader read for one run of an analysis."""

    matrix: ScoreMatrix | None = None
    files: Mapping[str, Any] = field(default_factory=dict)


def never(plan: dict) -> bool:
    return False


def always(plan: dict) -> bool:
    return True


@dataclass(frozen=True)
class Analysis:
    """One reliability analysis (module docstring)."""

    name: str
    help: str
    run: Callable[[Inputs, Any], Result]
    description: str = ""
    options: tuple[Option, ...] = ()
    outputs: tuple[Output, ...] = ()
    #: the score matrix: "required" (--matrix or --scores), "optional" or None
    matrix: str | None = "required"
    files: tuple[InputFile, ...] = ()
    #: the output printed as tab-separated text when no file is named for it
    stdout: str | None = "out"
    #: the option naming an output folder (the frames' keys are file stems)
    folder: str | None = None
    shard_schema: Mapping[str, Any] | None = None
    merge: Callable[[Sequence[str], list[pl.DataFrame], Any], Result] | None = None
    #: workflow: "measure" (a job per campaign and measure), "campaign", or None (not run)
    per: str | None = "measure"
    sharded: Callable[[dict], bool] = never
    #: workflow: (option, analysis, output): this analysis reads that output (per measure)
    after: tuple[tuple[str, str, str], ...] = ()
    #: the reliability plan's defaults of its settings, by plan section (qacamp.plan:
    #: analysis defaults < kind < preset < the config's top level < campaign)
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    #: the config schema of those sections (``reliability.<section>``), by section
    schema: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def option(self, dest: str) -> Option:
        return next(o for o in self.options if o.dest == dest)

    def files_for(self, measure: str | None = None) -> list[str]:
        """The workflow's output file names (per measure, or per campaign)."""
        return [o.file.format(measure=measure) for o in self.outputs if o.file is not None
                and ("{measure}" in o.file) == (measure is not None)]


# --------------------------------------------------------------------------- shared options

#: a ``--matrix`` file given without ``--measure`` is called (and seeds its trials) so
DEFAULT_MATRIX_MEASURE = "score"
_INPUT = "input (one of --matrix or --scores)"
MATRIX_INPUT = (
    Option(("--matrix",), "wide score matrix (CSV or Parquet), header of run names",
           group=_INPUT),
    Option(("--scores",), "the pipeline's scores/ folder", group=_INPUT),
    Option(("--measure",), "measure name (selects rows with --scores; names the matrix and "
           "seeds the trials; a --matrix without it is called "
           f"{DEFAULT_MATRIX_MEASURE!r})", group=_INPUT),
    Option(("--unit",), "the unit the subsets are drawn from, with --scores (default question)",
           default="question", choices=("question", "series", "test", "topic", "qtype"),
           group=_INPUT),
    Option(("--judgment-set",), "judgment set, with --scores (default: the only or primary one)",
           group=_INPUT),
    Option(("--include-baselines",), "keep runs named baseline:*", action="store_true",
           group=_INPUT),
    Option(("--aggregator",), "check the matrix's aggregator (a --matrix file is always 'mean')",
           choices=("mean", "c_at_1", "cws"), group=_INPUT),
)
CONFIG_PREFIX = Option(("--config-prefix",), "config key the settings come from (the workflow "
                       "passes campaigns.<name>.reliability): errors about sizes name it",
                       metavar="KEY")
FIT_TO_COLLECTION = Option(("--fit-to-collection",), "the sizes are a default the campaign did "
                           "not configure (the workflow passes it then): a collection too small "
                           "for them gets sizes 1..half instead of an error, with a warning",
                           action="store_true")
SEED_HELP = "seed: trials are seeded by (seed, measure, size, trial) (default 0)"
SHARD = Option(("--shard",), "I/N: write the pair counts of shard I (0-based) of N")
COUNTS = Option(("--counts",), "write pair counts, not the summary", action="store_true")
OUT = Option(("--out",), "write the result here (Parquet) and a one-line summary on stderr; "
             "without it the result is printed as TSV on stdout")
SUMMARY = Option(("--summary",), "also write the one-row summary here")


#: options of the workflow's jobs (shards, the config key errors name, sizes fitted
#: to the collection, pair counts to merge): a Python call runs the whole analysis
WORKFLOW_ONLY = ("shard", "config_prefix", "fit_to_collection", "counts")


def size_text(flag: str, value: Any) -> str:
    """A subset size from Python: an integer (or text: ``"half"``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    raise UsageError(f"{flag}: {value!r} is not a subset size (an integer, or 'half')")


def sizes_text(flag: str, value: Any) -> str:
    """Subset sizes from Python: text (``"10:half:auto"``) or a list of integers."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and value and all(
            isinstance(v, numbers.Integral) and not isinstance(v, bool) for v in value):
        return ",".join(str(int(v)) for v in value)
    raise UsageError(f"{flag}: {value!r} is not a list of sizes or their text (give a list "
                     "of integers such as [5] or [5, 10], or text such as '5:10' or "
                     "'10:half:auto')")


def grid_text(flag: str, value: Any) -> str:
    """A grid of numbers from Python: text (``"0.01:0.10:0.01"``) or a list of numbers."""
    if isinstance(value, str):
        return value
    if isinstance(value, list | tuple) and value and all(
            isinstance(v, numbers.Real) and not isinstance(v, bool) for v in value):
        return ",".join(repr(float(v)) for v in value)
    raise UsageError(f"{flag}: {value!r} is not a list of numbers or their text (give e.g. "
                     "[0.01, 0.05] or '0.01:0.10:0.01')")


def seed_option(help: str = SEED_HELP) -> Option:
    return Option(("--seed",), help, type=int, default=0, bounds=SEED_BOUNDS, key="seed")


# --------------------------------------------------------------------------- helpers of kernels

@contextlib.contextmanager
def config_key(args, key: str, fix: str = SCHEMA_FIX):
    """With ``--config-prefix`` (the workflow), a usage error about an option is
    a ConfigError naming the config key it came from."""
    try:
        yield
    except UsageError as exc:
        prefix = getattr(args, "config_prefix", None)
        if not prefix:
            raise
        raise ConfigError(f"{prefix}.{key}", str(exc), fix) from None


def check_options(analysis: Analysis, args) -> None:
    """Every option with bounds, in the record's order, before anything is read."""
    for o in analysis.options:
        if o.bounds is None:
            continue
        value = getattr(args, o.dest)
        if value is None:
            continue
        with config_key(args, f"{analysis.name}.{o.dest}" if o.key is None else o.key):
            check_option(o.flags[0], value, **o.bounds)


def seed_name(args, matrix: ScoreMatrix) -> str:
    """The measure name that seeds the trials: ``--measure``, else the matrix's."""
    return args.measure or matrix.measure


def shard_share(total: int, shard: tuple[int, int]) -> int:
    """How many of ``total`` trials shard ``(i, n)`` runs (those of
    :func:`..seeds.shard_trials`, counted without listing them)."""
    i, n = shard
    return (total * (i + 1)) // n - (total * i) // n


def too_big(what: str) -> str:
    return f"use fewer {what}, or more shards (--shard I/N) so that each job holds less"


def tag_shard(args, analysis: str, matrix: ScoreMatrix, frame: pl.DataFrame,
              shard: tuple[int, int], **settings) -> pl.DataFrame:
    """A shard's counts with the identity columns of :mod:`..shards`."""
    return shards.tag(frame, shard[0], shard[1], args.seed, shards.settings_text(
        analysis, matrix, measure=seed_name(args, matrix), **settings))


def checked_shards(analysis: str, schema: Mapping[str, Any], paths: Sequence[str],
                   frames: list[pl.DataFrame]) -> list[pl.DataFrame]:
    """Shard files that hold their analysis's columns, complete and consistent
    (:func:`..shards.check_shards`), without their identity columns."""
    for path, frame in zip(paths, frames, strict=True):
        missing = [c for c in schema if c not in frame.columns]
        if missing:
            raise InputError(path, f"column {missing[0]}", f"not a {analysis} shard file "
                             f"(lacks {missing})",
                             f"pass files written by `reliability {analysis} --shard I/N`")
    return shards.check_shards(analysis, list(paths), frames)




def wrote(args, text: str, dest: str = "out") -> str | None:
    """The summary line of an output written to a file (None when it went to stdout)."""
    path = getattr(args, dest, None)
    return f"{text}; wrote {path}" if path else None


def subset_sizes(args, matrix: ScoreMatrix, spec: str, subsets: int,
                 key: str) -> tuple[list[int], list[str]]:
    """The sizes of ``spec`` and the warnings to print; with
    ``--fit-to-collection`` (the kind's default sizes) those the collection
    holds, with a warning when they had to shrink; else an impossible size is
    an error (a ConfigError naming ``key`` under ``--config-prefix``)."""
    n = matrix.n_units
    if args.fit_to_collection:
        with config_key(args, key):
            sizes, note = fit_sizes(spec, n, subsets)
        where = f"{args.config_prefix}.{key}" if args.config_prefix else key
        return sizes, [f"{note} (set {where} to choose them)"] if note else []
    fix = "lower the size, or write 'half' for the largest size the collection allows"
    with config_key(args, key, fix):
        if subsets == 1:
            return check_sizes([parse_size(spec, n)], n, subsets=1), []
        return check_sizes(parse_sizes(spec, n), n), []


__all__ = ["Analysis", "CampaignTables", "Option", "Output", "InputFile", "Inputs", "Result",
           "MATRIX_INPUT", "CONFIG_PREFIX", "FIT_TO_COLLECTION", "SHARD", "COUNTS", "OUT",
           "SUMMARY", "DEFAULT_MATRIX_MEASURE", "seed_option", "config_key", "check_options",
           "seed_name", "shard_share", "too_big", "tag_shard", "checked_shards", "always",
           "never", "wrote", "subset_sizes", "WORKFLOW_ONLY", "size_text", "sizes_text",
           "grid_text"]
