"""No config value reaches a shell unquoted.

* Every string of the schema that ends up in a command (names, sizes, grids,
  measures, editions, languages) has a strict pattern: payloads are refused
  before anything runs, with one line naming the key.
* Free text and paths (titles, raw file paths, outdir, the config file's own
  name) are accepted, and a whole workflow run with backticks, ``$(...)``,
  ``;``, quotes and newlines in them, started with the README's command,
  executes none of them.
* Statically: every placeholder of every rule's shell command is either
  quoted with Snakemake's ``:q`` or a ``params.*_argv`` built by ``argv`` /
  ``options`` (shlex.quote).
"""

from __future__ import annotations

import copy
import re

import polars as pl
import pytest
import yaml
from workflow_util import ROOT, error_lines, make_run, needs_make, qacamp, snakemake

from qacamp.errors import ConfigError
from qacamp.plan import validate_config

SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"


def payloads(tag: str) -> list[str]:
    """Shell code that creates a marker file named after ``tag`` if a shell ever
    parses it (balanced quotes, so a pasted value would not just be a syntax error)."""
    return [f"`touch {tag}-bt`", f"$(touch {tag}-sub)", f";touch {tag}-semi;",
            f"'q'\"q\"$(touch {tag}-q)", f"\ntouch {tag}-nl\n"]


def base_config() -> dict:
    return {"campaigns": {
        "c": {"kind": "clef-qa", "questions": "q.tsv", "runs": "r/*.tsv"},
        "t": {"kind": "trec-factoid", "questions": "q.txt",
              "judgment_sets": {"adjudicated": "j/*.txt"}, "primary": "adjudicated"},
        "s": {"kind": "trec-series", "year": 2004, "questions": "q.xml",
              "judgment_sets": {"adjudicated": {"factoid": "f/*"}}},
        "q": {"kind": "qa4mre", "gold": "g.xml", "runs": "r/*.xml", "edition": "2013"},
        "m": {"kind": "score-matrix", "matrix": "m.csv", "measure": "ap"},
    }}


def _set(cfg: dict, path: tuple, value) -> None:
    node = cfg
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = value


def _rename(cfg: dict, path: tuple, value) -> None:
    node = cfg
    for key in path[:-1]:
        node = node[key]
    node[value] = node.pop(path[-1])


# (where, how): a value field set to "<valid value><payload>", or a mapping key renamed
PATTERNED = [
    (("campaigns", "c"), "rename", "c"),
    (("campaigns", "t", "judgment_sets", "adjudicated"), "rename", "adjudicated"),
    (("campaigns", "s", "judgment_sets", "adjudicated"), "rename", "adjudicated"),
    (("campaigns", "t", "primary"), "set", "adjudicated"),
    (("campaigns", "c", "reliability", "swap", "sizes"), "set", "5:32"),
    (("campaigns", "c", "reliability", "stability", "fuzz"), "set", "0.01:0.10:0.01"),
    (("reliability", "stability", "fuzz"), "set", "0.01,0.02"),
    (("campaigns", "c", "reliability", "measures"), "list", "c_at_1"),
    (("reliability", "measures"), "list", "accuracy"),
    (("campaigns", "m", "measure"), "set", "ap"),
    (("campaigns", "m", "reliability", "measures"), "list", "ap"),
    (("campaigns", "q", "edition"), "set", "2013"),
    (("campaigns", "q", "language"), "set", "EN"),
    (("campaigns", "c", "reliability", "unit"), "set", "question"),
    (("campaigns", "c", "reliability", "swap", "pairing"), "set", "shared"),
    (("campaigns", "c", "reliability", "swap", "fit"), "set", "exp-binomial"),
    (("campaigns", "c", "kind"), "set", "clef-qa"),
]


@pytest.mark.parametrize("where, how, valid", PATTERNED,
                         ids=[".".join(p[0]) + f"[{p[1]}]" for p in PATTERNED])
@pytest.mark.parametrize("payload", payloads("X"), ids=["backtick", "subst", "semicolon",
                                                       "quotes", "newline"])
def test_patterned_fields_refuse_shell_payloads(where, how, valid, payload):
    ok = base_config()
    if how == "list":
        _set(ok, where, [valid])
    elif how == "set":
        _set(ok, where, valid)
    validate_config(copy.deepcopy(ok), SCHEMA)  # the valid value passes
    bad = copy.deepcopy(ok)
    if how == "rename":
        _rename(bad, where, valid + payload)
    elif how == "list":
        _set(bad, where, [valid + payload])
    else:
        _set(bad, where, valid + payload)
    with pytest.raises(ConfigError) as info:
        validate_config(bad, SCHEMA)
    msg = str(info.value)
    assert "\n" not in msg
    owner = ".".join(where[:-1]) if how == "rename" else ".".join(where)
    assert msg.startswith(f"config key '{owner}"), msg


def test_outdir_refuses_braces_and_line_breaks():
    for bad in ("out/{campaign}", "out\nx", "out\rx"):
        cfg = base_config() | {"outdir": bad}
        with pytest.raises(ConfigError, match="outdir"):
            validate_config(cfg, SCHEMA)


@pytest.mark.slow
def test_refused_payload_stops_the_workflow_in_one_line(tmp_path):
    cfg = tmp_path / "bad.yaml"
    doc = {"campaigns": {"mine": {"kind": "clef-qa", "questions": "q.tsv", "runs": "r/*.tsv",
                                  "reliability": {"stability": {
                                      "fuzz": "0.01:0.10:0.01$(touch MARK)"}}}}}
    cfg.write_text(yaml.safe_dump(doc))
    res = snakemake(tmp_path, "-n", configfile=cfg)
    assert res.returncode != 0
    assert error_lines(res) == [
        "qacamp: config key 'campaigns.mine.reliability.stability.fuzz': "
        "'0.01:0.10:0.01$(touch MARK)' is not allowed. Fix: fuzziness grid lo:hi:step "
        "(inclusive) or a comma list of numbers, e.g. 0.01:0.10:0.01"], res.stderr
    assert not (tmp_path / "MARK").exists() and not (tmp_path / "results").exists()


