"""The core work of qacamp's QA4MRE scoring, written as plain DuckDB SQL.

The peer of ``qacamp score`` in ``bench_scoring.py`` (its target:
scoring 1,000 x 10,000 QA4MRE-shaped no slower than the same core work in
plain DuckDB SQL).  It reads the Parquet tables a QA4MRE ingest writes (``questions``,
``options``, ``responses``, ``judgments`` and ``campaign.json``) and writes
``outcomes.parquet``, ``units.parquet``, ``runs.parquet`` (same columns,
types, rows and canonical row order as qacamp's) and ``runs.csv`` (scope
``all`` of the primary judgment set, wide), applying the rules of
docs/semantics.md as SQL:

- outcome per (judgment set, run, question): no response -> UE; answered ->
  R if judged R, else W; unanswered -> UR (candidate judged R), UW (judged W,
  U, X or L), else UE; a run's first item per question;
- auxiliary questions (``auxiliary_of`` set or question number above
  ``main_questions``) only at scope ``qtype``, unit ``auxiliary``;
- the baseline runs: random-expected (r = 1/k), random-seeded (one option per
  question in question order), always-nca (when the gold has NCA options),
  answer-nothing;
- c@1, accuracy, QA4MRE accuracy, correctly discarded, utility and the counts
  at scopes all, qtype, topic and test; the reading perspective (median, mean
  and standard deviation of the tests' c@1, tests passed, tests) per topic and
  overall.

One thing is not SQL: the random-seeded baseline's draws come from numpy
(``SeedSequence(baseline_seed)``, one uniform number per question), because
SQL has no PCG64; that is one vector of 10,000 numbers, the scoring of the
baseline is SQL like the rest.  ``dropped.parquet`` is not written (a QA4MRE
campaign drops nothing: every question of the gold is scored).

Run as a script it is one whole process (``bench_scoring.py`` times it so)::

    python benchmarks/sql_scoring.py --ingest DIR --out DIR [--threads N]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import duckdb
import numpy as np

QUESTION_QTYPES = ("FACTOID", "QA", "MC", "VERIFICATION")
NOT_RIGHT = ("W", "U", "X", "L")
BASELINE_EXPECTED = "baseline:random-expected"
BASELINE_SEEDED = "baseline:random-seeded"
BASELINE_NCA = "baseline:always-nca"
BASELINE_NOTHING = "baseline:answer-nothing"
#: runs-table measures of a QA4MRE campaign, in qacamp's registry order
COUNT_MEASURES = ("c_at_1", "accuracy", "qa4mre_accuracy", "correctly_discarded", "utility",
                  "n_right", "n_wrong", "n_unanswered", "n_unanswered_right",
                  "n_unanswered_wrong", "n_unanswered_empty")
READING_MEASURES = ("test_c_at_1_median", "test_c_at_1_mean", "test_c_at_1_std",
                    "tests_passed", "tests")
INTEGER_MEASURES = ("n_right", "n_wrong", "n_unanswered", "n_unanswered_right",
                    "n_unanswered_wrong", "n_unanswered_empty", "tests_passed", "tests")
#: qacamp's Parquet options (qacamp.io.rowgroup_writer.WRITE_OPTIONS: zstd level 3)
COPY = "(FORMAT parquet, COMPRESSION zstd, COMPRESSION_LEVEL 3)"
TOL = 1e-12  # qacamp.measures.reading._TOL


def options(ingest: Path) -> dict:
    """The scoring options of ``campaign.json`` with qacamp's defaults."""
    doc = json.loads((ingest / "campaign.json").read_text())
    flat = {k: v for k, v in doc.items() if k != "options"}
    flat.update(doc.get("options") or {})
    return {"main_questions": int(flat.get("main_questions") or 15),
            "pass_threshold": float(flat.get("pass_threshold", 0.5)),
            "pass_rule": flat.get("pass_rule") or "at_least",
            "ddof": int(flat.get("test_std_ddof") or 0),
            "baseline_seed": int(flat.get("baseline_seed", 1)),
            "run_names": list(flat.get("run_names") or []),
            "primary": flat.get("primary") or "gold"}


def _q(text: Path | str) -> str:
    """A SQL string literal."""
    return "'" + str(text).replace("'", "''") + "'"


