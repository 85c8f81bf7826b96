"""`qacamp run CONFIG [SNAKEMAKE ARGS...]`: run the whole workflow on a config,
from any folder, without a clone (what ``make run CONFIG=...`` does; see
:mod:`qacamp.runner`).  Results go under the config's ``outdir`` in the current
folder; typing the same command again resumes a killed run."""

from __future__ import annotations

import argparse

from . import HELP


def register(sub) -> None:
    p = sub.add_parser("run", help=HELP["run"], description=__doc__.split("\n\n")[0])
    p.add_argument("config", metavar="CONFIG",
                   help="the campaigns' config file (see the README; its paths are relative "
                        "to the current folder)")
    p.add_argument("--cores", type=int, default=2, help="cores for local jobs (default 2)")
    p.add_argument("--profile", default="default", metavar="NAME|DIR",
                   help="Snakemake profile: 'default' (local), 'slurm' (the workflow's SLURM "
                        "profile) or a profile folder")
    p.add_argument("snakemake_args", nargs=argparse.REMAINDER, metavar="SNAKEMAKE_ARGS",
                   help="further Snakemake options, e.g. -n for a dry run")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..runner import run as run_workflow

    return run_workflow(args.config, args.cores, args.profile, args.snakemake_args)
