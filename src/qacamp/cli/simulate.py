"""`qacamp simulate` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("simulate", help="(in development)")
