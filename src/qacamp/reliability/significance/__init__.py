"""Which differences between runs are real: significance tests over all run
pairs with multiple-comparison control (docs/reliability.md, "Significance").

The registry style of :mod:`qacamp.measures`: every test is a small
:class:`SignificanceTest` record (name, title, formula, citation, what it
needs, its kernel) in :data:`TESTS`, one module per test holding the record
and its kernel; the corrections are :data:`.corrections.CORRECTIONS`.  The command
line (``qacamp reliability significance``), its errors and the docs are
generated from these records.

- :mod:`.randomisation`: paired randomisation (Fisher) test per run pair;
- :mod:`.tukey_hsd`: randomised Tukey HSD over all runs (Sakai);
- :mod:`.t_test`: paired t-test per pair (scipy's ``ttest_rel``);
- :mod:`.anova_tukey`: two-way ANOVA (unit x run) and Tukey HSD (Carterette 2012);
- :mod:`.baseline`: every run against one baseline run (each record's
  baseline kernel; :mod:`.dunnett` for the ANOVA);
- :mod:`.corrections`: Holm, Bonferroni, Benjamini-Hochberg, none (statsmodels'
  ``multipletests``);
- :mod:`.results`: shard counts, their checked merge, p-values, corrections,
  the per-pair frame and the one-row summary.

The unit is the campaign's reliability unit (the rows of the
:class:`~qacamp.reliability.matrix.ScoreMatrix`).  The permutation tests
recompute the measure of every permuted run from the permuted responses
(:meth:`ScoreMatrix.mixed_scores`): c@1 from the permuted counts, CWS in
each permuted run's own confidence order, PAN's measures from the permuted
values; a mean of per-unit scores is used only for measures that are means.

Randomness: permutation ``b`` of test ``T`` on measure ``M`` draws from
``SeedSequence([seed, crc32(M), crc32(T), b])`` only
(:func:`qacamp.reliability.seeds.trial_rng`), so merged shards are identical
for any shard count.
"""

from __future__ import annotations

from .corrections import CORRECTIONS, adjust
from .record import SignificanceTest
from .registry import DEFAULT_PERMUTATIONS, DEFAULT_TEST, TESTS
from .results import (
    COUNT_SCHEMA,
    PAIR_SCHEMA,
    SUMMARY_SCHEMA,
    baseline_index,
    check_settings,
    merge_significance,
    significance_counts,
    significance_results,
    significance_test,
)


def to_markdown() -> str:
    """The tests and corrections as Markdown tables (docs/reliability.md embeds it)."""
    out = ["| test | title | statistic and p-value | family-wise | measures | citation |",
           "|---|---|---|---|---|---|"]
    for t in TESTS.values():
        cells = [f"`{t.name}`", t.title, t.formula, "yes" if t.family_wise else "no (corrected)",
                 "means of per-unit scores" if t.mean_only else "any (recomputed)",
                 t.citation]
        out.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    out += ["", "| correction | method | citation |", "|---|---|---|"]
    for c in CORRECTIONS.values():
        out.append(f"| `{c.name}` | {c.description} | {c.citation} |")
    return "\n".join(out)


__all__ = ["SignificanceTest", "TESTS", "DEFAULT_TEST", "DEFAULT_PERMUTATIONS", "CORRECTIONS", "COUNT_SCHEMA",
           "PAIR_SCHEMA", "SUMMARY_SCHEMA", "adjust", "baseline_index", "check_settings",
           "merge_significance", "significance_counts", "significance_results",
           "significance_test", "to_markdown"]
