"""The documentation cannot rot: the tests it cites exist (a claim points at
the test that proves it), every relative link points at a file, the README's
minimal config is a valid config, and the generated config reference
(config/README.md) is what the schema gives."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
import yaml
from paths import ROOT

from qacamp.config import raw_files
from qacamp.configdoc import to_markdown
from qacamp.plan import config_schema, validate_config

CITE = re.compile(r"(test_\w+\.py)(?:::(\w+))?")
NAMED = re.compile(r"\b(test_\w+)\b")


def test_every_cited_test_exists():
    tests = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "tests").glob("test_*.py")}
    cited = 0
    for doc in sorted((ROOT / "docs").glob("*.md")):
        text = doc.read_text(encoding="utf-8")
        for block in re.findall(r"\[([^\]]*test_[^\]]*)\]", text):
            current = None
            for part in re.split(r"[,\s]+", block):
                m = CITE.fullmatch(part) or CITE.match(part)
                if m:
                    current = m.group(1)
                    assert current in tests, (doc.name, part)
                    if m.group(2):
                        assert f"def {m.group(2)}" in tests[current], (doc.name, part)
                        cited += 1
                elif NAMED.fullmatch(part) and current:
                    assert f"def {part}" in tests[current], (doc.name, current, part)
                    cited += 1
    assert cited >= 20


# --------------------------------------------------------------------------- citations by path
SCHEMA = ROOT / "workflow" / "schemas" / "config.schema.yaml"
#: The documents a reader reads (the changelog is history: its names may be gone).
DOCS = [ROOT / "README.md", ROOT / "config" / "README.md", ROOT / "benchmarks" / "README.md",
        *sorted((ROOT / "docs").glob("*.md"))]
#: ``tests/test_x.py::test_name`` (the folder may be left out, as in a list of
#: tests of one file; a parametrised test is cited by its function's name, its
#: parameters in brackets after it)
CITATION = re.compile(r"(?:tests/)?\b(test_\w+\.py)::(\w+)")


def _functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef,
                                                             ast.AsyncFunctionDef))}


def citations() -> list[tuple[str, str, str]]:
    """(document, test file, test name) of every citation in the documents."""
    return [(doc.relative_to(ROOT).as_posix(), f, name)
            for doc in DOCS for f, name in CITATION.findall(doc.read_text(encoding="utf-8"))]


def test_the_documents_cite_tests():
    cited = citations()
    assert len(cited) > 50, cited  # the guarantees page alone names dozens
    assert any(doc == "docs/guarantees.md" for doc, _, _ in cited)


@pytest.mark.parametrize("doc", [d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_test_cited_by_its_path_exists(doc):
    missing = []
    for where, fname, name in citations():
        if where != doc:
            continue
        path = ROOT / "tests" / fname
        if not path.is_file():
            missing.append(f"{fname} (no such file)")
        elif name not in _functions(path):
            missing.append(f"{fname}::{name}")
    assert not missing, f"{doc} cites tests that do not exist: {missing}"


def test_a_rotten_citation_is_caught(tmp_path):
    # the check above can fail: a made-up name is not a function of its file
    assert CITATION.findall("see `tests/test_docs.py::test_no_such_test[a-b]`") == [
        ("test_docs.py", "test_no_such_test")]
    assert "test_no_such_test" not in _functions(ROOT / "tests" / "test_docs.py")


LINK = re.compile(r"\]\(([^)\s]+)\)")


@pytest.mark.parametrize("doc", [d.relative_to(ROOT).as_posix() for d in DOCS])
def test_every_relative_link_points_at_a_file(doc):
    path = ROOT / doc
    broken = [target for target in LINK.findall(path.read_text(encoding="utf-8"))
              if not re.match(r"[a-z]+:", target) and not target.startswith("#")
              and not (path.parent / target.split("#")[0]).exists()]
    assert not broken, f"{doc}: {broken}"


# --------------------------------------------------------------------------- the README
README = (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short_and_names_the_two_commands():
    assert len(README.splitlines()) <= 200
    commands = re.search(r"```sh\n(.*?)```", README, re.S).group(1)
    assert re.search(r"^make demo\b", commands, re.M)
    assert re.search(r"^make test\b", commands, re.M)  # CI runs the README's test command


def test_the_readme_shows_a_picture_of_the_results():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", README)
    assert images
    for image in images:
        data = (ROOT / image).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", image


def readme_minimal_config() -> dict:
    section = README[README.index("## Your own campaigns"):]
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))


def test_the_readme_minimal_config_is_valid_and_finds_its_files(monkeypatch):
    config = readme_minimal_config()
    validate_config(config, SCHEMA)  # raises a ConfigError naming the key if not
    monkeypatch.chdir(ROOT)  # its paths are the demo's files, from the project folder
    for name, campaign in config["campaigns"].items():
        assert raw_files(campaign), name
    assert config["outdir"] != "results-demo"  # your campaigns never land in the demo's


# --------------------------------------------------------------------------- config/README.md
def test_config_readme_is_generated_from_the_schema():
    committed = (ROOT / "config" / "README.md").read_text(encoding="utf-8")
    generated = to_markdown(config_schema(SCHEMA)) + "\n"
    assert committed == generated, "config/README.md is stale: run `make docs`"


def test_config_readme_lists_every_key_the_schema_accepts():
    text = (ROOT / "config" / "README.md").read_text(encoding="utf-8")
    schema = config_schema(SCHEMA)
    for key in schema["properties"]:
        assert f"| `{key}` |" in text or f"`{key}`" in text, key
    for branch in schema["$defs"]["campaign"]["allOf"]:
        kind = branch["if"]["properties"]["kind"]["const"]
        assert f"## `kind: {kind}`" in text
        for key, spec in branch["then"]["properties"].items():
            if spec:  # kind, title, reliability, report: listed once, for every kind
                assert f"| `{key}` |" in text, (kind, key)
    for section, spec in schema["$defs"]["reliability"]["properties"].items():
        for key in spec.get("properties", {}):
            assert f"| `reliability.{section}.{key}` |" in text, (section, key)


def test_qacamp_schema_prints_the_reference_and_its_rows(tmp_path, capsys, monkeypatch):
    from qacamp.cli import main

    monkeypatch.chdir(tmp_path)
    assert main(["schema", "--markdown"]) == 0
    out = capsys.readouterr().out
    assert out == (ROOT / "config" / "README.md").read_text(encoding="utf-8")
    assert list(tmp_path.iterdir()) == []  # stdout only, nothing written here
    assert main(["schema"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    assert rows[0] == ["section", "key", "type", "default", "description"]
    assert ["Top level", "outdir", "text", "results"] in [r[:4] for r in rows]
    assert all(len(r) == 5 for r in rows)
