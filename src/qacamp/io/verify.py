"""A results folder against qacamp's records: :func:`verify_tree` (``qacamp
verify``: changed, missing, unrecorded and stale files, changing nothing),
:func:`prepare_outdir` (the workflow's outdir before Snakemake plans), and the
DuckDB index's catalogue (docs/architecture.md, "Files: qacamp.io").
"""

from __future__ import annotations

import contextlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, OutputError
from . import records
from .outputs import SNAKEMAKE_FILES
from .records import MARKER, Record
from .writers import duckdb_views

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Finding:
    kind: str  # changed | missing | unrecorded | stale
    path: Path
    detail: str
    direct: bool = True  # stale: an input itself differs (not only an upstream output)


@dataclass
class Report:
    root: Path
    checked: int = 0
    findings: list[Finding] = field(default_factory=list)
    inputs_not_found: list[Path] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.findings


def _walk(root: Path):
    """``(folder, its record folder or None, entries)`` of every folder under
    ``root``, never through a link (a subfolder of an output folder: its marker)."""
    recdirs: dict[Path, Path | None] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        d = Path(dirpath)
        up = recdirs.get(d.parent)
        recdirs[d] = d / MARKER if records.is_marked(d) else (
            up / d.name if up is not None and os.path.isdir(up / d.name)
            and not os.path.islink(up / d.name) else None)
        if MARKER in dirnames:
            dirnames.remove(MARKER)
        dirnames.sort()
        yield d, recdirs[d], sorted(dirnames + filenames)


def collect(root: Path) -> dict[Path, tuple[Record, Path]]:
    """target -> (record, the folder holding its marker) under ``root``."""
    found: dict[Path, tuple[Record, Path]] = {}
    for d, _rd, _entries in _walk(root):
        for target, rp in records.iter_records(d):
            found[Path(os.path.normpath(target))] = (records.load(rp, target), d)
    return found


