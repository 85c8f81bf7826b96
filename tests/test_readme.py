"""The README's claims point at tests that exist, and its description of the
demo matches config/config.yaml."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()


def test_every_test_the_readme_cites_exists():
    cited = re.findall(r"tests/(\w+\.py)(?:::(\w+))?", README)
    named = [(f, t) for f, t in cited if t]
    assert len(named) >= 6, cited
    for fname, test in cited:
        path = ROOT / "tests" / fname
        assert path.is_file(), fname
        if test:
            funcs = {n.name for n in ast.walk(ast.parse(path.read_text()))
                     if isinstance(n, ast.FunctionDef)}
            assert test in funcs, f"{fname}::{test}"
    # bare names cited next to a file (e.g. "`test_x` kills jobs") exist somewhere too
    every = " ".join((ROOT / "tests" / f).read_text() for f, _ in cited)
    for bare in re.findall(r"`(test_\w+)`", README):
        assert f"def {bare}(" in every, bare


def test_readme_describes_the_demo_config():
    cfg = yaml.safe_load((ROOT / "config" / "config.yaml").read_text())
    words = {4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}
    assert f"the {words[len(cfg['campaigns'])]} simulated" in README
    for name in cfg["campaigns"]:
        assert f"`{name}`" in README, name
    assert f"`{cfg['outdir']}/<campaign>/`" in README
