"""Scoring: canonical ingest tables -> outcomes / units / runs / dropped score tables.

:func:`score_campaign` is the one code path used by the workflow (``qacamp
score``) and by ``qacamp eval``.  It is pure (frames in, frames out);
:func:`write_scores` is the file-writing outer layer.  Every decision about
missing responses, NIL, unjudged units and empty denominators is documented in
``docs/semantics.md``; the measures themselves in :mod:`qacamp.measures`.

Output frames (docs/architecture.md, "Scoring outputs"):

- ``outcomes``: judgment_set, run, qid, rank (Int32), answered (bool), outcome
  (R, W, UR, UW, UE) for question-level questions (FACTOID, QA, MC,
  VERIFICATION), main questions only.
- ``units``: judgment_set, run, measure, unit (qid), value.
- ``runs``: judgment_set, run, measure, scope (all, qtype, series, topic,
  test), unit, value.
- ``dropped``: judgment_set, scope, unit, reason.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import polars as pl

from . import measures
from .errors import ConfigError
from .measures import factoid, lists, nonresponse, other, reading, series
from .tables import SCHEMAS, empty

QUESTION_QTYPES = ("FACTOID", "QA", "MC", "VERIFICATION")
GOLD_KINDS = ("qa4mre", "pan", "clef-qa")
KINDS = ("trec-factoid", "trec-series", "qa4mre", "clef-qa", "pan", "score-matrix")
DEFAULT_SET = {"qa4mre": "gold", "pan": "gold", "clef-qa": "official",
               "trec-factoid": "adjudicated", "trec-series": "adjudicated",
               "score-matrix": "matrix"}
BASELINE_EXPECTED = "baseline:random-expected"
BASELINE_SEEDED = "baseline:random-seeded"
BASELINE_NOA = "baseline:always-noa"
BASELINE_NOTHING = "baseline:answer-nothing"
BASELINES = (BASELINE_EXPECTED, BASELINE_SEEDED, BASELINE_NOA, BASELINE_NOTHING)
SCOPES = ("all", "qtype", "series", "topic", "test")

OUT_SCHEMAS: dict[str, dict[str, pl.DataType]] = {
    "outcomes": {"judgment_set": pl.String, "run": pl.String, "qid": pl.String,
                 "rank": pl.Int32, "answered": pl.Boolean, "outcome": pl.String},
    "units": {"judgment_set": pl.String, "run": pl.String, "measure": pl.String,
              "unit": pl.String, "value": pl.Float64},
    "runs": {"judgment_set": pl.String, "run": pl.String, "measure": pl.String,
             "scope": pl.String, "unit": pl.String, "value": pl.Float64},
    "dropped": {"judgment_set": pl.String, "scope": pl.String, "unit": pl.String,
                "reason": pl.String},
}
OUT_SORT = {
    "outcomes": ["judgment_set", "run", "qid"],
    "units": ["judgment_set", "run", "measure", "unit"],
    "runs": ["judgment_set", "run", "scope", "unit", "measure"],
    "dropped": ["judgment_set", "scope", "unit"],
}
JS = "judgment_set"


# --------------------------------------------------------------------------- options
def resolve_options(kind: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Flatten a resolved campaign dict (an ``options`` sub-dict is merged in)
    and fill the defaults the scoring needs."""
    opts: dict[str, Any] = {}
    for key, value in (options or {}).items():
        if key == "options" and isinstance(value, Mapping):
            opts.update(value)
        else:
            opts[key] = value
    if kind not in KINDS:
        raise ConfigError("kind", f"unknown campaign kind '{kind}'", f"use one of {', '.join(KINDS)}")
    opts["kind"] = kind
    opts.setdefault("pass_threshold", reading.PASS_THRESHOLD)
    opts.setdefault("baseline_seed", 1)
    opts.setdefault("main_questions", 15)
    opts.setdefault("allowance", other.ALLOWANCE)
    opts.setdefault("beta", other.BETA)
    year = opts.get("year")
    opts["series_weights"] = series.resolve_weights(int(year) if year else None,
                                                    opts.get("weights"))
    return opts


def primary_set(kind: str, options: Mapping[str, Any], present: list[str]) -> str:
    """The primary judgment set: ``primary`` / ``primary_judgment_set`` /
    ``judgment_set`` of the options, else adjudicated, else the kind's default,
    else the first present."""
    for key in ("primary", "primary_judgment_set", "judgment_set"):
        if isinstance(options.get(key), str):
            return options[key]
    for cand in ("adjudicated", DEFAULT_SET.get(kind, "")):
        if cand in present:
            return cand
    return present[0] if present else DEFAULT_SET.get(kind, "adjudicated")


