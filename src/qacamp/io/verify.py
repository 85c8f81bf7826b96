"""Checking a whole results folder against qacamp's records.

:func:`verify_tree` (``qacamp verify OUTDIR``) hashes every file qacamp
recorded under a folder and reports:

* ``changed``: the file's bytes differ from what the step wrote;
* ``missing``: the file is gone (shards the workflow deletes once merged are
  not missing);
* ``stale``: the file is as written, but an input it was built from is no
  longer what the step read (a judgment file edited after the run), or was
  itself built anew, changed or is stale;
  ``manifest.json`` is stale when it lists another hash for a file than the
  file has.

It never changes anything.  :func:`prepare_outdir` is what the workflow runs
before Snakemake plans (main process only): it claims the outdir like a
command's ``--out`` folder, refuses folder outputs that hold a user's file
(Snakemake replaces them whole), removes each file qacamp owns that changed
since it was written, and ages each stale one (modification time 1970) so that
Snakemake's modification-time trigger reruns the step that writes it.
"""

from __future__ import annotations

import contextlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import InputError, OutputError
from . import records
from .outputs import SNAKEMAKE_FILES
from .records import MARKER, Record

#: Files the workflow leaves in folders it owns that qacamp does not record.
MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Finding:
    kind: str  # changed | missing | stale
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

    def lines(self) -> list[str]:
        return [f"{f.kind}: {f.path} ({f.detail})" for f in self.findings]


class _Hashes:
    def __init__(self):
        self.cache: dict[Path, str | None] = {}

    def __call__(self, path: Path) -> str | None:
        if path not in self.cache:
            try:
                st = os.stat(path)
                self.cache[path] = records.sha256_file(path) if stat.S_ISREG(st.st_mode) else None
            except OSError:
                self.cache[path] = None
        return self.cache[path]


def collect(root: Path) -> dict[Path, tuple[Record, Path]]:
    """target -> (record, the folder holding its record folder) under ``root``."""
    found: dict[Path, tuple[Record, Path]] = {}
    for dirpath, dirnames, _files in os.walk(root):
        dirnames.sort()
        if MARKER in dirnames:
            dirnames.remove(MARKER)
            for target, rp in records.iter_records(dirpath):
                found[Path(os.path.normpath(target))] = (records.load(rp, target), Path(dirpath))
    return found


def verify_tree(root: str | Path) -> Report:
    """Check every file qacamp recorded under ``root`` (module docstring)."""
    root = Path(root)
    if not root.is_dir():
        raise InputError(root, None, "folder not found",
                         "give a results folder (the config's outdir, or one campaign's folder)")
    report = Report(root)
    recs = collect(root)
    sha = _Hashes()
    state: dict[Path, str] = {}

    def status(target: Path, rec: Record) -> str:
        if target not in state:
            if not os.path.lexists(target):
                state[target] = "gone" if rec.temporary else "missing"
            elif rec.sha256 is not None and sha(target) != rec.sha256:
                state[target] = "changed"
            else:
                state[target] = "ok"
        return state[target]

    for target, (rec, _folder) in sorted(recs.items()):
        report.checked += 1
        st = status(target, rec)
        if st == "missing":
            report.findings.append(Finding("missing", target, f"written by `{rec.step}`"))
        elif st == "changed":
            now = sha(target)
            report.findings.append(Finding(
                "changed", target, f"sha256 {rec.sha256[:16]}... written by `{rec.step}`, "
                f"{(now or 'unreadable')[:16]}... now"))
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
                up_state = status(inp, upstream[0])
                if up_state == "gone":
                    continue
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
                if recorded is not None and sha(inp) != recorded:
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
    _check_manifests(root, recs, state, sha, report)
    report.findings.sort(key=lambda f: (str(f.path), f.kind))
    return report


def _check_manifests(root: Path, recs, state, sha, report: Report) -> None:
    import json

    for man in sorted(root.rglob(MANIFEST)):
        if MARKER in man.parts or state.get(Path(os.path.normpath(man))) != "ok":
            continue
        try:
            listed = json.loads(man.read_text(encoding="utf-8")).get("intermediates") or {}
        except (OSError, ValueError, AttributeError):
            continue
        for rel, recorded in sorted(listed.items()):
            p = Path(os.path.normpath(man.parent / rel))
            if state.get(p) in ("changed", "missing", "gone"):
                continue
            if sha(p) != recorded:
                report.findings.append(Finding("stale", man, f"it lists another sha256 for {p} "
                                               f"({str(recorded)[:16]}...) than the file has"))
                break


