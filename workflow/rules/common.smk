# Shared setup: config validation (before anything runs) and target lists.
# Kept cheap: every cluster job parses the Snakefile again.
#
# No config value is ever pasted into a shell command unquoted: every value a
# rule puts on a command line goes through `argv` (shlex.quote) or Snakemake's
# `:q` format flag, and free text (titles, paths) reaches the qacamp commands
# only through the JSON file of rule `campaign_config`.
import json
import os
import re
import shlex
import sys

from qacamp.config import raw_files
from qacamp.kinds import KINDS
from qacamp.plan import configured, reliability_plan, report_settings, validate_config
from qacamp.configfile import read_config_file
from qacamp.errors import BusyError, ConfigError, InputError, QacampError
from qacamp.findings import preparation_lines
from qacamp.io import prepare_outdir, write_text, writing
from qacamp.ordered import MAX_WORKERS
from qacamp.reliability.analyses import ANALYSES, campaign_files, settings_words, workflow_analyses


if not config:
    # No --configfile: the demo campaigns.  (A `configfile:` directive would be
    # merged with the user's --configfile and mix the demo into their campaign.)
    import yaml

    with open(os.path.join(workflow.basedir, "config", "config.yaml")) as fh:
        config.update(yaml.safe_load(fh))


def _stop(exc):
    # one line, no traceback: the key, what is wrong, what is allowed
    print(f"qacamp: {exc}", file=sys.stderr)
    sys.exit(1)


try:
    # Snakemake has loaded the --configfile itself, keeping the last of two equal
    # keys silently: read each file again strictly (qacamp.configfile)
    for _path in workflow.configfiles:
        read_config_file(_path)
    validate_config(config, os.path.join(workflow.basedir, "workflow", "schemas",
                                         "config.schema.yaml"))
    for _name, _campaign in config["campaigns"].items():
        try:
            raw_files(_campaign)
        except ConfigError as exc:
            raise ConfigError(f"campaigns.{_name}.{exc.key}", exc.problem, exc.fix) from None
except (ConfigError, InputError) as exc:
    _stop(exc)

OUT = os.path.normpath(config["outdir"])
if OUT.startswith("-"):
    # an outdir named like an option (-x) would reach `rm` and the qacamp
    # commands as one: every path under it starts with ./ instead
    OUT = os.path.join(".", OUT)
CAMPAIGNS = sorted(config["campaigns"])
SHARDS = int(config["shards"])
SCORE_SHARDS = int(config.get("score_shards", 1))
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
# Threads of the steps that work in threads (ingest reads run files ahead, score
# scores batches of runs at once): qacamp's own default at most; Snakemake gives
# a job no more than --cores (and --max-threads) and passes the count to the
# command (`--threads {threads:q}`), on a SLURM node as its cpus per task.
STEP_THREADS = MAX_WORKERS


# A job whose log cannot take its error line (the log is on a full disk) prints
# it on the workflow's own stderr (fd 3; qacamp.cli.report_error).
shell.prefix("set -euo pipefail; exec 3>&2; export QACAMP_ERROR_FD=3; ")


def out(path):
    """``path`` under the config's outdir (a Snakemake pattern: may hold wildcards)."""
    return os.path.join(OUT, path)


def argv(*words):
    """Shell words, each quoted with shlex.quote, joined by spaces."""
    return " ".join(shlex.quote(str(w)) for w in words)


def options(flag, values):
    """``flag v`` for every value, quoted: ``--measure a --measure b``."""
    return argv(*[w for v in values for w in (flag, v)])


MEASURES = sorted(
    {m for c in CAMPAIGNS for m in reliability_plan(config["campaigns"][c], config)["measures"]}
)


wildcard_constraints:
    campaign="|".join(re.escape(c) for c in CAMPAIGNS),
    shard=r"\d+",
    measure="|".join(re.escape(m) for m in MEASURES),


def campaign_cfg(name):
    return config["campaigns"][name]


def plan(name):
    return reliability_plan(campaign_cfg(name), config)


# Snakemake reads `{name}` in a file path as a wildcard and `<name>` as a path
# variable, with no escape: a raw file whose path holds either is not given to
# Snakemake as an input (it would stop the DAG), but as a params value of its
# size and modification time, so a change to it still reruns the ingest.
SNAKEMAKE_SYNTAX = re.compile(r"[{}<>]")


def raw_inputs(name):
    """The campaign's raw files that Snakemake can take as input files."""
    return [p for p in raw_files(campaign_cfg(name)) if not SNAKEMAKE_SYNTAX.search(p)]


def raw_stamp(wildcards):
    """``path size mtime_ns`` of the other raw files (a params value)."""
    stamps = []
    for p in raw_files(campaign_cfg(wildcards.campaign)):
        if SNAKEMAKE_SYNTAX.search(p):
            st = os.stat(p)
            stamps.append(f"{p} {st.st_size} {st.st_mtime_ns}")
    return "\n".join(stamps)


