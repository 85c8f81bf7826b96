"""The analyses called from Python (the notebook API): one function per
analysis record, made from the record itself, so that a call is checked by
the command line's rules, with its messages, and runs the same kernel adapter
(:attr:`.record.Analysis.run`).

``qacamp.swap(scores, "5:10", trials=20, seed=7)`` is ``qacamp reliability
swap --matrix ... --sizes 5:10 --trials 20 --seed 7``:

- the keywords are the options' names (``--bin-width``: ``bin_width``); the
  record's required options come after ``scores`` and may be positional;
- each value is checked as the command line checks its text: exact types
  (:mod:`qacamp.arguments`: ``trials=2.5`` and ``trials=True`` are refused,
  ``include_baselines="no"`` too), the option's bounds
  (:func:`.record.check_options`), the kernel adapter's memory bounds; every
  refusal is a :class:`~qacamp.errors.UsageError` (or an
  :class:`~qacamp.errors.InputError` naming the frame and the place) with
  the command line's message;
- ``scores`` is anything :func:`.inputs.matrix_of` takes (a frame of scores
  such as ``qacamp.evaluate(..., per_question=True)``'s rows, a matrix frame,
  a matrix file, a ``ScoreMatrix``); the other files an analysis reads are
  frames or Parquet paths (``fit``'s ``counts``, checked against their
  declared schema), ``kendall``'s rankings a mapping label -> scores;
- the whole analysis runs at once: the workflow's options
  (:data:`.record.WORKFLOW_ONLY`: shards, pair counts, the config prefix) are
  not offered; every output is returned (one polars frame, or a tuple of
  them in the record's output order; an output the options did not ask for,
  such as significance's comparison with a baseline run, is an empty frame of
  its columns); warnings are Python warnings
  (:class:`~qacamp.errors.QacampWarning`).

A record whose inputs cannot come from memory (``extras``: a campaign's
folders) has no function.  A new record gets its function, and its checks,
with nothing added here.
"""

from __future__ import annotations

import inspect
import warnings
from argparse import Namespace
from collections.abc import Callable, Mapping
from typing import Any

import polars as pl

from ...arguments import python_value
from ...errors import QacampWarning, UsageError
from ...registry import Registry
from . import ANALYSES
from .inputs import check_columns, matrix_of, polars_frame, read_frames
from .record import (
    DEFAULT_MATRIX_MEASURE,
    WORKFLOW_ONLY,
    Analysis,
    InputFile,
    Inputs,
    Option,
    check_options,
)

#: what an output option holds in a Python call: every output is computed and returned
RETURNED = "<returned>"
#: the command line's matrix options, replaced by the ``scores`` argument
MATRIX_OPTIONS = ("matrix", "scores")


def offered(analysis: Analysis) -> bool:
    """Its inputs can come from memory (not a campaign's folders)."""
    return all(f.read in ("parquet", "rankings") for f in analysis.files)


def _required(o: Option) -> bool:
    return o.required or not o.flags[0].startswith("-")


def parameters(analysis: Analysis) -> list[Option]:
    """The options a Python call takes: all but the outputs, the matrix options
    and the workflow's (an input file named like one, ``fit --counts``, is taken)."""
    outputs = {o.dest for o in analysis.outputs} | {analysis.folder}
    inputs = {f.dest for f in analysis.files}
    return [o for o in analysis.options
            if o.dest not in outputs and o.dest not in MATRIX_OPTIONS
            and (o.dest not in WORKFLOW_ONLY or o.dest in inputs)]


def _default(o: Option) -> Any:
    if o.action == "store_true":
        return False if o.default is None else o.default
    return list(o.default) if isinstance(o.default, list) else o.default


def signature(analysis: Analysis) -> inspect.Signature:
    """``(scores, <required options>, *, <other options>)``; ``scores`` after the
    required ones, defaulting to None, when the matrix is optional (``fit``)."""
    P = inspect.Parameter
    opts = parameters(analysis)
    params = [P("scores", P.POSITIONAL_OR_KEYWORD)] if analysis.matrix == "required" else []
    params += [P(o.dest, P.POSITIONAL_OR_KEYWORD) for o in opts if _required(o)]
    if analysis.matrix == "optional":
        params.append(P("scores", P.POSITIONAL_OR_KEYWORD, default=None))
    params += [P(o.dest, P.KEYWORD_ONLY, default=_default(o)) for o in opts if not _required(o)]
    return inspect.Signature(params)


def _value(o: Option, value: Any) -> Any:
    """A Python value of option ``o``, as the command line would have parsed its text."""
    if o.python is not None:
        value = o.python(o.flags[0], value)
    return python_value(o.flags[0], o.argparse_kwargs(), value, o.bounds)


