"""Figure building blocks: the fixed style, an Agg figure, colours, unit names,
and the deterministic PNG + SVG writer.

Every figure function takes frames and returns a :class:`matplotlib.figure.Figure`
attached to an Agg canvas created inside the function (no pyplot, no global
backend switch at import).  Figures are drawn under a fixed style (matplotlib
defaults plus :data:`STYLE`) so a user's matplotlibrc cannot change them.
:func:`save_figure` writes ``<stem>.png`` (fixed dpi, no ``Software`` tag) and
``<stem>.svg`` (no date, fixed ``svg.hashsalt``, text as paths), so a rerun
gives byte-identical files.
"""

from __future__ import annotations

import contextlib
import textwrap
from collections.abc import Iterator
from pathlib import Path

from ...io import atomic_path

DPI = 150
SVG_HASHSALT = "qacamp"
STYLE = {
    "font.family": "DejaVu Sans",
    "font.size": 9.0,
    "axes.titlesize": 10.0,
    "axes.labelsize": 9.0,
    "legend.fontsize": 8.0,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "svg.fonttype": "path",
    "svg.hashsalt": SVG_HASHSALT,
    "path.simplify": False,
}
LEVEL_COLOR = "#b2182b"


@contextlib.contextmanager
def style() -> Iterator[None]:
    import matplotlib as mpl

    with mpl.rc_context():
        mpl.rcdefaults()
        mpl.rcParams.update(STYLE)
        yield


def new_figure(width: float, height: float, ncols: int = 1, **kw):
    """A figure on an Agg canvas and its axes (created inside the caller's style)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    axes = fig.subplots(1, ncols, **kw)
    return fig, axes


def colors(n: int) -> list:
    """``n`` distinguishable colours: tab10 up to 10, else evenly spaced viridis."""
    from matplotlib import colormaps

    if n <= 10:
        cmap = colormaps["tab10"]
        return [cmap(i) for i in range(n)]
    cmap = colormaps["viridis"]
    return [cmap(i / max(1, n - 1) * 0.92) for i in range(n)]


#: plural of the units a campaign is measured in ("series" stays "series")
_PLURALS = {"series": "series", "question": "questions", "problem": "problems",
            "test": "tests", "topic": "topics", "unit": "units", "document": "documents"}


def plural(unit: str, n: int | None = None) -> str:
    """``questions``, ``series`` (never "seriess"); the singular when ``n == 1``."""
    unit = str(unit)
    if n == 1:
        return unit
    return _PLURALS.get(unit, unit if unit.endswith("s") else f"{unit}s")


def footnote(fig, text: str, width: int = 125) -> None:
    """A small left-aligned note under the axes (inside the saved image)."""
    fig.supxlabel(textwrap.fill(text, width=width), fontsize=6.5, x=0.01, ha="left")


def fitted_legend(fig, handles, labels, most: int = 6, **kw):
    """A legend under the axes (``outside lower center``) in as many columns as
    fit the figure's width (at most ``most``): long entries (QA4MRE's topic
    names) wrap onto more rows instead of being cut at both edges."""
    renderer = fig.canvas.get_renderer()
    width = fig.bbox.width
    legend = None
    for ncols in range(max(1, min(most, len(labels))), 0, -1):
        if legend is not None:
            legend.remove()
        legend = fig.legend(handles, labels, loc="outside lower center", ncols=ncols, **kw)
        if legend.get_window_extent(renderer).width <= 0.98 * width:
            break
    return legend


# --------------------------------------------------------------------------- writing

def save_figure(fig, stem: str | Path, dpi: int = DPI) -> list[Path]:
    """Write ``<stem>.png`` and ``<stem>.svg`` atomically and deterministically."""
    import matplotlib as mpl

    stem = Path(stem)
    out = []
    with mpl.rc_context({"svg.hashsalt": SVG_HASHSALT, "svg.fonttype": "path"}):
        for ext, meta in (("png", {"Software": None}), ("svg", {"Date": None})):
            path = stem.with_name(f"{stem.name}.{ext}")
            with atomic_path(path, f".{ext}") as tmp:
                fig.savefig(tmp, format=ext, dpi=dpi, metadata=meta)
            out.append(path)
    return out


__all__ = ["DPI", "STYLE", "LEVEL_COLOR", "style", "new_figure", "colors", "plural", "footnote",
           "fitted_legend", "save_figure"]
