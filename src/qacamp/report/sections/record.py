"""The shape of a report section's record (:mod:`qacamp.report.sections`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from ..campaign import Campaign
from ..tables import Table


def unchanged(c: Campaign, table: Table) -> Table:
    return table


def no_texts(c: Campaign) -> dict[str, str]:
    return {}


@dataclass(frozen=True)
class Section:
    """A part of a campaign's report built from the outputs of an analysis:

    - ``tables(c)``: its tables (``qacamp report tables`` writes them);
    - ``figures(c)``: name -> figure (``qacamp report figures``);
    - ``page(c, tables, figures)``: the page's context of the section, None
      when the campaign has none of its files; rendered by the template
      ``template`` (under ``templates/``, given ``section.page``) inside the
      page's reliability part, linked from the contents as ``title``
      (anchor ``anchor``);
    - ``run_table(c, table)``: the run table with the section's columns;
    - ``texts(c)``: file name -> text of the tables the :class:`~..tables.Table`
      writers cannot write (the comparison tables with superscripts), written
      by ``qacamp report tables`` beside the others."""

    name: str
    title: str
    anchor: str
    template: str
    tables: Callable[[Campaign], list[Table]]
    figures: Callable[[Campaign], dict[str, Any]]
    page: Callable[[Campaign, Mapping[str, Table], Mapping[str, bytes]], dict | None]
    run_table: Callable[[Campaign, Table], Table] = unchanged
    texts: Callable[[Campaign], dict[str, str]] = no_texts


__all__ = ["Section", "no_texts", "unchanged"]