def _measures(src: str, keys: list[str]) -> str:
    """c@1 and the other non-response measures from the summed counts of
    ``src`` grouped by ``keys`` (the expressions of
    qacamp.measures.nonresponse.from_counts).  ``fsum`` (compensated
    summation): the counts of the expected random-choice run are fractional."""
    k = ", ".join(keys)
    return f"""
        SELECT {k},
          CASE WHEN n > 0 THEN (nr + nu * (CASE WHEN n > 0 THEN nr / n ELSE 0.0 END)) / n
               ELSE 0.0 END AS c_at_1,
          CASE WHEN n > 0 THEN nr / n ELSE 0.0 END AS accuracy,
          CASE WHEN n > 0 THEN (nr + nur) / n ELSE 0.0 END AS qa4mre_accuracy,
          CASE WHEN nu > 0 THEN (nuw + nue) / nu ELSE 0.0 END AS correctly_discarded,
          CASE WHEN n > 0 THEN (nr - nw) / n ELSE 0.0 END AS utility,
          nr AS n_right, nw AS n_wrong, nu AS n_unanswered, nur AS n_unanswered_right,
          nuw AS n_unanswered_wrong, nue AS n_unanswered_empty
        FROM (SELECT {k}, nr, nw, nur, nuw, nue, nur + nuw + nue AS nu,
                     nr + nw + (nur + nuw + nue) AS n
              FROM (SELECT {k}, fsum(nr) AS nr, fsum(nw) AS nw, fsum(nur) AS nur,
                           fsum(nuw) AS nuw, fsum(nue) AS nue
                    FROM {src} GROUP BY {k}))"""


def _reading(keys: list[str], o: dict) -> str:
    """Statistics of the reading tests' c@1 per group ``keys`` (from ``per_test``)."""
    k = ", ".join(keys)
    ok = (f"c_at_1 > {o['pass_threshold'] + TOL!r}" if o["pass_rule"] == "more_than"
          else f"c_at_1 >= {o['pass_threshold'] - TOL!r}")
    std = "stddev_samp" if o["ddof"] == 1 else "stddev_pop"
    return f"""
        SELECT {k}, median(c_at_1) AS test_c_at_1_median, favg(c_at_1) AS test_c_at_1_mean,
               {std}(c_at_1) AS test_c_at_1_std,
               sum(CASE WHEN {ok} THEN 1 ELSE 0 END)::DOUBLE AS tests_passed,
               count(*)::DOUBLE AS tests
        FROM per_test GROUP BY {k}"""


def _enum(con: duckdb.DuckDBPyConnection, name: str, values_sql: str) -> None:
    """An ENUM type of the distinct values of ``values_sql``, in sorted order (so
    that ORDER BY on it is ORDER BY on the text, as integers)."""
    con.execute(f"CREATE TYPE {name} AS ENUM (SELECT DISTINCT v FROM ({values_sql}) t(v) "
                "WHERE v IS NOT NULL ORDER BY v)")


