"""`qacamp measures` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("measures", help="(in development)")
