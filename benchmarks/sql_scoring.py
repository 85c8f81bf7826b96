"""The core work of qacamp's QA4MRE scoring, written as plain DuckDB SQL.

The peer of ``qacamp score`` in ``bench_scoring.py`` (issue 19: "scoring 1,000
x 10,000 QA4MRE-shaped: no slower than the same core work in plain DuckDB
SQL").  It reads the Parquet tables a QA4MRE ingest writes (``questions``,
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
#: qacamp's Parquet options (qacamp.io.parquet.WRITE_OPTIONS: zstd level 3)
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
    qacamp.measures.nonresponse.from_counts)."""
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
              FROM (SELECT {k}, sum(nr) AS nr, sum(nw) AS nw, sum(nur) AS nur,
                           sum(nuw) AS nuw, sum(nue) AS nue
                    FROM {src} GROUP BY {k}))"""


def _reading(keys: list[str], o: dict) -> str:
    """Statistics of the reading tests' c@1 per group ``keys`` (from ``per_test``)."""
    k = ", ".join(keys)
    ok = (f"c_at_1 > {o['pass_threshold'] + TOL!r}" if o["pass_rule"] == "more_than"
          else f"c_at_1 >= {o['pass_threshold'] - TOL!r}")
    std = "stddev_samp" if o["ddof"] == 1 else "stddev_pop"
    return f"""
        SELECT {k}, median(c_at_1) AS test_c_at_1_median, avg(c_at_1) AS test_c_at_1_mean,
               {std}(c_at_1) AS test_c_at_1_std,
               sum(CASE WHEN {ok} THEN 1 ELSE 0 END)::DOUBLE AS tests_passed,
               count(*)::DOUBLE AS tests
        FROM per_test GROUP BY {k}"""


def _long(src: str, scope: str, unit: str, cols: tuple[str, ...]) -> str:
    """Wide frame ``src`` -> (judgment_set, run, measure, scope, unit, value);
    UNPIVOT leaves out null values, as qacamp does."""
    return f"""
        SELECT judgment_set, run, measure, '{scope}' AS scope, {unit} AS unit, value
        FROM (UNPIVOT (SELECT * FROM {src}) ON {", ".join(cols)}
              INTO NAME measure VALUE value)"""