# --------------------------------------------------------------------------- entry point
def score_campaign(kind: str, tables: Mapping[str, pl.DataFrame],
                   options: Mapping[str, Any] | None = None) -> dict[str, pl.DataFrame]:
    """Score every run of a campaign with every measure of its kind, at every scope,
    for every judgment set present.

    ``tables``: the canonical ingest tables (:data:`qacamp.tables.SCHEMAS`;
    absent ones are taken as empty).  ``options``: the resolved campaign dict
    (kind, year, weights, primary, pass_threshold, baseline_seed,
    main_questions; optional ``autojudge`` (bool) adds the ``automatic``
    judgment set from the answer patterns, ``run_names`` lists runs that
    must be scored even without any response).

    Returns ``{"outcomes", "units", "runs", "dropped"}`` with the schemas of
    :data:`OUT_SCHEMAS`, rows in canonical order.
    """
    opts = resolve_options(kind, options)
    t = {name: tables.get(name) if tables.get(name) is not None else empty(name)
         for name in SCHEMAS}
    if kind == "score-matrix":
        return _finish(_score_matrix(t["matrix"], opts))
    if opts.get("autojudge") and t["patterns"].height:
        from .autojudge import judge_runs
        auto = judge_runs(t["questions"], t["responses"], t["patterns"],
                          timeout=float(opts.get("autojudge_timeout", 0.1)))
        t["judgments"] = pl.concat([t["judgments"].filter(pl.col(JS) != "automatic"), auto])
    return _finish(_Scorer(kind, t, opts).run())


def _finish(parts: dict[str, list[pl.DataFrame]]) -> dict[str, pl.DataFrame]:
    out = {}
    for name, schema in OUT_SCHEMAS.items():
        frames = [f for f in parts.get(name, []) if f.height]
        out[name] = _concat_sorted(frames, schema, OUT_SORT[name])
    return out


def _concat_sorted(frames: list[pl.DataFrame], schema: dict[str, pl.DataType],
                   keys: list[str]) -> pl.DataFrame:
    """Concatenate ``frames`` (cast to ``schema``) sorted by the string ``keys``
    (lexical, nulls last).  Large inputs are sorted on integer codes: Enum key
    columns are remapped through their categories (no string hashing), String
    ones cast to an Enum of the union of distinct values; strings are attached
    only after the sort."""
    def plain() -> pl.DataFrame:
        fs = [f.select([pl.col(c).cast(d) for c, d in schema.items()]) for f in frames]
        return pl.concat(fs) if fs else pl.DataFrame(schema=schema)

    if sum(f.height for f in frames) < 100_000:
        return plain().sort(keys, nulls_last=True)
    cats: dict[str, list[str]] = {}
    for c in keys:
        vals: set[str] = set()
        for f in frames:
            dt = f.schema[c]
            if isinstance(dt, pl.Enum):
                vals.update(dt.categories.to_list())
            else:
                vals.update(f[c].cast(pl.String).drop_nulls().unique().to_list())
        cats[c] = sorted(vals)
    radix = 1
    for v in cats.values():
        radix *= len(v) + 1
    if radix >= 2**63:
        return fast_sort(plain(), keys)
    coded = []
    for f in frames:
        exprs = []
        for c in keys:
            dt = f.schema[c]
            if isinstance(dt, pl.Enum):
                index = {v: i for i, v in enumerate(cats[c])}
                m = np.array([index[v] for v in dt.categories.to_list()], np.uint32)
                e = pl.lit(pl.Series(m)).gather(pl.col(c).to_physical())
            else:
                e = pl.col(c).cast(pl.String).cast(pl.Enum(cats[c])).to_physical()
            exprs.append(e.cast(pl.UInt32).alias(c))
        coded.append(f.select(*exprs, *[pl.col(c).cast(d) for c, d in schema.items()
                                        if c not in keys]))
    df = pl.concat(coded)
    key = pl.lit(0, pl.UInt64)
    for c in keys:
        n = len(cats[c])
        key = key * (n + 1) + pl.col(c).cast(pl.UInt64).fill_null(n)
    df = df.sort(key)
    return df.select([pl.lit(pl.Series(cats[c], dtype=pl.String)).gather(pl.col(c)).alias(c)
                      if c in keys else pl.col(c) for c in schema])


def fast_sort(df: pl.DataFrame, keys: list[str]) -> pl.DataFrame:
    """Sort ``df`` by string columns ``keys`` (lexical order, nulls last) quickly:
    the keys are turned into Enums of their sorted distinct values, the rows
    ordered by one mixed-radix integer key, and the Enums cast back to strings."""
    if df.height < 100_000:
        return df.sort(keys, nulls_last=True)
    enums = {c: pl.Enum(df[c].drop_nulls().unique().sort().to_list()) for c in keys}
    radix = 1
    for e in enums.values():
        radix *= len(e.categories) + 1
    if radix >= 2**63:
        return df.sort(keys, nulls_last=True)
    coded = df.with_columns([pl.col(c).cast(e) for c, e in enums.items()])
    key = pl.lit(0, pl.UInt64)
    for c, e in enums.items():
        n = len(e.categories)
        key = key * (n + 1) + pl.col(c).to_physical().cast(pl.UInt64).fill_null(n)
    out = coded.sort(key)
    return out.with_columns([pl.col(c).cast(pl.String) for c in keys])


