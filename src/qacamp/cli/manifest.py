"""``qacamp manifest``: write a campaign's provenance manifest."""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import ConfigError, InputError
from ..io import write_text
from ..manifest import build_manifest, dumps
from . import HELP


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
    p.set_defaults(func=run)


def _json(path: Path) -> dict:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(path, None, f"cannot read it ({exc})",
                         "give the JSON file the workflow writes") from None
    if not isinstance(doc, dict):
        raise InputError(path, None, "not a JSON object", "give the JSON file the workflow writes")
    return doc


def run(args) -> int:
    campaign = (_json(args.config).get("campaigns") or {}).get(args.name)
    if not isinstance(campaign, dict):
        raise ConfigError(f"campaigns.{args.name}", f"not in {args.config}",
                          "give the campaign's name as in the config")
    plan = _json(args.plan)
    if not isinstance(plan.get("reliability_plan"), dict):
        raise InputError(args.plan, "reliability_plan", "missing", "give the plan.json the "
                         "workflow writes")
    write_text(dumps(build_manifest(args.name, campaign, plan["reliability_plan"],
                                    plan.get("shards"), Path("."), args.repo)), args.out)
    return 0
