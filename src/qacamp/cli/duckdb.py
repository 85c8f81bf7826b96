"""``qacamp duckdb``: (re)build a campaign's ``campaign.duckdb``.

One SQL view per Parquet file of ``ingest/``, ``scores/`` and
``reliability/``.  The views name the files by absolute path, so run this
again after moving or copying a results folder; the Parquet files are the
results, the DuckDB file is only an index over them.
"""

from __future__ import annotations

from . import HELP, add_force_option


def register(sub) -> None:
    p = sub.add_parser("duckdb", help=HELP["duckdb"], description=__doc__)
    p.add_argument("campaign_dir", metavar="CAMPAIGN_DIR",
                   help="the campaign's results folder, e.g. results/trec2002")
    add_force_option(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from pathlib import Path

    from ..errors import InputError
    from ..io import write_campaign_duckdb, writing

    if not Path(args.campaign_dir).is_dir():
        raise InputError(args.campaign_dir, None, "campaign folder not found",
                         "give results/<campaign> (the folder holding ingest/ and scores/)")
    db = Path(args.campaign_dir) / "campaign.duckdb"
    with writing("qacamp duckdb", files=[db], inputs=[args.campaign_dir], force=args.force):
        write_campaign_duckdb(args.campaign_dir)
    print(db)
    return 0
