"""Provenance manifest of a campaign's results.

``results/<campaign>/manifest.json`` records what the results were computed
from: the SHA-256 of every raw input file, the campaign's config and the
resolved reliability plan (with its seed), the versions of qacamp and of the
libraries that compute (polars, pyarrow, duckdb, numpy, scipy, matplotlib,
snakemake), the Python version and the git commit of the project when
available, and the SHA-256 of every intermediate (``intermediates``, checked
by ``qacamp verify``).  It deliberately holds no timestamp and no host name, so the same
inputs give the same bytes; a changed judgment line changes a hash.
"""

from __future__ import annotations

import hashlib
import json
import platform
import subprocess
from importlib import metadata
from pathlib import Path

from . import __version__
from .config import raw_files

LIBRARIES = ("polars", "pyarrow", "duckdb", "numpy", "scipy", "matplotlib", "snakemake",
             "snakemake-executor-plugin-slurm")


def sha256(path: str | Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def git_commit(repo: str | Path) -> str | None:
    """The commit of the checkout at ``repo`` (with ``+dirty`` if it has local
    changes to tracked files), or None outside a git checkout."""
    try:
        commit = subprocess.run(["git", "-C", str(repo), "rev-parse", "HEAD"], check=True,
                                capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(["git", "-C", str(repo), "status", "--porcelain",
                                "--untracked-files=no"], check=True, capture_output=True,
                               text=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return None
    return commit + ("+dirty" if dirty else "")


def versions() -> dict[str, str]:
    out = {"qacamp": __version__, "python": platform.python_version()}
    for lib in LIBRARIES:
        try:
            out[lib] = metadata.version(lib)
        except metadata.PackageNotFoundError:
            out[lib] = "not installed"
    return out


def build_manifest(name: str, campaign: dict, plan: dict, shards: int | None,
                   base_dir: str | Path = ".", repo: str | Path | None = None,
                   intermediates: dict[str, str | None] | None = None) -> dict:
    """The manifest of campaign ``name``: its config, its resolved reliability
    ``plan`` (:func:`qacamp.plan.reliability_plan`) and ``shards``, the
    SHA-256 of every raw file, library versions, the git commit of ``repo``
    and ``intermediates`` (path in the campaign folder -> SHA-256)."""
    files = raw_files(campaign, base_dir)
    return {
        "campaign": name,
        "config": campaign,
        "reliability_plan": plan,
        "shards": shards,
        "inputs": [{"path": str(p), "sha256": sha256(Path(base_dir) / p if not Path(p).is_absolute() else p)}
                   for p in files],
        "versions": versions(),
        "git_commit": git_commit(repo) if repo is not None else None,
        "intermediates": dict(sorted((intermediates or {}).items())),
    }


def dumps(manifest: dict) -> str:
    return json.dumps(manifest, indent=2, sort_keys=True) + "\n"