def _score_matrix(matrix: pl.DataFrame, opts: dict) -> dict[str, list[pl.DataFrame]]:
    measure = str(opts.get("measure", "score"))
    units = matrix.select(pl.lit("matrix").alias(JS), "run", pl.lit(measure).alias("measure"),
                          "unit", "value")
    runs = matrix.group_by("run").agg(pl.col("value").mean()).select(
        pl.lit("matrix").alias(JS), "run", pl.lit(measure).alias("measure"),
        pl.lit("all").alias("scope"), pl.lit("all").alias("unit"), "value")
    return {"units": [units], "runs": [runs]}


# --------------------------------------------------------------------------- scorer
class _Scorer:
    """One scoring pass (internal; all work is frame expressions, no loops over
    runs or questions)."""

    def __init__(self, kind: str, t: dict[str, pl.DataFrame], opts: dict):
        self.kind, self.t, self.opts = kind, t, opts
        q = t["questions"]
        aux = pl.col("auxiliary_of").is_not_null()
        if kind == "qa4mre":
            num = pl.col("qid").str.extract(r"(\d+)$").cast(pl.Int64, strict=False)
            aux = aux | (num > int(opts["main_questions"])).fill_null(False)
        self.questions = q.with_columns(aux.alias("aux"))
        sets = set(t["judgments"][JS].drop_nulls().unique().to_list())
        sets |= set(t["nugget_matches"][JS].drop_nulls().unique().to_list())
        if not sets:
            sets = {primary_set(kind, opts, [])}
        self.sets = sorted(sets)
        runs = set(t["responses"]["run"].unique().to_list()) | set(opts.get("run_names") or [])
        self.runs = sorted(r for r in runs if r is not None)
        self.sets_df = pl.DataFrame({JS: self.sets}, schema={JS: pl.String})
        self.runs_df = pl.DataFrame({"run": self.runs}, schema={"run": pl.String})
        self.parts: dict[str, list[pl.DataFrame]] = {n: [] for n in OUT_SCHEMAS}
        self.wide: list[pl.DataFrame] = []  # js, run, scope, unit, measure columns...

    # ---- judged units and dropped series
    def _judged(self) -> dict[str, pl.DataFrame]:
        q, t = self.questions, self.t
        jq = t["judgments"].filter(pl.col("judgment").is_not_null()).select(JS, "qid").unique()
        out = {}
        ql = q.filter(pl.col("qtype").is_in(QUESTION_QTYPES))
        if self.kind in GOLD_KINDS:
            out["question"] = self.sets_df.join(ql.select("qid"), how="cross")
        else:
            out["question"] = jq.join(ql.select("qid"), on="qid", how="inner")
        self._drop(ql.select("qid"), out["question"], "question",
                   "no judgments for this question in this judgment set")
        lq = q.filter(pl.col("qtype") == "LIST").select("qid")
        key = t["list_key"].group_by("qid").agg(pl.len().alias("S"))
        lj = jq.join(lq, on="qid").join(key.select("qid"), on="qid")
        out["list"] = lj
        self._drop(lq, lj, "question", "list question without answer key or judgments")
        oq = q.filter(pl.col("qtype") == "OTHER").select("qid")
        vital = t["nuggets"].filter(pl.col("vital")).select("qid").unique()
        oj = self.sets_df.join(oq.join(vital, on="qid"), how="cross")
        out["other"] = oj
        self._drop(oq, oj, "question", "Other question without vital nuggets (never judged)")
        if self.kind == "trec-series":
            out = self._drop_series(out)
        return out

    def _drop(self, all_q: pl.DataFrame, judged: pl.DataFrame, scope: str, reason: str) -> None:
        missing = self.sets_df.join(all_q, how="cross").join(judged, on=[JS, "qid"], how="anti")
        if missing.height:
            self.parts["dropped"].append(missing.select(
                JS, pl.lit(scope).alias("scope"), pl.col("qid").alias("unit"),
                pl.lit(reason).alias("reason")))

    def _drop_series(self, judged: dict[str, pl.DataFrame]) -> dict[str, pl.DataFrame]:
        q = self.questions.filter(pl.col("series").is_not_null())
        allj = pl.concat([v.select(JS, "qid") for v in judged.values()])
        per = (self.sets_df.join(q.select("qid", "series", "qtype"), how="cross")
               .join(allj.with_columns(pl.lit(True).alias("j")), on=[JS, "qid"], how="left")
               .with_columns(pl.col("j").fill_null(False)))
        agg = per.group_by(JS, "series").agg(
            pl.col("j").any().alias("any_j"),
            ((pl.col("qtype") == "OTHER") & ~pl.col("j")).any().alias("other_unjudged"))
        bad = agg.filter(~pl.col("any_j") | pl.col("other_unjudged"))
        if bad.height:
            self.parts["dropped"].append(bad.select(
                JS, pl.lit("series").alias("scope"), pl.col("series").alias("unit"),
                pl.when(pl.col("any_j")).then(pl.lit("Other question never judged: series dropped"))
                .otherwise(pl.lit("no question of the series judged")).alias("reason")))
        drop_q = bad.join(q.select("qid", "series"), on="series").select(JS, "qid")
        return {k: v.join(drop_q, on=[JS, "qid"], how="anti") for k, v in judged.items()}

    # ---- main
    def run(self) -> dict[str, list[pl.DataFrame]]:
        judged = self._judged()
        meta = self.questions.select("qid", "qtype", "series", "topic", "test", "aux",
                                     "nil_answer", "position")
        qframe = self._question_level(judged["question"], meta)
        lframe = self._lists(judged["list"], meta)
        oframe = self._others(judged["other"], meta)
        self._series_and_types(qframe, lframe, oframe)
        return self._emit()

    def _unit_rows(self, df: pl.DataFrame, cols: list[str]) -> None:
        if not df.height:
            return
        for c in cols:
            long = df.select(JS, "run", pl.col("qid").alias("unit"),
                             pl.lit(c, dtype=pl.Enum([c])).alias("measure"),
                             pl.col(c).alias("value"))
            self.parts["units"].append(long.filter(pl.col("value").is_not_null()))

    def _add(self, df: pl.DataFrame, scope: str, unit: pl.Expr | str) -> None:
        if isinstance(unit, str):
            unit_expr = pl.lit(unit, dtype=pl.Enum([unit]))
        elif isinstance(df.schema.get("unit"), pl.Enum):
            unit_expr = unit
        else:
            unit_expr = unit.cast(pl.String)
        self.wide.append(df.with_columns(pl.lit(scope, dtype=pl.Enum([scope])).alias("scope"),
                                         unit_expr.alias("unit")))

    # ---- question level (factoid, QA, MC, verification)
    def _question_level(self, judged: pl.DataFrame, meta: pl.DataFrame) -> pl.DataFrame | None:
        if not judged.height:
            return None
        t = self.t
        resp = t["responses"]
        jq = judged.join(meta, on="qid")
        qid_list = sorted(set(jq["qid"].to_list()))
        run_list = sorted(set(self.runs) | (set(BASELINES) if self.kind == "qa4mre" else set()))
        qe, re_, je = pl.Enum(qid_list), pl.Enum(run_list), pl.Enum(self.sets)
        oe = pl.Enum(["R", "W", "UR", "UW", "UE"])
        jq = jq.with_columns(pl.col(JS).cast(je), pl.col("qid").cast(qe))
        # small per-question labels as Enums (sorted categories): the big grid then
        # carries integer codes only, and group-bys run on integers
        u = pl.when(pl.col("aux")).then(pl.lit("auxiliary")).otherwise(pl.col("qtype"))
        jq = jq.with_columns(u.alias("_u"))
        lab = {c: pl.Enum(sorted(jq[c].drop_nulls().unique().to_list()))
               for c in ("topic", "test", "_u")}
        jq_lean = jq.with_columns([pl.col(c).cast(e) for c, e in lab.items()])
        grid = jq_lean.join(self.runs_df.with_columns(pl.col("run").cast(re_)), how="cross")
        r = resp.filter(pl.col("qid").is_in(qid_list)).with_columns(
            pl.col("qid").cast(qe), pl.col("run").cast(re_))
        multi = r.height and (r["item"].max() or 1) > 1
        first = r
        if multi:
            first = r.sort(["run", "qid", "item"]).unique(["run", "qid"], keep="first")
        first = first.select("run", "qid", "item", "rank", "answered", "nil", "candidate")
        self._enums = {JS: je, "run": re_, "qid": qe, "outcome": oe, **lab}
        jd = (t["judgments"].filter(pl.col("qid").is_in(qid_list)
                                    & pl.col("run").is_in(run_list) & pl.col(JS).is_in(self.sets))
              .select(pl.col(JS).cast(je), pl.col("run").cast(re_), pl.col("qid").cast(qe),
                      "item", "judgment"))
        g = _dense_attach(grid, first, jd, len(self.sets), len(qid_list), len(run_list))
        if g is None:  # duplicate keys: keep the join semantics (row multiplication)
            g = (grid.join(first, on=["run", "qid"], how="left")
                 .join(jd, on=[JS, "run", "qid", "item"], how="left"))
        ans = pl.col("answered")
        judg = pl.col("judgment")
        def o(code: str) -> pl.Expr:
            return pl.lit(code, dtype=oe)
        outcome = (pl.when(ans.is_null()).then(o("UE"))
                   .when(ans).then(pl.when(judg == "R").then(o("R")).otherwise(o("W")))
                   .when(judg == "R").then(o("UR"))
                   .when(judg.is_in(["W", "U", "X"])).then(o("UW"))
                   .otherwise(o("UE")))
        g = g.with_columns(outcome.alias("outcome"), ans.fill_null(False).alias("answered"))
        if self.kind == "qa4mre":
            g = pl.concat([g.select(_OC_COLS), self._baselines(jq)], how="vertical_relaxed")
        g = g.with_columns(*nonresponse.outcome_indicators(pl.col("outcome")))
        if self.kind == "qa4mre":
            g = self._expected_run(g, jq)
        main = g.filter(~pl.col("aux"))
        exp = pl.col("run") == BASELINE_EXPECTED
        self.parts["outcomes"].append(main.filter(~exp).select(
            JS, "run", "qid", "rank", "answered", "outcome"))
        keys = [JS, "run"]
        allsc = nonresponse.aggregate(main, keys)
        trec = self.kind.startswith("trec")
        unit_cols = ["accuracy"]
        if trec:
            rr = self._mrr(main, multi)
            main = main.join(rr, on=[JS, "run", "qid"], how="left").with_columns(
                pl.col("rr").fill_null(0.0))
            allsc = allsc.join(main.group_by(keys).agg(pl.col("rr").mean().alias("mrr")), on=keys)
            allsc = allsc.join(factoid.cws(main, keys), on=keys)
            allsc = allsc.join(factoid.nil_scores(self._nil_frame(main), keys), on=keys)
            unit_cols.append("mrr")
        self._add(allsc, "all", "all")
        self._unit_rows(main.filter(~exp).with_columns(pl.col("r").alias("accuracy"),
                                                       pl.col("rr").alias("mrr") if trec
                                                       else pl.lit(None).alias("mrr")),
                        unit_cols)
        self._add(nonresponse.aggregate(g, [*keys, "_u"]).rename({"_u": "unit"}), "qtype",
                  pl.col("unit"))
        if self.kind == "qa4mre":
            thr = float(self.opts["pass_threshold"])
            per_test = nonresponse.aggregate(main, [*keys, "topic", "test"])
            topic = nonresponse.aggregate(main, [*keys, "topic"]).join(
                reading.test_stats(per_test, [*keys, "topic"], thr), on=[*keys, "topic"],
                how="left")
            self._add(topic.rename({"topic": "unit"}), "topic", pl.col("unit"))
            self._add(per_test.drop("topic").rename({"test": "unit"}), "test", pl.col("unit"))
            self._add(reading.test_stats(per_test, keys, thr), "all", "all")
        if not trec:  # only the TREC kinds use the question frame further
            return main
        return main.with_columns(pl.col(JS).cast(pl.String), pl.col("run").cast(pl.String),
                                 pl.col("qid").cast(pl.String))

    def _to_enum(self, df: pl.DataFrame) -> pl.DataFrame:
        return df.with_columns([pl.col(c).cast(pl.String).cast(e) for c, e in self._enums.items()
                                if c in df.columns])

    def _mrr(self, main: pl.DataFrame, multi: bool) -> pl.DataFrame:
        if not multi:
            return main.select(JS, "run", "qid", pl.col("r").alias("rr"))
        qids = main.select(pl.col("qid").cast(pl.String)).unique()
        items = (self.t["responses"].join(qids, on="qid", how="semi")
                 .join(self.t["judgments"], on=["run", "qid", "item"], how="inner")
                 .with_columns((pl.col("answered") & (pl.col("judgment") == "R")).alias("right")))
        return self._to_enum(factoid.reciprocal_rank(items, [JS, "run", "qid"]))

    def _nil_frame(self, main: pl.DataFrame) -> pl.DataFrame:
        df = main.with_columns(
            (pl.col("answered") & pl.col("nil").fill_null(False)).alias("nil_returned"))
        df = df.with_columns((pl.col("nil_returned") & (pl.col("r") > 0)).alias("nil_right"))
        judged_nil = df.group_by(JS, "qid").agg(pl.col("nil_right").any().alias("_jn"))
        return df.join(judged_nil, on=[JS, "qid"], how="left").with_columns(
            pl.coalesce(pl.col("nil_answer"), pl.col("_jn")).fill_null(False)
            .alias("nil_question"))

    # ---- QA4MRE baselines
    def _baselines(self, jq: pl.DataFrame) -> pl.DataFrame:
        """Seeded random choice, always None-of-the-above (answered everywhere: wrong where
        the question has no NoA option), answer nothing."""
        jq = jq.with_columns(pl.col(JS).cast(pl.String), pl.col("qid").cast(pl.String))
        opt = self.t["options"].join(jq.select("qid").unique(), on="qid", how="semi")
        qorder = jq.select("qid", "position").unique().sort(["position", "qid"], nulls_last=True)
        k = opt.group_by("qid").agg(pl.len().alias("k"))
        qk = qorder.join(k, on="qid", how="left").with_columns(pl.col("k").fill_null(0))
        rng = np.random.default_rng(np.random.SeedSequence(int(self.opts["baseline_seed"])))
        draws = np.floor(rng.random(qk.height) * np.maximum(qk["k"].to_numpy(), 1)).astype(np.int64)
        pick = qk.with_columns(pl.Series("pick", draws, dtype=pl.Int64))
        opt_idx = opt.sort(["qid", "option"]).with_columns(
            pl.int_range(pl.len()).over("qid").alias("idx"))
        seeded = pick.join(opt_idx, left_on=["qid", "pick"], right_on=["qid", "idx"], how="left")
        seeded = seeded.select("qid", pl.col("correct").fill_null(False).alias("c"),
                               (pl.col("k") > 0).alias("a"))
        noa = (qorder.join(opt.filter(pl.col("is_noa").fill_null(False))
                           .group_by("qid").agg(pl.col("correct").fill_null(False).any().alias("c")),
                           on="qid", how="left")
               .select("qid", pl.col("c").fill_null(False), pl.lit(True).alias("a")))
        nothing = qorder.select("qid", pl.lit(False).alias("c"), pl.lit(False).alias("a"))
        frames = []
        for name, df in ((BASELINE_SEEDED, seeded), (BASELINE_NOA, noa),
                         (BASELINE_NOTHING, nothing)):
            frames.append(df.with_columns(pl.lit(name).alias("run")))
        b = pl.concat(frames)
        g = jq.join(b, on="qid").with_columns(
            pl.col("position").alias("rank"), pl.col("a").alias("answered"),
            pl.when(~pl.col("a")).then(pl.lit("UE"))
            .when(pl.col("c")).then(pl.lit("R")).otherwise(pl.lit("W")).alias("outcome"),
            pl.lit(False).alias("nil"))
        return self._to_enum(g.select(_OC_COLS))

    def _expected_run(self, g: pl.DataFrame, jq: pl.DataFrame) -> pl.DataFrame:
        """Random choice, expected value: r = 1/k, w = 1 - 1/k per question."""
        k = self.t["options"].group_by("qid").agg(pl.len().alias("k"))
        jq = jq.with_columns(pl.col(JS).cast(pl.String), pl.col("qid").cast(pl.String))
        e = jq.join(k, on="qid", how="left").with_columns(
            pl.lit(BASELINE_EXPECTED).alias("run"), pl.col("position").alias("rank"),
            pl.lit(True).alias("answered"), pl.lit("R").alias("outcome"), pl.lit(False).alias("nil"),
            pl.when(pl.col("k") > 0).then(1.0 / pl.col("k")).otherwise(0.0).alias("r"))
        e = e.with_columns((1.0 - pl.col("r")).alias("w"), pl.lit(0.0).alias("ur"),
                           pl.lit(0.0).alias("uw"), pl.lit(0.0).alias("ue"))
        return pl.concat([g, self._to_enum(e).select(g.columns)], how="vertical_relaxed")

    # ---- lists
    def _lists(self, judged: pl.DataFrame, meta: pl.DataFrame) -> pl.DataFrame | None:
        if not judged.height:
            return None
        t = self.t
        s = t["list_key"].group_by("qid").agg(pl.len().alias("S"))
        grid = judged.join(meta, on="qid").join(s, on="qid").join(self.runs_df, how="cross")
        resp = t["responses"].join(judged.select("qid").unique(), on="qid", how="semi")
        n = resp.filter(pl.col("answered")).group_by("run", "qid").agg(pl.len().alias("N"))
        d = (resp.filter(pl.col("answered"))
             .join(t["judgments"], on=["run", "qid", "item"], how="inner")
             .filter((pl.col("judgment") == "R") & pl.col("distinct").fill_null(True))
             .group_by(JS, "run", "qid").agg(pl.len().alias("D")))
        g = (grid.join(n, on=["run", "qid"], how="left").join(d, on=[JS, "run", "qid"], how="left")
             .with_columns(pl.col("N").fill_null(0), pl.col("D").fill_null(0)))
        g = lists.per_question(g)
        cols = ["list_precision", "list_recall", "list_f"]
        self._unit_rows(g, cols)
        agg = [pl.col(c).mean() for c in cols]
        self._add(g.group_by(JS, "run").agg(agg), "all", "all")
        self._add(g.group_by(JS, "run", "qtype").agg(agg).rename({"qtype": "unit"}), "qtype",
                  pl.col("unit"))
        return g

    # ---- Other
    def _others(self, judged: pl.DataFrame, meta: pl.DataFrame) -> pl.DataFrame | None:
        if not judged.height:
            return None
        t = self.t
        nug = t["nuggets"]
        tot = nug.group_by("qid").agg(pl.col("vital").sum().alias("vital_total"),
                                      pl.col("weight").sum().alias("weight_total"),
                                      pl.col("weight").is_not_null().any().alias("_hasw"))
        tot = tot.with_columns(pl.when(pl.col("_hasw")).then(pl.col("weight_total"))
                               .otherwise(None).alias("weight_total")).drop("_hasw")
        grid = judged.join(meta, on="qid").join(tot, on="qid").join(self.runs_df, how="cross")
        resp = t["responses"].join(judged.select("qid").unique(), on="qid", how="semi")
        length = resp.filter(pl.col("answered")).group_by("run", "qid").agg(
            pl.col("answer").fill_null("").str.replace_all(r"\s", "").str.len_chars().sum()
            .alias("length"))
        m = (t["nugget_matches"].select(JS, "run", "qid", "nugget").unique()
             .join(nug.select("qid", "nugget", "vital", "weight"), on=["qid", "nugget"],
                   how="inner")
             .group_by(JS, "run", "qid").agg(
                 pl.len().alias("matched"), pl.col("vital").sum().alias("vital_matched"),
                 pl.col("weight").fill_null(0.0).sum().alias("weight_matched")))
        g = (grid.join(length, on=["run", "qid"], how="left")
             .join(m, on=[JS, "run", "qid"], how="left")
             .with_columns(pl.col("length").fill_null(0), pl.col("matched").fill_null(0),
                           pl.col("vital_matched").fill_null(0),
                           pl.col("weight_matched").fill_null(0.0)))
        g = other.per_question(g, int(self.opts["allowance"]), float(self.opts["beta"]))
        cols = ["other_recall", "other_precision", "other_f", "other_pyramid_recall",
                "other_pyramid_f"]
        self._unit_rows(g, cols)
        agg = [pl.col(c).mean() for c in cols]
        self._add(g.group_by(JS, "run").agg(agg), "all", "all")
        self._add(g.group_by(JS, "run", "qtype").agg(agg).rename({"qtype": "unit"}), "qtype",
                  pl.col("unit"))
        return g

    # ---- series and type scores
    def _series_and_types(self, qf, lf, of) -> None:
        keys = [JS, "run"]
        if self.kind.startswith("trec"):
            base = self.sets_df.join(self.runs_df, how="cross")
            comps = [
                (qf, "accuracy", pl.col("r").mean()),
                (lf, "list_f", pl.col("list_f").mean()),
                (of, "other_f", pl.col("other_f").mean()),
            ]
            run_level = base
            for frame, name, expr in comps:
                if frame is not None and frame.height:
                    sub = frame.filter(pl.col("run") != BASELINE_EXPECTED)
                    run_level = run_level.join(sub.group_by(keys).agg(expr.alias(name)),
                                               on=keys, how="left")
                else:
                    run_level = run_level.with_columns(pl.lit(None, pl.Float64).alias(name))
            has_types = sum(f is not None and f.height > 0 for f in (lf, of)) > 0
            if has_types:
                self._add(series.type_score(run_level).select(*keys, "type_score"), "all", "all")
        if self.kind != "trec-series":
            return
        skeys = [JS, "run", "series"]
        per = None
        extra = []
        for frame, cols in ((qf, {"accuracy": pl.col("r").mean()}),
                            (lf, {c: pl.col(c).mean() for c in
                                  ("list_precision", "list_recall", "list_f")}),
                            (of, {c: pl.col(c).mean() for c in
                                  ("other_recall", "other_precision", "other_f",
                                   "other_pyramid_recall", "other_pyramid_f")})):
            if frame is None or not frame.height:
                continue
            a = frame.filter(pl.col("series").is_not_null()).group_by(skeys).agg(
                [e.alias(n) for n, e in cols.items()])
            extra += list(cols)
            per = a if per is None else per.join(a, on=skeys, how="full", coalesce=True)
        if per is None:
            return
        for c in ("accuracy", "list_f", "other_f"):
            if c not in per.columns:
                per = per.with_columns(pl.lit(None, pl.Float64).alias(c))
        per = series.combine(per, self.opts["series_weights"])
        self._add(per.rename({"series": "unit"}), "series", pl.col("unit"))
        self._add(per.group_by(keys).agg(pl.col("series_score").mean()), "all", "all")

    # ---- emit
    def _emit(self) -> dict[str, list[pl.DataFrame]]:
        allowed = set(measures.KIND_MEASURES[self.kind])
        longs = []
        for w in self.wide:
            cols = [c for c in w.columns if c in allowed]
            if not cols:
                continue
            for c in cols:
                long = w.select(JS, "run", "scope", "unit",
                                pl.lit(c, dtype=pl.Enum([c])).alias("measure"),
                                pl.col(c).cast(pl.Float64).alias("value"))
                longs.append(long.filter(pl.col("value").is_not_null()
                                         & pl.col("unit").is_not_null()))
        if longs:
            self.parts["runs"] = longs
        self.parts["units"] = [u for u in self.parts["units"]
                               if set(u.schema["measure"].categories.to_list()) & allowed]
        return self.parts


