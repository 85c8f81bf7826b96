"""Designing the next campaign at scale: qacamp.reliability.design vs the peers.

The issue's case: a 1,000-run x 10,000-question matrix of right/wrong values
(10 M cells), simulated with a logistic model (run ability and question
difficulty, seeded).  Timed in-process, best of ``--repeat``:

- qacamp: the G-study (``two_way`` + ``components``), the D-study at the
  campaign's size and at 2,000 sizes, the sizes reaching 0.95 with their
  intervals (``units_needed``), the three topic set sizes at d = 0.05
  (``topic_set_sizes``) and the question diagnostics (``item_statistics``);
  the target is under 1 s for all of it;
- generalizit (PyPI; the generic G-theory package a user would reach for):
  the same G-study (``GeneralizIT(frame, "s x q", "y")``,
  ``calculate_anova``, ``calculate_g_coefficients``) on the long frame it
  needs (building the frame is timed apart); it has no interval for E(rho^2)
  or Phi and no "units needed" (its D-study evaluates listed designs);
- statsmodels' power classes (``TTestPower``, ``FTestAnovaPower``
  ``solve_power``) for sizes (a) and (b);
- a per-question loop of ``scipy.stats.pearsonr`` for the discrimination;
- and the whole analysis as ``qacamp reliability design`` and
  ``qacamp.reliability.design(...)`` run it (the record's options checked,
  every kernel above, the sizes table, the curve frame over about 200 sizes;
  no swap fits), whose sizes must equal the kernels'.

Every peer's numbers are checked against qacamp's (components to 1e-9
relative with generalizit's 4-decimal rounding scaled away, sizes equal,
correlations to 1e-9).  ``--tiny`` runs 20 runs x 200 questions (the test
suite's check); ``--no-peer`` skips generalizit.  Run:
``.venv/bin/python benchmarks/bench_design.py``; figures in
benchmarks/README.md.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import math
import platform
import resource
import sys
import time
import warnings

import numpy as np

from qacamp.reliability.design import (
    components,
    d_study,
    item_statistics,
    topic_set_sizes,
    two_way,
    units_needed,
)

MIN_DIFF = 0.05


def simulate(n_runs: int, n_units: int, seed: int = 27) -> np.ndarray:
    """Right/wrong values ``(n_units, n_runs)``: P(right) = logistic(ability - difficulty)."""
    rng = np.random.default_rng(seed)
    ability = np.linspace(-1.5, 1.0, n_runs)
    difficulty = rng.normal(0.0, 1.5, n_units)
    p = 1.0 / (1.0 + np.exp(-(ability[None, :] - difficulty[:, None])))
    return (rng.random((n_units, n_runs)) < p).astype(np.float64)


def run_qacamp(x: np.ndarray, units: list[str]) -> dict:
    t0 = time.perf_counter()
    tw = two_way(x)
    comp = components(tw)
    t1 = time.perf_counter()
    own = d_study(tw)
    curve = d_study(tw, range(1, 2001))
    need = units_needed(tw)
    t2 = time.perf_counter()
    sizes = topic_set_sizes(tw.ms_residual, tw.n_runs, MIN_DIFF)
    t3 = time.perf_counter()
    items = item_statistics(x, units)
    t4 = time.perf_counter()
    return {"g-study": t1 - t0, "d-study": t2 - t1, "topic set sizes": t3 - t2,
            "item statistics": t4 - t3, "total": t4 - t0, "tw": tw, "components": comp,
            "own": own, "curve": curve, "need": need, "sizes": sizes, "items": items}


def run_generalizit(x: np.ndarray) -> dict:
    import pandas as pd
    from generalizit import GeneralizIT

    scale = 1e6  # generalizit rounds its components to 4 decimals: scale them away
    n_u, n_r = x.shape
    t0 = time.perf_counter()
    frame = pd.DataFrame({"s": np.tile(np.arange(n_r), n_u),
                          "q": np.repeat(np.arange(n_u), n_r), "y": (x * scale).ravel()})
    t1 = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gt = GeneralizIT(frame, "s x q", "y")
        gt.calculate_anova()
        gt.calculate_g_coefficients()
    t2 = time.perf_counter()
    table = gt.design.anova_table
    return {"frame": t1 - t0, "g-study": t2 - t1,
            "components": {k: table.loc[c, "Variance"] / scale**2
                           for k, c in (("runs", "s"), ("units", "q"), ("residual", "s x q"))},
            "coefficients": {"erho2": gt.design.g_coeffs_table.loc["s", "rho^2"],
                             "phi": gt.design.g_coeffs_table.loc["s", "phi^2"]}}


def run_statsmodels(variance: float, n_runs: int) -> dict:
    from statsmodels.stats.power import FTestAnovaPower, TTestPower

    t0 = time.perf_counter()
    d = MIN_DIFF / math.sqrt(2 * variance)
    f = math.sqrt(MIN_DIFF**2 / (2 * variance) / n_runs)
    n_t = math.ceil(TTestPower().solve_power(effect_size=d, alpha=0.05, power=0.8))
    n_a = math.ceil(FTestAnovaPower().solve_power(effect_size=f, alpha=0.05, power=0.8,
                                                  k_groups=n_runs) / n_runs)
    return {"time": time.perf_counter() - t0, "t-test": n_t, "anova": n_a}


def run_pearson_loop(x: np.ndarray) -> dict:
    from scipy import stats

    t0 = time.perf_counter()
    totals = x.sum(axis=0)
    out = np.full(x.shape[0], np.nan)
    for u in range(x.shape[0]):
        row = x[u]
        rest = totals - row
        if np.ptp(row) > 0 and np.ptp(rest) > 0:
            out[u] = stats.pearsonr(row, rest)[0]
    return {"time": time.perf_counter() - t0, "discrimination": out}


def run_whole(x: np.ndarray, units: list[str]) -> dict:
    """The whole analysis through its record (``qacamp.reliability.design``)."""
    from qacamp.reliability import ScoreMatrix, design

    m = ScoreMatrix(tuple(units), tuple(f"r{j:04d}" for j in range(x.shape[1])), "mean",
                    values=x, measure="accuracy")
    t0 = time.perf_counter()
    # (sizes, components, curve, items): the frames of the record's outputs
    sizes, _components, _curve, _items = design(m, min_diff=MIN_DIFF)
    return {"time": time.perf_counter() - t0, "sizes": sizes}


def check(ours: dict, peer: dict | None, sm: dict, loop: dict,
          whole: dict | None = None) -> list[str]:
    """Disagreements between qacamp and the peers (empty when none), and
    between the whole analysis and the kernels."""
    bad = []
    if whole is not None:
        got = dict(zip(whole["sizes"]["method"], whole["sizes"]["n_units"], strict=True))
        want = {**dict(zip(ours["need"]["coefficient"], ours["need"]["n_units"], strict=True)),
                **dict(zip(ours["sizes"]["method"], ours["sizes"]["n_units"], strict=True))}
        bad += [f"whole analysis, {k}: {got[k]}, the kernel {v}" for k, v in want.items()
                if got[k] != v]
    comp = dict(zip(ours["components"]["component"], ours["components"]["variance"],
                    strict=True))
    if peer is not None:
        for k, v in peer["components"].items():
            if not math.isclose(comp[k], v, rel_tol=1e-9):
                bad.append(f"component {k}: qacamp {comp[k]!r}, generalizit {v!r}")
        own = ours["own"].row(0, named=True)
        for k, v in peer["coefficients"].items():
            if abs(own[k] - v) > 5e-5:  # generalizit prints 4 decimals
                bad.append(f"{k}: qacamp {own[k]!r}, generalizit {v!r}")
    sizes = dict(zip(ours["sizes"]["method"], ours["sizes"]["n_units"], strict=True))
    for k in ("t-test", "anova"):
        if sizes[k] != sm[k]:
            bad.append(f"{k} size: qacamp {sizes[k]}, statsmodels {sm[k]}")
    disc = ours["items"]["discrimination"].fill_null(np.nan).to_numpy()
    if not np.allclose(disc, loop["discrimination"], rtol=1e-9, atol=1e-12, equal_nan=True):
        bad.append("item discrimination differs from the scipy.stats.pearsonr loop")
    return bad


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=1000)
    ap.add_argument("--units", type=int, default=10_000)
    ap.add_argument("--tiny", action="store_true", help="20 runs x 200 questions")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-peer", action="store_true", help="skip generalizit")
    args = ap.parse_args(argv)
    n_runs, n_units = (20, 200) if args.tiny else (args.runs, args.units)
    x = simulate(n_runs, n_units)
    units = [f"q{u:05d}" for u in range(n_units)]
    ours = min((run_qacamp(x, units) for _ in range(max(1, args.repeat))),
               key=lambda r: r["total"])  # the fastest repetition, with its parts
    sm = run_statsmodels(ours["tw"].ms_residual, n_runs)
    loop = run_pearson_loop(x)
    whole = min((run_whole(x, units) for _ in range(max(1, args.repeat))),
                key=lambda r: r["time"])
    peer = None if args.no_peer else run_generalizit(x)
    bad = check(ours, peer, sm, loop, whole)
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"Machine: {platform.processor() or platform.machine()}, Python "
          f"{platform.python_version()}, numpy {np.__version__}")
    print(f"Matrix: {n_runs:,} runs x {n_units:,} questions ({n_runs * n_units:,} cells), "
          f"right/wrong, logistic model, seed 27; d = {MIN_DIFF}")
    print("| step | qacamp (s) | peer | peer (s) |")
    print("|---|---:|---|---:|")
    g = "-" if peer is None else f"{peer['g-study']:.2f} (+ {peer['frame']:.2f} long frame)"
    print(f"| G-study: components, E(rho^2), Phi | {ours['g-study']:.3f} | generalizit "
          f"(anova + g coefficients) | {g} |")
    print(f"| D-study (campaign size + 2,000 sizes) and units for 0.95, with intervals | "
          f"{ours['d-study']:.3f} | - | - |")
    print(f"| topic set sizes (t-test, ANOVA, CI) | {ours['topic set sizes']:.3f} | "
          f"statsmodels solve_power (t-test, ANOVA) | {sm['time']:.3f} |")
    print(f"| item statistics | {ours['item statistics']:.3f} | scipy.stats.pearsonr loop "
          f"(discrimination only) | {loop['time']:.2f} |")
    print(f"| **total** | **{ours['total']:.3f}** | | |")
    print(f"| the whole analysis, `qacamp.reliability.design` (options checked, sizes table, "
          f"curve frame) | {whole['time']:.3f} | | |")
    print(f"Peak RSS of this process (peers included): {rss:,.0f} MB")
    need = ours["need"]
    for r in need.iter_rows(named=True):
        print(f"{r['coefficient']}: {r['at_campaign']:.4f} [{r['at_campaign_lower']:.4f}, "
              f"{r['at_campaign_upper']:.4f}] at {r['campaign_units']} units; units for "
              f"{r['target']}: {r['n_units']} [{r['n_units_lower']}, {r['n_units_upper']}]")
    for r in ours["sizes"].iter_rows(named=True):
        print(f"size ({r['method']}): {r['n_units']}")
    print(f"flagged questions: {ours['items']['flag'].is_not_null().sum()}")
    print("peers agree: " + ("yes" if not bad else "NO\n  " + "\n  ".join(bad)))
    return {"qacamp": ours, "generalizit": peer, "statsmodels": sm, "loop": loop,
            "whole": whole, "bad": bad}


if __name__ == "__main__":
    sys.exit(1 if main()["bad"] else 0)
