localrules:
    campaign_config,
    campaign_plan,


rule campaign_config:
    """The campaign's config as JSON: titles and paths reach the qacamp commands
    through this file, never through a shell command line."""
    output:
        out("{campaign}/config.json"),
    params:
        content=config_file_content,
    log:
        out("{campaign}/logs/config.log"),
    run:
        with writing("qacamp workflow config", files=[output[0]]):
            write_text(params.content, output[0])


rule campaign_plan:
    """The campaign's resolved reliability plan as JSON (recorded by the manifest).
    A separate file, so that changing a reliability setting does not rerun ingest."""
    output:
        out("{campaign}/plan.json"),
    params:
        content=plan_file_content,
    log:
        out("{campaign}/logs/plan.log"),
    run:
        with writing("qacamp workflow plan", files=[output[0]]):
            write_text(params.content, output[0])


rule ingest:
    """Read a campaign's raw files into typed canonical Parquet tables.  The old
    manifest goes first (`--invalidates`, removed if it is as qacamp wrote it):
    it describes inputs that are being replaced, and a failed ingest must
    leave none."""
    input:
        raw=lambda wc: raw_inputs(wc.campaign),
        config=out("{campaign}/config.json"),
    output:
        tables=expand(out("{{campaign}}/ingest/{t}.parquet"), t=INGEST_TABLES),
        resolved=out("{campaign}/ingest/campaign.json"),
    params:
        raw_stamp=raw_stamp,
        outdir=lambda wc, output: os.path.dirname(output.resolved),
        manifest=lambda wc: out(f"{wc.campaign}/manifest.json"),
    threads: STEP_THREADS
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/ingest.log"),
    shell:
        "qacamp ingest --config {input.config:q} --campaign {wildcards.campaign:q} "
        "--out {params.outdir:q} --invalidates {params.manifest:q} --threads {threads:q} "
        "2> {log:q}"


rule manifest:
    """Provenance: input hashes, config, reliability plan and seeds, library
    versions, git commit, and the hashes of every intermediate (ingest,
    scores, reliability), so it is written after them."""
    input:
        raw=lambda wc: raw_inputs(wc.campaign),
        config=out("{campaign}/config.json"),
        plan=out("{campaign}/plan.json"),
        ingested=out("{campaign}/ingest/campaign.json"),
        intermediates=lambda wc: [out(f"{wc.campaign}/ingest/{t}.parquet") for t in INGEST_TABLES]
        + [out(f"{wc.campaign}/scores/{f}") for f in SCORE_FILES]
        + reliability_targets(wc.campaign)
        + extras_targets(wc.campaign),
    output:
        report(
            out("{campaign}/manifest.json"),
            caption="../report/manifest.rst",
            category="{campaign}",
            subcategory="provenance",
        ),
    params:
        repo=workflow.basedir,
    conda:
        "../envs/qacamp.yaml"
    log:
        out("{campaign}/logs/manifest.log"),
    shell:
        "qacamp manifest --config {input.config:q} --plan {input.plan:q} "
        "--name {wildcards.campaign:q} --repo {params.repo:q} --out {output:q} 2> {log:q}"
