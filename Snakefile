# qacamp: re-run a question-answering evaluation campaign.
# Rules are thin: each calls the `qacamp` command line.  See README.md.
#
# Configuration: `--configfile your.yaml` (validated against
# workflow/schemas/config.schema.yaml); without one, the demo config
# config/config.yaml is used.  Every output goes under the config's `outdir`
# (default results/; the demo's is results-demo/).  Run it with
# `make run CONFIG=your.yaml` (workflow/run.py), which resumes a killed run.


include: "workflow/rules/common.smk"
include: "workflow/rules/ingest.smk"
include: "workflow/rules/scoring.smk"
include: "workflow/rules/reliability.smk"
include: "workflow/rules/report.smk"


rule all:
    input:
        all_targets(),
    default_target: True