def _frames(f: InputFile, value: Any, include_baselines: bool) -> list:
    """The input ``f`` of a Python call: frames (or Parquet paths), or rankings."""
    if f.read == "rankings":
        if not isinstance(value, Mapping) or not value:
            raise UsageError(f"{f.dest}: give a mapping of labels to scores, e.g. "
                             "{'official': frame_a, 'automatic': frame_b}")
        return [(str(label), matrix_of(v, f"{f.dest}[{label!r}]",
                                       include_baselines=include_baselines))
                for label, v in value.items()]
    items = value if isinstance(value, list | tuple) else [value]
    out = []
    for i, item in enumerate(items):
        frame = polars_frame(item)
        name = f.dest if len(items) == 1 else f"{f.dest}[{i}]"
        if frame is not None:
            out.append((f"{name} (a frame)", check_columns(f"{name} (a frame)", frame,
                                                           dict(f.schema or {}), f.strict,
                                                           f.fix)))
        elif isinstance(item, str) or hasattr(item, "__fspath__"):
            out += read_frames([item], f.schema, f.fix or None, f.strict)
        else:
            raise UsageError(f"{name}: {item!r} is not a frame or the path of a Parquet file")
    return out


def call(analysis: Analysis, args: tuple, kwargs: dict) -> Any:
    """One Python call of ``analysis`` (module docstring)."""
    sig = signature(analysis)
    unknown = sorted(k for k in kwargs if k not in sig.parameters)
    if unknown:
        raise UsageError(f"{analysis.name}: unknown option(s) {', '.join(unknown)}; allowed: "
                         f"{', '.join(sig.parameters)}")
    try:
        given = sig.bind(*args, **kwargs).arguments
    except TypeError as exc:  # a missing required argument, too many positional ones
        first = [p.name for p in sig.parameters.values() if p.kind is p.POSITIONAL_OR_KEYWORD]
        raise UsageError(f"{analysis.name}: {exc} (it takes {', '.join(first)} in this order; "
                         "every other option by name, e.g. seed=7)") from None
    files = {f.dest: f for f in analysis.files}
    ns = Namespace(**{o.dest: _default(o) for o in analysis.options})
    for o in parameters(analysis):
        if o.dest in given and o.dest not in files \
                and not (given[o.dest] is None and o.default is None):
            setattr(ns, o.dest, _value(o, given[o.dest]))
    for output in analysis.outputs:
        setattr(ns, output.dest, RETURNED)
    ns.shard_index = (0, 1)
    check_options(analysis, ns)
    inputs = {dest: _frames(f, given[dest], getattr(ns, "include_baselines", False))
              for dest, f in files.items() if given.get(dest) is not None}
    matrix = None
    if given.get("scores") is not None:
        matrix = matrix_of(given["scores"], "scores", ns.measure, ns.unit,
                           ns.judgment_set, ns.include_baselines, ns.aggregator,
                           DEFAULT_MATRIX_MEASURE)
    result = analysis.run(Inputs(matrix, inputs), ns)
    for line in result.warnings:
        warnings.warn(f"{analysis.name}: {line}", QacampWarning, stacklevel=3)
    # every output, in the record's order: one the options did not ask for
    # (significance's comparison with a baseline run) is an empty frame of its
    # columns, so the shape of the result never depends on the arguments
    schemas = {o.dest: o.schema for o in analysis.outputs}
    frames = [result.frames[d] if result.frames.get(d) is not None
              else pl.DataFrame(schema=dict(schemas[d])) for d in schemas]
    return frames[0] if len(frames) == 1 else tuple(frames)


def _doc(analysis: Analysis) -> str:
    lines = [f"{analysis.help[:1].upper()}{analysis.help[1:]}: ``qacamp reliability "
             f"{analysis.name}`` from Python (qacamp.reliability.analyses.python).", ""]
    if analysis.matrix:
        lines.append("scores: a frame of scores (qacamp.evaluate(..., per_question=True)), a "
                     "matrix frame (polars or pandas), a matrix file or a ScoreMatrix")
    for o in parameters(analysis):
        lines.append(f"{o.dest} ({o.flags[0]}): {' '.join(o.help.split())}")
    n = len(dict.fromkeys(o.dest for o in analysis.outputs))
    lines += ["", "Returns a polars frame" if n == 1 else
              f"Returns a tuple of {n} polars frames, in the order of the command's outputs "
              f"({', '.join(dict.fromkeys(o.dest for o in analysis.outputs))})."]
    return "\n".join(lines)


def function(analysis: Analysis) -> Callable[..., Any]:
    """The Python function of ``analysis``."""
    def run(*args, **kwargs):
        return call(analysis, args, kwargs)

    run.__name__ = run.__qualname__ = analysis.name.replace("-", "_")
    run.__module__ = "qacamp"
    run.__doc__ = _doc(analysis)
    run.__signature__ = signature(analysis)  # type: ignore[attr-defined]
    return run


class Function:
    """A registry record: an analysis's name and its Python function."""

    def __init__(self, analysis: Analysis):
        self.name = analysis.name
        self.function = function(analysis)


#: name -> the Python function of every analysis whose inputs can come from memory
FUNCTIONS: Registry[Function] = Registry("analysis function", (
    Function(a) for a in ANALYSES.values() if offered(a)))

swap = FUNCTIONS["swap"].function
stability = FUNCTIONS["stability"].function
design = FUNCTIONS["design"].function

__all__ = ["FUNCTIONS", "function", "call", "parameters", "signature", "offered", "swap",
           "stability", "design"]
