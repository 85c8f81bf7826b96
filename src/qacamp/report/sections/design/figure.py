"""The figure of "Designing the next campaign" (:func:`design_figure`)."""

from __future__ import annotations

import polars as pl

from ....measures import label
from ...figures.base import LEVEL_COLOR, footnote, new_figure, plural, style


def design_figure(curve: pl.DataFrame, sizes: pl.DataFrame, measure: str, unit: str):
    """E(rho^2) and Phi (lines, their intervals shaded) and the swap error rate
    of the difference d (dashed) against the number of units; the target and
    the error level (dotted), the campaign's size (vertical line), the sizes
    each method needs (markers)."""
    units = plural(unit)
    rows = {r["method"]: r for r in sizes.iter_rows(named=True)}
    g, swap = rows["erho2"], rows["swap"]
    n = int(g["campaign_units"])
    x = curve["n_units"].to_numpy()
    with style():
        fig, ax = new_figure(8.6, 4.6)
        for key, name, color in (("erho2", r"E($\rho^2$)", "#2166ac"),
                                 ("phi", r"$\Phi$", "#e08214")):
            ax.plot(x, curve[key].to_numpy(), "-", color=color, lw=1.6, label=name)
            ax.fill_between(x, curve[f"{key}_lower"].to_numpy(), curve[f"{key}_upper"].to_numpy(),
                            color=color, alpha=0.18, lw=0,
                            label=f"{name}: {g['confidence']:.0%} interval")
            need = rows[key]["n_units"]
            if need is not None and need <= x.max():
                ax.plot([need], [g["target"]], "o", color=color, ms=6,
                        label=f"{name} \u2265 {g['target']:g} at {need:,} {units}")
        d = swap["difference"]
        if curve["swap_error"].drop_nulls().len():
            ax.plot(x, curve["swap_error"].to_numpy(), "--", color="#1b7837", lw=1.4,
                    label=f"swap error rate, d \u2265 {d:.2f}")
            need = swap["n_units"]
            if need is not None and need <= x.max():
                ax.plot([need], [swap["level"]], "s", color="#1b7837", ms=6,
                        label=f"swap error \u2264 {swap['level']:.0%} at {need:,} {units}")
        ax.axhline(g["target"], color="0.35", lw=0.9, ls=":", label=f"target {g['target']:g}")
        if curve["swap_error"].drop_nulls().len():
            ax.axhline(swap["level"], color=LEVEL_COLOR, lw=0.9, ls=":",
                       label=f"{swap['level']:.0%} error level")
        ax.axvline(n, color="0.15", lw=1.0, ls="-.", label=f"this campaign: {n:,} {units}")
        ax.set_xlim(0, float(x.max()) * 1.02)
        ax.set_ylim(0, 1.02)
        ax.set_xlabel(f"Number of {units}")
        ax.set_ylabel("Coefficient, or swap error rate")
        ax.set_title(f"Designing the next campaign, {label(measure)}:\nreliability and swap "
                     f"error against the number of {units}")
        fig.legend(*ax.get_legend_handles_labels(), loc="outside right upper", frameon=True)
        footnote(fig, "Generalizability theory (Brennan 2001): E(rho^2) with Feldt's exact "
                 "interval, Phi with Arteaga et al.'s approximate one.  Swap method (Voorhees "
                 "2003): the fitted error rate of the bin holding d"
                 + ("" if curve["swap_error"].drop_nulls().len()
                    else f" (not drawn: {swap['reason']})") + ".", width=150)
    return fig


__all__ = ["design_figure"]
