rule ingest:
    """Read a campaign's raw files into typed canonical Parquet tables."""
    input:
        lambda wc: raw_files(campaign_cfg(wc.campaign)),
    output:
        tables=expand("results/{{campaign}}/ingest/{t}.parquet", t=INGEST_TABLES),
        resolved="results/{campaign}/ingest/campaign.json",
    params:
        campaign=campaign_json,
        outdir=lambda wc, output: os.path.dirname(output.resolved),
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/ingest.log",
    shell:
        "qacamp ingest --name {wildcards.campaign} --campaign-json {params.campaign} "
        "--out {params.outdir} 2> {log}"


rule manifest:
    """Provenance: input hashes, config, seeds, library versions, git commit."""
    input:
        lambda wc: raw_files(campaign_cfg(wc.campaign)),
    output:
        report(
            "results/{campaign}/manifest.json",
            caption="../report/manifest.rst",
            category="{campaign}",
            subcategory="provenance",
        ),
    params:
        campaign=campaign_json,
        settings=global_json,
        repo=workflow.basedir,
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/manifest.log",
    shell:
        "qacamp manifest --name {wildcards.campaign} --campaign-json {params.campaign} "
        "--global-json {params.settings} --repo {params.repo} --out {output} 2> {log}"
