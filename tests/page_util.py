"""Reading an overview page as a person does: its tables (caption, headers,
rows, notes) and its text without markup or embedded images."""

from __future__ import annotations

import html
import re
from html.parser import HTMLParser


class Tables(HTMLParser):
    """Every ``<table id=...>``: caption, header texts and body rows (cell texts)."""

    def __init__(self, text: str):
        super().__init__()
        self.tables: dict[str, dict] = {}
        self._t: dict | None = None
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._in = None
        self.feed(text)

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "table" and a.get("id"):
            self._t = {"caption": "", "headers": [], "rows": []}
            self.tables[a["id"].removeprefix("table-")] = self._t
        elif self._t is None:
            return
        elif tag == "caption":
            self._in = "caption"
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag):
        if self._t is None:
            return
        if tag == "caption":
            self._in = None
        elif tag in ("td", "th") and self._cell is not None:
            text = " ".join("".join(self._cell).split())
            if self._row is not None:
                self._row.append((tag, text))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            cells = self._row
            self._row = None
            if cells and all(t == "th" for t, _ in cells) and not self._t["headers"]:
                self._t["headers"] = [c for _, c in cells]
            elif any(t == "td" for t, _ in cells):
                self._t["rows"].append([c for _, c in cells])
        elif tag == "table":
            self._t = None

    def handle_data(self, data):
        if self._t is None:
            return
        if self._cell is not None:
            self._cell.append(data)
        elif self._in == "caption":
            self._t["caption"] += data


def page_text(page: str) -> str:
    """The page's visible text (no style, script or embedded image data)."""
    page = re.sub(r"<style>.*?</style>|<script>.*?</script>", "", page, flags=re.S)
    page = re.sub(r'src="data:[^"]*"', "", page)
    return " ".join(html.unescape(re.sub(r"<[^>]+>", " ", page)).split())


def section(page: str, sid: str) -> str:
    """The HTML of ``<section id=sid>``."""
    return page.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]


def column(table: dict, header: str) -> list[str]:
    i = table["headers"].index(header)
    return [r[i] for r in table["rows"] if len(r) == len(table["headers"])]


def numbering(page: str) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
    """(the contents' entries, the section headings): (number, title) each."""
    toc = re.findall(r'<li value="(\d+)"><a href="#[^"]+">([^<]+)</a>', page)
    heads = re.findall(r"<h2>(\d+)\. ([^<]+)</h2>", page)
    return ([(int(n), html.unescape(t)) for n, t in toc],
            [(int(n), html.unescape(t)) for n, t in heads])