def score_sql(ingest: Path, out: Path, threads: int | None = None) -> dict[str, dict[str, float]]:
    """Score the QA4MRE campaign of ``ingest`` into ``out`` in DuckDB SQL (a new
    in-memory database); returns the wall and CPU seconds of each step
    (``{step: {"wall_s", "cpu_s"}}``).

    Keys are ENUM types in sorted order (run, question, judgment set, topic,
    test, and the output's scope, unit and measure): joins, group-bys and the
    canonical ORDER BY run on their integer codes; text is written only."""
    ingest, out = Path(ingest), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    o = options(ingest)
    con = duckdb.connect()
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    steps: dict[str, dict[str, float]] = {}
    t0, c0 = time.perf_counter(), time.process_time()

    def step(name: str) -> None:
        nonlocal t0, c0
        now, cpu = time.perf_counter(), time.process_time()
        steps[name] = {"wall_s": now - t0, "cpu_s": cpu - c0}
        t0, c0 = now, cpu

    def table(name: str) -> str:
        return f"read_parquet({_q(ingest / f'{name}.parquet')})"

    qtypes = ", ".join(f"'{t}'" for t in QUESTION_QTYPES)
    con.execute(f"""
        CREATE TEMP TABLE q0 AS
        SELECT qid, qtype, topic, test, position,
               auxiliary_of IS NOT NULL
               OR coalesce(TRY_CAST(regexp_extract(qid, '(\\d+)$', 1) AS BIGINT)
                           > {o['main_questions']}, false) AS aux
        FROM {table('questions')} WHERE qtype IN ({qtypes})""")
    con.execute(f"""
        CREATE TEMP TABLE opt0 AS
        SELECT o.qid, o.option, coalesce(o.correct, false) AS correct,
               coalesce(o.is_noa, false) AS is_noa
        FROM {table('options')} o SEMI JOIN q0 ON o.qid = q0.qid""")
    has_nca = con.execute("SELECT coalesce(bool_or(is_noa), false) FROM opt0").fetchone()[0]
    baselines = [BASELINE_EXPECTED, BASELINE_SEEDED, BASELINE_NOTHING] + (
        [BASELINE_NCA] if has_nca else [])
    sets = f"SELECT judgment_set FROM {table('judgments')}"
    if not con.execute(f"SELECT count(*) FROM ({sets}) WHERE judgment_set IS NOT NULL"
                       ).fetchone()[0]:
        sets = f"SELECT {_q(o['primary'])}"
    runs = " UNION ALL ".join([f"SELECT run FROM {table('responses')}",
                               *(f"SELECT {_q(r)}" for r in o["run_names"])])
    _enum(con, "js_t", sets)
    _enum(con, "qid_t", "SELECT qid FROM q0")
    _enum(con, "run_t", " UNION ALL ".join([runs, *(f"SELECT {_q(b)}" for b in baselines)]))
    _enum(con, "topic_t", "SELECT topic FROM q0")
    _enum(con, "test_t", "SELECT test FROM q0")
    _enum(con, "unit_t", "SELECT topic FROM q0 UNION ALL SELECT test FROM q0 UNION ALL "
                         "SELECT qtype FROM q0 UNION ALL SELECT 'auxiliary' "
                         "UNION ALL SELECT 'all'")
    _enum(con, "measure_t", " UNION ALL ".join(
        f"SELECT '{m}'" for m in COUNT_MEASURES + READING_MEASURES))
    con.execute("CREATE TYPE scope_t AS ENUM ('all', 'qtype', 'test', 'topic')")
    con.execute("CREATE TYPE outcome_t AS ENUM ('R', 'W', 'UR', 'UW', 'UE')")
    con.execute("""
        CREATE TEMP TABLE q AS
        SELECT qid::qid_t AS qid, CASE WHEN aux THEN 'auxiliary' ELSE qtype END AS u,
               topic::topic_t AS topic, test::test_t AS test, aux, position FROM q0""")
    con.execute("CREATE TEMP TABLE sets AS SELECT unnest(enum_range(NULL::js_t)) AS judgment_set")
    con.execute(f"""
        CREATE TEMP TABLE runs AS
        SELECT DISTINCT run::run_t AS run FROM ({runs}) t(run) WHERE run IS NOT NULL""")
    multi = (con.execute(f"SELECT max(item) FROM {table('responses')}").fetchone()[0] or 1) > 1
    first = (f"""(SELECT TRY_CAST(run AS run_t) AS run, TRY_CAST(qid AS qid_t) AS qid, item,
                         rank, answered FROM {table('responses')}"""
             + (" QUALIFY row_number() OVER (PARTITION BY run, qid ORDER BY item) = 1)"
                if multi else ")"))
    judgments = f"""(SELECT TRY_CAST(judgment_set AS js_t) AS judgment_set,
                            TRY_CAST(run AS run_t) AS run, TRY_CAST(qid AS qid_t) AS qid,
                            item, judgment FROM {table('judgments')})"""
    not_right = ", ".join(f"'{c}'" for c in NOT_RIGHT)
    # the outcome grid: every judgment set x judged question x run
    con.execute(f"""
        CREATE TEMP TABLE grid AS
        SELECT s.judgment_set, r.run, q.qid, q.u, q.topic, q.test, q.aux, f.rank,
               coalesce(f.answered, false) AS answered,
               (CASE WHEN f.answered IS NULL THEN 'UE'
                     WHEN f.answered THEN CASE WHEN j.judgment = 'R' THEN 'R' ELSE 'W' END
                     WHEN j.judgment = 'R' THEN 'UR'
                     WHEN j.judgment IN ({not_right}) THEN 'UW'
                     ELSE 'UE' END)::outcome_t AS outcome
        FROM sets s CROSS JOIN q CROSS JOIN runs r
        LEFT JOIN {first} f ON f.run = r.run AND f.qid = q.qid
        LEFT JOIN {judgments} j
          ON j.judgment_set = s.judgment_set AND j.run = r.run AND j.qid = q.qid
             AND j.item = f.item""")
    step("outcome grid")
    # baselines: k options per question, in question order (position, qid)
    con.execute("""
        CREATE TEMP TABLE opt AS
        SELECT qid::qid_t AS qid, correct, is_noa,
               row_number() OVER (PARTITION BY qid ORDER BY option) - 1 AS idx FROM opt0""")
    qk = con.execute("""
        SELECT q0.qid, coalesce(k.k, 0) FROM (SELECT DISTINCT qid, position FROM q0) q0
        LEFT JOIN (SELECT qid::VARCHAR AS qid, count(*) AS k FROM opt GROUP BY qid) k
        USING (qid) ORDER BY q0.position NULLS LAST, q0.qid""").fetchall()
    rng = np.random.default_rng(np.random.SeedSequence(o["baseline_seed"]))
    k = np.array([r[1] for r in qk], np.int64)
    draws = np.floor(rng.random(len(qk)) * np.maximum(k, 1)).astype(np.int64)
    con.execute("CREATE TEMP TABLE pick AS SELECT unnest($1::VARCHAR[])::qid_t AS qid, "
                "unnest($2::BIGINT[]) AS pick, unnest($3::BIGINT[]) AS k",
                [[r[0] for r in qk], draws.tolist(), k.tolist()])
    nca = f"""
        UNION ALL
        SELECT '{BASELINE_NCA}', p.qid, true,
               coalesce((SELECT bool_or(correct) FROM opt
                         WHERE opt.qid = p.qid AND is_noa), false)
        FROM pick p""" if has_nca else ""
    con.execute(f"""
        CREATE TEMP TABLE base AS
        SELECT s.judgment_set, b.run::run_t AS run, q.qid, q.u, q.topic, q.test, q.aux,
               q.position AS rank, b.a AS answered,
               (CASE WHEN NOT b.a THEN 'UE' WHEN b.c THEN 'R' ELSE 'W' END)::outcome_t
               AS outcome
        FROM sets s CROSS JOIN q JOIN (
            SELECT '{BASELINE_SEEDED}' AS run, p.qid, p.k > 0 AS a,
                   coalesce(opt.correct, false) AS c
            FROM pick p LEFT JOIN opt ON opt.qid = p.qid AND opt.idx = p.pick
            UNION ALL
            SELECT '{BASELINE_NOTHING}', p.qid, false, false FROM pick p
            {nca}) b ON b.qid = q.qid""")
    step("baselines")
    # outcome counts per (judgment set, run, unit type, topic, test): every scope sums them
    con.execute(f"""
        CREATE TEMP TABLE fine AS
        SELECT judgment_set, run, u, topic, test,
               count(*) FILTER (WHERE outcome = 'R')::DOUBLE AS nr,
               count(*) FILTER (WHERE outcome = 'W')::DOUBLE AS nw,
               count(*) FILTER (WHERE outcome = 'UR')::DOUBLE AS nur,
               count(*) FILTER (WHERE outcome = 'UW')::DOUBLE AS nuw,
               count(*) FILTER (WHERE outcome = 'UE')::DOUBLE AS nue
        FROM (SELECT judgment_set, run, u, topic, test, outcome FROM grid
              UNION ALL SELECT judgment_set, run, u, topic, test, outcome FROM base)
        GROUP BY ALL
        UNION ALL
        SELECT s.judgment_set, '{BASELINE_EXPECTED}'::run_t, q.u, q.topic, q.test,
               fsum(CASE WHEN p.k > 0 THEN 1.0::DOUBLE / p.k ELSE 0.0 END),
               fsum(1.0::DOUBLE - CASE WHEN p.k > 0 THEN 1.0::DOUBLE / p.k ELSE 0.0 END),
               0.0::DOUBLE, 0.0::DOUBLE, 0.0::DOUBLE
        FROM sets s CROSS JOIN q JOIN pick p ON p.qid = q.qid
        GROUP BY ALL""")
    con.execute("CREATE TEMP VIEW main_fine AS SELECT * FROM fine WHERE u <> 'auxiliary'")
    step("counts")
    keys = ["judgment_set", "run"]
    con.execute("CREATE TEMP TABLE per_test AS "
                + _measures("main_fine", [*keys, "topic", "test"]))
    con.execute(f"CREATE TEMP TABLE s_all AS {_measures('main_fine', keys)}")
    con.execute(f"CREATE TEMP TABLE r_all AS {_reading(keys, o)}")
    con.execute("CREATE TEMP TABLE s_qtype AS " + _measures("fine", [*keys, "u"]))
    con.execute(f"""
        CREATE TEMP TABLE s_topic AS
        SELECT * FROM ({_measures('main_fine', [*keys, 'topic'])})
        JOIN ({_reading([*keys, 'topic'], o)}) USING (judgment_set, run, topic)""")
    step("scopes")
    # one wide row per (judgment set, run, scope, unit), sorted; UNPIVOT on the
    # measures in name order then gives the canonical order of runs.parquet
    # (DuckDB keeps insertion order: preserve_insertion_order)
    wide = " UNION ALL BY NAME ".join([
        "SELECT *, 'all' AS scope, 'all' AS unit FROM s_all JOIN r_all "
        "USING (judgment_set, run)",
        "SELECT * EXCLUDE (u), 'qtype' AS scope, u AS unit FROM s_qtype",
        "SELECT * EXCLUDE (topic), 'topic' AS scope, topic::VARCHAR AS unit FROM s_topic",
        "SELECT * EXCLUDE (topic, test), 'test' AS scope, test::VARCHAR AS unit "
        "FROM per_test"])
    con.execute(f"""
        CREATE TEMP TABLE wide AS
        SELECT * REPLACE (scope::scope_t AS scope, unit::unit_t AS unit) FROM ({wide})
        WHERE unit IS NOT NULL ORDER BY judgment_set, run, scope, unit""")
    measures = ", ".join(sorted(COUNT_MEASURES + READING_MEASURES))
    con.execute(f"""
        COPY (SELECT judgment_set::VARCHAR AS judgment_set, run::VARCHAR AS run, measure,
                     scope::VARCHAR AS scope, unit::VARCHAR AS unit, value
              FROM (UNPIVOT wide ON {measures} INTO NAME measure VALUE value))
        TO {_q(out / 'runs.parquet')} {COPY}""")
    step("write runs")
    # outcomes and units: the same rows (main questions), sorted once
    con.execute("""
        CREATE TEMP TABLE main_rows AS
        SELECT js::VARCHAR AS judgment_set, r::VARCHAR AS run, q::VARCHAR AS qid,
               rank::INTEGER AS rank, answered, outcome::VARCHAR AS outcome
        FROM (SELECT judgment_set, run, qid, rank, answered, outcome FROM grid WHERE NOT aux
              UNION ALL
              SELECT judgment_set, run, qid, rank, answered, outcome FROM base WHERE NOT aux)
             t(js, r, q, rank, answered, outcome)
        ORDER BY js, r, q""")
    step("sort outcomes")
    con.execute(f"COPY main_rows TO {_q(out / 'outcomes.parquet')} {COPY}")
    step("write outcomes")
    con.execute(f"""
        COPY (SELECT judgment_set, run, 'accuracy' AS measure, qid AS unit,
                     CASE WHEN outcome = 'R' THEN 1.0 ELSE 0.0 END::DOUBLE AS value
              FROM main_rows)
        TO {_q(out / 'units.parquet')} {COPY}""")
    step("write units")
    cols = ", ".join(f"printf('%d', {m}::BIGINT) AS {m}" if m in INTEGER_MEASURES
                     else f"printf('%.6f', {m}) AS {m}"
                     for m in COUNT_MEASURES + READING_MEASURES)
    con.execute(f"""
        COPY (SELECT run::VARCHAR AS run, {cols} FROM s_all JOIN r_all USING (judgment_set, run)
              WHERE judgment_set::VARCHAR = {_q(o["primary"])} ORDER BY run)
        TO {_q(out / 'runs.csv')} (FORMAT csv, HEADER)""")
    step("write runs.csv")
    con.close()
    return steps


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ingest", required=True, help="a QA4MRE campaign's ingest folder")
    ap.add_argument("--out", required=True, help="folder for the score files")
    ap.add_argument("--threads", type=int, default=None, help="DuckDB threads (default: all)")
    args = ap.parse_args(argv)
    steps = score_sql(Path(args.ingest), Path(args.out), args.threads)
    print(json.dumps(steps))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