def score_sql(ingest: Path, out: Path, threads: int | None = None,
              con: duckdb.DuckDBPyConnection | None = None) -> dict[str, float]:
    """Score the QA4MRE campaign of ``ingest`` into ``out`` in DuckDB SQL;
    returns the seconds of each step."""
    ingest, out = Path(ingest), Path(out)
    out.mkdir(parents=True, exist_ok=True)
    o = options(ingest)
    con = con or duckdb.connect()
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    steps: dict[str, float] = {}
    t0 = time.perf_counter()

    def step(name: str) -> None:
        nonlocal t0
        now = time.perf_counter()
        steps[name] = steps.get(name, 0.0) + now - t0
        t0 = now

    def table(name: str) -> str:
        return f"read_parquet({_q(ingest / f'{name}.parquet')})"

    qtypes = ", ".join(f"'{t}'" for t in QUESTION_QTYPES)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE q AS
        SELECT qid, qtype, topic, test, position,
               auxiliary_of IS NOT NULL
               OR coalesce(TRY_CAST(regexp_extract(qid, '(\\d+)$', 1) AS BIGINT)
                           > {o['main_questions']}, false) AS aux
        FROM {table('questions')} WHERE qtype IN ({qtypes})""")
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE sets AS
        SELECT DISTINCT judgment_set FROM {table('judgments')}
        WHERE judgment_set IS NOT NULL""")
    if not con.execute("SELECT count(*) FROM sets").fetchone()[0]:
        con.execute("INSERT INTO sets VALUES (?)", [o["primary"]])
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE runs AS
        SELECT DISTINCT run FROM {table('responses')} WHERE run IS NOT NULL""")
    for name in o["run_names"]:
        con.execute("INSERT INTO runs SELECT ? WHERE ? NOT IN (SELECT run FROM runs)",
                    [name, name])
    multi = (con.execute(f"SELECT max(item) FROM {table('responses')}").fetchone()[0] or 1) > 1
    first = (f"(SELECT run, qid, item, rank, answered FROM {table('responses')}"
             + (" QUALIFY row_number() OVER (PARTITION BY run, qid ORDER BY item) = 1)"
                if multi else ")"))
    not_right = ", ".join(f"'{c}'" for c in NOT_RIGHT)
    # the outcome grid: every judgment set x judged question x run
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE grid AS
        SELECT s.judgment_set, r.run, q.qid, q.qtype, q.topic, q.test, q.aux, f.rank,
               coalesce(f.answered, false) AS answered,
               CASE WHEN f.answered IS NULL THEN 'UE'
                    WHEN f.answered THEN CASE WHEN j.judgment = 'R' THEN 'R' ELSE 'W' END
                    WHEN j.judgment = 'R' THEN 'UR'
                    WHEN j.judgment IN ({not_right}) THEN 'UW'
                    ELSE 'UE' END AS outcome
        FROM sets s CROSS JOIN q CROSS JOIN runs r
        LEFT JOIN {first} f ON f.run = r.run AND f.qid = q.qid
        LEFT JOIN {table('judgments')} j
          ON j.judgment_set = s.judgment_set AND j.run = r.run AND j.qid = q.qid
             AND j.item = f.item""")
    step("outcome grid")
    # baselines: k options per question, in question order (position, qid)
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE opt AS
        SELECT o.qid, o.option, coalesce(o.correct, false) AS correct,
               coalesce(o.is_noa, false) AS is_noa,
               row_number() OVER (PARTITION BY o.qid ORDER BY o.option) - 1 AS idx
        FROM {table('options')} o SEMI JOIN q ON o.qid = q.qid""")
    qk = con.execute("""
        SELECT q.qid, coalesce(k.k, 0) FROM (SELECT DISTINCT qid, position FROM q) q
        LEFT JOIN (SELECT qid, count(*) AS k FROM opt GROUP BY qid) k USING (qid)
        ORDER BY q.position NULLS LAST, q.qid""").fetchall()
    rng = np.random.default_rng(np.random.SeedSequence(o["baseline_seed"]))
    k = np.array([r[1] for r in qk], np.int64)
    draws = np.floor(rng.random(len(qk)) * np.maximum(k, 1)).astype(np.int64)
    con.execute("CREATE OR REPLACE TEMP TABLE pick AS SELECT unnest($1::VARCHAR[]) AS qid, "
                "unnest($2::BIGINT[]) AS pick, unnest($3::BIGINT[]) AS k",
                [[r[0] for r in qk], draws.tolist(), k.tolist()])
    has_nca = con.execute("SELECT coalesce(bool_or(is_noa), false) FROM opt").fetchone()[0]
    nca = f"""
        UNION ALL
        SELECT '{BASELINE_NCA}', p.qid, true,
               coalesce((SELECT bool_or(correct) FROM opt
                         WHERE opt.qid = p.qid AND is_noa), false)
        FROM pick p""" if has_nca else ""
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE base AS
        SELECT s.judgment_set, b.run, q.qid, q.qtype, q.topic, q.test, q.aux,
               q.position AS rank, b.a AS answered,
               CASE WHEN NOT b.a THEN 'UE' WHEN b.c THEN 'R' ELSE 'W' END AS outcome
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
        CREATE OR REPLACE TEMP TABLE fine AS
        SELECT judgment_set, run, CASE WHEN aux THEN 'auxiliary' ELSE qtype END AS u,
               topic, test,
               sum(CASE WHEN outcome = 'R' THEN 1 ELSE 0 END)::DOUBLE AS nr,
               sum(CASE WHEN outcome = 'W' THEN 1 ELSE 0 END)::DOUBLE AS nw,
               sum(CASE WHEN outcome = 'UR' THEN 1 ELSE 0 END)::DOUBLE AS nur,
               sum(CASE WHEN outcome = 'UW' THEN 1 ELSE 0 END)::DOUBLE AS nuw,
               sum(CASE WHEN outcome = 'UE' THEN 1 ELSE 0 END)::DOUBLE AS nue
        FROM (SELECT * FROM grid UNION ALL SELECT * FROM base)
        GROUP BY ALL
        UNION ALL
        SELECT s.judgment_set, '{BASELINE_EXPECTED}',
               CASE WHEN q.aux THEN 'auxiliary' ELSE q.qtype END, q.topic, q.test,
               sum(CASE WHEN p.k > 0 THEN 1.0::DOUBLE / p.k ELSE 0.0 END),
               sum(1.0::DOUBLE - CASE WHEN p.k > 0 THEN 1.0::DOUBLE / p.k ELSE 0.0 END),
               0.0::DOUBLE, 0.0::DOUBLE, 0.0::DOUBLE
        FROM sets s CROSS JOIN q JOIN pick p ON p.qid = q.qid
        GROUP BY ALL""")
    con.execute("CREATE OR REPLACE TEMP VIEW main_fine AS "
                "SELECT * FROM fine WHERE u <> 'auxiliary'")
    step("counts")
    keys = ["judgment_set", "run"]
    con.execute("CREATE OR REPLACE TEMP TABLE per_test AS "
                + _measures("main_fine", [*keys, "topic", "test"]))
    con.execute(f"CREATE OR REPLACE TEMP TABLE s_all AS {_measures('main_fine', keys)}")
    con.execute(f"CREATE OR REPLACE TEMP TABLE r_all AS {_reading(keys, o)}")
    con.execute("CREATE OR REPLACE TEMP TABLE s_qtype AS "
                + _measures("fine", [*keys, "u"]))
    con.execute(f"""
        CREATE OR REPLACE TEMP TABLE s_topic AS
        SELECT * FROM ({_measures('main_fine', [*keys, 'topic'])})
        JOIN ({_reading([*keys, 'topic'], o)}) USING (judgment_set, run, topic)""")
    step("scopes")
    parts = [_long("s_all", "all", "'all'", COUNT_MEASURES),
             _long("r_all", "all", "'all'", READING_MEASURES),
             _long("s_qtype", "qtype", "u", COUNT_MEASURES),
             _long("s_topic", "topic", "topic", COUNT_MEASURES + READING_MEASURES),
             _long("(SELECT * EXCLUDE (topic) FROM per_test)", "test", "test", COUNT_MEASURES)]
    con.execute(f"""
        COPY (SELECT judgment_set, run, measure, scope, unit, value
              FROM ({" UNION ALL ".join(parts)}) WHERE unit IS NOT NULL
              ORDER BY judgment_set, run, scope, unit, measure)
        TO {_q(out / 'runs.parquet')} {COPY}""")
    step("write runs")
    rows = ("(SELECT judgment_set, run, qid, rank, answered, outcome FROM grid WHERE NOT aux "
            "UNION ALL SELECT judgment_set, run, qid, rank, answered, outcome FROM base "
            "WHERE NOT aux)")
    con.execute(f"""
        COPY (SELECT judgment_set, run, qid, rank::INTEGER AS rank, answered, outcome
              FROM {rows} ORDER BY judgment_set, run, qid)
        TO {_q(out / 'outcomes.parquet')} {COPY}""")
    step("write outcomes")
    con.execute(f"""
        COPY (SELECT judgment_set, run, 'accuracy' AS measure, qid AS unit,
                     CASE WHEN outcome = 'R' THEN 1.0 ELSE 0.0 END::DOUBLE AS value
              FROM {rows} ORDER BY judgment_set, run, qid)
        TO {_q(out / 'units.parquet')} {COPY}""")
    step("write units")
    cols = ", ".join(f"printf('%d', {m}::BIGINT) AS {m}" if m in INTEGER_MEASURES
                     else f"printf('%.6f', {m}) AS {m}"
                     for m in COUNT_MEASURES + READING_MEASURES)
    con.execute(f"""
        COPY (SELECT run, {cols} FROM s_all JOIN r_all USING (judgment_set, run)
              WHERE judgment_set = {_q(o["primary"])} ORDER BY run)
        TO {_q(out / 'runs.csv')} (FORMAT csv, HEADER)""")
    step("write runs.csv")
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
