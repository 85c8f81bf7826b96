"""qacamp: re-run a question-answering evaluation campaign end to end.

Layers (only the outer one touches files):
readers (raw formats -> typed polars frames) -> scoring (measures registry)
-> reliability (resampling kernels) -> report (tables and figures).
"""

__version__ = "0.1.0"
