"""`qacamp eval` (placeholder during development; replaced by its owner)."""


def register(sub):
    sub.add_parser("eval", help="(in development)")
