"""qacamp: re-run a question-answering evaluation campaign end to end.

Layers (only the outer one touches files):
readers (raw formats -> typed polars frames) -> scoring (measures registry)
-> reliability (resampling kernels) -> report (tables and figures).

For notebooks: ``qacamp.evaluate(kind, ...) -> polars.DataFrame`` (what
``qacamp eval`` prints; :mod:`qacamp.api`) and ``qacamp.reliability.swap(...)``
(what ``qacamp reliability swap`` writes).  Both are imported on first use, so
``import qacamp`` (and ``qacamp --version``) stays light.
"""

__version__ = "0.1.0"


def __getattr__(name: str):
    if name == "evaluate":
        from .api import evaluate

        return evaluate
    raise AttributeError(f"module 'qacamp' has no attribute {name!r}")


__all__ = ["evaluate", "__version__"]
