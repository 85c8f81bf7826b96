"""Reliability analyses of QA evaluation campaigns (docs/reliability.md).

Score matrices (:mod:`.matrix`), seeding/sharding (:mod:`.seeds`), the swap
method (:mod:`.swap`) and its extrapolation (:mod:`.fits`), stability vs
discrimination (:mod:`.stability`), rank correlation (:mod:`.ranking`),
assessor agreement (:mod:`.agreement`), per-unit distributions
(:mod:`.distributions`), runs that cannot be distinguished as compact letters
(:mod:`.letters`), Sakai's paired bootstrap (:mod:`.bootstrap`) and the
significance tests with multiple-comparison control (:mod:`.significance`).  All functions take and return numpy
arrays / polars frames; the files an analysis reads are read by the loader
(:mod:`qacamp.loader`) and written by :mod:`qacamp.cli.reliability`, both
driven by the analysis records (:mod:`.analyses`).

Output frames (Parquet columns):

- swap counts: size, bin, swaps, comparisons (Int64), max_score
- fits: bin, lo, hi, a, b, n_points, error_at_full, size_at_level, model, swaps,
  comparisons, reason, warning, observed_size, observed_swaps,
  observed_comparisons, observed_error
- fit summary: measure, full_size, level, required_difference (the LOWER edge
  of the first bin whose error rate is at most the level), size_reached,
  sensitivity, n_pairs, highest_score, relative_difference, mode, observed_at,
  model, min_fit_size, fitted_bins, required_bin, n_runs, n_comparisons,
  highest_subset_score, relative_difference_subsets, min_comparisons, warning
- stability counts: measure, size, fuzziness, run_x, run_y, wins_x, wins_y, ties, trials
- stability: measure, size, fuzziness, error_rate, prop_ties, wins_min_sum, ties, decisions
- bootstrap counts: measure, run_x, run_y, n_units, mean_diff, t_obs, alpha,
  total_samples, extreme, samples, top_abs_t, top_abs_diff
- bootstrap pairs: measure, run_x, run_y, mean_diff, t_obs, asl, significant, diff_at_threshold
- bootstrap summary: measure, alpha, samples, n_pairs, n_significant,
  discriminative_power, estimated_difference, median_difference
- kendall: ranking_a, ranking_b, n_runs, tau, variant, tied_pairs_a, tied_pairs_b;
  ranking swaps: threshold, swaps, pairs
- judgment tuples: tuple, count, share; median zero: qtype, n_units, n_median_zero, share
- box stats: unit, n, min, q1, median, q3, max, whisker_lo, whisker_hi
- equivalence: criterion, run, score, letters, n_indistinguishable,
  indistinguishable, threshold
- significance pairs and summary: see :mod:`.significance.results`

Campaign-level runs of the last five (``qacamp reliability extras``) are in
:mod:`.campaign_level`: kendall.parquet, ranking_swaps.parquet (ranking_a, ranking_b,
threshold, swaps, pairs), agreement.parquet, distributions.parquet,
boxplot.parquet, equivalence_<measure>.parquet.
"""

from .agreement import judgment_tuples

# ``qacamp.reliability.swap``, ``.stability`` and ``.design`` are the notebook
# API's functions (``qacamp.swap``, ...: the command's checks, any scores;
# :mod:`.analyses.python`); their modules are imported by their full names
# (``from qacamp.reliability.swap import ...``).
from .analyses.python import design, stability, swap
from .bootstrap import bootstrap_counts, bootstrap_results, bootstrap_test, merge_bootstrap
from .builders import from_long, from_matrix_table, from_outcomes
from .curves import DEFAULT_MODEL, MODELS, describe_model, fit_curve, model_error
from .distributions import box_stats, median_zero_share
from .fits import FitSettings, fit_bins, fit_swap, required_difference, summarize
from .letters import compact_letters, significance_letters, swap_letters
from .matrix import ScoreMatrix
from .ranking import kendall_tau, ranking_swaps, tau_table, tied_pairs
from .seeds import parse_shard, parse_sizes, shard_trials, stable_hash, trial_rng, trial_seed
from .stability import merge_stability_counts, stability_counts, summarize_stability
from .swap import error_rates, merge_swap, swap_counts

__all__ = [
    "DEFAULT_MODEL", "FitSettings", "MODELS", "describe_model", "fit_curve", "model_error",
    "tied_pairs", "ScoreMatrix", "bootstrap_counts", "bootstrap_results", "bootstrap_test", "box_stats",
    "compact_letters", "significance_letters", "swap_letters", "error_rates", "fit_bins", "fit_swap", "from_long", "from_outcomes",
    "from_matrix_table", "judgment_tuples", "kendall_tau", "median_zero_share",
    "merge_bootstrap", "merge_stability_counts", "merge_swap", "parse_shard", "parse_sizes",
    "ranking_swaps", "required_difference", "shard_trials", "stability",
    "stability_counts", "stable_hash", "summarize", "summarize_stability", "swap_counts",
    "tau_table", "trial_rng", "trial_seed", "swap", "design",
]