def verify_tree(root: str | Path) -> Report:
    """Check every file under ``root`` against qacamp's records."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, None, "folder not found",
                         "give a results folder (the config's outdir, or one campaign's folder)")
    report, recs = Report(root), collect(root)
    hashes: dict[Path, tuple[str, int] | None] = {}
    state: dict[Path, str] = {}
    detail: dict[Path, str] = {}

    def sha(path: Path, follow: bool = False) -> str | None:
        """(A raw input, ``follow``: through links too, as the step read it.)"""
        if path not in hashes:
            hashes[path] = records.digest(path)
            if hashes[path] is None and follow:
                with contextlib.suppress(OSError):
                    hashes[path] = (records.sha256_file(path), os.path.getsize(path))
        return hashes[path] and hashes[path][0]

    def status(target: Path, rec: Record, folder: Path) -> str:
        if target in state:
            return state[target]
        if not os.path.lexists(target):
            state[target] = "gone" if rec.temporary else "missing"
        elif rec.sha256 is None:  # campaign.duckdb: checked by its catalogue
            problem = duckdb_problem(target, rec, folder) if target.suffix == ".duckdb" \
                else None if os.path.isfile(target) and not os.path.islink(target) else "a link"
            state[target], detail[target] = ("changed", problem) if problem else ("ok", "")
        elif sha(target) == rec.sha256 and hashes[target][1] == rec.size:
            state[target] = "ok"
        else:
            state[target], detail[target] = "changed", (
                f"sha256 {rec.sha256[:16]}... written by `{rec.step}`, "
                f"{(sha(target) or 'not a regular file')[:16]}... now")
        return state[target]

    for target, (rec, folder) in sorted(recs.items()):
        report.checked += 1
        st = status(target, rec, folder)
        if st == "missing":
            report.findings.append(Finding("missing", target, f"written by `{rec.step}`"))
        elif st == "changed":
            report.findings.append(Finding("changed", target, detail[target]))
    for d, rd, entries in _walk(root):
        for name in entries if rd is not None else ():
            p = d / name
            if name in SNAKEMAKE_FILES or p in recs or (os.path.isdir(p)
                                                        and not os.path.islink(p)):
                continue
            what = (f"a symbolic link to {os.readlink(p)}; qacamp never follows one"
                    if os.path.islink(p) else "qacamp did not write it, or its record was removed")
            report.findings.append(Finding("unrecorded", p, what))
    outside: dict[Path, tuple[Record, Path] | None] = {}

    def lookup(path: Path) -> tuple[Record, Path] | None:
        """The record of a recorded output, also of one outside ``root``."""
        if path in recs:
            return recs[path]
        if path not in outside:
            try:
                found = records.record_of(path)
            except InputError:
                found = None
            outside[path] = (found[1], found[0]) if found else None
        return outside[path]

    stale: dict[Path, Finding | None] = {}

    def why_stale(target: Path, seen: frozenset) -> Finding | None:
        if target in stale:
            return stale[target]
        rec, folder = lookup(target)
        found = None
        for key, recorded in sorted(rec.inputs.items()):
            inp = records.input_path(key, folder)
            upstream = lookup(inp)
            if upstream is not None:
                up_state = status(inp, *upstream)
                if up_state == "gone" or (up_state == "changed" and recorded is not None
                                          and sha(inp) == recorded):
                    continue  # (what this step read is what is there now)
                if up_state in ("changed", "missing"):
                    found = Finding("stale", target, f"built from {inp}, which is {up_state}",
                                    direct=False)
                elif recorded is not None and upstream[0].sha256 is not None \
                        and upstream[0].sha256 != recorded:
                    found = Finding("stale", target, f"{inp} was rebuilt after `{rec.step}` "
                                    "read it", direct=True)
                elif inp not in seen and why_stale(inp, seen | {target}) is not None:
                    found = Finding("stale", target, f"built from {inp}, which is stale",
                                    direct=False)
            else:
                if not os.path.lexists(inp):
                    if inp not in report.inputs_not_found:
                        report.inputs_not_found.append(inp)
                    continue
                if recorded is not None and sha(inp, follow=True) != recorded:
                    found = Finding("stale", target, f"its input {inp} changed since "
                                    f"`{rec.step}` read it", direct=True)
            if found is not None:
                break
        stale[target] = found
        return found

    for target in sorted(recs):
        if state[target] == "ok":
            finding = why_stale(target, frozenset())
            if finding is not None:
                report.findings.append(finding)
    for man in sorted(p for p in recs if p.name == MANIFEST and state.get(p) == "ok"):
        try:
            listed = json.loads(man.read_text(encoding="utf-8")).get("intermediates") or {}
        except (OSError, ValueError, AttributeError):
            continue
        for rel, recorded in sorted(listed.items()):
            p = Path(os.path.normpath(man.parent / rel))
            if state.get(p) not in ("changed", "missing", "gone") and sha(p) != recorded:
                report.findings.append(Finding("stale", man, f"it lists another sha256 for {p} "
                                               f"({str(recorded)[:16]}...) than the file has"))
                break
    report.findings.sort(key=lambda f: (str(f.path), f.kind))
    return report


def recorded_hashes(folder: str | Path, subfolders) -> dict[str, str | None]:
    """``{path relative to folder: sha256}`` of the files recorded in ``folder``'s
    ``subfolders``, from the records; temporary shards left out."""
    folder = Path(folder)
    out: dict[str, str | None] = {}
    for base in (folder / s for s in subfolders):
        for target, (rec, _f) in collect(base).items() if base.is_dir() else ():
            if not rec.temporary and os.path.lexists(target):
                out[Path(os.path.relpath(target, folder)).as_posix()] = rec.sha256
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- the workflow

#: The modification time given to a stale file: 1 s into 1970 (Snakemake
#: takes a time of 0 for "unknown" and would not compare it).
AGED = 1
#: The outdirs this process holds the lock of, for the process's life.
_HELD: dict[tuple[int, int], int] = {}


def claim_outdir(out: Path, dry_run: bool = False) -> None:
    """The workflow's outdir, created, locked for this process's life and marked
    when new or empty (``dry_run``: checked only).  The lock comes before the
    check for files qacamp did not write: two runs started together on a new
    outdir both create it, and the second is refused as busy, not told that
    the first one's marker is a file qacamp did not write."""
    try:
        st = os.lstat(out) if os.path.lexists(out) else None
        if st is not None and os.path.islink(out):
            raise OutputError(out, f"the outdir is a symbolic link (to {os.readlink(out)}), and "
                              "qacamp never writes or deletes through one",
                              "set `outdir:` to the folder itself, not a link to it")
        if st is None:
            if dry_run:
                return
            out.mkdir(parents=True, exist_ok=True)  # another run may create it meanwhile
        elif not out.is_dir():
            raise OutputError(out, "the outdir exists and is not a folder",
                              "set `outdir:` to a new or empty folder")
        if not dry_run:
            st = os.lstat(out)
            if (st.st_dev, st.st_ino) not in _HELD:
                _HELD[(st.st_dev, st.st_ino)] = records.lock(out, str(out))[0]
        if not records.is_marked(out):
            entries = sorted(os.listdir(out))
            if entries:
                shown = ", ".join(repr(e) for e in entries[:3]) + (", ..." if entries[3:] else "")
                raise OutputError(out, f"the outdir holds files qacamp did not write ({shown})",
                                  "set `outdir:` to a new or empty folder, or move those files "
                                  "away; to let qacamp write its files into this folder anyway "
                                  f"(it replaces only files of the names it writes), create "
                                  f"its marker: mkdir {out / MARKER}")
            if not dry_run:
                (out / MARKER).mkdir()
    except OSError as exc:
        raise OutputError(out, exc.strerror or str(exc),
                          "set `outdir:` to a folder on a disk you can write to (free space, "
                          "write permission, not read-only)") from None


