"""Designing the next campaign (docs/reliability.md, "Designing the next
campaign"): how many units a campaign needs by generalizability theory,
Sakai's three topic-set-size methods and the swap method, and which units of
this one to re-check; kernel :mod:`qacamp.reliability.design` (its
:func:`~qacamp.reliability.design.design_analysis`).

Analytic, one job per campaign and measure, after the swap method's fit
(its fits give the swap method's size, its summary the required difference
the sizes are computed for).  Without ``--out`` the table of sizes is
printed as tab-separated text on stdout.

From Python it is ``qacamp.reliability.design(scores, fits=..., summary=...)``
(:mod:`.python`, made from this record like every analysis's function).
"""

from __future__ import annotations

from ...errors import InputError, UsageError
from .. import fits as fit_kernel
from ..design import analysis as kernel
from ..design.gtheory import COMPONENT_SCHEMA
from ..design.items import ITEM_SCHEMA
from ..matrix import normalise_measure
from .record import (
    CONFIG_PREFIX,
    MATRIX_INPUT,
    Analysis,
    InputFile,
    Inputs,
    Option,
    Output,
    Result,
    config_key,
    seed_name,
    wrote,
)

FITS_FIX = "give the --out file of `qacamp reliability fit` for the same measure"
SUMMARY_FIX = "give the --summary file of `qacamp reliability fit` for the same measure"
_OPEN = {"lo": 0, "hi": 1, "lo_open": True, "hi_open": True}
_POSITIVE = {"lo": 0, "lo_open": True}


def settings(args) -> kernel.Settings:
    """The kernel's settings from the parsed options; power above alpha is
    checked here (under ``--config-prefix`` a ConfigError naming design.power)."""
    s = kernel.Settings(args.target, args.confidence, args.alpha, args.power, args.min_diff,
                        args.min_range, args.ci_width)
    with config_key(args, "design.power"):
        s.check()
    return s


def _one(inputs: Inputs, dest: str):
    """``(path, frame)`` of the optional input file ``dest``, or ``(None, None)``."""
    frames = inputs.files.get(dest) or []
    if len(frames) > 1:
        raise UsageError(f"--{dest}: give one file")
    return frames[0] if frames else (None, None)


def compute(inputs: Inputs, args) -> kernel.Design:
    """The analysis of the loaded inputs for the parsed options (the command
    and :func:`design` both run it)."""
    s = settings(args)
    m = inputs.matrix
    measure = seed_name(args, m)
    fits_path, fits = _one(inputs, "fits")
    summary_path, summary = _one(inputs, "summary")
    row = None
    if summary is not None:
        if summary.height != 1 or "required_difference" not in summary.columns:
            raise InputError(summary_path, None, "not a one-row swap summary with "
                             "required_difference", SUMMARY_FIX)
        row = summary.row(0, named=True)
        own = row.get("measure")
        if own and normalise_measure(own) != normalise_measure(measure):
            raise InputError(summary_path, "measure", f"is the swap summary of {own!r}, not "
                             f"of {measure!r}", SUMMARY_FIX)
    if fits is not None:
        need = {"bin", "lo", "hi", "a", "b", "model", "reason"}
        missing = sorted(need - set(fits.columns))
        if missing or not fits.height:
            raise InputError(fits_path, None, f"lacks the column(s) {', '.join(missing)}"
                             if missing else "holds no bin", FITS_FIX)
    return kernel.design_analysis(m, fits, row, s, measure)


def describe(d: kernel.Design, unit: str) -> str:
    """The one-line summary: the sizes found, and the units flagged."""
    units = unit if unit.endswith("s") else f"{unit}s"  # series stays series
    sizes = {r["method"]: r for r in d.sizes.iter_rows(named=True)}
    parts = []
    for method, r in sizes.items():
        if r["n_units"] is None:
            continue
        what = f"{r['title']} {r['target']:g}" if r["target"] is not None else r["title"]
        span = (f" ({r['n_units_lower']}-{r['n_units_upper'] or 'unbounded'})"
                if method in ("erho2", "phi") and r["n_units_lower"] is not None else "")
        parts.append(f"{what}: {r['n_units']:,}{span}")
    name = d.sizes["measure"][0]
    head = (f"{name}: {units} needed for d = {d.difference:g} ({d.difference_source}): "
            + ("; ".join(parts) if parts else "none found"))
    if d.items.height:
        n = d.items.filter(d.items["flag"].is_not_null()).height
        head += f"; {n:,} of {d.items.height:,} {units} flagged to re-check"
    return head


def run(inputs: Inputs, args) -> Result:
    d = compute(inputs, args)
    frames = {"out": d.sizes, "components": d.components, "curve": d.curve,
              "diagnostics": d.items}
    unit = args.unit if args.scores else "unit"
    return Result(frames, wrote(args, describe(d, unit)), d.notes)


