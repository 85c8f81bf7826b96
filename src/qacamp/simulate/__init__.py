"""Deterministic campaign simulator writing raw files in the real formats.

The latent model (abilities, difficulties, team correlation, confidence,
calibration, abstention) is described in :mod:`qacamp.simulate.model`; each
campaign kind has its own module describing its files and parameters (named
by the kind's record, :attr:`qacamp.kinds.Kind.simulator`: its ``simulate``
and ``Options``, and ``simulate_for_questions`` where the kind can reuse a
campaign's own questions), all sharing one run loop
(:func:`.common.each_run`):

=============== ==================================== ==================
kind            module                               demo folder
=============== ==================================== ==================
trec-factoid    :mod:`qacamp.simulate.trec_factoid`  ``trec2002``
trec-series     :mod:`qacamp.simulate.trec_series`   ``trec2004``
qa4mre          :mod:`qacamp.simulate.qa4mre`        ``qa4mre2013``
clef-qa         :mod:`qacamp.simulate.clef`          ``clef2009``
pan             :mod:`qacamp.simulate.pan`           ``pan``
=============== ==================================== ==================

The same seed gives byte-identical files (gzip files carry mtime 0 and no
name).  All texts are made up; no real campaign data is copied.
"""

from __future__ import annotations

import contextlib
import importlib
from dataclasses import replace
from pathlib import Path
from types import ModuleType
from typing import Any

from ..errors import UsageError
from ..kinds import KINDS
from ._files import write_text

#: the kinds with a simulator
SIMULATED = tuple(k.name for k in KINDS.values() if k.simulator is not None)


def simulator(kind: str) -> ModuleType:
    """The simulator module of ``kind`` (its record's ``simulator``)."""
    name = KINDS[kind].simulator if kind in SIMULATED else None
    if name is None:
        raise UsageError(f"simulate: no simulator for kind {kind!r}; use one of "
                         f"{', '.join(SIMULATED)}")
    return importlib.import_module(f"{__name__}.{name}")


def _options(module: ModuleType, options: dict[str, Any]):
    return replace(module.Options(), **{k: v for k, v in options.items() if v is not None})
DEMO = (("trec2002", "trec-factoid"), ("trec2004", "trec-series"), ("qa4mre2013", "qa4mre"),
        ("qa4mre2012", "qa4mre"), ("clef2009", "clef-qa"), ("pan", "pan"))
DEMO_SEED = 20250101
#: Per-folder settings of the demo: a seed offset (so two editions of one task
#: differ) and options of the kind (the earlier QA4MRE edition had fewer runs).
DEMO_SETTINGS: dict[str, tuple[int, dict[str, Any]]] = {"qa4mre2012": (2012, {"runs": 24})}


def simulate(kind: str, out: str | Path, seed: int, quiet: bool = False,
             **options: Any) -> dict[str, int]:
    """Simulate campaign ``kind`` into ``out``; ``options`` are fields of the
    kind's options dataclass (None values keep the defaults)."""
    module = simulator(kind)
    with _writing(kind, out):
        return module.simulate(out, seed=seed, opts=_options(module, options), quiet=quiet)


def _writing(kind: str, out: str | Path):
    """The simulation's files as one block of qacamp.io (claimed, recorded, all
    or nothing); inside a command's block, that block."""
    from ..io import active, writing

    return contextlib.nullcontext() if active() is not None else \
        writing(f"qacamp simulate {kind}", dirs=[out])


#: kinds that can simulate for a campaign's own questions, and the file each reads
REAL_QUESTION_KINDS = {k.name: k.simulate_questions for k in KINDS.values()
                       if k.simulate_questions is not None}
#: size options that make sense with real questions (the file fixes the rest)
REAL_OPTIONS = {"runs"}