def _clear(folder: Path) -> None:
    """Remove a folder output qacamp wrote (checked before), so that Snakemake reruns its step."""
    for p in [*(p for pair in list(records.iter_records(folder)) for p in pair),
              folder / SNAKEMAKE_FILES[0]]:
        with contextlib.suppress(OSError):
            os.unlink(p)
    records.sweep_temps(folder)
    for dirpath, _dirs, _files in sorted(os.walk(folder), reverse=True):
        with contextlib.suppress(OSError):
            os.rmdir(dirpath)


def prepare_outdir(outdir: str | Path, outputs=(), folders=(), dry_run: bool = False
                   ) -> list[str]:
    """Claim and lock the outdir for this process's life, refuse links and files
    qacamp did not write at ``outputs`` (every path the workflow writes;
    ``folders``: the folder outputs among them), remove what the run must
    rebuild and age what is stale; returns what was done, one line each.
    ``dry_run`` (Snakemake's ``-n``): the same checks and lines, nothing done."""
    out = Path(outdir)
    claim_outdir(out, dry_run)
    if not out.is_dir():  # a dry run on a new outdir: nothing to check
        return []
    for d, _rd, entries in _walk(out):
        link = next((d / e for e in entries if os.path.islink(d / e)), None)
        if link is not None:
            raise records.link_error(link)
        if not dry_run and records.is_marked(d):
            records.sweep_temps(d)
    outputs = [Path(os.path.normpath(p)) for p in (*outputs, *folders)]
    folders = [Path(os.path.normpath(p)) for p in folders]

    def at_output(p: Path) -> bool:
        return any(p == o or o in p.parents for o in outputs)

    report = verify_tree(out)
    for f in report.findings:
        if f.kind == "unrecorded" and at_output(f.path):
            raise OutputError(f.path, "no record: qacamp did not write it or its record was "
                              "removed, and this run writes that path",
                              "move the file out of the outdir (qacamp never replaces a file it "
                              "did not write), then rerun")
    done, cleared = [], set()
    will = "a run removes and rebuilds it" if dry_run else "removed, this run rebuilds it"
    for f in report.findings:
        if not at_output(f.path) or f.kind == "unrecorded" or (f.kind == "stale"
                                                                and not f.direct):
            continue
        folder = next((o for o in folders if o in f.path.parents), None)
        if folder is not None:
            if folder not in cleared:
                cleared.add(folder)
                what = {"missing": "is missing", "stale": f"is stale ({f.detail})",
                        "changed": f"changed since it was written ({f.detail})"}[f.kind]
                done.append(f"{f.path} {what}: " + (f"a run removes and rebuilds {folder}"
                            if dry_run else f"removed {folder}, this run rebuilds it"))
                if not dry_run:
                    _clear(folder)
        elif f.kind == "changed":
            done.append(f"{f.path} changed since it was written ({f.detail}): {will}")
            if not dry_run:
                with contextlib.suppress(OSError):
                    os.unlink(f.path)
        elif f.kind == "stale":
            done.append(f"{f.path} is stale ({f.detail}): "
                        + ("a run rebuilds it" if dry_run else "this run rebuilds it"))
            if not dry_run:
                with contextlib.suppress(OSError):
                    os.utime(f.path, (AGED, AGED), follow_symlinks=False)
    return done


