"""The swap method's error curves per bin, extrapolated to the full collection
(Voorhees 2003, 2005) or read at one size (Penas & Rodrigo 2011), and the
required difference; kernel :mod:`qacamp.reliability.fits`."""

from __future__ import annotations

from ...errors import InputError, UsageError
from .. import curves
from .. import fits as kernel
from ..swap import SWAP_SCHEMA
from .record import MATRIX_INPUT, Analysis, InputFile, Option, Output, Result

COUNTS_FIX = ("give the swap counts that `qacamp reliability swap` or `reliability merge --kind "
              "swap` wrote")


def settings(args) -> kernel.FitSettings:
    mode = args.mode or ("observed" if args.observed_at is not None else "extrapolate")
    return kernel.FitSettings(level=args.level, min_fit_size=args.min_fit_size,
                              model=args.model, bin_width=args.bin_width, mode=mode,
                              observed_at=args.observed_at,
                              fitted_bins=kernel.parse_fitted_bins(args.fitted_bins),
                              min_runs=args.min_runs, min_comparisons=args.min_comparisons)


def run(inputs, args) -> Result:
    s = settings(args)
    [(path, counts)] = inputs.files["counts"]
    # max_score (the highest subset score, for the observed mode's relative
    # difference) may be absent
    missing = [c for c in SWAP_SCHEMA if c != "max_score" and c not in counts.columns]
    if missing:
        raise InputError(path, None, f"lacks the column(s) {', '.join(missing)}", COUNTS_FIX)
    m = inputs.matrix
    full = args.full_size or (m.n_units if m is not None else None)
    if not full:
        raise UsageError("give --full-size or the matrix (--matrix/--scores)")
    largest = counts["size"].max() if "size" in counts.columns and counts.height else None
    if isinstance(largest, int) and full < 2 * largest:
        raise UsageError(f"--full-size {full}: the counts hold subsets of size {largest}, and "
                         f"two disjoint subsets of that size need {2 * largest} units; give the "
                         "size of the whole collection the counts were drawn from")
    fit_df, summary = kernel.fit_swap(counts, full, s, m,
                                      args.measure or (m.measure if m else ""))
    warnings = []
    if m is None:
        needs = "the highest score needs it" if s.mode == "observed" else \
            "the sensitivity and the highest score need it"
        warnings.append(f"no matrix given: the number of runs was not checked and {needs}")
    warning = summary["warning"][0]
    return Result({"out": fit_df, "summary": summary}, kernel.describe(summary),
                  warnings + (warning.split("; ") if warning else []))


