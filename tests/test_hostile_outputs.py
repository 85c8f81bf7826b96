"""Output paths never destroy what qacamp did not write.

Every ``--out`` of every command (ingest, score, reliability *, report *,
simulate, duckdb, manifest) pointed at a folder holding a user's file, an
existing file, an input of the command, a character device, a named pipe, a
socket or a symbolic link to elsewhere: exit code 2, one ``qacamp ...: error:``
line naming the path, no traceback, and every pre-existing entry under the
test folder byte-identical afterwards (type, mode, bytes, link target, device
number).  As root (CI is root) the device is a node the test makes with
``mknod`` in its own folder, so a wrong implementation could only destroy
that node, never the real ``/dev/null``.  Read-only and full disks are real
tmpfs mounts (root).  The workflow's outdir gets the same checks (one
``qacamp:`` line), an outdir named ``-x`` never reaches a command as an
option, and a job whose log is on the full disk still shows its error.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import stat
import subprocess
import uuid
from pathlib import Path

import pytest
import yaml
from workflow_util import snakemake

from qacamp.cli import main

ROOT_ONLY = pytest.mark.skipif(os.geteuid() != 0, reason="needs root (CI runs as root)")
NULL_DEVICE = os.makedev(1, 3)  # the numbers of /dev/null


# --------------------------------------------------------------------------- helpers

def fingerprint(top: Path) -> dict[str, tuple]:
    """Every entry under ``top`` (``top`` included): type and content."""
    out = {}
    for p in [top, *sorted(top.rglob("*"))]:
        st = os.lstat(p)
        rel = p.relative_to(top).as_posix()
        if stat.S_ISREG(st.st_mode):
            digest = hashlib.sha256(p.read_bytes()).hexdigest()
            out[rel] = ("file", stat.S_IMODE(st.st_mode), digest)
        elif stat.S_ISLNK(st.st_mode):
            out[rel] = ("link", os.readlink(p))
        elif stat.S_ISDIR(st.st_mode):
            out[rel] = ("dir", stat.S_IMODE(st.st_mode))
        else:
            out[rel] = ("special", stat.S_IFMT(st.st_mode), st.st_rdev)
    return out


def refused(capsys, argv: list[str], path: Path | str, *words: str) -> str:
    """``qacamp argv`` exits 2 with one error line naming ``path`` (a file in
    the folder ``path`` when it ends with /) and ``words``."""
    rc = main(argv)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "Traceback" not in err and "panicked" not in err, err
    lines = [ln for ln in err.splitlines() if ": error: " in ln]
    assert len(lines) == 1, err
    head = f": error: {path}" if str(path).endswith("/") else f": error: {path}: "
    assert head in lines[0], (lines[0], path)
    for w in words:
        assert w in lines[0], (w, lines[0])
    return lines[0]


def make_fifo(p: Path) -> None:
    os.mkfifo(p)


def make_socket(p: Path) -> socket.socket:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(str(p))
    return s


def make_device(p: Path) -> None:
    """A character device node with /dev/null's numbers, in the test's folder."""
    if os.geteuid() != 0:
        pytest.skip("mknod needs root (CI runs as root)")
    try:
        os.mknod(p, 0o666 | stat.S_IFCHR, NULL_DEVICE)
    except OSError as exc:
        pytest.skip(f"cannot mknod here: {exc}")


@pytest.fixture(scope="module")
def camp(tmp_path_factory) -> Path:
    """A small CLEF campaign taken through ingest, score and swap counts."""
    base = tmp_path_factory.mktemp("outputs")
    assert main(["simulate", "clef-qa", "--out", str(base / "data"), "--runs", "4",
                 "--questions", "30", "--seed", "5", "--quiet"]) == 0
    cfg = {"kind": "clef-qa", "questions": str(base / "data/questions.tsv"),
           "runs": str(base / "data/runs/*.tsv")}
    (base / "campaign.json").write_text(json.dumps(cfg))
    c = base / "c"
    assert main(["ingest", "--campaign-json", json.dumps(cfg), "--name", "c",
                 "--out", str(c / "ingest")]) == 0
    assert main(["score", "--ingest", str(c / "ingest"), "--out", str(c / "scores")]) == 0
    assert main(["reliability", "swap", "--scores", str(c / "scores"), "--measure", "c_at_1",
                 "--judgment-set", "official", "--sizes", "5:10:5", "--trials", "2",
                 "--out", str(c / "reliability" / "swap_c_at_1.parquet")]) == 0
    # a QA4MRE gold standard: the questions of `simulate --questions-from`
    assert main(["simulate", "qa4mre", "--out", str(base / "qa4mre"), "--runs", "2",
                 "--topics", "1", "--tests", "1", "--seed", "5", "--quiet"]) == 0
    (base / "config.json").write_text(json.dumps({"campaigns": {"c": cfg}}))
    (base / "plan.json").write_text(json.dumps({"reliability_plan": {}, "shards": 1}))
    return base


def commands(camp: Path) -> dict[str, tuple[str, callable]]:
    """name -> (what --out is: dir | file, argv for an --out path)."""
    c = camp / "c"
    cfg = (camp / "campaign.json").read_text()
    scores = ["--scores", str(c / "scores"), "--measure", "c_at_1", "--judgment-set", "official"]
    counts = str(c / "reliability" / "swap_c_at_1.parquet")
    return {
        "ingest": ("dir", lambda o: ["ingest", "--campaign-json", cfg, "--name", "c", "--out", o]),
        "score": ("dir", lambda o: ["score", "--ingest", str(c / "ingest"), "--out", o]),
        "simulate": ("dir", lambda o: ["simulate", "pan", "--out", o, "--quiet"]),
        "simulate --questions-from": ("dir", lambda o: [
            "simulate", "qa4mre", "--questions-from", str(camp / "qa4mre" / "gold.xml"),
            "--runs", "2", "--out", o, "--quiet"]),
        "reliability swap": ("file", lambda o: ["reliability", "swap", *scores, "--sizes",
                                                "5:10:5", "--trials", "2", "--out", o]),
        "reliability stability": ("file", lambda o: ["reliability", "stability", *scores,
                                                     "--size", "10", "--trials", "2", "--out", o]),
        "reliability bootstrap": ("file", lambda o: ["reliability", "bootstrap", *scores,
                                                     "--samples", "10", "--out", o]),
        "reliability significance": ("file", lambda o: [
            "reliability", "significance", *scores, "--permutations", "20", "--out", o]),
        "reliability design": ("file", lambda o: ["reliability", "design", *scores,
                                                  "--out", o]),
        "reliability merge": ("file", lambda o: ["reliability", "merge", "--kind", "swap", o,
                                                 counts]),
        "reliability fit": ("file", lambda o: ["reliability", "fit", *scores, "--counts", counts,
                                               "--out", o]),
        "reliability kendall": ("file", lambda o: ["reliability", "kendall", f"a={counts}",
                                                   f"b={counts}", "--out", o]),
        "reliability extras": ("dir", lambda o: ["reliability", "extras", "--ingest",
                                                 str(c / "ingest"), "--scores", str(c / "scores"),
                                                 "--measure", "c_at_1", "--out", o]),
        "report tables": ("dir", lambda o: ["report", "tables", "--campaign-dir", str(c),
                                            "--no-reliability", "--out", o]),
        "report figures": ("dir", lambda o: ["report", "figures", "--campaign-dir", str(c),
                                             "--no-reliability", "--out", o]),
        "report editions": ("dir", lambda o: ["report", "editions", "--campaign-dir", str(c),
                                              "--campaign-dir", str(c), "--out", o]),
        "report page": ("file", lambda o: ["report", "page", "--campaign-dir", str(c),
                                           "--out", o]),
        "report index": ("file", lambda o: ["report", "index", "--campaign-dir", str(c),
                                            "--out", o]),
        "manifest": ("file", lambda o: ["manifest", "--config", str(camp / "config.json"),
                                        "--plan", str(camp / "plan.json"), "--name", "c",
                                        "--out", o]),
    }


COMMANDS = ["ingest", "score", "simulate", "simulate --questions-from", "reliability swap",
            "reliability stability", "reliability bootstrap", "reliability significance",
            "reliability design", "reliability merge", "reliability fit",
            "reliability kendall", "reliability extras", "report tables", "report figures",
            "report editions", "report page", "report index", "manifest"]
CASES = ["users_folder", "users_file", "input", "device", "fifo", "socket", "symlink"]


def _input_of(name: str, camp: Path) -> Path:
    """An input of the command: --out naming it must be refused."""
    c = camp / "c"
    counts = c / "reliability" / "swap_c_at_1.parquet"
    return {"ingest": camp / "data" / "questions.tsv", "score": c / "ingest",
            "reliability swap": c / "scores", "reliability stability": c / "scores",
            "reliability bootstrap": c / "scores", "reliability significance": c / "scores",
            "reliability design": c / "scores",
            "simulate --questions-from": camp / "qa4mre" / "gold.xml",
            "reliability merge": counts,
            "reliability fit": counts, "reliability kendall": counts,
            "reliability extras": c / "scores", "manifest": camp / "config.json"}.get(name, c)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("name", COMMANDS)
def test_every_out_refuses_what_qacamp_did_not_write(camp, tmp_path, capsys, name, case):
    kind, argv = commands(camp)[name]
    place = tmp_path / "place"
    place.mkdir()
    (place / "elsewhere").mkdir()
    (place / "elsewhere" / "keep.txt").write_text("a user's file\n")
    out = place / "out"
    words = []
    keep = None
    if case == "users_folder":
        if kind == "file":
            pytest.skip("a file output only creates a new name in a folder")
        out.mkdir()
        (out / "notes.txt").write_text("my notes\n")
        words = ["the folder holds files qacamp did not write ('notes.txt')", "--force"]
    elif case == "users_file":
        out.write_text("my own file\n")
        words = ["not a folder"] if kind == "dir" else [
            "the file exists and was not written by qacamp", "--force"]
    elif case == "input":
        if name == "simulate":
            pytest.skip("simulate reads no input")
        out = _input_of(name, camp)
        words = ["it is an input of this command"]
    elif case == "device":
        make_device(out)
        words = ["a character device"]
    elif case == "fifo":
        make_fifo(out)
        words = ["a named pipe"]
    elif case == "socket":
        keep = make_socket(out)
        words = ["a socket"]
    elif case == "symlink":
        out.symlink_to(place / "elsewhere" / ("" if kind == "dir" else "keep.txt"))
        words = ["a symbolic link"]
    watched = camp if case == "input" else place
    before = fingerprint(watched)
    try:
        refused(capsys, argv(str(out)), out, *words)
    finally:
        if keep is not None:
            keep.close()
    assert fingerprint(watched) == before
    if case == "device":
        st = os.lstat(out)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == NULL_DEVICE


# --------------------------------------------------------------------------- the acceptance cases

def test_ingest_out_holding_a_users_file_is_refused_and_the_file_kept(camp, tmp_path, capsys):
    out = tmp_path / "results"
    out.mkdir()
    (out / "paper.tex").write_bytes(b"\\section{Results}\n% my draft\n")
    before = fingerprint(tmp_path)
    msg = refused(capsys, commands(camp)["ingest"][1](str(out)), out,
                  "cannot write: the folder holds files qacamp did not write ('paper.tex')",
                  "give a new or empty folder, or --force")
    assert fingerprint(tmp_path) == before, msg


def test_ingest_out_equal_to_an_input_file_is_refused(camp, capsys):
    raw = camp / "data" / "questions.tsv"
    before = fingerprint(camp)
    refused(capsys, commands(camp)["ingest"][1](str(raw)), raw, "input of this command")
    assert fingerprint(camp) == before


@ROOT_ONLY
def test_ingest_out_on_a_device_node_is_refused_as_root(camp, tmp_path, capsys):
    """`--out /dev/null` as root, on a node with /dev/null's numbers that the test
    made in its own folder (a wrong implementation can only destroy that node)."""
    node = tmp_path / "null"
    make_device(node)
    for name in ("ingest", "score", "reliability swap", "report page", "manifest"):
        refused(capsys, commands(camp)[name][1](str(node)), node, "a character device")
        st = os.lstat(node)
        assert stat.S_ISCHR(st.st_mode) and st.st_rdev == NULL_DEVICE, name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]


def test_force_takes_over_a_folder_and_leaves_its_files_alone(camp, tmp_path, capsys):
    out = tmp_path / "scores"
    out.mkdir()
    (out / "notes.txt").write_text("mine\n")
    before = fingerprint(out)
    argv = commands(camp)["score"][1](str(out))
    assert main([*argv, "--force"]) == 0, capsys.readouterr().err
    assert (out / "runs.parquet").is_file() and (out / ".qacamp-output").is_dir()
    assert fingerprint(out)["notes.txt"] == before["notes.txt"]
    # now qacamp's: a rerun needs no --force, replaces its own files, keeps the user's
    (out / "later.txt").write_text("added after the run\n")
    assert main(argv) == 0
    assert (out / "notes.txt").read_text() == "mine\n"
    assert (out / "later.txt").read_text() == "added after the run\n"


def test_an_unrecorded_file_in_a_qacamp_folder_is_not_replaced(camp, tmp_path, capsys):
    out = tmp_path / "scores"
    argv = commands(camp)["score"][1](str(out))
    assert main(argv) == 0
    mine = out / "runs.csv"
    (out / ".qacamp-output" / "runs.csv.json").unlink()  # as if a user put runs.csv there
    mine.write_text("my own table\n")
    refused(capsys, argv, mine, "the file exists and was not written by qacamp", "--force")
    assert mine.read_text() == "my own table\n"
    assert main([*argv, "--force"]) == 0
    assert mine.read_text().startswith("run,")


def test_files_a_step_no_longer_writes_are_removed_others_kept(tmp_path):
    from qacamp.io import write_text, writing

    out = tmp_path / "tables"
    with writing("qacamp report tables", dirs=[out]):
        write_text("a\n", out / "a.csv")
        write_text("b\n", out / "b.csv")
    (out / "user.csv").write_text("mine\n")
    with writing("qacamp report tables", dirs=[out]):
        write_text("a2\n", out / "a.csv")
    assert sorted(p.name for p in out.iterdir()) == [".qacamp-output", "a.csv", "user.csv"]
    assert (out / "user.csv").read_text() == "mine\n"
    assert sorted(p.name for p in (out / ".qacamp-output").iterdir()) == ["a.csv.json"]


def test_fit_counts_in_a_users_file_is_not_called_something_to_delete(tmp_path, capsys):
    m = tmp_path / "m.csv"
    m.write_text("a,b\n0.1,0.2\n")
    refused_path = m
    rc = main(["reliability", "fit", "--counts", str(m), "--full-size", "10",
               "--out", str(tmp_path / "fits.parquet")])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    # never read: qacamp holds no record of it (and never calls it something to delete)
    assert f"error: {refused_path}: no record: qacamp did not write it or its record was " \
        "removed" in err
    assert "delete" not in err
    assert "give the swap counts that `qacamp reliability swap`" in err
    assert m.read_text() == "a,b\n0.1,0.2\n"


@pytest.mark.parametrize("mask", [0o022, 0o027])
def test_outputs_follow_the_umask(camp, tmp_path, mask):
    old = os.umask(mask)
    try:
        assert main(commands(camp)["score"][1](str(tmp_path / "a" / "scores"))) == 0
    finally:
        os.umask(old)
    for p in [tmp_path / "a", *sorted((tmp_path / "a").rglob("*"))]:
        mode = stat.S_IMODE(os.lstat(p).st_mode)
        want = (0o777 if p.is_dir() else 0o666) & ~mask
        assert mode == want, (p, oct(mode), oct(want))


# --------------------------------------------------------------------------- real disks (root)

def _mount(where: Path, options: str):
    if os.geteuid() != 0 or shutil.which("mount") is None:
        pytest.skip("needs root to mount a tmpfs (CI runs as root)")
    where.mkdir(parents=True, exist_ok=True)
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(where)],
                         capture_output=True, text=True)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip()}")


@pytest.fixture
def tmpfs(tmp_path):
    mounts = []

    def mount(name: str, options: str) -> Path:
        where = tmp_path / f"{name}-{uuid.uuid4().hex[:6]}"
        _mount(where, options)
        mounts.append(where)
        return where

    yield mount
    for m in reversed(mounts):
        subprocess.run(["umount", str(m)], check=False)


def test_read_only_disk_is_one_line(camp, tmpfs, capsys):
    ro = tmpfs("ro", "ro,size=64k")
    for name in ("ingest", "score", "reliability swap", "report tables", "report page"):
        out = ro / "results" / name.replace(" ", "_")
        refused(capsys, commands(camp)[name][1](str(out)), ro / "results",
                "cannot write: Read-only file system")
    assert list(ro.iterdir()) == []


def test_full_disk_is_one_line_and_the_users_file_is_kept(camp, tmpfs, capsys):
    disk = tmpfs("full", "size=64k")
    (disk / "thesis.pdf").write_bytes(os.urandom(48 * 1024))  # most of the disk
    (disk / ".qacamp-output").mkdir()  # the folder is taken over explicitly
    before = fingerprint(disk)
    for name in ("ingest", "score"):
        out = disk / name
        refused(capsys, commands(camp)[name][1](str(out)), f"{out}/",
                ": cannot write: No space left on device")
        assert fingerprint(disk) == before  # nothing partial, no temporary, no record


def test_full_spill_disk_is_one_line_and_nothing_is_left(camp, tmpfs, tmp_path, capsys,
                                                         monkeypatch):
    """`qacamp ingest` keeps the run tables in an unnamed temporary file in
    TMPDIR while it reads: a full disk there is one line naming that folder;
    nothing is left there or in the output."""
    import tempfile

    disk = tmpfs("spill", "size=64k")
    fill(disk)
    monkeypatch.setattr(tempfile, "tempdir", str(disk))
    out = tmp_path / "results" / "ingest"
    rc = main(commands(camp)["ingest"][1](str(out)))
    err = capsys.readouterr().err
    lines = [ln for ln in err.splitlines() if ": error: " in ln]
    assert rc == 2 and len(lines) == 1 and "Traceback" not in err, err
    assert f": error: {disk}: cannot write" in lines[0], lines[0]
    assert "cannot write: No space left on device" in lines[0] and "TMPDIR" in lines[0]
    assert [p.name for p in disk.iterdir()] == ["filler"]
    assert not out.exists()


def fill(disk: Path) -> None:
    """Fill a tmpfs to the last byte with a user's file."""
    fd = os.open(disk / "filler", os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    try:
        for _ in range(1 << 16):
            try:
                os.write(fd, b"\0" * 1024)
            except OSError:
                return
    finally:
        os.close(fd)


# --------------------------------------------------------------------------- the workflow's outdir

def _campaign(cfg: Path, outdir: str) -> Path:
    """The small campaign's config (conftest.small_campaign) with ``outdir``."""
    doc = yaml.safe_load(cfg.read_text())
    doc["outdir"] = outdir
    cfg.write_text(yaml.safe_dump(doc))
    return cfg


def _qacamp_lines(res) -> list[str]:
    return [ln for ln in (res.stdout + res.stderr).splitlines() if ln.startswith("qacamp")]


@pytest.mark.slow
def test_workflow_outdir_holding_a_users_file_is_one_line(tmp_path, small_campaign):
    cfg = _campaign(small_campaign, "results")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "draft.docx").write_bytes(b"PK\x03\x04 a user's document")
    before = fingerprint(tmp_path / "results")
    res = snakemake(tmp_path, "-n", configfile=cfg)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert _qacamp_lines(res) == [
        "qacamp: results: cannot write: the outdir holds files qacamp did not write "
        "('draft.docx'). Fix: set `outdir:` to a new or empty folder, or move those files away; "
        "to let qacamp write its files into this folder anyway (it replaces only files of the "
        "names it writes), create its marker: mkdir results/.qacamp-output"], res.stderr
    assert fingerprint(tmp_path / "results") == before


