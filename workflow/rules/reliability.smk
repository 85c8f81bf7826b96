# Resampling analyses, split into SHARDS jobs each; merge rules sum the counts.
# Every trial's subsets come from (seed, measure, size, trial) only, so the
# merged result is identical for any shard count.  Settings reach the command
# line as quoted words (`argv`, `:q`), never pasted.


SCORES_DONE = out("{campaign}/scores/runs.parquet")
MATRIX = out("{campaign}/ingest/matrix.parquet")


rule swap_shard:
    """One shard of the swap-method trials: swaps and comparisons per (size, bin)."""
    input:
        SCORES_DONE,
        MATRIX,
    output:
        temp(out("{campaign}/reliability/shards/swap_{measure}.{shard}.parquet")),
    params:
        matrix_argv=matrix_argv,
        swap_argv=swap_argv,
        seed=lambda wc: plan(wc.campaign)["seed"],
        shard=lambda wc: f"{wc.shard}/{SHARDS}",
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/swap_{measure}.{shard}.log"),
    shell:
        "qacamp reliability swap {params.matrix_argv} {params.swap_argv} --seed {params.seed:q} "
        "--shard {params.shard:q} --out {output:q} 2> {log:q}"


rule swap_merge:
    """Sum the shards' swap counts."""
    input:
        expand(
            out("{{campaign}}/reliability/shards/swap_{{measure}}.{shard}.parquet"),
            shard=range(SHARDS),
        ),
    output:
        out("{campaign}/reliability/swap_{measure}.parquet"),
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/swap_{measure}.merge.log"),
    shell:
        "qacamp reliability merge --kind swap {output:q} {input:q} 2> {log:q}"


rule swap_fit:
    """Per-bin error curves, extrapolation to the full size, required difference."""
    input:
        counts=out("{campaign}/reliability/swap_{measure}.parquet"),
    output:
        fits=out("{campaign}/reliability/swap_{measure}_fits.parquet"),
        summary=out("{campaign}/reliability/swap_{measure}_summary.parquet"),
    params:
        matrix_argv=matrix_argv,
        fit_argv=fit_argv,
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/swap_{measure}.fit.log"),
    shell:
        "qacamp reliability fit {params.matrix_argv} --counts {input.counts:q} {params.fit_argv} "
        "--out {output.fits:q} --summary {output.summary:q} 2> {log:q}"


rule stability_shard:
    """One shard of the stability-vs-ties trials."""
    input:
        SCORES_DONE,
        MATRIX,
    output:
        temp(out("{campaign}/reliability/shards/stability_{measure}.{shard}.parquet")),
    params:
        matrix_argv=matrix_argv,
        stability_argv=stability_argv,
        seed=lambda wc: plan(wc.campaign)["seed"],
        shard=lambda wc: f"{wc.shard}/{SHARDS}",
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/stability_{measure}.{shard}.log"),
    shell:
        "qacamp reliability stability {params.matrix_argv} {params.stability_argv} "
        "--seed {params.seed:q} --shard {params.shard:q} --counts --out {output:q} 2> {log:q}"


rule stability_merge:
    input:
        expand(
            out("{{campaign}}/reliability/shards/stability_{{measure}}.{shard}.parquet"),
            shard=range(SHARDS),
        ),
    output:
        out("{campaign}/reliability/stability_{measure}.parquet"),
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/stability_{measure}.merge.log"),
    shell:
        "qacamp reliability merge --kind stability {output:q} {input:q} 2> {log:q}"


