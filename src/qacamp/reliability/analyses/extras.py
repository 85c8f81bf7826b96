"""The campaign-level analyses of one campaign (``qacamp reliability extras``):
Kendall tau between rankings, swaps between rankings, assessor agreement,
per-unit distributions, box-plot data and the runs each run cannot be told
apart from (swap method and significance test, as letters); kernel
:mod:`qacamp.reliability.campaign_level`."""

from __future__ import annotations

from pathlib import Path

from ...bounds import parse_grid
from ...errors import InputError
from .. import campaign_level as kernel
from .. import fits, ranking
from ..matrix import normalise_measure
from ..significance import PAIR_SCHEMA
from .record import Analysis, InputFile, Option, Output, Result

SUMMARY_FIX = "pass the --summary file of `reliability fit`"
SIGNIFICANCE_FIX = "pass the --out file of `reliability significance` (or its merge)"


def summary_measure(path, frame) -> str:
    """The measure of a swap summary: its ``measure`` column, else its file name."""
    if "measure" in frame.columns and frame.height and frame["measure"][0]:
        return normalise_measure(frame["measure"][0])
    stem = Path(path).name.removesuffix(".parquet")
    if stem.startswith("swap_") and stem.endswith("_summary"):
        return normalise_measure(stem[len("swap_"):-len("_summary")])
    raise InputError(path, None, "cannot tell the measure of this swap summary",
                     "name it swap_<measure>_summary.parquet or keep its 'measure' column")


def run(inputs, args) -> Result:
    c = inputs.files["ingest"]
    measures = list(dict.fromkeys(normalise_measure(m) for m in args.measure))
    summaries: dict[str, float | None] = {}
    few: set[str] = set()
    for path, frame in inputs.files["summary"]:
        if "required_difference" not in frame.columns or frame.height != 1:
            raise InputError(path, None, "not a one-row swap summary with required_difference",
                             SUMMARY_FIX)
        measure = summary_measure(path, frame)
        summaries[measure] = frame["required_difference"][0]
        if "warning" in frame.columns and fits.too_few_runs(frame["warning"][0]):
            few.add(measure)
    tests = {}
    for path, frame in inputs.files["significance"]:
        if not {"run_a", "run_b", "measure", "test", "significant"} <= set(frame.columns) \
                or not frame.height:
            raise InputError(path, None, "not a per-pair significance file", SIGNIFICANCE_FIX)
        tests[normalise_measure(frame["measure"][0])] = frame
    results = kernel.campaign_extras(c.tables, c.kind, c.primary, c.order, measures, summaries,
                                     parse_grid(args.thresholds), args.kendall_variant, tests,
                                     few_runs=few)
    return Result(results, f"wrote {', '.join(f'{n}.parquet' for n in results)} to {args.out}")


ANALYSIS = Analysis(
    name="extras",
    help="Kendall tau, ranking swaps, agreement, distributions, equivalence of one campaign",
    description="Writes kendall, ranking_swaps, agreement, distributions, boxplot and "
                "equivalence_<measure> Parquet files into --out (see "
                "qacamp.reliability.campaign_level).",
    run=run,
    matrix=None,
    files=(InputFile("ingest", read="campaign"),
           InputFile("summary", schema=fits.SUMMARY_SCHEMA, strict=False, fix=SUMMARY_FIX),
           InputFile("significance", schema=PAIR_SCHEMA, strict=False, fix=SIGNIFICANCE_FIX)),
    options=(
        Option(("--ingest",), "the campaign's ingest/ folder", required=True),
        Option(("--scores",), "the campaign's scores/ folder", required=True),
        Option(("--measure",), "run-level measure (repeatable), e.g. --measure cws --measure "
               "accuracy", required=True, action="append"),
        Option(("--summary",), "swap fit summary (repeatable; matched to a measure by its "
               "'measure' column or a swap_<measure>_summary.parquet name): writes "
               "equivalence_<measure>; measures without a summary get no equivalence file",
               action="append", default=[]),
        Option(("--significance",), "per-pair significance file (repeatable; matched by its "
               "'measure' column): adds the test's letters to equivalence_<measure>",
               action="append", default=[]),
        Option(("--thresholds",), "score differences (primary ranking) for the swap counts",
               default="0,0.01,0.02,0.05,0.07"),
        Option(("--kendall-variant",), ranking.VARIANT_HELP, choices=ranking.VARIANTS,
               default=ranking.DEFAULT_VARIANT, key="kendall.variant"),
        Option(("--out",), "output folder", required=True),
    ),
    outputs=(Output("out", "kendall.parquet", kernel.KENDALL_SCHEMA),
             Output("out", "ranking_swaps.parquet", kernel.SWAPS_SCHEMA),
             Output("out", "agreement.parquet", kernel.AGREEMENT_SCHEMA),
             Output("out", "distributions.parquet", kernel.DISTRIBUTION_SCHEMA),
             Output("out", "boxplot.parquet", kernel.BOXPLOT_SCHEMA),
             Output("out", "equivalence_{measure}.parquet", kernel.EQUIVALENCE_SCHEMA)),
    stdout=None,
    folder="out",
    per="campaign",
    after=(("summary", "fit", "summary"), ("significance", "significance", "out")),
    settings={"kendall": {"variant": ranking.DEFAULT_VARIANT}},
    schema={"kendall": {"variant": {"enum": list(ranking.VARIANTS), "description": "tau_b "
            "(default): as scipy, independent of run names, 1 for identical rankings; tau_a: "
            "(C - D) / pairs, a pair tied in either ranking counting 0 (Voorhees 2003's "
            "adjacent-swap tau averaged over random tie orders); tau_a_by_name: ties broken by "
            "run name (changes when runs are renamed)."}}},
)
