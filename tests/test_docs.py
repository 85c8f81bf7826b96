"""The tests the documentation cites exist (a claim points at the test that proves it)."""

from __future__ import annotations

import re

from paths import ROOT

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