def simulate_for_questions(kind: str, out: str | Path, questions_file: str | Path,
                           seed: int | None = None, quiet: bool = False,
                           **options: Any) -> dict[str, int]:
    """Simulated runs and judgments for the real questions of ``questions_file``
    (see :data:`REAL_QUESTION_KINDS`); ``options`` may set ``runs``."""
    if kind not in REAL_QUESTION_KINDS:
        raise UsageError(f"simulate {kind}: --questions-from works for "
                         + " and ".join(f"{k} ({v})" for k, v in REAL_QUESTION_KINDS.items()))
    bad = sorted(set(options) - REAL_OPTIONS)
    if bad:
        raise UsageError(f"simulate {kind} --questions-from: the file fixes the campaign's "
                         f"size; drop {', '.join('--' + b.replace('_', '-') for b in bad)}")
    module = simulator(kind)
    kw = {} if seed is None else {"seed": seed}
    with _writing(kind, out):
        return module.simulate_for_questions(out, questions_file, opts=_options(module, options),
                                             quiet=quiet, **kw)


def demo(out: str | Path, seed: int = DEMO_SEED, quiet: bool = False) -> dict[str, dict[str, int]]:
    """Write every demo campaign under ``out`` (layout in ``README.md`` there)."""
    out = Path(out)
    counts = {}
    with _writing("demo", out):
        for folder, kind in DEMO:
            offset, options = DEMO_SETTINGS.get(folder, (0, {}))
            counts[folder] = simulate(kind, out / folder, seed + offset, quiet=quiet, **options)
        write_text(demo_readme(seed, counts), out / "README.md")
    return counts


def demo_readme(seed: int, counts: dict[str, dict[str, int]]) -> str:
    lines = [
        "# Demo campaigns (simulated)",
        "",
        "Every file in this folder is **simulated**: made-up questions, answers, runs",
        "and judgments written in the real raw formats (docs/formats.md) by the",
        "deterministic simulator `qacamp.simulate`. No real campaign data is included.",
        "",
        "Generated with:",
        "",
        "```",
        f"qacamp simulate demo --out resources/demo --seed {seed}",
        "```",
        "",
        "The same command and seed give byte-identical files.  The latent model",
        "(run ability, question difficulty, correlated runs of one team, confidence",
        "ordering, calibrated abstention) is described in",
        "`src/qacamp/simulate/model.py`; each campaign's files and parameters in the",
        "module of its kind.",
        "",
        "| folder | kind | counts |",
        "|---|---|---|",
    ]
    for folder, kind in DEMO:
        c = ", ".join(f"{k} {v}" for k, v in counts[folder].items())
        lines.append(f"| `{folder}/` | `{kind}` | {c} |")
    lines += [
        "",
        "Layout:",
        "",
        "```",
        "trec2002/questions.txt                     <top> SGML questions (ids 1394..)",
        "trec2002/judged/<set>/<run>.txt.gz         judged factoid runs; sets adjudicated,",
        "                                           assessor1, assessor2, assessor3",
        "trec2004/questions.xml                     series XML",
        "trec2004/nuggets.txt                       Other nuggets (vital/okay)",
        "trec2004/list_key.txt                      list answer key",
        "trec2004/judged/adjudicated/{factoid,list,other,other_nuggets}/<run>.txt.gz",
        "qa4mre2013/gold.xml                        gold standard",
        "qa4mre2013/runs/<run>.xml                  run XML",
        "qa4mre2012/gold.xml, runs/<run>.xml        an earlier edition (24 runs, other seed)",
        "clef2009/questions.tsv                     questions",
        "clef2009/runs/<run>.tsv                    judged runs",
        "pan/truth.jsonl                            truth",
        "pan/runs/<run>/answers.jsonl               answers",
        "```",
        "",
        "Deliberate edge cases: TREC 2004 series 7 has an Other question without",
        "nuggets or judgments and one list question has no answer key (both dropped",
        "and reported by the scorer); a CLEF run omits a few questions; a PAN run omits",
        "a few ids and another wraps its values in one-element lists.",
        "",
    ]
    return "\n".join(lines)


__all__ = ["SIMULATED", "DEMO", "DEMO_SEED", "REAL_QUESTION_KINDS", "simulate", "simulator",
           "demo", "simulate_for_questions"]
