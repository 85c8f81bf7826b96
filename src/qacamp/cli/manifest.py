"""``qacamp manifest``: write a campaign's provenance manifest."""

from __future__ import annotations

import json
from pathlib import Path

from ..io import write_text
from ..manifest import build_manifest, dumps


def register(sub) -> None:
    p = sub.add_parser("manifest", help="write the provenance manifest of a campaign's results",
                       description=__doc__)
    p.add_argument("--name", required=True, help="campaign name")
    p.add_argument("--campaign-json", required=True, help="the campaign's config as JSON")
    p.add_argument("--global-json", default="{}",
                   help="the workflow config's top-level settings (reliability, shards) as JSON")
    p.add_argument("--repo", default=None, help="project checkout, for the git commit")
    p.add_argument("--out", required=True, help="manifest.json to write")
    p.set_defaults(func=run)


def run(args) -> int:
    manifest = build_manifest(args.name, json.loads(args.campaign_json),
                              json.loads(args.global_json), Path("."), args.repo)
    write_text(dumps(manifest), args.out)
    return 0