@pytest.mark.slow
def test_workflow_fresh_outdir_on_a_read_only_disk_is_one_line(tmp_path, tmpfs, small_campaign):
    ro = tmpfs("ro", "ro,size=64k")
    cfg = _campaign(small_campaign, str(ro / "results"))
    res = snakemake(tmp_path, configfile=cfg)
    assert res.returncode == 1 and "Traceback" not in res.stderr
    assert _qacamp_lines(res) == [
        f"qacamp: {ro / 'results'}: cannot write: Read-only file system. Fix: set `outdir:` to "
        "a folder on a disk you can write to (free space, write permission, not read-only)"]
    assert list(ro.iterdir()) == []


@pytest.mark.slow
def test_workflow_full_disk_error_reaches_the_terminal(tmp_path, tmpfs, small_campaign):
    """The job's log is on the full disk too: its error line still reaches the
    workflow's own stderr (QACAMP_ERROR_FD), naming the space."""
    disk = tmpfs("full", "size=64k")
    cfg = _campaign(small_campaign, str(disk))
    config_json = f"{disk}/mine/config.json"
    res = snakemake(tmp_path, config_json, configfile=cfg)
    assert res.returncode == 0, res.stderr[-2000:]
    fill(disk)
    res = snakemake(tmp_path, f"{disk}/mine/ingest/campaign.json", configfile=cfg, quiet=False)
    out = res.stdout + res.stderr
    assert res.returncode != 0
    assert "Logfile" in out and "empty file" in out  # the log could not take it ...
    assert (f"qacamp ingest: error: {disk}/mine/ingest/questions.parquet: cannot write: "
            "No space left on device") in out  # ... the terminal did