# --------------------------------------------------------------------------- DuckDB

_CATALOG = """select 'view', view_name, sql from duckdb_views() where not internal
union all select 'table', table_name, sql from duckdb_tables()
union all select 'sequence', sequence_name, sql from duckdb_sequences()
union all select 'index', index_name, sql from duckdb_indexes()
union all select 'macro', function_name, macro_definition from duckdb_functions()
  where not internal and function_type in ('macro', 'table_macro')
union all select 'type', type_name, '' from duckdb_types() where not internal
union all select 'schema', schema_name, '' from duckdb_schemas() where not internal
order by 1, 2, 3"""


def duckdb_problem(db: Path, rec: Record, root: Path) -> str | None:
    """What differs between the catalogue of ``db`` (views, tables, macros, ...)
    and the views ``qacamp duckdb`` writes for the Parquet files its record
    ``rec`` lists, those of this campaign folder ``root`` (``<folder>/<file>``
    under it, however the record spells them: a copied folder's index must
    read the copy's files); None when nothing does."""
    import duckdb

    views = {Path(k).stem: (root / Path(k).parent.name / Path(k).name).resolve()
             for k in sorted(rec.inputs) if k.endswith(".parquet")}
    try:
        with duckdb.connect(":memory:") as want:
            duckdb_views(want, views)
            expected = want.execute(_CATALOG).fetchall()
    except duckdb.Error as exc:
        return ("a Parquet file it indexes is missing or not Parquet that DuckDB can read "
                f"({' '.join(str(exc).split())[:80]})")
    try:
        with duckdb.connect(str(db), read_only=True) as con:
            found = con.execute(_CATALOG).fetchall()
    except duckdb.Error as exc:
        return f"not a DuckDB file qacamp can open ({' '.join(str(exc).split())[:80]})"
    if found == expected:
        return None
    old = _moved_from(found, expected, root.resolve())
    if old is not None:
        return (f"its views read the Parquet files under {old}, not this folder's (the results "
                f"were moved or copied): rebuild it with `qacamp duckdb {root}`")
    return "its views or other objects differ from those `qacamp duckdb` writes"


def _moved_from(found: list, expected: list, root: Path) -> str | None:
    """The folder whose Parquet files the views of ``found`` read when they are
    ``expected``'s but for that folder (an index moved or copied with its
    results), else None."""
    new = f"read_parquet('{str(root).replace(chr(39), chr(39) * 2)}/"
    for kind, name, sql in expected:
        if kind == "view" and new in sql:
            tail = sql[sql.index(new) + len(new):]
            match = next((s for k, n, s in found if k == "view" and n == name), "")
            at = match.find("read_parquet('")
            if at < 0 or not match.endswith(tail):
                return None
            old = match[at: len(match) - len(tail)]
            moved = [(k, n, s.replace(old, new)) for k, n, s in found]
            return old[len("read_parquet('"):-1] if moved == expected else None
    return None