def config_file_content(wildcards):
    """``<outdir>/<campaign>/config.json``: the campaign's config as the workflow
    read it (validated, schema defaults filled)."""
    doc = {"campaigns": {wildcards.campaign: campaign_cfg(wildcards.campaign)}}
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def plan_file_content(wildcards):
    """``<outdir>/<campaign>/plan.json``: the campaign's resolved reliability plan
    (kind defaults < top level < campaign block), its report settings (top
    level < campaign block) and the shard count."""
    doc = {"campaign": wildcards.campaign, "reliability_plan": plan(wildcards.campaign),
           "report": report_settings(campaign_cfg(wildcards.campaign), config),
           "shards": SHARDS}
    return json.dumps(doc, indent=2, sort_keys=True) + "\n"


def reliability_targets(name):
    """The files of the analyses run once per campaign and measure (the
    analysis records, qacamp.reliability.analyses)."""
    return [out(f"{name}/reliability/{f}") for f in campaign_files(plan(name))["measure"]]


def extras_targets(name):
    """The files of the campaign-level analyses: rank correlation, assessor
    agreement, distributions, equivalence groups."""
    return [out(f"{name}/reliability/{f}") for f in campaign_files(plan(name))["campaign"]]


# campaigns of a kind with a multi-edition table that name an edition (QA4MRE;
# a PAN campaign's `edition` names the evaluator's rules instead)
EDITION_CAMPAIGNS = [
    c for c in CAMPAIGNS
    if KINDS[config["campaigns"][c]["kind"]].editions_table and "edition" in config["campaigns"][c]
]


def matrix_argv(campaign, measure):
    """How a reliability run finds its score matrix (quoted shell words)."""
    c = campaign_cfg(campaign)
    p = plan(campaign)
    if KINDS[c["kind"]].family == "matrix":
        return argv("--matrix", out(f"{campaign}/ingest/matrix.parquet"), "--measure", measure)
    return argv(
        "--scores", out(f"{campaign}/scores"), "--measure", measure,
        "--unit", p["unit"], "--judgment-set", p["judgment_set"],
    )


def settings_argv(analysis, campaign):
    """The campaign's settings of ``analysis`` as quoted words: every option of
    its record with a plan key (qacamp.reliability.analyses.settings_words);
    ``--fit-to-collection`` for a size the campaign did not configure (the
    kind's default shrinks to a small collection instead of failing)."""
    c = campaign_cfg(campaign)
    return argv(*settings_words(ANALYSES[analysis], plan(campaign),
                                f"campaigns.{campaign}.reliability",
                                lambda section, key: configured(c, config, section, key)))


def campaign_targets(name):
    paths = [out(f"{name}/config.json"), out(f"{name}/plan.json")]
    paths += [out(f"{name}/ingest/{t}.parquet") for t in INGEST_TABLES]
    paths += [out(f"{name}/scores/{f}") for f in SCORE_FILES]
    paths += [out(f"{name}/campaign.duckdb"), out(f"{name}/manifest.json")]
    paths += reliability_targets(name) + extras_targets(name)
    paths += [out(f"{name}/tables"), out(f"{name}/figures"), out(f"{name}/report.html")]
    return paths


def all_targets():
    paths = []
    for name in CAMPAIGNS:
        paths += campaign_targets(name)
    if len(EDITION_CAMPAIGNS) >= 2:
        paths.append(out("overview"))
    paths.append(out("index.html"))
    return paths


# Before Snakemake plans (main process only: cluster and subprocess jobs parse
# this file again and must not touch the outdir): claim the outdir (new,
# empty or qacamp's, never a link; one line and exit 1 otherwise, also for a
# read-only or full disk) and lock it for this run (a second run on the same
# outdir, from any folder, stops at once with exit code 75 naming the first);
# refuse a link anywhere in it and a file qacamp did not write where the run
# writes; remove what qacamp wrote and must rebuild (a changed file, a folder
# output with a changed, missing or stale file) and age every stale file, so
# that this run rebuilds them (qacamp.io.prepare_outdir).  A dry run (-n)
# checks the same and says what a run would rebuild, but changes nothing.
def _dry_run():
    """Snakemake's command line asks for a dry run (-n, --dry-run)."""
    from snakemake.cli import get_argument_parser

    try:
        return bool(get_argument_parser().parse_known_args(sys.argv[1:])[0].dryrun)
    except (SystemExit, Exception):  # an argument line Snakemake itself refuses
        return False


def _outputs():
    """(every path the run writes, the folder outputs among them)."""
    folders = [os.path.join(OUT, c, f) for c in CAMPAIGNS for f in ("tables", "figures")]
    folders += [os.path.join(OUT, "overview")]
    shards = [os.path.join(OUT, c, f) for c in CAMPAIGNS
              for f in ("reliability/shards", "score_shards")]
    return all_targets() + shards, folders


if workflow.is_main_process:
    try:
        _paths, _folders = _outputs()
        # said once per campaign and cause (qacamp.findings.preparation_lines)
        for _line in preparation_lines(prepare_outdir(OUT, _paths, _folders,
                                                      dry_run=_dry_run()), OUT):
            print(f"qacamp: {_line}", file=sys.stderr)
    except BusyError as exc:
        print(f"qacamp: {exc}", file=sys.stderr)
        sys.exit(BusyError.exit_code)
    except QacampError as exc:
        _stop(exc)
