# The overview paper's tables (LaTeX, Markdown, CSV) and figures (PNG, SVG),
# the campaign overview pages (<outdir>/<campaign>/report.html) and their index
# (<outdir>/index.html), with captions for Snakemake's own report
# (`snakemake --report`).  Which tables and figures a campaign has depends on
# its kind, so tables and figures each go to a folder.  Every report step
# reads the campaign's plan.json (qacamp.report.campaign.campaign_plan), so
# each declares it: without it a step could run before campaign_plan and
# record other inputs than a run where it ran after.


rule report_campaign:
    """Tables, figures and overview page of one campaign, in one process
    (`qacamp report tables ... --then figures ... --then page ...`): one
    start, one job to schedule or submit.  The page embeds the figures and
    reads the tables the two runs before it wrote (each run puts its files in
    place and records them before the next starts)."""
    input:
        scores=out("{campaign}/scores/runs.parquet"),
        plan=out("{campaign}/plan.json"),
        manifest=out("{campaign}/manifest.json"),
        warnings=out("{campaign}/ingest/warnings.parquet"),
        reliability=lambda wc: reliability_targets(wc.campaign) + extras_targets(wc.campaign),
    output:
        tables=report(
            directory(out("{campaign}/tables")),
            patterns=["{name}.csv"],
            caption="../report/tables.rst",
            category="{campaign}",
            subcategory="tables",
        ),
        figures=report(
            directory(out("{campaign}/figures")),
            patterns=["{name}.png"],
            caption="../report/figures.rst",
            category="{campaign}",
            subcategory="figures",
        ),
        page=report(
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
        out("{campaign}/logs/report.log"),
    shell:
        "qacamp report tables --campaign-dir {params.campaign_dir:q} {params.measures_argv} "
        "--out {output.tables:q} "
        "--then figures --campaign-dir {params.campaign_dir:q} {params.measures_argv} "
        "--out {output.figures:q} "
        "--then page --campaign-dir {params.campaign_dir:q} --figures {output.figures:q} "
        "{params.measures_argv} --out {output.page:q} > {log:q} 2>&1"


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
