"""Automatic judging at ingest: the ``automatic`` judgment set (campaign key
``autojudge: true``) is added to the judgments table here, so ``qacamp eval``
and the workflow score the same set, and what the judging could not do
exactly (timed-out patterns, truncated answers) becomes ``warnings`` rows
naming the pattern file line or the run file line.

The responses are judged a batch of whole runs at a time (at least
:data:`BATCH_ROWS` responses, in run order; :meth:`.accumulator.Acc.run_batches`),
each batch's judgments added as it comes (:meth:`.accumulator.Acc.add_parts`):
the judgments, the warnings and the files are those of judging every response
at once (:class:`qacamp.autojudge.Judge`), and memory holds a batch's
responses (and the distinct answers searched), not the campaign's."""

from __future__ import annotations

import polars as pl

from ..autojudge import MAX_INPUT, MAX_TIMEOUTS, TIMEOUT, Judge, compile_pattern
from ..errors import InputError
from ..readers import answer_keys
from .checks import Acc, line_of_item

PATTERN_KEYS = ("patterns", "patterns_factoid", "patterns_list")
_PART = {"FACTOID": "factoid", "LIST": "list"}
#: Responses judged in one batch (whole runs: a batch may hold more); the
#: order of magnitude of a scoring batch (:data:`qacamp.scoring.batches.BATCH_CELLS`).
BATCH_ROWS = 500_000


def add_automatic(resolved: dict, acc: Acc, where: dict[tuple[str, str, str], str]) -> None:
    files = resolved["files"]
    pattern_files = [p for k in PATTERN_KEYS for p in files.get(k, [])]
    questions = acc.table("questions")
    qtypes = dict(questions.select("qid", "qtype").iter_rows())
    judged = {q for q, t in qtypes.items() if t in _PART}
    for path in pattern_files:  # name the file and line of a pattern that cannot be used
        pats = answer_keys.read_patterns(path).filter(pl.col("qid").is_in(list(judged)))
        for qid, pattern in pats.select("qid", "pattern").unique(maintain_order=True).iter_rows():
            try:
                compile_pattern(pattern, qid)
            except InputError as exc:
                line = answer_keys.pattern_line(path, qid, pattern)
                raise InputError(path, f"line {line}" if line else exc.place, exc.problem,
                                 exc.fix) from exc
    judging = Judge(questions, acc.table("patterns"))
    cut: list[tuple[str, int, str, int, int]] = []  # per run: answers cut, the first, longest

    def judged():
        for responses in acc.run_batches(BATCH_ROWS):
            judgments, truncated = judging.batch(responses)
            for (run,), rows in truncated.group_by(["run"], maintain_order=True):
                cut.append((run, rows.height, rows["qid"][0], rows["item"][0],
                            rows["length"].max()))
            yield judgments

    acc.add_parts("judgments", judged())
    for qid, pattern, timeouts, skipped in judging.timeouts().iter_rows():
        path = next((p for p in pattern_files
                     if answer_keys.pattern_line(p, qid, pattern) is not None), "<patterns>")
        line = answer_keys.pattern_line(path, qid, pattern) if path != "<patterns>" else None
        more = (f"; after {MAX_TIMEOUTS} time-outs it was not tried on {skipped} "
                "more answers (also counted as no match)") if skipped else ""
        acc.warn(path, f"line {line}" if line else None, "autojudge-timeout",
                 f"pattern {pattern!r} of question {qid} timed out "
                 f"({TIMEOUT:g} s) on {timeouts} answers, each counted as no "
                 f"match{more}", count=timeouts + skipped)
    primary = resolved["primary"]
    for run, count, qid, item, longest in cut:
        part = _PART[qtypes[qid]]
        path = where.get((primary, part, run), f"<run {run}>")
        line = line_of_item(path, part, qid, item) if not path.startswith("<") else None
        acc.warn(path, f"line {line}" if line else None, "autojudge-truncated",
                 f"{count} answers of run '{run}' are longer than "
                 f"{MAX_INPUT} characters (longest {longest}) and were "
                 f"matched on their first {MAX_INPUT} characters only",
                 count=count)
