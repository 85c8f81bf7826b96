"""``qacamp manifest``: write a campaign's provenance manifest.

Besides the raw inputs' hashes it lists, under ``intermediates``, the SHA-256
of every intermediate in the campaign folder (``ingest/``, ``scores/``,
``reliability/`` beside ``--out``) as qacamp's records give them (no file is
read again); ``qacamp verify`` checks the files against them."""

from __future__ import annotations

from pathlib import Path

from ..errors import ConfigError, InputError
from ..io import INTERMEDIATE_FOLDERS, read_json, recorded_hashes, write_text, writing
from ..manifest import build_manifest, dumps
from . import HELP, add_force_option


def register(sub) -> None:
    p = sub.add_parser("manifest", help=HELP["manifest"],
                       description=__doc__)
    p.add_argument("--config", required=True, type=Path,
                   help="workflow config as JSON whose `campaigns` holds NAME, e.g. "
                   "<outdir>/<campaign>/config.json")
    p.add_argument("--plan", required=True, type=Path,
                   help="the campaign's resolved reliability plan, <outdir>/<campaign>/plan.json "
                   "({reliability_plan, shards})")
    p.add_argument("--name", required=True, help="campaign name in --config")
    p.add_argument("--repo", default=None, help="project checkout, for the git commit")
    p.add_argument("--out", required=True, help="manifest.json to write")
    add_force_option(p)
    p.set_defaults(func=run)


def _json(path: Path) -> dict:
    return read_json(path, "the JSON file the workflow writes")


def run(args) -> int:
    with writing("qacamp manifest", files=[args.out], inputs=[args.config, args.plan],
                 force=args.force):
        _manifest(args)
    return 0


def _manifest(args) -> None:
    campaign = (_json(args.config).get("campaigns") or {}).get(args.name)
    if not isinstance(campaign, dict):
        raise ConfigError(f"campaigns.{args.name}", f"not in {args.config}",
                          "give the campaign's name as in the config")
    plan = _json(args.plan)
    if not isinstance(plan.get("reliability_plan"), dict):
        raise InputError(args.plan, "reliability_plan", "missing", "give the plan.json the "
                         "workflow writes")
    intermediates = recorded_hashes(Path(args.out).parent, INTERMEDIATE_FOLDERS)
    write_text(dumps(build_manifest(args.name, campaign, plan["reliability_plan"],
                                    plan.get("shards"), Path("."), args.repo, intermediates)),
               args.out)