ANALYSIS = Analysis(
    name="design",
    help="designing the next campaign: units needed (G-theory, topic set size, swap method) "
         "and the units to re-check",
    description="`qacamp reliability design`: how many units (questions, series, problems, "
                "topics) the next campaign needs for a target reliability, by generalizability "
                "theory, Sakai's topic set size design and the swap method, and the per-unit "
                "diagnostics of this one (docs/reliability.md, \"Designing the next "
                "campaign\").  Without --out the table of sizes is printed as TSV on stdout.",
    run=run,
    files=(InputFile("fits", schema=fit_kernel.FIT_SCHEMA, strict=False, fix=FITS_FIX),
           InputFile("summary", schema=fit_kernel.SUMMARY_SCHEMA, strict=False,
                     fix=SUMMARY_FIX)),
    options=(
        *MATRIX_INPUT,
        Option(("--fits",), "the swap method's per-bin fits of the measure (`reliability fit "
               "--out`): the swap method's size; without it that row says none was given"),
        Option(("--summary",), "the swap fit summary of the measure (`reliability fit "
               "--summary`): its required difference is the difference the sizes are for, "
               f"unless --min-diff is given (default without either: "
               f"{kernel.DEFAULT_DIFFERENCE})"),
        Option(("--target",), "the E(rho^2) and Phi to reach (default "
               f"{kernel.gtheory.DEFAULT_TARGET})", type=float,
               default=kernel.gtheory.DEFAULT_TARGET, bounds=_OPEN, key="design.target"),
        Option(("--confidence",), "two-sided confidence of the intervals of E(rho^2) and Phi "
               f"(default {kernel.gtheory.DEFAULT_CONFIDENCE})", type=float,
               default=kernel.gtheory.DEFAULT_CONFIDENCE, bounds=_OPEN,
               key="design.confidence"),
        Option(("--alpha",), "significance level of the t-test, ANOVA and interval (default "
               f"{kernel.topic_set_size.DEFAULT_ALPHA})", type=float,
               default=kernel.topic_set_size.DEFAULT_ALPHA, bounds=_OPEN, key="design.alpha"),
        Option(("--power",), "power 1 - beta of the t-test and ANOVA (default "
               f"{kernel.topic_set_size.DEFAULT_POWER}); above --alpha", type=float,
               default=kernel.topic_set_size.DEFAULT_POWER, bounds=_OPEN, key="design.power"),
        Option(("--min-diff",), "the difference d of the t-test and the swap method (default: "
               "the --summary's required difference)", type=float, metavar="D",
               bounds=_POSITIVE, key="design.min_diff"),
        Option(("--min-range",), "the ANOVA's range of true means to detect (default: d)",
               type=float, metavar="D", bounds=_POSITIVE, key="design.min_range"),
        Option(("--ci-width",), "the widest expected confidence interval of a difference "
               "(default: d)", type=float, metavar="W", bounds=_POSITIVE,
               key="design.ci_width"),
        Option(("--components",), "write the G-study's variance components here (Parquet)"),
        Option(("--curve",), "write E(rho^2), Phi and the swap error rate against the number "
               "of units here (Parquet)"),
        Option(("--diagnostics",), "write the per-unit diagnostics here (Parquet): difficulty, "
               "discrimination, flags"),
        Option(("--out",), "write the table of sizes here (Parquet) and a one-line summary "
               "on stderr; without it the table is printed as TSV on stdout"),
        CONFIG_PREFIX,
    ),
    outputs=(Output("out", "design_{measure}.parquet", kernel.DESIGN_SCHEMA),
             Output("components", "design_{measure}_components.parquet", COMPONENT_SCHEMA),
             Output("curve", "design_{measure}_curve.parquet", kernel.DESIGN_CURVE_SCHEMA),
             Output("diagnostics", "design_{measure}_diagnostics.parquet", ITEM_SCHEMA)),
    stdout="out",
    after=(("fits", "fit", "out"), ("summary", "fit", "summary")),
    # min_diff null: the swap method's required difference (else 0.05, Voorhees
    # 2003's reading); min_range, ci_width null: the same difference
    settings={"design": {"target": kernel.gtheory.DEFAULT_TARGET,
                         "confidence": kernel.gtheory.DEFAULT_CONFIDENCE,
                         "alpha": kernel.topic_set_size.DEFAULT_ALPHA,
                         "power": kernel.topic_set_size.DEFAULT_POWER,
                         "min_diff": None, "min_range": None, "ci_width": None}},
    schema={"design": {
        "target": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                   "description": "E(rho^2) and Phi the next campaign should reach (default "
                                  "0.95)."},
        "confidence": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                       "description": "Two-sided confidence of the intervals of E(rho^2) "
                                      "(Feldt) and Phi (Arteaga et al.) (default 0.95)."},
        "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                  "description": "Significance level of the topic set sizes (default 0.05)."},
        "power": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1,
                  "description": "Power 1 - beta of the t-test and ANOVA sizes (default "
                                 "0.80; above alpha)."},
        "min_diff": {"type": ["number", "null"], "exclusiveMinimum": 0, "description":
                     "Difference d of the t-test and the swap method (null: the swap "
                     "method's required difference of the measure; 0.05 when it has none)."},
        "min_range": {"type": ["number", "null"], "exclusiveMinimum": 0, "description":
                      "Range of true means the one-way ANOVA should detect (null: d)."},
        "ci_width": {"type": ["number", "null"], "exclusiveMinimum": 0, "description":
                     "Widest expected 95% interval of a difference (null: d)."},
    }},
)


__all__ = ["ANALYSIS", "compute", "describe", "run", "settings"]
