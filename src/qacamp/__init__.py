"""qacamp: re-run a question-answering evaluation campaign end to end.

Layers (only the outer one touches files):
readers (raw formats -> typed polars frames) -> scoring (measures registry)
-> reliability (resampling kernels) -> report (tables and figures).

For notebooks (docs/cli.md, "Python API"): ``qacamp.evaluate(kind, ...)`` (what
``qacamp eval`` prints; :mod:`qacamp.api`) and one function per reliability
analysis, ``qacamp.swap``, ``qacamp.stability``, ``qacamp.fit``,
``qacamp.bootstrap``, ``qacamp.significance``, ``qacamp.kendall`` ... (what
``qacamp reliability NAME`` computes, with its checks and messages:
:mod:`qacamp.reliability.analyses.python`); ``qacamp.reliability.swap`` and
``qacamp.reliability.stability`` are the same functions.  Every error is a
:class:`QacampError` (:class:`InputError`, :class:`ConfigError`,
:class:`UsageError`, :class:`OutputError`), every warning a
:class:`QacampWarning`.  The functions and ``qacamp.reliability`` are
imported on first use, so ``import qacamp`` (and ``qacamp --version``) stays
light.
"""

from .errors import ConfigError, InputError, OutputError, QacampError, QacampWarning, UsageError

__version__ = "0.1.0"


def _functions():
    from .reliability.analyses.python import FUNCTIONS

    return FUNCTIONS


def __getattr__(name: str):
    if name == "evaluate":
        from .api import evaluate

        return evaluate
    if name == "reliability":
        import importlib

        return importlib.import_module(".reliability", __name__)
    if not name.startswith("_") and name.isidentifier():
        functions = _functions()
        if name in functions:
            return functions[name].function
    raise AttributeError(f"module 'qacamp' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), "evaluate", "reliability", *_functions()})


__all__ = ["evaluate", "QacampError", "InputError", "ConfigError", "UsageError", "OutputError",
           "QacampWarning", "__version__"]