# --------------------------------------------------------------------------- a whole run

FREE = "pay `touch M-bt`$(touch M-sub);touch M-semi;'q'\"q\""


@pytest.mark.slow
@needs_make
def test_workflow_with_payloads_in_free_text_and_paths_executes_nothing(tmp_path):
    data = tmp_path / (FREE + "\ntouch M-nl\n")  # a folder name with a line break
    res = qacamp("simulate", "clef-qa", "--out", str(data), "--runs", "4", "--questions", "40",
                 "--seed", "5", "--quiet")
    assert res.returncode == 0, res.stderr
    matrix = data / f"matrix {FREE}.csv"
    pl.DataFrame({f"run{i}": [((u * 7 + i * 3) % 11) / 10 for u in range(20)]
                  for i in range(4)}).write_csv(matrix)
    small = {"swap": {"sizes": "5:10:5", "trials": 2, "min_fit_size": 5},
             "stability": {"size": 10, "trials": 3}, "bootstrap": {"trials": 10}}
    outdir = f"out {FREE}"
    cfg = {"outdir": outdir, "shards": 2, "campaigns": {
        "mine": {"kind": "clef-qa", "title": "\n".join(payloads("M-title")),
                 "questions": str(data.relative_to(tmp_path) / "questions.tsv"),
                 "runs": [str(data.relative_to(tmp_path) / "runs" / "*.tsv")],
                 "reliability": {"measures": ["c_at_1", "accuracy"], **small}},
        "grid": {"kind": "score-matrix", "title": FREE, "matrix": str(matrix),
                 "measure": "ap", "reliability": small},
    }}
    # the config file's own name too (make variables cannot hold `$`)
    cfg_name = "cfg `touch M-cfg`;touch M-cfg2;'q'\"q\".yaml"
    (tmp_path / cfg_name).write_text(yaml.safe_dump(cfg))

    res = make_run(tmp_path, cfg_name)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-3000:]
    markers = sorted(p.name for p in tmp_path.rglob("M-*"))
    assert markers == [], markers
    out = tmp_path / outdir
    for rel in ("mine/tables/runs.md", "mine/manifest.json", "mine/reliability/kendall.parquet",
                "grid/reliability/swap_ap_summary.parquet", "grid/figures/swap_ap.png",
                "mine/campaign.duckdb"):
        assert (out / rel).is_file(), rel
    # the free text arrived intact where it belongs
    manifest = (out / "mine" / "manifest.json").read_text()
    assert "touch M-title-nl" in manifest
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.startswith(".")) == \
        sorted([data.name, cfg_name, outdir])


# --------------------------------------------------------------------------- statically

def shell_commands() -> dict[str, str]:
    """rule file:line -> the shell command string of each rule (concatenated literals)."""
    out = {}
    for smk in sorted((ROOT / "workflow" / "rules").glob("*.smk")):
        lines = smk.read_text().splitlines()
        for i, line in enumerate(lines):
            if line.strip() == "shell:":
                parts, j = [], i + 1
                while j < len(lines) and lines[j].strip().startswith('"'):
                    parts.append(re.fullmatch(r'\s*"(.*)"\s*', lines[j]).group(1))
                    j += 1
                out[f"{smk.name}:{i + 1}"] = "".join(parts)
    return out


def test_every_shell_placeholder_is_quoted():
    commands = shell_commands()
    # every rule file's shell lines are found (the reliability rules are
    # generated from the analysis records: three shell lines)
    files = [where.split(":")[0] for where in commands]
    assert {f: files.count(f) for f in set(files)} == {
        "ingest.smk": 2, "scoring.smk": 3, "reliability.smk": 3, "report.smk": 3}, commands
    argv_params = set()
    for smk in (ROOT / "workflow" / "rules").glob("*.smk"):
        for m in re.finditer(r"\b(\w+_argv)=(.*)", smk.read_text()):
            argv_params.add(m.group(1))
            # built by argv()/options() (shlex.quote) or the helpers of common.smk that call them
            assert re.match(r"(lambda [^:]*: )?(argv|options)\(|(matrix|settings)_argv[,(]"
                            r"|(shard|merge|single)_command\(", m.group(2)), m.group(0)
    for where, cmd in commands.items():
        assert "$(" not in cmd and "`" not in cmd, (where, cmd)
        for ph in re.findall(r"\{([^{}]*)\}", cmd):
            ok = ph.endswith(":q") or (ph.startswith("params.") and
                                       ph.removeprefix("params.") in argv_params)
            assert ok, f"{where}: placeholder {{{ph}}} is neither :q nor a quoted *_argv param"


def test_argv_helpers_quote():
    import shlex

    common = (ROOT / "workflow" / "rules" / "common.smk").read_text()
    ns: dict = {"shlex": shlex}
    for name in ("argv", "options"):  # the helpers exactly as the rules use them
        src = re.search(rf"^def {name}\(.*?(?=^\S)", common, re.S | re.M).group(0)
        exec(compile(src, "common.smk", "exec"), ns)
    words = ["a b", "$(touch X)", "`x`", "'\"", "\n"]
    assert shlex.split(ns["argv"](*words)) == words
    assert shlex.split(ns["options"]("--m", words)) == [w for x in words for w in ("--m", x)]
