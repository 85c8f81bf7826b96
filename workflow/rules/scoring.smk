rule score:
    """Score every run with every measure of the campaign's kind, at every scope."""
    input:
        tables=expand("results/{{campaign}}/ingest/{t}.parquet", t=INGEST_TABLES),
        resolved="results/{campaign}/ingest/campaign.json",
    output:
        files=expand("results/{{campaign}}/scores/{f}", f=SCORE_FILES),
        db="results/{campaign}/campaign.duckdb",
    params:
        ingest=lambda wc, input: os.path.dirname(input.resolved),
        outdir=lambda wc, output: os.path.dirname(output.files[0]),
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/{campaign}/logs/score.log",
    shell:
        "qacamp score --ingest {params.ingest} --out {params.outdir} 2> {log}"
