# The overview paper's tables (LaTeX, Markdown, CSV) and figures (PNG, SVG),
# with captions for the HTML report (`snakemake --report`).  Which tables and
# figures a campaign has depends on its kind, so each rule writes a folder.


rule report_tables:
    """Tables of one campaign from its scores and reliability results."""
    input:
        scores=out("{campaign}/scores/runs.parquet"),
        reliability=lambda wc: reliability_targets(wc.campaign) + extras_targets(wc.campaign),
    output:
        report(
            directory(out("{campaign}/tables")),
            patterns=["{name}.csv"],
            caption="../report/tables.rst",
            category="{campaign}",
            subcategory="tables",
        ),
    conda:
        "../envs/qacamp.yaml"
    params:
        campaign_dir=lambda wc: out(wc.campaign),
        measures_argv=lambda wc: options("--measure", plan(wc.campaign)["measures"]),
    log:
        out("{campaign}/logs/report_tables.log"),
    shell:
        "qacamp report tables --campaign-dir {params.campaign_dir:q} {params.measures_argv} "
        "--out {output:q} > {log:q} 2>&1"


rule report_figures:
    """Figures of one campaign (error-rate curves, stability, per-series, reading tests)."""
    input:
        scores=out("{campaign}/scores/runs.parquet"),
        reliability=lambda wc: reliability_targets(wc.campaign),
    output:
        report(
            directory(out("{campaign}/figures")),
            patterns=["{name}.png"],
            caption="../report/figures.rst",
            category="{campaign}",
            subcategory="figures",
        ),
    conda:
        "../envs/qacamp.yaml"
    params:
        campaign_dir=lambda wc: out(wc.campaign),
        measures_argv=lambda wc: options("--measure", plan(wc.campaign)["measures"]),
    log:
        out("{campaign}/logs/report_figures.log"),
    shell:
        "qacamp report figures --campaign-dir {params.campaign_dir:q} {params.measures_argv} "
        "--out {output:q} > {log:q} 2>&1"


rule report_editions:
    """Multi-edition overview (QA4MRE Table 1) over the campaigns of this config
    that name an edition."""
    input:
        lambda wc: [out(f"{c}/scores/runs.parquet") for c in EDITION_CAMPAIGNS],
    output:
        report(
            directory(out("overview")),
            patterns=["{name}.csv"],
            caption="../report/editions.rst",
            category="overview",
        ),
    params:
        dirs_argv=lambda wc: options("--campaign-dir", [out(c) for c in EDITION_CAMPAIGNS]),
    conda:
        "../envs/qacamp.yaml"
    log:
        out("logs/report_editions.log"),
    shell:
        "qacamp report editions {params.dirs_argv} --out {output:q} > {log:q} 2>&1"
