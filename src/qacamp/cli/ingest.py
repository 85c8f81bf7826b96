"""`qacamp ingest`: read one campaign's raw files into canonical Parquet tables.

    qacamp ingest --config config.yaml --campaign NAME --out results/NAME/ingest
    qacamp ingest --campaign-json '{"kind": ...}' --name NAME --out DIR

Writes ``<out>/<table>.parquet`` for every canonical table and
``<out>/campaign.json`` atomically (the tables that grow with the runs are
kept in a temporary spill folder while the files are read, then written a
row group at a time: memory follows a run file, not the campaign); each row of the ``warnings`` table is also
printed on stderr (``qacamp ingest: warning: FILE: PLACE: message``).  Paths in the campaign are resolved
against ``--base-dir`` (default ``.``).  Schema validation of the config is
the workflow's job; this command fails with a ConfigError on keys it needs.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..errors import ConfigError, QacampError, UsageError
from . import HELP, add_force_option, add_threads_option, threads_of


def register(sub):
    p = sub.add_parser("ingest", help=HELP["ingest"],
                       description=__doc__.split("\n\n")[0])
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--config", type=Path, help="YAML/JSON workflow config file")
    src.add_argument("--campaign-json", help="one campaign's config as a JSON string")
    p.add_argument("--campaign", help="campaign name in --config")
    p.add_argument("--name", help="campaign name (with --campaign-json)")
    p.add_argument("--out", type=Path, required=True,
                   help="output folder (new, empty, or written by qacamp; see --force)")
    p.add_argument("--invalidates", type=Path, action="append", default=[], metavar="FILE",
                   help="a file built from the campaign's previous ingest (the workflow's "
                   "manifest.json): removed first if it is as qacamp wrote it")
    p.add_argument("--base-dir", type=Path, default=Path("."),
                   help="directory relative paths are resolved against (default: .)")
    add_threads_option(p, "reading run files ahead")
    add_force_option(p)
    p.set_defaults(func=run)


def _load(args) -> tuple[str, dict]:
    if args.config is not None:
        if not args.campaign:
            raise UsageError("--config needs --campaign NAME")
        from ..configfile import check_plain, read_config_file

        # bounded and strict: a named pipe, UTF-16, a repeated key or an alias
        # bomb is one error naming the file (qacamp.configfile)
        cfg = read_config_file(args.config)
        check_plain(cfg)
        campaigns = (cfg or {}).get("campaigns") if isinstance(cfg, dict) else None
        if not isinstance(campaigns, dict):
            raise ConfigError("campaigns", "missing", "list the campaigns under `campaigns:`")
        if args.campaign not in campaigns:
            raise ConfigError(f"campaigns.{args.campaign}", "no such campaign",
                              f"use one of {sorted(campaigns)}")
        return args.campaign, campaigns[args.campaign]
    if not args.name:
        raise UsageError("--campaign-json needs --name NAME")
    try:
        campaign = json.loads(args.campaign_json, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise UsageError(f"--campaign-json is not valid JSON ({exc})") from exc
    return args.name, campaign


def _no_duplicates(pairs):
    out = {}
    for key, value in pairs:
        if key in out:
            raise UsageError(f"--campaign-json gives the key {key!r} twice in one object")
        out[key] = value
    return out


def print_warnings(command: str, warnings) -> None:
    """Print the ``warnings`` table's rows on stderr (the rule's log)."""
    import sys

    from ..ingest import warning_lines

    for line in warning_lines(warnings):
        print(f"qacamp {command}: warning: {line}", file=sys.stderr)


def _raw_files(campaign, base_dir: Path) -> list[str]:
    """The campaign's raw files (resolved against ``base_dir``), [] where the
    config does not resolve (ingest then says what is wrong)."""
    from ..config import raw_files

    try:
        return raw_files(campaign, base_dir) if isinstance(campaign, dict) else []
    except (QacampError, TypeError, ValueError, AttributeError):
        return []


def run(args) -> int:
    from ..ingest import read_campaign, resolved_campaign, write_ingest
    from ..io import spilling, writing
    from ..progress import Progress

    threads = threads_of(args)
    name, campaign = _load(args)
    inputs = [args.config, *_raw_files(campaign, args.base_dir)]
    with writing("qacamp ingest", dirs=[args.out], inputs=inputs, force=args.force,
                 invalidates=args.invalidates), \
            spilling("qacamp-ingest-") as spill:
        resolved = resolved_campaign(name, campaign, args.base_dir)
        bar = Progress(f"ingest {name}: run files read", 1)
        acc = read_campaign(name, campaign, args.base_dir, progress=bar.report, spill=spill,
                            threads=threads)
        print_warnings("ingest", acc.frame("warnings"))
        write_ingest(acc, resolved, args.out,
                     progress=Progress(f"ingest {name}: rows written", 1, quiet_for=2.0).report)
    return 0
