"""Significance tests over all run pairs with multiple-comparison control
(docs/reliability.md, "Significance"); the tests and corrections are the
records of :mod:`qacamp.reliability.significance`, which also hold the kernels.

Without ``--shard`` the whole analysis runs in one process and writes the
per-pair frame (``--out``) and the one-row summary (``--summary``).  With
``--shard I/N`` a permutation test writes the shard's per-pair counts, merged
by ``qacamp reliability merge --kind significance OUT SHARD...`` (which
refuses duplicated, missing or foreign shards).

With ``--baseline RUN`` every other run is also compared with that run, the
error controlled over those comparisons (:mod:`..significance.baseline`):
written to ``--baseline-out``, or printed as tab-separated text without it.
The shards of a permutation test count the comparisons with the baseline
too, so the merge writes them; the workflow always names the file, which
holds no rows for a campaign without ``significance.baseline``."""

from __future__ import annotations

from ...bounds import SEED_BOUNDS, check_memory
from ...errors import ConfigError, UsageError
from .. import significance as sig
from ..significance.baseline import (
    BASELINE_SCHEMA,
    baseline_comparison,
    baseline_results,
    empty_comparison,
)
from .record import (
    CONFIG_PREFIX,
    MATRIX_INPUT,
    Analysis,
    Option,
    Output,
    Result,
    config_key,
    seed_name,
    shard_share,
)


def describe(pairs, summary, comparison=None) -> Result:
    r = summary.row(0, named=True)
    how = f", {r['permutations']:,} permutations" if r["permutations"] else ""
    frames = {"out": pairs, "summary": summary}
    against = ""
    if comparison is not None:
        frames["baseline_out"] = comparison
        if comparison.height:
            better = int((comparison["significant"] & (comparison["diff"] > 0)).sum())
            worse = int((comparison["significant"] & (comparison["diff"] < 0)).sum())
            against = (f"; against the baseline {comparison['baseline'][0]}: {better:,} "
                       f"significantly better, {worse:,} worse of {comparison.height:,} runs")
    return Result(frames,
                  f"{sig.TESTS.lookup(r['test']).title}{how}, correction {r['correction']}: "
                  f"{r['significant_pairs']:,} of {r['pairs']:,} pairs significant at alpha "
                  f"{r['alpha']:g} in {r['measure']}{against}",
                  [r["warning"]] if r["warning"] else [])


def wants_comparison(args) -> bool:
    """A comparison with a baseline run is asked for (``--baseline``), or its
    file named (the workflow names it for every campaign)."""
    return bool(getattr(args, "baseline", None) or getattr(args, "baseline_out", None))


def run(inputs, args) -> Result:
    m = inputs.matrix
    if args.permutations is not None:
        # the permutation indices of a shard are held as one int64 array
        count = shard_share(args.permutations, args.shard_index)
        check_memory(f"--permutations {args.permutations:,} ({count:,} in this job)",
                     8.0 * count, "use fewer permutations per job: raise the shard count "
                     "(--shard I/N; the config's shards)")
    try:
        sig.check_settings(m, args.test, args.correction, args.permutations, args.alpha,
                           args.exact)
    except UsageError as exc:
        if not args.config_prefix:
            raise
        raise ConfigError(f"{args.config_prefix}.significance", str(exc),
                          "choose a test and correction that fit the campaign's measures "
                          "(docs/reliability.md, Significance)") from None
    if args.baseline is not None:
        with config_key(args, "significance.baseline",
                            "name one of the campaign's participants' runs"):
            sig.baseline_index(m, args.baseline)
    name = seed_name(args, m)
    if args.shard is not None:
        i, n = args.shard_index
        return Result({"out": sig.significance_counts(
            m, args.test, args.permutations, args.seed, args.alpha, args.correction, name, i, n,
            exact=args.exact, baseline=args.baseline)})
    comparison = None
    if wants_comparison(args):
        comparison = empty_comparison() if args.baseline is None else baseline_comparison(
            m, args.baseline, args.test, args.permutations, args.seed, args.alpha,
            args.correction, name, exact=args.exact)
    return describe(*sig.significance_test(m, args.test, args.permutations, args.seed,
                                           args.alpha, args.correction, name, exact=args.exact),
                    comparison)


def merge(paths, frames, args) -> Result:
    """Checked merge of the shards (:func:`~..significance.merge_significance`), then the
    results (and the comparison with the baseline run the shards counted)."""
    counts = sig.merge_significance(frames, paths)
    comparison = baseline_results(counts)
    wanted = comparison.height or wants_comparison(args)
    return describe(*sig.significance_results(counts), comparison if wanted else None)


def resampled(plan: dict) -> bool:
    """The plan's test draws permutations: the workflow runs it in shards."""
    return sig.TESTS.lookup(plan["significance"]["test"]).resampling


