"""Where the workflow's files are, and running it the way ``make run`` does.

``qacamp run CONFIG`` (:func:`run`) is ``make run CONFIG=...`` without a
clone: the same ``workflow/run.py`` (the resume-safe lock, the qacamp logger)
started with the same profile, in the current folder, with the installed
package's copy of the workflow.  :func:`workflow_root` finds that copy:
``qacamp/_workflow/`` in a wheel (setup.py copies ``Snakefile``,
``workflow/`` and ``config/config.yaml`` there at build time), else the
repository of an editable install (``make setup``).
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from .configfile import read_config_file
from .errors import UsageError

PACKAGED = Path(__file__).resolve().parent / "_workflow"
REPOSITORY = Path(__file__).resolve().parents[2]


def workflow_root() -> Path:
    """The folder holding ``Snakefile`` and ``workflow/``."""
    for root in (PACKAGED, REPOSITORY):
        if (root / "Snakefile").is_file() and (root / "workflow" / "run.py").is_file():
            return root
    raise UsageError("the workflow files (Snakefile, workflow/) are not installed with this "
                     "qacamp; install the wheel built from the repository (pip install "
                     "dist/qacamp-*.whl) or run from a clone with `make run`")


def profile_path(profile: str) -> Path:
    """A profile name of the workflow (``default``, ``slurm``) or a folder."""
    named = workflow_root() / "workflow" / "profiles" / profile
    if named.is_dir():
        return named
    if Path(profile).is_dir():
        return Path(profile).resolve()
    names = sorted(p.name for p in (workflow_root() / "workflow" / "profiles").iterdir())
    raise UsageError(f"--profile {profile!r}: neither a profile of the workflow "
                     f"({', '.join(names)}) nor a folder")


def _run_script(root: Path):
    spec = importlib.util.spec_from_file_location("qacamp_workflow_run",
                                                  root / "workflow" / "run.py")
    if spec is None or spec.loader is None:
        raise UsageError(f"cannot load {root / 'workflow' / 'run.py'}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run(config: str | Path, cores: int = 2, profile: str = "default",
        snakemake_args: Sequence[str] = ()) -> int:
    """Run the workflow on ``config`` in the current folder (as ``make run``);
    replaces this process with Snakemake when the run starts."""
    path = Path(config)
    if not path.exists() and not path.is_symlink():
        raise UsageError(f"config file {config} not found (paths in it are relative to "
                         f"the current folder, {Path.cwd()})")
    # a named pipe, a device, a folder, a file too large or not YAML: one line naming it
    read_config_file(path)
    root = workflow_root()
    # the rules call `qacamp` and `snakemake`: this environment's come first
    bin_dir = str(Path(sys.executable).parent)
    os.environ["PATH"] = bin_dir + os.pathsep + os.environ.get("PATH", "")
    args = ["--workflow-profile", str(profile_path(profile)), "--cores", str(cores),
            "--configfile", str(config), *snakemake_args]
    return int(_run_script(root).main(args))


__all__ = ["workflow_root", "profile_path", "run", "PACKAGED", "REPOSITORY"]
