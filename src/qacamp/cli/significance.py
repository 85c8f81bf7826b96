"""`qacamp reliability significance`: which differences between runs are real
(docs/reliability.md, "Significance").

Input as the other analyses (``--matrix`` or ``--scores ... --measure``);
``--test`` and ``--correction`` choices come from the registry
(:mod:`qacamp.reliability.significance`).  Without ``--shard`` the whole
analysis runs in one process and writes the per-pair frame (``--out``) and the
one-row summary (``--summary``).  With ``--shard I/N`` a permutation test
writes the shard's per-pair counts, merged by ``qacamp reliability merge
--kind significance OUT SHARD...`` (which refuses duplicated, missing or
foreign shards).
"""

from __future__ import annotations

import sys

from ..io import write_parquet
from ..reliability import significance as sig
from ..reliability.seeds import parse_shard
from . import add_force_option


def _describe(summary) -> str:
    r = summary.row(0, named=True)
    how = f", {r['permutations']:,} permutations" if r["permutations"] else ""
    return (f"{sig.TESTS[r['test']].title}{how}, correction {r['correction']}: "
            f"{r['significant_pairs']:,} of {r['pairs']:,} pairs significant at alpha "
            f"{r['alpha']:g} in {r['measure']}")


def _finish(pairs, summary, args) -> int:
    write_parquet(pairs, args.out)
    if args.summary:
        write_parquet(summary, args.summary)
    print(f"qacamp reliability significance: {_describe(summary)}", file=sys.stderr)
    warning = summary["warning"][0]
    if warning:
        print(f"qacamp reliability significance: warning: {warning}", file=sys.stderr)
    return 0


def _check(args, m) -> None:
    """The settings against the test's record; from the workflow (``--config-prefix``)
    a bad one is a ConfigError naming the campaign's key."""
    from ..errors import ConfigError, UsageError

    try:
        sig.check_settings(m, args.test, args.correction, args.permutations, args.alpha,
                           args.exact)
    except UsageError as exc:
        if not args.config_prefix:
            raise
        raise ConfigError(f"{args.config_prefix}.significance", str(exc),
                          "choose a test and correction that fit the campaign's measures "
                          "(docs/reliability.md, Significance)") from None


def _check_numbers(args) -> None:
    """Seed, permutations and alpha as numbers (qacamp.bounds), before anything is read."""
    from ..bounds import check_memory, check_option

    check_option("--seed", args.seed, lo=0, integer=True)
    check_option("--alpha", args.alpha, lo=0, hi=1, lo_open=True, hi_open=True)
    if args.permutations is not None:
        check_option("--permutations", args.permutations, lo=1, integer=True)
        # the permutation indices of a shard are held as one int64 array
        count = args.permutations
        if args.shard is not None:
            i, n = parse_shard(args.shard)
            count = (count * (i + 1)) // n - (count * i) // n
        check_memory(f"--permutations {args.permutations:,} ({count:,} in this job)",
                     8.0 * count, "use fewer permutations per job: raise the shard count "
                     "(--shard I/N; the config's shards)")


def run(args) -> int:
    from .reliability import _outputs

    _check_numbers(args)
    with _outputs(args, args.out, args.summary, temporary=args.shard is not None):
        return _run(args)


def _run(args) -> int:
    from .reliability import _load, _seed_name

    m = _load(args)
    _check(args, m)
    name = _seed_name(args, m)
    if args.shard is not None:
        i, n = parse_shard(args.shard)
        counts = sig.significance_counts(m, args.test, args.permutations, args.seed, args.alpha,
                                         args.correction, name, i, n, exact=args.exact)
        write_parquet(counts, args.out)
        return 0
    pairs, summary = sig.significance_test(m, args.test, args.permutations, args.seed,
                                           args.alpha, args.correction, name, exact=args.exact)
    return _finish(pairs, summary, args)


def run_merge(args, frames) -> int:
    """``reliability merge --kind significance``: checked merge, then the results."""
    merged = sig.merge_significance(frames, args.inputs)
    pairs, summary = sig.significance_results(merged)
    return _finish(pairs, summary, args)


def register(rs, add_input, config_prefix) -> None:
    tests = "; ".join(f"{t.name}: {t.title}" + (" (family-wise)" if t.family_wise else "")
                      for t in sig.TESTS.values())
    corrections = "; ".join(f"{c.name}: {c.description}" for c in sig.CORRECTIONS.values())
    s = rs.add_parser("significance", help="significance tests over all run pairs with "
                      "multiple-comparison control (one row per pair + summary)",
                      description=__doc__.splitlines()[0])
    add_input(s)
    s.add_argument("--test", choices=list(sig.TESTS), default=sig.DEFAULT_TEST,
                   help=f"the test (default {sig.DEFAULT_TEST}): {tests}")
    s.add_argument("--correction", choices=list(sig.CORRECTIONS), default=None,
                   help="multiple-comparison correction of per-pair p-values (default: holm "
                   "for per-pair tests, none for the family-wise tests, which allow only "
                   f"none): {corrections}")
    s.add_argument("--permutations", type=int, default=None, metavar="B",
                   help=f"permutations of the permutation tests (default "
                   f"{sig.DEFAULT_PERMUTATIONS:,}); the t-test and ANOVA draw none and refuse it")
    s.add_argument("--exact", action="store_true",
                   help="randomisation test only: enumerate all 2^n swap assignments "
                   "(n <= 20 units) instead of drawing --permutations")
    s.add_argument("--seed", type=int, default=0,
                   help="seed: permutations are seeded by (seed, measure, test, permutation "
                        "index) only, so any shard count gives the same result (default 0)")
    s.add_argument("--alpha", type=float, default=0.05, help="significance level (default 0.05)")
    s.add_argument("--shard", default=None,
                   help="I/N: write the per-pair counts of shard I (0-based) of N; merge them "
                   "with `reliability merge --kind significance`")
    s.add_argument("--summary", default=None, help="also write the one-row summary here")
    s.add_argument("--out", required=True, help="per-pair Parquet (or shard counts)")
    config_prefix(s)
    add_force_option(s)
    s.set_defaults(func=run)
