"""The scoring and reliability parts of the DAG on a real SLURM cluster.

`.ci/run` installs munge + slurmctld + slurmd, starts a one-node cluster on
localhost (tests/slurm/start.sh) and sets QACAMP_SLURM=1.  The test runs the
same targets once locally (one scoring job) and once with `--executor slurm`
(Snakemake's official executor plugin; scoring in 3 shard jobs) and
checks that the scores and the merged reliability results are byte-identical.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
import yaml
from workflow_util import small_clef_campaign, snakemake

pytestmark = [
    pytest.mark.slow,
    pytest.mark.slurm,
    pytest.mark.skipif(os.environ.get("QACAMP_SLURM") != "1" or not shutil.which("sbatch"),
                       reason="needs the SLURM cluster that .ci/run starts (QACAMP_SLURM=1)"),
]

TARGETS = ["results/mine/reliability/swap_c_at_1_summary.parquet",
           "results/mine/reliability/stability_c_at_1.parquet",
           "results/mine/reliability/significance_c_at_1.parquet"]
SCORES = ["outcomes.parquet", "units.parquet", "runs.parquet", "dropped.parquet", "runs.csv"]
MERGED = ["swap_c_at_1.parquet", "swap_c_at_1_fits.parquet", "swap_c_at_1_summary.parquet",
          "stability_c_at_1.parquet", "significance_c_at_1.parquet",
          "significance_c_at_1_summary.parquet"]


def test_slurm_results_equal_local_bytes(tmp_path):
    local, cluster = tmp_path / "local", tmp_path / "cluster"
    for d in (local, cluster):
        d.mkdir()
        # three shards: the cluster run submits 3 reliability shard jobs (each runs
        # every analysis run in shards) and their merge job
        small_clef_campaign(d, shards=3)

    res = snakemake(local, *TARGETS, configfile=local / "mine.yaml")
    assert res.returncode == 0, res.stderr[-3000:]

    # the ingest locally, then scoring (in 3 shard jobs) and the resampling on SLURM
    cfg = yaml.safe_load((cluster / "mine.yaml").read_text())
    cfg["score_shards"] = 3
    (cluster / "mine.yaml").write_text(yaml.safe_dump(cfg, sort_keys=True))
    res = snakemake(cluster, "results/mine/ingest/campaign.json",
                    configfile=cluster / "mine.yaml")
    assert res.returncode == 0, res.stderr[-3000:]
    res = snakemake(cluster, *TARGETS, "--executor", "slurm", "--jobs", "8",
                    "--slurm-status-command", "squeue",
                    "--slurm-init-seconds-before-status-checks", "1",
                    "--default-resources", "mem_mb=500", "runtime=10",
                    "--slurm-no-account", "--latency-wait", "10",
                    "--slurm-keep-successful-logs",
                    configfile=cluster / "mine.yaml", timeout=600)
    out = res.stdout + res.stderr
    print(out[-6000:])
    assert res.returncode == 0, out[-6000:]
    logs = list((cluster / ".snakemake" / "slurm_logs").rglob("*.log"))
    for rule in ("reliability_shard_mine", "reliability_merge_mine"):
        assert any(rule in str(p) for p in logs), f"no SLURM job log of {rule}"
    # a shard job runs every analysis's shard of the campaign; the merge job
    # sums them, significance's too
    shard_log = (cluster / "results/mine/logs/reliability_shard.0.log").read_text()
    for analysis in ("swap", "stability", "bootstrap"):
        assert f"qacamp reliability {analysis}: " in shard_log, (analysis, shard_log[-2000:])
    merge_log = (cluster / "results/mine/logs/reliability_merge.log").read_text()
    assert "qacamp reliability significance: " in merge_log, merge_log[-2000:]
    assert sum("score_shard" in str(p) for p in logs) == 3, "scoring shards not on SLURM"
    # the jobs really went through the scheduler
    assert "sbatch" in out.lower() or logs
    jobs = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout
    assert jobs.strip() == "", f"jobs left in the queue: {jobs}"

    for name in SCORES:
        a = (local / "results/mine/scores" / name).read_bytes()
        b = (cluster / "results/mine/scores" / name).read_bytes()
        assert a == b, f"scores/{name} differs between one local job and 3 SLURM shards"
    for name in MERGED:
        a = (local / "results/mine/reliability" / name).read_bytes()
        b = (cluster / "results/mine/reliability" / name).read_bytes()
        assert a == b, f"{name} differs between the local and the SLURM run"
