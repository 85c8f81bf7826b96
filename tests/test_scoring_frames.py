"""The output frames of a batch of runs in canonical order
(:func:`qacamp.scoring.frames.concat_sorted`): sorted on integer codes (the
path of frames of 100,000 rows or more) they hold the rows of the sort on
the strings, also with their strings left as Enum codes (the per-question
tables a batch hands to the writer), with null keys, Enum keys whose
categories are not in sorted order, and String keys."""

from __future__ import annotations

import random

import polars as pl
import pytest
from polars.testing import assert_frame_equal

from qacamp.scoring import frames
from qacamp.scoring.frames import concat_sorted

SCHEMA = {"judgment_set": pl.String, "run": pl.String, "unit": pl.String, "value": pl.Float64,
          "outcome": pl.String}
KEYS = ["judgment_set", "run", "unit"]


def _frames() -> list[pl.DataFrame]:
    rng = random.Random(5)
    outcome = pl.Enum(["W", "R", "UE"])  # (a non-key column: kept as codes when coded)
    out = []
    for part, runs in enumerate([["r10", "r2", "r1"], ["r3", "r2"], ["r9"]]):
        rows = [(js, run, f"q{u}") for js in ("b-set", None, "a-set") for run in runs
                for u in rng.sample(range(60), 12)]
        df = pl.DataFrame(rows, schema={"judgment_set": pl.String, "run": pl.String,
                                        "unit": pl.String}, orient="row")
        df = df.with_columns(pl.Series("value", [rng.random() for _ in rows]),
                             pl.Series("outcome", [rng.choice(["W", "R", "UE"]) for _ in rows],
                                       dtype=outcome))
        if part != 1:  # run as an Enum whose categories are in no sorted order
            df = df.with_columns(pl.col("run").cast(pl.Enum(sorted(runs, reverse=True))))
        if part == 2:
            df = df.with_columns(pl.col("unit").cast(pl.Enum([f"q{u}" for u in range(59, -1, -1)])))
        out.append(df.unique(KEYS, keep="first", maintain_order=True))
    return out


@pytest.mark.parametrize("coded", [False, True])
def test_sorting_on_codes_gives_the_rows_of_the_sort_on_strings(monkeypatch, coded):
    parts = _frames()
    expected = pl.concat([p.cast({c: pl.String for c in SCHEMA if c != "value"}) for p in parts]
                         ).sort(KEYS, nulls_last=True, maintain_order=True)
    monkeypatch.setattr(frames, "CODES_FROM", 0)  # (every frame: the path of large ones)
    got = concat_sorted(parts, SCHEMA, KEYS, coded=coded)
    strings = [c for c, d in got.schema.items() if d == pl.String]
    enums = [c for c, d in got.schema.items() if isinstance(d, pl.Enum)]
    assert (enums, strings) == ((KEYS + ["outcome"], []) if coded
                                else ([], KEYS + ["outcome"]))
    assert_frame_equal(got.cast(SCHEMA), expected.select(list(SCHEMA)).cast(SCHEMA))