def recorded_hashes(folder: str | Path, subfolders=None) -> dict[str, str | None]:
    """``{path relative to folder: sha256}`` of the files recorded in
    ``folder``'s ``subfolders`` (all when None), from the records (no file is
    read but the records); temporary shards are left out."""
    folder = Path(folder)
    out: dict[str, str | None] = {}
    bases = [folder / s for s in subfolders] if subfolders is not None else [folder]
    for base in bases:
        for target, (rec, _f) in collect(base).items() if base.is_dir() else ():
            if not rec.temporary and os.path.lexists(target):
                out[Path(os.path.relpath(target, folder)).as_posix()] = rec.sha256
    return dict(sorted(out.items()))


# --------------------------------------------------------------------------- the workflow

#: The modification time given to a stale file: 1 s into 1970 (Snakemake
#: takes a time of 0 for "unknown" and would not compare it).
AGED = 1


def _age(path: Path, top: Path) -> None:
    """The oldest modification time for ``path`` and for the
    ``.snakemake_timestamp`` of any folder output it lies in (how Snakemake
    dates a folder), so that Snakemake reruns the step that writes it."""
    with contextlib.suppress(OSError):
        os.utime(path, (AGED, AGED), follow_symlinks=False)
    for parent in path.parents:
        stamp = parent / SNAKEMAKE_FILES[0]
        if stamp.is_file():
            with contextlib.suppress(OSError):
                os.utime(stamp, (AGED, AGED))
        if parent == top:
            break


def claim_outdir(out: Path, dry_run: bool = False) -> None:
    """The workflow's outdir: created and marked when new or empty; refused when
    it holds files qacamp did not write.  ``dry_run``: checked, nothing created."""
    try:
        if not os.path.lexists(out):
            if dry_run:
                return
            out.mkdir(parents=True)
        elif not out.is_dir():
            raise OutputError(out, "the outdir exists and is not a folder",
                              "set `outdir:` to a new or empty folder")
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


def prepare_outdir(outdir: str | Path, folder_outputs=(), dry_run: bool = False) -> list[str]:
    """Before the workflow plans (module docstring).  Returns what was done, one
    line each; a refusal is an :class:`~qacamp.errors.OutputError`.
    ``dry_run`` (Snakemake's ``-n``): the same checks and lines, but nothing on
    disk is created, removed or re-dated (the plan shown may then reuse a file
    that the real run rebuilds; the lines say which)."""
    out = Path(outdir)
    claim_outdir(out, dry_run)
    for folder in map(Path, folder_outputs):
        if folder.is_symlink():  # (walked, its target's files would be "not written by qacamp")
            raise OutputError(folder, f"it is a symbolic link (to {os.readlink(folder)}), and "
                              "the workflow replaces this folder whole when it rebuilds it",
                              "replace the link by a folder of its own (or remove it), then "
                              "rerun")
        if not folder.is_dir():
            continue
        for dirpath, dirnames, files in os.walk(folder):
            if MARKER in dirnames:
                dirnames.remove(MARKER)
            for name in sorted(files):
                p = Path(dirpath) / name
                if name in SNAKEMAKE_FILES or records.is_temp_name(name) \
                        or records.record_path(folder, p).is_file():
                    continue
                raise OutputError(folder, f"it holds a file qacamp did not write "
                                  f"({p.relative_to(folder)}), and the workflow replaces this "
                                  "folder whole when it rebuilds it",
                                  "move that file out of the folder, then rerun")
    if not out.is_dir():  # a dry run on a new outdir: nothing to check
        return []
    report = verify_tree(out)
    done = []
    will = "a run removes and rebuilds it" if dry_run else "removed, this run rebuilds it"
    for f in report.findings:
        if f.kind == "changed" and os.path.isfile(f.path) \
                and not os.path.islink(f.path):
            if not dry_run:
                with contextlib.suppress(OSError):
                    os.unlink(f.path)
                    _age(f.path, out)
            done.append(f"{f.path} changed since it was written ({f.detail}): {will}")
        elif f.kind == "missing":
            if not dry_run:
                _age(f.path, out)
        elif f.kind == "stale" and f.direct:
            if not dry_run:
                _age(f.path, out)
            done.append(f"{f.path} is stale ({f.detail}): "
                        + ("a run rebuilds it" if dry_run else "this run rebuilds it"))
    return done


__all__ = ["verify_tree", "prepare_outdir", "claim_outdir", "recorded_hashes", "Report",
           "Finding", "collect"]
