"""`qacamp score`: score an ingested campaign (used by the Snakemake rule)."""

from __future__ import annotations

from pathlib import Path

from . import HELP, add_force_option


def register(sub):
    p = sub.add_parser("score", help=HELP["score"])
    p.add_argument("--ingest", required=True, metavar="DIR",
                   help="the campaign's ingest folder (tables and campaign.json)")
    p.add_argument("--out", required=True, metavar="DIR",
                   help="the scores folder to write (new, empty, or written by qacamp)")
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from ..ingest import read_resolved
    from ..io import read_parquet, write_scores, writing
    from ..report.formats import spreadsheet_safe
    from ..scoring import OUT_SCHEMAS, primary_set, runs_wide, score_campaign
    from ..tables import SCHEMAS

    ingest = Path(args.ingest)
    with writing("qacamp score", dirs=[args.out], inputs=[ingest], force=args.force):
        campaign = read_resolved(ingest / "campaign.json")
        # every table ingest writes, verified and checked against its declared
        # schema (another table's file is refused, never conformed)
        tables = {name: read_parquet(ingest / f"{name}.parquet", schema=SCHEMAS[name])
                  for name in SCHEMAS}
        kind = campaign.get("kind") or (campaign.get("options") or {}).get("kind")
        result = score_campaign(kind, tables, campaign)
        present = sorted(result["runs"]["judgment_set"].unique().to_list())
        flat = dict(campaign.get("options") or {}) | campaign
        primary = primary_set(kind, flat, present)
        write_scores({name: result[name] for name in OUT_SCHEMAS},
                     spreadsheet_safe(runs_wide(result["runs"], primary, kind)), args.out)
    return 0
