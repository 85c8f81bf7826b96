"""`qacamp ingest` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("ingest", help="(in development)")
