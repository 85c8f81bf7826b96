"""The campaign kinds, one record each (:class:`Kind`), one module per kind.

A kind's record says everything the layers need to know about it: its config
(required keys, file keys, judgment-set parts, its own options, its part of
the config schema), its reliability defaults, the measures it computes and
the one its pages are headed and ranked by (by edition where the rules
change: TREC 2003's final score), how it is read (the ingest function), what
the scoring does for it, its simulator, its report (run table, breakdowns,
figures) and its ``qacamp eval`` options.  Every other module asks the
registry (:data:`KINDS`) instead of naming kinds.

A record names the code of other layers by name within that layer (the
ingest function ``("gold", "qa4mre_kind")`` of :mod:`qacamp.ingest`, the
simulator module of :mod:`qacamp.simulate`, the run-table builder and
figures of :mod:`qacamp.report`), so this package imports no layer above it
and is cheap to import (the workflow parses it for every job).

Adding a kind: a module here with its record, and its name in :data:`KINDS`
(the code it names must exist in its layer).
"""

from __future__ import annotations

from ..registry import Registry
from . import clef_qa, pan, qa4mre, score_matrix, trec_factoid, trec_series
from .record import Edition, EvalOption, Kind, Setting

#: name -> kind, in the order of the docs, the schema and the command line
KINDS: Registry[Kind] = Registry("campaign kind", (
    m.KIND for m in (trec_factoid, trec_series, qa4mre, clef_qa, pan, score_matrix)))


__all__ = ["KINDS", "Kind", "Edition", "Setting", "EvalOption"]
