# The overview paper's tables (LaTeX, Markdown, CSV) and figures (PNG, SVG),
# with captions for the HTML report (`snakemake --report`).  Which tables and
# figures a campaign has depends on its kind, so each rule writes a folder.


rule report_tables:
    """Tables of one campaign from its scores and reliability results."""
    input:
        scores="results/{campaign}/scores/runs.parquet",
        reliability=lambda wc: reliability_targets(wc.campaign) + extras_targets(wc.campaign),
    output:
        report(
            directory("results/{campaign}/tables"),
            patterns=["{name}.csv"],
            caption="../report/tables.rst",
            category="{campaign}",
            subcategory="tables",
        ),
    conda:
        "../envs/qacamp.yaml"
    params:
        measures=lambda wc: " ".join(f"--measure {m}" for m in plan(wc.campaign)["measures"]),
    log:
        "results/{campaign}/logs/report_tables.log",
    shell:
        "qacamp report tables --campaign-dir results/{wildcards.campaign} {params.measures} "
        "--out {output} > {log} 2>&1"


rule report_figures:
    """Figures of one campaign (error-rate curves, stability, per-series, reading tests)."""
    input:
        scores="results/{campaign}/scores/runs.parquet",
        reliability=lambda wc: reliability_targets(wc.campaign),
    output:
        report(
            directory("results/{campaign}/figures"),
            patterns=["{name}.png"],
            caption="../report/figures.rst",
            category="{campaign}",
            subcategory="figures",
        ),
    conda:
        "../envs/qacamp.yaml"
    params:
        measures=lambda wc: " ".join(f"--measure {m}" for m in plan(wc.campaign)["measures"]),
    log:
        "results/{campaign}/logs/report_figures.log",
    shell:
        "qacamp report figures --campaign-dir results/{wildcards.campaign} {params.measures} "
        "--out {output} > {log} 2>&1"


rule report_editions:
    """Multi-edition overview (QA4MRE Table 1) over the campaigns that name an edition."""
    input:
        lambda wc: [f"results/{c}/scores/runs.parquet" for c in EDITION_CAMPAIGNS],
    output:
        report(
            directory("results/overview"),
            patterns=["{name}.csv"],
            caption="../report/editions.rst",
            category="overview",
        ),
    params:
        dirs=lambda wc: " ".join(f"--campaign-dir results/{c}" for c in EDITION_CAMPAIGNS),
    conda:
        "../envs/qacamp.yaml"
    log:
        "results/logs/report_editions.log",
    shell:
        "qacamp report editions {params.dirs} --out {output} > {log} 2>&1"