def _codes(df: pl.DataFrame, col: str) -> np.ndarray:
    return df[col].to_physical().to_numpy().astype(np.int64)


def _dense_attach(grid: pl.DataFrame, first: pl.DataFrame, jd: pl.DataFrame,
                  n_sets: int, n_q: int, n_runs: int) -> pl.DataFrame | None:
    """``grid`` left-joined with ``first`` on (run, qid) and ``jd`` on (judgment_set,
    run, qid, item), by dense integer positions over the Enum codes instead of hash
    joins.  None when a key is duplicated (the caller then falls back to joins)."""
    if n_sets * n_q * n_runs >= 2**62:
        return None
    fpos = _codes(first, "qid") * n_runs + _codes(first, "run")
    fidx = np.full(n_q * n_runs, -1, np.int64)
    fidx[fpos] = np.arange(first.height)
    if first.height and np.bincount(fpos, minlength=1).max() > 1:
        return None
    gq = _codes(grid, "qid") * n_runs + _codes(grid, "run")
    gi = fidx[gq]
    # judgments: keep those whose item is the first item of their (run, qid)
    jq_pos = _codes(jd, "qid") * n_runs + _codes(jd, "run")
    ji_first = fidx[jq_pos]
    first_item = first["item"].to_numpy()
    jitem = jd["item"].to_numpy()
    ok = ji_first >= 0
    if jd["item"].null_count() or first["item"].null_count():
        return None
    ok[ok] = jitem[ok] == first_item[ji_first[ok]]
    jpos = (_codes(jd, JS) * n_q * n_runs + jq_pos)[ok]
    if jpos.size and np.bincount(jpos).max() > 1:
        return None
    jidx = np.full(n_sets * n_q * n_runs, -1, np.int64)
    jidx[jpos] = np.flatnonzero(ok)
    gj = jidx[_codes(grid, JS) * n_q * n_runs + gq]
    gj[gi < 0] = -1

    def gather(df: pl.DataFrame, idx: np.ndarray, cols: list[str]) -> list[pl.Series]:
        s = pl.Series("_i", np.where(idx < 0, 0, idx), dtype=pl.Int64)
        s = pl.select(pl.when(pl.lit(pl.Series(idx >= 0))).then(s)).to_series()
        return [df[c].gather(s) for c in cols]

    fcols = [c for c in first.columns if c not in ("run", "qid")]
    jcols = [c for c in jd.columns if c not in (JS, "run", "qid", "item")]
    return grid.with_columns(*gather(first, gi, fcols), *gather(jd, gj, jcols))


_OC_COLS = [JS, "run", "qid", "qtype", "series", "topic", "test", "_u", "aux", "nil_answer",
            "position", "rank", "answered", "nil", "outcome"]


# --------------------------------------------------------------------------- writing
def runs_wide(runs: pl.DataFrame, judgment_set: str, kind: str | None = None) -> pl.DataFrame:
    """The run-level table (scope ``all``) of one judgment set, one column per measure
    (registry order), one row per run."""
    sub = runs.filter((pl.col(JS) == judgment_set) & (pl.col("scope") == "all"))
    present = set(sub["measure"].unique().to_list())
    order = [m for m in (measures.KIND_MEASURES.get(kind or "", ()) or measures.REGISTRY)
             if m in present]
    order += sorted(present - set(order))
    if not sub.height:
        return pl.DataFrame(schema={"run": pl.String})
    wide = sub.pivot(on="measure", index="run", values="value", sort_columns=False)
    counts = [m for m in order if m in measures.REGISTRY and measures.REGISTRY[m].integer]
    # counts (n_right, tests_passed, ...) as integers, not 132.000000
    return (wide.select("run", *order).sort("run")
            .with_columns([pl.col(m).round(0).cast(pl.Int64) for m in counts]))
