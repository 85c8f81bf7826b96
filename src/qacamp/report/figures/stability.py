"""Stability versus discrimination (Penas & Rodrigo 2011 Figure 2): error rate
against the proportion of ties, one curve per measure over the fuzziness
values.

Both ends of every curve carry their fuzziness value (``f=0.01``, ``f=0.10``),
placed inside the axes (the limits leave room for them) and never on top of
one another: a label with the same text at the same place as one already
drawn is not repeated, and one with another text is moved down.  A curve
whose points all coincide gets one label ``f=0.01-0.10``; when every point
of every curve is at the origin (no ties and no errors: too few runs or
identical runs) the footnote says so instead of drawing a figure that
collapses to a dot.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import polars as pl

from ...measures import label
from .base import colors, footnote, new_figure, plural, style

#: candidate offsets (points) of a label from its point, tried in this order
_OFFSETS = ((4, 3, "left"), (4, -10, "left"), (-4, 3, "right"), (-4, -10, "right"),
            (4, 12, "left"), (4, -19, "left"), (-4, 12, "right"), (-4, -19, "right"))
_FONT = 7.0  # points


def _box(px: float, py: float, dx: float, dy: float, ha: str, text: str) -> tuple:
    """The label's box in points (x0, y0, x1, y1), estimated from its length."""
    w, h = 0.62 * _FONT * len(text), 1.1 * _FONT
    x0 = px + dx if ha == "left" else px + dx - w
    return (x0, py + dy, x0 + w, py + dy + h)


def _overlaps(a: tuple, b: tuple) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _f(value: float) -> str:
    return f"{value:.2f}"


def stability_figure(stability: Mapping[str, pl.DataFrame], size: int | None = None,
                     unit: str = "question"):
    """Error rate against proportion of ties, one curve per measure (legend by
    the measures' labels, outside the axes), the fuzziness at both ends of
    every curve."""
    names = list(stability)
    frames = {m: stability[m].sort("fuzziness") for m in names}
    xs = np.concatenate([f["prop_ties"].to_numpy() for f in frames.values()] or [np.zeros(0)])
    ys = np.concatenate([f["error_rate"].to_numpy() for f in frames.values()] or [np.zeros(0)])
    xmax = float(np.nanmax(xs)) if xs.size else 0.0
    ymax = float(np.nanmax(ys)) if ys.size else 0.0
    fuzz = [v for f in frames.values() for v in f["fuzziness"].to_list()]
    f_range = f"{_f(min(fuzz))}\u2013{_f(max(fuzz))}" if fuzz else ""
    with style():
        fig, ax = new_figure(7.2, 4.2)
        # room for the end labels: 25% right of the last point, 15% above the highest
        ax.set_xlim(0, xmax * 1.25 if xmax > 0 else 0.05)
        ax.set_ylim(0, ymax * 1.15 if ymax > 0 else 0.05)
        placed: list[tuple[tuple, str]] = []  # label boxes (points) and texts
        to_points = 72.0 / fig.dpi
        for color, m in zip(colors(len(names)), names, strict=True):
            df = frames[m]
            x, y = df["prop_ties"].to_numpy(), df["error_rate"].to_numpy()
            ax.plot(x, y, "o-", color=color, ms=3.5, lw=1.4, label=label(m))
            if not df.height:
                continue
            f = df["fuzziness"].to_list()
            same = bool(np.allclose(x, x[0]) and np.allclose(y, y[0]))
            ends = [(0, f"f={_f(f[0])}\u2013{_f(f[-1])}")] if same else \
                [(0, f"f={_f(f[0])}"), (df.height - 1, f"f={_f(f[-1])}")]
            for i, text in ends:
                px, py = (v * to_points for v in ax.transData.transform((x[i], y[i])))
                if any(t == text and abs(b[0] - px) < 12 and abs(b[1] - py) < 12
                       for b, t in placed):
                    continue  # the same label is already at this place
                boxes = [(_box(px, py, dx, dy, ha, text), dx, dy, ha)
                         for dx, dy, ha in _OFFSETS]
                box, dx, dy, ha = next((c for c in boxes
                                        if not any(_overlaps(c[0], b) for b, _ in placed)),
                                       boxes[0])
                ax.annotate(text, (x[i], y[i]), fontsize=_FONT, xytext=(dx, dy), ha=ha,
                            textcoords="offset points", color=color)
                placed.append((box, text))
        ax.set_xlabel("Proportion of ties")
        ax.set_ylabel("Error rate")
        sub = f" (subsets of {size} {plural(unit, size)})" if size else ""
        ax.set_title(f"Stability vs discrimination{sub}\nfuzziness f = {f_range}")
        fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper",
                   title="Measure", title_fontsize=8)
        note = ("Each point: one fuzziness value f (a difference below f times the larger "
                "score is a tie); lower curves are better.")
        if xs.size and xmax == 0 and ymax == 0:
            note += (" Every measure has no ties and no errors at every f (too few or "
                     "identical runs): all points are at the origin.")
        footnote(fig, note, width=110)
    return fig


__all__ = ["stability_figure"]