_TESTS = "; ".join(f"{t.name}: {t.title}" + (" (family-wise)" if t.family_wise else "")
                   for t in sig.TESTS.values())
_CORRECTIONS = "; ".join(f"{c.name}: {c.description}" for c in sig.CORRECTIONS.values())

ANALYSIS = Analysis(
    name="significance",
    help="significance tests over all run pairs with multiple-comparison control (one row "
         "per pair + summary)",
    description="`qacamp reliability significance`: which differences between runs are real "
                "(docs/reliability.md, \"Significance\").",
    run=run,
    options=(
        *MATRIX_INPUT,
        Option(("--test",), f"the test (default {sig.DEFAULT_TEST}): {_TESTS}",
               choices=tuple(sig.TESTS), default=sig.DEFAULT_TEST, key="significance.test"),
        Option(("--correction",), "multiple-comparison correction of per-pair p-values "
               "(default: holm for per-pair tests, none for the family-wise tests, which allow "
               f"only none): {_CORRECTIONS}", choices=tuple(sig.CORRECTIONS),
               key="significance.correction"),
        Option(("--permutations",), "permutations of the permutation tests (default "
               f"{sig.DEFAULT_PERMUTATIONS:,}); the t-test and ANOVA draw none and refuse it",
               type=int, metavar="B", bounds={"lo": 1, "integer": True},
               key="significance.permutations", when=resampled),
        Option(("--exact",), "randomisation test only: enumerate all 2^n swap assignments "
               "(n <= 20 units) instead of drawing --permutations", action="store_true"),
        Option(("--seed",), "seed: permutations are seeded by (seed, measure, test, "
               "permutation index) only, so any shard count gives the same result (default 0)",
               type=int, default=0, bounds=SEED_BOUNDS, key="seed"),
        Option(("--alpha",), "significance level (default 0.05)", type=float, default=0.05,
               bounds={"lo": 0, "hi": 1, "lo_open": True, "hi_open": True},
               key="significance.alpha"),
        Option(("--shard",), "I/N: write the per-pair counts of shard I (0-based) of N; merge "
               "them with `reliability merge --kind significance`"),
        Option(("--baseline",), "RUN: also compare every other run with this one, the error "
               "controlled over those comparisons (Holm for per-pair tests; the family-wise "
               "tests over the comparisons with it: randomised Tukey HSD against the largest "
               "permuted difference from it, ANOVA by Dunnett's test)", metavar="RUN",
               key="significance.baseline"),
        Option(("--summary",), "also write the one-row summary here"),
        Option(("--baseline-out",), "write the comparison with the baseline run here "
               "(Parquet; no rows without --baseline); without it the comparison is printed "
               "as tab-separated text", metavar="FILE"),
        Option(("--out",), "per-pair Parquet (or shard counts)", required=True),
        CONFIG_PREFIX,
    ),
    outputs=(Output("out", "significance_{measure}.parquet", sig.PAIR_SCHEMA),
             Output("summary", "significance_{measure}_summary.parquet", sig.SUMMARY_SCHEMA),
             Output("baseline_out", "significance_{measure}_baseline.parquet", BASELINE_SCHEMA)),
    stdout="baseline_out",
    shard_schema=sig.COUNT_SCHEMA,
    merge=merge,
    sharded=resampled,
    # the project's default, as no campaign's source documents a test of its own
    # (docs/reliability.md, "Significance"); correction null = the test's default
    settings={"significance": {"test": sig.DEFAULT_TEST, "correction": None,
                               "permutations": sig.DEFAULT_PERMUTATIONS, "alpha": 0.05,
                               "baseline": None}},
    schema={"significance": {
        "test": {"enum": list(sig.TESTS), "description": "tukey-hsd (default): randomised "
                 "Tukey HSD over all runs (Sakai), family-wise; randomisation: paired "
                 "randomisation test per pair; t-test: paired t-test per pair (means only); "
                 "anova-tukey: two-way ANOVA + Tukey HSD (Carterette 2012, means only)."},
        "correction": {"enum": [*sig.CORRECTIONS, None], "description": "Correction of "
                       "per-pair p-values (null: the test's default, holm for per-pair tests, "
                       "none for the family-wise tukey-hsd and anova-tukey, which allow only "
                       "none)."},
        "permutations": {"type": "integer", "minimum": 1, "description": "Permutations of the "
                         "permutation tests (default 10,000, for campaigns of fewer than ~200 "
                         "runs); not used by t-test and anova-tukey, which draw none."},
        "alpha": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1},
        "baseline": {"type": ["string", "null"], "minLength": 1, "description": "A run of the "
                     "campaign (its name) to compare every other run with, the error "
                     "controlled over those comparisons; the report prints the comparison "
                     "table with markers against it (default null: none).  Set it in the "
                     "campaign's own reliability block: a run name belongs to one campaign."},
    }},
)
