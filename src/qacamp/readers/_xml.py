"""Safe, bounded XML parsing for the XML readers (series questions, QA4MRE).

The file is read with :func:`._text.read_bytes` (size, line length and line
count limits; the XML formats are line-oriented enough that a line of more
than :data:`._text.MAX_LINE_BYTES` is a broken file, so a 200 MB one-line
document fails after the first MiB).  Parsing refuses entity declarations,
external entities and external DTDs (never fetched) and elements nested more
than :data:`MAX_XML_DEPTH` deep.  :func:`parse_xml_lines` also records the
line of every element's start tag, so errors can name it.
"""

from __future__ import annotations

from pathlib import Path
from xml.etree.ElementTree import Element, ParseError

from defusedxml import DefusedXmlException
from defusedxml.ElementTree import DefusedXMLParser

from ..errors import InputError
from ._text import read_bytes

MAX_XML_DEPTH = 64
"""Deepest element nesting accepted in an XML file (the real files nest 6 deep;
deeper nesting would exhaust the recursion of ElementTree's tree walks)."""


class _Parser(DefusedXMLParser):
    """defusedxml's parser (entity declarations, external entities refused) that
    also refuses a DOCTYPE naming an external DTD (SYSTEM or PUBLIC id).
    Internal DTD subsets without entity declarations are accepted.  Elements
    nested deeper than :data:`MAX_XML_DEPTH` are refused.  ``lines`` maps
    ``id(element)`` to the line of its start tag."""

    def __init__(self, source: str):
        super().__init__(forbid_dtd=False, forbid_entities=True, forbid_external=True)
        self._source = source
        self._depth = 0
        self.lines: dict[int, int] = {}
        self.parser.StartDoctypeDeclHandler = self._refuse_external_dtd
        start, end = self.parser.StartElementHandler, self.parser.EndElementHandler

        def start_element(*args):
            self._depth += 1
            line = self.parser.CurrentLineNumber
            if self._depth > MAX_XML_DEPTH:
                raise InputError(self._source, f"line {line}",
                                 f"elements nested more than {MAX_XML_DEPTH} deep (the limit)",
                                 "check the file's markup (the formats nest a few levels)")
            elem = start(*args)
            self.lines[id(elem)] = line
            return elem

        def end_element(*args):
            self._depth -= 1
            return end(*args)

        self.parser.StartElementHandler = start_element
        self.parser.EndElementHandler = end_element

    def _refuse_external_dtd(self, name, sysid, pubid, has_internal_subset):
        if sysid or pubid:
            raise InputError(self._source, f"line {self.parser.CurrentLineNumber}",
                             f"the DOCTYPE names an external DTD ({sysid or pubid})",
                             "remove the external DTD reference (it is never fetched)")


def parse_xml_lines(path: str | Path) -> tuple[Element, dict[int, int]]:
    """Parse an XML file safely -> ``(root, lines)``, ``lines[id(elem)]`` being the
    line of each element's start tag (valid while ``root`` is alive).

    The encoding is the one the XML declaration names (UTF-8 by default).
    Entity declarations, external entities and external DTDs raise InputError.
    """
    data = read_bytes(path)
    parser = _Parser(str(path))
    try:
        parser.feed(data)
        return parser.close(), parser.lines
    except DefusedXmlException as exc:
        line = parser.parser.CurrentLineNumber
        raise InputError(path, f"line {line}",
                         f"the XML declares entities or references external content ({exc})",
                         "remove <!ENTITY> declarations and external references "
                         "(qacamp never expands or fetches them)") from exc
    except (ValueError, LookupError) as exc:
        # pyexpat: an encoding declaration naming an unknown or multi-byte
        # encoding it cannot decode (e.g. shift_jis, utf-7, utf-32)
        line = parser.parser.CurrentLineNumber
        raise InputError(path, f"line {line}", f"unsupported XML encoding ({exc})",
                         "save the file as UTF-8 (or ISO-8859-1) and declare that encoding"
                         ) from exc
    except ParseError as exc:
        line, col = exc.position
        raise InputError(path, f"line {line}, column {col}", f"malformed XML ({exc})",
                         "fix the XML (check encoding declaration, tags and escaping)") from exc


def parse_xml(path: str | Path) -> Element:
    """Parse an XML file safely and return its root element (see :func:`parse_xml_lines`)."""
    return parse_xml_lines(path)[0]


def all_text(elem: Element) -> str:
    """The text of ``elem`` and its descendants in document order, like
    ``"".join(elem.itertext())`` but without recursion (deeply nested
    markup would otherwise raise RecursionError)."""
    out: list[str] = []
    stack: list[tuple[Element, bool]] = [(elem, False)]
    while stack:
        node, tail = stack.pop()
        if tail:
            out.append(node.tail or "")
            continue
        if isinstance(node.tag, str):
            out.append(node.text or "")
        for child in reversed(node):
            stack.append((child, True))
            stack.append((child, False))
    return "".join(out)


def describe(elem: Element, *keys: str) -> str:
    """``<tag k='v'>`` for error messages."""
    attrs = " ".join(f"{k}='{elem.get(k)}'" for k in keys if elem.get(k) is not None)
    return f"<{elem.tag}{' ' + attrs if attrs else ''}>"
