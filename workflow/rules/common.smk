# Shared setup: config validation (before anything runs) and target lists.
# Kept cheap: every cluster job parses the Snakefile again.
import json
import os
import shlex

from snakemake.utils import validate

from qacamp.config import bootstrap_measures, raw_files, reliability_plan


if not config:
    # No --configfile: the demo campaigns.  (A `configfile:` directive would be
    # merged with the user's --configfile and mix the demo into their campaign.)
    import yaml

    with open(os.path.join(workflow.basedir, "config", "config.yaml")) as fh:
        config.update(yaml.safe_load(fh))

validate(config, "../schemas/config.schema.yaml")

CAMPAIGNS = sorted(config["campaigns"])
SHARDS = int(config.get("shards", 4))
INGEST_TABLES = [
    "questions",
    "options",
    "responses",
    "judgments",
    "nuggets",
    "nugget_matches",
    "list_key",
    "patterns",
    "matrix",
    "warnings",
]
SCORE_FILES = ["outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet", "runs.csv"]


MEASURES = sorted({m for c in CAMPAIGNS for m in reliability_plan(config["campaigns"][c], config)["measures"]})


wildcard_constraints:
    campaign="|".join(CAMPAIGNS),
    shard=r"\d+",
    measure="|".join(MEASURES),


def campaign_cfg(name):
    return config["campaigns"][name]


def plan(name):
    return reliability_plan(campaign_cfg(name), config)


def campaign_json(wildcards):
    return shlex.quote(json.dumps(campaign_cfg(wildcards.campaign), sort_keys=True))


def global_json(wildcards):
    settings = {k: config[k] for k in ("reliability", "shards") if k in config}
    return shlex.quote(json.dumps(settings, sort_keys=True))


def reliability_targets(name):
    p = plan(name)
    out = []
    for m in p["measures"]:
        out += [
            f"results/{name}/reliability/swap_{m}.parquet",
            f"results/{name}/reliability/swap_{m}_fits.parquet",
            f"results/{name}/reliability/swap_{m}_summary.parquet",
            f"results/{name}/reliability/stability_{m}.parquet",
        ]
    for m in bootstrap_measures(p["measures"]):
        out += [
            f"results/{name}/reliability/bootstrap_{m}.parquet",
            f"results/{name}/reliability/bootstrap_{m}_summary.parquet",
        ]
    return out


EXTRAS = ["kendall", "ranking_swaps", "agreement", "distributions", "boxplot"]
EDITION_CAMPAIGNS = [c for c in CAMPAIGNS if "edition" in config["campaigns"][c]]


def extras_targets(name):
    """Rank correlation, assessor agreement, distributions, equivalence groups."""
    out = [f"results/{name}/reliability/{e}.parquet" for e in EXTRAS]
    out += [f"results/{name}/reliability/equivalence_{m}.parquet" for m in plan(name)["measures"]]
    return out


def matrix_args(wc):
    """How a reliability job finds its score matrix."""
    c = campaign_cfg(wc.campaign)
    p = plan(wc.campaign)
    if c["kind"] == "score-matrix":
        return f"--matrix results/{wc.campaign}/ingest/matrix.parquet --measure {wc.measure}"
    return (
        f"--scores results/{wc.campaign}/scores --measure {wc.measure} "
        f"--unit {p['unit']} --judgment-set {p['judgment_set']}"
    )


def swap_args(wc):
    s = plan(wc.campaign)["swap"]
    return (
        f"--sizes {s['sizes']} --trials {s['trials']} --bin-width {s['bin_width']} "
        f"--bins {s['bins']} --pairing {s['pairing']}"
    )


def all_targets():
    out = []
    for name in CAMPAIGNS:
        out += expand("results/{c}/ingest/{t}.parquet", c=name, t=INGEST_TABLES)
        out += expand("results/{c}/scores/{f}", c=name, f=SCORE_FILES)
        out.append(f"results/{name}/campaign.duckdb")
        out.append(f"results/{name}/manifest.json")
        out += reliability_targets(name)
        out += extras_targets(name)
        out += [f"results/{name}/tables", f"results/{name}/figures"]
    if len(EDITION_CAMPAIGNS) >= 2:
        out.append("results/overview")
    return out
