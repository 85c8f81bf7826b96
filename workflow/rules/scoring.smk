rule score_shard:
    """Score block I of the runs (name order) of a campaign: a shard folder for
    `qacamp score --merge` (config `score_shards` > 1)."""
    input:
        tables=expand(out("{{campaign}}/ingest/{t}.parquet"), t=INGEST_TABLES),
        resolved=out("{campaign}/ingest/campaign.json"),
    output:
        temp(directory(out("{campaign}/score_shards/{shard}"))),
    params:
        ingest=lambda wc, input: os.path.dirname(input.resolved),
        shard=lambda wc: f"{wc.shard}/{SCORE_SHARDS}",
    threads: STEP_THREADS
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/score.{shard}.log"),
    shell:
        "qacamp score --ingest {params.ingest:q} --out {output:q} --shard {params.shard:q} "
        "--threads {threads:q} 2> {log:q}"


rule score:
    """Score every run with every measure of the campaign's kind, at every scope:
    in one job, or (config `score_shards` > 1) by merging the shard folders,
    byte-identical to one job (a merge scores nothing: one thread)."""
    input:
        tables=expand(out("{{campaign}}/ingest/{t}.parquet"), t=INGEST_TABLES),
        resolved=out("{campaign}/ingest/campaign.json"),
        shards=lambda wc: (
            [out(f"{wc.campaign}/score_shards/{i}") for i in range(SCORE_SHARDS)]
            if SCORE_SHARDS > 1
            else []
        ),
    output:
        files=expand(out("{{campaign}}/scores/{f}"), f=SCORE_FILES),
    params:
        ingest=lambda wc, input: os.path.dirname(input.resolved),
        outdir=lambda wc, output: os.path.dirname(output.files[0]),
        merge_argv=lambda wc, input: argv("--merge", *input.shards) if input.shards else "",
    threads: 1 if SCORE_SHARDS > 1 else STEP_THREADS
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/score.log"),
    shell:
        "qacamp score --ingest {params.ingest:q} --out {params.outdir:q} {params.merge_argv} "
        + ("" if SCORE_SHARDS > 1 else "--threads {threads:q} ")
        + "2> {log:q}"


rule duckdb:
    """One SQL view per Parquet table of the campaign (ingest, scores, reliability).
    A convenience index, not a result: rebuild it with the same command after
    moving the results (docs/results.md)."""
    input:
        lambda wc: [out(f"{wc.campaign}/ingest/{t}.parquet") for t in INGEST_TABLES]
        + [out(f"{wc.campaign}/scores/{f}") for f in SCORE_FILES]
        + reliability_targets(wc.campaign)
        + extras_targets(wc.campaign),
    output:
        out("{campaign}/campaign.duckdb"),
    params:
        campaign_dir=lambda wc: out(wc.campaign),
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/duckdb.log"),
    shell:
        "qacamp duckdb {params.campaign_dir:q} > {log:q} 2>&1"
