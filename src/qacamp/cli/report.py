"""`qacamp report` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("report", help="(in development)")
