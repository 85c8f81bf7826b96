# The overview paper's tables (LaTeX, Markdown, CSV) and figures (PNG, SVG),
# the campaign overview pages (<outdir>/<campaign>/report.html) and their index
# (<outdir>/index.html), with captions for Snakemake's own report
# (`snakemake --report`).  Which tables and figures a campaign has depends on
# its kind, so the table and figure rules each write a folder.  Every report
# step reads the campaign's plan.json (qacamp.report.campaign.campaign_plan),
# so each declares it: without it a step could run before campaign_plan and
# record other inputs than a run where it ran after.


rule report_tables:
    """Tables of one campaign from its scores and reliability results."""
    input:
        scores=out("{campaign}/scores/runs.parquet"),
        plan=out("{campaign}/plan.json"),
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
        plan=out("{campaign}/plan.json"),
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
        lambda wc: [out(f"{c}/{f}") for c in EDITION_CAMPAIGNS
                    for f in ("scores/runs.parquet", "plan.json")],
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


rule report_page:
    """The campaign's overview page: one self-contained HTML file (figures
    embedded, no network, readable without JavaScript)."""
    input:
        tables=out("{campaign}/tables"),
        figures=out("{campaign}/figures"),
        manifest=out("{campaign}/manifest.json"),
        plan=out("{campaign}/plan.json"),
        scores=out("{campaign}/scores/runs.parquet"),
        warnings=out("{campaign}/ingest/warnings.parquet"),
        reliability=lambda wc: reliability_targets(wc.campaign) + extras_targets(wc.campaign),
    output:
        report(
            out("{campaign}/report.html"),
            caption="../report/overview.rst",
            category="{campaign}",
            subcategory="overview",
        ),
    conda:
        "../envs/qacamp.yaml"
    params:
        campaign_dir=lambda wc: out(wc.campaign),
        measures_argv=lambda wc: options("--measure", plan(wc.campaign)["measures"]),
    log:
        out("{campaign}/logs/report_page.log"),
    shell:
        "qacamp report page --campaign-dir {params.campaign_dir:q} --figures {input.figures:q} "
        "{params.measures_argv} --out {output:q} > {log:q} 2>&1"


rule report_index:
    """Index over the campaigns of this config, linking their overview pages."""
    input:
        lambda wc: [out(f"{c}/report.html") for c in CAMPAIGNS],
    output:
        report(out("index.html"), caption="../report/overview.rst", category="overview"),
    params:
        dirs_argv=lambda wc: options("--campaign-dir", [out(c) for c in CAMPAIGNS]),
    conda:
        "../envs/qacamp.yaml"
    log:
        out("logs/report_index.log"),
    shell:
        "qacamp report index {params.dirs_argv} --out {output:q} > {log:q} 2>&1"
