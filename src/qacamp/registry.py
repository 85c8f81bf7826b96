"""One registry type for every set of named records (measures, significance
tests and corrections, reliability analyses, campaign kinds, presets): a
read-only mapping name -> record in the order given, with the one lookup
whose error names what was asked for and lists the valid names."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Generic, TypeVar

from .errors import UsageError

T = TypeVar("T")


class Registry(Mapping[str, T], Generic[T]):
    """Records by their ``name``, in the order given (the order of every
    listing: help texts, docs, tables).  ``what`` names one record in errors
    ("measure", "significance test"); ``plural`` defaults to ``what + "s"``."""

    def __init__(self, what: str, records: Iterable[T], plural: str | None = None):
        self.what = what
        self.plural = plural or f"{what}s"
        self._records: dict[str, T] = {}
        for record in records:
            name = record.name  # type: ignore[attr-defined]
            if name in self._records:
                raise ValueError(f"two {self.plural} named {name!r}")
            self._records[name] = record

    def __getitem__(self, name: str) -> T:
        return self._records[name]

    def __contains__(self, name: object) -> bool:
        try:
            return name in self._records
        except TypeError:  # an unhashable value read from a file is no name
            return False

    def __iter__(self) -> Iterator[str]:
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def lookup(self, name: str) -> T:
        """The record called ``name``; a :class:`UsageError` listing the valid
        names if there is none."""
        try:
            return self._records[name]
        except (KeyError, TypeError):
            raise UsageError(self.unknown(name)) from None

    def unknown(self, name: object) -> str:
        """The one error message of an unknown name."""
        return f"unknown {self.what} {name!r}; valid {self.plural}: {', '.join(self)}"

    def __repr__(self) -> str:
        return f"Registry({self.what!r}, [{', '.join(self)}])"


__all__ = ["Registry"]
