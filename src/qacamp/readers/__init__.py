"""Readers: raw organizer files -> canonical tables (:mod:`qacamp.tables`).

One module per format family (see docs/formats.md): :mod:`.trec_questions`,
:mod:`.trec_runs`, :mod:`.answer_keys`, :mod:`.qa4mre`, :mod:`.clef`,
:mod:`.pan`, :mod:`.matrix`.  Every reader accepts plain or ``.gz`` files and
raises :class:`qacamp.errors.InputError` on bad input.
"""
