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


UNITS = {"judgment_set": pl.String, "run": pl.String, "measure": pl.String, "unit": pl.String,
         "value": pl.Float64}
UNIT_KEYS = ["judgment_set", "run", "measure", "unit"]


def _measure_frames(overlap: bool = False) -> list[pl.DataFrame]:
    """A batch's per-question rows: a frame per measure, each sorted by judgment
    set (a null one too), run and question; runs with no row for some
    measure; keys as Strings, as Enums in sorted order and not.  ``overlap``:
    the last frame repeats a measure of another (their blocks would meet)."""
    rng = random.Random(7)
    measures = ["mrr", "accuracy", "c_at_1", "accuracy" if overlap else "nil_f"]
    out = []
    for i, measure in enumerate(measures):
        rows = [(js, run, measure, f"q{u}") for js in ("a-set", "b-set", None)
                for run in ("r1", "r10", "r2", "r3") if rng.random() < 0.8
                for u in sorted(rng.sample(range(40), 9)) if not overlap or i < 3 or u % 2]
        df = pl.DataFrame(rows, schema={c: pl.String for c in UNIT_KEYS}, orient="row")
        df = df.sort(UNIT_KEYS, nulls_last=True).with_columns(
            pl.Series("value", [rng.random() for _ in range(len(rows))]),
            pl.col("measure").cast(pl.Enum([measure])))
        if i == 1:  # run as an Enum whose categories are in no sorted order
            df = df.with_columns(pl.col("run").cast(pl.Enum(["r3", "r10", "r2", "r1"])))
        if i == 2:
            df = df.with_columns(pl.col("unit").cast(pl.Enum(sorted({f"q{u}" for u in range(40)}))))
        out.append(df)
    return out


@pytest.mark.parametrize("coded", [False, True])
@pytest.mark.parametrize("overlap", [False, True])
def test_frames_each_in_order_are_put_in_order_by_blocks(monkeypatch, coded, overlap):
    """Frames each in canonical order whose keys but the last do not meet (a
    frame per measure) are put in order by moving blocks of rows, one per
    run and measure, with no sort; frames whose blocks would meet are
    sorted.  Both give the rows of the sort on the strings."""
    parts = _measure_frames(overlap)
    expected = pl.concat([p.cast({c: pl.String for c in UNIT_KEYS}) for p in parts]
                         ).sort(UNIT_KEYS, nulls_last=True, maintain_order=True)
    monkeypatch.setattr(frames, "CODES_FROM", 0)
    monkeypatch.setattr(frames, "BLOCKS_PER_1024", 1024)  # (a block a row at most: small frames)
    seen = []
    real = frames._blocks
    monkeypatch.setattr(frames, "_blocks", lambda *a: seen.append(real(*a)) or seen[-1])
    got = concat_sorted(parts, UNITS, UNIT_KEYS, coded=coded)
    assert_frame_equal(got.cast(UNITS), expected.cast(UNITS))
    if overlap:
        assert seen == [None]
    else:  # a block per (judgment set, run, measure) present, in the keys' order
        blocks = seen[0]
        assert len(blocks) == expected.select(UNIT_KEYS[:3]).n_unique()
        assert sum(n for _, _, n in blocks) == expected.height
        assert [parts[i]["measure"].cast(pl.String)[0] for i, _, _ in blocks[:4]] == \
            ["accuracy", "c_at_1", "mrr", "nil_f"][:len({i for i, _, _ in blocks[:4]})]


def test_blocks_are_none_for_a_frame_out_of_order_or_too_many_blocks(monkeypatch):
    keys = [pl.Series([0, 1, 5, 6], dtype=pl.UInt64), pl.Series([2, 3, 9], dtype=pl.UInt64)]
    # a last key column of 3 codes (2 values and null): prefixes 0, 0, 1, 2 and
    # 0, 1, 3 meet; one frame alone is one block (its stretches follow each other)
    assert frames._blocks(keys, 3) is None
    assert frames._blocks(keys[:1], 3) == [(0, 0, 4)]
    assert frames._blocks([pl.Series([3, 1], dtype=pl.UInt64)], 3) is None  # not sorted
    inter = [pl.Series([0, 6, 7], dtype=pl.UInt64), pl.Series([3, 4, 9], dtype=pl.UInt64)]
    assert frames._blocks(inter, 3) is None  # (4 blocks for 6 rows: more than 1 per 1,024)
    monkeypatch.setattr(frames, "BLOCKS_PER_1024", 1024)
    assert frames._blocks(inter, 3) == [(0, 0, 1), (1, 0, 2), (0, 1, 2), (1, 2, 1)]
    monkeypatch.setattr(frames, "BLOCKS_PER_1024", 0)  # (at most one block)
    assert frames._blocks(inter, 3) is None
    assert frames._blocks(keys[:1], 3) == [(0, 0, 4)]
