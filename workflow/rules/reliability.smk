# Reliability analyses: the rules of every analysis record
# (qacamp.reliability.analyses), none written by hand.  An analysis run once
# per campaign and measure gets one job, or, when its record runs it in shards
# for the campaign's plan, SHARDS shard jobs and a merge job that sums them
# (checked complete and of one run).  Every trial's subsets come from (seed,
# measure, size, trial) only, so the merged result is identical for any shard
# count.  The campaign-level analyses get one job per campaign.  Settings
# reach the command line as quoted words (`argv`, `:q`), never pasted.


SCORES_DONE = out("{campaign}/scores/runs.parquet")
MATRIX = out("{campaign}/ingest/matrix.parquet")


def shard_file(name):
    return out(f"{{campaign}}/reliability/shards/{name}_{{measure}}.{{shard}}.parquet")


def after_options(analysis, campaign, measures):
    """(option, file) of the other analyses' outputs ``analysis`` reads."""
    pairs = []
    for option, name, dest in analysis.after:
        pattern = next(o.file for o in ANALYSES[name].outputs if o.dest == dest)
        pairs += [(f"--{option}", out(f"{campaign}/reliability/{pattern.format(measure=m)}"))
                  for m in measures]
    return pairs


def output_words(analysis, output):
    """``--summary FILE`` ... for the outputs besides ``out``."""
    return [w for o in analysis.outputs if o.dest != "out"
            for w in (analysis.option(o.dest).flags[0], getattr(output, o.dest))]


def shard_argv(name):
    def command(wildcards, output):
        wc = wildcards
        return " ".join([argv(name), matrix_argv(wc), settings_argv(name, wc.campaign),
                         argv("--shard", f"{wc.shard}/{SHARDS}", "--out", output[0])])

    return command


def job_inputs(name):
    def inputs(wildcards):
        a, wc = ANALYSES[name], wildcards
        if a.sharded(plan(wc.campaign)):
            return expand(shard_file(name), campaign=wc.campaign, measure=wc.measure,
                          shard=range(SHARDS))
        return [out(f"{wc.campaign}/scores/runs.parquet"),
                out(f"{wc.campaign}/ingest/matrix.parquet")] + [
            f for _, f in after_options(a, wc.campaign, [wc.measure])]

    return inputs


def job_argv(name):
    def command(wildcards, input, output):
        a, wc = ANALYSES[name], wildcards
        if a.sharded(plan(wc.campaign)):
            return argv("merge", "--kind", name, *output_words(a, output), output.out, *input)
        after = [w for pair in after_options(a, wc.campaign, [wc.measure]) for w in pair]
        return " ".join([argv(name), matrix_argv(wc), argv(*after),
                         settings_argv(name, wc.campaign),
                         argv("--out", output.out, *output_words(a, output))])

    return command


for _a in ANALYSES.values():
    if _a.per != "measure":
        continue
    if _a.merge is not None:

        rule:
            name:
                f"{_a.name}_shard"
            input:
                SCORES_DONE,
                MATRIX,
            output:
                temp(shard_file(_a.name)),
            params:
                command_argv=shard_argv(_a.name),
            conda:
                "../envs/qacamp.yaml"
            log:
                out(f"{{campaign}}/logs/{_a.name}_{{measure}}.{{shard}}.log"),
            shell:
                "qacamp reliability {params.command_argv} 2> {log:q}"

    rule:
        name:
            _a.name
        input:
            job_inputs(_a.name),
        output:
            **{o.dest: out(f"{{campaign}}/reliability/{o.file}") for o in _a.outputs},
        params:
            command_argv=job_argv(_a.name),
        conda:
            "../envs/qacamp.yaml"
        log:
            out(f"{{campaign}}/logs/{_a.name}_{{measure}}.log"),
        shell:
            "qacamp reliability {params.command_argv} 2> {log:q}"


# The campaign-level analyses: one rule per campaign (their files depend on its measures).
for _c in CAMPAIGNS:
    for _a in ANALYSES.values():
        if _a.per != "campaign":
            continue

        rule:
            name:
                f"{_a.name}_{_c}"
            input:
                scores=out(f"{_c}/scores/runs.parquet"),
                after=[f for _, f in after_options(_a, _c, plan(_c)["measures"])],
            output:
                [out(f"{_c}/reliability/{f}") for f in _a.files_for(None)]
                + [out(f"{_c}/reliability/{f}") for m in plan(_c)["measures"]
                   for f in _a.files_for(m)],
            params:
                name_argv=argv(_a.name),
                command_argv=argv(
                    "--ingest", out(f"{_c}/ingest"),
                    "--scores", out(f"{_c}/scores"),
                    "--out", out(f"{_c}/reliability"),
                    *[w for m in plan(_c)["measures"] for w in ("--measure", m)],
                    *[w for pair in after_options(_a, _c, plan(_c)["measures"]) for w in pair],
                ),
                settings_argv=settings_argv(_a.name, _c),
            conda:
                "../envs/qacamp.yaml"
            log:
                out(f"{_c}/logs/{_a.name}.log"),
            shell:
                "qacamp reliability {params.name_argv} {params.command_argv} "
                "{params.settings_argv} 2> {log:q}"