ANALYSIS = Analysis(
    name="fit",
    help="extrapolate swap error rates: fits + summary",
    run=run,
    matrix="optional",
    files=(InputFile("counts", schema=SWAP_SCHEMA, strict=False, fix=COUNTS_FIX),),
    options=(
        *MATRIX_INPUT,
        Option(("--counts",), "swap counts Parquet (from swap/merge)", required=True),
        Option(("--full-size",), "default: the matrix's units", type=int,
               bounds={"lo": 1, "integer": True}),
        Option(("--level",), "error level (default 0.05)", type=float, default=0.05,
               bounds={"lo": 0, "hi": 1, "lo_open": True, "hi_open": True},
               key="swap.level"),
        Option(("--min-fit-size",), "fit sizes >= this (inclusive; default 21: Voorhees 2003 "
               "fitted 'question set sizes greater than 20')", type=int,
               default=kernel.DEFAULT_MIN_FIT_SIZE, bounds={"lo": 1, "integer": True},
               key="swap.min_fit_size"),
        Option(("--model",), "curve and estimator (default exp-binomial: a exp(-b c) by "
               "binomial maximum likelihood, sizes without swaps included; exp-loglinear: "
               "least squares on log error rates)", choices=tuple(curves.MODELS),
               default=curves.DEFAULT_MODEL, key="swap.fit"),
        Option(("--mode",), "extrapolate: read the fitted error at the full size (Voorhees); "
               "observed: read the observed swap rates at --observed-at, no extrapolation "
               "(Penas & Rodrigo 2011 Table 2).  Default: observed if --observed-at is given, "
               "else extrapolate", choices=kernel.MODES, key="swap.mode"),
        Option(("--observed-at",), "subset size whose observed swap rates give the required "
               "difference (observed mode; default there: the largest size counted)",
               type=int, metavar="C", bounds={"lo": 1, "integer": True},
               key="swap.observed_at"),
        Option(("--fitted-bins",), "fit only the bins whose lower edge is in LO..HI (e.g. "
               "0.01:0.16 as Voorhees 2003); other bins get reason 'not fitted' (default: "
               "all)", metavar="LO:HI", key="swap.fitted_bins"),
        Option(("--min-runs",), "warn below this many runs (default 10 = 45 pairs)", type=int,
               default=kernel.MIN_RUNS, bounds={"lo": 2, "integer": True},
               key="swap.min_runs"),
        Option(("--min-comparisons",), "warn for bins with fewer comparisons (default 100)",
               type=int, default=kernel.MIN_COMPARISONS, bounds={"lo": 1, "integer": True},
               key="swap.min_comparisons"),
        Option(("--bin-width",), "width of the counts' score-difference bins (default 0.01)",
               type=float, default=0.01, bounds={"lo": 0, "lo_open": True},
               key="swap.bin_width"),
        Option(("--summary",), "write the summary row here (Parquet); without it the summary "
               "is printed as TSV on stdout"),
        Option(("--out",), "write the per-bin fits here (Parquet)"),
    ),
    outputs=(Output("out", "swap_{measure}_fits.parquet", kernel.FIT_SCHEMA),
             Output("summary", "swap_{measure}_summary.parquet", kernel.SUMMARY_SCHEMA)),
    stdout="summary",
    after=(("counts", "swap", "out"),),
    # `fit` is the curve model (exp-binomial: a exp(-b c) by binomial maximum
    # likelihood); `mode` extrapolate (Voorhees) or observed (c@1 paper Table 2:
    # rates observed at `observed_at`, null = the largest size counted);
    # `fitted_bins` "LO:HI" (lower bin edges) or null = all; below `min_runs` /
    # `min_comparisons` the summary warns of weak evidence (docs/reliability.md)
    settings={"swap": {"fit": curves.DEFAULT_MODEL, "level": 0.05, "mode": "extrapolate",
                       "observed_at": None, "fitted_bins": None, "min_runs": kernel.MIN_RUNS,
                       "min_comparisons": kernel.MIN_COMPARISONS}},
    schema={"swap": {
        "fit": {"enum": list(curves.MODELS), "description": "Curve and estimator of the "
                "extrapolation (default exp-binomial: a exp(-b c) by binomial maximum "
                "likelihood, sizes without swaps included; exp-loglinear: least squares on log "
                "error rates)."},
        "min_fit_size": {"type": "integer", "minimum": 1,
                         "description": "Fit sizes >= this (inclusive)."},
        "level": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "mode": {"enum": list(kernel.MODES), "description": "extrapolate: required difference "
                 "from the fitted error at the full size (Voorhees 2003, 2005); observed: from "
                 "the swap rates observed at observed_at, no extrapolation (Penas & Rodrigo "
                 "2011, Table 2)."},
        "observed_at": {"type": ["integer", "null"], "minimum": 1, "description": "Subset "
                        "size of the observed mode (one of the swap sizes; null: the "
                        "largest)."},
        "fitted_bins": {"type": ["string", "null"], "pattern": "^[0-9.]+:[0-9.]+$",
                        "description": "LO:HI: fit only bins whose lower edge is in LO..HI "
                                       "(e.g. 0.01:0.16, Voorhees 2003); null: all bins."},
        "min_runs": {"type": "integer", "minimum": 2, "description": "Warn of weak evidence "
                     "below this many runs (default 10)."},
        "min_comparisons": {"type": "integer", "minimum": 1, "description": "Warn for bins "
                            "with fewer comparisons (default 100)."},
    }},
)
