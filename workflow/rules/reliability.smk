# Reliability analyses: the rules of every analysis record
# (qacamp.reliability.analyses), none written by hand.  A campaign's analyses
# take three jobs: the ones its plan runs in shards, every measure's shard in
# one job per shard (SHARDS jobs), then one job that merges them (checked
# complete and of one run); the analyses run whole (the other per-measure ones,
# then the campaign-level ones over all its measures) after them, in one job.
# Each job runs the analyses' `qacamp reliability` command lines in one
# process (`--then`): one start, one job to schedule or submit to a cluster.
# Every trial's subsets come from (seed, measure, size, trial) only, so the
# merged result is identical for any shard count.  Settings reach the command
# line as quoted words (`argv`, `:q`), never pasted.


def shard_file(campaign, name, measure, shard="{shard}"):
    return out(f"{campaign}/reliability/shards/{name}_{measure}.{shard}.parquet")


def after_options(analysis, campaign, measures):
    """(option, file) of the other analyses' outputs ``analysis`` reads."""
    pairs = []
    for option, name, dest in analysis.after:
        pattern = next(o.file for o in ANALYSES[name].outputs if o.dest == dest)
        pairs += [(f"--{option}", out(f"{campaign}/reliability/{pattern.format(measure=m)}"))
                  for m in measures]
    return pairs


def measure_outputs(analysis, campaign, measure):
    """dest -> file of ``analysis``'s outputs for one measure."""
    return {o.dest: out(f"{campaign}/reliability/{o.file.format(measure=measure)}")
            for o in analysis.outputs}


def output_words(analysis, outputs):
    """``--summary FILE`` ... for the outputs besides ``out``."""
    return [w for o in analysis.outputs if o.dest != "out"
            for w in (analysis.option(o.dest).flags[0], outputs[o.dest])]


def per_measure(campaign, sharded):
    """(analysis, measure) of the campaign's per-measure analyses run in shards
    (``sharded``) or in one run each, in the records' order."""
    p = plan(campaign)
    return [(a, m) for a in workflow_analyses("measure") if a.sharded(p) == sharded
            for m in p["measures"]]


def chained(commands):
    """One process runs them in turn (`qacamp reliability A ... --then B ...`)."""
    return " --then ".join(commands)


def shard_command(campaign):
    def command(wildcards):
        return chained([" ".join([argv(a.name), matrix_argv(campaign, m),
                                settings_argv(a.name, campaign),
                                argv("--shard", f"{wildcards.shard}/{SHARDS}", "--out",
                                     shard_file(campaign, a.name, m, wildcards.shard))])
                      for a, m in per_measure(campaign, True)])

    return command


def merge_command(campaign):
    commands = []
    for a, m in per_measure(campaign, True):
        outputs = measure_outputs(a, campaign, m)
        commands.append(argv("merge", "--kind", a.name, *output_words(a, outputs),
                             outputs["out"], *[shard_file(campaign, a.name, m, i)
                                               for i in range(SHARDS)]))
    return chained(commands)


def campaign_level_files(analysis, campaign):
    """The files of a campaign-level analysis (its files per measure included)."""
    return [out(f"{campaign}/reliability/{f}") for f in analysis.files_for(None)] + [
        out(f"{campaign}/reliability/{f}") for m in plan(campaign)["measures"]
        for f in analysis.files_for(m)]


def single_command(campaign):
    commands = []
    for a, m in per_measure(campaign, False):
        outputs = measure_outputs(a, campaign, m)
        after = [w for pair in after_options(a, campaign, [m]) for w in pair]
        commands.append(" ".join([argv(a.name), matrix_argv(campaign, m), argv(*after),
                                  settings_argv(a.name, campaign),
                                  argv("--out", outputs["out"], *output_words(a, outputs))]))
    measures = plan(campaign)["measures"]
    for a in workflow_analyses("campaign"):
        commands.append(" ".join([
            argv(a.name, "--ingest", out(f"{campaign}/ingest"),
                 "--scores", out(f"{campaign}/scores"), "--out", out(f"{campaign}/reliability"),
                 *[w for m in measures for w in ("--measure", m)],
                 *[w for pair in after_options(a, campaign, measures) for w in pair]),
            settings_argv(a.name, campaign)]))
    return chained(commands)


# A campaign's per-measure analyses: every shard of every measure of every
# analysis run in shards in one job per shard, their merges in one job, the
# analyses run whole in one job after them (each analysis's run is the same
# `qacamp reliability` command line, chained in one process: one start, one
# job for the scheduler, one submission on a cluster).
for _c in CAMPAIGNS:
    _sharded = per_measure(_c, True)
    if _sharded:

        rule:
            name:
                f"reliability_shard_{_c}"
            input:
                out(f"{_c}/scores/runs.parquet"),
                out(f"{_c}/ingest/matrix.parquet"),
            output:
                [temp(shard_file(_c, a.name, m)) for a, m in _sharded],
            params:
                command_argv=shard_command(_c),
            resources:
                runtime=60,
            conda:
                "../envs/qacamp.yaml"
            log:
                out(f"{_c}/logs/reliability_shard.{{shard}}.log"),
            shell:
                "qacamp reliability {params.command_argv} 2> {log:q}"

        rule:
            name:
                f"reliability_merge_{_c}"
            input:
                [shard_file(_c, a.name, m, i) for a, m in _sharded for i in range(SHARDS)],
            output:
                [f for a, m in _sharded for f in measure_outputs(a, _c, m).values()],
            params:
                command_argv=merge_command(_c),
            conda:
                "../envs/qacamp.yaml"
            log:
                out(f"{_c}/logs/reliability_merge.log"),
            shell:
                "qacamp reliability {params.command_argv} 2> {log:q}"

    # the analyses run whole: per measure, then the campaign-level ones
    _single = per_measure(_c, False)
    _made = [f for a, m in _single for f in measure_outputs(a, _c, m).values()] + [
        f for a in workflow_analyses("campaign") for f in campaign_level_files(a, _c)]
    _after = [f for a, m in _single for _, f in after_options(a, _c, [m])] + [
        f for a in workflow_analyses("campaign")
        for _, f in after_options(a, _c, plan(_c)["measures"])]
    if _made:

        rule:
            name:
                f"reliability_{_c}"
            input:
                out(f"{_c}/scores/runs.parquet"),
                out(f"{_c}/ingest/matrix.parquet"),
                [f for f in dict.fromkeys(_after) if f not in _made],
            output:
                _made,
            params:
                command_argv=single_command(_c),
            conda:
                "../envs/qacamp.yaml"
            log:
                out(f"{_c}/logs/reliability.log"),
            shell:
                "qacamp reliability {params.command_argv} 2> {log:q}"