@pytest.mark.slow
def test_workflow_outdir_named_like_an_option(tmp_path, small_campaign):
    cfg = _campaign(small_campaign, "-x")
    res = snakemake(tmp_path, "-n", "-p", configfile=cfg, quiet=False)
    assert res.returncode == 0, res.stderr[-2000:]
    shells = [ln for ln in (res.stdout + res.stderr).splitlines()
              if ln.startswith("Shell command:")]
    assert len(shells) > 10
    for ln in shells:
        assert " -x/" not in ln and "'-x" not in ln, ln  # every path is ./-x/...
    assert any("--invalidates ./-x/mine/manifest.json" in ln for ln in shells)
    assert any("qacamp ingest " in ln and "--out ./-x/mine/ingest " in ln for ln in shells)


def test_an_out_spelled_like_an_option_is_a_path(camp, tmp_path, capsys, monkeypatch):
    """What the workflow passes for an outdir named -x: the commands take
    ./-x/... as a path."""
    monkeypatch.chdir(tmp_path)
    assert main(commands(camp)["ingest"][1]("./-x/mine/ingest")) == 0, capsys.readouterr().err
    assert (tmp_path / "-x" / "mine" / "ingest" / "judgments.parquet").is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["-x"]


def test_duckdb_refuses_a_campaign_duckdb_it_did_not_write(camp, tmp_path, capsys):
    c = tmp_path / "c"
    shutil.copytree(camp / "c", c)
    db = c / "campaign.duckdb"
    for make, words in ((make_fifo, "a named pipe"), (lambda p: p.write_text("my db\n"),
                                                        "was not written by qacamp"),
                        (lambda p: p.symlink_to(camp / "campaign.json"), "a symbolic link")):
        make(db)
        before = fingerprint(tmp_path)
        refused(capsys, ["duckdb", str(c)], db, words)
        assert fingerprint(tmp_path) == before
        db.unlink()
    assert main(["duckdb", str(c)]) == 0
