"""Kendall tau between the rankings of score matrices, and the swaps between
the first two; kernel :mod:`qacamp.reliability.ranking`."""

from __future__ import annotations

import polars as pl

from ...bounds import parse_grid
from ...errors import UsageError
from .. import ranking as kernel
from .record import OUT, Analysis, InputFile, Option, Output, Result, grid_text, wrote

SWAPS_SCHEMA = {"threshold": pl.Float64, "swaps": pl.Int64, "pairs": pl.Int64}


def run(inputs, args) -> Result:
    frames = [pl.DataFrame({"ranking": label, "run": list(m.runs), "score": m.full_scores()})
              for label, m in inputs.files["rankings"]]
    if len(frames) < 2:
        raise UsageError("kendall needs at least two rankings (LABEL=matrix.csv ...)")
    table = kernel.tau_table(pl.concat(frames), variant=args.variant)
    out = {"out": table}
    if args.swaps_out:
        j = frames[0].join(frames[1], on="run", suffix="_b").sort("run")
        out["swaps_out"] = kernel.ranking_swaps(j["score"].to_numpy(), j["score_b"].to_numpy(),
                                                parse_grid(args.thresholds))
    labels = [label for label, _ in inputs.files["rankings"]]
    return Result(out, wrote(args, f"{table.height} pairs of rankings ({args.variant})"),
                  _warnings(labels, [f["run"].to_list() for f in frames], table))


def _warnings(labels: list[str], runs: list[list[str]], table: pl.DataFrame) -> list[str]:
    """A run some rankings score and another does not (each pair of rankings
    is compared on the runs both score), and a tau left undefined."""
    every = set().union(*runs)
    lines = []
    for label, have in zip(labels, runs, strict=True):
        missing = sorted(every - set(have))
        if missing:
            shown = ", ".join(missing[:5]) + (f" and {len(missing) - 5} more"
                                              if len(missing) > 5 else "")
            lines.append(f"ranking {label} has no score for {len(missing)} run(s) another "
                         f"ranking scores ({shown}): each pair of rankings is compared on the "
                         "runs both score (check the run names)")
    for row in table.filter(pl.col("tau").is_nan()).iter_rows(named=True):
        pair = f"{row['ranking_a']} vs {row['ranking_b']}"
        n = row["n_runs"]  # (2 runs or more: NaN only from tau_b's 0/0)
        why = (f"they share {n} run(s), tau needs 2" if n < 2 else
               "every pair of runs is tied in one of them (0/0)")
        lines.append(f"{pair}: tau is undefined, written as NaN ({why})")
    return lines


ANALYSIS = Analysis(
    name="kendall",
    help="Kendall tau between rankings of matrices",
    run=run,
    matrix=None,
    files=(InputFile("rankings", read="rankings"),),
    options=(
        Option(("rankings",), "LABEL=matrix.csv (run scores = column means)", nargs="+"),
        Option(("--include-baselines",), "keep runs named baseline:*", action="store_true"),
        Option(("--swaps-out",), "write swaps between the first two rankings (threshold, "
               "swaps, pairs)"),
        Option(("--thresholds",), "score differences for the swap counts of --swaps-out "
               "(default 0.05,0.07)", default="0.05,0.07", python=grid_text),
        Option(("--variant",), kernel.VARIANT_HELP, choices=kernel.VARIANTS,
               default=kernel.DEFAULT_VARIANT),
        OUT,
    ),
    outputs=(Output("out", None, kernel.TAU_SCHEMA), Output("swaps_out", None, SWAPS_SCHEMA)),
    per=None,
)
