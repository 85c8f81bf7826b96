# Resampling analyses, split into SHARDS jobs each; merge rules sum the counts.
# Every trial's subsets come from (seed, measure, size, trial) only, so the
# merged result is identical for any shard count.


SCORES_DONE = "results/{campaign}/scores/runs.parquet"


rule swap_shard:
    """One shard of the swap-method trials: swaps and comparisons per (size, bin)."""
    input:
        SCORES_DONE,
        "results/{campaign}/ingest/matrix.parquet",
    output:
        temp("results/{campaign}/reliability/shards/swap_{measure}.{shard}.parquet"),
    params:
        matrix=matrix_args,
        swap=swap_args,
        seed=lambda wc: plan(wc.campaign)["seed"],
        shards=SHARDS,
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/swap_{measure}.{shard}.log",
    shell:
        "qacamp reliability swap {params.matrix} {params.swap} --seed {params.seed} "
        "--shard {wildcards.shard}/{params.shards} --out {output} 2> {log}"


rule swap_merge:
    """Sum the shards' swap counts."""
    input:
        expand(
            "results/{{campaign}}/reliability/shards/swap_{{measure}}.{shard}.parquet",
            shard=range(SHARDS),
        ),
    output:
        "results/{campaign}/reliability/swap_{measure}.parquet",
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/swap_{measure}.merge.log",
    shell:
        "qacamp reliability merge --kind swap {output} {input} 2> {log}"


rule swap_fit:
    """Per-bin error curves, extrapolation to the full size, required difference."""
    input:
        counts="results/{campaign}/reliability/swap_{measure}.parquet",
    output:
        fits="results/{campaign}/reliability/swap_{measure}_fits.parquet",
        summary="results/{campaign}/reliability/swap_{measure}_summary.parquet",
    params:
        matrix=matrix_args,
        s=lambda wc: plan(wc.campaign)["swap"],
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/swap_{measure}.fit.log",
    shell:
        "qacamp reliability fit {params.matrix} --counts {input.counts} "
        "--model {params.s[fit]} --min-fit-size {params.s[min_fit_size]} --level {params.s[level]} "
        "--bin-width {params.s[bin_width]} --out {output.fits} --summary {output.summary} 2> {log}"


rule stability_shard:
    """One shard of the stability-vs-ties trials."""
    input:
        SCORES_DONE,
        "results/{campaign}/ingest/matrix.parquet",
    output:
        temp("results/{campaign}/reliability/shards/stability_{measure}.{shard}.parquet"),
    params:
        matrix=matrix_args,
        s=lambda wc: plan(wc.campaign)["stability"],
        seed=lambda wc: plan(wc.campaign)["seed"],
        shards=SHARDS,
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/stability_{measure}.{shard}.log",
    shell:
        "qacamp reliability stability {params.matrix} --size {params.s[size]} "
        "--trials {params.s[trials]} --fuzz {params.s[fuzz]} --seed {params.seed} "
        "--shard {wildcards.shard}/{params.shards} --counts --out {output} 2> {log}"


rule stability_merge:
    input:
        expand(
            "results/{{campaign}}/reliability/shards/stability_{{measure}}.{shard}.parquet",
            shard=range(SHARDS),
        ),
    output:
        "results/{campaign}/reliability/stability_{measure}.parquet",
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/stability_{measure}.merge.log",
    shell:
        "qacamp reliability merge --kind stability {output} {input} 2> {log}"


rule bootstrap_shard:
    """One shard of Sakai's paired bootstrap test over all run pairs."""
    input:
        SCORES_DONE,
        "results/{campaign}/ingest/matrix.parquet",
    output:
        temp("results/{campaign}/reliability/shards/bootstrap_{measure}.{shard}.parquet"),
    params:
        matrix=matrix_args,
        s=lambda wc: plan(wc.campaign)["bootstrap"],
        seed=lambda wc: plan(wc.campaign)["seed"],
        shards=SHARDS,
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/bootstrap_{measure}.{shard}.log",
    shell:
        "qacamp reliability bootstrap {params.matrix} --samples {params.s[trials]} "
        "--alpha {params.s[alpha]} --seed {params.seed} --shard {wildcards.shard}/{params.shards} "
        "--counts --out {output} 2> {log}"


rule bootstrap_merge:
    input:
        expand(
            "results/{{campaign}}/reliability/shards/bootstrap_{{measure}}.{shard}.parquet",
            shard=range(SHARDS),
        ),
    output:
        pairs="results/{campaign}/reliability/bootstrap_{measure}.parquet",
        summary="results/{campaign}/reliability/bootstrap_{measure}_summary.parquet",
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/bootstrap_{measure}.merge.log",
    shell:
        "qacamp reliability merge --kind bootstrap --summary {output.summary} {output.pairs} "
        "{input} 2> {log}"


# One rule per campaign: the equivalence files depend on the campaign's measures.
for _c in CAMPAIGNS:

    rule:
        """Kendall tau between rankings, swaps between rankings, assessor agreement,
        per-unit distributions, box-plot data and equivalence groups."""
        name:
            f"extras_{_c}"
        input:
            scores=f"results/{_c}/scores/runs.parquet",
            summaries=[
                f"results/{_c}/reliability/swap_{m}_summary.parquet" for m in plan(_c)["measures"]
            ],
        output:
            extras_targets(_c),
        params:
            campaign=_c,
            measures=" ".join(f"--measure {m}" for m in plan(_c)["measures"]),
        conda:
            "../envs/qacamp.yaml"
        log:
            f"results/{_c}/logs/extras.log",
        shell:
            "qacamp reliability extras --ingest results/{params.campaign}/ingest "
            "--scores results/{params.campaign}/scores {params.measures} "
            "$(printf -- '--summary %s ' {input.summaries}) "
            "--out results/{params.campaign}/reliability 2> {log}"