rule bootstrap_shard:
    """One shard of Sakai's paired bootstrap test over all run pairs."""
    input:
        SCORES_DONE,
        MATRIX,
    output:
        temp(out("{campaign}/reliability/shards/bootstrap_{measure}.{shard}.parquet")),
    params:
        matrix_argv=matrix_argv,
        bootstrap_argv=lambda wc: argv(
            "--samples", plan(wc.campaign)["bootstrap"]["trials"],
            "--alpha", plan(wc.campaign)["bootstrap"]["alpha"],
        ),
        seed=lambda wc: plan(wc.campaign)["seed"],
        shard=lambda wc: f"{wc.shard}/{SHARDS}",
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/bootstrap_{measure}.{shard}.log"),
    shell:
        "qacamp reliability bootstrap {params.matrix_argv} {params.bootstrap_argv} "
        "--seed {params.seed:q} --shard {params.shard:q} --counts --out {output:q} 2> {log:q}"


rule bootstrap_merge:
    input:
        expand(
            out("{{campaign}}/reliability/shards/bootstrap_{{measure}}.{shard}.parquet"),
            shard=range(SHARDS),
        ),
    output:
        pairs=out("{campaign}/reliability/bootstrap_{measure}.parquet"),
        summary=out("{campaign}/reliability/bootstrap_{measure}_summary.parquet"),
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/bootstrap_{measure}.merge.log"),
    shell:
        "qacamp reliability merge --kind bootstrap --summary {output.summary:q} "
        "{output.pairs:q} {input:q} 2> {log:q}"


rule significance_shard:
    """One shard of a permutation test's permutations: per-pair counts."""
    input:
        SCORES_DONE,
        MATRIX,
    output:
        temp(out("{campaign}/reliability/shards/significance_{measure}.{shard}.parquet")),
    params:
        matrix_argv=matrix_argv,
        significance_argv=significance_argv,
        seed=lambda wc: plan(wc.campaign)["seed"],
        shard=lambda wc: f"{wc.shard}/{SHARDS}",
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/significance_{measure}.{shard}.log"),
    shell:
        "qacamp reliability significance {params.matrix_argv} {params.significance_argv} "
        "--seed {params.seed:q} --shard {params.shard:q} --out {output:q} 2> {log:q}"


rule significance:
    """Merge a permutation test's shards (checked: complete, one analysis), or run the
    t-test / ANOVA in one job; p-values, corrections, the one-row summary."""
    input:
        significance_input,
    output:
        pairs=out("{campaign}/reliability/significance_{measure}.parquet"),
        summary=out("{campaign}/reliability/significance_{measure}_summary.parquet"),
    params:
        command_argv=significance_command_argv,
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/significance_{measure}.log"),
    shell:
        "qacamp reliability {params.command_argv} 2> {log:q}"


# One rule per campaign: the equivalence files depend on the campaign's measures.
for _c in CAMPAIGNS:

    rule:
        """Kendall tau between rankings, swaps between rankings, assessor agreement,
        per-unit distributions, box-plot data and the runs each run cannot be told apart
        from (swap method and significance test, as letters)."""
        name:
            f"extras_{_c}"
        input:
            scores=out(f"{_c}/scores/runs.parquet"),
            summaries=[
                out(f"{_c}/reliability/swap_{m}_summary.parquet") for m in plan(_c)["measures"]
            ],
            significance=[
                out(f"{_c}/reliability/significance_{m}.parquet") for m in plan(_c)["measures"]
            ],
        output:
            extras_targets(_c),
        params:
            dirs_argv=argv(
                "--ingest", out(f"{_c}/ingest"),
                "--scores", out(f"{_c}/scores"),
                "--out", out(f"{_c}/reliability"),
            ),
            measures_argv=options("--measure", plan(_c)["measures"]),
            kendall_argv=argv("--kendall-variant", plan(_c)["kendall"]["variant"]),
            summaries_argv=lambda wc, input: options("--summary", input.summaries),
            significance_argv=lambda wc, input: options("--significance", input.significance),
        conda:
            "../envs/qacamp.yaml"
        log:
            out(f"{_c}/logs/extras.log"),
        shell:
            "qacamp reliability extras {params.dirs_argv} {params.measures_argv} "
            "{params.kendall_argv} {params.summaries_argv} {params.significance_argv} 2> {log:q}"
