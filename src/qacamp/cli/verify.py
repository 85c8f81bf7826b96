"""``qacamp verify OUTDIR``: check a results folder against qacamp's records.

Every file qacamp wrote under OUTDIR (a config's outdir, or one campaign's
folder) is hashed and compared with the record its step left
(``.qacamp-output/``), every input of every step with the hash the step read,
and every ``manifest.json`` with the intermediates it lists; a file in
qacamp's folders without a record is named too (logs are not counted).  The
causes first, each followed by the files it makes stale, one line per folder,
on stdout (:func:`qacamp.findings.verify_lines`)::

    changed input: data/judged/run1.txt (changed since `qacamp ingest` read it)
      stale: results/c/ingest: judgments.parquet, questions.parquet, ... (11 files)
      stale: results/c/scores: runs.csv, runs.parquet, ... (5 files)
    changed: results/c/ingest/judgments.parquet (sha256 ... written by `qacamp ingest`, ... now)
    missing: results/c/scores/runs.csv (written by `qacamp score`)
    unrecorded: results/c/scores/extra.parquet (qacamp did not write it, or its record was removed)

then a summary line.  Exit code 0 when everything matches, 1 when something
changed, is missing, unrecorded or stale (rerun the workflow's command: it
rebuilds those files, and refuses to replace an unrecorded one), 2 on an
error.  Nothing is changed.  Inputs that are not
found (a results folder copied to another machine without its raw files) are
named in a note; the outputs are still checked.
"""

from __future__ import annotations

import argparse

from . import HELP


def register(sub) -> None:
    p = sub.add_parser("verify", help=HELP["verify"], description=__doc__,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("outdir", metavar="OUTDIR",
                   help="a results folder: the config's outdir or one campaign's folder")
    p.set_defaults(func=run)


def run(args) -> int:
    from ..errors import InputError
    from ..findings import verify_lines
    from ..io import verify_tree

    report = verify_tree(args.outdir)
    if report.checked == 0:
        raise InputError(args.outdir, None, "holds no record of files qacamp wrote (not a "
                         "results folder, or written by a qacamp without records)",
                         "give the outdir of a workflow run; rerun the workflow to record "
                         "its files")
    for line in verify_lines(report.findings):
        print(line)
    if report.inputs_not_found:
        first = report.inputs_not_found[0]
        print(f"note: {len(report.inputs_not_found)} input file(s) not found here (e.g. "
              f"{first}): whether they changed was not checked")
    counts = {k: sum(f.kind == k for f in report.findings)
              for k in ("changed", "missing", "unrecorded", "stale")}
    summary = ", ".join(f"{n} {k}" for k, n in counts.items())
    print(f"qacamp verify: {report.checked} files checked against their records: {summary}"
          + ("" if report.ok else "; rerun the workflow's command to rebuild them"))
    return 0 if report.ok else 1
